# SPDX-License-Identifier: BSD-3-Clause
"""Lustre's ``mdsrate`` create/stat/unlink, seed 004 (E16), the real tool.

Seed 004 ran mdsrate ``--create``, ``--stat`` and ``--unlink`` over
304,000 files in one shared directory, NP 1..64 processes in all, on one
client and spread one per client over up to 70.  mdsrate is Lustre's MPI test program
(``lustre/tests/mpi/mdsrate.c``, built with Lustre's tests, linked to
liblustreapi); no package registry has it.  This family runs only on
partitions that declare one: ``extras.mdsrate``, the path of the binary
(or ``-S tool_binary=PATH``); elsewhere it skips, saying so, and
``mdtest_e16_mdsrate_standin`` (``mdtest_seed004.py``) runs E16 with
mdtest.  The layout is the stand-in's (:mod:`pfsbench.checks.seed004`);
the partition's ``mdtest_max_items`` caps the files as it caps mdtest's.

One job, three mdsrate runs over the same files in
``<run dir>/mdsrate`` (:func:`pfsbench.commands.mdsrate.job_argvs`, which
``pfsbench render`` can use too), every node's ``/proc/stat`` sampled
before and after each (the source watched its clients' CPU saturate at
NP 16); the run directory is removed whatever mdsrate's exit status.

Figures: each run's effective rate (``eff``: all ranks' operations over
the wall time), named as the stand-in's (``file_create``, ``file_stat``,
``file_remove``) so that the two compare, and the client CPU during each
(``create_cpu_util``, the nodes' mean; ``create_cpu_util_max``, the busiest
node's; the unlink's are ``remove_...``, as the stand-in's).  References:
key
``mdsrate_e16`` (``$index: [$partition, clients, np]``), the source's
mdsrate tables.
"""

import os

import reframe as rfm
import reframe.utility.typecheck as typ
from reframe.core.builtins import (parameter, performance_function,
                                   run_after, variable)

from pfsbench import experiments
from pfsbench.checks.base import FileSystemCheck
from pfsbench.checks.mdtest import PhaseCpuFigures
from pfsbench.checks.seed004 import Seed004Clients
from pfsbench.checks.steps import SteppedJob
from pfsbench.commands import mdtest
from pfsbench.core import tools
from pfsbench.experiments import jobs
from pfsbench.parsers import (mdsrate as mdsrate_parser,
                              procstat as procstat_parser)
from pfsbench.site import binaries

#: The partition's ``extras`` key naming the mdsrate binary.
EXTRAS_KEY = tools.get('mdsrate').extras_key


@rfm.simple_test
class mdsrate_e16(Seed004Clients, PhaseCpuFigures, SteppedJob,
                  FileSystemCheck):
    """E16: mdsrate create/stat/unlink in one directory, where a partition
    declares an mdsrate binary."""

    descr = ('E16 (seed 004): mdsrate --create/--stat/--unlink in one '
             'directory, NP 1..64 (the real mdsrate, where extras.mdsrate '
             'declares it)')
    valid_systems = ['+pfs']
    tool = 'mdsrate'
    experiment = 'E16'
    step_parsers = {'mdsrate': mdsrate_parser, 'cpu': procstat_parser}
    tags = {'mdsrate'}
    time_limit = experiments.E16.time

    #: Processes of the whole run.
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 2, 4, 8, 16, 32, 64]``
    np = parameter(experiments.E16.values('np'), type=int, loggable=True)

    #: Files of all ranks (the source's 304,000).
    #:
    #: :type: :class:`int`
    #: :default: ``304000``
    total_files = variable(int, value=mdtest.SEED004_ITEMS, loggable=True)

    #: The files this case ran (``total_files`` or the partition's cap).
    files_run = variable(int, value=0, loggable=True)

    #: True when the partition's ``mdtest_max_items`` lowered the files.
    files_capped = variable(typ.Bool, value=False, loggable=True)

    @run_after('setup')
    def find_tool(self):
        # Replaces the base class's hook of that name, in its place: no
        # Spack view or PATH has mdsrate, so only a declared one runs.
        part = self.current_partition
        if not self.tool_binary:
            declared = binaries.declared(self.tool, part.extras)
            self.skip_if(
                not declared,
                f'{part.fullname} declares no mdsrate: set the partition\'s '
                f'extras.{EXTRAS_KEY} to the path of Lustre\'s '
                f'lustre/tests/mpi/mdsrate (built with the Lustre tests; no '
                f'package registry has it) or run with -S tool_binary=PATH; '
                f'mdtest_e16_mdsrate_standin runs E16 with mdtest')
            self.tool_binary = declared
        super().find_tool()

    @run_after('setup')
    def size_the_job(self):
        self.place_mpi_tasks(self.nodes, self.tasks_per_node)
        per_task, self.files_capped = mdtest.items_per_task(
            self.num_tasks, 0, self.total_files,
            self.current_partition.extras.get('mdtest_max_items'))
        self.files_run = (self.total_files if not self.files_capped
                          else per_task * self.num_tasks)

    def job_steps(self):
        return jobs.mdsrate_steps(os.path.join(self.run_dir, 'mdsrate'),
                                  self.files_run, self.tool_path)

    def step_problems(self, step):
        if step.kind != 'mdsrate':
            return []
        result = self.parsed(mdsrate_parser, step=step.label)
        problems = []
        if result.threads != self.num_tasks:
            problems.append(f'{step.label}: mdsrate reports '
                            f'{result.threads} rank(s), the job has '
                            f'{self.num_tasks}')
        if result.short_unlink:
            unlinked, asked = result.short_unlink
            problems.append(f'{step.label}: mdsrate unlinked {unlinked} '
                            f'of {asked} files')
        return problems

    def phase_rate(self, phase):
        return self.parsed(mdsrate_parser, step=phase).effective_ops_per_s

    @performance_function('ops/s')
    def file_create(self):
        return self.phase_rate('create')

    @performance_function('ops/s')
    def file_stat(self):
        return self.phase_rate('stat')

    @performance_function('ops/s')
    def file_remove(self):
        return self.phase_rate('unlink')

