# SPDX-License-Identifier: BSD-3-Clause
"""``example_seed001``: the Endeavour cluster of seed 001 (E5-E10) at
Intel's CRT-DC, 64 clients and the four file systems the source compared.

Clients: Intel SR1600UR, 2 x Xeon X5670 (Westmere, 6 cores each, SMT off:
12 cores), 24 GB, QDR InfiniBand, RHEL 5.3 kernel, Lustre 1.6.4.3 client.
The source started every test from a head node on up to 64 clients at
once; here the same clients are a Slurm partition per file system, so that
``--dry-run --system example_seed001:<fs>`` renders the source's command
lines and Lustre layout at its scale.  Its published figures are the
references (config/references/example_seed001.yaml).  Nothing here is a
real site; its host name cannot match a real machine.

The file systems, one partition each (the same 64 clients):

- ``lfs3``: Lustre 1.6.5.1 on 8 OSS, 16 LUNs of 2 DDN S2A 9900 (SAS),
  35 TB; the source's layout: stripe size 1 MB, count 4;
- ``lfs4``: Lustre 1.6.5.1 on 8 OSS (Intel SSR212MC2BR), 32 OSTs of 3 SAS
  disks (mdadm RAID0), 26 TB; count 12 (``lustre_stripe_count``);
- ``lfs5``: Lustre 1.8.1.1 on 8 OSS (Supermicro), 32 OSTs of 4 Intel
  SSDs, 3 TB; count 4;
- ``panfs``: Panasas ActiveScale 3.5.1a, 7 shelves, 56 TB, reached over
  GigE (about 120 MB/s per client); no layout to set (no ``lustre``
  feature).
"""

_CLIENT = {
    'num_cpus': 12,
    'num_cpus_per_core': 1,
    'num_sockets': 2,
    'num_cpus_per_socket': 6,
}


def _partition(name, descr, target_descr, fstype='lustre', features=(),
               extras=None):
    # The four partitions are the same 64 clients; only the file system
    # (and its layout) differs.
    return {
        'name': name,
        'descr': descr,
        'scheduler': 'slurm',
        'launcher': 'srun',
        'access': ['--partition=clients', '--exclusive'],
        'environs': ['builtin'],
        # '#SBATCH --nodes=N': the experiments sweep the node count.
        'sched_options': {'use_nodes_option': True},
        'max_jobs': 1,
        'processor': _CLIENT,
        'features': ['pfs', 'mpi', *features],
        # MVAPICH2 over OFED, started by srun (E5's IOR variant).
        'env_vars': [['SLURM_MPI_TYPE', 'pmi2']],
        'extras': {
            'targets': [{'name': name, 'path': f'/{name}/pfsbench',
                         'fstype': fstype, 'descr': target_descr}],
            'max_nodes': 64,
            'spack_view': '/opt/pfsbench/view',
            # The source started its tests on every client from a head
            # node; iozone's cluster mode (iozone_cluster) does the same.
            'iozone_rsh': 'ssh',
            **(extras or {}),
        },
    }


site_configuration = {
    'systems': [
        {
            'name': 'example_seed001',
            'descr': 'Seed 001: Endeavour, 64 clients x 12 cores, '
                     'lfs3/lfs4/lfs5/panfs',
            'hostnames': [r'^example-seed001-is-selected-explicitly$'],
            'modules_system': 'nomod',
            'partitions': [
                _partition('lfs3', '64 clients on lfs3 (DDN Lustre, QDR IB)',
                           'Lustre 1.6, 16 OSTs on 2 DDN S2A 9900, 35 TB',
                           features=['lustre']),
                _partition('lfs4', '64 clients on lfs4 (homegrown Lustre, '
                                   'QDR IB)',
                           'Lustre 1.6, 32 OSTs of 3 SAS disks, 26 TB',
                           features=['lustre'],
                           # The source's best count on lfs4 (E5).
                           extras={'lustre_stripe_count': 12}),
                _partition('lfs5', '64 clients on lfs5 (SSD Lustre, QDR IB)',
                           'Lustre 1.8, 32 OSTs of 4 Intel SSDs, 3 TB',
                           features=['lustre']),
                _partition('panfs', '64 clients on Panasas (GigE)',
                           'Panasas ActiveScale 3.5, 7 shelves, 56 TB',
                           fstype='panfs'),
            ],
        },
    ],
}
