# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench cleanup DIR``: remove run directories pfsbench left behind.

A job killed with SIGKILL or on a lost node never reaches the lines of
its script that remove the run directory; a run removes such leftovers of
its own cases, and of a ``reframe`` killed with SIGKILL the next run on the
target does (:mod:`pfsbench.site.rundir`).  This removes the rest, and only
them: directories named ``pfsbench-*`` directly under DIR that carry the
marker file every pfsbench run directory gets (a regular file, in a real
directory) and belong to the user running it.  Nothing else is touched;
``/``, homes and system directories are refused as DIR.
"""

import os

from pfsbench.core.errors import ConfigError
from pfsbench.site import rundir
from pfsbench.site.config import check_scratch_dir

HELP = 'remove leftover pfsbench run directories'
DESCRIPTION = __doc__.split('\n\n', 1)[1]
EXAMPLES = (
    'pfsbench cleanup /lustre/scratch/$USER/pfsbench --dry-run',
    'pfsbench cleanup /lustre/scratch/$USER/pfsbench',
)


def add_arguments(parser):
    parser.add_argument('directory', metavar='DIR',
                        help='a target directory of a partition')
    parser.add_argument('--dry-run', action='store_true',
                        help='list what would be removed (default: off)')


def run(args):
    # '/', homes and system directories are refused before anything is
    # listed, as for a target.
    check_scratch_dir(args.directory, '<command line>', 'DIR',
                      must_exist=False)
    if not os.path.isdir(args.directory):
        raise ConfigError('<command line>', 'DIR', args.directory,
                          'is not a directory')

    for path in rundir.leftovers(args.directory):
        print(('would remove ' if args.dry_run else 'removing ') + path)
        if not args.dry_run:
            rundir.remove(path)

    return 0
