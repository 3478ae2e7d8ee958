# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench render nightly``: a wrong or missing driver partition is one
line naming file, key and value, exit 2, before anything is planned; the
rendered driver job is accepted by a real Slurm (``sbatch --test-only``
on the localhost cluster).  The worked site's job: test_systems_doc."""

import os
import shutil
import subprocess

import pytest

from conftest import REPO
from pfsbench.cli import main

SITE = '''
site_configuration = {{'systems': [{{
    'name': 'site', 'hostnames': ['^site-login$'], 'modules_system': 'nomod',
    'partitions': [{{
        'name': 'compute', 'scheduler': 'slurm', 'launcher': 'srun',
        'access': ['--partition={measured}', '--account=io'],
        'environs': ['builtin'], 'features': ['pfs', 'mpi'],
        'extras': {{'targets': [{{'name': 'scratch',
                                  'path': '/scratch/$USER'}}],
                    {extra}}},
    }}, {{
        'name': 'service', 'scheduler': {scheduler!r}, 'launcher': 'srun',
        'access': {access!r}, 'environs': ['builtin'], 'time_limit': '1d',
    }}],
}}]}}
'''


def _site(tmp_path, extra="'driver_partition': 'service'",
          scheduler='slurm', access=('--partition=service',),
          measured='compute'):
    config = tmp_path / 'config'
    shutil.copytree(REPO / 'config', config)
    site = config / 'systems' / 'site.py'
    site.write_text(SITE.format(extra=extra, scheduler=scheduler,
                                access=list(access), measured=measured))
    return config, site


def _render(capsys, config, *args):
    code = main(['render', 'nightly', '--config-dir', str(config),
                 '--system', 'site:compute', '--baseline', 'b', *args])
    out = capsys.readouterr()
    return code, out.out, out.err.splitlines()


KEY = 'systems[site].partitions[compute].extras.driver_partition'


@pytest.mark.parametrize('mistake,why', [
    (dict(extra=''), f"{KEY}: None: required by render nightly: the login "
     f"or service partition whose node runs ReFrame and the gate"),
    (dict(extra="'driver_partition': 'compute'"),
     f"{KEY}: 'compute': is the measured partition: the driver would hold "
     f"one of the nodes its cases need"),
    (dict(extra="'driver_partition': 'servce'"),
     f"{KEY}: 'servce': no such partition in site; known: compute, "
     f"service"),
    (dict(scheduler='local'),
     f"{KEY}: 'service': its scheduler is 'local': the driver is a Slurm "
     f"job"),
    (dict(access=('--account=io',)),
     "systems[site].partitions[service].access: ['--account=io']: names no "
     "--partition: the driver would go to Slurm's default partition"),
    (dict(access=('-p batch',), measured='batch'),
     f"{KEY}: 'service': is Slurm partition 'batch', as the measured "
     f"partition: the driver would hold one of the nodes its cases need"),
], ids=['missing', 'itself', 'unknown', 'local-scheduler', 'no-partition',
        'same-slurm-partition'])
def test_a_wrong_driver_partition_is_one_line_and_exit_2(tmp_path, capsys,
                                                         mistake, why):
    config, site = _site(tmp_path, **mistake)
    code, out, err = _render(capsys, config)
    assert (code, out) == (2, '')
    assert len(err) == 1
    assert err[0].startswith(f'pfsbench: error: '
                             f'{os.path.relpath(site)}:{why}') or \
        err[0].startswith(f'pfsbench: error: {site}:{why}'), err


@pytest.mark.parametrize('args,why', [
    (['--repeat', '0'], "<command line>:--repeat: 0:"),
    (['--tags', '$(id)'], "<command line>:--tags: '$(id)':"),
    (['--nodes', '2'], "<command line>:--nodes: None: not an option of "
                       "render nightly"),
])
def test_a_wrong_option_is_one_line_and_exit_2(tmp_path, capsys, args, why):
    config, _ = _site(tmp_path)
    code, out, err = _render(capsys, config, *args)
    assert (code, out) == (2, '')
    assert len(err) == 1 and err[0].startswith(f'pfsbench: error: {why}'), \
        err


@pytest.mark.slurm
def test_slurm_accepts_the_rendered_driver_job(tmp_path, capsys, localslurm):
    # localslurm has one Slurm partition, 'debug': the driver goes there,
    # the measured partition names another (never submitted: --test-only
    # asks slurmctld whether and when the job would start, and runs
    # nothing).
    config, _ = _site(tmp_path, access=('--partition=debug',),
                      measured='measured')
    code, out, err = _render(capsys, config, '--tags', 'E6', '--repeat',
                             '1', '-o', str(tmp_path / 'nightly.sbatch'))
    assert code == 0, err
    proc = subprocess.run(['sbatch', '--test-only',
                           str(tmp_path / 'nightly.sbatch')],
                          env=dict(os.environ, **localslurm),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=60)
    assert proc.returncode == 0, proc.stdout
    assert 'to start at' in proc.stdout, proc.stdout
    # A --time shorter than the plan (7 E6 cases at their 2 h limit).
    code, out, err = _render(capsys, config, '--tags', 'E6', '--repeat',
                             '1', '--time', '02:00:00')
    assert (code, out) == (2, '')
    assert err == ["pfsbench: error: <command line>:--time: '02:00:00': "
                   "2.0 h is less than the nightly (7 case(s) x 1 "
                   "repeat(s): about 14.0 h, at most 14.0 h)"]
