# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench check-config``: validate site configs and reference files."""

import glob
import os

from pfsbench.siteconfig import (load_site_configuration, shown_path,
                                 validate_reference_file)

HELP = 'validate site configurations and references'
DESCRIPTION = ("Load every system file and every reference file and check "
               "pfsbench's keys (ReFrame ignores unknown extras and "
               "sched_options keys silently).")
EXAMPLES = (
    'pfsbench check-config',
    'pfsbench check-config --config-dir /site/pfsbench-config',
)


def add_arguments(parser):
    # <repo>/config, beside this package (pfsbench/cli/check_config.py).
    default = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), 'config')
    parser.add_argument('--config-dir', default=default, metavar='DIR',
                        help='the config directory (default: %(default)s)')


def run(args):
    config, _ = load_site_configuration(args.config_dir)
    partitions = {f'{s["name"]}:{p["name"]}' for s in config['systems']
                  for p in s.get('partitions', [])}
    systems = {s['name'] for s in config['systems']}
    print(f'systems: {", ".join(sorted(systems))} '
          f'({len(partitions)} partitions): ok')
    refs = sorted(glob.glob(os.path.join(args.config_dir, 'references',
                                         '*.yaml')))
    for path in refs:
        count = validate_reference_file(path, partitions)
        system = os.path.basename(path)[:-5]
        note = '' if system in systems else ' (no such system: unused)'
        print(f'{shown_path(path)}: {count} reference(s): ok{note}')

    return 0
