# SPDX-License-Identifier: BSD-3-Clause
"""Job scripts for running an experiment without ReFrame (``pfsbench
render``).

The tool command lines come from :mod:`pfsbench.commands`, exactly as in the
ReFrame checks; a rendered script adds only ``#SBATCH`` lines, the run
directory it owns, and the same epilogue the checks use (exit status,
removal of the run directory).  Never edit a rendered script: render again.
"""

import dataclasses
import itertools
import os
import shlex
import sys
from types import SimpleNamespace

from pfsbench import binaries, jobsteps, rundir, spack, validate
from pfsbench.commands import (bonnie, dd, ior, iozone, lfs, mdtest,
                               shell_join, srun)
from pfsbench.commands import mds_survey as survey
from pfsbench.commands.streams import repeated, runner
from pfsbench.errors import ConfigError
from pfsbench.jobsteps import Step
from pfsbench.mounts import declared_or_local_fstype
from pfsbench.runner import DEFAULT_DROP_CACHES, RENDEZVOUS_ENV
from pfsbench.siteconfig import (check_scratch_dir, find_partitions,
                                 load_site_configuration)

RUN_DIR_VAR = '$RUN_DIR'
#: The run directory's name, the same under every mount point (E3); the
#: script sets it where a step uses it.
RUN_NAME_VAR = '$RUN_NAME'


@dataclasses.dataclass(frozen=True)
class Experiment:
    """An experiment as a job: its source, default shape and command."""

    id: str
    descr: str
    nodes: int
    tasks_per_node: int
    #: (options, run_dir) -> the job's :class:`pfsbench.jobsteps.Step`
    #: list, as the experiment's check runs it.
    steps: object
    #: Whether its check announces the steps (:mod:`pfsbench.jobsteps`,
    #: the IOR checks); the streams checks run one command without.
    stepped: bool = False
    time: str = '02:00:00'
    #: The check's sweep, one script per point: ``((name, values), ...)``,
    #: the values a tuple or ``site -> tuple`` (what the partition has).
    sweep: tuple = ()
    #: ``(point, site) -> Layout`` of a swept experiment.
    layout: object = None
    #: ``site -> [(name, value), ...]``: variables the job exports after
    #: the partition's, the values shell words as the check sets them
    #: (E13's mds-survey reads only its environment).
    environment: object = None
    #: One task and no ``--ntasks-per-node``, as a check that sets only
    #: ``num_tasks = 1`` (E13).
    single_task: bool = False


@dataclasses.dataclass(frozen=True)
class Layout:
    """Where one point's tasks run and how they are bound, as its check
    places them."""

    nodes: int
    tasks_per_node: int
    #: ``#SBATCH --ntasks-per-socket`` (E2), or None.
    tasks_per_socket: int = None
    #: ``#SBATCH`` options after the partition's ``access``.
    sbatch: tuple = ()
    #: Options of the launcher (srun's binding).
    launcher: tuple = ()
    #: The point's target path (E4), or empty for the job's.
    target: str = ''


def _spack_view(extras):
    """The view a partition's jobs take their tools from, as the checks
    decide it (:func:`pfsbench.spack.environment`); '' for none."""
    env = spack.environment(extras)
    return env.view if env else ''


def _refuse(point, why):
    """The ConfigError of a point the partition cannot run."""
    shown = ','.join(f'{k}={v}' for k, v in point.items())
    return ConfigError('<command line>', '--point', shown, why)


def _srun_only(point, site):
    if site.launcher != 'srun':
        raise _refuse(point, f'binding is encoded for srun; '
                             f'{site.name} launches with {site.launcher}')


def _seed000_layout(experiment):
    # As the seed-000 checks place and bind their tasks
    # (reframe-checks/mdtest/mdtest_seed000.py, pfsbench.checks.mdtest).
    def layout(point, site):
        _srun_only(point, site)
        if experiment == 'E2':
            sockets, tasks = point['sockets'], mdtest.SEED000_E2_PROCESSES
            if site.num_sockets == 1:
                raise _refuse(point, f'{site.name} has 1 socket: E2 '
                                     f'compares the same processes grouped '
                                     f'on 1..S sockets, which needs 2 or '
                                     f'more')
            if site.num_sockets and sockets > site.num_sockets:
                raise _refuse(point, f'{site.name} has {site.num_sockets} '
                                     f'socket(s)')
            try:
                per_socket, options = srun.per_socket(tasks, sockets)
            except ValueError as err:
                raise _refuse(point, str(err)) from None
            return Layout(1, tasks, tasks_per_socket=per_socket,
                          launcher=tuple(options))

        cores = point.get('active_cores', mdtest.SEED000_E3_ACTIVE_CORES)
        tasks = mdtest.SEED000_PROCESSES_PER_CORE * cores
        if site.num_cpus and cores > site.num_cpus:
            raise _refuse(point, f'{site.name} has {site.num_cpus} CPUs per '
                                 f'node')
        target = ''
        if experiment == 'E4':
            target = site.targets[point['target_index']][1] \
                if site.targets else ''
        # More tasks than the node's CPUs: Slurm refuses without it.
        overcommit = tasks > (site.num_cpus or cores)
        return Layout(1, tasks, launcher=tuple(srun.first_cores(cores)),
                      sbatch=('--overcommit',) if overcommit else (),
                      target=target)
    return layout


