# SPDX-License-Identifier: BSD-3-Clause
"""Lustre's metadata server on a multi-socket platform, seed 000 (E1-E4).

Seed 000 (Chasapis, PDSW'14) ran mdtest on one 4-socket, 48-core server
(4 x 12-core Opteron 6168), files only, a private directory per process
(``-u``), create and unlink, 500,000 files on Lustre (3,000,000 on ext4
and XFS), unmounting and flushing the caches after each operation.  Here
each phase is its own mdtest run with one create round (``-i 1``: repeats
are separate runs); between create and unlink the job runs the target's
``remount`` command (``extras.targets[].remount``, docs/systems.md) where
it declares one, then drops the page cache where the partition has the
``drop_caches`` feature; ``between_phases`` in the result says which
(``cache dropped, not remounted`` without a ``remount``).  The files per
run follow the target's ``fstype`` (``-S total_items=N`` overrides).  Four
configurations:

- E1 ``mdtest_e1_core_scaling``: processes = 2 x active cores, 6..48 cores
  in steps of 6, 6 mount points; the tasks are bound round robin to cores
  ``0..cores-1`` (``srun --cpu-bind=map_cpu:...``);
- E2 ``mdtest_e2_socket_binding``: 12 processes grouped on 1..4 sockets
  (``--ntasks-per-socket``, ``--cpu-bind=sockets``), 12 mount points;
- E3 ``mdtest_e3_mount_points``: 24 processes on 12 cores through 1, 2, 6,
  12, 24 mount points of one file system (``mdtest -d a@b@...``; a
  target's ``mount_points``, docs/systems.md);
- E4 ``mdtest_e4_targets``: E1's workload at 12..48 cores on every target
  of the partition (SSD vs RAM-disk MDT, Lustre vs ext4 vs XFS), through
  6 mount points of each, as the source's figures say.

The source's server is the client too; ``nodes`` is 1.  Figures: create
and remove rates (ops/s; the source plots kOps/s), the node's CPU
utilisation during each, and the target's block-device utilisation,
MiB/s, IOPS and await during each (``create_device_util``...: the
client's ``/proc/diskstats`` for a local target, the server devices'
through ``device_stats_command`` for a parallel file system;
:mod:`pfsbench.checks.device_probe`).  References: keys
``mdtest_e1_core_scaling`` (``$index: [$partition, active_cores]``),
``mdtest_e2_socket_binding`` (``sockets``), ``mdtest_e3_mount_points``
(``mounts``), ``mdtest_e4_targets`` (``target_index``,
``active_cores``).
"""

import reframe as rfm
from reframe.core.builtins import parameter, run_after, run_before, variable

from pfsbench import experiments
from pfsbench.checks.device_probe import PhaseDeviceFigures
from pfsbench.checks.mdtest import mdtest_rates_base
from pfsbench.commands import mdtest
from pfsbench.site.mounts import declared_or_local_fstype


class seed000_mdtest_base(PhaseDeviceFigures, mdtest_rates_base):
    """Seed 000's mdtest workload; not a test by itself."""

    nodes = variable(int, value=1, loggable=True)
    tasks_per_node = variable(int, value=12, loggable=True)
    item_kind = 'files'
    unique_dir = True
    md_phases = list(mdtest.SEED000_PHASES)
    split_phases = True
    remount_between_phases = True
    #: One create round per run (the source's figures are single runs).
    iterations = mdtest.SEED000_ITERATIONS
    #: 0: by the target's file system (500k Lustre, 3M ext4 and XFS).
    total_items = 0
    time_limit = experiments.E1.time

    #: Processes per active core (E1, E3, E4).
    #:
    #: :type: :class:`int`
    #: :default: ``2``
    processes_per_core = variable(
        int, value=mdtest.SEED000_PROCESSES_PER_CORE, loggable=True)

    @run_after('init')
    def tag_experiment(self):
        self.tags |= {self.experiment, 'full'}

    @run_after('init')
    def set_processes(self):
        # E1, E3, E4: processes = k x active cores (E3: 24 on 12).
        self.tasks_per_node = self.processes_per_core * self.active_cores

    @run_after('setup')
    def size_the_job(self):
        # Replaces the base class's hook of that name, in its place: the
        # target (resolved before) sets the files when not given.
        if not self.total_items:
            self.total_items = mdtest.seed000_items(declared_or_local_fstype(
                self.target_entry().get('fstype'), self.target_path))
        super().size_the_job()

    @run_after('setup')
    def bind_the_tasks(self):
        self.bind_to_first_cores(self.active_cores)

    @run_before('run')
    def overcommit_the_cores(self):
        # 96 tasks on 48 CPUs: --nodes and --ntasks, no --ntasks-per-node
        # (Slurm 22.05 refuses it above the CPUs even with --overcommit).
        self.overcommit_by_task_count()


