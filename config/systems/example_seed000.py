# SPDX-License-Identifier: BSD-3-Clause
"""``example_seed000``: the 4-socket metadata server of seed 000 (E1-E4).

One Supermicro H8QG6 server: 4 x AMD Opteron 6168 (12 cores each, 1.9 GHz,
no SMT; 8 NUMA nodes), 128 GB DDR3, an SSD MDT and OST, CentOS 6.4 with
Lustre 2.4.  The source ran mdtest on the server itself, through up to 24
Lustre mount points, and compared ext4 and XFS on the same SSD and a
RAM-disk MDT.  Modelled as a one-node Slurm partition so that
``--dry-run --system example_seed000`` renders the source's command lines,
bindings and ``-d`` lists.  Nothing here is a real site; copy it as a
model.  Its host name cannot match a real machine: select it explicitly.
"""

#: The source mounted each file system up to 24 times on the server (E3:
#: Lustre, ext4 and XFS through 1..24 mount points).
MOUNTS = 24
#: The site's remount script, allowed to the benchmark user by a sudo rule
#: (docs/systems.md): it unmounts every mount of the named file system and
#: mounts them again (the source: "Unmount the file system and flush
#: kernel caches after each operation").
REMOUNT = 'sudo -n /usr/local/sbin/pfs-remount'
#: The MDT's block device of each Lustre target, as the server's
#: /proc/diskstats names it (the source collected "block device
#: utilization"): the server is the client here, so the site's command
#: reads its own /proc/diskstats (on a cluster: ssh mds1 grep ...).
#: ext4 and XFS are on the client's own SSD: read from the target's
#: directory, no command needed.
MDT_DEVICE = {'lustre': 'sdb', 'lustre_ramdisk': 'ram0'}


def _target(name, fstype, descr):
    # The target's directory through mount 1; mounts 2..24 are the same
    # directory through the other mounts of the file system.
    target = {
        'name': name,
        'path': f'/mnt/{name}_1/pfsbench',
        'fstype': fstype,
        'descr': descr,
        'mount_points': [f'/mnt/{name}_{i}/pfsbench'
                         for i in range(2, MOUNTS + 1)],
        'remount': f'{REMOUNT} {name}',
    }
    if name in MDT_DEVICE:
        target['device_stats_command'] = \
            f'grep -w {MDT_DEVICE[name]} /proc/diskstats'
    return target


site_configuration = {
    'systems': [
        {
            'name': 'example_seed000',
            'descr': 'Seed 000: 4-socket, 48-core Lustre 2.4 MDS (PDSW14)',
            'hostnames': [r'^example-seed000-is-selected-explicitly$'],
            'modules_system': 'nomod',
            'partitions': [
                {
                    'name': 'mds',
                    'descr': 'the metadata server, mdtest run on it',
                    'scheduler': 'slurm',
                    'launcher': 'srun',
                    'access': ['--partition=mds', '--exclusive'],
                    'environs': ['builtin'],
                    'sched_options': {'use_nodes_option': True},
                    'max_jobs': 1,
                    'processor': {
                        'num_cpus': 48,
                        'num_cpus_per_core': 1,
                        'num_sockets': 4,
                        'num_cpus_per_socket': 12,
                    },
                    'features': ['pfs', 'mpi', 'lustre', 'lustre_mds',
                                 'drop_caches'],
                    'env_vars': [['SLURM_MPI_TYPE', 'pmi2']],
                    'extras': {
                        'max_nodes': 1,
                        'targets': [
                            _target('lustre', 'lustre',
                                    'Lustre 2.4 (SSD MDT)'),
                            _target('lustre_ramdisk', 'lustre',
                                    'Lustre 2.4 (RAM disk MDT)'),
                            _target('ext4', 'ext4', 'ext4 on the SSD'),
                            _target('xfs', 'xfs', 'XFS on the SSD'),
                        ],
                        'spack_view': '/opt/pfsbench/view',
                        # The drop_caches feature needs a command a
                        # non-root job can run: a root-owned helper allowed
                        # through sudoers ('sync; echo 3 >
                        # /proc/sys/vm/drop_caches'), as example_lustre.
                        'drop_caches_command':
                            'sudo -n /usr/local/sbin/drop-caches',
                    },
                },
            ],
        },
    ],
}
