# SPDX-License-Identifier: BSD-3-Clause
"""IO500 from the suite's own phases, in one job, with IO500's score.

The twelve scored phases of IO500's standard mode with the command lines
of ``ior_io500_phases`` and ``mdtest_io500_phases``, flag for flag
(:mod:`pfsbench.checks.io500_phases`), run as io500 runs them: in ONE job,
in IO500's interleaved order (src/phase-definitions.h): ior-easy-write,
mdtest-easy-write, IO500's ``timestamp``, ior-hard-write,
mdtest-hard-write, find, ior-easy-read, mdtest-easy-stat, ior-hard-read,
mdtest-hard-stat, mdtest-easy-delete, mdtest-hard-read,
mdtest-hard-delete.  So every read follows the writes of the other
family too (caches, the metadata server's history), and find searches
the ior and mdtest files together, as in an io500 run.  All under the
case's run directory: ``data/`` (IO500's datadir, which find searches)
and ``results/`` (stonewall status files, per-rank CSVs, the timestamp).

Figures: each phase as IO500 reports it (GiB/s for ior, kIOPS for the
others), ``io500_bw``, ``io500_md`` and ``io500_score`` (IO500's
bandwidth score, metadata score and total,
:func:`pfsbench.commands.io500.score`), the units of ``io500_list_run``.

Validity, as io500 judges it (src/main.c, src/phase_ior.c,
src/phase_find.c, src/phase_dbg.c): a stonewalled write (ior-easy,
ior-hard, mdtest-easy, mdtest-hard) that ran shorter than the stonewall
(its block or files ran out first: on a capped partition, or a fast idle
machine), or shorter than the list's 300 s; a phase at 0; a find that
found nothing; a stonewall other than 300 s.  As io500 does, such a run
is not failed and is still scored (invalid phases count in the score):
``io500_valid`` is logged false and ``io500_invalid`` says why, phase by
phase.  A tool that failed fails the case, as in the other checks.

Tools: IOR (``ior_binary``, the partition's Spack view, ``PATH``);
mdtest (``mdtest_binary``, else the mdtest beside that IOR, which IOR's
build installs, else the view, else ``PATH``); pfind (``pfind_binary``,
the view, ``PATH``; the io500 package installs it).  IOR and mdtest
3.3.0 lack IO500's options: the case skips, naming them.

References: key ``io500_suite_run``, ``$index: [$partition, nodes,
tasks_per_node]``.
"""

import reframe as rfm
from reframe.core.builtins import run_after, variable

from pfsbench.checks import io500_phases
from pfsbench.checks.base import FileSystemCheck, tag_nightly_point
from pfsbench.checks.mdtest import OPS_PER_ITEM_AND_PHASE
from pfsbench.checks.steps import SteppedJob
from pfsbench.commands import ior, mdtest
from pfsbench.site import binaries

#: What the parsers report the task count as (the launcher check).
_TASKS_REPORTED = {'ior': lambda result: result.params.tasks,
                   'mdtest': lambda result: result.tasks}


@rfm.simple_test
class io500_suite_run(io500_phases.IO500Run, io500_phases.SuitePhases,
                      SteppedJob, FileSystemCheck):
    """IO500's twelve phases, the suite's command lines, one job, IO500's
    order and score."""

    descr = "IO500 from the suite's phases: one job, io500's order, score"
    valid_systems = ['+pfs']
    tool = 'ior'
    tool_label = 'IOR'
    step_parsers = dict(io500_phases.PARSERS)
    # Not quick: its 1 x 1 case on local (capped) takes about a minute,
    # most of it seven mdtest phases over 2 x 20000 files
    # (docs/checks-io500.md, bench/io500_suite_cost.py).
    tags = {'io500'}
    time_limit = '2h'

    @run_after('init')
    def tag_tier(self):
        # The nightly's IOR and mdtest easy/hard and its IO500 score: 8 x 12
        # tasks (docs/nightly.md); the rest of the sweep is weekly.
        tag_nightly_point(self, nodes=8, tasks_per_node=12)

    #: The IOR binary (``tool_binary``); the mdtest and pfind binaries;
    #: empty: see the module docstring.  (The aliases name the inherited
    #: variables through ReFrame's class namespace: beside a second base,
    #: ``FileSystemCheck.tool_binary`` is a copy that -S would not set.)
    ior_binary = variable(alias=tool_binary)  # noqa: F821
    mdtest_binary = variable(str, value='')
    pfind_binary = variable(str, value='')

    #: The binaries this run used (set at setup).
    ior_path = variable(alias=tool_path, loggable=True)  # noqa: F821
    mdtest_path = variable(str, value='', loggable=True)
    pfind_path = variable(str, value='', loggable=True)

    def tool_unusable(self, path):
        return binaries.io500_unusable(path, ior.IO500_IOR_OPTIONS, 'IOR')

    @run_after('setup')
    def find_mdtest_and_pfind(self):
        self.mdtest_path = self.lookup_tool(
            'mdtest', self.mdtest_binary,
            why=f"IO500's mdtest phases run it; "
                f"{binaries.build_hint('mdtest')}", beside=self.tool_path)
        if not self.renders_only():
            unusable = binaries.io500_unusable(
                self.mdtest_path, mdtest.IO500_MDTEST_OPTIONS, 'mdtest')
            self.skip_if(bool(unusable), unusable)
        self.pfind_path = self.lookup_tool(
            'pfind', self.pfind_binary,
            why=f"IO500's find phase runs it; {binaries.BUILD_ADVICE} (the "
                f'io500 package installs pfind) or run with -S '
                f'pfind_binary=/path/to/pfind')

    def layout(self):
        return io500_phases.Layout(
            f'{self.run_dir}/data', f'{self.run_dir}/results',
            self.stonewall_s, ior_exe=self.tool_path,
            mdtest_exe=self.mdtest_path, pfind_exe=self.pfind_path,
            api=self.api, easy_block_size=self.ior_easy_block_size,
            hard_segments=self.ior_hard_segments,
            files_per_task=self.mdtest_files_per_task)

    def job_steps(self):
        return io500_phases.phase_steps(self.layout(),
                                        ('ior', 'mdtest', 'pfind'))

    def bytes_moved(self):
        # ior-easy's block and ior-hard's segments written and read back,
        # mdtest-hard's files written and read, by every task (an upper
        # bound: the stonewall may end a write sooner).
        per_task = (ior.size_bytes(self.ior_easy_block_size) +
                    self.ior_hard_segments *
                    ior.size_bytes(ior.IO500_HARD_TRANSFER_SIZE) +
                    self.mdtest_files_per_task * mdtest.IO500_HARD_FILE_BYTES)
        return 2 * per_task * self.num_tasks

    def metadata_ops_done(self):
        # Seven mdtest phases over each preset's files, and find's scan.
        mdtest_phases = len(io500_phases.MDTEST_PHASES) + 1
        return (OPS_PER_ITEM_AND_PHASE * mdtest_phases *
                self.mdtest_files_per_task * self.num_tasks)

    # Reading the output --------------------------------------------------

    def step_problems(self, step):
        if step.kind not in _TASKS_REPORTED:
            return []
        result = self.parsed(self.step_parsers[step.kind], step=step.label)
        problems = self.task_count_problem(
            step, _TASKS_REPORTED[step.kind](result))
        if (not problems and step.kind == 'mdtest' and
                io500_phases.mdtest_summary(result, step.label) is None):
            problems.append(f'step {step.label!r}: mdtest reported no rate')
        return problems
