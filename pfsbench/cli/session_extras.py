# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench session-extras``: tags for ``reframe --session-extras``."""

import json

from pfsbench.gate import extras
from pfsbench.gate.cliutil import Formatter, examples


def add_parser(subparsers):
    parser = subparsers.add_parser(
        'session-extras',
        help='print the tags that explain a change (fs, mount options, '
             'kernel, node, job) as k=v,...',
        description='Collect, on this host, what can explain a change in a '
                    'figure: the file system holding --target (type, '
                    'source, mount options from /proc/self/mountinfo), the '
                    'kernel, OS, node, Lustre/BeeGFS client versions, the '
                    'Slurm job and nodes, the Spack environment. Prints '
                    'them in the k=v,... form of reframe --session-extras '
                    '(commas inside values become ";").',
        epilog=examples(
            'pfsbench session-extras --target /scratch/pfsbench',
            'reframe -C config/pfsbench.py -c reframe-checks/dd -r '
            '--session-extras "$(pfsbench session-extras --target $SCRATCH '
            '--extra spack_hash=abc1234)"',
            'pfsbench session-extras --target /tmp --format json',
        ),
        formatter_class=Formatter,
    )
    parser.add_argument(
        '--target', metavar='DIR', required=True,
        help='a directory on the file system under test (required)')
    parser.add_argument(
        '--extra', metavar='KEY=VALUE', action='append', default=[],
        help='add a tag (e.g. spack_hash=abc1234); repeatable '
             '(default: none)')
    parser.add_argument(
        '--format', metavar='FMT', choices=('text', 'json'), default='text',
        help='text (k=v,...) or json (default: %(default)s)')
    return parser


def run(args):
    tags = extras.collect(args.target)
    tags.update(extras.parse_pairs(args.extra))
    if args.format == 'json':
        print(json.dumps(tags, indent=1))
    else:
        print(extras.format_extras(tags))

    return 0
