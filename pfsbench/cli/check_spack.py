# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench check-spack``: is Spack set up to build pfsbench's tools?

Asks Spack for its version, interpreter and builtin repository, and names
each set-up mistake with its fix before Spack reports it misleadingly
(docs/spack.md, 'Air-gapped sites'). Exit 0 when ready, 2 otherwise.
"""

import sys

from pfsbench.spack_check import problems

HELP = 'check the Spack set-up (offline builtin, clingo)'
DESCRIPTION = __doc__.split('\n\n', 1)[1]
EXAMPLES = (
    'pfsbench check-spack',
    'pfsbench check-spack --spack /opt/spack-1.1.0/bin/spack',
    'SPACK_PYTHON=.venv/bin/python pfsbench check-spack',
)


def add_arguments(parser):
    parser.add_argument('--spack', metavar='EXE',
                        help='the spack executable (default: '
                             '$SPACK_ROOT/bin/spack, else spack on PATH)')


def run(args):
    facts, found = problems(args.spack)
    for problem in found:
        print(f'pfsbench: error: {problem}', file=sys.stderr)
    if found:
        return 2
    builtin = facts['builtin'] or 'shipped with Spack'
    print(f"spack {facts['version']}: python {facts['python']} (clingo), "
          f'builtin {builtin}: ok')
    return 0