def _seed000(experiment):
    # The split-phase steps of the seed-000 checks: create, the caches
    # dropped, remove, the nodes' CPU sampled around each.
    def steps(opts, run_dir):
        site, point = opts.site, opts.point
        wanted = {'E2': mdtest.SEED000_MOUNTS_E2,
                  'E3': point.get('mounts')}.get(experiment,
                                                 mdtest.SEED000_MOUNTS_E1)
        # E1, E2, E4 use the mounts there are; E3's point is the count.
        if experiment == 'E3' and wanted > len(opts.mounts):
            raise _refuse(point, f'the target has {len(opts.mounts)} mount '
                                 f'point(s) (its path and extras.targets[]'
                                 f'.mount_points)')
        # As the check: the files by the target's file system type, its
        # remount command between the phases.
        fstype, remount = dict(site.target_mounting).get(
            opts.mounts[0], ('', None))
        per_task, _ = mdtest.items_per_task(
            opts.tasks, 0, mdtest.seed000_items(
                declared_or_local_fstype(fstype, opts.mounts[0])),
            site.mdtest_max_items)
        dirs = mdtest.test_dirs(run_dir, RUN_NAME_VAR, opts.mounts,
                                min(wanted, len(opts.mounts), opts.tasks))
        options = dict(
            items_per_task=per_task, kind='files', unique_dir=True,
            iterations=mdtest.SEED000_ITERATIONS,
            phases=mdtest.SEED000_PHASES,
            executable=binaries.for_job('mdtest', spack_view=site.spack_view))
        drop = opts.drop_caches_command \
            if site.cache_defeat == 'drop_caches' else None
        return mdtest.job_steps(dirs, options, split_phases=True,
                                drop_caches_command=drop,
                                remount_command=remount,
                                server_cpu_command=site.server_cpu_command)
    return steps


def _seed000_experiment(experiment, descr, sweep):
    """A seed-000 experiment: one node, split phases, 6 hours."""
    return Experiment(experiment, f'seed 000: {descr}', nodes=1,
                      tasks_per_node=0, steps=_seed000(experiment),
                      stepped=True, time='06:00:00', sweep=sweep,
                      layout=_seed000_layout(experiment))


def _seed004_layout(point, site):
    # NP processes in all: on one client, or one per client over up to 70
    # (capped by the partition's max_nodes), as pfsbench.checks.seed004.
    nodes, per_node, _ = mdtest.seed004_layout(
        point['clients'], point['np'], max_nodes=site.max_nodes)
    return Layout(nodes, per_node)


def _tracing_layout(point, site):
    if point['tracer_index'] >= len(site.tracers):
        raise _refuse(point, f'{site.name} has {len(site.tracers)} '
                             f'tracer(s) (extras.tracers)' if site.name else
                      'the tracers are a partition\'s extras.tracers: '
                      'use --system')
    return Layout(1, point['tasks_per_node'])


def _e13_environment(site):
    # mds_survey_rates drives the MDT through echo_client on the server.
    if site.name and 'lustre_mds' not in site.features:
        raise ConfigError(site.name, 'features', list(site.features),
                          'E13 runs mds-survey on a Lustre MDS: the '
                          'partition needs the lustre_mds feature')
    return list(survey.environment().items())


def _e13(opts, run_dir):
    # The one step of mds_survey_rates.
    return [Step('mds-survey', 'mds-survey',
                 (binaries.for_job('mds-survey',
                                   spack_view=opts.spack_view),))]


