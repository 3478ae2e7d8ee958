# SPDX-License-Identifier: BSD-3-Clause
"""scripts/nightly.sh through the localhost Slurm cluster.

A night that selects no test must exit 3 (ReFrame alone exits 0); a night
after a recorded baseline must end in a real verdict (0 or 1: this VM's disk
moves by 30 % between sessions, so which one is not asserted here; the gate's
own tests pin verdicts on a throttled, steady target) with all four reports,
also on a night whose results store (PostgreSQL, shared by three clusters)
does not answer.
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import REPO, run_reframe
from pgcluster import pg_missing
from test_checks_ior import idle_slurm  # noqa: F401  (a fixture)
from test_mfs import mfs, mfs_slurm  # noqa: F401  (fixtures)

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


#: Three clusters, one PostgreSQL (bench/store_clusters.py): the CI's
#: short run, a baseline night each, then localslurm:srun two nights (the
#: store down for the first), the others one.
STORE_CLUSTERS = REPO / 'bench' / 'store_clusters.py'
NIGHTS = {'localslurm-srun': 2, 'localslurm-mfs': 1, 'local': 1}


@pytest.mark.reframe
@pytest.mark.slurm
@pytest.mark.root
def test_three_clusters_one_store_and_a_night_with_it_down(
        mfs_slurm, venv_in_repo, tmp_path):  # noqa: F811
    """localslurm:srun, localslurm:mfs and local run nights through
    scripts/nightly.sh --store into one PostgreSQL, each under its own
    name (``local`` under its default one); PostgreSQL is stopped for the
    srun cluster's first night and started after it.  Every night reaches
    a verdict (the down one from its runs directory, its report spooled),
    the next night loads the spool, each gate reads only its own cluster,
    and the store and ``pfsbench history`` hold every night once."""
    why = pg_missing()
    if why:
        pytest.skip(why)
    report = tmp_path / 'store.json'
    proc = subprocess.run(
        [sys.executable, str(STORE_CLUSTERS), '--work', str(tmp_path / 'w'),
         '--nights', '2', '--others-nights', '1', '--repeat', '2',
         '--down-night', '1', '--down-cluster', 'localslurm-srun',
         '--json', str(report)],
        cwd=REPO, timeout=1500, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, universal_newlines=True)
    print(proc.stdout)
    # No report: the bench stopped before the nights (its output says why).
    assert report.exists(), proc.stdout
    site = json.loads(report.read_text())
    nights = {(n['cluster'], n['night']): n for n in site['nights']}
    assert sorted(nights) == sorted((c, n) for c, k in NIGHTS.items()
                                    for n in range(1, k + 1)), proc.stdout
    assert all(n['exit'] in (0, 1) for n in nights.values()), proc.stdout

    # The night without its store: a verdict from the runs directory, the
    # report in the spool; the next night loads it.
    down, after = nights['localslurm-srun', 1], nights['localslurm-srun', 2]
    assert down['said_down'] and not down['stored'], down['log']
    assert down['gate_source'].endswith('results.db'), down
    assert (down['spooled_before'], down['spooled_after']) == (0, 1)
    assert after['stored'] and after['spooled_after'] == 0, after['log']
    stored = site['store']['localslurm-srun']
    assert set(down['current']) <= set(stored['own'])
    assert not stored['missing'] and not stored['foreign'], stored

    # Each gate its own cluster: the twin of a localslurm-srun session
    # (another cluster name, the same ReFrame partition) never appears.
    for night in nights.values():
        own = set(site['store'][night['cluster']]['own'])
        assert set(night['sessions']) <= own, night
        assert site['twin'] not in night['sessions']
        if not night['store_down']:
            assert night['gate_source'].endswith(
                f"(cluster {night['cluster']})"), night
    # Nights: the baseline's (run again while the probes marked every
    # sample of it contended: a shared host) and the nightly's.
    nights_of = {name: site['baseline_nights'][name] + count
                 for name, count in NIGHTS.items()}
    for name, count in nights_of.items():
        assert site['store'][name]['store_sessions'] == count, \
            site['store']
        assert site['store'][name]['figure_rows'] == \
            site['store'][name]['report_figures'], site['store'][name]
    assert site['store']['_duplicate_rows'] == 0
    assert site['history']['nights'] == {**nights_of, 'twin': 1}
    assert all(a['held'] for a in site['assertions']), proc.stdout
    assert proc.returncode == 0, proc.stdout
