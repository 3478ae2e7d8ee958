# SPDX-License-Identifier: BSD-3-Clause
"""Job scripts for running an experiment without ReFrame (``pfsbench
render``).

The tool command lines come from :mod:`pfsbench.commands`, exactly as in the
ReFrame checks; a rendered script adds only ``#SBATCH`` lines, the run
directory it owns, and the same epilogue the checks use (exit status,
removal of the run directory).  Never edit a rendered script: render again.
"""

import dataclasses
import shlex
import sys

from pfsbench import experiments
from pfsbench.commands import diskstats, iozone, lfs
from pfsbench.core import jobsteps
from pfsbench.core.errors import ConfigError
from pfsbench.core.shell import shell_join
from pfsbench.experiments.jobs import RUN_DIR_VAR, RUN_NAME_VAR
from pfsbench.runner import DEFAULT_DROP_CACHES, RENDEZVOUS_ENV
from pfsbench.site import rundir, spack, validate
from pfsbench.site.config import (check_scratch_dir, find_partitions,
                                  load_site_configuration)
from pfsbench.site.mounts import declared_or_local_fstype, target_is_lustre

#: The experiments render writes a job for (:mod:`pfsbench.experiments`).
EXPERIMENTS = experiments.RENDERED


def _spack_view(extras):
    """The view a partition's jobs take their tools from, as the checks
    decide it (:func:`pfsbench.site.spack.environment`); '' for none."""
    env = spack.environment(extras)
    return env.view if env else ''


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
    #: ``extras.mdsrate``: the mdsrate binary (E16 runs it), or ''.
    mdsrate: str = ''
    #: The partition's features (E13 needs ``lustre_mds``).
    features: tuple = ()
    #: ``extras.server_cpu_command``: prints the metadata server's
    #: ``/proc/stat`` line (E1-E4 sample it around each phase), or None.
    server_cpu_command: str = None
    #: ``(path, (fstype, remount command or None))`` of each target
    #: (E1-E4: the files per run, the remount between phases).
    target_mounting: tuple = ()
    #: ``(path, (client path or None, server command or None))`` of each
    #: target: where E1-E4's block-device samples come from
    #: (:func:`pfsbench.commands.diskstats.sample_sources`).
    device_sources: tuple = ()
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
        mdsrate=extras.get('mdsrate', ''),
        features=tuple(part.get('features', [])),
        server_cpu_command=extras.get('server_cpu_command'),
        target_mounting=tuple((t['path'], (t.get('fstype', ''),
                                           t.get('remount')))
                              for t in targets),
        device_sources=tuple((t['path'], diskstats.sample_sources(
            t['path'], declared_or_local_fstype(t.get('fstype', ''),
                                                t['path']),
            target_is_lustre(t, part.get('features', [])),
            t.get('device_stats_command'),
            extras.get('device_stats_command'))) for t in targets),
        node_targets=tuple(t['path'] for t in targets
                           if t.get('scope') == 'node' and
                           part['launcher'] != 'local'))


