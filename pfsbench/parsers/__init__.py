# SPDX-License-Identifier: BSD-3-Clause
"""Pure output parsers, one module per tool.

Each module offers ``parse(text, source='<text>') -> Result`` where ``Result``
is a frozen dataclass.  No file I/O, no ReFrame import, no globals.  Units are
in field names (``bw_mib_s``, ``ops_per_s``); a missing value is ``None``,
never ``0.0``.  Failures raise :class:`pfsbench.errors.ParseError` quoting the
offending line.
"""

from typing import NamedTuple


class Parser(NamedTuple):
    """Where ``pfsbench parse TOOL`` finds the parser of one tool."""

    #: The module that offers ``parse(text, source)``.
    module: str
    #: The tool's output formats it reads (it tells them apart itself).
    formats: tuple


#: Tool name -> its parser, for ``pfsbench parse``: a new parser module is
#: one line here.
TOOLS = {
    'dd': Parser('pfsbench.parsers.dd', ('text',)),
    'streams': Parser('pfsbench.parsers.streams', ('text',)),
    'ior': Parser('pfsbench.parsers.ior', ('text', 'json', 'csv')),
    'lfs': Parser('pfsbench.parsers.lfs', ('text',)),
    'mdtest': Parser('pfsbench.parsers.mdtest', ('text',)),
    'mds-survey': Parser('pfsbench.parsers.mds_survey', ('text',)),
    'mdsrate': Parser('pfsbench.parsers.mdsrate', ('text',)),
    'bonnie': Parser('pfsbench.parsers.bonnie', ('csv', 'text')),
    'iozone': Parser('pfsbench.parsers.iozone', ('text',)),
    'fio': Parser('pfsbench.parsers.fio', ('json', 'text', 'terse')),
    'procstat': Parser('pfsbench.parsers.procstat', ('text',)),
    'io500': Parser('pfsbench.parsers.io500', ('text',)),
    'pfind': Parser('pfsbench.parsers.pfind', ('text',)),
}
#: Modules of this package that parse no tool's output (shared helpers).
HELPERS = ('pfsbench.parsers.common', 'pfsbench.parsers.text')
