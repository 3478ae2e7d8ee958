# SPDX-License-Identifier: BSD-3-Clause
"""``example_seed004``: the Lustre 1.6/1.8/2.0 test cluster of seed 004
(E15-E17).

70 client blades (4 x quad-core AMD Opteron 8380: 16 cores, 16 GB) on DDR
InfiniBand in front of one MDS (Sun Fire X4540, 2 x quad-core Opteron
2356, MDT a RAID0 of 20 RAID1 pairs) and 4 OSS; RHEL 5.  The source ran
metabench, mdsrate and mdtest on 1 and on 70 clients.  Modelled as a Slurm
partition so that ``--dry-run --system example_seed004`` renders the
source's layouts and item counts.  One target, the Lustre 2.0 mount: the
source upgraded one file system in place (1.6.7.1 -> 1.8.0 -> 2.0), the
same path each time, so each version is a run of the same target (E18:
the gate compares the runs), not a target of its own.  A client has 16
CPUs: NP 32 and 64 on one client ask for ``--overcommit``.  Nothing here
is a real site; its host name cannot match a real machine.
"""

site_configuration = {
    'systems': [
        {
            'name': 'example_seed004',
            'descr': 'Seed 004: 70 Lustre clients x 16 cores, one MDS',
            'hostnames': [r'^example-seed004-is-selected-explicitly$'],
            'modules_system': 'nomod',
            'partitions': [
                {
                    'name': 'clients',
                    'descr': '70 Pegasus+ blades, DDR InfiniBand',
                    'scheduler': 'slurm',
                    'launcher': 'srun',
                    'access': ['--partition=clients', '--exclusive'],
                    'environs': ['builtin'],
                    'sched_options': {'use_nodes_option': True},
                    'max_jobs': 1,
                    'processor': {
                        'num_cpus': 16,
                        'num_cpus_per_core': 1,
                        'num_sockets': 4,
                        'num_cpus_per_socket': 4,
                    },
                    'features': ['pfs', 'mpi', 'lustre'],
                    'env_vars': [['SLURM_MPI_TYPE', 'pmi2']],
                    'extras': {
                        'max_nodes': 70,
                        'targets': [
                            {'name': 'lustre', 'path': '/mnt/lustre/pfsbench',
                             'fstype': 'lustre',
                             'descr': 'Lustre 2.0 (1.9.170), one MDT'},
                        ],
                        'spack_view': '/opt/pfsbench/view',
                        # The lustre-tests package's mdsrate (E16 runs the
                        # real tool where a partition declares one).
                        'mdsrate': '/usr/lib64/lustre/tests/mpi/mdsrate',
                    },
                },
            ],
        },
    ],
}
