# SPDX-License-Identifier: BSD-3-Clause
"""The real ``io500`` binary, as a list entry runs it.

Where an io500 binary exists (the Spack environment's ``io500`` package,
``PATH``, or ``-S tool_binary=``), one io500 run over the case's nodes and
tasks, on the partition's target: a ``config.ini`` generated for the case
(:func:`pfsbench.commands.io500.ini_text`: its data directory under the
run directory, its stonewall, and the partition's size caps as ior-easy's
block, ior-hard's segments and mdtest's files per process), then io500's
own result files read back (``result_summary.txt``,
:mod:`pfsbench.parsers.io500`).

Figures: io500's twelve scored phases (GiB/s for ior, kIOPS for the
others), its bandwidth and metadata scores and its total, each as io500
printed it; ``io500_valid`` says whether io500 called the run valid (a
stonewall below IO500's 300 s never is).  The check fails where io500's
printed score is not the score of its own phase figures
(:func:`pfsbench.commands.io500.score`), which would mean the suite and
io500 disagree about the formula.  The suite's own phases
(``ior_io500_phases``, ``mdtest_io500_phases``) compute the same scores;
docs/checks-io500.md says what differs.  References: key
``io500_list_run``, ``$index: [$partition, nodes, tasks_per_node]``.
"""

import os

import reframe as rfm
import reframe.utility.typecheck as typ
from reframe.core.builtins import run_before, variable

from pfsbench.checks import io500_phases
from pfsbench.checks.base import FileSystemCheck
from pfsbench.checks.steps import SteppedJob
from pfsbench.commands import io500
from pfsbench.core.errors import ParseError
from pfsbench.core.jobsteps import Step
from pfsbench.parsers import io500 as io500_parser, text

#: The ini file the case writes into its stage directory.
INI_FILE = 'io500.ini'


@rfm.simple_test
class io500_list_run(io500_phases.IO500Run, SteppedJob,
                     FileSystemCheck):
    """One run of the real io500 binary with an ini made for the case."""

    descr = 'the real io500: all phases and its score, for the case'
    valid_systems = ['+pfs']
    tool = 'io500'
    step_parsers = {'io500': io500_parser}
    tags = {'io500', 'full'}
    time_limit = '2h'
    # What a site compares with its list entry: kept in the output
    # directory.
    keep_files = [INI_FILE, 'io500-results/result_summary.txt',
                  'io500-results/result.txt']

    #: Whether io500 called the run valid (no ``[INVALID]`` on its score;
    #: set at sanity).
    io500_valid = variable(typ.Bool, value=False, loggable=True)

    def results_dir(self):
        # In the stage directory, not the run directory: the job removes
        # its run directory, and sanity reads io500's result files after.
        return os.path.join(self.stagedir, 'io500-results')

    @run_before('run')
    def write_the_ini(self):
        with open(os.path.join(self.stagedir, INI_FILE), 'w') as fp:
            fp.write(io500.ini_text(
                os.path.join(self.run_dir, 'data'), self.results_dir(),
                stonewall_s=self.stonewall_s, api=self.api,
                ior_easy_block_size=self.ior_easy_block_size,
                ior_hard_segments=self.ior_hard_segments,
                mdtest_easy_files=self.mdtest_files_per_task,
                mdtest_hard_files=self.mdtest_files_per_task))

    def job_steps(self):
        return [
            Step('mkdir', 'shell', ('mkdir', '-p', f'{self.run_dir}/data',
                                    self.results_dir()), launched=False),
            Step('io500', 'io500', (self.tool_path,
                                    os.path.join(self.stagedir, INI_FILE))),
        ]

    def summary(self):
        """io500's ``result_summary.txt``, parsed."""
        path = os.path.join(self.results_dir(), 'result_summary.txt')
        return io500_parser.parse(text.read_output(path),
                                  'io500-results/result_summary.txt')

    def step_problems(self, step):
        if step.kind != 'io500':
            return []
        try:
            result = self.summary()
        except OSError as err:
            return [f'io500 wrote no result_summary.txt: {err.strerror}']
        except ParseError as err:
            return [str(err)]
        self.io500_valid = result.valid
        figures = {p.name: p.value for p in result.phases if p.scored}
        ours = io500.score(figures)
        # io500 prints %f: six decimals.
        if any(abs(a - b) > 1e-5 for a, b in (
                (ours.bw, result.bw_gib_s), (ours.md, result.md_kiops),
                (ours.total, result.total))):
            return [f'io500 printed the score {result.total:f} (bw '
                    f'{result.bw_gib_s:f}, md {result.md_kiops:f}), the '
                    f'score of its own phase figures is {ours.total:f} (bw '
                    f'{ours.bw:f}, md {ours.md:f})']
        return []

    def phase_value(self, name):
        return self.summary().phase(name).value

    def scores(self):
        summary = self.summary()
        return io500.Score(summary.bw_gib_s, summary.md_kiops, summary.total,
                           ())
