# SPDX-License-Identifier: BSD-3-Clause
"""What every mdtest check shares (no test here; the families in
``reframe-checks/mdtest/`` import it).

An mdtest check runs one job of *steps* (:mod:`pfsbench.core.jobsteps`),
usually one mdtest run whose command line comes from
:func:`pfsbench.commands.mdtest.mdtest_argv`; its output is parsed by
:mod:`pfsbench.parsers.mdtest`, which fails the case on mdtest's own error
lines and on the ``WARNING`` lines of items it could not create, stat,
read or remove (mdtest 4.x exits 0 after them).

mdtest's tree is created in the check's run directory under the target
(``-d <run dir>/mdtest``, or one directory per mount point, E3), which the
job script removes whatever mdtest's exit status, so a failed or killed
run leaves no files behind.

The task count mdtest reports must be the job's: a launcher that starts
``N`` MPI singletons (``srun`` without the MPI plugin that the MPI library
needs) makes ``N`` one-task runs, whose figures are not the case's.

Figures (:class:`mdtest_rates_base`): for each phase the item kind runs,
mdtest's Max over the iterations (``file_create``) with its ``_mean``,
``_min`` and ``_stddev`` (population standard deviation, as the gate
reads it: mdtest 4.x prints the sample one, which is converted); with
``split_phases``, the client nodes' CPU utilisation during each phase
(``create_cpu_util``: their mean; ``create_cpu_util_max``: the busiest
node's) and what was done between phases (``between_phases``: a remount,
a cache drop, or nothing).
"""

import math
import os
from dataclasses import dataclass

import reframe as rfm
from reframe.core.builtins import performance_function, run_after, variable
from reframe.core.exceptions import SanityError
import reframe.utility.typecheck as typ

from pfsbench.checks.base import FileSystemCheck
from pfsbench.checks.steps import SteppedJob
from pfsbench.commands import mdtest, srun
from pfsbench.parsers import mdtest as mdtest_parser
from pfsbench.parsers import procstat as procstat_parser

#: The parser's phases each item kind reports as figures (the directory
#: rename of mdtest 4.x and the tree phases of rank 0 are not figures).
KIND_PHASES = {
    'files': ('file_create', 'file_stat', 'file_read', 'file_remove'),
    'dirs': ('dir_create', 'dir_stat', 'dir_remove'),
}
KIND_PHASES['both'] = KIND_PHASES['dirs'] + KIND_PHASES['files']

#: Server-side metadata operations one mdtest item may cost per phase, an
#: upper bound for telling the case's own from foreign ones until the case
#: has quiet history (:meth:`FileSystemCheck.metadata_ops_done`,
#: :mod:`pfsbench.load.own_share`).
OPS_PER_ITEM_AND_PHASE = 8


def item_phases(case):
    """Items times phases times iterations of an mdtest case: the unit its
    server-side metadata operations are bounded and learned per."""
    return (case.items_run_per_task * case.num_tasks * case.iterations *
            len(case.md_phases))


@dataclass(frozen=True)
class PhaseFigures:
    """One phase's rate over the iterations, in ops/s."""

    max_ops_per_s: float
    min_ops_per_s: float
    mean_ops_per_s: float
    #: population standard deviation.
    stddev_ops_per_s: float


def phase_figures(result, phase):
    """:class:`PhaseFigures` of ``phase`` in one parsed mdtest run.

    mdtest 4.x prints the sample standard deviation over the iterations;
    3.x the population one over tasks x iterations.  Both become a
    population standard deviation of the samples mdtest summarised.

    Args:
        result: a :class:`pfsbench.parsers.mdtest.Result`.
        phase: a phase of :data:`pfsbench.parsers.mdtest.PHASES`.

    Returns:
        the figures, or None if the run did not report the phase.
    """
    summary = result.summary(phase)
    if summary is None or summary.mean_ops_per_s is None:
        return None

    stddev = summary.stddev_ops_per_s or 0.0
    samples = result.iterations
    if not result.version.startswith(('1.', '2.', '3.')) and samples > 1:
        stddev *= math.sqrt((samples - 1) / samples)
    return PhaseFigures(summary.max_ops_per_s, summary.min_ops_per_s,
                        summary.mean_ops_per_s, stddev)


