# SPDX-License-Identifier: BSD-3-Clause
"""The experiments of the catalogue (docs/experiments.md), each defined
once (:class:`pfsbench.experiments.model.Experiment`), and the points of
their sweeps that ``pfsbench render`` walks."""

import itertools

from pfsbench.commands import dd, ior, lfs, mdtest
from pfsbench.core.errors import ConfigError
from pfsbench.experiments import jobs
from pfsbench.experiments.model import Experiment, Sweep


#: Seed 001's node counts (1..64, powers of two) and streams on one node.
SEED001_NODE_COUNTS = (1, 2, 4, 8, 16, 32, 64)
SEED001_STREAMS_ON_ONE_NODE = tuple(range(1, 13))
#: Seed 001's 12 streams per node (one per core) on many nodes.
SEED001_STREAMS_PER_NODE = (12,)
#: Seed 004's clients: all processes on one node, or one per client.
SEED004_CLIENT_MODES = ('single', 'multi')
#: E4's targets and E12's tracers: the site's, up to these many (a ReFrame
#: parameter space is fixed when a check loads: the checks sweep them all
#: and skip the positions a partition does not have).
MAX_TARGETS = 8
MAX_TRACERS = 4


def _targets(site):
    # Without a partition (no --system) render still writes point 0.
    return len(site.targets) or 1


def _tracers(site):
    return len(site.tracers) or 1


def _seed000(id, descr, sweeps, checks):
    """A seed-000 experiment: one node, split phases, 6 hours."""
    return Experiment(
        id, '000', 'mdtest', f'seed 000: {descr}', nodes=1, tasks_per_node=0,
        time='6h', sweeps=sweeps, checks=checks,
        steps=jobs.seed000_steps(id), stepped=True,
        layout=jobs.seed000_layout(id))


def _seed004(id, tool, descr, sweeps, checks, steps=None, **shape):
    """A seed-004 experiment: NP processes on one client or one per client
    over up to 70."""
    return Experiment(
        id, '004', tool, f'seed 004: {descr}',
        sweeps=(Sweep('clients', SEED004_CLIENT_MODES),) + sweeps,
        checks=checks,
        steps=steps, stepped=True, layout=jobs.seed004_layout, **shape)


_NODES = Sweep('nodes', SEED001_NODE_COUNTS, option='--nodes')
_ONE_NODE_STREAMS = Sweep('streams_per_node', SEED001_STREAMS_ON_ONE_NODE,
                          option='--tasks-per-node')
_TWELVE_STREAMS = Sweep('streams_per_node', SEED001_STREAMS_PER_NODE,
                        option='--tasks-per-node')
_NP_MDTEST = Sweep('np', mdtest.SEED004_MDTEST_NP)

