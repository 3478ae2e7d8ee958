# SPDX-License-Identifier: BSD-3-Clause
"""The gate's verbs through ``pfsbench.cli.main(argv)``, in process, on
synthetic ReFrame results databases (ReFrame's storage schema 1.0)."""

import fcntl
import hashlib
import json
import os
import sqlite3

import pytest

from pfsbench import cli
from pfsbench.core import fields
import synth

GATE_VERBS = ['session-extras', 'baseline', 'gate', 'report']
CASE1 = 'dd_stream_per_node %nodes=1'
CASE2 = 'dd_stream_per_node %nodes=2'
DAY = 86400.0


@pytest.fixture(autouse=True)
def only_gate_verbs(monkeypatch):
    # Other developers' verbs may not be importable yet; the registry
    # mechanism is the same with ours alone.
    monkeypatch.setattr(cli.entry, 'VERBS', GATE_VERBS)


def run(argv, capsys):
    print('+ pfsbench ' + ' '.join(argv))
    code = cli.main(argv)
    out, err = capsys.readouterr()
    # The first line is the command echoed above (so a failure shows it).
    return code, out.split('\n', 1)[1], err


def nightly(t, scale=1.0, extras=None, **kwargs):
    return synth.session(
        {CASE1: [scale * v for v in (500.0, 505.0, 495.0)],
         CASE2: [scale * v for v in (900.0, 910.0, 890.0)]},
        time_start=t, extras=extras or {'fs_version': '1.8'}, **kwargs)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / 'runs' / 'results.db'
    path.parent.mkdir()
    synth.write_database(str(path), [nightly(0.0), nightly(DAY)])
    return path


@pytest.fixture
def repeats_alone(tmp_path, monkeypatch):
    """config/gate.yaml with ``assumed_night_cv: 0``: the repeats alone
    decide the first nights after a baseline (the synthetic nights here
    differ by their 1 % repeats only; these tests are about what the gate
    names and keeps, not about the noise between nights)."""
    from pfsbench.gate.judge import config as gate_config
    text = open(gate_config.DEFAULT_PATH).read()
    assert 'assumed_night_cv: 0.10\n' in text
    path = tmp_path / 'repeats-alone.yaml'
    path.write_text(text.replace('assumed_night_cv: 0.10\n',
                                 'assumed_night_cv: 0\n'))
    monkeypatch.setattr(gate_config, 'DEFAULT_PATH', str(path))


def add(db, *reports):
    synth.write_database(str(db), list(reports))


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_baseline_round_trip(db, capsys):
    code, out, err = run(['baseline', 'record', 'pre-upgrade', '--since',
                          '1970-01-01', '--db', str(db)], capsys)
    assert code == 0, err
    assert '2 case(s), 12 sample(s) from 2 session(s)' in out
    path = db.parent / 'baselines' / 'pre-upgrade.json'
    data = json.loads(path.read_text())
    assert data['format_version'] == 1
    case = {c['name']: c for c in data['cases']}[CASE1]
    assert case['params'] == {'nodes': '1'}
    assert case['perfvars']['write_bw']['unit'] == 'MB/s'
    assert sorted(case['perfvars']['write_bw']['values']) == \
        [495.0, 495.0, 500.0, 500.0, 505.0, 505.0]

    code, out, _ = run(['baseline', 'list', '--db', str(db)], capsys)
    assert code == 0 and out.startswith('pre-upgrade ')
    code, out, _ = run(['baseline', 'show', 'pre-upgrade', '--db', str(db)],
                       capsys)
    assert code == 0 and 'write_bw [MB/s]: 500 505 495' in out
    code, _, err = run(['baseline', 'record', 'pre-upgrade', '--db',
                        str(db)], capsys)
    assert code == 2 and 'exists' in err
    code, _, _ = run(['baseline', 'delete', 'pre-upgrade', '--db', str(db)],
                     capsys)
    assert code == 0 and not path.exists()


def test_unknown_baseline_names_the_known_ones(db, capsys):
    run(['baseline', 'record', 'pre', '--db', str(db)], capsys)
    code, _, err = run(['gate', '-b', 'post', '--db', str(db)], capsys)
    assert code == 3
    assert err.startswith('pfsbench: error: ')
    assert "baseline 'post' not found (known: pre)" in err
    code, _, err = run(['baseline', 'delete', 'post', '--db', str(db)],
                       capsys)
    assert code == 3 and "'post' not found" in err