def _e12(opts, run_dir):
    # mdtest_e12_tracing_overhead's steps: tracer on, mdtest, tracer off,
    # mdtest again.
    site = opts.site
    per_task, _ = mdtest.items_per_task(
        opts.tasks, mdtest.DEFAULT_ITEMS_PER_TASK, 0, site.mdtest_max_items)
    options = dict(
        items_per_task=per_task, kind='both', unique_dir=True,
        iterations=mdtest.DEFAULT_ITERATIONS, phases=mdtest.E12_PHASES,
        executable=binaries.for_job('mdtest', spack_view=site.spack_view))
    _, on, off = site.tracers[opts.point['tracer_index']]
    return mdtest.tracing_steps(run_dir, on, off, options)


def _layout(opts, run_dir):
    # As the streams checks (pfsbench.checks.streams): on Lustre the run
    # directory gets seed 001's layout (the partition's stripe count)
    # first; count 0 sets none.
    if not opts.lustre or opts.stripe_count == 0:
        return []

    return lfs.layout_steps(run_dir, opts.stripe_count,
                            lfs.SEED001_STRIPE_SIZE)


def _dd(count):
    # As the dd checks (reframe-checks/dd, pfsbench.checks.streams): the
    # source's mode reads right after the write (no cache defeat), every
    # point runs seed 001's 3 times, and on Lustre the run directory gets
    # seed 001's layout first.
    def steps(opts, run_dir):
        mode = opts.dd_mode or dd.MODE_SOURCE
        cache_defeat = opts.cache_defeat or (
            'none' if mode == dd.MODE_SOURCE else opts.site_cache_defeat)
        layout = _layout(opts, run_dir)
        return layout + [Step('streams', 'streams', tuple(dd.streams_argv(
            run_dir, block_size=opts.block_size or dd.SEED001_BLOCK_SIZE,
            count=opts.count or count, cache_defeat=cache_defeat,
            drop_caches_command=opts.drop_caches_command,
            python=opts.python, mode=mode,
            repeats=opts.repeats or dd.SEED001_REPEATS)))]
    return steps


def _one_phase_streams(tool, phases):
    # As the bonnie++ and iozone checks (pfsbench.checks.streams): one
    # phase per stream behind the runner's barrier, nothing to defeat
    # (bonnie++ reads right after it writes, iozone runs O_DIRECT), one
    # run unless --repeats, seed 001's layout on Lustre.
    def steps(opts, run_dir):
        executable = binaries.for_job(tool, spack_view=opts.spack_view)
        return _layout(opts, run_dir) + [Step('streams', 'streams', tuple(
            runner(run_dir=run_dir,
                   phases=repeated(phases(opts, executable),
                                   opts.repeats or 1),
                   cache_defeat='none', python=opts.python)))]
    return steps


def _bonnie_phases(opts, executable):
    # -u root where the job runs as root, as the check decides.
    return bonnie.stream_phases(
        bonnie.SEED001_VOLUME_MIB * bonnie.SEED001_VOLUMES,
        user='root' if os.geteuid() == 0 else None, executable=executable)


#: E8's default group: 4 processes, where seed 001's single-node tests
#: peaked "in many cases".
E8_PROCESSES = 4


def _iozone_phases(opts, executable):
    return iozone.stream_phases(opts.processes or E8_PROCESSES,
                                iozone.SEED001_FILE_KIB,
                                executable=executable)


def _e11(opts, run_dir):
    # The one step of ior_mpiio_fpp_bandwidth (pfsbench.checks.ior).
    tool = binaries.for_job('ior', spack_view=opts.spack_view)
    return [Step('write+read', 'ior', tuple(ior.seed002_mpiio_fpp(
        f'{run_dir}/output', executable=tool)))]


def _seed004(experiment):
    # The steps of the seed-004 mdtest checks (pfsbench.checks.mdtest): the
    # 304000 items shared among the tasks, capped as the checks cap, one
    # mdtest per phase with the nodes' CPU sampled around each, nothing
    # dropped in between.
    def steps(opts, run_dir):
        tool = binaries.for_job('mdtest', spack_view=opts.spack_view)
        per_task, _ = mdtest.items_per_task(
            opts.tasks, 0, mdtest.SEED004_ITEMS, opts.site.mdtest_max_items)
        different = opts.point.get('directory') == 'different'
        return mdtest.seed004_steps(
            experiment, f'{run_dir}/mdtest', opts.tasks,
            unique_dir=different, items=per_task * opts.tasks,
            server_cpu_command=opts.site.server_cpu_command,
            executable=tool)
    return steps


