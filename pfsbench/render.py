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
from types import SimpleNamespace

from pfsbench import binaries, jobsteps, rundir
from pfsbench.commands import dd, ior, lfs, mdtest, shell_join
from pfsbench.errors import ConfigError
from pfsbench.jobsteps import Step
from pfsbench.runner import DEFAULT_DROP_CACHES
from pfsbench.siteconfig import (check_scratch_dir, find_partitions,
                                 load_site_configuration)

RUN_DIR_VAR = '$RUN_DIR'


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


def _dd(count):
    # As the dd checks (reframe-checks/dd, pfsbench.checks.streams): the
    # source's mode reads right after the write (no cache defeat), every
    # point runs seed 001's 3 times, and on Lustre the run directory gets
    # seed 001's layout first.
    def steps(opts, run_dir):
        mode = opts.dd_mode or dd.MODE_SOURCE
        cache_defeat = opts.cache_defeat or (
            'none' if mode == dd.MODE_SOURCE else opts.site_cache_defeat)
        layout = []
        if opts.lustre:
            layout = lfs.layout_steps(run_dir, dd.SEED001_STRIPE_COUNT,
                                      dd.SEED001_STRIPE_SIZE)
        return layout + [Step('streams', 'streams', tuple(dd.streams_argv(
            run_dir, block_size=opts.block_size or dd.SEED001_BLOCK_SIZE,
            count=opts.count or count, cache_defeat=cache_defeat,
            drop_caches_command=opts.drop_caches_command,
            python=opts.python, mode=mode,
            repeats=opts.repeats or dd.SEED001_REPEATS)))]
    return steps


def _e11(opts, run_dir):
    # The one step of ior_mpiio_fpp_bandwidth (pfsbench.checks.ior).
    tool = binaries.for_job('ior', spack_view=opts.spack_view)
    return [Step('write+read', 'ior', tuple(ior.seed002_mpiio_fpp(
        f'{run_dir}/output', executable=tool)))]


def _seed004(experiment):
    # The one step of the seed-004 mdtest checks (pfsbench.checks.mdtest).
    def steps(opts, run_dir):
        tool = binaries.for_job('mdtest', spack_view=opts.spack_view)
        return [Step('mdtest', 'mdtest', tuple(mdtest.seed004_argv(
            experiment, f'{run_dir}/mdtest', opts.tasks, executable=tool)))]
    return steps