def test_bad_baseline_name_and_file(db, capsys):
    code, _, err = run(['baseline', 'record', '../x', '--db', str(db)],
                       capsys)
    assert code == 2 and "baseline: '../x'" in err
    bdir = db.parent / 'baselines'
    bdir.mkdir()
    (bdir / 'old.json').write_text(json.dumps({'format_version': 7}))
    code, _, err = run(['gate', '-b', 'old', '--db', str(db)], capsys)
    assert code == 2
    assert 'old.json:format_version: 7:' in err


def test_gate_unchanged_slowdown_and_names_the_variable(db, capsys, repeats_alone):
    run(['baseline', 'record', 'pre', '--since', '1970-01-01', '--db',
         str(db)], capsys)
    add(db, nightly(2 * DAY, scale=1.001))
    code, out, err = run(['gate', '-b', 'pre', '--db', str(db)], capsys)
    assert code == 0, out + err
    assert out.startswith('pfsbench gate: PASS: 2 pass')
    add(db, nightly(3 * DAY, scale=0.8, extras={'fs_version': '2.0'}))
    before = digest(db)
    code, out, err = run(['gate', '-b', 'pre', '--db', str(db), '--format',
                          'json'], capsys)
    assert code == 1, err
    record = json.loads(out)
    bad = [(r['name'], r['var']) for r in record['results']
           if r['verdict'] == 'regression']
    assert bad == [(CASE1, 'write_bw'), (CASE2, 'write_bw')]
    row = record['results'][0]
    assert row['change'] == pytest.approx(-0.2, abs=1e-9)
    assert row['low'] < -0.2 < row['high']
    # The database was opened read-only: not one byte changed, no lock or
    # journal file appeared; only the results store beside it, which the
    # gate reads its sessions from.
    assert digest(db) == before
    assert sorted(os.listdir(db.parent)) == ['baselines',
                                             'pfsbench-store.sqlite',
                                             'results.db']


def test_gate_text_names_regressed_variables(db, capsys, repeats_alone):
    run(['baseline', 'record', 'pre', '--since', '1970-01-01', '--db',
         str(db)], capsys)
    add(db, nightly(2 * DAY, scale=0.8))
    code, out, _ = run(['gate', '-b', 'pre', '--db', str(db)], capsys)
    assert code == 1
    assert f'regression: {CASE1} @local:default+builtin write_bw: ' in out


def test_nothing_selected_is_missing_data(db, capsys):
    run(['baseline', 'record', 'pre', '--db', str(db)], capsys)
    code, _, err = run(['gate', '-b', 'pre', '--db', str(db), '--name',
                        'no_such_check'], capsys)
    assert code == 3 and 'no test case selected' in err


def test_zero_test_cases_is_missing_data(db, capsys):
    run(['baseline', 'record', 'pre', '--db', str(db)], capsys)
    add(db, synth.make_report([], time_start=2 * DAY))
    code, _, err = run(['gate', '-b', 'pre', '--db', str(db)], capsys)
    assert code == 3 and 'ran zero test cases' in err


def test_baseline_case_absent_is_missing_data(db, capsys):
    run(['baseline', 'record', 'pre', '--db', str(db)], capsys)
    add(db, synth.session({CASE1: [500.0, 501.0, 499.0]},
                          time_start=2 * DAY))
    code, out, _ = run(['gate', '-b', 'pre', '--db', str(db)], capsys)
    assert code == 3
    assert f'missing: {CASE2} @local:default+builtin: not in the current' \
        in out


