# SPDX-License-Identifier: BSD-3-Clause
"""``example_lustre``: a commented example of a production cluster.

Copy this file to ``config/systems/<your site>.py`` and edit it; see
docs/systems.md.  It models a Slurm cluster whose compute nodes mount a
Lustre scratch file system, as in seed 001 (Endeavour, 64 clients) — the
values below are illustrative, not a real site.  Link your site's own
documentation here, e.g. the scratch policy page.
"""

from pfsbench.commands import tracers
from pfsbench.load.attribution import lustre_job_stats_command

site_configuration = {
    'systems': [
        {
            'name': 'example_lustre',
            'descr': 'Example production cluster with Lustre scratch',
            # Login nodes; ReFrame picks the system by host name.
            'hostnames': [r'^login\d+\.example\.org$'],
            'modules_system': 'nomod',
            'partitions': [
                {
                    'name': 'compute',
                    'descr': 'Compute nodes, exclusive, Lustre clients',
                    'scheduler': 'slurm',
                    'launcher': 'srun',
                    'access': [
                        '--constraint=lustre',   # nodes with the Lustre mount
                        '--qos=io-bench',        # benchmarking QOS
                        '--exclusive',           # nobody else on the nodes
                    ],
                    'environs': ['builtin'],
                    # '#SBATCH --nodes=N' as well as --ntasks: the node
                    # count is what the experiments sweep.
                    'sched_options': {'use_nodes_option': True},
                    # One case at a time (pfsbench's default for a
                    # partition whose targets are shared): the cases would
                    # otherwise measure each other on the one scratch.
                    'max_jobs': 1,
                    'features': ['pfs', 'mpi', 'lustre', 'drop_caches'],
                    'env_vars': [['SLURM_MPI_TYPE', 'pmix']],
                    'extras': {
                        'targets': [
                            {
                                'name': 'scratch',
                                'path': '/lustre/scratch/$USER/pfsbench',
                                'fstype': 'lustre',
                                'descr': 'Lustre scratch, 1 MiB stripes',
                            },
                        ],
                        # A root-owned helper allowed through sudoers:
                        # 'sync; echo 3 > /proc/sys/vm/drop_caches'.
                        'drop_caches_command':
                            'sudo -n /usr/local/sbin/drop-caches',
                        'max_nodes': 64,
                        # Who else is on the file system: every MDT's and
                        # OST's job_stats (the clients set jobid_var=
                        # SLURM_JOB_ID), read through pdsh from the login
                        # node; the case's own job is told from the others
                        # (docs/test-filesystem.md).
                        'fs_job_stats_command': lustre_job_stats_command(
                            mds='mds[1-2]', oss='oss[1-8]'),
                        # E12 (seed 003): ftrace on the seed's metadata
                        # calls (the Lustre client's ll_* functions) and
                        # the Lustre debug log with no mask, each on the
                        # job's first node, as root through sudo (a
                        # sudoers rule for the benchmark account).
                        'tracers': [
                            tracers.ftrace_functions(run_as='sudo -n'),
                            tracers.lustre_debug(run_as='sudo -n'),
                        ],
                    },
                },
            ],
        },
    ],
}
