# SPDX-License-Identifier: BSD-3-Clause
"""Static checks of tests/localslurm/localslurm.sh.

None of these start a daemon: they point PFSBENCH_SLURM_DIR at an empty
temporary directory, so a cluster that happens to be running under the
default state directory is never touched. The integration tests that bring
the cluster up live elsewhere (marker ``slurm``).
"""
import os
import pathlib
import shutil
import subprocess

import pytest

SCRIPT = pathlib.Path(__file__).parent / 'localslurm' / 'localslurm.sh'


def run_script(*args, state_dir, user=None):
    env = dict(os.environ, PFSBENCH_SLURM_DIR=str(state_dir))
    # A caller's SLURM_CONF must not leak into the script's behaviour.
    env.pop('SLURM_CONF', None)
    argv = ['bash', str(SCRIPT), *args]
    if user is not None:
        argv = ['setpriv', f'--reuid={user}', f'--regid={user}',
                '--clear-groups', *argv]
    return subprocess.run(argv, env=env, capture_output=True, text=True,
                          timeout=60)


def test_script_parses():
    proc = subprocess.run(['bash', '-n', str(SCRIPT)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_script_header():
    lines = SCRIPT.read_text().splitlines()
    assert lines[0] == '#!/usr/bin/env bash'
    assert lines[1] == '# SPDX-License-Identifier: BSD-3-Clause'
    assert 'set -euo pipefail' in lines
    assert os.access(SCRIPT, os.X_OK), f'{SCRIPT} is not executable'


def test_script_never_names_system_slurm_paths():
    # The cluster must never use a system Slurm or munge configuration;
    # comments may name them to say so, code may not.
    code = [line for line in SCRIPT.read_text().splitlines()
            if not line.lstrip().startswith('#')]
    for path in ('/etc/slurm', '/etc/munge', '/run/munge'):
        hits = [line for line in code if path in line]
        assert not hits, f'{SCRIPT} uses {path}: {hits}'


@pytest.mark.skipif(shutil.which('shellcheck') is None,
                    reason='shellcheck is not installed')
@pytest.mark.skipif(shutil.which('shellcheck') is None,
                    reason='shellcheck is not installed')
def test_shellcheck_clean():
    proc = subprocess.run(['shellcheck', str(SCRIPT)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


def test_status_fails_on_empty_state_dir(tmp_path):
    proc = run_script('status', state_dir=tmp_path)
    assert proc.returncode != 0
    assert 'no cluster under' in proc.stderr
    assert str(tmp_path) in proc.stderr


def test_env_points_at_state_dir(tmp_path):
    proc = run_script('env', state_dir=tmp_path)
    assert proc.returncode == 0, proc.stderr
    exports = dict(line.removeprefix('export ').split('=', 1)
                   for line in proc.stdout.splitlines())
    assert exports['SLURM_CONF'] == str(tmp_path / 'slurm.conf')
    assert exports['OMPI_ALLOW_RUN_AS_ROOT'] == '1'
    assert exports['OMPI_ALLOW_RUN_AS_ROOT_CONFIRM'] == '1'
    assert exports['OMPI_MCA_mpi_yield_when_idle'] == '1'


def test_down_without_cluster_is_harmless(tmp_path):
    if os.geteuid() != 0:
        pytest.skip('down requires root')
    marker = tmp_path / 'unrelated-file'
    marker.write_text('keep me')
    proc = run_script('down', state_dir=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert marker.read_text() == 'keep me'


@pytest.mark.parametrize('args', [
    ('frobnicate',),
    ('up', '--nodes', '0'),
    ('up', '--nodes', 'four'),
    ('up', '--bogus'),
    ('status', 'extra'),
])
def test_bad_usage_is_refused(tmp_path, args):
    proc = run_script(*args, state_dir=tmp_path)
    assert proc.returncode != 0
    assert proc.stderr.startswith('localslurm.sh: error:'), proc.stderr
    assert not (tmp_path / 'slurm.conf').exists()


@pytest.mark.parametrize('subcommand', ['up', 'down'])
def test_non_root_is_refused(tmp_path, subcommand):
    if os.geteuid() != 0 or shutil.which('setpriv') is None:
        pytest.skip('needs root and setpriv to impersonate another user')
    tmp_path.chmod(0o755)
    proc = run_script(subcommand, state_dir=tmp_path, user=65534)
    assert proc.returncode != 0
    assert proc.stderr.count('\n') == 1, proc.stderr
    assert 'must run as root' in proc.stderr
    assert list(tmp_path.iterdir()) == []
