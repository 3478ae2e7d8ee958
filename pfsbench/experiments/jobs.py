# SPDX-License-Identifier: BSD-3-Clause
"""How an experiment's job places its tasks and what it runs, step by
step: the layouts and steps of :mod:`pfsbench.experiments`, as the
experiment's ReFrame check does them (``pfsbench render`` writes them into
a job script).  No ReFrame import.
"""

import dataclasses
import os

from pfsbench.commands import (bonnie, dd, diskstats, ior, iozone, lfs,
                               mdsrate, mdtest, procstat, srun,
                               mds_survey as survey)
from pfsbench.commands.streams import repeated, runner
from pfsbench.core.errors import ConfigError
from pfsbench.core.jobsteps import Step
from pfsbench.site import binaries
from pfsbench.site.mounts import declared_or_local_fstype

RUN_DIR_VAR = '$RUN_DIR'
#: The run directory's name, the same under every mount point (E3); the
#: script sets it where a step uses it.
RUN_NAME_VAR = '$RUN_NAME'


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
    #: Whether the job says ``#SBATCH --ntasks-per-node`` (not where seed
    #: 004's NP overcommits a node: Slurm 22.05 refuses it above the CPUs
    #: even with ``--overcommit``, and spreads ``--ntasks`` evenly).
    per_node_option: bool = True
    #: What the partition changed of the source's shape (seed 004's
    #: clients capped to max_nodes), said in the script's header; ''.
    note: str = ''


def refuse(point, why):
    """The ConfigError of a point the partition cannot run."""
    shown = ','.join(f'{k}={v}' for k, v in point.items())
    return ConfigError('<command line>', '--point', shown, why)


def _srun_only(point, site):
    if site.launcher != 'srun':
        raise refuse(point, f'binding is encoded for srun; '
                             f'{site.name} launches with {site.launcher}')


def seed000_layout(experiment):
    # As the seed-000 checks place and bind their tasks
    # (reframe-checks/mdtest/mdtest_seed000.py, pfsbench.checks.mdtest).
    def layout(point, site):
        _srun_only(point, site)
        if experiment == 'E2':
            sockets, tasks = point['sockets'], mdtest.SEED000_E2_PROCESSES
            if site.num_sockets == 1:
                raise refuse(point, f'{site.name} has 1 socket: E2 '
                                     f'compares the same processes grouped '
                                     f'on 1..S sockets, which needs 2 or '
                                     f'more')
            if site.num_sockets and sockets > site.num_sockets:
                raise refuse(point, f'{site.name} has {site.num_sockets} '
                                     f'socket(s)')
            try:
                per_socket, options = srun.per_socket(tasks, sockets)
            except ValueError as err:
                raise refuse(point, str(err)) from None
            return Layout(1, tasks, tasks_per_socket=per_socket,
                          launcher=tuple(options))

        cores = point.get('active_cores', mdtest.SEED000_E3_ACTIVE_CORES)
        tasks = mdtest.SEED000_PROCESSES_PER_CORE * cores
        if site.num_cpus and cores > site.num_cpus:
            raise refuse(point, f'{site.name} has {site.num_cpus} CPUs per '
                                 f'node')
        target = ''
        if experiment == 'E4':
            target = site.targets[point['target_index']][1] \
                if site.targets else ''
        # More tasks than the node's CPUs: Slurm refuses without it, and
        # (22.05) refuses an --ntasks-per-node above them even with it.
        over = tuple(srun.overcommit(tasks, site.num_cpus or cores))
        return Layout(1, tasks, launcher=tuple(srun.first_cores(cores)),
                      sbatch=over, per_node_option=not over, target=target)
    return layout


