# SPDX-License-Identifier: BSD-3-Clause
"""Run directories: what pfsbench creates on a target, and so may delete.

Every run writes only inside a fresh ``pfsbench-<name>-<time>-<id>``
directory under the target, marked with :data:`MARKER`.  The job script that
uses it removes it at its end, whatever the tool's exit status; ``pfsbench
cleanup`` removes leftovers of killed jobs, and only marked directories.
"""

import os
import shutil
import stat
import time

from pfsbench.commands import shell_join

#: Marker file in every run directory pfsbench creates.
MARKER = '.pfsbench-run'
#: The job script's record of the tool's exit status (the ``squeue``
#: scheduler of ReFrame cannot see exit codes).
JOB_EXIT_PREFIX = 'pfsbench-job: exit='


def run_dir_name(name, unique=None):
    """``pfsbench-<name>-<YYYYmmddTHHMMSS>-<unique>`` (unique: our PID)."""
    stamp = time.strftime('%Y%m%dT%H%M%S')
    return f'pfsbench-{name}-{stamp}-{unique or os.getpid()}'


def create(path, owner):
    """Create the run directory ``path`` and its marker naming ``owner``."""
    os.makedirs(path)
    with open(os.path.join(path, MARKER), 'w') as fp:
        fp.write(f'{owner}\n')


def job_epilogue(run_dir):
    """Job-script lines run after the tool, whatever its exit status.

    ``run_dir`` may be a shell variable (``$RUN_DIR`` in a rendered script).
    """
    return [f'echo "{JOB_EXIT_PREFIX}$?"',
            f'rm -rf {shell_join([run_dir])}']


def is_run_dir(path):
    """Whether ``path`` is a run directory pfsbench made: named
    ``pfsbench-*``, a real directory (not a symbolic link) holding the
    marker as a regular file (a link named like the marker marks
    nothing)."""
    if not os.path.basename(path).startswith('pfsbench-'):
        return False

    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            return False
        return stat.S_ISREG(os.lstat(os.path.join(path, MARKER)).st_mode)
    except OSError:
        return False


def leftovers(directory):
    """Marked run directories directly under ``directory`` that belong to
    the user running pfsbench (another user's runs are theirs to clean)."""
    found = []
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if is_run_dir(path) and os.lstat(path).st_uid == os.geteuid():
            found.append(path)

    return found


def remove(path):
    """Remove a run directory, refusing anything :func:`is_run_dir` does
    not recognise."""
    if not is_run_dir(path):
        raise ValueError(f'{path}: no {MARKER} marker: not a pfsbench run '
                         f'directory, not removing it')

    shutil.rmtree(path)