class mdtest_check_base(SteppedJob, FileSystemCheck):
    """Base of the mdtest families; not a test by itself.

    A family declares ``nodes`` and ``tasks_per_node`` (``parameter``
    where it sweeps them, ``variable`` otherwise) and may override
    :meth:`test_dirs` (several mount points) and :meth:`job_steps`.
    """

    # mdtest is an MPI program; the local launcher's one process runs it
    # as an MPI singleton, so a laptop runs the 1-task cases.
    valid_systems = ['+pfs']
    tool = 'mdtest'
    tool_label = 'mdtest'
    step_parsers = {'mdtest': mdtest_parser, 'cpu': procstat_parser}

    #: The mdtest binary (``tool_binary`` under its family's name); empty:
    #: the partition's Spack view, then ``PATH``.
    #:
    #: :type: :class:`str`
    #: :default: ``''``
    mdtest_binary = variable(alias=FileSystemCheck.tool_binary)

    #: The mdtest binary this run used (``tool_path``; set at setup).
    mdtest_path = variable(alias=FileSystemCheck.tool_path, loggable=True)

    #: ``files`` (``-F``), ``dirs`` (``-D``) or ``both`` (mdtest's
    #: default: a directory phase, then a file phase).
    #:
    #: :type: :class:`str`
    #: :default: ``'both'``
    item_kind = variable(str, value='both', loggable=True)

    #: Items (files and/or directories) per task (``-n``), unless
    #: :attr:`total_items` is set.
    #:
    #: :type: :class:`int`
    #: :default: ``1000``
    items_per_task = variable(int, value=mdtest.DEFAULT_ITEMS_PER_TASK,
                              loggable=True)

    #: Items of all tasks together, as the sources count them (304000,
    #: 500k, 3M); each task gets its share (``-n total / tasks``).  0:
    #: :attr:`items_per_task` as given.
    #:
    #: :type: :class:`int`
    #: :default: ``0``
    total_items = variable(int, value=0, loggable=True)

    #: A directory per task (``-u``) instead of one shared directory.
    #:
    #: :type: :class:`bool`
    #: :default: ``True``
    unique_dir = variable(typ.Bool, value=True, loggable=True)

    #: Depth of the directory tree (``-z``); 0: items in the top directory.
    #:
    #: :type: :class:`int`
    #: :default: ``0``
    depth = variable(int, value=0, loggable=True)

    #: Subdirectories per tree level (``-b``; with :attr:`depth`); 0:
    #: mdtest's default.
    #:
    #: :type: :class:`int`
    #: :default: ``0``
    branching = variable(int, value=0, loggable=True)

    #: Stat, read and remove the items of the task this many nodes away
    #: (``-N``; mdtest multiplies it by the tasks per node), which defeats
    #: the client's cache; 0: each task its own items.
    #:
    #: :type: :class:`int`
    #: :default: ``0``
    stride = variable(int, value=0, loggable=True)

    #: fsync each file after writing it (``-y``).
    #:
    #: :type: :class:`bool`
    #: :default: ``False``
    sync_file = variable(typ.Bool, value=False, loggable=True)

    #: Seconds to wait before each iteration (``-p``); 0: none.
    #:
    #: :type: :class:`int`
    #: :default: ``0``
    pre_delay_s = variable(int, value=0, loggable=True)

    #: Bytes written to each file after creating it (``-w``).
    #:
    #: :type: :class:`int`
    #: :default: ``0``
    write_bytes = variable(int, value=0, loggable=True)

    #: Bytes read from each file in the read phase (``-e``).
    #:
    #: :type: :class:`int`
    #: :default: ``0``
    read_bytes = variable(int, value=0, loggable=True)

    #: Iterations of every phase (``-i``); they give each figure its
    #: spread.
    #:
    #: :type: :class:`int`
    #: :default: ``3``
    iterations = variable(int, value=mdtest.DEFAULT_ITERATIONS,
                          loggable=True)

    #: Stop the file-create phase after this many seconds (``-W``); 0: off.
    #:
    #: :type: :class:`int`
    #: :default: ``0``
    stonewall_s = variable(int, value=0, loggable=True)

    #: mdtest's phases to run, of ``create``, ``stat``, ``read``,
    #: ``remove`` (a subset adds ``-C``/``-T``/``-E``/``-r``).
    #:
    #: :type: :class:`List[str]`
    #: :default: ``['create', 'stat', 'read', 'remove']``
    md_phases = variable(typ.List[str], value=list(mdtest.PHASES),
                         loggable=True)

    #: Run each phase as its own mdtest (``-C``, ``-T``, ``-E``, ``-r``),
    #: dropping the page cache between them where the partition has the
    #: ``drop_caches`` feature (seed 000 flushed the caches after each
    #: operation).
    #:
    #: :type: :class:`bool`
    #: :default: ``False``
    split_phases = variable(typ.Bool, value=False, loggable=True)

    #: With :attr:`split_phases`: drop the page cache between phases where
    #: the partition has the ``drop_caches`` feature (seed 000 did; seed
    #: 004 ran its phases back to back).
    #:
    #: :type: :class:`bool`
    #: :default: ``True``
    drop_caches_between_phases = variable(typ.Bool, value=True, loggable=True)

    #: With :attr:`split_phases`: unmount the target and mount it again
    #: between phases, with the command its ``extras.targets[].remount``
    #: declares (seed 000: "Unmount the file system and flush kernel
    #: caches after each operation"); a target without one is not
    #: remounted, and :attr:`between_phases` says so.
    #:
    #: :type: :class:`bool`
    #: :default: ``False``
    remount_between_phases = variable(typ.Bool, value=False, loggable=True)

    #: What the job did to the caches between its phases (``remounted,
    #: cache dropped``, ``cache dropped, not remounted``...; set at setup).
    between_phases = variable(str, value='', loggable=True)

    #: With :attr:`split_phases`: sample ``/proc/stat`` on every node of
    #: the job before and after each phase, for the client CPU
    #: utilisation beside each rate (seed 000).
    #:
    #: :type: :class:`bool`
    #: :default: ``True``
    cpu_sampling = variable(typ.Bool, value=True, loggable=True)

    #: Mount points of the target the tasks spread over (``-d a@b@...``,
    #: task i in the i-th; the target's path and its ``mount_points``),
    #: at most the tasks' count; 1: the target's own path.
    #:
    #: :type: :class:`int`
    #: :default: ``1``
    mount_point_count = variable(int, value=1, loggable=True)

    #: Mount points this run used (set at setup).
    mount_points_used = variable(int, value=0, loggable=True)

    #: Items each task handled, after the share of :attr:`total_items`
    #: and the partition's cap (set at setup).
    items_run_per_task = variable(int, value=0, loggable=True)

    #: True when the partition's ``mdtest_max_items`` lowered the items.
    items_capped = variable(typ.Bool, value=False, loggable=True)

    time_limit = '2h'

    @run_after('init')
    def check_choices(self):
        if self.item_kind not in mdtest.ITEM_KINDS:
            raise ValueError(f'item_kind: {self.item_kind!r}: expected one '
                             f'of {", ".join(mdtest.ITEM_KINDS)}')

        unknown = set(self.md_phases) - set(mdtest.PHASES)
        if unknown or not self.md_phases:
            raise ValueError(f'md_phases: {self.md_phases!r}: expected some '
                             f'of {", ".join(mdtest.PHASES)}')

        self.tags |= {'mdtest'}

    @run_after('setup')
    def size_the_job(self):
        self.place_mpi_tasks(self.nodes, self.tasks_per_node)
        self.items_run_per_task, self.items_capped = mdtest.items_per_task(
            self.num_tasks, self.items_per_task, self.total_items,
            self.current_partition.extras.get('mdtest_max_items'))
        # mdtest refuses more directories than tasks.
        self.mount_points_used = min(self.mount_point_count,
                                     len(self.mount_points()),
                                     self.num_tasks)

    @run_after('setup')
    def check_command_line(self):
        # mdtest_argv refuses what mdtest refuses at start-up: fail here,
        # naming the combination, rather than in the queue.
        try:
            self.job_steps()
        except ValueError as err:
            raise ValueError(f'{self.unique_name}: {err}') from None

    def bytes_moved(self):
        # Files' data only: metadata I/O has no size mdtest could tell.
        if self.item_kind == 'dirs':
            return None

        per_file = ((self.write_bytes if 'create' in self.md_phases else 0) +
                    (self.read_bytes if 'read' in self.md_phases else 0))
        if not per_file:
            return None

        return (per_file * self.items_run_per_task * self.num_tasks *
                self.iterations)

    def target_entry(self):
        """The target's ``extras.targets[]`` entry ({} for the stage
        directory)."""
        return next((t for t in self.current_partition.extras.get(
            'targets', []) if t['name'] == self.target_name), {})

    def metadata_items(self):
        return item_phases(self)

    def metadata_ops_done(self):
        # A bound, not a count: a FUSE or network client sends the server
        # a lookup, the create or stat itself, an open and attribute calls
        # per item and phase (docs/test-filesystem.md has MooseFS's count).
        # It judges only until the case has quiet history
        # (pfsbench.load.own_share).
        return OPS_PER_ITEM_AND_PHASE * item_phases(self)

    def mount_points(self):
        """The target's directory through each of its mounts: its own path,
        then its ``mount_points`` (``extras.targets[]``)."""
        entry = self.target_entry()
        return [self.target_path] + [
            os.path.expandvars(os.path.expanduser(p))
            for p in entry.get('mount_points', [])]

    # Task placement (seed 000) -------------------------------------------

    def launcher_name(self):
        return self.current_partition.launcher_type.registered_name

    def bind_to_first_cores(self, cores):
        """Run the tasks on cores ``0..cores-1`` only, round robin (seed
        000's "active cores": processes = k x cores).

        Args:
            cores: how many cores are active.
        """
        self.skip_if(self.launcher_name() != 'srun',
                     f'binding to cores is encoded for srun; '
                     f'{self.current_partition.fullname} launches with '
                     f'{self.launcher_name()}')
        node_cpus = self.current_partition.processor.num_cpus or cores
        self.skip_if(cores > node_cpus,
                     f'{self.current_partition.fullname} has {node_cpus} '
                     f'CPUs per node; this case binds to {cores}')
        self.job.options += srun.overcommit(self.num_tasks_per_node,
                                            node_cpus)
        self.job.launcher.options += srun.first_cores(cores)

    def overcommit_by_task_count(self):
        """Where the job overcommits its nodes (``--overcommit``, seed
        000's 2 processes per core): ``--nodes`` and ``--ntasks``, no
        ``--ntasks-per-node``, which Slurm 22.05 refuses above a node's
        CPUs even with ``--overcommit`` (as seed 004's NP,
        :mod:`pfsbench.checks.seed004`).  ReFrame, given no tasks per
        node, writes ``--nodes=<tasks>`` first: the later ``--nodes``
        overrides it (sbatch reads ``#SBATCH`` in order).  Call it before
        the run (the job script is written then)."""
        if srun.OVERCOMMIT in self.job.options and self.num_tasks_per_node:
            nodes = -(-self.num_tasks // self.num_tasks_per_node)
            self.job.options += [f'--nodes={nodes}']
            self.num_tasks_per_node = None

    def bind_per_socket(self, sockets):
        """Spread the tasks evenly over ``sockets`` sockets of the node, each
        task bound to its socket (seed 000, E2).

        Args:
            sockets: how many sockets the tasks use.
        """
        part = self.current_partition
        self.skip_if(self.launcher_name() != 'srun',
                     f'binding per socket is encoded for srun; '
                     f'{part.fullname} launches with {self.launcher_name()}')
        have = part.processor.num_sockets
        self.skip_if(have is None or sockets > have,
                     f'{part.fullname} has {have or "undescribed"} '
                     f'socket(s) (its processor config); this case uses '
                     f'{sockets}')
        try:
            per_socket, options = srun.per_socket(self.num_tasks_per_node,
                                                  sockets)
        except ValueError as err:
            self.skip(str(err))
        self.num_tasks_per_socket = per_socket
        self.job.launcher.options += options

    # The job script ------------------------------------------------------

    def test_dirs(self):
        """mdtest's ``-d`` directories (joined with ``@``): one under the
        run directory, which mdtest creates; or one per mount point, each
        the run directory seen through that mount."""
        return mdtest.test_dirs(self.run_dir, os.path.basename(self.run_dir),
                                self.mount_points(), self.mount_points_used)

    def mdtest_options(self):
        """Keyword arguments of :func:`pfsbench.commands.mdtest.mdtest_argv`
        from the check's variables (0 leaves mdtest's default)."""
        return dict(
            items_per_task=self.items_run_per_task, kind=self.item_kind,
            unique_dir=self.unique_dir, depth=self.depth or None,
            branching=self.branching or None, stride=self.stride or None,
            sync_file=self.sync_file, pre_delay_s=self.pre_delay_s or None,
            write_bytes=self.write_bytes or None,
            read_bytes=self.read_bytes or None, iterations=self.iterations,
            stonewall_s=self.stonewall_s or None,
            phases=tuple(p for p in mdtest.PHASES if p in self.md_phases),
            executable=self.tool_path)

    def between_phase_commands(self):
        """``(remount command, drop-caches command)`` run between phases,
        each None where the case or the partition has none."""
        part = self.current_partition
        drop = (self.drop_caches_between_phases and
                'drop_caches' in part.features)
        remount = (self.target_entry().get('remount')
                   if self.remount_between_phases else None)
        return remount, self.drop_caches_command() if drop else None

    @run_after('setup')
    def say_what_happens_between_phases(self):
        self.between_phases = mdtest.between_phases(
            self.split_phases, *self.between_phase_commands())

    def job_steps(self):
        """One mdtest run, or one per phase (:attr:`split_phases`)."""
        remount, drop = self.between_phase_commands()
        return mdtest.job_steps(
            self.test_dirs(), self.mdtest_options(),
            split_phases=self.split_phases, cpu_sampling=self.cpu_sampling,
            drop_caches_command=drop, remount_command=remount,
            server_cpu_command=self.current_partition.extras.get(
                'server_cpu_command'))

    # Reading the output --------------------------------------------------

    def step_problems(self, step):
        if step.kind != 'mdtest':
            return []

        result = self.parsed(mdtest_parser, step=step.label)
        return self.task_count_problem(step, result.tasks)

    def mdtest_results(self):
        """Parsed results of every mdtest step, in job order."""
        return self.step_results('mdtest')


def performance_of(name, unit, method, *args):
    """A performance function ``name`` in ``unit``: the check's
    ``method(*args)``: the families name one per phase in their class
    bodies."""

    @performance_function(unit, perf_key=name)
    def figure(self):
        return getattr(self, method)(*args)

    figure.__name__ = name
    return figure


def _figure(phase, statistic):
    """``statistic`` of ``phase``'s rate over the iterations."""
    name = phase if statistic == 'max' else f'{phase}_{statistic}'
    return performance_of(name, 'ops/s', 'phase_statistic', phase,
                          statistic)


def cpu_util_figure(phase, statistic='mean'):
    """The nodes' CPU utilisation during mdtest's ``phase``: their mean, or
    the busiest node's (``_max``)."""
    name = f'{phase}_cpu_util' + ('_max' if statistic == 'max' else '')
    return performance_of(name, '%', 'cpu_util_pct', phase, '', statistic)


def _server_cpu_util(phase):
    """The metadata server's CPU utilisation during mdtest's ``phase``
    (where the partition declares ``server_cpu_command``)."""
    return performance_of(f'{phase}_server_cpu_util', '%', 'cpu_util_pct',
                          phase, 'server ')


class PhaseCpuFigures(rfm.RegressionTestPlugin):
    """Mixin of the metadata checks whose job samples ``/proc/stat`` around
    each phase (``cpu before create``, ``cpu after create``, ...): the
    client nodes' CPU utilisation during the create, stat and remove
    phases, their mean and the busiest node's (seed 004 saw its clients
    saturate at NP 16)."""

    create_cpu_util = cpu_util_figure('create')
    stat_cpu_util = cpu_util_figure('stat')
    remove_cpu_util = cpu_util_figure('remove')
    create_cpu_util_max = cpu_util_figure('create', 'max')
    stat_cpu_util_max = cpu_util_figure('stat', 'max')
    remove_cpu_util_max = cpu_util_figure('remove', 'max')

    def cpu_util_pct(self, phase, prefix='', statistic='mean'):
        """CPU utilisation of the job's nodes (``prefix`` ``'server '``: of
        the metadata server) during ``phase`` (``create``, ...), in %, from
        the ``cpu before`` and ``cpu after`` steps: their mean, or
        (``statistic`` ``'max'``) the busiest node's, where a saturated
        client shows among idle ones."""
        before = self.parsed(procstat_parser,
                             step=f'{prefix}cpu before {phase}')
        after = self.parsed(procstat_parser, step=f'{prefix}cpu after {phase}')
        percent = procstat_parser.utilisation_pct(before, after)
        if not percent:
            raise SanityError(f'no {prefix or "node"}\'s CPU counters '
                              f'advanced during the {phase} phase')
        if statistic == 'max':
            return max(percent.values())
        return sum(percent.values()) / len(percent)


class mdtest_rates_base(PhaseCpuFigures, mdtest_check_base):
    """mdtest rates of every phase its item kind runs, each with its
    spread over the iterations (one mdtest step)."""

    dir_create = _figure('dir_create', 'max')
    dir_create_mean = _figure('dir_create', 'mean')
    dir_create_min = _figure('dir_create', 'min')
    dir_create_stddev = _figure('dir_create', 'stddev')
    dir_stat = _figure('dir_stat', 'max')
    dir_stat_mean = _figure('dir_stat', 'mean')
    dir_stat_min = _figure('dir_stat', 'min')
    dir_stat_stddev = _figure('dir_stat', 'stddev')
    dir_remove = _figure('dir_remove', 'max')
    dir_remove_mean = _figure('dir_remove', 'mean')
    dir_remove_min = _figure('dir_remove', 'min')
    dir_remove_stddev = _figure('dir_remove', 'stddev')
    file_create = _figure('file_create', 'max')
    file_create_mean = _figure('file_create', 'mean')
    file_create_min = _figure('file_create', 'min')
    file_create_stddev = _figure('file_create', 'stddev')
    file_stat = _figure('file_stat', 'max')
    file_stat_mean = _figure('file_stat', 'mean')
    file_stat_min = _figure('file_stat', 'min')
    file_stat_stddev = _figure('file_stat', 'stddev')
    file_read = _figure('file_read', 'max')
    file_read_mean = _figure('file_read', 'mean')
    file_read_min = _figure('file_read', 'min')
    file_read_stddev = _figure('file_read', 'stddev')
    file_remove = _figure('file_remove', 'max')
    file_remove_mean = _figure('file_remove', 'mean')
    file_remove_min = _figure('file_remove', 'min')
    file_remove_stddev = _figure('file_remove', 'stddev')
    read_cpu_util = cpu_util_figure('read')
    read_cpu_util_max = cpu_util_figure('read', 'max')
    create_server_cpu_util = _server_cpu_util('create')
    stat_server_cpu_util = _server_cpu_util('stat')
    read_server_cpu_util = _server_cpu_util('read')
    remove_server_cpu_util = _server_cpu_util('remove')

    def expected_phases(self):
        """The parser's phases this case reports figures of."""
        # 'file_stat' is run by mdtest's phase 'stat'.
        return tuple(p for p in KIND_PHASES[self.item_kind]
                     if p.split('_', 1)[1] in self.md_phases)

    @run_after('setup')
    def keep_the_phases_run(self):
        # Figures of phases this case does not run would fail it (after
        # init: a family sets item_kind from its parameters).
        expected = self.expected_phases()
        sampled = self.md_phases if (self.split_phases and
                                     self.cpu_sampling) else []
        server = 'server_cpu_command' in self.current_partition.extras
        for name in list(self.perf_variables):
            phase = '_'.join(name.split('_')[:2])
            if phase in KIND_PHASES['both'] and phase not in expected:
                del self.perf_variables[name]
            elif name.endswith('_server_cpu_util'):
                if not server or name.split('_')[0] not in sampled:
                    del self.perf_variables[name]
            elif (name.endswith(('_cpu_util', '_cpu_util_max')) and
                  name.split('_')[0] not in sampled):
                del self.perf_variables[name]

    def step_problems(self, step):
        problems = super().step_problems(step)
        last = [s for s in self.job_steps() if s.kind == 'mdtest'][-1]
        if step == last and not problems:
            # The phases may come from several runs (split_phases).
            results = self.mdtest_results()
            missing = [p for p in self.expected_phases()
                       if all(phase_figures(r, p) is None for r in results)]
            if missing:
                problems.append(f'mdtest reported no {", ".join(missing)} '
                                f'rate')
        return problems

    def phase_statistic(self, phase, statistic):
        """``statistic`` (``max``, ``mean``, ...) of :meth:`phase`."""
        return getattr(self.phase(phase), f'{statistic}_ops_per_s')

    def phase(self, phase):
        """:class:`PhaseFigures` of ``phase`` (the one mdtest step's)."""
        for result in self.mdtest_results():
            figures = phase_figures(result, phase)
            if figures is not None:
                return figures

        raise SanityError(f'no mdtest run reported a {phase} phase')
