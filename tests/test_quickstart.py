# SPDX-License-Identifier: BSD-3-Clause
"""scripts/quickstart.sh: with a Spack it offers the build (and refuses
one that check-spack finds wrong); without one it says so, and the summary
ends with the families that skipped and the command that builds them.

Each test runs the script for real on one dd case and the IOR family's
smallest case, with a fresh runs directory; no Spack is started (the one
on PATH is a stand-in that answers check-spack's question).  The script
works on a copy of local/default without its install
(``PFSBENCH_QUICKSTART_ENV``), so the tests hold whether or not the
environment is installed in the checkout, as docs/spack.md says to.
"""

import json
import os
import shutil
import subprocess

import pytest

from conftest import REPO

QUICKSTART = os.path.join(REPO, 'scripts', 'quickstart.sh')
#: one passing dd case and one IOR case (it skips where there is no ior)
CASES = ['-n', 'dd_streams_one_node|ior_bandwidth',
         '-P', 'streams_per_node=1', '-P', 'api=POSIX', '-P', 'access=fpp',
         '-P', 'transfer_size=1m', '-P', 'scale=1x1']


def _uninstalled_copy(tmp_path):
    """spack-repo/environments as committed, without what an install
    leaves (``.spack-env``, ``spack.lock``); returns local/default's copy."""
    envs = tmp_path / 'environments'
    shutil.copytree(os.path.join(REPO, 'spack-repo', 'environments'), envs,
                    ignore=shutil.ignore_patterns('.spack-env', 'spack.lock'))
    return str(envs / 'local' / 'default')


def _quickstart(tmp_path, path, **env):
    environ = {key: value for key, value in os.environ.items()
               if not key.startswith(('SPACK_', 'PFSBENCH_'))}
    environ.update(PATH=path, PFSBENCH_RUNS=str(tmp_path / 'runs'),
                   PFSBENCH_QUICKSTART_ENV=_uninstalled_copy(tmp_path), **env)
    cmd = ['bash', QUICKSTART, *CASES]
    print('+', ' '.join(cmd))
    return subprocess.run(cmd, env=environ, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=600)


def _path_without(tool, tmp_path):
    """PATH of this machine without ``tool``: a directory of links to
    every other program of /usr/bin and /bin."""
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    for directory in ('/usr/local/bin', '/usr/bin', '/bin'):
        for name in os.listdir(directory):
            link = bin_dir / name
            if name not in (tool, 'spack') and not link.exists():
                link.symlink_to(os.path.join(directory, name))
    return str(bin_dir)


def test_shellcheck_clean():
    if shutil.which('shellcheck') is None:
        pytest.skip('shellcheck is not installed')
    subprocess.run(['shellcheck', QUICKSTART], check=True)


def test_without_spack_names_skipped_families(tmp_path):
    proc = _quickstart(tmp_path, _path_without('ior', tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert 'pfsbench: no Spack ($SPACK_ROOT/bin/spack or spack on PATH)' in out
    assert out.rstrip().splitlines()[-3:] == [
        'skipped: ior (1 case(s) on local:default)',
        '  1 case(s): no IOR binary (no spack_view, nothing on PATH) (a tool '
        'is missing)',
        '  build the tools for local:default: spack -e '
        'spack-repo/environments/local/default install (docs/spack.md)']


def test_spack_that_check_spack_refuses_is_not_used(tmp_path):
    # A Spack 1.1 without clingo whose builtin is a git clone never made:
    # what a fresh, offline Spack answers to check-spack.
    facts = {'version': '1.1.0', 'python': '/usr/bin/python3',
             'clingo': False, 'bootstrapped_clingo': False, 'repos': {},
             'builtin': {'git': 'https://github.com/spack/spack-packages.git',
                         'destination': '/nowhere', 'cloned': False},
             'mirrors': {}, 'user_config': str(tmp_path)}
    root = tmp_path / 'spack'
    (root / 'bin').mkdir(parents=True)
    spack = root / 'bin' / 'spack'
    spack.write_text("#!/bin/sh\n[ \"$1\" = python ] && echo '"
                     f"{json.dumps(facts)}' && exit 0\n"
                     'echo "spack $* must not run" >&2; exit 9\n')
    spack.chmod(0o755)
    proc = _quickstart(tmp_path, _path_without('ior', tmp_path),
                       SPACK_ROOT=str(root), PFSBENCH_BUILD='yes',
                       SPACK_PYTHON='/usr/bin/python3')
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert 'pfsbench: error: SPACK_PYTHON: /usr/bin/python3 cannot import ' \
        'clingo' in proc.stderr
    assert 'pfsbench: error: repos:builtin:' in proc.stderr
    assert 'pfsbench: not building: fix the Spack set-up above first' in \
        proc.stderr
    assert 'must not run' not in proc.stderr
    assert 'skipped: ior' in proc.stdout