EXPERIMENTS = {e.id: e for e in [
    Experiment('E6', 'seed 001: dd, one stream per node, all nodes together',
               nodes=64, tasks_per_node=1,
               steps=_dd(dd.SEED001_COUNT_PER_NODE)),
    Experiment('E7', 'seed 001: bonnie++ (the source\'s bonnie -s 2000 -v '
                     '16), one instance per node, all nodes together',
               nodes=64, tasks_per_node=1,
               steps=_one_phase_streams('bonnie++', _bonnie_phases)),
    Experiment('E8', 'seed 001: iozone throughput mode, N processes (-l N '
                     '-u N -t N, --processes) on one node',
               nodes=1, tasks_per_node=1,
               steps=_one_phase_streams('iozone', _iozone_phases)),
    Experiment('E9', 'seed 001: dd, several streams on one node',
               nodes=1, tasks_per_node=4,
               steps=_dd(dd.SEED001_COUNT_PER_NODE)),
    Experiment('E10', 'seed 001: dd, 12 streams per node on many nodes',
               nodes=64, tasks_per_node=12,
               steps=_dd(dd.SEED001_COUNT_MULTI_STREAM)),
    Experiment('E11', 'seed 002: IOR MPI-IO file per process, 4 GiB blocks',
               nodes=3, tasks_per_node=12,
               steps=_e11, stepped=True),
    _seed000_experiment(
        'E1', 'mdtest -F -u create/unlink, processes = 2 x active cores, '
              '6..48 cores, 6 mount points',
        (('active_cores', mdtest.SEED000_ACTIVE_CORES),)),
    _seed000_experiment(
        'E2', 'mdtest -F -u create/unlink, 12 processes grouped on 1..4 '
              'sockets, 12 mount points',
        (('sockets', mdtest.SEED000_SOCKETS),)),
    _seed000_experiment(
        'E3', 'mdtest -F -u create/unlink, 24 processes on 12 cores through '
              '1..24 mount points',
        (('mounts', mdtest.SEED000_MOUNTS),)),
    _seed000_experiment(
        'E4', "E1's workload on each target of the partition, 12..48 cores",
        (('target_index', lambda site: tuple(range(len(site.targets) or 1))),
         ('active_cores', mdtest.SEED000_E4_ACTIVE_CORES))),
    Experiment('E12', 'seed 003: mdtest with a metadata tracer of the '
                      'partition on, then off',
               nodes=1, tasks_per_node=0, steps=_e12, stepped=True,
               sweep=(('tracer_index',
                       lambda site: tuple(range(len(site.tracers) or 1))),
                      ('tasks_per_node', mdtest.E12_TASKS_PER_NODE)),
               layout=_tracing_layout),
    Experiment('E13', 'seed 003: lustre-iokit mds-survey thread sweep on '
                      'the MDS (create, lookup, md_getattr, setxattr, '
                      'destroy)',
               nodes=1, tasks_per_node=1, steps=_e13, stepped=True,
               environment=_e13_environment, single_task=True),
    Experiment('E15', 'seed 004: metabench-style file create/stat/delete, '
                      'same vs different directories (mdtest stands in)',
               nodes=1, tasks_per_node=0, steps=_seed004('E15'),
               stepped=True,
               sweep=(('clients', ('single', 'multi')),
                      ('np', mdtest.SEED004_METABENCH_NP),
                      ('directory', ('same', 'different'))),
               layout=_seed004_layout),
    Experiment('E16', 'seed 004: mdsrate-style create/stat/unlink in one '
                      'directory, 304000 files (mdtest stands in)',
               nodes=mdtest.SEED004_CLIENTS, tasks_per_node=16,
               steps=_seed004('E16'), stepped=True,
               sweep=(('clients', ('single', 'multi')),
                      ('np', mdtest.SEED004_MDTEST_NP)),
               layout=_seed004_layout),
    Experiment('E17', 'seed 004: mdtest dirs and files, -y -N 1 -p 1, '
                      '304000 items',
               nodes=mdtest.SEED004_CLIENTS, tasks_per_node=16,
               steps=_seed004('E17'), stepped=True,
               sweep=(('clients', ('single', 'multi')),
                      ('np', mdtest.SEED004_MDTEST_NP)),
               layout=_seed004_layout),
]}