def test_failed_and_dry_run_sessions_are_missing_data(db, capsys):
    run(['baseline', 'record', 'pre', '--db', str(db)], capsys)
    sid = 'f' * 8 + '-0000-0000-0000-000000000000'
    cases = [synth.make_testcase(sid, 0, 0, CASE1,
                                 {'write_bw': (None, 'MB/s')},
                                 result='fail', fail_phase='sanity',
                                 fail_reason='sanity error: no end marker'),
             synth.make_testcase(sid, 0, 1, CASE2,
                                 {'write_bw': (900.0, 'MB/s')})]
    add(db, synth.make_report(cases, time_start=2 * DAY, session_uuid=sid))
    code, out, _ = run(['gate', '-b', 'pre', '--db', str(db)], capsys)
    assert code == 3
    assert 'failed in sanity: sanity error: no end marker' in out

    dry = synth.session({CASE1: [None] * 3, CASE2: [None] * 3},
                        time_start=3 * DAY, cmdline='reframe -r --dry-run')
    add(db, dry)
    code, out, _ = run(['gate', '-b', 'pre', '--db', str(db)], capsys)
    assert code == 3 and 'a --dry-run session' in out


def test_session_that_stopped_early(db, capsys):
    run(['baseline', 'record', 'pre', '--db', str(db)], capsys)
    rep = nightly(2 * DAY)
    rep['session_info']['num_aborted'] = 1
    rep['runs'][0]['testcases'][-1]['result'] = 'abort'
    add(db, rep)
    code, out, _ = run(['gate', '-b', 'pre', '--db', str(db), '--format',
                        'json'], capsys)
    assert code == 3
    record = json.loads(out)
    reasons = [m['reason'] for m in record['missing']]
    assert 'stopped early: 1 aborted case(s)' in reasons
    assert any('repeat(s) unusable: aborted' in r for r in reasons)
    # What finished is still judged.
    assert [r['name'] for r in record['results']] == [CASE1]


def test_different_parameters_are_an_input_error(db, capsys):
    run(['baseline', 'record', 'pre', '--db', str(db)], capsys)
    add(db, nightly(2 * DAY, cmdline='reframe -r -S count=10'))
    code, _, err = run(['gate', '-b', 'pre', '--db', str(db)], capsys)
    assert code == 2
    assert "-S count: '10': differs from the baseline's None" in err
    code, _, err = run(['baseline', 'record', 'mixed', '--since',
                        '1970-01-01', '--db', str(db)], capsys)
    assert code == 2 and 'sessions with different parameters' in err


def test_missing_database(tmp_path, capsys):
    missing = tmp_path / 'nowhere' / 'results.db'
    code, _, err = run(['baseline', 'sessions', '--db', str(missing)],
                       capsys)
    assert code == 3
    assert f'{missing}: results database not found' in err
    assert not missing.parent.exists()


def test_incompatible_database(tmp_path, capsys):
    old = tmp_path / 'old.db'
    synth.write_database(str(old), [nightly(0.0)], schema_version='0.9')
    code, _, err = run(['baseline', 'sessions', '--db', str(old)], capsys)
    assert code == 2
    assert "metadata.schema_version: '0.9': incompatible" in err
    notdb = tmp_path / 'not.db'
    notdb.write_text('hello')
    code, _, err = run(['baseline', 'sessions', '--db', str(notdb)], capsys)
    assert code == 2 and 'not a ReFrame results database' in err
    report = nightly(0.0)
    report['session_info']['data_version'] = '3.1'
    newer = tmp_path / 'v3.db'
    synth.write_database(str(newer), [report])
    code, _, err = run(['baseline', 'sessions', '--db', str(newer)], capsys)
    assert code == 2 and "data_version: '3.1': incompatible" in err


def test_locked_database(db, capfd):
    # ReFrame holds .db.lock exclusively while it stores a session.  capfd,
    # not capsys: the child's stderr must reach the captured file.
    lock = db.parent / '.db.lock'
    with open(lock, 'a+') as fp:
        fcntl.lockf(fp, fcntl.LOCK_EX)
        pid = os.fork()
        if pid == 0:   # a lockf lock is per process: test from a child
            os._exit(cli.main(['baseline', 'sessions', '--db', str(db),
                               '--lock-timeout', '0.2']))

        _, status = os.waitpid(pid, 0)

    assert os.waitstatus_to_exitcode(status) == 2
    assert f'{db}: locked: another process' in capfd.readouterr().err
    # SQLite's own lock: a writer in an exclusive transaction.
    os.remove(lock)
    conn = sqlite3.connect(str(db))
    conn.execute('BEGIN EXCLUSIVE')
    code, _, err = run(['baseline', 'sessions', '--db', str(db),
                        '--lock-timeout', '0.2'], capfd)
    conn.rollback()
    conn.close()
    assert code == 2 and 'database is locked' in err


