# SPDX-License-Identifier: BSD-3-Clause
"""Command line of the synchronised stream runner (:mod:`pfsbench.streams`).

The runner wraps a tool that has no parallel mode of its own (dd) so that
all streams start together; its argv carries the tool's own command lines
verbatim, so a job script shows the exact dd the source ran.
"""

import sys

from pfsbench.commands import shell_join


def runner(run_dir, write_argv, read_argv, fan_out=1, cache_defeat='none',
           drop_caches_command=None, barrier_timeout=3600,
           python=None):
    """argv of ``python -m pfsbench.streams`` for one launcher task.

    Args:
        run_dir: the run directory the test owns on the target.
        write_argv: the tool's write command (may hold ``{stream_dir}``).
        read_argv: the tool's read command.
        fan_out: streams per launcher task (the local launcher starts one
            process for all streams of the node).
        cache_defeat: ``drop_caches``, ``direct`` or ``none``.
        drop_caches_command: the partition's command, with ``drop_caches``.
        barrier_timeout: seconds a stream waits for the others.
        python: the interpreter that has pfsbench installed (default: this
            one).

    Returns:
        the argv list.
    """
    argv = [python or sys.executable, '-m', 'pfsbench.streams',
            '--run-dir', run_dir,                 # owned by this test only
            '--fan-out', str(fan_out),            # streams per task
            '--cache-defeat', cache_defeat,       # between write and read
            '--barrier-timeout', f'{barrier_timeout:g}',
            '--write', shell_join(write_argv),
            '--read', shell_join(read_argv)]
    if cache_defeat == 'drop_caches' and drop_caches_command:
        argv += ['--drop-caches-command', drop_caches_command]

    return argv