@dataclasses.dataclass(frozen=True)
class JobSite:
    """What a system partition adds to a job, as its ReFrame configuration
    says (:func:`job_site`): the defaults are a bare Slurm job."""

    #: ``NAME:PARTITION``, for the header (empty: no system).
    name: str = ''
    #: ``#SBATCH`` options of the partition's ``access``.
    access: tuple = ()
    #: Modules the job loads (partition, then environment).
    modules: tuple = ()
    #: ``(name, value)`` pairs the job exports (``SLURM_MPI_TYPE``...).
    env_vars: tuple = ()
    #: ReFrame launcher name: ``srun``, ``mpirun``, ``mpiexec``, ``local``.
    launcher: str = 'srun'
    #: The first target's path (empty: none configured).
    target: str = ''
    drop_caches_command: object = None
    cache_defeat: str = 'drop_caches'
    python: str = 'python3'
    #: The partition's Spack view, where the tools are taken from.
    spack_view: str = ''
    #: Whether the partition has the ``lustre`` feature (layouts are set).
    lustre: bool = False
    #: The stripe count of that layout (``extras.lustre_stripe_count``).
    stripe_count: int = lfs.SEED001_STRIPE_COUNT
    #: ``(name, path, (mount point, ...))`` of each target, in order.
    targets: tuple = ()
    #: The node's CPUs and sockets (``processor``), None where undescribed.
    num_cpus: int = None
    num_sockets: int = None
    #: ``extras.max_nodes`` and ``extras.mdtest_max_items``, or None.
    max_nodes: int = None
    #: The partition's ``time_limit`` (ReFrame's form: ``30m``), or None:
    #: the most a job there may ask for.
    time_limit: str = None
    mdtest_max_items: int = None
    #: ``(name, on, off)`` of each of ``extras.tracers`` (E12).
    tracers: tuple = ()
    #: The partition's features (E13 needs ``lustre_mds``).
    features: tuple = ()
    #: ``extras.server_cpu_command``: prints the metadata server's
    #: ``/proc/stat`` line (E1-E4 sample it around each phase), or None.
    server_cpu_command: str = None
    #: ``(path, (fstype, remount command or None))`` of each target
    #: (E1-E4: the files per run, the remount between phases).
    target_mounting: tuple = ()
    #: Paths of the targets whose ``scope`` is ``node``: the job makes and
    #: removes its run directory on every node (docs/targets.md).
    node_targets: tuple = ()


def job_site(config_dir, spec):
    """The :class:`JobSite` of ``NAME:PARTITION`` in a config directory:
    what the checks' jobs on that partition get from the same config.

    Args:
        config_dir: the directory of ``settings.py`` and ``systems/``.
        spec: ``NAME:PARTITION`` (a partition is required: a system's
            partitions are different jobs).

    Returns:
        the :class:`JobSite`.

    Raises:
        ConfigError: a bad config, an unknown system or partition, no
            partition given, or a launcher pfsbench cannot render.
    """
    config, _ = load_site_configuration(config_dir, [spec.split(':')[0]])
    system, (part,) = find_partitions(config['systems'], spec,
                                      require_partition=True)
    if part['launcher'] not in _LAUNCHERS:
        raise ConfigError(spec, 'launcher', part['launcher'],
                          'pfsbench render knows ' + ', '.join(_LAUNCHERS))
    environ = next((e for e in config.get('environments', [])
                    if e['name'] == part.get('environs', [''])[0]), {})
    # The system file was checked when loaded; its environment was not.
    validate.site_partition(environ, f'{config_dir}/common.py',
                            f'environments[{environ.get("name")}]')
    modules = ()
    if system.get('modules_system', 'nomod') != 'nomod':
        # ReFrame's 'nomod' module system loads nothing.
        modules = tuple(m if isinstance(m, str) else m['name']
                        for m in part.get('modules', []) +
                        environ.get('modules', []))
    env_vars = tuple((k, str(v)) for k, v in
                     part.get('env_vars', []) + environ.get('env_vars', []))
    extras = part.get('extras', {})
    targets = extras.get('targets', [])
    # As the checks do (pfsbench.checks.base): drop_caches where the
    # partition has the feature, else O_DIRECT reads; the Python that
    # runs ReFrame from this clone runs the stream runner.
    return JobSite(
        name=spec, access=tuple(part.get('access', [])), modules=modules,
        env_vars=env_vars, launcher=part['launcher'],
        target=targets[0]['path'] if targets else '',
        drop_caches_command=extras.get('drop_caches_command',
                                       DEFAULT_DROP_CACHES),
        cache_defeat=('drop_caches' if 'drop_caches' in
                      part.get('features', []) else 'direct'),
        python=sys.executable, spack_view=_spack_view(extras),
        lustre='lustre' in part.get('features', []),
        stripe_count=extras.get('lustre_stripe_count',
                                lfs.SEED001_STRIPE_COUNT),
        targets=tuple((t['name'], t['path'], tuple(t.get('mount_points',
                                                         ())))
                      for t in targets),
        num_cpus=part.get('processor', {}).get('num_cpus'),
        num_sockets=part.get('processor', {}).get('num_sockets'),
        max_nodes=extras.get('max_nodes'),
        time_limit=part.get('time_limit'),
        mdtest_max_items=extras.get('mdtest_max_items'),
        tracers=tuple((t['name'], t['on'], t['off'])
                      for t in extras.get('tracers', [])),
        features=tuple(part.get('features', [])),
        server_cpu_command=extras.get('server_cpu_command'),
        target_mounting=tuple((t['path'], (t.get('fstype', ''),
                                           t.get('remount')))
                              for t in targets),
        node_targets=tuple(t['path'] for t in targets
                           if t.get('scope') == 'node' and
                           part['launcher'] != 'local'))