@rfm.simple_test
class mdtest_e1_core_scaling(seed000_mdtest_base):
    """E1: create/unlink with 2 processes per active core, 6..48 cores."""

    descr = ('E1 (seed 000): mdtest -F -u create/unlink, processes = 2 x '
             'active cores, 6..48 cores')
    experiment = 'E1'
    mount_point_count = mdtest.SEED000_MOUNTS_E1

    #: Active cores (the tasks run on cores 0..N-1).
    #:
    #: :type: :class:`int`
    #: :values: ``6..48 step 6``
    active_cores = parameter(experiments.E1.values('active_cores'), type=int,
                             loggable=True)


@rfm.simple_test
class mdtest_e2_socket_binding(seed000_mdtest_base):
    """E2: 12 processes bound per socket over 1..4 sockets."""

    descr = ('E2 (seed 000): mdtest -F -u create/unlink, 12 processes '
             'grouped on 1..4 sockets')
    experiment = 'E2'
    mount_point_count = mdtest.SEED000_MOUNTS_E2

    #: Sockets the 12 processes are spread over.
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 2, 3, 4]``
    sockets = parameter(experiments.E2.values('sockets'), type=int,
                        loggable=True)

    @run_after('init')
    def set_processes(self):
        # Replaces the base class's hook: 12 processes, all cores active.
        self.tasks_per_node = mdtest.SEED000_E2_PROCESSES

    @run_after('setup')
    def bind_the_tasks(self):
        # Replaces the base class's hook: per socket, not per core.  On one
        # socket every case is the same unbound run: nothing to compare.
        part = self.current_partition
        self.skip_if(part.processor.num_sockets == 1,
                     f'{part.fullname} has 1 socket: E2 compares the same '
                     f'processes grouped on 1..S sockets, which needs 2 or '
                     f'more')
        self.bind_per_socket(self.sockets)


@rfm.simple_test
class mdtest_e3_mount_points(seed000_mdtest_base):
    """E3: 24 processes on 12 cores through 1..24 mount points."""

    descr = ('E3 (seed 000): mdtest -F -u create/unlink, 24 processes, 12 '
             'cores, 1/2/6/12/24 mount points')
    experiment = 'E3'

    #: Mount points of the target the tasks spread over.
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 2, 6, 12, 24]``
    mounts = parameter(experiments.E3.values('mounts'), type=int,
                       loggable=True)

    #: Active cores.
    #:
    #: :type: :class:`int`
    #: :default: ``12``
    active_cores = variable(int, value=mdtest.SEED000_E3_ACTIVE_CORES,
                            loggable=True)

    @run_after('init')
    def set_mount_points(self):
        self.mount_point_count = self.mounts

    @run_after('setup')
    def need_the_mount_points(self):
        have = len(self.mount_points())
        self.skip_if(have < self.mounts,
                     f'target {self.target_name!r} of '
                     f'{self.current_partition.fullname} has {have} mount '
                     f'point(s) (its path and extras.targets[].mount_points)'
                     f'; this case needs {self.mounts}')


@rfm.simple_test
class mdtest_e4_targets(seed000_mdtest_base):
    """E4: E1's workload on each target of the partition."""

    descr = ('E4 (seed 000): mdtest -F -u create/unlink on every target '
             'of the partition, 12..48 cores')
    experiment = 'E4'
    mount_point_count = mdtest.SEED000_MOUNTS_E1

    #: The partition's target to run on, by position in
    #: ``extras['targets']``; positions past the last are skipped.
    #:
    #: :type: :class:`int`
    #: :values: ``0..7``
    target_index = parameter(experiments.E4.values('target_index'), type=int,
                             loggable=True)

    #: Active cores.
    #:
    #: :type: :class:`int`
    #: :values: ``[12, 24, 36, 48]``
    active_cores = parameter(experiments.E4.values('active_cores'), type=int,
                             loggable=True)

    @run_after('setup')
    def resolve_target(self):
        # Replaces the base class's hook of that name, in its place.
        part = self.current_partition
        names = [t['name'] for t in part.extras.get('targets', [])]
        self.skip_if(self.target_index >= len(names),
                     f'{part.fullname} has {len(names)} target(s)')
        self.target = names[self.target_index]
        super().resolve_target()
