# SPDX-License-Identifier: BSD-3-Clause
"""Reading a case's job output: its standard output (bytes that are not
UTF-8 replaced), split by :mod:`pfsbench.core.jobsteps` markers, parsed
once per file by a pure parser, and the sanity of the job's end (its exit
line, or the signal or Slurm reason that stopped it).

A mixin of :class:`pfsbench.checks.base.FileSystemCheck`: methods only, no
variables and no hooks, so it changes no hook's order.
"""

import os
import re

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.exceptions import SanityError

from pfsbench.core import jobsteps
from pfsbench.core.errors import ParseError
from pfsbench.core.jobsteps import JOB_EXIT_PREFIX
from pfsbench.parsers.text import read_output, with_bad_bytes
from pfsbench.site import rundir

#: Parsed outputs, by (path, mtime, size, parser, step): kept outside the
#: test object, which ReFrame serialises into its reports.
_PARSED = {}


class JobOutput(rfm.RegressionTestPlugin):
    """The job's output, read and judged (see the module)."""

    def job_stdout_path(self):
        """Path of the job's standard output (in the stage directory)."""
        return os.path.join(self.stagedir, self.stdout.evaluate())

    def job_stdout(self):
        """The text of the job's standard output, bytes that are not UTF-8
        replaced (:mod:`pfsbench.parsers.text`): one such byte must fail a
        case with a reason, not a UnicodeDecodeError."""
        return read_output(self.job_stdout_path())

    def step_outputs(self):
        """The job's stdout split by :mod:`pfsbench.core.jobsteps` markers."""
        return jobsteps.split(self.job_stdout())

    def parsed(self, parser, step=None):
        """The job's stdout, or one step's part of it, parsed by
        ``parser.parse``.

        Parsed once per output file and kept outside the test object, which
        ReFrame serialises into its reports.

        Raises:
            SanityError: the step did not start, or quoting the parser's
                message (the tool's own error line when the tool failed).
        """
        path = self.job_stdout_path()
        stat = os.stat(path)
        key = (path, stat.st_mtime_ns, stat.st_size, parser.__name__, step)
        if key not in _PARSED:
            text = self.job_stdout()
            source = os.path.basename(path)
            if step is not None:
                steps = jobsteps.split(text)
                if step not in steps.outputs:
                    raise SanityError(f'step {step!r} did not start')
                text = steps.text(step)
            try:
                _PARSED[key] = parser.parse(text, source)
            except ParseError as err:
                _PARSED[key] = with_bad_bytes(err, self.job_stdout(), source)

        result = _PARSED[key]
        if isinstance(result, ParseError):
            raise SanityError(str(result) if step is None
                              else f'step {step!r}: {result}')

        return result

    @sn.deferrable
    def assert_parsed(self, parser):
        self.parsed(parser)
        return True

    @sn.deferrable
    def assert_job_exit_zero(self):
        # Not sn.extractall: ReFrame decodes the file strictly.
        codes = [int(code) for code in re.findall(
            rf'^{re.escape(JOB_EXIT_PREFIX)}(\d+)$', self.job_stdout(),
            re.MULTILINE)]
        stopped = self.job_end_problem()
        if stopped:
            raise SanityError(stopped)
        if not codes:
            raise SanityError(f'{os.path.basename(self.job_stdout_path())}: '
                              f'expected a "{JOB_EXIT_PREFIX}N" line (the '
                              f'job script ended before its step did)')
        if codes[-1] != 0:
            raise SanityError(f'the job step exited with {codes[-1]}')

        return True

    def job_end_problem(self):
        """Why the job was stopped before its tool ended ('' if it was
        not), naming the signal or Slurm's reason
        (:func:`pfsbench.site.rundir.job_end_problem`)."""
        texts = []
        for name in (self.stdout, self.stderr):
            try:
                texts.append(read_output(os.path.join(self.stagedir,
                                                      name.evaluate())))
            except OSError:
                texts.append('')
        state = self.job.state if self.job is not None else None
        return rundir.job_end_problem(*texts, state=state)
