# SPDX-License-Identifier: BSD-3-Clause
"""The ``pfsbench`` command itself: its verbs (:data:`VERBS`), its
parser (:func:`build_parser`) and its entry point (:func:`main`, which
:func:`pfsbench.cli.common.run_verb` guards: a :class:`PfsbenchError`
becomes its one-line message and exit code).
"""

import argparse
import importlib
import sys

from pfsbench import __version__
from pfsbench.cli import common

#: The verbs, in help order.
VERBS = [
    'parse',
    'render',
    'check-config',
    'check-spack',
    'nightly-plan',
    'cleanup',
    'summary',
    'session-extras',
    'baseline',
    'gate',
    'report',
    'ingest',
    'history',
    'notify',
    'triage',
    'paper',
]


def verb_module(verb):
    """The module that implements ``verb``."""
    return importlib.import_module(f'pfsbench.cli.{verb.replace("-", "_")}')


def build_parser(verbs=None):
    """The parser of the whole command, one sub-parser per verb (of
    ``verbs`` only, if given: each verb's module is imported to build
    its sub-parser)."""
    parser = argparse.ArgumentParser(
        prog='pfsbench',
        description='Parallel-file-system benchmarks: parse tool output, '
                    'render job scripts, gate regressions.',
        epilog=common.exit_codes(), formatter_class=common.Formatter,
        allow_abbrev=False,
    )
    parser.add_argument('--version', action='version',
                        version=f'pfsbench {__version__}')
    parser.add_argument('--debug', action='store_true',
                        help='show tracebacks for errors (default: off)')
    subparsers = parser.add_subparsers(dest='verb', metavar='VERB')
    subparsers.required = True
    for verb in VERBS if verbs is None else verbs:
        module = verb_module(verb)
        sub = common.add_subparser(subparsers, verb, help=module.HELP,
                                   description=module.DESCRIPTION,
                                   invocations=module.EXAMPLES)
        module.add_arguments(sub)
        sub.set_defaults(_run=module.run)
    return parser


def _named_verb(argv):
    """``[verb]`` where the command line names one of :data:`VERBS`
    before any other word (the top-level options take no value), else
    ``None``: the parser then holds every verb, for the help and the
    error that lists them."""
    for word in argv:
        if word in ('-h', '--help', '--version'):
            return None
        if not word.startswith('-'):
            return [word] if word in VERBS else None
    return None


def main(argv=None):
    """Run the CLI; return the exit code (0 pass, 1 regression, 2 error,
    3 missing data)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_named_verb(argv))
    args = parser.parse_args(argv)
    args.argv = argv    # verbs that record how they were called use this
    return common.run_verb(args)