#: How each ReFrame launcher starts a job step of ``n`` tasks (as
#: ReFrame's own launchers write it).
_LAUNCHERS = {
    'srun': lambda n: 'srun',
    'mpirun': lambda n: f'mpirun -np {n}',
    'mpiexec': lambda n: f'mpiexec -n {n}',
    'local': lambda n: '',
}


def render(experiment, target=None, nodes=None, tasks_per_node=None,
           time=None, sbatch_options=(), block_size=None, count=None,
           cache_defeat=None, drop_caches_command=None, dd_mode=None,
           repeats=None, python=None, command_line=None, site=JobSite(),
           processes=None, point=None):
    """The sbatch script of one experiment (of one point of its sweep).

    Args:
        experiment: an id of :data:`EXPERIMENTS` (``E6``...).
        target: the scratch directory the job writes under (on the cluster;
            it need not exist here, but ``/``, homes and system
            directories are refused; ``$NAME`` and ``${NAME}`` expand on
            the cluster, other shell syntax is refused: see
            :mod:`pfsbench.validate`; default: the site's first target).
        nodes: ``#SBATCH --nodes`` (default: the experiment's).
        tasks_per_node: ``#SBATCH --ntasks-per-node`` (streams or ranks).
        time: ``#SBATCH --time``.
        sbatch_options: more ``#SBATCH`` options, e.g. ``--qos=io``.
        block_size, count: dd sizes (default: the source's).
        cache_defeat: dd's cache defeat between write and read (default:
            none in the source's mode, else the site's).
        dd_mode: ``source`` (default; seed 001's dd lines) or
            ``fdatasync`` (flushed writes), as the dd checks' ``dd_mode``.
        repeats: runs of every stream in the job (default: dd seed 001's
            3, bonnie++ and iozone 1, as their checks).
        drop_caches_command: the command dropping a node's page cache
            (default: the site's).
        python: interpreter with pfsbench installed, on the compute nodes
            (default: the site's).
        command_line: how this script was rendered, for its header.
        site: the system partition's :class:`JobSite` (default: none).
        processes: E8's iozone processes on the node (``-l N -u N -t N``;
            default :data:`E8_PROCESSES`).
        point: ``{name: value}`` of the point of a swept experiment's
            sweep (:func:`points`; values as numbers or text); every
            swept name is required.  The point sets the nodes, tasks and
            binding as its check does; ``nodes`` and ``tasks_per_node``
            still override them.

    Returns:
        the script text.

    Raises:
        ConfigError: unknown experiment, a refused target, or a value
            :mod:`pfsbench.validate` refuses (a count below 1, a time in
            no Slurm format, shell syntax where a word belongs), naming
            the option and the value.
    """
    if experiment not in EXPERIMENTS:
        raise ConfigError('<command line>', 'EXPERIMENT', experiment,
                          'unknown; known: ' + ', '.join(EXPERIMENTS))

    exp = EXPERIMENTS[experiment]
    # Every value that reaches the script: one inert word, or refused
    # (pfsbench.validate); 0 is refused, never read as the default.
    source = '<command line>'
    for field, value in [('--nodes', nodes),
                         ('--tasks-per-node', tasks_per_node),
                         ('--block-size', block_size), ('--count', count),
                         ('--repeats', repeats),
                         ('--processes', processes)]:
        if value is not None:
            validate.positive_int(value, source, field)
    if processes is not None and processes > iozone.MAX_STREAMS:
        raise ConfigError(source, '--processes', processes,
                          f'iozone runs at most {iozone.MAX_STREAMS}')
    if time is not None:
        validate.slurm_time(time, source, '--time')
    for option in sbatch_options:
        validate.sbatch_option(option, source, '--sbatch-option')
    for field, value in [('--python', python),
                         ('--drop-caches-command', drop_caches_command)]:
        if value is not None:
            validate.command(value, source, field)
    layout = None
    if exp.sweep or point:
        found = points(experiment, point, site)
        if len(found) != 1:
            missing = [n for n, _ in sweep_values(exp, site)
                       if n not in (point or {})]
            raise ConfigError(
                source, '--point', None,
                f'{exp.id} sweeps {", ".join(n for n, _ in exp.sweep)}: '
                f'give --point NAME=VALUE for {", ".join(missing)}, or '
                f'render every point with --output-dir DIR')
        point = found[0]
        layout = exp.layout(point, site)
    target = target or (layout and layout.target) or site.target
    if not target:
        raise ConfigError(source, '--target', None,
                          'required (the system has no extras.targets)'
                          if site.name else 'required')
    validate.path(target, source, '--target')
    # Checked when its config was loaded; again here for any caller.
    validate.site_partition({'access': site.access, 'modules': site.modules,
                             'env_vars': site.env_vars}, site.name, '')
    check_scratch_dir(target, source, '--target', must_exist=False)
    per_node = target in site.node_targets
    if per_node and rundir.NODE_NAME_VAR in target:
        # The batch script would expand it to its own node's name.
        raise ConfigError(source, '--target', target,
                          f'a node target that names the node '
                          f'(${rundir.NODE_NAME_VAR}) is for the checks, '
                          f'whose tools expand it on each node '
                          f'(docs/targets.md); give --target')
    if command_line is not None:
        # The header's comment line must stay one line.
        validate.command(command_line, source, 'argv')
    shape = layout or exp
    nodes = shape.nodes if nodes is None else nodes
    tasks_per_node = (shape.tasks_per_node if tasks_per_node is None
                      else tasks_per_node)
    # The partition's limits, in the dry run's words (pfsbench.checks.base).
    if site.max_nodes is not None and nodes > site.max_nodes:
        raise ConfigError(source, '--nodes', nodes,
                          f'{site.name} has {site.max_nodes} node(s); this '
                          f'case needs {nodes}')
    time, capped = _fit_time(time, exp.time, site)
    # The target's directory through each of its mounts (E1-E3).
    mounts = (target,) + next((m for _, path, m in site.targets
                               if path == target), ())
    opts = SimpleNamespace(
        block_size=block_size, count=count, cache_defeat=cache_defeat,
        site_cache_defeat=site.cache_defeat, dd_mode=dd_mode,
        repeats=repeats,
        drop_caches_command=drop_caches_command or site.drop_caches_command,
        python=python or site.python, spack_view=site.spack_view,
        lustre=site.lustre, tasks=nodes * tasks_per_node,
        stripe_count=site.stripe_count, processes=processes,
        point=point or {}, site=site, mounts=mounts)
    name = f'pfsbench-{exp.id}'
    on = f' on {site.name}' if site.name else ''
    lines = [
        '#!/bin/bash',
        f'# pfsbench {exp.id} ({exp.descr}){on}',
        f'# Rendered by: {command_line or "pfsbench render " + exp.id}',
        '# Do not edit: change the options and render again.',
        *([f'# {NOTE_PREFIX}{capped}'] if capped else []),
        f'#SBATCH --job-name={name}',
        f'#SBATCH --ntasks={nodes * tasks_per_node}',
    ]
    if not exp.single_task:
        lines.append(f'#SBATCH --ntasks-per-node={tasks_per_node}')
    if layout and layout.tasks_per_socket:
        lines.append(f'#SBATCH --ntasks-per-socket={layout.tasks_per_socket}')
    lines += [
        f'#SBATCH --output={name}-%j.out',
        f'#SBATCH --time={time}',
        f'#SBATCH --nodes={nodes}',
    ]
    lines += [f'#SBATCH {opt}' for opt in site.access +
              (layout.sbatch if layout else ()) + tuple(sbatch_options)]
    lines += [f'module load {shlex.quote(m)}' for m in site.modules]
    lines += [f'export {k}={shlex.quote(v)}' for k, v in site.env_vars]
    if exp.environment:
        lines += [f'export {k}={v}' for k, v in exp.environment(site)]
    # Double quotes: $USER and the like in the target expand on the cluster.
    run_name = f'pfsbench-{exp.id}-$(date +%Y%m%dT%H%M%S)-$SLURM_JOB_ID'
    run_dir = f'"{target}/{run_name}"'
    launcher = ' '.join([_LAUNCHERS[site.launcher](nodes * tasks_per_node),
                         *(layout.launcher if layout else ())]).strip()
    steps = exp.steps(opts, RUN_DIR_VAR)
    if any(RUN_NAME_VAR in word for step in steps for word in step.argv):
        # The run directory is seen through other mounts by its name.
        lines.append(f'RUN_NAME="{run_name}"')
        run_dir = f'"{target}/{RUN_NAME_VAR}"'
    before, last = [], shell_join(steps[-1].argv)
    if exp.stepped or len(steps) > 1:
        before, last = jobsteps.script(steps, launcher)
    if per_node:
        # Made and removed on every node, one step per node; each node's
        # shell reads the exported RUN_DIR (docs/targets.md).
        lines += [
            f'export RUN_DIR={run_dir}',
            # The streams runner's barrier meets in a directory every node
            # sees: the one the job was submitted from.
            f'export {RENDEZVOUS_ENV}="$SLURM_SUBMIT_DIR"',
            *rundir.job_prologue(RUN_DIR_VAR, on_every_node=True),
            *rundir.node_job_create(RUN_DIR_VAR, exp.id),
        ]
    else:
        lines += [
            f'RUN_DIR={run_dir}',
            f'mkdir "$RUN_DIR" && echo "{exp.id} job $SLURM_JOB_ID" > '
            f'"$RUN_DIR/{rundir.MARKER}" || exit 1',
            # scancel and the time limit (SIGTERM) remove it too.
            *rundir.job_prologue(RUN_DIR_VAR),
        ]
    lines += [*before, f'{launcher} {last}'.strip()]
    lines += rundir.job_epilogue(RUN_DIR_VAR, on_every_node=per_node)
    return '\n'.join(lines) + '\n'