def test_run_reports_instead_of_database(tmp_path, capsys):
    paths = []
    for i, rep in enumerate([nightly(0.0), nightly(DAY, scale=0.7)]):
        p = tmp_path / f'run-report-{i}.json'
        p.write_text(json.dumps(rep))
        paths.append(str(p))

    code, _, err = run(['baseline', 'record', 'pre', '--report', paths[0],
                        '--baseline-dir', str(tmp_path / 'b')], capsys)
    assert code == 0, err
    code, out, _ = run(['gate', '-b', 'pre', '--report', paths[0],
                        '--report', paths[1], '--baseline-dir',
                        str(tmp_path / 'b')], capsys)
    assert code == 1 and 'regression' in out


def test_gate_config_errors_name_file_key_value(db, tmp_path, capsys):
    run(['baseline', 'record', 'pre', '--db', str(db)], capsys)
    bad = tmp_path / 'gate.yaml'
    bad.write_text('tolerance: 0.05\nvariables:\n  write_bw:\n'
                   '    direction: sideways\n')
    code, _, err = run(['gate', '-b', 'pre', '--db', str(db), '--config',
                        str(bad)], capsys)
    assert code == 2
    assert f"{bad}:variables.write_bw.direction: 'sideways': expected " \
        'higher or lower' in err
    bad.write_text('tolerance: -1\n')
    code, _, err = run(['gate', '-b', 'pre', '--db', str(db), '--config',
                        str(bad)], capsys)
    assert code == 2 and 'tolerance: -1: expected a number in (0.0' in err


def test_unknown_unit_asks_for_a_direction(tmp_path, capsys):
    db = tmp_path / 'results.db'
    synth.write_database(str(db), [synth.session({CASE1: [1.0, 1.1, 0.9]},
                                                 time_start=0.0,
                                                 unit='furlongs')])
    run(['baseline', 'record', 'pre', '--db', str(db)], capsys)
    code, _, err = run(['gate', '-b', 'pre', '--db', str(db)], capsys)
    assert code == 2
    assert "write_bw.direction: 'furlongs': unknown unit" in err


def test_inconclusive_exit_is_the_sites_choice(db, tmp_path, capsys):
    add(db, synth.session({CASE1: [500.0, 700.0, 350.0],
                           CASE2: [900.0, 1200.0, 650.0]},
                          time_start=2 * DAY))
    run(['baseline', 'record', 'noisy', '--db', str(db)], capsys)
    add(db, synth.session({CASE1: [500.0, 690.0, 345.0],
                           CASE2: [890.0, 1190.0, 640.0]},
                          time_start=3 * DAY))
    code, out, _ = run(['gate', '-b', 'noisy', '--db', str(db)], capsys)
    assert code == 0, out
    assert out.startswith('pfsbench gate: INCONCLUSIVE: 2 inconclusive')
    assert 'repeats per night would settle it' in out
    strict = tmp_path / 'strict.yaml'
    strict.write_text('inconclusive_exit: 3\n')
    code, _, _ = run(['gate', '-b', 'noisy', '--db', str(db), '--config',
                      str(strict)], capsys)
    assert code == 3


def test_session_extras_cli(tmp_path, capsys):
    code, out, _ = run(['session-extras', '--target', str(tmp_path),
                        '--extra', 'spack_hash=abc1234'], capsys)
    assert code == 0
    pairs = dict(p.split('=', 1) for p in out.strip().split(','))
    assert pairs['spack_hash'] == 'abc1234'
    assert pairs['fs_type'] and pairs['kernel'] == os.uname().release
    assert 'hostname' not in pairs      # reserved by ReFrame
    code, _, err = run(['session-extras', '--target', str(tmp_path),
                        '--extra', 'hostname=x'], capsys)
    assert code == 2 and 'reserved' in err
    code, _, err = run(['session-extras', '--target',
                        str(tmp_path / 'nope')], capsys)
    assert code == 2 and 'no such file' in err