_ALL = [
    _seed000('E1', 'mdtest -F -u create/unlink, processes = 2 x active '
                   'cores, 6..48 cores, 6 mount points',
             (Sweep('active_cores', mdtest.SEED000_ACTIVE_CORES),),
             {'mdtest_e1_core_scaling': ('active_cores',)}),
    _seed000('E2', 'mdtest -F -u create/unlink, 12 processes grouped on 1..4 '
                   'sockets, 12 mount points',
             (Sweep('sockets', mdtest.SEED000_SOCKETS),),
             {'mdtest_e2_socket_binding': ('sockets',)}),
    _seed000('E3', 'mdtest -F -u create/unlink, 24 processes on 12 cores '
                   'through 1..24 mount points',
             (Sweep('mounts', mdtest.SEED000_MOUNTS),),
             {'mdtest_e3_mount_points': ('mounts',)}),
    _seed000('E4', "E1's workload on each target of the partition, 12..48 "
                   'cores',
             (Sweep('target_index', tuple(range(MAX_TARGETS)),
                    available=_targets),
              Sweep('active_cores', mdtest.SEED000_E4_ACTIVE_CORES)),
             {'mdtest_e4_targets': ('target_index', 'active_cores')}),
    Experiment(
        'E5', '001', 'ior', 'seed 001: Lustre stripe count x stripe size, '
                            'one node (IOR; bonnie++ too)',
        nodes=1, tasks_per_node=1,
        sweeps=(Sweep('stripe_count', tuple(lfs.SEED001_STRIPE_COUNTS)),
                Sweep('stripe_size', tuple(lfs.SEED001_STRIPE_SIZES)),
                # bonnie++'s one parameter over both: COUNTxSIZE.
                Sweep('layout', tuple(
                    f'{count}x{size}' for count in lfs.SEED001_STRIPE_COUNTS
                    for size in lfs.SEED001_STRIPE_SIZES))),
        checks={'ior_lustre_stripe_bandwidth': ('stripe_count',
                                                'stripe_size'),
                'bonnie_lustre_stripe': ('layout',)}),
    Experiment(
        'E6', '001', 'dd', 'seed 001: dd, one stream per node, all nodes '
                           'together',
        nodes=64, tasks_per_node=1, sweeps=(_NODES,),
        checks={'dd_stream_per_node': ('nodes',)},
        steps=jobs.dd_steps(dd.SEED001_COUNT_PER_NODE)),
    Experiment(
        'E7', '001', 'bonnie++', "seed 001: bonnie++ (the source's bonnie -s "
                                 '2000 -v 16), one instance per node, all '
                                 'nodes together',
        nodes=64, tasks_per_node=1, sweeps=(_NODES,),
        checks={'bonnie_per_node': ('nodes',),
                'bonnie_averaged_per_node': ('nodes',)},
        steps=jobs.one_phase_streams_steps('bonnie++', jobs.bonnie_phases)),
    Experiment(
        'E8', '001', 'iozone', 'seed 001: iozone throughput mode, N '
                               'processes (-l N -u N -t N, --processes) on '
                               'one node',
        nodes=1, tasks_per_node=1,
        sweeps=(Sweep('processes', SEED001_STREAMS_ON_ONE_NODE,
                      option='--processes'),),
        checks={'iozone_one_node': ('processes',),
                'iozone_averaged_one_node': ('processes',)},
        steps=jobs.one_phase_streams_steps('iozone', jobs.iozone_phases)),
    Experiment(
        'E9', '001', 'dd', 'seed 001: dd, several streams on one node',
        nodes=1, tasks_per_node=4, sweeps=(_ONE_NODE_STREAMS,),
        checks={'dd_streams_one_node': ('streams_per_node',),
                'bonnie_streams_one_node': ('streams_per_node',)},
        steps=jobs.dd_steps(dd.SEED001_COUNT_PER_NODE)),
    Experiment(
        'E10', '001', 'dd', 'seed 001: dd, 12 streams per node on many '
                            'nodes',
        nodes=64, tasks_per_node=12, sweeps=(_NODES, _TWELVE_STREAMS),
        checks={'dd_streams_per_node': ('nodes', 'streams_per_node'),
                'bonnie_streams_per_node': ('nodes', 'streams_per_node'),
                'iozone_per_node': {'nodes': 'nodes',
                                    'processes': 'streams_per_node'},
                'iozone_cluster': ('nodes',)},
        steps=jobs.dd_steps(dd.SEED001_COUNT_MULTI_STREAM)),
    Experiment(
        'E11', '002', 'ior', 'seed 002: IOR MPI-IO file per process, 4 GiB '
                             'blocks',
        nodes=3, tasks_per_node=12,
        sweeps=(Sweep('tasks', tuple(sorted(ior.SEED002_SCALES)),
                      option='--tasks-per-node'),),
        # fs_target: a parameter only so that two targets are two cases.
        checks={'ior_mpiio_fpp_bandwidth': {'tasks': 'tasks',
                                            'fs_target': ('',)}},
        steps=jobs.e11_steps, stepped=True),
    Experiment(
        'E12', '003', 'mdtest', 'seed 003: mdtest with a metadata tracer of '
                                'the partition on, then off',
        nodes=1, tasks_per_node=0,
        sweeps=(Sweep('tracer_index', tuple(range(MAX_TRACERS)),
                      available=_tracers),
                Sweep('tasks_per_node', mdtest.E12_TASKS_PER_NODE)),
        checks={'mdtest_e12_tracing_overhead': ('tracer_index',
                                                'tasks_per_node')},
        steps=jobs.e12_steps, stepped=True, layout=jobs.tracing_layout),
    Experiment(
        'E13', '003', 'mds-survey', 'seed 003: lustre-iokit mds-survey '
                                    'thread sweep on the MDS (create, '
                                    'lookup, md_getattr, setxattr, destroy)',
        nodes=1, tasks_per_node=1, checks={'mds_survey_rates': ()},
        steps=jobs.e13_steps, stepped=True,
        environment=jobs.e13_environment, single_task=True),
    Experiment(
        'E14', '003', 'ior', 'seed 003: IOR POSIX N-to-N, 10k/100k/1m '
                             'transfers, 1..11 clients per node',
        nodes=2, tasks_per_node=0,
        sweeps=(Sweep('transfer_size', ior.SEED003_TRANSFER_SIZES),
                Sweep('tasks_per_node', ior.SEED003_CLIENTS_PER_NODE)),
        checks={'ior_posix_n_to_n_bandwidth': ('transfer_size',
                                               'tasks_per_node')}),
    _seed004('E15', 'mdtest', 'metabench-style file create/stat/delete, '
                              'same vs different directories (mdtest '
                              'stands in)',
             (Sweep('np', mdtest.SEED004_METABENCH_NP),
              Sweep('directory', ('same', 'different'))),
             {'mdtest_e15_metabench_standin': ('clients', 'np', 'directory')},
             steps=jobs.seed004_steps('E15'), nodes=1, tasks_per_node=0),
    # Seed 004 ran mdsrate: its tool.  The real one runs where a partition
    # declares it (mdsrate_e16, extras.mdsrate: a site's own build, in no
    # Spack package); mdtest stands in everywhere else.  Render writes the
    # job the partition runs: mdsrate's where declared, else the
    # stand-in's.
    _seed004('E16', 'mdsrate', 'mdsrate create/stat/unlink in one '
                               'directory, 304000 files (mdtest stands in '
                               'without extras.mdsrate)',
             (_NP_MDTEST,),
             {'mdsrate_e16': ('clients', 'np'),
              'mdtest_e16_mdsrate_standin': ('clients', 'np')},
             steps=jobs.e16_steps, nodes=mdtest.SEED004_CLIENTS,
             tasks_per_node=16),
    _seed004('E17', 'mdtest', 'mdtest dirs and files, -y -N 1 -p 1, '
                              '304000 items',
             (_NP_MDTEST,),
             {'mdtest_e17_stride_sync': ('clients', 'np')},
             steps=jobs.seed004_steps('E17'), nodes=mdtest.SEED004_CLIENTS,
             tasks_per_node=16),
    Experiment(
        'E18', '004', '', 'seed 004: the same suite before and after a '
                          'file-system upgrade (pfsbench gate compares two '
                          'stored result sets)',
        nodes=0, tasks_per_node=0),
    Experiment(
        'E19', '001', 'iozone', 'seed 001: iozone, one instance per node on '
                                '1..64 nodes, all together',
        nodes=64, tasks_per_node=1, sweeps=(_NODES,),
        checks={'iozone_single_per_node': ('nodes',)}),
]

