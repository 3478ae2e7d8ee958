# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench nightly-plan``: the cases, repeats and cost of a nightly,
with durations from earlier runs' reports."""

import contextlib
import json
import io
import math
import random
import subprocess

from conftest import CHECKS, REPO, run_reframe
from pfsbench.cli import main
import synth


def _plan(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(['nightly-plan', *args])
    return code, out.getvalue().splitlines(), err.getvalue()


def test_a_system_without_a_partition_is_refused():
    code, out, err = _plan('--system', 'localslurm')
    assert code == 2 and out == []
    assert err == ("pfsbench: error: <command line>:--system: 'localslurm':"
                   " give NAME:PARTITION (localslurm:srun, localslurm:mpirun"
                   "): a system's partitions run different jobs\n")


def test_an_earlier_run_gives_the_estimate(tmp_path):
    proc = run_reframe(['-c', str(CHECKS / 'dd'), '-n',
                        'dd_streams_one_node', '-P', 'streams_per_node=1',
                        '-r'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    code, out, err = _plan('--system', 'local:default', '--tags', 'E9',
                           '--tags', 'dd', '--repeat', '3', '--runs',
                           str(tmp_path))
    assert code == 0, err
    assert out[0] == 'nightly on local:default: tags E9, dd, 3 repeat(s)'
    rows = {' '.join(line.split()[:2]): line for line in out
            if line.startswith('dd_')}
    assert len(rows) == 12      # streams_per_node 1..12, on one node
    assert rows['dd_streams_one_node %streams_per_node=1'].endswith(
        '1 earlier run(s)')
    assert rows['dd_streams_one_node %streams_per_node=2'].endswith(
        'time limit')
    # 11 cases at their 2 h limit, one from history, 3 repeats.
    total = out[-2]
    assert total.startswith('total: 12 case(s) x 3 repeat(s) = 36 job(s)')
    assert '(1 of 12 case(s) from history' in total
    assert 'at most 72.0 h)' in total
    assert out[-1].startswith('warning: the estimate is more than the 6.0 h '
                              'that slurm-templates/nightly-gate.sbatch')


def test_nightly_script_refuses_a_system_without_a_partition():
    proc = subprocess.run(
        ['bash', str(REPO / 'scripts' / 'nightly.sh'), '--system', 'hawk',
         '--baseline', 'pre', '--target', '/lustre/scratch'], cwd=REPO,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True)
    assert proc.returncode == 2 and proc.stdout == ''
    assert proc.stderr == ('nightly.sh: --system hawk: give NAME:PARTITION '
                           '(pfsbench nightly-plan --system NAME:PARTITION '
                           'shows what it runs)\n')


def test_zero_repeats_and_an_empty_selection_are_refused():
    code, out, err = _plan('--system', 'local:default', '--repeat', '0')
    assert code == 2 and out == []
    assert err == ("pfsbench: error: <command line>:--repeat: 0: expected "
                   "a whole number of at least 1\n")
    code, out, err = _plan('--system', 'local:default', '--tags',
                           'nosuchtag')
    assert code == 2 and out == []
    assert err.startswith("pfsbench: error: <command line>:--tags: "
                          "'nosuchtag': selects no case on local:default")


def test_an_experiment_tag_selects_that_experiment_alone():
    # reframe -t E1 is a pattern that E10-E19 match too.
    code, out, err = _plan('--system', 'example_lustre:compute', '--tags',
                           'E1', '--repeat', '1')
    assert code == 0, err
    names = {line.split()[0] for line in out[2:]
             if line.startswith('mdtest_')}
    assert names == {'mdtest_e1_core_scaling'}
    code, out, err = _plan('--system', 'example_lustre:compute', '--tags',
                           'E1', '--tags', 'mdtest', '--reframe-tags')
    assert (code, out) == (0, ['^E1$', '^mdtest$'])


def _nightly_sh(*args):
    return subprocess.run(
        ['bash', str(REPO / 'scripts' / 'nightly.sh'), *args], cwd=REPO,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True)


def test_nightly_script_has_help():
    proc = _nightly_sh('--help')
    assert proc.returncode == 0 and proc.stderr == ''
    assert 'scripts/nightly.sh --system NAME:PARTITION' in proc.stdout


def test_nightly_script_checks_its_arguments_before_any_job(tmp_path):
    common = ['--system', 'local:default', '--target', str(tmp_path)]
    proc = _nightly_sh(*common, '--baseline', 'pre', '--repeat', '0')
    assert proc.returncode == 2 and proc.stdout == ''
    assert proc.stderr == ("nightly.sh: error: --repeat: '0': expected a "
                           "whole number of at least 1\n")
    out = tmp_path / 'night'
    proc = subprocess.run(
        ['bash', str(REPO / 'scripts' / 'nightly.sh'), *common,
         '--baseline', 'no-such-baseline', '--out', str(out)], cwd=REPO,
        env=dict(__import__('os').environ, PFSBENCH_RUNS=str(tmp_path)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        "nightly.sh: error: --baseline: 'no-such-baseline': no usable "
        "baseline (pfsbench baseline list shows the recorded ones)")
    assert not (out / 'reframe.log').exists()     # no job ran


def _nights_db(runs, cv, tau, nights=30, repeats=5, seed=3):
    """Nights of ``dd_stream_per_node %nodes=1`` on local:default: each
    night's level off by ``tau``, its repeats by ``cv``."""
    rng = random.Random(seed)
    reports = []
    for i in range(nights):
        level = 500.0 * math.exp(rng.gauss(0.0, tau))
        reports.append(synth.session(
            {'dd_stream_per_node %nodes=1':
             [level * math.exp(rng.gauss(0.0, cv)) for _ in range(repeats)]},
            time_start=i * 86400.0))
    runs.mkdir(exist_ok=True)
    synth.write_database(str(runs / 'results.db'), reports)


def _detect_rows(out):
    start = next(i for i, line in enumerate(out)
                 if line.startswith('to find a'))
    return out[start], {' '.join(line.split()[:2]): line
                        for line in out[start:]
                        if line.startswith('dd_stream_per_node')}, out[-2:]


def test_detect_gives_the_repeats_from_the_history_noise(tmp_path):
    # Quiet nights (0.5 %) and an 8 % spread per repeat: more repeats buy
    # the 5 % the site asks for; nights 6 % apart: no count does.
    _nights_db(tmp_path / 'quiet', cv=0.08, tau=0.005)
    _nights_db(tmp_path / 'noisy', cv=0.02, tau=0.06)
    found = {}
    for runs in ('quiet', 'noisy'):
        code, out, err = _plan('--system', 'local:default', '--tags', 'E6',
                               '--tags', 'dd', '--tags', 'quick',
                               '--repeat', '5', '--runs',
                               str(tmp_path / runs), '--detect', '5%')
        assert code == 0, err
        head, rows, tail = _detect_rows(out)
        assert head.startswith('to find a 5% slowdown 9 times in 10 at 1% '
                               'false alarms')
        found[runs] = rows['dd_stream_per_node %nodes=1'].split()
    # write_bw at 8 % a repeat, 0.5 % a night: (2.33 + 1.28)^2 (0.08^2 /
    # R) (1 + 1/5) <= (0.051 - night part)^2 needs some tens of repeats.
    quiet = found['quiet']
    assert quiet[2].isdigit() and 10 <= int(quiet[2]) <= 200, quiet
    assert quiet[3] == 'write_bw'
    assert found['noisy'][2] == 'never'
    assert 'the night-to-night noise alone hides it: write_bw' in \
        ' '.join(found['noisy'])


def test_detect_costs_the_nightly_at_the_repeats_it_needs(tmp_path):
    _nights_db(tmp_path, cv=0.08, tau=0.005)
    code, out, err = _plan('--system', 'local:default', '--tags', 'E6',
                           '--tags', 'dd', '--tags', 'quick', '--repeat',
                           '5', '--runs', str(tmp_path), '--detect', '5%')
    assert code == 0, err
    _, rows, tail = _detect_rows(out)
    need = int(rows['dd_stream_per_node %nodes=1'].split()[2])
    # One case, no earlier run report: its 2 h time limit per repeat.
    assert tail[0].startswith(f'total at these repeats: {need} job(s); '
                              f'{2.0 * need:.1f} node-hours, '
                              f'{2.0 * need:.1f} h one case at a time')
    assert tail[0].endswith(f'nightly.sh takes one --repeat for all: '
                            f'{need}')
    # The default tolerance, 5 %, hides a 5 % loss.
    assert tail[1].startswith('note: the gate calls a regression only '
                              'beyond the tolerance (5%)')


def test_detect_refuses_a_slowdown_that_is_not_one(tmp_path):
    code, out, err = _plan('--system', 'local:default', '--runs',
                           str(tmp_path), '--detect', '150%')
    assert code == 2 and out == []
    assert err == ("pfsbench: error: <command line>:--detect: '150%': "
                   "expected a slowdown between 0 and 100 %, e.g. 5%\n")


def test_repeated_runs_give_their_cases_durations(tmp_path):
    # nightly.sh runs with --repeat: ReFrame names each case
    # '... %.repeat_no=N', which must still count as that case's history.
    from pfsbench.cli.nightly_plan import history
    reports = tmp_path / 'reports'
    reports.mkdir()
    cases = [{'display_name': f'dd_stream_per_node %nodes=1 %.repeat_no={i}',
              'system': 'local', 'partition': 'default', 'environ': 'builtin',
              'result': 'pass', 'time_total': 10.0 + i} for i in range(3)]
    (reports / 'run-report-0.json').write_text(json.dumps(
        {'session_info': {'uuid': '0'}, 'runs': [{'testcases': cases}]}))
    assert history(str(tmp_path), 'local', 'default') == {
        'dd_stream_per_node %nodes=1': [10.0, 11.0, 12.0]}
