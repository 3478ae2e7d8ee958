# SPDX-License-Identifier: BSD-3-Clause
"""``example_seed002``: the GlusterFS test cluster of seed 002 (E11).

Three client nodes (2 x Xeon X5675: 12 cores, 24 hardware threads, 72 GB
memory, Mellanox QDR InfiniBand and Intel 82574L GigE, CentOS 5.5) in front
of three Gluster 3.2.4 servers (XFS on 24 x 3 TB RAID6 each).  The source
ran IOR 2.10.2 by hand with ``mpiexec -launcher rsh``; here the same nodes
are modelled as a Slurm cluster, so that ``--dry-run --system
example_seed002`` renders the source's command line at its scale.  Its
published figures are the references (config/references/
example_seed002.yaml).  Nothing here is a real site; copy it as a model.

Configurations the source compared, and where each one lives here:

- interconnect: partition ``ib`` (MVAPICH2 over QDR) vs ``gige`` (MPICH2
  over Ethernet);
- volume type: target ``striped`` vs ``distributed``;
- server memory: ``striped_2gb``, ``distributed_2gb`` (the same volumes with
  2 GB of server memory);
- server count: ``striped_2servers`` (a striped volume on 2 servers).
"""

_CLIENT = {
    'num_cpus': 24,
    'num_cpus_per_core': 2,
    'num_sockets': 2,
    'num_cpus_per_socket': 12,
}


def _target(name, path, descr):
    return {'name': name, 'path': path, 'fstype': 'fuse.glusterfs',
            'descr': descr}


_STRIPED = _target('striped', '/gluster/pfsbench',
                   'striped volume, 3 servers, 72 GB')


def _partition(name, descr, targets):
    # The source ran the same 3 clients over two interconnects; both
    # partitions are otherwise the same.
    return {
        'name': name,
        'descr': descr,
        'scheduler': 'slurm',
        'launcher': 'srun',
        'access': [f'--partition={name}', '--exclusive'],
        'environs': ['builtin'],
        # '#SBATCH --nodes=N': the source fixed 3 nodes.
        'sched_options': {'use_nodes_option': True},
        'max_jobs': 1,
        'processor': _CLIENT,
        'features': ['pfs', 'mpi', 'gluster'],
        # MVAPICH2 and MPICH2 start under srun only with PMI2.
        'env_vars': [['SLURM_MPI_TYPE', 'pmi2']],
        'extras': {
            'targets': targets,
            'max_nodes': 3,
            'spack_view': f'/home/work/pfsbench/view/{name}',
        },
    }


site_configuration = {
    'systems': [
        {
            'name': 'example_seed002',
            'descr': 'Seed 002: 3 Gluster 3.2 clients, QDR IB and GigE',
            # The source's head node was gluster5; a real host of that
            # name must not pick this example: selected explicitly only.
            'hostnames': [r'^example-seed002-is-selected-explicitly$'],
            'modules_system': 'nomod',
            'partitions': [
                _partition('ib', '3 clients, MVAPICH2 over QDR InfiniBand', [
                    _STRIPED,
                    _target('distributed', '/gluster-dist/pfsbench',
                            'distributed volume, 3 servers, 72 GB'),
                    _target('striped_2gb', '/gluster-2gb/pfsbench',
                            'striped volume, servers with 2 GB'),
                    _target('distributed_2gb', '/gluster-dist-2gb/pfsbench',
                            'distributed volume, servers with 2 GB'),
                    _target('striped_2servers', '/gluster-2srv/pfsbench',
                            'striped volume on 2 servers, 72 GB'),
                ]),
                _partition('gige', '3 clients, MPICH2 over Gigabit Ethernet',
                           [_STRIPED]),
            ],
        },
    ],
}
