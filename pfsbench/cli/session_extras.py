# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench session-extras``: tags for ``reframe --session-extras``."""

import json
import os

from pfsbench.gate.history.results import default_runs_dir
from pfsbench.site import extras
from pfsbench.site.config import find_partitions, load_site_configuration

#: The configuration directory of this checkout.
CONFIG_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'config')

HELP = ('print the tags that explain a change (fs, mount options, kernel, '
        'node, job) as k=v,...')
DESCRIPTION = ('Collect, on this host, what can explain a change in a '
               'figure: the file system holding --target (type, source, '
               'mount options from /proc/self/mountinfo), the kernel, OS, '
               'node, Lustre/BeeGFS client versions, the Slurm job and '
               'nodes, the Spack environment (the partition\'s spack_env, '
               'else PFSBENCH_SPACK_ENV, else SPACK_ENV) and its '
               'spack.lock, a copy of which is kept under the runs '
               'directory. Prints them in the k=v,... '
               'form of reframe --session-extras (commas inside values '
               'become ";").')
EXAMPLES = (
    'pfsbench session-extras --target /scratch/pfsbench '
    '--system hawk:compute',
    'reframe -C config/settings.py -c reframe-checks/dd -r '
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
    parser.add_argument(
        '--system', metavar='NAME:PARTITION',
        help="the partition the run uses: its extras.spack_env names the "
             'Spack environment (default: none; then PFSBENCH_SPACK_ENV, '
             'else SPACK_ENV)')
    parser.add_argument(
        '--config-dir', metavar='DIR', default=CONFIG_DIR,
        help='the configuration directory (default: %(default)s)')
    parser.add_argument(
        '--runs', metavar='DIR', default=None,
        help='where the results go; the spack.lock copy goes to '
             'DIR/spack-locks/ (default: $PFSBENCH_RUNS, else <repo>/runs)')


def run(args):
    spack_extras = None
    if args.system:
        config, _ = load_site_configuration(
            args.config_dir, systems=[args.system.split(':')[0]])
        _, (partition,) = find_partitions(config['systems'], args.system,
                                          require_partition=True)
        spack_extras = partition.get('extras', {})

    tags = extras.collect(args.target, spack_extras=spack_extras,
                          runs_dir=args.runs or default_runs_dir())
    tags.update(extras.parse_pairs(args.extra))
    if args.format == 'json':
        print(json.dumps(tags, indent=1))
    else:
        print(extras.format_extras(tags))

    return 0
