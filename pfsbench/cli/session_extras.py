# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench session-extras``: tags for ``reframe --session-extras``."""

import json

from pfsbench.gate import extras

HELP = ('print the tags that explain a change (fs, mount options, kernel, '
        'node, job) as k=v,...')
DESCRIPTION = ('Collect, on this host, what can explain a change in a '
               'figure: the file system holding --target (type, source, '
               'mount options from /proc/self/mountinfo), the kernel, OS, '
               'node, Lustre/BeeGFS client versions, the Slurm job and '
               'nodes, the Spack environment. Prints them in the k=v,... '
               'form of reframe --session-extras (commas inside values '
               'become ";").')
EXAMPLES = (
    'pfsbench session-extras --target /scratch/pfsbench',
    'reframe -C config/pfsbench.py -c reframe-checks/dd -r '
    '--session-extras "$(pfsbench session-extras --target $SCRATCH '
    '--extra spack_hash=abc1234)"',
    'pfsbench session-extras --target /tmp --format json',
)


def add_arguments(parser):
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


def run(args):
    tags = extras.collect(args.target)
    tags.update(extras.parse_pairs(args.extra))
    if args.format == 'json':
        print(json.dumps(tags, indent=1))
    else:
        print(extras.format_extras(tags))

    return 0
