# SPDX-License-Identifier: BSD-3-Clause
"""Pure output parsers, one module per tool.

Each module offers ``parse(text, source='<text>') -> Result`` where ``Result``
is a frozen dataclass.  No file I/O, no ReFrame import, no globals.  Units are
in field names (``bw_mib_s``, ``ops_per_s``); a missing value is ``None``,
never ``0.0``.  Failures raise :class:`pfsbench.errors.ParseError` quoting the
offending line.
"""
