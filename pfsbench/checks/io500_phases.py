# SPDX-License-Identifier: BSD-3-Clause
"""What the IO500 checks share (no test here): the suite's own IO500
phases as job steps in IO500's order, their figures as IO500 scores them,
and IO500's validity rules.  A check finds its second and third tools
(mdtest, pfind) with the base's
:meth:`~pfsbench.checks.FileSystemCheck.lookup_tool`.

Three checks use it: ``ior_io500_phases`` (the four ior phases),
``mdtest_io500_phases`` (the seven mdtest phases and find) and
``io500_suite_run`` (all twelve in one job, in IO500's interleaved order,
with IO500's score); they read, score and judge their phases alike
(:class:`SuitePhases`).  ``io500_list_run`` (the real io500 binary) and
``io500_suite_run`` share the case and the figures (:class:`IO500Run`).
The command lines are :mod:`pfsbench.commands.ior`'s,
:mod:`pfsbench.commands.mdtest`'s and :mod:`pfsbench.commands.io500`'s
``io500_*`` builders, flag for flag.
"""

import os
from typing import NamedTuple

import reframe as rfm
import reframe.utility.typecheck as typ
from reframe.core.builtins import (parameter, performance_function,
                                   run_after, run_before, variable)

from pfsbench.checks.mdtest import performance_of
from pfsbench.commands import io500, ior, mdtest
from pfsbench.core.jobsteps import Step
from pfsbench.parsers import (ior as ior_parser, mdtest as mdtest_parser,
                              pfind as pfind_parser)

#: IO500's mdtest phases: phase -> (preset, the preset's phase).
MDTEST_PHASES = {p.name: tuple(p.name.split('-')[1:]) for p in io500.PHASES
                 if p.tool == 'mdtest'}
_MDTEST_ARGV = {'easy': mdtest.io500_mdtest_easy_argv,
                'hard': mdtest.io500_mdtest_hard_argv}
_MDTEST_PRESET_PHASES = {'easy': mdtest.IO500_EASY_PHASES,
                         'hard': mdtest.IO500_HARD_PHASES}


def stonewalled_writes(tool=None):
    """How many of :data:`io500.PHASES` the stonewall ends (of ``tool``'s
    alone, 'ior' or 'mdtest'; None: all)."""
    return sum(p.stonewalled and tool in (None, p.tool)
               for p in io500.PHASES)


def phase_figure(name):
    """The performance function of the phase ``name`` of
    :data:`io500.PHASES` (``'ior-easy-write'``), named as io500 names the
    phase (``ior_easy_write``), in IO500's unit (GiB/s for ior, kIOPS for
    the others): the check's ``phase_value(name)``."""
    phase = io500.PHASE_NAMED[name]
    unit = 'GiB/s' if phase.group == 'bw' else 'kIOPS'
    return performance_of(phase.name.replace('-', '_'), unit, 'phase_value',
                          phase.name)


def declare_phase_figures(namespace, names):
    """Declare :func:`phase_figure` of each phase of ``names`` in a class
    body's ``namespace`` (its ``locals()``; a body whose methods call
    ``super()`` has none), named as io500 names the phase: ReFrame takes
    them from there in the order given, which is the perflog's."""
    for name in names:
        namespace[name.replace('-', '_')] = phase_figure(name)