#: The tools a launcher starts as MPI ranks (the checks that run them
#: place their tasks with ``place_mpi_tasks``).
_MPI_TOOLS = frozenset({'ior', 'mdtest', 'mdsrate', 'io500'})

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
            :mod:`pfsbench.site.validate`; default: the site's first target).
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
            default :data:`pfsbench.experiments.jobs.E8_PROCESSES`).
        point: ``{name: value}`` of the point of a swept experiment's
            sweep (:func:`points`; values as numbers or text); every
            swept name is required.  The point sets the nodes, tasks and
            binding as its check does; ``nodes`` and ``tasks_per_node``
            still override them.

    Returns:
        the script text.

    Raises:
        ConfigError: unknown experiment, a refused target, or a value
            :mod:`pfsbench.site.validate` refuses (a count below 1, a time in
            no Slurm format, shell syntax where a word belongs), naming
            the option and the value.
    """
    exp = experiments.get(experiment)
    _check_values(dict(nodes=nodes, tasks_per_node=tasks_per_node,
                       block_size=block_size, count=count, repeats=repeats,
                       processes=processes, time=time,
                       sbatch_options=sbatch_options, python=python,
                       drop_caches_command=drop_caches_command))
    point, layout = _point_layout(exp, experiment, point, site)
    target = _target(target or (layout and layout.target) or site.target,
                     site, command_line)
    shape = layout or exp
    nodes = shape.nodes if nodes is None else nodes
    tasks_per_node = (shape.tasks_per_node if tasks_per_node is None
                      else tasks_per_node)
    _check_partition(exp, nodes, tasks_per_node, site,
                     site.access + (layout.sbatch if layout else ()) +
                     tuple(sbatch_options))
    # The check's time limit (ReFrame's form) as Slurm writes it.
    time, capped = _fit_time(time, validate.slurm_clock(
        validate.time_seconds(exp.time, exp.id, 'time')), site)
    # The target's directory through each of its mounts (E1-E3).
    mounts = (target,) + next((m for _, path, m in site.targets
                               if path == target), ())
    opts = StepOptions(
        block_size=block_size, count=count, cache_defeat=cache_defeat,
        site_cache_defeat=site.cache_defeat, dd_mode=dd_mode,
        repeats=repeats,
        drop_caches_command=drop_caches_command or site.drop_caches_command,
        python=python or site.python, spack_view=site.spack_view,
        # Features are the partition's, file systems the target's: no
        # Lustre layout on a target that declares another fstype.
        lustre=site.lustre and dict(site.target_mounting).get(
            target, ('', None))[0] in ('', 'lustre'),
        tasks=nodes * tasks_per_node,
        stripe_count=site.stripe_count, processes=processes,
        point=point or {}, site=site, mounts=mounts)
    lines = _header(exp, site, layout, command_line, capped, nodes,
                    tasks_per_node, time, sbatch_options)
    lines += _body(exp, site, layout, opts, target, nodes * tasks_per_node)
    return '\n'.join(lines) + '\n'


@dataclasses.dataclass(frozen=True)
class StepOptions:
    """What an experiment's job steps are built from
    (:attr:`pfsbench.experiments.Experiment.steps`): :func:`render`'s
    options, the site's defaults in place of those not given."""

    block_size: int = None
    count: int = None
    cache_defeat: str = None
    site_cache_defeat: str = 'drop_caches'
    dd_mode: str = None
    repeats: int = None
    drop_caches_command: object = None
    python: str = 'python3'
    spack_view: str = ''
    lustre: bool = False
    tasks: int = 1
    stripe_count: int = lfs.SEED001_STRIPE_COUNT
    processes: int = None
    point: dict = None
    site: JobSite = JobSite()
    mounts: tuple = ()


def _check_values(values):
    """Every value that reaches the script: one inert word, or refused
    (pfsbench.site.validate); 0 is refused, never read as the default."""
    source = '<command line>'
    for field, key in [('--nodes', 'nodes'),
                       ('--tasks-per-node', 'tasks_per_node'),
                       ('--block-size', 'block_size'), ('--count', 'count'),
                       ('--repeats', 'repeats'),
                       ('--processes', 'processes')]:
        if values[key] is not None:
            validate.positive_int(values[key], source, field)
    processes = values['processes']
    if processes is not None and processes > iozone.MAX_STREAMS:
        raise ConfigError(source, '--processes', processes,
                          f'iozone runs at most {iozone.MAX_STREAMS}')
    if values['time'] is not None:
        validate.slurm_time(values['time'], source, '--time')
    for option in values['sbatch_options']:
        validate.sbatch_option(option, source, '--sbatch-option')
    for field, key in [('--python', 'python'),
                       ('--drop-caches-command', 'drop_caches_command')]:
        if values[key] is not None:
            validate.command(values[key], source, field)


def _point_layout(exp, experiment, point, site):
    """``(point, layout)`` of a swept experiment (every swept name given),
    else ``(point, None)``."""
    if not (exp.points_sweeps() or point):
        return point, None
    found = points(experiment, point, site)
    if len(found) != 1:
        missing = [s.name for s in exp.points_sweeps()
                   if s.name not in (point or {})]
        raise ConfigError(
            '<command line>', '--point', None,
            f'{exp.id} sweeps '
            f'{", ".join(s.name for s in exp.points_sweeps())}: '
            f'give --point NAME=VALUE for {", ".join(missing)}, or '
            f'render every point with --output-dir DIR')
    point = found[0]
    return point, exp.layout(point, site)


