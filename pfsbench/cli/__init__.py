# SPDX-License-Identifier: BSD-3-Clause
"""The ``pfsbench`` command.

Each verb lives in its own module, ``pfsbench.cli.<verb>`` (dashes become
underscores), which exposes ``HELP`` (one line), ``DESCRIPTION``,
``EXAMPLES`` (two or three real invocations), ``add_arguments(parser)`` and
``run(args) -> int``.  Add a verb by adding its name to
:data:`pfsbench.cli.entry.VERBS`; what all verbs share is in
:mod:`pfsbench.cli.common`.

Exit codes (fixed, documented in docs/cli.md): 0 pass, 1 regression found,
2 usage/config/input error, 3 missing data.
"""

from pfsbench.cli.entry import VERBS, build_parser, main, verb_module

__all__ = ['VERBS', 'build_parser', 'main', 'verb_module']
