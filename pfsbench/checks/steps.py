# SPDX-License-Identifier: BSD-3-Clause
"""Checks whose job is several commands (steps), each judged on its own.

A family that mixes :class:`SteppedJob` into its
:class:`~pfsbench.checks.FileSystemCheck` returns its job as a list of
:class:`pfsbench.core.jobsteps.Step` from :meth:`SteppedJob.job_steps` (IOR
write, drop caches, IOR read, ``lfs getstripe``...) and names, in
:attr:`SteppedJob.step_parsers`, the parser of each step kind.  The mixin
writes the job script (every step announced in the job's stdout and its
exit status recorded, :mod:`pfsbench.core.jobsteps`) and its sanity reports
every failed step, quoting the tool's own error line through the parser, and
the launcher's last stderr line when a step failed before the tool started.
"""

import os

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import run_before, sanity_function
from reframe.core.exceptions import SanityError

from pfsbench.core.jobsteps import script
from pfsbench.parsers.text import read_output


class SteppedJob(rfm.RegressionTestPlugin):
    """Mixin of checks whose job runs several commands; with
    :class:`~pfsbench.checks.FileSystemCheck`, before it in the bases."""

    #: step kind -> the parser module that reads that kind's output (a
    #: kind not listed, e.g. ``shell``, is judged by its exit status only).
    step_parsers = {}

    def job_steps(self):
        """The job's steps, in order; the last one must be launched."""
        raise NotImplementedError

    @run_before('run')
    def set_command_line(self):
        # ReFrame copies the task counts into the job only after this hook;
        # launchers that spell them out (mpirun -np N) need them now.
        self.job.num_tasks = self.num_tasks
        self.job.num_tasks_per_node = self.num_tasks_per_node
        launcher = self.job.launcher.run_command(self.job)
        self.prerun_cmds, self.executable = script(self.job_steps(),
                                                   launcher)

    def step_problems(self, step):
        """Family-specific checks of a step's output: a list of messages."""
        return []

    @sanity_function
    def assert_steps_completed(self):
        return sn.all([self.assert_every_step(),
                       self.assert_job_exit_zero()])

    @sn.deferrable
    def assert_every_step(self):
        # Every failure is reported, not just the first (hpctestlib's
        # mnt_opts does the same).
        steps = self.job_steps()
        exits = self.step_outputs().exits
        # A job stopped by a signal or by Slurm: that is the cause to name
        # first, the steps' failures follow from it.
        problems = [p for p in [self.job_end_problem()] if p]
        for step in steps:
            code = exits.get(step.label)
            if step is not steps[-1] and code is None:
                problems.append(f'step {step.label!r} did not finish')
            elif code:
                problems.append(f'step {step.label!r} exited with {code}')

            try:
                parser = self.step_parsers.get(step.kind)
                several = self.tool_starts(step, parser)
                if several:
                    # Interleaved runs: whatever the parser says of them
                    # would hide the cause.
                    problems += several
                    continue
                if parser is not None:
                    self.parsed(parser, step=step.label)
                problems += self.step_problems(step)
            except SanityError as err:
                problems.append(str(err))

        if problems:
            # A launcher that failed before the tool started (srun, PMIx)
            # left its reason on stderr only.
            stderr = self.last_stderr_line()
            if stderr:
                problems.append(f'last line of {self.stderr.evaluate()}: '
                                f'"{stderr}"')
            raise SanityError('; '.join(problems))

        return True

    def tool_starts(self, step, parser):
        """A message if the tool of ``step`` started more than once (the
        parser's ``starts``: banners printed by a rank 0), else []."""
        outputs = self.step_outputs().outputs
        if (parser is None or not hasattr(parser, 'starts') or
                step.label not in outputs):
            return []

        count = parser.starts(self.step_outputs().text(step.label))
        if count <= 1:
            return []

        return self.task_count_problem(step, None, starts=count)

    def task_count_problem(self, step, reported, starts=1):
        """A message if the tool of ``step`` reported ``reported`` tasks
        where the job started :attr:`num_tasks`, or started ``starts``
        times: a launcher that starts N MPI singletons (``srun`` without
        the PMI plugin the MPI library needs) makes N one-task runs, whose
        figures are not the case's.

        Args:
            step: the :class:`pfsbench.core.jobsteps.Step`.
            reported: the task count the tool printed (None: not printed).
            starts: how many times the tool printed its banner.

        Returns:
            a list of zero or one message.
        """
        tool = self.tool_label or self.tool
        if starts > 1:
            what = f'{tool} started {starts} times (a rank 0 each)'
        elif reported is None or reported == self.num_tasks:
            return []
        else:
            what = f'{tool} ran with {reported} task(s)'

        part = self.current_partition
        mpi_type = self.env_vars.get(
            'SLURM_MPI_TYPE',
            part.local_env.env_vars.get('SLURM_MPI_TYPE', 'unset'))
        return [f'step {step.label!r}: {what}, the job started '
                f'{self.num_tasks}: the '
                f'{part.launcher_type.registered_name} launcher did not '
                f'start one MPI job (SLURM_MPI_TYPE={mpi_type}; the MPI '
                f'library needs its PMI plugin)']

    def last_stderr_line(self):
        path = os.path.join(self.stagedir, self.stderr.evaluate())
        try:
            lines = [ln.strip() for ln in read_output(path).splitlines()
                     if ln.strip()]
        except OSError:
            return None

        return lines[-1] if lines else None

    def step_results(self, kind):
        """Parsed results of every step of ``kind``, in job order."""
        parser = self.step_parsers[kind]
        return [self.parsed(parser, step=s.label)
                for s in self.job_steps() if s.kind == kind]
