# SPDX-License-Identifier: BSD-3-Clause
"""A site as issue 36 tried it: a partition with the ``lustre`` feature
and three targets (Lustre flash, Lustre disk, node-local NVMe with XFS):
features are the partition's, file systems the targets'."""

import shutil

import pytest

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


def test_a_target_under_an_unset_variable_is_refused_not_made_relative(
        tmp_path):
    # Issue 36: '$PROJ_SCRATCH/pfsbench' with the variable unset made the
    # dry-run job write under '<clone>/$PROJ_SCRATCH/...', and the warning
    # suggested setting USER.
    config = three_target_config(tmp_path, [
        {'name': 'proj', 'path': '$PFSBENCH_TEST_UNSET_PROJ/pfsbench'},
        {'name': 'mid', 'path': '/lustre/$PFSBENCH_TEST_UNSET_MID/pfsbench'},
    ])
    outputs = {}
    for target in ('proj', 'mid'):
        runs = tmp_path / target
        proc = run_reframe(['--system', 'three:compute', '-c',
                            'reframe-checks/dd', '-n', 'dd_stream_per_node',
                            '-P', 'nodes=1', '-S', f'target={target}',
                            '--dry-run'], runs,
                           env={'PFSBENCH_SYSTEMS': 'three'},
                           config=config / 'settings.py')
        outputs[target] = proc
    proc = outputs['proj']
    assert proc.returncode != 0
    assert ("three:compute: extras.targets[proj].path: "
            "'$PFSBENCH_TEST_UNSET_PROJ/pfsbench': $PFSBENCH_TEST_UNSET_PROJ "
            "not set here, and the path would be relative to the current "
            "directory: set it (export PFSBENCH_TEST_UNSET_PROJ=/path) to "
            "what it is on the cluster") in proc.stdout
    assert not list((tmp_path / 'proj').glob('**/rfm_job.sh'))
    assert not (REPO / '$PFSBENCH_TEST_UNSET_PROJ').exists()
    # Absolute with a variable unset: a warning naming that variable.
    proc = outputs['mid']
    assert proc.returncode == 0, proc.stdout
    assert ("$PFSBENCH_TEST_UNSET_MID not set here: the dry-run job script "
            "writes under") in proc.stdout
    assert 'export PFSBENCH_TEST_UNSET_MID=...' in proc.stdout
    assert 'USER=' not in proc.stdout


# render nightly plans through reframe --describe and --dry-run.
@pytest.mark.reframe
def test_the_nightly_job_runs_the_budgets_plan_on_every_target(tmp_path,
                                                               capsys):
    # Issue 36: render nightly had no --budget (34 h > 24 h refused) and a
    # budget gave the disk Lustre one fio case.
    from pfsbench.cli import main
    from pfsbench.cli.nightly_plan import read_plan
    config = three_target_config(tmp_path)
    plan = tmp_path / 'nightly.plan'
    code = main(['render', 'nightly', '--config-dir', str(config),
                 '--system', 'three:compute', '--baseline', 'pre',
                 '--runs', str(tmp_path / 'runs'), '--budget', '2',
                 '--nodes', '16', '--write-plan', str(plan)])
    out = capsys.readouterr()
    assert code == 0, out.err
    lines = out.out.splitlines()
    (time,) = [ln for ln in lines if ln.startswith('#SBATCH --time=')]
    h, m, s = time.split('=')[1].split(':')
    assert int(h) * 3600 + int(m) * 60 + int(s) <= 2.5 * 3600, time
    assert '# --time: the estimate + 25 % + 1 min' in lines or \
        '# --time: the estimate + 25% + 1 min' in lines, lines[:8]
    assert lines[-1].endswith(f'--plan {plan}')
    system, repeats, tags, names = read_plan(str(plan))
    assert system == 'three:compute' and tags == ['nightly']
    on = {n.split('%.target=')[1] for n in names}
    assert on == {'flash', 'disk', 'nvme'}
    # A bandwidth and a metadata case on each shared target.
    for target in ('flash', 'disk'):
        mine = [n for n in names if n.endswith(f'%.target={target}')]
        assert any(n.startswith(('dd_', 'fio_', 'bonnie_', 'iozone_'))
                   for n in mine), mine
        assert any(n.startswith(('mdtest_', 'io500_')) for n in mine), mine