def test_night_to_night_drift_is_not_a_regression(tmp_path, capsys):
    # Tight repeats within a night, but nights differ by several %: per
    # repeat the last night looks 8 % slower; against the nights' own
    # drift (the history's night-noise floor, or session means) it is not
    # shown to be.
    db = tmp_path / 'results.db'
    levels = [500.0, 540.0, 470.0, 520.0, 480.0]
    reports = [synth.session({CASE1: [v * f for f in (0.998, 1.0, 1.002)]},
                             time_start=i * DAY)
               for i, v in enumerate(levels)]
    reports.append(synth.session({CASE1: [462.0, 463.0, 461.0]},
                                 time_start=5 * DAY))
    synth.write_database(str(db), reports)
    code, _, err = run(['baseline', 'record', 'five-nights', '--since',
                        '1970-01-01', '--session', 'x', '--db', str(db)],
                       capsys)
    assert code == 2 and 'give --session or --since, not both' in err
    code, _, _ = run(['baseline', 'record', 'five-nights', '--db', str(db),
                      '--session', 'latest~5', '--session', 'latest~4',
                      '--session', 'latest~3', '--session', 'latest~2',
                      '--session', 'latest~1'], capsys)
    assert code == 0
    code, out, _ = run(['gate', '-b', 'five-nights', '--db', str(db)],
                       capsys)
    assert code == 0 and out.startswith('pfsbench gate: INCONCLUSIVE')
    assert 'the night-to-night noise alone is too large' in out
    # The interval rule: floored at the night noise, and without it.
    for settings, want, why in (
            ('', 'INCONCLUSIVE', 'night-to-night noise of the history is'),
            ('night_noise: false\n', 'REGRESSION', 'the whole 95% interval')):
        interval = tmp_path / 'interval.yaml'
        interval.write_text('rule: interval\n' + settings)
        code, out, _ = run(['gate', '-b', 'five-nights', '--db', str(db),
                            '--config', str(interval)], capsys)
        assert out.startswith(f'pfsbench gate: {want}') and why in out
        assert code == (1 if want == 'REGRESSION' else 0)
    per_session = tmp_path / 'gate.yaml'
    per_session.write_text('rule: interval\nsample_unit: session\n')
    code, out, _ = run(['gate', '-b', 'five-nights', '--db', str(db),
                        '--config', str(per_session), '--format', 'json'],
                       capsys)
    assert code == 0
    [row] = json.loads(out)['results']
    assert row['verdict'] == 'inconclusive'
    assert row['base']['session_means'] == pytest.approx(levels)
    assert row['df'] == 4          # k - 1 baseline sessions


def test_mountinfo_parsing_and_spack_lock(tmp_path):
    from pfsbench.site import extras
    text = ('22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n'
            '40 22 0:35 / /mnt/my\\040scratch rw,noatime - lustre '
            '10.0.0.1@o2ib:/fs rw,flock,lazystatfs\n')
    mounts = extras.parse_mountinfo(text)
    assert mounts[1]['mount_point'] == '/mnt/my scratch'
    assert extras.mount_of('/mnt/my scratch/run1', mounts)['fs_type'] == \
        'lustre'
    assert extras.mount_of('/home', mounts)['fs_type'] == 'ext4'
    info = tmp_path / 'mountinfo'
    info.write_text(text.replace('/mnt/my\\040scratch', str(tmp_path)))
    env = tmp_path / 'env'
    env.mkdir()
    (env / 'spack.lock').write_text('{"roots": []}')
    tags = extras.collect(str(tmp_path), mountinfo_path=str(info),
                          environ={'SPACK_ENV': str(env),
                                   'SLURM_JOB_ID': '42'})
    assert tags['fs_type'] == 'lustre'
    assert tags['fs_mount_opts'] == 'rw;noatime'
    assert tags['fs_super_opts'] == 'rw;flock;lazystatfs'
    assert tags['slurm_job_id'] == '42'
    assert len(tags['spack_lock']) == 12
    assert all(',' not in v for v in tags.values())


def test_since_ages_and_local_dates():
    import time
    from pfsbench.cli.sessions import parse_since
    assert parse_since('12h', now=100000.0) == 100000.0 - 12 * 3600
    assert parse_since('2026-11-01T18:00:00') == time.mktime(
        (2026, 11, 1, 18, 0, 0, 0, 0, -1))
    assert parse_since('2026-11-01T18:00:00+00:00') == 1793556000.0