def seed000_steps(experiment):
    # The split-phase steps of the seed-000 checks: create, the caches
    # dropped, remove, the nodes' CPU sampled around each.
    def steps(opts, run_dir):
        site, point = opts.site, opts.point
        wanted = {'E2': mdtest.SEED000_MOUNTS_E2,
                  'E3': point.get('mounts')}.get(experiment,
                                                 mdtest.SEED000_MOUNTS_E1)
        # E1, E2, E4 use the mounts there are; E3's point is the count.
        if experiment == 'E3' and wanted > len(opts.mounts):
            raise refuse(point, f'the target has {len(opts.mounts)} mount '
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
        # As the check (pfsbench.checks.device_probe): the target's block
        # device sampled around each phase, inside the CPU samples.
        client, command = dict(site.device_sources).get(opts.mounts[0],
                                                        (None, None))
        return diskstats.around_phases(
            mdtest.job_steps(dirs, options, split_phases=True,
                             drop_caches_command=drop,
                             remount_command=remount,
                             server_cpu_command=site.server_cpu_command),
            mdtest.SEED000_PHASES, client, command)
    return steps


def seed004_layout(point, site):
    # NP processes in all: on one client, or one per client over up to 70
    # (capped by the partition's max_nodes), as pfsbench.checks.seed004.
    nodes, per_node, capped = mdtest.seed004_layout(
        point['clients'], point['np'], max_nodes=site.max_nodes)
    # NP 32 and 64 on one 16-core client: Slurm refuses them without it
    # (pfsbench.checks.seed004).
    over = tuple(srun.overcommit(per_node, site.num_cpus))
    # The check warns in the same words (pfsbench.checks.seed004).
    note = (f'{site.name} has {site.max_nodes} node(s): NP {point["np"]} '
            f'runs {per_node} per node on {nodes}, not one per client '
            f'(seed 004)' if capped else '')
    return Layout(nodes, per_node, sbatch=over, per_node_option=not over,
                  note=note)


def tracing_layout(point, site):
    if point['tracer_index'] >= len(site.tracers):
        raise refuse(point, f'{site.name} has {len(site.tracers)} '
                             f'tracer(s) (extras.tracers)' if site.name else
                      'the tracers are a partition\'s extras.tracers: '
                      'use --system')
    return Layout(1, point['tasks_per_node'])


def e13_environment(site):
    # mds_survey_rates drives the MDT through echo_client on the server.
    if site.name and 'lustre_mds' not in site.features:
        raise ConfigError(site.name, 'features', list(site.features),
                          'E13 runs mds-survey on a Lustre MDS: the '
                          'partition needs the lustre_mds feature')
    return list(survey.environment().items())


def e13_steps(opts, run_dir):
    # The one step of mds_survey_rates.
    return [Step('mds-survey', 'mds-survey',
                 (binaries.for_job('mds-survey',
                                   spack_view=opts.spack_view),))]


def e12_steps(opts, run_dir):
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


def dd_steps(count):
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


def one_phase_streams_steps(tool, phases):
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


def bonnie_phases(opts, executable):
    # -u root where the job runs as root, as the check decides.
    return bonnie.stream_phases(
        bonnie.SEED001_VOLUME_MIB * bonnie.SEED001_VOLUMES,
        user='root' if os.geteuid() == 0 else None, executable=executable)


#: E8's default group: 4 processes, where seed 001's single-node tests
#: peaked "in many cases".
E8_PROCESSES = 4


def iozone_phases(opts, executable):
    return iozone.stream_phases(opts.processes or E8_PROCESSES,
                                iozone.SEED001_FILE_KIB,
                                executable=executable)


def e11_steps(opts, run_dir):
    # The one step of ior_mpiio_fpp_bandwidth (pfsbench.checks.ior).
    tool = binaries.for_job('ior', spack_view=opts.spack_view)
    return [Step('write+read', 'ior', tuple(ior.seed002_mpiio_fpp(
        f'{run_dir}/output', executable=tool)))]


#: The stand-in's name of each mdsrate phase, for the CPU figures.
MDSRATE_CPU_PHASE = {'create': 'create', 'stat': 'stat', 'unlink': 'remove'}


def mdsrate_steps(test_dir, files, executable):
    """mdsrate_e16's steps: one mdsrate run per phase over ``files``
    files in ``test_dir``, the nodes' CPU sampled around each."""
    sample = tuple(procstat.sample_argv())
    steps = []
    for phase, argv in mdsrate.job_argvs(test_dir, files,
                                         executable=executable):
        cpu = MDSRATE_CPU_PHASE[phase]
        steps += [Step(f'cpu before {cpu}', 'cpu', sample),
                  Step(phase, 'mdsrate', tuple(argv)),
                  Step(f'cpu after {cpu}', 'cpu', sample)]
    return steps


def e16_steps(opts, run_dir):
    # Seed 004 ran mdsrate: where the partition declares one
    # (extras.mdsrate) the job is mdsrate_e16's, its files capped as the
    # check caps them; elsewhere mdtest_e16_mdsrate_standin's.
    site = opts.site
    if not site.mdsrate:
        return seed004_steps('E16')(opts, run_dir)
    per_task, capped = mdtest.items_per_task(
        opts.tasks, 0, mdtest.SEED004_ITEMS, site.mdtest_max_items)
    files = per_task * opts.tasks if capped else mdtest.SEED004_ITEMS
    return mdsrate_steps(f'{run_dir}/mdsrate', files, os.path.expandvars(
        os.path.expanduser(site.mdsrate)))


def seed004_steps(experiment):
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
