# SPDX-License-Identifier: BSD-3-Clause
"""A site as issue 36 tried it: a partition with the ``lustre`` feature
and three targets (Lustre flash, Lustre disk, node-local NVMe with XFS):
features are the partition's, file systems the targets'."""

import shutil

from conftest import REPO, job_script, run_reframe

SITE = '''
site_configuration = {{'systems': [{{
    'name': 'three', 'hostnames': ['^three-login$'], 'modules_system': 'nomod',
    'partitions': [{{
        'name': 'compute', 'scheduler': 'slurm', 'launcher': 'srun',
        'access': ['--partition=compute'], 'environs': ['builtin'],
        'features': ['pfs', 'mpi', 'lustre'],
        'sched_options': {{'use_nodes_option': True}},
        'extras': {{'max_nodes': 256, 'driver_partition': 'service',
                    'targets': {targets!r}}},
    }}, {{
        'name': 'service', 'scheduler': 'slurm', 'launcher': 'srun',
        'access': ['--partition=service'], 'environs': ['builtin'],
        'time_limit': '1d',
    }}],
}}]}}
'''

TARGETS = [
    {'name': 'flash', 'path': '/lustre/flash/pfsbench', 'fstype': 'lustre'},
    {'name': 'disk', 'path': '/lustre/disk/pfsbench', 'fstype': 'lustre'},
    {'name': 'nvme', 'path': '/local/nvme/pfsbench', 'fstype': 'xfs',
     'scope': 'node'},
]


def three_target_config(tmp_path, targets=TARGETS):
    config = tmp_path / 'config'
    shutil.copytree(REPO / 'config', config)
    (config / 'systems' / 'three.py').write_text(SITE.format(
        targets=targets))
    return config


def test_a_node_local_xfs_target_gets_no_lfs(tmp_path):
    # Issue 36: the lustre feature made dd on the NVMe target run 'lfs
    # setstripe' there, which would fail every night.
    config = three_target_config(tmp_path)
    scripts = {}
    for target in ('nvme', 'disk'):
        runs = tmp_path / target
        proc = run_reframe(['--system', 'three:compute', '-c',
                            'reframe-checks/dd', '-n', 'dd_stream_per_node',
                            '-P', 'nodes=1', '-S', f'target={target}',
                            '--dry-run'], runs,
                           env={'PFSBENCH_SYSTEMS': 'three'},
                           config=config / 'settings.py')
        assert proc.returncode == 0, proc.stdout
        scripts[target] = job_script(runs, 'three', 'compute',
                                     'dd_stream_per_node')
    assert 'lfs' not in scripts['nvme']
    assert 'lfs setstripe' in scripts['disk']