def test_night_noise_history_ignores_other_configurations(tmp_path, capsys, repeats_alone):
    # Five earlier nights that ran with another -S value and wildly
    # different figures must not widen tonight's interval.
    db = tmp_path / 'results.db'
    odd = [synth.session({CASE1: [v, v * 1.001, v * 0.999]},
                         time_start=i * DAY, cmdline='reframe -r -S count=9')
           for i, v in enumerate([100.0, 900.0, 50.0, 700.0, 80.0])]
    base = synth.session({CASE1: [500.0, 501.0, 499.0]}, time_start=5 * DAY)
    now = synth.session({CASE1: [400.0, 401.0, 399.0]}, time_start=6 * DAY)
    synth.write_database(str(db), odd + [base, now])
    run(['baseline', 'record', 'pre', '--session', 'latest~1', '--db',
         str(db)], capsys)
    code, out, _ = run(['gate', '-b', 'pre', '--db', str(db), '--format',
                        'json'], capsys)
    assert code == 1
    assert 'night_noise' not in json.loads(out)['results'][0]


def _ior_like(sid, t, mean, stddev, repetitions=5):
    # One case per session (no --repeat), the tool's own -i iterations
    # summarised as mean and population stddev, like the IOR checks.
    tc = synth.make_testcase(sid, 0, 0, 'ior_bw %nodes=1', {
        'write_bw_mean': (mean, 'MiB/s'),
        'write_bw_stddev': (stddev, 'MiB/s')}, time=t + 1)
    tc['repetitions'] = repetitions
    return synth.make_report([tc], time_start=t, session_uuid=sid)


def test_tool_iterations_are_samples(tmp_path, capsys, repeats_alone):
    db = tmp_path / 'results.db'
    synth.write_database(str(db), [
        _ior_like('a' * 8 + '-0000-0000-0000-000000000000', 0.0, 1000.0,
                  20.0),
        _ior_like('b' * 8 + '-0000-0000-0000-000000000000', DAY, 800.0,
                  20.0)])
    run(['baseline', 'record', 'pre', '--session', 'latest~1', '--db',
         str(db)], capsys)
    data = json.loads((tmp_path / 'baselines' / 'pre.json').read_text())
    assert data['cases'][0]['perfvars']['write_bw_mean']['iterations'] == [5]
    code, out, _ = run(['gate', '-b', 'pre', '--db', str(db), '--format',
                        'json'], capsys)
    assert code == 1
    rows = {r['var']: r for r in json.loads(out)['results']}
    mean = rows['write_bw_mean']
    assert mean['verdict'] == 'regression'
    assert mean['base']['iterations'] == mean['cur']['iterations'] == 5
    # By hand: 5 iterations a side, population sd 20 -> sample variance
    # 20^2 * 5/4; Welch on the log ratio with 8 degrees of freedom.
    import math
    from pfsbench.gate.statistics.stats import t_quantile
    a = 400 * 5 / 4 / 5 / 800 ** 2
    b = 400 * 5 / 4 / 5 / 1000 ** 2
    nu = (a + b) ** 2 / (a * a / 4 + b * b / 4)
    half = t_quantile(0.975, nu) * math.sqrt(a + b)
    assert mean['high'] == pytest.approx(0.8 * math.exp(half) - 1)
    # The stddev itself has one value a side: no interval.
    assert rows['write_bw_stddev']['verdict'] == 'inconclusive'
    off = tmp_path / 'off.yaml'
    off.write_text('iteration_moments: false\n')
    code, out, _ = run(['gate', '-b', 'pre', '--db', str(db), '--config',
                        str(off)], capsys)
    assert code == 0 and 'need at least 2 samples' in out


def test_gate_names_a_missing_database_first(tmp_path, capsys):
    code, _, err = run(['gate', '-b', 'pre', '--db',
                        str(tmp_path / 'none.db')], capsys)
    assert code == 3 and 'none.db: results database not found' in err


def test_read_only_the_newest_sessions(db):
    from pfsbench.store.runs import read_database
    add(db, nightly(2 * DAY), nightly(3 * DAY))
    results = read_database(str(db), newest=2)
    assert sorted(s.time_start for s in results.sessions.values()) == \
        [2 * DAY, 3 * DAY]
    assert len(read_database(str(db), newest=2, since=3 * DAY).sessions) \
        == 1
    # The window before a --since: 1 older session plus the 2 since.
    assert len(read_database(str(db), newest=1,
                             newest_since=2 * DAY).sessions) == 3