EXPERIMENTS = {e.id: e for e in [
    Experiment('E6', 'seed 001: dd, one stream per node, all nodes together',
               nodes=64, tasks_per_node=1,
               steps=_dd(dd.SEED001_COUNT_PER_NODE)),
    Experiment('E9', 'seed 001: dd, several streams on one node',
               nodes=1, tasks_per_node=4,
               steps=_dd(dd.SEED001_COUNT_PER_NODE)),
    Experiment('E10', 'seed 001: dd, 12 streams per node on many nodes',
               nodes=64, tasks_per_node=12,
               steps=_dd(dd.SEED001_COUNT_MULTI_STREAM)),
    Experiment('E11', 'seed 002: IOR MPI-IO file per process, 4 GiB blocks',
               nodes=3, tasks_per_node=12,
               steps=_e11, stepped=True),
    Experiment('E16', 'seed 004: mdsrate-style create/stat/unlink in one '
                      'directory, 304000 files (mdtest stands in)',
               nodes=mdtest.SEED004_CLIENTS, tasks_per_node=16,
               steps=_seed004('E16'), stepped=True),
    Experiment('E17', 'seed 004: mdtest dirs and files, -y -N 1 -p 1, '
                      '304000 items',
               nodes=mdtest.SEED004_CLIENTS, tasks_per_node=16,
               steps=_seed004('E17'), stepped=True),
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
        python=sys.executable, spack_view=extras.get('spack_view', ''),
        lustre='lustre' in part.get('features', []))


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
           repeats=None, python=None, command_line=None, site=JobSite()):
    """The sbatch script of one experiment.

    Args:
        experiment: an id of :data:`EXPERIMENTS` (``E6``...).
        target: the scratch directory the job writes under (on the cluster;
            it need not exist here, but ``/`` and homes are refused;
            default: the site's first target).
        nodes: ``#SBATCH --nodes`` (default: the experiment's).
        tasks_per_node: ``#SBATCH --ntasks-per-node`` (streams or ranks).
        time: ``#SBATCH --time``.
        sbatch_options: more ``#SBATCH`` options, e.g. ``--qos=io``.
        block_size, count: dd sizes (default: the source's).
        cache_defeat: dd's cache defeat between write and read (default:
            none in the source's mode, else the site's).
        dd_mode: ``source`` (default; seed 001's dd lines) or
            ``fdatasync`` (flushed writes), as the dd checks' ``dd_mode``.
        repeats: runs of every dd stream in the job (default: seed 001's
            3).
        drop_caches_command: the command dropping a node's page cache
            (default: the site's).
        python: interpreter with pfsbench installed, on the compute nodes
            (default: the site's).
        command_line: how this script was rendered, for its header.
        site: the system partition's :class:`JobSite` (default: none).

    Returns:
        the script text.

    Raises:
        ConfigError: unknown experiment or a refused target.
    """
    if experiment not in EXPERIMENTS:
        raise ConfigError('<command line>', 'EXPERIMENT', experiment,
                          'unknown; known: ' + ', '.join(EXPERIMENTS))

    exp = EXPERIMENTS[experiment]
    if repeats is not None and repeats < 1:
        raise ConfigError('<command line>', '--repeats', repeats,
                          'must be at least 1')
    target = target or site.target
    if not target:
        raise ConfigError('<command line>', '--target', None,
                          'required (the system has no extras.targets)'
                          if site.name else 'required')
    check_scratch_dir(target, '<command line>', '--target', must_exist=False)
    if any(c in target for c in '"`\\'):
        raise ConfigError('<command line>', '--target', target,
                          'must not contain quotes or backslashes')
    nodes = nodes or exp.nodes
    tasks_per_node = tasks_per_node or exp.tasks_per_node
    opts = SimpleNamespace(
        block_size=block_size, count=count, cache_defeat=cache_defeat,
        site_cache_defeat=site.cache_defeat, dd_mode=dd_mode,
        repeats=repeats,
        drop_caches_command=drop_caches_command or site.drop_caches_command,
        python=python or site.python, spack_view=site.spack_view,
        lustre=site.lustre, tasks=nodes * tasks_per_node)
    name = f'pfsbench-{exp.id}'
    on = f' on {site.name}' if site.name else ''
    lines = [
        '#!/bin/bash',
        f'# pfsbench {exp.id} ({exp.descr}){on}',
        f'# Rendered by: {command_line or "pfsbench render " + exp.id}',
        '# Do not edit: change the options and render again.',
        f'#SBATCH --job-name={name}',
        f'#SBATCH --ntasks={nodes * tasks_per_node}',
        f'#SBATCH --ntasks-per-node={tasks_per_node}',
        f'#SBATCH --output={name}-%j.out',
        f'#SBATCH --time={time or exp.time}',
        f'#SBATCH --nodes={nodes}',
    ]
    lines += [f'#SBATCH {opt}' for opt in site.access + tuple(sbatch_options)]
    lines += [f'module load {shlex.quote(m)}' for m in site.modules]
    lines += [f'export {k}={shlex.quote(v)}' for k, v in site.env_vars]
    # Double quotes: $USER and the like in the target expand on the cluster.
    run_dir = (f'"{target}/pfsbench-{exp.id}-'
               f'$(date +%Y%m%dT%H%M%S)-$SLURM_JOB_ID"')
    launcher = _LAUNCHERS[site.launcher](nodes * tasks_per_node)
    steps = exp.steps(opts, RUN_DIR_VAR)
    before, last = [], shell_join(steps[-1].argv)
    if exp.stepped or len(steps) > 1:
        before, last = jobsteps.script(steps, launcher)
    lines += [
        f'RUN_DIR={run_dir}',
        f'mkdir "$RUN_DIR" && echo "{exp.id} job $SLURM_JOB_ID" > '
        f'"$RUN_DIR/{rundir.MARKER}" || exit 1',
        # scancel and the time limit (SIGTERM) remove it too.
        *rundir.job_prologue(RUN_DIR_VAR),
        *before,
        f'{launcher} {last}'.strip(),
    ]
    lines += rundir.job_epilogue(RUN_DIR_VAR)
    return '\n'.join(lines) + '\n'