#: How a rendered script's header starts a note the CLI repeats on stderr.
NOTE_PREFIX = 'note: '


def _fit_time(asked, default, site):
    """The job's ``--time`` and why it was capped ('' if not): ``asked``
    (the command line's, refused above the partition's time_limit) or the
    experiment's ``default`` (capped to it, as the checks cap theirs)."""
    time = asked or default
    if not site.time_limit:
        return time, ''
    allowed = validate.time_seconds(site.time_limit, site.name,
                                    'time_limit')
    wanted = validate.time_seconds(time, '<command line>', '--time',
                                   slurm=True)
    if wanted <= allowed:
        return time, ''
    if asked:
        raise ConfigError('<command line>', '--time', asked,
                          f"is more than {site.name}'s time_limit "
                          f"({site.time_limit})")
    capped = validate.slurm_clock(allowed)
    return capped, (f'--time {default} capped to {capped}, '
                    f"{site.name}'s time_limit ({site.time_limit})")


def sweep_values(exp, site=JobSite()):
    """``[(name, values), ...]`` of an :class:`Experiment`'s sweep on a
    partition (E4's targets and E12's tracers are the partition's)."""
    return [(name, tuple(values(site) if callable(values) else values))
            for name, values in exp.sweep]


def points(experiment, chosen=None, site=JobSite()):
    """The points of an experiment's sweep that agree with ``chosen``.

    Args:
        experiment: an id of :data:`EXPERIMENTS`.
        chosen: ``{name: value}`` (values compared as text); names not
            given take every value.
        site: the partition (its targets and tracers are E4's and E12's
            values).

    Returns:
        ``[{name: value}, ...]`` in the order of the sweep's product (one
        empty point for an experiment without a sweep).

    Raises:
        ConfigError: an unknown experiment, a name the experiment does
            not sweep, or a value outside the sweep.
    """
    if experiment not in EXPERIMENTS:
        raise ConfigError('<command line>', 'EXPERIMENT', experiment,
                          'unknown; known: ' + ', '.join(EXPERIMENTS))
    exp = EXPERIMENTS[experiment]
    chosen = {k: str(v) for k, v in (chosen or {}).items()}
    values = sweep_values(exp, site)
    names = [n for n, _ in values]
    for name in chosen:
        if name not in names:
            raise ConfigError(
                '<command line>', '--point', name,
                f'{exp.id} sweeps ' + (', '.join(names) if names else
                                       'nothing'))
    for name, vals in values:
        if name in chosen and chosen[name] not in map(str, vals):
            raise ConfigError(
                '<command line>', '--point', f'{name}={chosen[name]}',
                'expected one of ' + ', '.join(map(str, vals)))
    picked = [[v for v in vals if name not in chosen or
               str(v) == chosen[name]] for name, vals in values]
    return [dict(zip(names, combo)) for combo in itertools.product(*picked)]
