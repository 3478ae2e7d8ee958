# SPDX-License-Identifier: BSD-3-Clause
"""Job scripts for running an experiment without ReFrame (``pfsbench
render``).

The tool command lines come from :mod:`pfsbench.commands`, exactly as in the
ReFrame checks; a rendered script adds only ``#SBATCH`` lines, the run
directory it owns, and the same epilogue the checks use (exit status,
removal of the run directory).  Never edit a rendered script: render again.
"""

import dataclasses
from types import SimpleNamespace

from pfsbench import rundir
from pfsbench.commands import dd, ior, mdtest, shell_join
from pfsbench.errors import ConfigError
from pfsbench.siteconfig import check_scratch_dir

RUN_DIR_VAR = '$RUN_DIR'


@dataclasses.dataclass(frozen=True)
class Experiment:
    """An experiment as a job: its source, default shape and command."""

    id: str
    descr: str
    nodes: int
    tasks_per_node: int
    #: (options, run_dir) -> argv of one task.
    argv: object
    time: str = '02:00:00'


def _dd(count):
    def argv(opts, run_dir):
        return dd.streams_argv(
            run_dir, block_size=opts.block_size or dd.SEED001_BLOCK_SIZE,
            count=opts.count or count, cache_defeat=opts.cache_defeat,
            drop_caches_command=opts.drop_caches_command,
            python=opts.python)
    return argv


EXPERIMENTS = {e.id: e for e in [
    Experiment('E6', 'seed 001: dd, one stream per node, all nodes together',
               nodes=64, tasks_per_node=1,
               argv=_dd(dd.SEED001_COUNT_PER_NODE)),
    Experiment('E9', 'seed 001: dd, several streams on one node',
               nodes=1, tasks_per_node=4,
               argv=_dd(dd.SEED001_COUNT_PER_NODE)),
    Experiment('E10', 'seed 001: dd, 12 streams per node on many nodes',
               nodes=64, tasks_per_node=12,
               argv=_dd(dd.SEED001_COUNT_MULTI_STREAM)),
    Experiment('E11', 'seed 002: IOR MPI-IO file per process, 4 GiB blocks',
               nodes=3, tasks_per_node=12,
               argv=lambda opts, run_dir: ior.seed002_mpiio_fpp(
                   f'{run_dir}/output')),
    Experiment('E16', 'seed 004: mdsrate-style create/stat/unlink in one '
                      'directory, 304000 files (mdtest stands in)',
               nodes=mdtest.SEED004_CLIENTS, tasks_per_node=16,
               argv=lambda opts, run_dir: mdtest.seed004_argv(
                   'E16', f'{run_dir}/mdtest', opts.tasks)),
    Experiment('E17', 'seed 004: mdtest dirs and files, -y -N 1 -p 1, '
                      '304000 items',
               nodes=mdtest.SEED004_CLIENTS, tasks_per_node=16,
               argv=lambda opts, run_dir: mdtest.seed004_argv(
                   'E17', f'{run_dir}/mdtest', opts.tasks)),
]}


def render(experiment, target, nodes=None, tasks_per_node=None,
           time=None, sbatch_options=(), block_size=None, count=None,
           cache_defeat='drop_caches', drop_caches_command=None,
           python='python3', command_line=None):
    """The sbatch script of one experiment.

    Args:
        experiment: an id of :data:`EXPERIMENTS` (``E6``...).
        target: the scratch directory the job writes under (on the cluster;
            it need not exist here, but ``/`` and homes are refused).
        nodes: ``#SBATCH --nodes`` (default: the experiment's).
        tasks_per_node: ``#SBATCH --ntasks-per-node`` (streams or ranks).
        time: ``#SBATCH --time``.
        sbatch_options: more ``#SBATCH`` options, e.g. ``--qos=io``.
        block_size, count: dd sizes (default: the source's).
        cache_defeat: dd's cache defeat between write and read.
        drop_caches_command: the command dropping a node's page cache.
        python: interpreter with pfsbench installed, on the compute nodes.
        command_line: how this script was rendered, for its header.

    Returns:
        the script text.

    Raises:
        ConfigError: unknown experiment or a refused target.
    """
    if experiment not in EXPERIMENTS:
        raise ConfigError('<command line>', 'EXPERIMENT', experiment,
                          'unknown; known: ' + ', '.join(EXPERIMENTS))

    exp = EXPERIMENTS[experiment]
    check_scratch_dir(target, '<command line>', '--target', must_exist=False)
    if any(c in target for c in '"`\\'):
        raise ConfigError('<command line>', '--target', target,
                          'must not contain quotes or backslashes')
    nodes = nodes or exp.nodes
    tasks_per_node = tasks_per_node or exp.tasks_per_node
    opts = SimpleNamespace(block_size=block_size, count=count,
                           cache_defeat=cache_defeat,
                           drop_caches_command=drop_caches_command,
                           python=python, tasks=nodes * tasks_per_node)
    name = f'pfsbench-{exp.id}'
    lines = [
        '#!/bin/bash',
        f'# pfsbench {exp.id} ({exp.descr})',
        f'# Rendered by: {command_line or "pfsbench render " + exp.id}',
        '# Do not edit: change the options and render again.',
        f'#SBATCH --job-name={name}',
        f'#SBATCH --nodes={nodes}',
        f'#SBATCH --ntasks-per-node={tasks_per_node}',
        f'#SBATCH --time={time or exp.time}',
        f'#SBATCH --output={name}-%j.out',
    ]
    lines += [f'#SBATCH {opt}' for opt in sbatch_options]
    # Double quotes: $USER and the like in the target expand on the cluster.
    run_dir = (f'"{target}/pfsbench-{exp.id}-'
               f'$(date +%Y%m%dT%H%M%S)-$SLURM_JOB_ID"')
    lines += [
        f'RUN_DIR={run_dir}',
        f'mkdir "$RUN_DIR" && echo "{exp.id} job $SLURM_JOB_ID" > '
        f'"$RUN_DIR/{rundir.MARKER}" || exit 1',
        'srun ' + shell_join(exp.argv(opts, RUN_DIR_VAR)),
    ]
    lines += rundir.job_epilogue(RUN_DIR_VAR)
    return '\n'.join(lines) + '\n'
