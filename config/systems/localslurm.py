# SPDX-License-Identifier: BSD-3-Clause
"""``localslurm``: the multi-node Slurm test cluster on this host.

Started by ``tests/localslurm/localslurm.sh up`` (4 nodes ``n1``-``n4``, each
a ``slurmd`` in its own UTS namespace).  Select it with
``--system localslurm``; it is never auto-detected.  Its ``slurm.conf`` is
not the system's: when this system is selected and ``SLURM_CONF`` is unset,
it is pointed at the test cluster's, so no job reaches a real Slurm.

ReFrame's ``squeue`` scheduler is used because the test cluster has no
accounting (``sacct``).  Open MPI works under ``srun`` only with PMIx
(``SLURM_MPI_TYPE=pmix``); the ``mpirun`` partition launches with Open MPI's
own ``mpirun`` inside the allocation.
"""

import os
import sys

from pfsbench.commands import tracers
from pfsbench.site.config import environment_extras

STATE_DIR = os.environ.get('PFSBENCH_SLURM_DIR',
                           '/var/tmp/pfsbench-localslurm')
#: tests/mfs/mfs.sh: a MooseFS (one master, three chunkservers) whose
#: clients are mounted on this host, hence on every emulated node.
MFS_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          '..', '..', 'tests', 'mfs', 'mfs.sh')
MFS_MOUNTS = os.path.join(os.environ.get('PFSBENCH_MFS_DIR',
                                         '/var/tmp/pfsbench-mfs'), 'mnt')


def _selected():
    argv = ' '.join(sys.argv)
    return ('--system localslurm' in argv or '--system=localslurm' in argv or
            os.environ.get('RFM_SYSTEM', '').startswith('localslurm'))


def _mfs_selected():
    # The mfs partition exists only when named: '--system localslurm' runs
    # srun and mpirun, as before, whether or not a MooseFS is up.
    argv = ' '.join(sys.argv)
    return ('localslurm:mfs' in argv or
            os.environ.get('RFM_SYSTEM', '') == 'localslurm:mfs')


if _selected():
    os.environ.setdefault('SLURM_CONF', os.path.join(STATE_DIR, 'slurm.conf'))

_env_vars = [
    ['SLURM_MPI_TYPE', 'pmix'],                 # Open MPI needs PMIx
    ['OMPI_MCA_mpi_yield_when_idle', '1'],      # more ranks than cores
    ['PMIX_MCA_gds', 'hash'],                   # shm gds crashes here
    ['OMPI_ALLOW_RUN_AS_ROOT', '1'],            # CI runs as root
    ['OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1'],
]
# As on `local`: the checks write into their stage directory unless
# PFSBENCH_SCRATCH names a directory to benchmark (every emulated node sees
# this host's file systems), and PFSBENCH_SPACK_ENV selects a Spack build.
_extras = {
    'max_nodes': 4,
    'max_bytes_per_stream': 128 * 2**20,
    # mdtest: the sources' 304000 to 3M files are for clusters.
    'mdtest_max_items': 20000,
    **environment_extras(),
}

# A node target (docs/targets.md): PFSBENCH_NODE_SCRATCH holds one
# directory per emulated node, n1..n4, each standing for that node's own
# disk.  The emulated nodes share this host's file systems, so the path
# names the node: $SLURMD_NODENAME, which each node expands itself.
if os.environ.get('PFSBENCH_NODE_SCRATCH'):
    _extras['targets'] = _extras.get('targets', []) + [{
        'name': 'node',
        'scope': 'node',
        'path': os.path.join(os.environ['PFSBENCH_NODE_SCRATCH'],
                             '$SLURMD_NODENAME'),
        'descr': 'PFSBENCH_NODE_SCRATCH/<node>: one directory per node',
    }]


def _tracefs():
    with open('/proc/filesystems') as fp:
        return any(line.split()[-1:] == ['tracefs'] for line in fp)


# E12 (seed 003): ftrace on the seed's metadata calls, as root where the
# kernel has tracefs.  Syscall events, not the function tracer: this
# host's kernel refuses function tracing (set_ftrace_filter: "Operation
# not permitted"), its syscall events record every call, a real overhead.
if os.geteuid() == 0 and _tracefs():
    _extras['tracers'] = [tracers.ftrace_syscalls()]

# Dropping the page cache needs root; CI is root, a developer may not be.
_features = ['pfs', 'mpi'] + (['drop_caches'] if os.geteuid() == 0 else [])


def _partition(launcher, descr):
    # The two partitions differ only in how a job step starts its tasks.
    return {
        'name': launcher,
        'descr': descr,
        'scheduler': 'squeue',
        'launcher': launcher,
        'access': ['--partition=debug'],
        'environs': ['builtin'],
        # '#SBATCH --nodes=N' as well as --ntasks: the node count is what
        # the experiments sweep.
        'sched_options': {'use_nodes_option': True},
        # One case at a time: every emulated node writes to this host's
        # one disk (pfsbench.site.exclusive).
        'max_jobs': 1,
        'features': _features,
        'env_vars': _env_vars,
        'extras': dict(_extras),
    }


def _mfs_partition():
    """The MooseFS of tests/mfs/mfs.sh: its first mount is the target, the
    other three mounts of the same file system are E3's mount points, and
    its servers answer the hooks (docs/test-filesystem.md)."""
    part = _partition('srun', 'MooseFS (tests/mfs): 4 emulated nodes, '
                      'srun --mpi=pmix')
    mfs = f'bash {os.path.normpath(MFS_SCRIPT)}'
    part['name'] = 'mfs'
    part['features'] = _features + ['distributed_fs']
    part['extras'].update({
        'targets': [{
            'name': 'mfs',
            'path': os.path.join(MFS_MOUNTS, 'm1', 'scratch'),
            # The mount table says 'fuse'; the figures say which FUSE.
            'fstype': 'moosefs',
            'descr': 'MooseFS 3.0 through FUSE, 1 copy, trash time 0',
            'mount_points': [os.path.join(MFS_MOUNTS, f'm{i}', 'scratch')
                             for i in (2, 3, 4)],
        }],
        'fs_counters_command': f'{mfs} counters',
        # Per mount session: the case's own mount (m1) told from m2..m4
        # (pfsbench.load.attribution); judges instead of the counters.
        'fs_clients_command': f'{mfs} clients',
        'server_provenance_command': f'{mfs} provenance',
        'server_cpu_command': f'{mfs} master-cpu',
        # bonnie++'s per-char tests, one write(2) per byte, are a FUSE
        # round trip per byte here: its 3 MiB took 7 minutes (measured).
        'bonnie_char_io_mib': 0,
    })
    return part


site_configuration = {
    'systems': [
        {
            'name': 'localslurm',
            'descr': 'Slurm test cluster on localhost (tests/localslurm)',
            'hostnames': ['^pfsbench-localslurm-is-selected-explicitly$'],
            'modules_system': 'nomod',
            'partitions': [
                _partition('srun', '4 emulated nodes, srun --mpi=pmix'),
                _partition('mpirun', '4 emulated nodes, Open MPI mpirun'),
            ] + ([_mfs_partition()] if _mfs_selected() else []),
        },
    ],
}
