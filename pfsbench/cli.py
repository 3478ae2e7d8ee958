# SPDX-License-Identifier: BSD-3-Clause
"""The ``pfsbench`` command.

Each verb lives in its own module that exposes ``add_parser(subparsers)``
(returning the sub-parser, with an *Examples* epilog) and ``run(args) ->
int``.  Add a verb by adding its module name to :data:`VERBS`.

Exit codes (fixed, documented in docs/cli.md): 0 pass, 1 regression found,
2 usage/config/input error, 3 missing data.
"""

import argparse
import importlib
import os
import sys

from pfsbench import __version__
from pfsbench.errors import PfsbenchError

#: Modules under ``pfsbench`` that implement one verb each, in help order.
VERBS = [
    'cli_parse',
    'cli_render',
    'cli_check_config',
    'cli_check_spack',
    'cli_cleanup',
    'cli_summary',
    'cli_session_extras',
    'cli_baseline',
    'cli_gate',
    'cli_report',
]


def build_parser():
    parser = argparse.ArgumentParser(
        prog='pfsbench',
        description='Parallel-file-system benchmarks: parse tool output, '
                    'render job scripts, gate regressions.',
    )
    parser.add_argument('--version', action='version',
                        version=f'pfsbench {__version__}')
    parser.add_argument('--debug', action='store_true',
                        help='show tracebacks for errors (default: off)')
    subparsers = parser.add_subparsers(dest='verb', metavar='VERB')
    subparsers.required = True
    for name in VERBS:
        module = importlib.import_module(f'pfsbench.{name}')
        sub = module.add_parser(subparsers)
        sub.set_defaults(_run=module.run)
    return parser


def main(argv=None):
    """Run the CLI; return the exit code (0 pass, 1 regression, 2 error,
    3 missing data)."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    args.argv = argv    # verbs that record how they were called use this
    try:
        return args._run(args)
    except PfsbenchError as err:
        if args.debug:
            raise
        print(f'pfsbench: error: {err}', file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print('pfsbench: interrupted', file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (| head): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == '__main__':
    sys.exit(main())
