# SPDX-License-Identifier: BSD-3-Clause
"""scripts/nightly.sh through the localhost Slurm cluster.

A night that selects no test must exit 3 (ReFrame alone exits 0); a night
after a recorded baseline must end in a real verdict (0 or 1: this VM's disk
moves by 30 % between sessions, so which one is not asserted here; the gate's
own tests pin verdicts on a throttled, steady target) with all four reports.
"""

import os
import subprocess

import pytest

from conftest import REPO, run_reframe

DD_2X2 = ['-n', 'dd_streams_per_node', '-P', 'nodes=2',
          '-P', 'streams_per_node=2']


def _nightly(args, runs, env):
    cmd = ['bash', str(REPO / 'scripts' / 'nightly.sh')] + args
    print('+', ' '.join(cmd))
    full = dict(os.environ, PFSBENCH_RUNS=str(runs), **env)
    full['PATH'] = os.path.dirname(os.path.abspath(
        __import__('sys').executable)) + os.pathsep + full['PATH']
    return subprocess.run(cmd, env=full, cwd=REPO, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True,
                          timeout=900)


@pytest.fixture
def venv_in_repo():
    if not (REPO / '.venv' / 'bin' / 'pfsbench').exists():
        pytest.skip('scripts/nightly.sh runs .venv/bin/*: run '
                    'scripts/setup.sh first (scripts/test.sh does)')


@pytest.mark.slurm
def test_nightly_zero_tests_is_missing_data(localslurm, venv_in_repo,
                                            tmp_path):
    runs = tmp_path / 'runs'
    proc = run_reframe(['--system', 'localslurm:srun', '-c',
                        str(REPO / 'reframe-checks' / 'dd'), '-r'] + DD_2X2,
                       runs, env=localslurm)
    assert proc.returncode == 0, proc.stdout
    base = _nightly_baseline(runs)
    assert base.returncode == 0, base.stdout

    proc = _nightly(['--system', 'localslurm:srun', '--baseline', 'pre',
                     '--target', str(tmp_path), '--repeat', '1',
                     '--budget', '0',
                     '--out', str(tmp_path / 'night'), '--',
                     '-n', 'no_such_check'], runs, localslurm)
    assert 'nightly: reframe exited 0' in proc.stdout    # ReFrame: "fine"
    assert proc.returncode == 3, proc.stdout             # the gate: no data


def _nightly_baseline(runs):
    cmd = [str(REPO / '.venv' / 'bin' / 'pfsbench'), 'baseline', 'record',
           'pre', '--db', str(runs / 'results.db')]
    print('+', ' '.join(cmd))
    return subprocess.run(cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)


@pytest.mark.slurm
def test_nightly_unchanged_night_reaches_a_verdict(localslurm, venv_in_repo,
                                                   tmp_path):
    runs = tmp_path / 'runs'
    proc = run_reframe(['--system', 'localslurm:srun', '-c',
                        str(REPO / 'reframe-checks' / 'dd'), '-r',
                        '--repeat', '3'] + DD_2X2, runs, env=localslurm)
    assert proc.returncode == 0, proc.stdout
    assert _nightly_baseline(runs).returncode == 0

    night = tmp_path / 'night'
    # The results store does not answer tonight (a SQLite file under a
    # file: it cannot be opened): the night waits in the spool and the
    # gate judges from the runs directory all the same.
    (tmp_path / 'blocker').write_text('')
    down = str(tmp_path / 'blocker' / 'store.sqlite')
    proc = _nightly(['--system', 'localslurm:srun', '--baseline', 'pre',
                     '--target', str(tmp_path), '--repeat', '3',
                     '--budget', '0',
                     '--tags', 'dd', '--out', str(night), '--store', down,
                     '--cluster', 'srun-cluster', '--'] + DD_2X2,
                    runs, localslurm)
    assert proc.returncode in (0, 1), proc.stdout
    assert 'nightly: the results store did not answer' in proc.stdout
    spooled = list((runs / 'store-spool').glob('*.json'))
    assert len(spooled) == 1, proc.stdout
    # The next ingest (the next night's) loads it: nothing lost.
    up = str(tmp_path / 'store.sqlite')
    ingest = subprocess.run(
        [str(REPO / '.venv' / 'bin' / 'pfsbench'), 'ingest', '--store', up,
         '--system', 'srun-cluster', '--spool', str(runs / 'store-spool')],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        universal_newlines=True)
    assert ingest.returncode == 0, ingest.stdout
    assert '1 session(s) stored' in ingest.stdout
    assert not list((runs / 'store-spool').glob('*.json'))
    assert 'fs_type=' in proc.stdout          # the session was tagged
    for name in ('gate.md', 'gate.xml', 'gate.html', 'gate.json',
                 'reframe.log'):
        assert (night / name).stat().st_size > 0, name
    assert 'dd_streams_per_node' in (night / 'gate.md').read_text()
