# SPDX-License-Identifier: BSD-3-Clause
"""Pure output parsers, one module per tool.

Each module offers ``parse(text, source='<text>') -> Result`` where ``Result``
is a frozen dataclass.  No file I/O, no ReFrame import, no globals.  Units are
in field names (``bw_mib_s``, ``ops_per_s``); a missing value is ``None``,
never ``0.0``.  Failures raise :class:`pfsbench.core.errors.ParseError` quoting
the offending line.
"""

from typing import NamedTuple

from pfsbench.core import tools


class Parser(NamedTuple):
    """Where ``pfsbench parse TOOL`` finds the parser of one tool."""

    #: The module that offers ``parse(text, source)``.
    module: str
    #: The tool's output formats it reads (it tells them apart itself).
    formats: tuple


#: Tool name -> its parser, for ``pfsbench parse``: read from the tool
#: records (:data:`pfsbench.core.tools.TOOLS`), where a new parser is declared.
TOOLS = {name: Parser(tool.parser, tool.formats)
         for name, tool in tools.parsers().items()}
#: Modules of this package that parse no tool's output (shared helpers).
HELPERS = ('pfsbench.parsers.common', 'pfsbench.parsers.text')
