# SPDX-License-Identifier: BSD-3-Clause
"""What the IO500 checks share (no test here): the suite's own IO500
phases as job steps in IO500's order, their figures as IO500 scores them,
IO500's validity rules, and the second and third tools (mdtest, pfind)
of a check whose ``tool`` is another.

Three checks use it: ``ior_io500_phases`` (the four ior phases),
``mdtest_io500_phases`` (the seven mdtest phases and find) and
``io500_suite_run`` (all twelve in one job, in IO500's interleaved order,
with IO500's score); ``io500_list_run`` (the real io500 binary) and
``io500_suite_run`` share the case and the figures (:class:`IO500Run`).
The command lines are :mod:`pfsbench.commands.ior`'s,
:mod:`pfsbench.commands.mdtest`'s and :mod:`pfsbench.commands.io500`'s
``io500_*`` builders, flag for flag.
"""

import os
from typing import NamedTuple

import reframe as rfm
from reframe.core.builtins import (parameter, performance_function,
                                   run_after, variable)

from pfsbench.checks.mdtest import performance_of
from pfsbench.commands import io500, ior, mdtest
from pfsbench.core.jobsteps import Step
from pfsbench.site import binaries, spack

#: IO500's mdtest phases: phase -> (preset, the preset's phase).
MDTEST_PHASES = {p.name: tuple(p.name.split('-')[1:]) for p in io500.PHASES
                 if p.tool == 'mdtest'}
_MDTEST_ARGV = {'easy': mdtest.io500_mdtest_easy_argv,
                'hard': mdtest.io500_mdtest_hard_argv}
_MDTEST_PRESET_PHASES = {'easy': mdtest.IO500_EASY_PHASES,
                         'hard': mdtest.IO500_HARD_PHASES}


def phase_figure(phase):
    """The performance function of one of :data:`io500.PHASES`, named as
    io500 names the phase (``ior_easy_write``), in IO500's unit (GiB/s
    for ior, kIOPS for the others): the check's ``phase_value(name)``."""
    unit = 'GiB/s' if phase.group == 'bw' else 'kIOPS'
    return performance_of(phase.name.replace('-', '_'), unit, 'phase_value',
                          phase.name)


