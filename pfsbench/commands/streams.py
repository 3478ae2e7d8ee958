# SPDX-License-Identifier: BSD-3-Clause
"""Command line of the synchronised streams runner (:mod:`pfsbench.runner`).

The runner wraps tools that have no parallel mode of their own (dd, fio as
one process per stream) so that all streams start each phase together; its
argv carries each phase's tool command line verbatim, so a job script shows
the exact command the source ran.
"""

import sys

from pfsbench.core.shell import shell_join


def runner(run_dir, phases, fan_out=1, cache_defeat='none',
           drop_caches_command=None, barrier_timeout=3600, python=None,
           rendezvous_dir=None):
    """argv of ``python -m pfsbench.runner`` for one launcher task.

    Args:
        run_dir: the run directory the test owns on the target.
        phases: ``[(name, argv), ...]`` in order; an argv may hold
            ``{stream_dir}``, the stream's own directory.
        fan_out: streams per launcher task (the local launcher starts one
            process for all streams of the node).
        cache_defeat: ``drop_caches``, ``direct`` or ``none``.
        drop_caches_command: the partition's command, with ``drop_caches``.
        barrier_timeout: seconds a barrier waits for its last stream.
        python: the interpreter that has pfsbench installed (default: this
            one).
        rendezvous_dir: a directory every task sees, where task 0
            publishes the barrier's address (default: the run directory;
            a node target's is not shared).

    Returns:
        the argv list.
    """
    argv = [python or sys.executable, '-m', 'pfsbench.runner',
            '--run-dir', run_dir,                 # owned by this test only
            '--fan-out', str(fan_out),            # streams per task
            '--cache-defeat', cache_defeat,       # between phases
            '--barrier-timeout', f'{barrier_timeout:g}']
    for name, phase_argv in phases:
        argv += ['--phase', f'{name}={shell_join(phase_argv)}']
    if cache_defeat == 'drop_caches' and drop_caches_command:
        argv += ['--drop-caches-command', drop_caches_command]
    if rendezvous_dir:
        argv += ['--rendezvous-dir', rendezvous_dir]

    return argv


def repeated(phases, repeats):
    """``phases`` run ``repeats`` times in a row, the N-th time's phases
    named ``<phase>_r<N>`` (N >= 2), which the streams parser averages.

    Args:
        phases: ``[(name, argv), ...]`` of one run.
        repeats: how many runs (>= 1).

    Returns:
        the phases of every run, in order.

    Raises:
        ValueError: ``repeats`` below 1.
    """
    if repeats < 1:
        raise ValueError(f'repeats: {repeats}: expected at least 1')

    return [(name if n == 1 else f'{name}_r{n}', argv)
            for n in range(1, repeats + 1) for name, argv in phases]