#: Every experiment by id, in the catalogue's order.
EXPERIMENTS = {e.id: e for e in sorted(_ALL, key=lambda e: int(e.id[1:]))}
globals().update(EXPERIMENTS)      # E1 .. E19 by name

#: The experiments ``pfsbench render`` writes a job for.
RENDERED = {k: e for k, e in EXPERIMENTS.items() if e.steps}


def get(experiment, known=RENDERED):
    """The :class:`Experiment` ``experiment`` of ``known``, or a
    ConfigError naming the ones there are."""
    if experiment not in known:
        raise ConfigError('<command line>', 'EXPERIMENT', experiment,
                          'unknown; known: ' + ', '.join(known))
    return known[experiment]


def sweep_values(exp, site):
    """``[(name, values), ...]`` of the points render walks of ``exp`` on
    a partition (E4's targets and E12's tracers: the partition's)."""
    return [(s.name, s.values[:s.available(site)] if s.available
             else s.values) for s in exp.points_sweeps()]


def points(experiment, chosen, site):
    """The points of an experiment's sweep that agree with ``chosen``.

    Args:
        experiment: an id of :data:`RENDERED`.
        chosen: ``{name: value}`` (values compared as text); names not
            given take every value.
        site: the partition (:class:`pfsbench.render.JobSite`; its targets
            and tracers bound E4's and E12's values).

    Returns:
        ``[{name: value}, ...]`` in the order of the sweep's product (one
        empty point for an experiment without a sweep).

    Raises:
        ConfigError: an unknown experiment, a name the experiment does
            not sweep, or a value outside the sweep.
    """
    exp = get(experiment)
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