class IO500Run(rfm.RegressionTestPlugin):
    """Mixin of the checks that run all twelve phases as one IO500 run
    (``io500_list_run``, ``io500_suite_run``; with
    :class:`~pfsbench.checks.FileSystemCheck`, before it in the bases).

    The case: nodes, tasks per node, the stonewall, the API, and IO500's
    sizes lowered by the partition's caps.  Its figures: each phase's
    (``phase_value(name)``), IO500's bandwidth and metadata scores and its
    total (``scores()``: a :class:`pfsbench.commands.io500.Score` or
    anything with ``bw``, ``md`` and ``total``), and whether IO500 would
    call the run valid.
    """

    #: Nodes of the job.
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 2, 4, 8]``
    nodes = parameter([1, 2, 4, 8], type=int, loggable=True)

    #: Tasks per node (every phase runs on all of them).
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 2, 4, 12]``
    tasks_per_node = parameter([1, 2, 4, 12], type=int, loggable=True)

    #: Seconds every write phase runs (io500's ``[debug] stonewall-time``,
    #: ior's ``-D``, mdtest's ``-W``); a list entry uses 300, and IO500
    #: calls any other value invalid.
    stonewall_s = variable(int, value=io500.LIST_STONEWALL_S, loggable=True)
    #: The phases the stonewall ends (the ior-easy, mdtest-easy, ior-hard
    #: and mdtest-hard writes); nightly-plan counts a case without history
    #: at one stonewall more than these.
    stonewalled_writes = variable(int, value=4)
    api = variable(str, value='POSIX', loggable=True)

    #: ior-easy's block per task, ior-hard's segments and mdtest's files
    #: per task: IO500's, lowered at setup by the partition's caps
    #: (``ior_max_bytes_per_task``, else ``max_bytes_per_stream``, per
    #: task; ``mdtest_max_items`` for all tasks together), as
    #: ``ior_io500_phases`` and ``mdtest_io500_phases`` lower them.
    ior_easy_block_size = variable(str, value=ior.IO500_EASY_BLOCK_SIZE,
                                   loggable=True)
    ior_hard_segments = variable(int, value=ior.IO500_HARD_SEGMENTS,
                                 loggable=True)
    mdtest_files_per_task = variable(int, value=mdtest.IO500_FILES_PER_PROC,
                                     loggable=True)
    #: True when a partition's cap lowered one of them.
    size_capped = variable(bool, value=False, loggable=True)

    #: Whether IO500's rules make the run valid (set at sanity).
    io500_valid = variable(bool, value=False, loggable=True)

    ior_easy_write = phase_figure(io500.PHASES[0])
    mdtest_easy_write = phase_figure(io500.PHASES[1])
    ior_hard_write = phase_figure(io500.PHASES[2])
    mdtest_hard_write = phase_figure(io500.PHASES[3])
    find = phase_figure(io500.PHASES[4])
    ior_easy_read = phase_figure(io500.PHASES[5])
    mdtest_easy_stat = phase_figure(io500.PHASES[6])
    ior_hard_read = phase_figure(io500.PHASES[7])
    mdtest_hard_stat = phase_figure(io500.PHASES[8])
    mdtest_easy_delete = phase_figure(io500.PHASES[9])
    mdtest_hard_read = phase_figure(io500.PHASES[10])
    mdtest_hard_delete = phase_figure(io500.PHASES[11])

    reads_other_nodes_files = True

    @run_after('init')
    def check_stonewall(self):
        if self.stonewall_s < 1:
            raise ValueError(f'stonewall_s: {self.stonewall_s}: expected 1 '
                             f'or more seconds')

    @run_after('setup')
    def size_the_job(self):
        self.place_mpi_tasks(self.nodes, self.tasks_per_node)
        cap = self.size_cap('ior_max_bytes_per_task')
        if cap is not None:
            easy = ior.size_bytes(self.ior_easy_block_size)
            if easy > cap:
                self.ior_easy_block_size = ior.size_text(ior.whole_transfers(
                    cap, ior.IO500_EASY_TRANSFER_SIZE))
            hard = ior.size_bytes(ior.IO500_HARD_TRANSFER_SIZE)
            segments = min(self.ior_hard_segments, max(1, cap // hard))
            self.size_capped = (easy > cap or
                                segments != self.ior_hard_segments)
            self.ior_hard_segments = segments
        self.mdtest_files_per_task, capped = mdtest.items_per_task(
            self.num_tasks, self.mdtest_files_per_task, 0,
            self.current_partition.extras.get('mdtest_max_items'))
        self.size_capped = self.size_capped or capped

    @performance_function('GiB/s')
    def io500_bw(self):
        """IO500's bandwidth score: the geometric mean of the ior phases."""
        return self.scores().bw

    @performance_function('kIOPS')
    def io500_md(self):
        """IO500's metadata score: the geometric mean of the others."""
        return self.scores().md

    @performance_function('score')
    def io500_score(self):
        """IO500's total, ``sqrt(io500_bw * io500_md)``."""
        return self.scores().total


class Layout(NamedTuple):
    """Where and how a case runs IO500's phases."""

    #: Every phase's files (IO500's ``datadir``; find searches it).
    data: str
    #: Stonewall status files, per-rank CSVs, find's timestamp file.
    results: str
    stonewall_s: int
    ior_exe: str = 'ior'
    mdtest_exe: str = 'mdtest'
    pfind_exe: str = 'pfind'
    api: str = 'POSIX'
    #: ior-easy's block per task, ior-hard's segments, mdtest's files per
    #: task: IO500's, or a partition's caps.
    easy_block_size: str = ior.IO500_EASY_BLOCK_SIZE
    hard_segments: int = ior.IO500_HARD_SEGMENTS
    files_per_task: int = mdtest.IO500_FILES_PER_PROC


def phase_step(phase, layout):
    """The job step of one of :data:`io500.PHASES` (labelled with its
    name)."""
    if phase.tool == 'ior':
        preset, operation = phase.name.split('-')[1:]
        if preset == 'easy':
            argv = ior.io500_ior_easy(
                layout.data, layout.results, operation, api=layout.api,
                stonewall_s=layout.stonewall_s, executable=layout.ior_exe,
                block_size=layout.easy_block_size)
        else:
            argv = ior.io500_ior_hard(
                layout.data, layout.results, operation, api=layout.api,
                stonewall_s=layout.stonewall_s, executable=layout.ior_exe,
                segments=layout.hard_segments)
    elif phase.tool == 'mdtest':
        preset, operation = MDTEST_PHASES[phase.name]
        argv = _MDTEST_ARGV[preset](
            layout.data, layout.results, operation,
            files_per_proc=layout.files_per_task,
            stonewall_s=layout.stonewall_s, api=layout.api,
            executable=layout.mdtest_exe)
    else:
        argv = io500.find_argv(layout.data, layout.results,
                               executable=layout.pfind_exe)
    return Step(phase.name, phase.tool, tuple(argv))


def phase_steps(layout, tools, before_reads=()):
    """The steps of IO500's phases run by ``tools`` (of 'ior', 'mdtest',
    'pfind'), in IO500's order (src/phase-definitions.h), after a
    ``mkdir`` of the directories they need.

    IO500's ``timestamp`` follows mdtest-easy-write (find looks for files
    newer than it); ``before_reads`` (a cache drop) go after the last
    write phase, before the first phase that reads what they wrote.
    """
    dirs = [f'{layout.data}/ior-easy', f'{layout.data}/ior-hard'] \
        if 'ior' in tools else []
    steps = [Step('mkdir', 'shell', ('mkdir', '-p', *dirs, layout.results),
                  launched=False)]
    last_write = max(i for i, p in enumerate(io500.PHASES)
                     if p.tool in tools and p.stonewalled)
    for i, phase in enumerate(io500.PHASES):
        if phase.tool not in tools:
            continue
        if i > last_write and phase.tool != 'pfind':
            steps += before_reads
            before_reads = ()
        steps.append(phase_step(phase, layout))
        if phase.name == 'mdtest-easy-write':
            steps.append(Step('timestamp', 'shell', (
                'touch', os.path.join(layout.results, io500.TIMESTAMP_FILE)),
                launched=False))
    return steps


# Figures, as IO500 scores them ---------------------------------------------

def ior_gib_s(result, phase):
    """An ior phase's bandwidth in GiB/s (IO500: the data moved over the
    phase's time, IOR's Max with one iteration)."""
    operation = phase.rsplit('-', 1)[1]
    return result.summary(operation).bw_max_mib_s / 1024


def ior_write_time_s(result):
    """Seconds IOR's (one) write took, which IO500 holds against the
    stonewall (src/phase_ior.c ``p->time``)."""
    return result.summary('write').mean_time_s


def mdtest_summary(result, phase):
    """The parsed mdtest summary row of one of IO500's mdtest phases (None
    if mdtest printed none)."""
    preset, operation = MDTEST_PHASES[phase]
    return result.summary(f'file_{_MDTEST_PRESET_PHASES[preset][operation]}')


def mdtest_kiops(result, phase):
    """An mdtest phase's rate in kIOPS (IO500: mdtest's rate / 1000)."""
    return mdtest_summary(result, phase).mean_ops_per_s / 1000


def too_short(phase, ran_s, stonewall_s):
    """IO500's message for a stonewalled write that ran ``ran_s`` seconds,
    shorter than its stonewall (src/main.c: the files or the block ran
    out before the time did), or '' when it did not."""
    if ran_s is not None and ran_s >= stonewall_s:
        return ''
    return (f'{phase} is invalid (IO500): it ran {ran_s} s, shorter than '
            f'its stonewall of {stonewall_s} s')


def invalid_reasons(score, stonewall_s, found):
    """Why IO500 would print the run ``[INVALID]``: the phases
    :func:`pfsbench.commands.io500.score` found invalid, a stonewall other
    than the list's (src/phase_dbg.c) and a find that ``found`` nothing
    (src/phase_find.c)."""
    reasons = []
    if stonewall_s != io500.LIST_STONEWALL_S:
        reasons.append(f'stonewall_s: {stonewall_s} s, not the list\'s '
                       f'{io500.LIST_STONEWALL_S} s')
    if found == 0:
        reasons.append('find: it found no file')
    return reasons + list(score.invalid)


# Tools beside the check's own ----------------------------------------------

def find_tool(check, tool, explicit, why, beside=''):
    """The path of a tool the check runs besides its :attr:`tool`: the
    ``explicit`` path, else the one ``beside`` its own binary (IOR's build
    installs mdtest next to ior), else the partition's Spack view, else
    ``PATH``; the case skips, saying where it looked, ``why`` it needs the
    tool and how to get it, when none is executable.  A dry run takes the
    first candidate.
    """
    env = spack.environment(check.current_partition.extras)
    tried = binaries.candidates(tool, explicit, env.view if env else '')
    if beside and not explicit:
        tried.insert(0, os.path.join(os.path.dirname(beside), tool))
    found = binaries.first_executable(tried)
    if check.renders_only():
        return found or (tried[0] if tried else tool)

    where = binaries.describe(tried) or 'no spack_view, nothing on PATH'
    check.skip_if(found is None, f'no {tool} binary ({where}): {why}')
    return found
