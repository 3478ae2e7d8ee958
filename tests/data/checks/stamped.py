# SPDX-License-Identifier: BSD-3-Clause
"""Test-only check: a job that writes a little on its target and prints
when it started and ended, for the tests of one case at a time per target
(tests/test_exclusive.py).  Never in the suite's search path."""

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import run_before, sanity_function, variable

from pfsbench.checks import FileSystemCheck


@rfm.simple_test
class stamped_write(FileSystemCheck):
    """Writes ``mib`` MiB (fsynced) into its run directory, then waits."""

    valid_systems = ['+pfs']
    nodes = variable(int, value=1)
    #: MiB written.
    mib = variable(int, value=4)
    #: Seconds the job holds the target after writing.
    hold_s = variable(float, value=1.0)

    @run_before('run')
    def set_command_line(self):
        self.executable = 'sh'
        self.executable_opts = [
            '-c', f"'echo start=$(date +%s.%N); "
                  f"dd if=/dev/zero of={self.run_dir}/f bs=1M "
                  f"count={self.mib} conv=fsync 2>&1; sleep {self.hold_s}; "
                  f"echo end=$(date +%s.%N)'"]

    def bytes_moved(self):
        return self.mib * 2**20

    @sanity_function
    def assert_finished(self):
        return sn.all([self.assert_job_exit_zero(),
                       sn.assert_found(r'^end=', self.stdout)])
