# SPDX-License-Identifier: BSD-3-Clause
"""IO500's ior-easy and ior-hard bandwidth phases.

The four IOR phases of IO500 (IO500/io500 ``src/phase_ior_easy*.c``,
``phase_ior_hard*.c``), with IO500's own command lines
(:func:`pfsbench.commands.ior.io500_ior_easy`, ``io500_ior_hard``) and in
IO500's order, each read long after its write:

1. ior-easy-write: one file per process, 2 MiB transfers, stonewalled;
2. ior-hard-write: one shared file, 47008-byte transfers and blocks
   (aligned to nothing), many segments, stonewalled;
3. ior-easy-read, 4. ior-hard-read: read (``-C -Q 1``) and verify (``-R``)
   exactly what the writes recorded in their stonewall status files.

(IO500 runs mdtest and find phases in between; those are the mdtest
family's, ``mdtest_io500_phases``; ``io500_suite_run``,
``reframe-checks/io500/io500_suite_run.py``, runs all twelve interleaved
in one job, as io500 does, and logs IO500's total ``io500_score``.)
``cache_defeat=drop_caches`` adds a page-cache drop between the writes
and the reads, which IO500 itself does not do.

Figures: each phase's bandwidth in GiB/s, as IO500 reports it, and
``io500_bw``, IO500's bandwidth score of the four (their geometric mean,
:func:`pfsbench.commands.io500.score`); the metadata score is
``mdtest_io500_phases``'s ``io500_md``, and IO500's total is
``sqrt(io500_bw * io500_md)``, which ``io500_suite_run`` logs from one
job (``pfsbench summary`` does not combine two checks).

IO500's validity rules, the ones ``mdtest_io500_phases`` and
``io500_suite_run`` follow
(:class:`pfsbench.checks.io500_phases.SuitePhases`): a write
(ior-easy-write, ior-hard-write) that ran shorter than its
stonewall time (its block or segments ran out first: on a capped
partition, or a fast idle machine) or than the list's 300 s, a phase at
0, or a stonewall other than 300 s make the phases invalid.  As io500
does, the case is not failed for it and is still scored: ``io500_valid``
is logged false and ``io500_invalid`` says why.  The
partition's size cap limits ior-hard's segments and ior-easy's block
(IO500's block is too large to finish: elsewhere only the stonewall bounds
what ior-easy writes, so keep ``stonewall_s`` short on small partitions).
References: key ``ior_io500_phases``, ``$index: [$partition, nodes,
tasks_per_node]``.
"""

import reframe as rfm
from reframe.core.builtins import (parameter, performance_function,
                                   run_after, variable)

from pfsbench.checks import io500_phases
from pfsbench.checks.ior import ior_check_base
from pfsbench.commands import ior
from pfsbench.core.jobsteps import Step
from pfsbench.site import binaries


@rfm.simple_test
class ior_io500_phases(io500_phases.SuitePhases, ior_check_base):
    """IO500 ior-easy and ior-hard, write then read, stonewalled."""

    descr = 'IO500 ior-easy / ior-hard write and read phases'
    #: Nodes of the job.
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 2, 4, 8]``
    nodes = parameter([1, 2, 4, 8], type=int, loggable=True)

    #: IOR tasks per node.
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 2, 4, 12]``
    tasks_per_node = parameter([1, 2, 4, 12], type=int, loggable=True)
    api = variable(str, value='POSIX', loggable=True)

    #: ior-easy's access (ior-hard always writes one shared file).
    access = variable(str, value='fpp', loggable=True)

    #: ior-hard's transfer and block size (IO500: 47008 bytes).
    transfer_size = variable(str, value=ior.IO500_HARD_TRANSFER_SIZE,
                             loggable=True)
    block_size = ior.IO500_HARD_TRANSFER_SIZE
    segments = ior.IO500_HARD_SEGMENTS
    stonewall_s = ior.IO500_STONEWALL_S
    repetitions = 1
    cache_defeat = 'reorder'
    # Weekly: the nightly runs these phases in io500_suite_run's one job,
    # with the other IO500 phases and the score (docs/nightly.md).
    tags = {'io500', 'weekly'}
    #: IO500's bandwidth phases, scored and judged as a group.
    io500_group = 'bw'

    #: The phases the stonewall ends (ior-easy and ior-hard writes, or
    #: mdtest's); nightly-plan counts a case without history at one
    #: stonewall more than these.
    stonewalled_writes = variable(
        int, value=io500_phases.stonewalled_writes('ior'))
    # ior-easy reads with -C, ior-hard shares one file, mdtest -N 1 stats
    # and find walks other tasks' files (base: reads_other_nodes_files).
    reads_other_nodes_files = True

    #: ior-easy's block per task: IO500's 9920000m, which only the stonewall
    #: ends; the partition's size cap lowers it (logged).
    easy_block_size = variable(str, value=ior.IO500_EASY_BLOCK_SIZE,
                               loggable=True)

    def cap_sizes(self, cap):
        super().cap_sizes(cap)
        if cap is not None and ior.size_bytes(self.easy_block_size) > cap:
            self.easy_block_size = ior.size_text(ior.whole_transfers(
                cap, ior.IO500_EASY_TRANSFER_SIZE))
            self.size_capped = True

    def bytes_moved(self):
        # ior-easy's block and ior-hard's segments, each written and read
        # back by every task (an upper bound: the stonewall may end ior-easy
        # sooner); the base counts one IOR run's bytes only.
        easy = ior.size_bytes(self.easy_block_size)
        return 2 * (easy + self.bytes_per_task) * self.num_tasks

    @run_after('init')
    def check_cache_defeat(self):
        # IO500's command lines always carry -C -Q 1 -e.
        if self.cache_defeat not in ('reorder', 'drop_caches'):
            raise ValueError(f'cache_defeat: {self.cache_defeat!r}: IO500 '
                             f'phases take reorder or drop_caches')

    def tool_unusable(self, path):
        return (binaries.io500_unusable(path, ior.IO500_IOR_OPTIONS, 'IOR')
                or super().tool_unusable(path))

    @run_after('init')
    def tag_quick_cases(self):
        if self.nodes * self.tasks_per_node <= 2:
            self.tags |= {'quick'}

    def job_steps(self):
        # IO500's layout: data under the run directory, stonewall status
        # files and per-rank figures under its results directory.
        drop = []
        if self.cache_defeat == 'drop_caches':
            drop = [Step('drop caches', 'shell',
                         ('sh', '-c', self.drop_caches_command()))]
        return io500_phases.phase_steps(io500_phases.Layout(
            self.run_dir, f'{self.run_dir}/results', self.stonewall_s,
            ior_exe=self.tool_path, api=self.api,
            easy_block_size=self.easy_block_size,
            hard_segments=self.segments), ('ior',), before_reads=drop)

    ior_easy_write = io500_phases.phase_figure('ior-easy-write')
    ior_hard_write = io500_phases.phase_figure('ior-hard-write')
    ior_easy_read = io500_phases.phase_figure('ior-easy-read')
    ior_hard_read = io500_phases.phase_figure('ior-hard-read')

    @performance_function('GiB/s')
    def io500_bw(self):
        """IO500's bandwidth score of the four phases (src/main.c
        ``calc_score``: their geometric mean); the total is
        ``io500_suite_run``'s."""
        return self.scores().bw
