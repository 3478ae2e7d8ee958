# SPDX-License-Identifier: BSD-3-Clause
"""IO500's metadata phases: mdtest-easy, mdtest-hard and find.

The seven mdtest phases of IO500 (IO500/io500 ``src/phase_mdtest_easy*.c``,
``phase_mdtest_hard*.c``) and its find phase (``src/phase_find.c``), with
IO500's own command lines (:func:`pfsbench.commands.mdtest.io500_mdtest_easy_argv`,
``io500_mdtest_hard_argv``, :func:`pfsbench.commands.io500.find_argv`) and
in IO500's order (the ior phases that IO500 runs between them are the IOR
family's, ``ior_io500_phases``; ``io500_suite_run``,
``reframe-checks/io500/io500_suite_run.py``, runs all twelve interleaved
in one job, as io500 does, and logs IO500's total score):

1. mdtest-easy-write: empty files, a directory per task, stonewalled;
   then IO500's ``timestamp``: the results directory's ``timestampfile``;
2. mdtest-hard-write: 3901-byte files in one shared directory,
   stonewalled;
3. find: pfind over the run directory for files newer than the timestamp,
   of 3901 bytes, named ``*01*`` (kIOPS: files scanned per second, as
   IO500 scores it);
4. mdtest-easy-stat, 5. mdtest-hard-stat, 6. mdtest-easy-delete,
   7. mdtest-hard-read (verified), 8. mdtest-hard-delete: each exactly the
   files its write recorded in its stonewall status file (``-x``).

find runs the ``pfind`` binary (``-S pfind_binary=``, else the partition's
Spack view, else ``PATH``; the Spack io500 package installs it): the check
skips, naming it, where there is none.  ``io500_md`` is IO500's metadata
score of these eight phases (:func:`pfsbench.commands.io500.score`); the
bandwidth score is ``ior_io500_phases``'s ``io500_bw``, and the total
``io500_score`` is ``io500_suite_run``'s.

IO500's validity rules, the ones ``ior_io500_phases`` and
``io500_suite_run`` follow
(:class:`pfsbench.checks.io500_phases.SuitePhases`): a write phase that
ran shorter than its stonewall time (the files ran out before the time
did: the result measures a smaller run than IO500 asks for) or than the
list's 300 s, a phase at 0, a find that found nothing (src/phase_find.c:
"Find didn't find anything, this is likely invalid"), or a stonewall
other than 300 s make the phases invalid.  As io500 does, the case is
not failed for it and is still scored: ``io500_valid`` is logged false
and ``io500_invalid`` says why.

Figures: each phase's rate in kIOPS, as IO500 reports it.  The
partition's ``mdtest_max_items`` caps IO500's 1,000,000 files per task
(then the writes finish early and are invalid unless ``stonewall_s`` is
short).  References: key ``mdtest_io500_phases``, ``$index: [$partition,
nodes, tasks_per_node]``.
"""

import os

import reframe as rfm
from reframe.core.builtins import (parameter, performance_function,
                                   run_after, variable)

from pfsbench.checks import io500_phases
from pfsbench.checks.mdtest import mdtest_check_base
from pfsbench.commands import ior, mdtest
from pfsbench.parsers import pfind as pfind_parser
from pfsbench.site import binaries

#: Why the check needs pfind, and how to get it (its skip says so).
PFIND_NEEDED = (f"IO500's find phase runs it; {binaries.BUILD_ADVICE} (the "
                f'io500 package installs pfind) or run with -S '
                f'pfind_binary=/path/to/pfind')


@rfm.simple_test
class mdtest_io500_phases(io500_phases.SuitePhases, mdtest_check_base):
    """IO500 mdtest-easy and mdtest-hard, write/stat/read/delete."""

    descr = 'IO500 mdtest-easy / mdtest-hard phases'

    #: Nodes of the job.
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 2, 4, 8]``
    nodes = parameter([1, 2, 4, 8], type=int, loggable=True)

    #: mdtest tasks per node.
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 2, 4, 12]``
    tasks_per_node = parameter([1, 2, 4, 12], type=int, loggable=True)

    #: The pfind binary of the find phase; empty: the partition's Spack
    #: view, else ``PATH``.
    pfind_binary = variable(str, value='')

    #: The pfind binary this run used (set at setup).
    pfind_path = variable(str, value='', loggable=True)

    step_parsers = dict(mdtest_check_base.step_parsers, pfind=pfind_parser)
    item_kind = 'files'
    items_per_task = mdtest.IO500_FILES_PER_PROC
    stonewall_s = ior.IO500_STONEWALL_S
    iterations = 1
    # Not quick: on a capped partition the writes finish before IO500's
    # 300 s stonewall and are invalid (run with -S stonewall_s=1 there).
    # Weekly: the nightly runs these phases in io500_suite_run's one job,
    # with the other IO500 phases and the score (docs/nightly.md).
    tags = {'io500', 'weekly'}
    #: IO500's metadata phases (mdtest's and find), scored and judged as
    #: a group.
    io500_group = 'md'

    #: The phases the stonewall ends (ior-easy and ior-hard writes, or
    #: mdtest's); nightly-plan counts a case without history at one
    #: stonewall more than these.
    stonewalled_writes = variable(
        int, value=io500_phases.stonewalled_writes('mdtest'))
    # ior-easy reads with -C, ior-hard shares one file, mdtest -N 1 stats
    # and find walks other tasks' files (base: reads_other_nodes_files).
    reads_other_nodes_files = True

    def tool_unusable(self, path):
        return (binaries.io500_unusable(path, mdtest.IO500_MDTEST_OPTIONS,
                                        'mdtest')
                or super().tool_unusable(path))

    @run_after('setup')
    def find_pfind(self):
        self.pfind_path = self.lookup_tool('pfind', self.pfind_binary,
                                           why=PFIND_NEEDED)

    def results_dir(self):
        return os.path.join(self.run_dir, 'results')

    def job_steps(self):
        return io500_phases.phase_steps(io500_phases.Layout(
            self.run_dir, self.results_dir(), self.stonewall_s,
            mdtest_exe=self.tool_path, pfind_exe=self.pfind_path,
            files_per_task=self.items_run_per_task), ('mdtest', 'pfind'))

    def step_problems(self, step):
        problems = super().step_problems(step)
        if step.kind != 'mdtest' or problems:
            return problems

        if io500_phases.mdtest_summary(self.phase_result(step.label),
                                       step.label) is None:
            return [f'step {step.label!r}: mdtest reported no rate']
        return problems

    mdtest_easy_write = io500_phases.phase_figure('mdtest-easy-write')
    mdtest_hard_write = io500_phases.phase_figure('mdtest-hard-write')
    mdtest_easy_stat = io500_phases.phase_figure('mdtest-easy-stat')
    mdtest_hard_stat = io500_phases.phase_figure('mdtest-hard-stat')
    mdtest_easy_delete = io500_phases.phase_figure('mdtest-easy-delete')
    mdtest_hard_read = io500_phases.phase_figure('mdtest-hard-read')
    mdtest_hard_delete = io500_phases.phase_figure('mdtest-hard-delete')
    find = io500_phases.phase_figure('find')

    @performance_function('kIOPS')
    def io500_md(self):
        """IO500's metadata score of the eight phases (src/main.c
        ``calc_score``: their geometric mean); the total is
        ``io500_suite_run``'s."""
        return self.scores().md
