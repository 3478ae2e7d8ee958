# SPDX-License-Identifier: BSD-3-Clause
"""mdtest with a metadata tracer on and off, seed 003 (E12).

Seed 003 (Team Saffron) traced Lustre metadata with Lustre's debug log (no
mask) and with ftrace (create, open, link, unlink, readdir, getattr,
setattr) while mdtest ran, and concluded "large overhead or not
extensive".  Here the tracers are the partition's ``extras.tracers``
(a name and the commands that switch it on and off, docs/systems.md); one
job runs the tracer-on command, mdtest (``traced``), the tracer-off
command, then the same mdtest again (``untraced``), so the tracer is off
when the job ends whatever mdtest did.

Figures: the untraced rates (as every mdtest family) and, per phase, the
tracing overhead ``(untraced - traced) / untraced`` in % of the mean
rates (negative: the traced run was faster, i.e. within noise).
References: key ``mdtest_e12_tracing_overhead``, ``$index: [$partition,
tracer_index, tasks_per_node]``.
"""

import reframe as rfm
from reframe.core.builtins import parameter, run_after, variable

from pfsbench import experiments
from pfsbench.checks.mdtest import (mdtest_rates_base, performance_of,
                                    phase_figures)
from pfsbench.commands import mdtest
from pfsbench.parsers import mdtest as mdtest_parser


def _overhead(phase):
    """The tracer's overhead on ``phase``, in %."""
    return performance_of(f'{phase}_overhead_pct', '%', 'overhead_pct',
                          phase)


@rfm.simple_test
class mdtest_e12_tracing_overhead(mdtest_rates_base):
    """E12: mdtest create/stat/remove with the tracer on, then off."""

    experiment = 'E12'
    descr = 'E12 (seed 003): mdtest with a metadata tracer on and off'
    nodes = variable(int, value=1, loggable=True)

    #: The partition's tracer, by position in ``extras['tracers']``;
    #: positions past the last are skipped.
    #:
    #: :type: :class:`int`
    #: :values: ``[0, 1, 2, 3]``
    tracer_index = parameter(experiments.E12.values('tracer_index'), type=int,
                             loggable=True)

    #: mdtest tasks per node.
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 16]``
    tasks_per_node = parameter(experiments.E12.values('tasks_per_node'),
                               type=int,
                               loggable=True)

    #: The tracer's name (set at setup).
    tracer_name = variable(str, value='', loggable=True)

    md_phases = list(mdtest.E12_PHASES)
    tags = {'E12'}

    dir_create_overhead_pct = _overhead('dir_create')
    dir_stat_overhead_pct = _overhead('dir_stat')
    dir_remove_overhead_pct = _overhead('dir_remove')
    file_create_overhead_pct = _overhead('file_create')
    file_stat_overhead_pct = _overhead('file_stat')
    file_remove_overhead_pct = _overhead('file_remove')

    @run_after('init')
    def tag_scale(self):
        # E12 needs the site's tracers: weekly, not in the nightly.
        self.tags |= {'quick' if self.tasks_per_node == 1 else 'weekly'}

    @run_after('setup')
    def check_command_line(self):
        # Replaces the base class's hook of that name, in its place: the
        # command lines need the tracer.
        part = self.current_partition
        tracers = part.extras.get('tracers', [])
        self.skip_if(self.tracer_index >= len(tracers),
                     f'{part.fullname} has {len(tracers)} tracer(s) '
                     f'(extras.tracers)')
        self.tracer_name = tracers[self.tracer_index]['name']
        super().check_command_line()

    def tracer(self):
        return self.current_partition.extras['tracers'][self.tracer_index]

    def job_steps(self):
        tracer = self.tracer()
        return mdtest.tracing_steps(self.run_dir, tracer['on'],
                                    tracer['off'], self.mdtest_options())

    def step_problems(self, step):
        problems = super().step_problems(step)
        if step.kind == 'mdtest' and not problems:
            # Each run must report every phase: the overhead compares them.
            result = self.parsed(mdtest_parser, step=step.label)
            missing = [p for p in self.expected_phases()
                       if phase_figures(result, p) is None]
            if missing:
                problems.append(f'step {step.label!r}: mdtest reported no '
                                f'{", ".join(missing)} rate')
        return problems

    def phase(self, phase):
        # The rates without the tracer are the case's figures.
        return phase_figures(self.parsed(mdtest_parser, step='untraced'),
                             phase)

    def overhead_pct(self, phase):
        traced = phase_figures(self.parsed(mdtest_parser, step='traced'),
                               phase).mean_ops_per_s
        untraced = self.phase(phase).mean_ops_per_s
        return (untraced - traced) / untraced * 100