class IO500Run(rfm.RegressionTestPlugin):
    """Mixin of the checks that run all twelve phases as one IO500 run
    (``io500_list_run``, ``io500_suite_run``; with
    :class:`~pfsbench.checks.FileSystemCheck`, before it in the bases).

    The case: nodes, tasks per node, the stonewall, the API, and IO500's
    sizes lowered by the partition's caps.  Its figures: each phase's
    (``phase_value(name)``) and IO500's bandwidth and metadata scores and
    its total (``scores()``: a :class:`pfsbench.commands.io500.Score` or
    anything with ``bw``, ``md`` and ``total``).  Whether IO500 would call
    the run valid (``io500_valid``) is each check's: io500's own verdict
    (``io500_list_run``) or IO500's rules (:class:`SuitePhases`).
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
    stonewalled_writes = variable(int, value=stonewalled_writes())
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
    size_capped = variable(typ.Bool, value=False, loggable=True)

    declare_phase_figures(locals(), [p.name for p in io500.PHASES])

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


def invalid_reasons(score, stonewall_s, found=None):
    """Why IO500 would print the run ``[INVALID]``: the phases
    :func:`pfsbench.commands.io500.score` found invalid, a stonewall other
    than the list's (src/phase_dbg.c) and a find that ``found`` nothing
    (src/phase_find.c: "Find didn't find anything", which marks the phase
    invalid and goes on; None: the run has no find phase)."""
    reasons = []
    if stonewall_s != io500.LIST_STONEWALL_S:
        reasons.append(f'stonewall_s: {stonewall_s} s, not the list\'s '
                       f'{io500.LIST_STONEWALL_S} s')
    if found == 0:
        reasons.append('find: it found no file')
    return reasons + list(score.invalid)


#: The parser of each tool's output.
PARSERS = {'ior': ior_parser, 'mdtest': mdtest_parser,
            'pfind': pfind_parser}


class SuitePhases(rfm.RegressionTestPlugin):
    """Mixin of the checks that run IO500's phases with the suite's tools
    (``ior_io500_phases``, ``mdtest_io500_phases``, ``io500_suite_run``;
    before the check's base in the bases): each phase's figure as IO500
    reports it (``phase_value(name)``), IO500's score of them
    (``scores()``) and IO500's verdict on them, by one rule.

    The verdict is io500's (:func:`invalid_reasons`): a stonewalled write
    shorter than the stonewall or the list's 300 s, a phase at 0, a find
    that found nothing, a stonewall other than 300 s.  As io500 does, the
    case is not failed for it and is still scored: ``io500_valid`` is
    logged false and ``io500_invalid`` says why.  The check has a
    ``stonewall_s`` and labels each phase's step with its name.
    """

    #: The score group the check's phases make up ('bw': the ior phases;
    #: 'md': mdtest's and find); None: all twelve.
    io500_group = None

    #: Whether IO500's rules make the phases valid, and why not
    #: ('; '-separated; empty when valid; set at sanity).
    io500_valid = variable(typ.Bool, value=False, loggable=True)
    io500_invalid = variable(str, value='', loggable=True)

    def io500_phases(self):
        """The phases of :data:`io500.PHASES` the check runs."""
        return [p for p in io500.PHASES
                if self.io500_group in (None, p.group)]

    def phase_result(self, name):
        """The parsed output of the step of phase ``name``."""
        return self.parsed(PARSERS[io500.PHASE_NAMED[name].tool], step=name)

    def phase_value(self, name):
        """Phase ``name``'s figure as IO500 reports it (GiB/s for ior,
        kIOPS for the others)."""
        tool = io500.PHASE_NAMED[name].tool
        result = self.phase_result(name)
        if tool == 'ior':
            return ior_gib_s(result, name)
        if tool == 'mdtest':
            return mdtest_kiops(result, name)
        return result.kiops

    def write_time_s(self, name):
        """Seconds the stonewalled write ``name`` ran, by its tool's
        clock."""
        result = self.phase_result(name)
        if io500.PHASE_NAMED[name].tool == 'ior':
            return ior_write_time_s(result)
        return mdtest_summary(result, name).max_time_s

    def found_files(self):
        """How many files find found (None: the check runs no find)."""
        if 'find' not in {p.name for p in self.io500_phases()}:
            return None
        return self.phase_result('find').found

    def scores(self):
        """IO500's score of the check's phases
        (:func:`pfsbench.commands.io500.score`), with the writes' times
        for its validity rules."""
        phases = self.io500_phases()
        return io500.score(
            {p.name: self.phase_value(p.name) for p in phases},
            {p.name: self.write_time_s(p.name) for p in phases
             if p.stonewalled},
            self.stonewall_s, group=self.io500_group)

    @run_before('performance')
    def judge_validity(self):
        # IO500's verdict, once sanity has read every step (a damaged step
        # fails sanity and never gets here; a dry run has nothing to
        # judge).
        if self.is_dry_run():
            return

        reasons = invalid_reasons(self.scores(), self.stonewall_s,
                                  self.found_files())
        self.io500_valid = not reasons
        self.io500_invalid = '; '.join(reasons)