def contend(report, case, repeats, contention):
    """Mark repeats of ``case`` in ``report`` as measured under foreign
    load, the way the checks log it."""
    tcs = [tc for tc in report['runs'][0]['testcases'] if tc['name'] == case]
    for i in repeats:
        tcs[i][fields.CONTENDED] = True
        tcs[i][fields.CONTENTION] = contention
    return report


FOREIGN = 'foreign I/O on /scratch: dd (pid 4242) on n1'


def test_contended_samples_are_left_out_and_reported(tmp_path, capsys, repeats_alone):
    db = tmp_path / 'runs' / 'results.db'
    db.parent.mkdir()
    # The baseline session's contended repeat is far off: it must not
    # be a baseline sample.
    first = contend(nightly(0.0), CASE1, [1], FOREIGN)
    first['runs'][0]['testcases'][1]['perfvalues'][
        'local:default:write_bw'][0] = 50.0
    synth.write_database(str(db), [first])
    code, _, err = run(['baseline', 'record', 'pre', '--db', str(db)],
                       capsys)
    assert code == 0, err
    data = json.loads((db.parent / 'baselines' / 'pre.json').read_text())
    case = {c['name']: c for c in data['cases']}[CASE1]
    assert case['perfvars']['write_bw']['values'] == [500.0, 495.0]
    assert data['contended_samples'] == [
        {'case': f'{CASE1} @local:default+builtin',
         'session': first['session_info']['uuid'], 'contention': FOREIGN}]

    # Tonight one repeat of CASE1 ran beside foreign load at a fifth of
    # the speed; the rest is unchanged: a pass.
    now = contend(nightly(DAY), CASE1, [1], FOREIGN)
    now['runs'][0]['testcases'][1]['perfvalues'][
        'local:default:write_bw'][0] = 100.0
    add(db, now)
    code, out, err = run(['gate', '-b', 'pre', '--db', str(db), '--json',
                          str(tmp_path / 'g.json')], capsys)
    assert code == 0, out + err
    assert out.startswith('pfsbench gate: PASS: 2 pass')
    assert f'\n1 contended sample left out: {FOREIGN}\n' in out
    assert f'baseline: 1 contended sample left out: {FOREIGN}' in out
    record = json.loads((tmp_path / 'g.json').read_text())
    row = {r['name']: r for r in record['results']}[CASE1]
    assert row['cur']['values'] == [500.0, 495.0]
    assert len(record['contended_samples']) == 1
    from pfsbench.gate.report import render
    assert f'- 1 contended sample left out: {FOREIGN}' in render(
        record, 'markdown')
    assert f'<li>1 contended sample left out: {FOREIGN}</li>' in render(
        record, 'html')
    junit = render(record, 'junit')
    assert 'name="contended_samples" value="1"' in junit
    assert f'1 contended sample left out: {FOREIGN}' in junit


def test_every_repeat_contended_is_missing_data(db, capsys, repeats_alone):
    run(['baseline', 'record', 'pre', '--db', str(db)], capsys)
    add(db, contend(nightly(2 * DAY), CASE2, [0, 1, 2], ''))
    code, out, _ = run(['gate', '-b', 'pre', '--db', str(db)], capsys)
    assert code == 3
    assert (f'missing: {CASE2} @local:default+builtin: every repeat was '
            'contended: 3 contended samples left out: no detail recorded'
            ) in out
    # Uncontended CASE1 is judged; a record whose contended field is
    # false, or absent (older history), counts.
    assert 'pass' in out and CASE1 in out


def test_baseline_of_contended_samples_only_is_missing_data(tmp_path, capsys):
    db = tmp_path / 'results.db'
    rep = synth.session({CASE1: [500.0, 505.0]}, time_start=0.0)
    synth.write_database(str(db), [contend(rep, CASE1, [0, 1], FOREIGN)])
    code, _, err = run(['baseline', 'record', 'pre', '--db', str(db)],
                       capsys)
    assert code == 3
    assert f'(2 contended samples left out: {FOREIGN})' in err


