# SPDX-License-Identifier: BSD-3-Clause
"""A partition's limits hold for every job pfsbench writes: its
``time_limit`` caps the checks' time limits and render's ``--time`` (Slurm
rejects a job asking more), its ``max_nodes`` refuses render's larger jobs
in the dry run's words; check-config and nightly-plan say what is capped."""

import re
import shutil

import pytest

from conftest import REPO, run_reframe
from pfsbench.cli import main

SITE = '''
site_configuration = {'systems': [{
    'name': 'site', 'hostnames': ['^site-login$'], 'modules_system': 'nomod',
    'partitions': [
        {'name': 'batch', 'scheduler': 'slurm', 'launcher': 'srun',
         'environs': ['builtin'], 'features': ['pfs', 'mpi'],
         'time_limit': '4h', 'access': ['--account=proj'],
         'extras': {'max_nodes': 8,
                    'targets': [{'name': 'beegfs',
                                 'path': '/beegfs/scratch/pfsbench'}]}},
        {'name': 'short', 'scheduler': 'slurm', 'launcher': 'srun',
         'environs': ['builtin'], 'features': ['pfs', 'mpi'],
         'time_limit': '30m',
         'extras': {'max_nodes': 2,
                    'targets': [{'name': 'beegfs',
                                 'path': '/beegfs/scratch/pfsbench'}]}},
    ],
}]}
'''


@pytest.fixture
def config(tmp_path):
    config = tmp_path / 'config'
    shutil.copytree(REPO / 'config', config)
    (config / 'systems' / 'site.py').write_text(SITE)
    return config


def _cli(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_dry_run_asks_no_more_than_the_partitions_time_limit(
        config, tmp_path):
    proc = run_reframe(['--system', 'site:short', '-c',
                        str(REPO / 'reframe-checks' / 'dd'), '-n',
                        'dd_streams_per_node', '-P', 'nodes=2', '-P',
                        'streams_per_node=1', '--dry-run'], tmp_path / 'runs',
                       config=config / 'settings.py')
    assert proc.returncode == 0, proc.stdout
    scripts = list((tmp_path / 'runs').glob('**/rfm_job.sh'))
    assert scripts, proc.stdout
    for script in scripts:
        times = [line for line in script.read_text().splitlines()
                 if line.startswith('#SBATCH --time=')]
        assert times == ['#SBATCH --time=0:30:0'], script


def test_render_caps_the_experiments_time_and_refuses_a_longer_one(
        config, capsys):
    code, out, err = _cli(capsys, 'render', 'E6', '--system', 'site:short',
                          '--config-dir', str(config), '--nodes', '2')
    assert code == 0, err
    assert '#SBATCH --time=00:30:00' in out.splitlines()
    assert err == ("pfsbench: note: --time 02:00:00 capped to 00:30:00, "
                   "site:short's time_limit (30m)\n")
    code, out, err = _cli(capsys, 'render', 'E6', '--system', 'site:short',
                          '--config-dir', str(config), '--nodes', '2',
                          '--time', '45')
    assert code == 2 and out == ''
    assert err == ("pfsbench: error: <command line>:--time: '45': is more "
                   "than site:short's time_limit (30m)\n")


def test_render_refuses_more_nodes_than_the_partition_has(config, capsys):
    code, out, err = _cli(capsys, 'render', 'E6', '--system', 'site:batch',
                          '--config-dir', str(config), '--nodes', '16')
    assert code == 2 and out == ''
    assert err == ("pfsbench: error: <command line>:--nodes: 16: site:batch "
                   "has 8 node(s); this case needs 16\n")
    code, out, err = _cli(capsys, 'render', 'E6', '--system', 'site:batch',
                          '--config-dir', str(config), '--nodes', '8')
    assert code == 0 and '#SBATCH --nodes=8' in out.splitlines()
    assert '#SBATCH --time=02:00:00' in out.splitlines()   # within 4h


def test_check_config_and_nightly_plan_use_the_capped_time(config, capsys):
    code, out, err = _cli(capsys, 'check-config', '--config-dir',
                          str(config), '--system', 'site:short', '--tags',
                          'E6')
    assert code == 0, err
    notes = [line for line in out.splitlines() if 'capped' in line]
    assert notes and notes[0].startswith(
        "site:short: note: ") and "ask more than the partition's " \
        "time_limit (30m) and are capped to it: " in notes[0]
    code, out, err = _cli(capsys, 'nightly-plan', '--config-dir',
                          str(config), '--system', 'site:short', '--tags',
                          'E6', '--repeat', '1', '--no-budget')
    assert code == 0, err
    # Each case's estimate (first night: its work at default rates) and
    # the plan's bound at the time limits both stay within the 30m cap.
    rows = [re.search(r'\s(\d+(?:\.\d+)?) m\s', line)
            for line in out.splitlines() if line.startswith('dd_')]
    assert rows and all(float(row.group(1)) <= 30.0 for row in rows), out
    assert f'at most {0.5 * len(rows):.1f} h at their time limits' in out, out
