#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""How long do creating and cleaning up the sources' file counts take here?

Seed 000 created 500,000 (Lustre) to 3,000,000 (ext4, XFS) files per run
and seed 004 304,000; an mdtest check's job removes its whole tree at the
end (``rm -rf`` of the run directory, :mod:`pfsbench.site.rundir`), also after
a failure.  This runs mdtest's create phase alone (``-C``, files only, a
directory per task; the command line from :mod:`pfsbench.commands.mdtest`)
and then that cleanup, and prints mdtest's create rate, the wall time of
each, and the cleanup rate.

With ``--phases create,remove`` mdtest removes the files itself (its
remove rate) and the cleanup finds only the empty tree.

Usage: python3 bench/mdtest_million.py [--files 1000000] [--tasks 1]
       [--dir /var/tmp] [--mdtest /opt/ior/bin/mdtest]
       [--phases create[,stat][,remove]]
(more than one task runs under ``mpirun``).  On the MooseFS of tests/mfs:
``--dir /var/tmp/pfsbench-mfs/mnt/m1/scratch`` (docs/test-filesystem.md).
"""

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))

from pfsbench.commands import mdtest  # noqa: E402
from pfsbench.parsers import mdtest as mdtest_parser  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--files', type=int, default=1000000,
                        help='files of all tasks together')
    parser.add_argument('--tasks', type=int, default=1)
    parser.add_argument('--dir', default='/var/tmp',
                        help='where to make the tree (removed afterwards)')
    parser.add_argument('--mdtest', default='/opt/ior/bin/mdtest')
    parser.add_argument('--phases', default='create',
                        help='mdtest phases, comma-separated, among '
                             'create, stat, remove (default: %(default)s)')
    args = parser.parse_args()
    phases = tuple(args.phases.split(','))
    if 'create' not in phases or not set(phases) <= {'create', 'stat',
                                                     'remove'}:
        parser.error(f'--phases: {args.phases!r}: expected create, then '
                     f'stat and/or remove')

    work = tempfile.mkdtemp(prefix='pfsbench-million-', dir=args.dir)
    argv = mdtest.mdtest_argv(
        os.path.join(work, 'mdtest'), items_per_task=args.files // args.tasks,
        kind='files', unique_dir=True, iterations=1, phases=phases,
        executable=args.mdtest)
    if args.tasks > 1:
        argv = ['mpirun', '-np', str(args.tasks), '--oversubscribe'] + argv
    print('+', shlex.join(argv), flush=True)
    try:
        start = time.monotonic()
        proc = subprocess.run(argv, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT,
                              universal_newlines=True)
        create_s = time.monotonic() - start
        result = mdtest_parser.parse(proc.stdout, 'mdtest')
    finally:
        print('+ rm -rf', work, flush=True)
        start = time.monotonic()
        subprocess.run(['rm', '-rf', work], check=True)
        remove_s = time.monotonic() - start

    print(f'files: {result.items} ({result.tasks} task(s)) under '
          f'{args.dir}')
    for phase in phases:
        rate = result.summary(f'file_{phase}').mean_ops_per_s
        print(f'{phase}: mdtest {rate:.0f} files/s')
    print(f'mdtest wall {create_s:.1f} s (with start-up and tree creation)')
    if 'remove' in phases:
        # mdtest removed the files; rm -rf found only its empty tree, so a
        # files/s figure would be meaningless.
        print(f'cleanup (rm -rf of the tree mdtest emptied): {remove_s:.1f} s')
    else:
        print(f'cleanup (rm -rf): {remove_s:.1f} s, '
              f'{result.items / remove_s:.0f} files/s')


if __name__ == '__main__':
    main()
