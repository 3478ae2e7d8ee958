# SPDX-License-Identifier: BSD-3-Clause
"""lustre-iokit ``mds-survey`` on a Lustre metadata server, seed 003 (E13).

Seed 003 ran ``mds-survey`` on its MDS with three MDT devices (HDD, NVMe,
a RAM appliance) and published the % change of create, lookup,
md_getattr, setxattr and destroy between them (hdd -> nvme: create
+19.6 %, setxattr +287 %, destroy +43 %).  The script drives the MDT
through ``echo_client`` on the server itself, so this check runs only on
partitions with the ``lustre_mds`` feature (the MDS, as root); its sweep
doubles the threads from ``thrlo`` to ``thrhi`` (the script's variables,
set in the job's environment).  The % change between two MDTs or two runs
is ``pfsbench.parsers.mds_survey.percent_change`` of their outputs (and
the gate's, run over run).

Figures: per test, the best aggregate rate over the thread sweep (ops/s).
References: key ``mds_survey_rates``, ``$index: [$partition]``.
"""

import reframe as rfm
from reframe.core.builtins import performance_function, run_after, variable
from reframe.core.exceptions import SanityError
import reframe.utility.typecheck as typ

from pfsbench import experiments
from pfsbench.checks.base import FileSystemCheck
from pfsbench.checks.steps import SteppedJob
from pfsbench.commands import mds_survey as survey
from pfsbench.core.jobsteps import Step
from pfsbench.parsers import mds_survey


@rfm.simple_test
class mds_survey_rates(SteppedJob, FileSystemCheck):
    """E13: mds-survey create/lookup/md_getattr/setxattr/destroy over a
    thread sweep, on the MDS."""

    experiment = 'E13'
    descr = 'E13 (seed 003): lustre-iokit mds-survey thread sweep on the MDS'
    valid_systems = ['+lustre_mds']
    tool = 'mds-survey'
    step_parsers = {'mds-survey': mds_survey}
    nodes = 1
    num_tasks = 1
    tags = {'E13', 'mds-survey', 'full'}
    time_limit = experiments.E13.time

    #: Threads of the first row (the script's ``thrlo``).
    #:
    #: :type: :class:`int`
    #: :default: ``1``
    threads_low = variable(int, value=survey.THREADS_LOW, loggable=True)

    #: Threads of the last row (``thrhi``; the script doubles them).
    #:
    #: :type: :class:`int`
    #: :default: ``16``
    threads_high = variable(int, value=survey.THREADS_HIGH, loggable=True)

    #: Files over all threads (``file_count``).
    #:
    #: :type: :class:`int`
    #: :default: ``100000``
    file_count = variable(int, value=survey.FILE_COUNT, loggable=True)

    #: Directories per thread (``dir_count``).
    #:
    #: :type: :class:`int`
    #: :default: ``4``
    dir_count = variable(int, value=survey.DIR_COUNT, loggable=True)

    #: MDT devices to survey (``targets``, e.g. ``lustre-MDT0000``); empty:
    #: every MDT the script finds on the server.
    #:
    #: :type: :class:`str`
    #: :default: ``''``
    mdt_targets = variable(str, value='', loggable=True)

    #: The tests to run (``tests_str``; create first, destroy last, as
    #: the script requires).
    #:
    #: :type: :class:`List[str]`
    #: :default: ``['create', 'lookup', 'md_getattr', 'setxattr',
    #:   'destroy']``
    survey_tests = variable(typ.List[str],
                            value=list(mds_survey.DEFAULT_TESTS),
                            loggable=True)

    @run_after('init')
    def keep_the_tests_run(self):
        unknown = set(self.survey_tests) - set(mds_survey.DEFAULT_TESTS)
        if unknown:
            raise ValueError(f'survey_tests: {sorted(unknown)}: expected '
                             f'some of {", ".join(mds_survey.DEFAULT_TESTS)}')
        for test in mds_survey.DEFAULT_TESTS:
            if test not in self.survey_tests:
                del self.perf_variables[test]

    @run_after('setup')
    def set_survey_environment(self):
        self.env_vars = survey.environment(
            self.threads_low, self.threads_high, self.file_count,
            self.dir_count, self.survey_tests, self.mdt_targets)

    def job_steps(self):
        return [Step('mds-survey', 'mds-survey', (self.tool_path,))]

    def step_problems(self, step):
        failed = self.parsed(mds_survey, step=step.label).failed
        return [f'mds-survey printed ERROR for {test} at {threads} '
                f'thread(s)' for threads, test in failed]

    def best_rate(self, test):
        result = self.parsed(mds_survey, step='mds-survey')
        rates = [row.rate(test).ops_per_s for row in result.rows
                 if row.rate(test) is not None]
        if not rates:
            raise SanityError(f'mds-survey ran no {test} test')
        return max(rates)

    @performance_function('ops/s')
    def create(self):
        return self.best_rate('create')

    @performance_function('ops/s')
    def lookup(self):
        return self.best_rate('lookup')

    @performance_function('ops/s')
    def md_getattr(self):
        return self.best_rate('md_getattr')

    @performance_function('ops/s')
    def setxattr(self):
        return self.best_rate('setxattr')

    @performance_function('ops/s')
    def destroy(self):
        return self.best_rate('destroy')