def _target(target, site, command_line):
    """The job's target, refused where a job must not write (and the
    header's command line, which must stay one line)."""
    source = '<command line>'
    if not target:
        raise ConfigError(source, '--target', None,
                          'required (the system has no extras.targets)'
                          if site.name else 'required')
    validate.path(target, source, '--target')
    # Checked when its config was loaded; again here for any caller.
    validate.site_partition({'access': site.access, 'modules': site.modules,
                             'env_vars': site.env_vars}, site.name, '')
    check_scratch_dir(target, source, '--target', must_exist=False)
    if target in site.node_targets and rundir.NODE_NAME_VAR in target:
        # The batch script would expand it to its own node's name.
        raise ConfigError(source, '--target', target,
                          f'a node target that names the node '
                          f'(${rundir.NODE_NAME_VAR}) is for the checks, '
                          f'whose tools expand it on each node '
                          f'(docs/targets.md); give --target')
    if command_line is not None:
        # The header's comment line must stay one line.
        validate.command(command_line, source, 'argv')
    return target


def _check_partition(exp, nodes, tasks_per_node, site, options):
    """The partition's limits, in the dry run's words
    (pfsbench.checks.base): its nodes, its launcher, its CPUs."""
    source = '<command line>'
    if site.max_nodes is not None and nodes > site.max_nodes:
        raise ConfigError(source, '--nodes', nodes,
                          f'{site.name} has {site.max_nodes} node(s); this '
                          f'case needs {nodes}')
    if (site.launcher == 'local' and exp.tool in _MPI_TOOLS and
            nodes * tasks_per_node > 1):
        # The check skips such a case (place_mpi_tasks): one process, no
        # launcher to start the others.
        raise ConfigError(source, '--tasks-per-node' if nodes == 1 else
                          '--nodes', tasks_per_node if nodes == 1 else nodes,
                          f'{site.name} runs one process (local launcher);'
                          f' {nodes} x {tasks_per_node} {exp.tool} tasks '
                          f'need srun or mpirun (one task: --nodes 1 '
                          f'--tasks-per-node 1)')
    if not exp.single_task:
        validate.tasks_fit_cpus(tasks_per_node, site.num_cpus, options,
                                site.name, source, '--tasks-per-node')


def _header(exp, site, layout, command_line, capped, nodes, tasks_per_node,
            time, sbatch_options):
    """The script's first lines: what it is, its notes, its #SBATCH
    options, modules and exports."""
    name = f'pfsbench-{exp.id}'
    on = f' on {site.name}' if site.name else ''
    lines = [
        '#!/bin/bash',
        f'# pfsbench {exp.id} ({exp.descr}){on}',
        f'# Rendered by: {command_line or "pfsbench render " + exp.id}',
        '# Do not edit: change the options and render again.',
        *([f'# {NOTE_PREFIX}{capped}'] if capped else []),
        *([f'# {NOTE_PREFIX}{layout.note}'] if layout and layout.note
          else []),
        f'#SBATCH --job-name={name}',
        f'#SBATCH --ntasks={nodes * tasks_per_node}',
    ]
    if not exp.single_task and (layout is None or layout.per_node_option):
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
    return lines


def _body(exp, site, layout, opts, target, tasks):
    """The script's run directory, job steps and epilogue."""
    per_node = target in site.node_targets
    # Double quotes: $USER and the like in the target expand on the cluster.
    run_name = f'pfsbench-{exp.id}-$(date +%Y%m%dT%H%M%S)-$SLURM_JOB_ID'
    run_dir = f'"{target}/{run_name}"'
    launcher = ' '.join([_LAUNCHERS[site.launcher](tasks),
                         *(layout.launcher if layout else ())]).strip()
    steps = exp.steps(opts, RUN_DIR_VAR)
    lines = []
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
    return lines


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


def points(experiment, chosen=None, site=JobSite()):
    """The points of an experiment's sweep on a partition that agree with
    ``chosen`` (:func:`pfsbench.experiments.points`)."""
    return experiments.points(experiment, chosen, site)