def test_contended_nights_stay_out_of_the_night_noise(tmp_path, capsys):
    # Fourteen nights whose contended fourth repeats scatter wildly: were
    # they counted, the night-to-night floor would widen and a 10 % loss
    # would turn inconclusive.
    db = tmp_path / 'results.db'
    reports = []
    for night in range(14):
        scatter = (100.0, 900.0, 300.0, 700.0)[night % 4]
        rep = synth.session({CASE1: [500.0, 502.0, 498.0, scatter]},
                            time_start=night * DAY)
        reports.append(contend(rep, CASE1, [3], FOREIGN))
    synth.write_database(str(db), reports)
    run(['baseline', 'record', 'pre', '--session', 'latest', '--db',
         str(db)], capsys)
    add(db, synth.session({CASE1: [450.0, 452.0, 448.0]},
                          time_start=20 * DAY))
    code, out, _ = run(['gate', '-b', 'pre', '--db', str(db), '--format',
                        'json'], capsys)
    assert code == 1, out
    record = json.loads(out)
    [row] = record['results']
    assert row['verdict'] == 'regression'
    assert row['lookback']['history_nights'] == 14
    assert row['lookback']['night_cv'] < 0.01
    # Nor do they move the history that change points are sought in.
    [hist] = record['history']
    assert [p['mean'] for p in hist['points']] == [500.0] * 14 + [450.0]


def test_first_night_after_a_one_night_baseline_assumes_night_noise(
        tmp_path, capsys):
    # CI, the short month on MooseFS: a one-night baseline of 3 repeats,
    # the next unchanged night 19 % lower. The repeats alone called it a
    # regression; with fewer than 5 nights in the history the gate assumes
    # the night-to-night noise of gate.yaml's assumed_night_cv (10 %).
    db = tmp_path / 'runs' / 'results.db'
    db.parent.mkdir()
    synth.write_database(str(db), [synth.session(
        {CASE1: [500.0, 505.0, 495.0]}, time_start=0.0)])
    run(['baseline', 'record', 'pre', '--db', str(db)], capsys)
    add(db, synth.session({CASE1: [405.0, 409.0, 401.0]}, time_start=DAY))
    code, out, _ = run(['gate', '-b', 'pre', '--db', str(db), '--format',
                        'json'], capsys)
    assert code == 0, out
    [row] = json.loads(out)['results']
    assert row['verdict'] == 'inconclusive'
    assert row['night_noise'] == {'cv': 0.10, 'df': None, 'sessions': 1,
                                  'assumed': True}
    assert 'assumed (10%, assumed_night_cv in the gate settings)' in \
        row['reason']
    assert row['low'] < -0.19 * 1.8 and row['high'] > 0.0
    # Without the assumption the same night is a regression.
    repeats = tmp_path / 'repeats.yaml'
    repeats.write_text('assumed_night_cv: 0\n')
    code, out, _ = run(['gate', '-b', 'pre', '--db', str(db), '--config',
                        str(repeats)], capsys)
    assert code == 1 and out.startswith('pfsbench gate: REGRESSION'), out
    # A loss of 40 % is found all the same, and says why it is wide.
    add(db, synth.session({CASE1: [300.0, 303.0, 297.0]},
                          time_start=2 * DAY))
    code, out, _ = run(['gate', '-b', 'pre', '--db', str(db), '--format',
                        'json'], capsys)
    assert code == 1
    [row] = json.loads(out)['results']
    assert row['verdict'] == 'regression'
    assert 'night-to-night noise assumed (10%) until the history holds 5 ' \
        'nights' in row['reason']
    # From 5 nights on the history measures it: nothing is assumed.
    for night in range(3, 7):
        add(db, synth.session({CASE1: [v * (1 + 0.01 * (night % 2))
                                       for v in (500.0, 505.0, 495.0)]},
                              time_start=night * DAY))
    interval = tmp_path / 'interval.yaml'
    interval.write_text('rule: interval\n')
    code, out, _ = run(['gate', '-b', 'pre', '--db', str(db), '--format',
                        'json', '--config', str(interval)], capsys)
    [row] = json.loads(out)['results']
    assert 'assumed' not in row['night_noise'], row
    assert row['night_noise']['sessions'] >= 5
