# SPDX-License-Identifier: BSD-3-Clause
"""The results store (pfsbench.store, ``pfsbench ingest``, ``pfsbench
gate --store``, ``pfsbench history``) against both backends: SQLite (a
file in the test's directory) and PostgreSQL 15 (a throw-away cluster,
tests/pgcluster.py)."""

import json
import math
import os
import re

import pytest

from pfsbench import cli, store
from pfsbench.core.errors import PfsbenchError
from pfsbench.gate.history.results import read_reports
import synth

CASE1 = 'dd_stream_per_node %nodes=1'
CASE2 = 'dd_stream_per_node %nodes=2'
DAY = 86400.0

#: What users and config files put in names and provenance.
HOSTILE = ('it\'s "quoted"; DROP TABLE pfsbench_sessions; -- $(rm -rf /) '
           '`id` 100% %s %(x)s ? \\ \n second line\ttab Grüße 日本語 🙂')


@pytest.fixture(params=['sqlite', pytest.param('postgresql',
                                               marks=pytest.mark.root)])
def store_url(request, tmp_path):
    """The store's URL, once per backend: SQLite's in the fast lane, the
    throw-away PostgreSQL's (which skips where it cannot start) in the
    root lane."""
    if request.param == 'sqlite':
        return str(tmp_path / 'runs' / 'pfsbench-store.sqlite')
    return request.getfixturevalue('pg_url')


def run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def nightly(t, scale=1.0, extras=None, system='local', **kwargs):
    return synth.session(
        {CASE1: [scale * v for v in (500.0, 505.0, 495.0)],
         CASE2: [scale * v for v in (900.0, 910.0, 890.0)]},
        time_start=t, extras=extras or {'fs_version': '1.8'},
        system=system, **kwargs)


def write_report(path, report):
    path.write_text(json.dumps(report))
    return str(path)


def test_a_report_reads_back_as_from_its_file(store_url, tmp_path):
    report = nightly(DAY, extras={'fs_version': '1.8', 'spack_lock':
                                  'abc123def456'})
    # A repeat whose bonnie++ printed +++++ for two figures.
    report['runs'][0]['testcases'][1]['untimed_figures'] = \
        'seeks_bw_sum block_read_bw_sum'
    path = write_report(tmp_path / 'r.json', report)
    expected = read_reports([path])
    assert sorted(r.untimed for r in expected.records) == [
        (), (), (), (), (), ('block_read_bw_sum', 'seeks_bw_sum')]
    with store.open_store(store_url) as conn:
        uuid, cluster, added = store.ingest_report(conn, report, path)
        assert (cluster, added) == ('local', True)
        got = store.read_results(conn, 'local')
        row = conn.execute('SELECT spack_lock, night FROM pfsbench_sessions '
                           'WHERE uuid = ?', (uuid,)).fetchone()
        nfig = conn.execute('SELECT COUNT(*) FROM pfsbench_figures'
                            ).fetchone()[0]
    assert tuple(row) == ('abc123def456', '1970-01-02')
    assert nfig == 6                    # one row per figure per repeat
    assert got.sessions == expected.sessions
    assert got.figures(uuid) == expected.figures(uuid)  # kept at ingest
    assert got.records == expected.records              # loaded when asked
    # Figures kept by another pfsbench (another stamp): made again from
    # the rows.
    with store.open_store(store_url) as conn:
        conn.execute("UPDATE pfsbench_sessions SET figures_stamp = 'old', "
                     "figures = 'not the codec'")
        conn.commit()
        again = store.read_results(conn, 'local')
    assert again.figures(uuid) == expected.figures(uuid)
    assert again.records == expected.records


def test_loading_twice_is_one_session(store_url, tmp_path):
    report = nightly(DAY)
    with store.open_store(store_url) as conn:
        assert store.ingest_report(conn, report, 'a')[2] is True
        assert store.ingest_report(conn, report, 'b')[2] is False
        counts = [conn.execute(f'SELECT COUNT(*) FROM {t}').fetchone()[0]
                  for t in ('pfsbench_sessions', 'pfsbench_cases',
                            'pfsbench_figures')]
    assert counts == [1, 6, 6]
    with store.open_store(store_url) as conn:     # migrations run once
        versions = [v for v, in conn.execute(
            'SELECT version FROM pfsbench_migrations')]
    assert versions == [1, 2, 3, 4]


def test_hostile_names_and_provenance_read_back_unchanged(store_url,
                                                          tmp_path):
    report = synth.session(
        {f'{CASE1} %label={HOSTILE}': [1.5, 2.5],
         HOSTILE: 7.0}, time_start=DAY, repeats=2,
        extras={'fs_version': HOSTILE, HOSTILE: 'x;y',
                'spack_lock': HOSTILE[:40]},
        cmdline=f'reframe -r --session-extras "{HOSTILE}"',
        var='bw_%s_?', unit='MB/s\'; --', environ=HOSTILE,
        partition='p;$(x)', loggable={'target_path': HOSTILE,
                                      'target_fstype': 'ext4 ü'})
    path = write_report(tmp_path / 'r.json', report)
    expected = read_reports([path])
    with store.open_store(store_url) as conn:
        store.ingest_report(conn, report, path, system=HOSTILE)
        assert store.systems(conn) == [HOSTILE]
        got = store.read_results(conn, HOSTILE)
        rows = store.figure_history(conn, 'bw_%s_?', name=HOSTILE,
                                    systems_=[HOSTILE])
        none = store.figure_history(conn, 'bw_%s_?', name='%')
    assert got.sessions == expected.sessions
    assert got.records == expected.records
    assert {r['name'] for r in rows} == {
        f'{CASE1} %label={HOSTILE}', HOSTILE}
    assert rows[0]['target'] == HOSTILE and rows[0]['filesystem'] == \
        'ext4 ü'
    # '%' is a character to find, not a LIKE wildcard: both names hold it
    assert len(none) == 2


def test_values_a_float_column_cannot_keep(store_url, tmp_path):
    report = synth.session({CASE1: [1, math.inf, -0.0, 5e-324, 1e308]},
                           time_start=DAY, repeats=5)
    tcs = report['runs'][0]['testcases']
    tcs[0]['perfvalues']['local:default:nan'] = [math.nan, 0, None, None,
                                                 's', 'pass']
    tcs[1]['perfvalues']['local:default:none'] = [None, 0, None, None, 's',
                                                  'pass']
    with store.open_store(store_url) as conn:
        store.ingest_report(conn, report, 'r')
        got = store.read_results(conn, 'local')
    values = [rec.perf['write_bw'][0] for rec in got.records]
    assert values == [1, math.inf, -0.0, 5e-324, 1e308]
    assert type(values[0]) is int
    assert math.copysign(1, values[2]) == -1
    assert math.isnan(got.records[0].perf['nan'][0])
    assert got.records[1].perf['none'] == (None, 's')


def test_each_cluster_reads_its_own_sessions(store_url):
    with store.open_store(store_url) as conn:
        for night in range(3):
            for system in ('alpha', 'beta'):
                store.ingest_report(conn, nightly(night * DAY,
                                                  system=system), 'r')
        alpha = store.read_results(conn, 'alpha')
        newest = store.read_results(conn, 'beta', newest=2)
        assert store.systems(conn) == ['alpha', 'beta']
    assert len(alpha.sessions) == 3
    assert {r.key.system for r in alpha.records} == {'alpha'}
    assert [s.time_start for s in newest.ordered_sessions()] == [DAY,
                                                                 2 * DAY]


def runs_dir_with_nights(tmp_path, capsys, nights, regress_from=None):
    """A runs directory of ``nights`` nights and a baseline of the first
    two (as the gate's own tests make one)."""
    runs = tmp_path / 'runs-a'
    runs.mkdir()
    db = runs / 'results.db'
    reports = [nightly(n * DAY, scale=0.8 if regress_from is not None and
                       n >= regress_from else 1.0 + 0.002 * (n % 3),
                       extras={'fs_version': '1.8' if n < 3 else '2.0'})
               for n in range(nights)]
    synth.write_database(str(db), reports[:2])
    code, _, err = run(['baseline', 'record', 'pre', '--since',
                        '1970-01-01', '--db', str(db)], capsys)
    assert code == 0, err
    synth.write_database(str(db), reports[2:])
    return runs, db


@pytest.mark.parametrize('regress_from,window', [(None, None), (4, None),
                                                 (4, 3)])
def test_gate_from_the_store_says_what_the_runs_directory_says(
        store_url, tmp_path, capsys, regress_from, window):
    runs, db = runs_dir_with_nights(tmp_path, capsys, 6, regress_from)
    code, out, err = run(['ingest', '--from-runs', str(runs), '--store',
                          store_url, '--system', 'alpha'], capsys)
    assert code == 0, err
    assert 'baseline pre: stored for alpha' in out
    # Another cluster's nights in the same store change nothing.
    other = tmp_path / 'other.json'
    write_report(other, nightly(5.5 * DAY, scale=0.5, system='alpha'))
    assert run(['ingest', str(other), '--store', store_url, '--system',
                'beta'], capsys)[0] == 0

    # The repeats alone decide (as tests/test_gate_cli.py's repeats_alone):
    # a clear verdict either way.
    from pfsbench.gate.judge import config as gate_config
    text = open(gate_config.DEFAULT_PATH).read()
    config = tmp_path / 'gate.yaml'
    text = text.replace('assumed_night_cv: 0.10\n', 'assumed_night_cv: 0\n')
    if window:
        # A window shorter than the history: both read the history's
        # series of every night (the index's, the store's).
        text = text.replace('history_sessions: 400\n',
                            f'history_sessions: {window}\n')
    config.write_text(text)
    outputs = []
    for source in (['--db', str(db)],
                   ['--store', store_url, '--system', 'alpha']):
        for fmt in ('text', 'json', 'markdown'):
            code, out, err = run(['gate', '-b', 'pre', '--format', fmt,
                                  '--config', str(config), *source], capsys)
            outputs.append((code, fmt, _no_triage(out) if fmt != 'json'
                            else _verdicts(out), err))
    from_runs, from_store = outputs[:3], outputs[3:]
    assert from_runs == from_store
    # (What the verdict is, is the gate's business; here, that the store
    # gives the same one: a loss of 20 % shows, an unchanged week passes.)
    if regress_from:
        assert '-20.1%' in from_runs[0][2]
    else:
        assert from_runs[0][0] == 0, from_runs[0][2]
        assert from_runs[0][2].startswith('pfsbench gate: PASS')


def test_gate_reads_the_store_pfsbench_store_names(store_url, tmp_path,
                                                   capsys, monkeypatch):
    # As ingest and history do: $PFSBENCH_STORE is the store when --store
    # is not given (a site sets it once for every login node); --db still
    # names the runs directory, as the nightly does when the store is down.
    with store.open_store(store_url) as conn:
        for system in ('alpha', 'beta'):
            store.ingest_report(conn, nightly(0, system=system), 'r')
    monkeypatch.setenv('PFSBENCH_STORE', store_url)
    code, _, err = run(['gate', '-b', 'pre'], capsys)
    assert code == 2
    assert "holds 2 clusters (alpha, beta): name one" in err
    runs, db = runs_dir_with_nights(tmp_path, capsys, 3, None)
    code, out, err = run(['gate', '-b', 'pre', '--db', str(db)], capsys)
    # A verdict from the runs directory's three nights, not the store's
    # refusal to choose between its two clusters.
    assert code == 0, err
    assert out.startswith('pfsbench gate: '), out


def _no_triage(text):
    """A report without the site's triage record, which only a store
    keeps (docs/triage.md)."""
    return re.sub(r'^(## Triage: )?triage record of .*\n\n?', '', text,
                  flags=re.M).rstrip('\n')


def _verdicts(text):
    record = json.loads(text)
    for key in ('created', 'source'):
        record.pop(key)
    record['baseline'].pop('path')
    return json.dumps(record, sort_keys=True)


def test_gate_needs_a_cluster_when_the_store_holds_several(store_url,
                                                           capsys):
    with store.open_store(store_url) as conn:
        for system in ('alpha', 'beta'):
            store.ingest_report(conn, nightly(0, system=system), 'r')
    code, _, err = run(['gate', '-b', 'pre', '--store', store_url], capsys)
    assert code == 2
    assert "holds 2 clusters (alpha, beta): name one" in err
    code, _, err = run(['gate', '-b', 'pre', '--store', store_url,
                        '--system', 'alpha'], capsys)
    assert code == 3
    assert "baselines/alpha/pre: baseline not found (kept for alpha: none" \
        in err


def test_a_report_waits_in_the_spool_while_the_store_is_down(tmp_path,
                                                             capsys):
    # SQLite: a store whose directory cannot be made does not answer.
    blocker = tmp_path / 'not-a-dir'
    blocker.write_text('')
    down = str(blocker / 'store.sqlite')
    spool = tmp_path / 'spool'
    first = write_report(tmp_path / 'one.json', nightly(DAY))
    code, _, err = run(['ingest', first, '--store', down, '--spool',
                        str(spool)], capsys)
    assert code == 3
    assert 'cannot be opened' in err and '1 report(s) wait in' in err
    assert len(os.listdir(spool)) == 1

    up = str(tmp_path / 'store.sqlite')
    second = write_report(tmp_path / 'two.json', nightly(2 * DAY))
    code, out, err = run(['ingest', second, '--store', up, '--spool',
                          str(spool)], capsys)
    assert code == 0, err
    assert '2 session(s) stored, 0 already there' in out
    assert os.listdir(spool) == []


def test_a_spooled_night_goes_in_under_its_own_cluster(tmp_path, capsys):
    """A night spooled for one cluster is loaded by whatever ingest runs
    next on that login node: it goes in under the cluster it was kept
    for, not under the next ingest's --system (found by
    bench/store_clusters.py: a twin's ingest took the spooled night)."""
    (tmp_path / 'not-a-dir').write_text('')
    down = str(tmp_path / 'not-a-dir' / 'store.sqlite')
    spool = tmp_path / 'spool'
    first = write_report(tmp_path / 'one.json', nightly(0))
    code, _, _ = run(['ingest', first, '--store', down, '--system', 'alpha',
                      '--spool', str(spool)], capsys)
    assert code == 3 and len(os.listdir(spool)) == 1
    up = str(tmp_path / 'store.sqlite')
    other = write_report(tmp_path / 'two.json', nightly(DAY))
    code, out, err = run(['ingest', other, '--store', up, '--system', 'beta',
                          '--spool', str(spool)], capsys)
    assert code == 0, err
    assert '(cluster alpha)' in out and '(cluster beta)' in out, out
    with store.open_store(up) as conn:
        assert store.systems(conn) == ['alpha', 'beta']


def test_history_shows_every_cluster(store_url, capsys):
    with store.open_store(store_url) as conn:
        for night in range(2):
            for system in ('alpha', 'beta', 'gamma'):
                store.ingest_report(conn, nightly(
                    night * DAY, system=system,
                    loggable={'target_path': f'/scratch/{system}',
                              'target_fstype': 'lustre'}), 'r')
    code, out, err = run(['history', 'write_bw', '--store', store_url,
                          '--name', CASE1], capsys)
    assert code == 0, err
    assert out.startswith('write_bw: 6 night(s) of 3 cluster(s)\n')
    assert 'gamma:default /scratch/gamma (lustre)  ' + CASE1 in out
    assert '1970-01-02' in out and '500 MB/s  [495 .. 505]  n=3' in out
    code, out, _ = run(['history', 'write_bw', '--store', store_url,
                        '--system', 'beta', '--format', 'json'], capsys)
    rows = json.loads(out)['rows']
    assert {r['system'] for r in rows} == {'beta'} and len(rows) == 4
    # Two nights of two cases: two nights, not four.
    code, out, _ = run(['history', 'write_bw', '--store', store_url,
                        '--system', 'beta'], capsys)
    assert out.startswith('write_bw: 2 night(s) of 1 cluster(s)\n'), out
    code, _, err = run(['history', 'read_bw', '--store', store_url], capsys)
    assert code == 3 and "figure 'read_bw': no values stored" in err
    # The HTML report's plots: one per case, one line per cluster.
    code, out, err = run(['history', 'write_bw', '--store', store_url,
                          '--format', 'html'], capsys)
    assert code == 0, err
    assert out.count('<svg ') == 2 and out.count('<polyline ') == 6
    assert '<title>gamma:default /scratch/gamma (lustre)</title>' in out


def test_a_password_in_the_url_is_never_shown():
    assert store.db.redact('postgresql://u:s3cret@h:5/db') == \
        'postgresql://u:***@h:5/db'


def test_the_gate_settings_name_the_store(tmp_path, capsys):
    from pfsbench.gate.judge import config as gate_config
    text = open(gate_config.DEFAULT_PATH).read()
    config = tmp_path / 'gate.yaml'
    url = str(tmp_path / 'elsewhere.sqlite')
    config.write_text(text + f'store: {url}\n')
    report = write_report(tmp_path / 'r.json', nightly(DAY))
    code, out, err = run(['ingest', report, '--config', str(config)], capsys)
    assert code == 0, err
    assert out.endswith(f'in {url}\n')
    code, _, err = run(['gate', '-b', 'pre', '--config', str(config)], capsys)
    assert code == 3 and f'{url}#baselines/local/pre' in err
    # A password in the settings is refused, naming the key.
    config.write_text(text + 'store: postgresql://u:pw@h/db\n')
    code, _, err = run(['gate', '-b', 'pre', '--config', str(config)], capsys)
    assert code == 2 and ':store:' in err


def test_two_clusters_ingest_at_once_and_lose_nothing(store_url):
    """Two clusters' nightlies, and the same session twice, at the same
    moment: every session once, none lost; a reader is not blocked."""
    import threading
    reports = {system: [nightly(n * DAY, system=system) for n in range(4)]
               for system in ('alpha', 'beta')}
    twice = nightly(9 * DAY, system='alpha')
    errors, added = [], []

    def nightly_of(system):
        try:
            with store.open_store(store_url, timeout=30) as conn:
                for report in reports[system] + [twice]:
                    added.append(store.ingest_report(conn, report, system,
                                                     system='alpha'
                                                     if report is twice
                                                     else system)[2])
        except Exception as err:          # noqa: BLE001 - named below
            errors.append(err)

    with store.open_store(store_url) as conn:
        pass                              # the schema, made once
    threads = [threading.Thread(target=nightly_of, args=(s,))
               for s in reports]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    assert added.count(True) == 9 and added.count(False) == 1
    with store.open_store(store_url) as conn:
        alpha = store.read_results(conn, 'alpha')
        beta = store.read_results(conn, 'beta')
        nfig = conn.execute('SELECT COUNT(*) FROM pfsbench_figures'
                            ).fetchone()[0]
    assert (len(alpha.sessions), len(beta.sessions)) == (5, 4)
    assert nfig == 9 * 6


def _kept(conn):
    return sorted(tuple(r) for r in conn.execute(
        'SELECT system, scope, sessions FROM pfsbench_series'))


def _series_text(results):
    from pfsbench.store import codec
    series, inside = results.series()
    return codec.dumps(series), inside


def _built_afresh(conn, **kwargs):
    """What read_results gives with no series kept (and none written)."""
    conn.execute('DELETE FROM pfsbench_series')
    conn.commit()
    return _series_text(store.read_results(conn, 'local', keep=False,
                                           **kwargs))


def test_the_kept_series_is_the_one_built_from_the_rows(store_url):
    """The gate's history is kept in the store (pfsbench_series) and
    brought up to date night by night; it must be, entry for entry, the
    series built from every session's rows: after a night appended, a
    night stored late (older than the newest), for one target, and when
    the kept one was written by another pfsbench."""
    def night(n, scale=1.0, target='/scratch'):
        # Three repeats: a short night is measured by the scale of the
        # nights before it, so the order of the nights matters.
        return nightly(n * DAY, scale=scale + 0.01 * (n % 3),
                       loggable={'target_path': target})

    with store.open_store(store_url) as conn:
        for n in range(4):
            store.ingest_report(conn, night(n), 'r')
        store.ingest_report(conn, night(4, target='/other'), 'r')
        assert store.refresh_series(conn, 'local') == 5
        assert _kept(conn) == [('local', 'null', 5)]

        store.ingest_report(conn, night(5, scale=0.8), 'r')
        appended = _series_text(store.read_results(conn, 'local', newest=3))
        assert _kept(conn) == [('local', 'null', 6)]       # written back
        assert appended == _built_afresh(conn, newest=3)
        assert appended[1] == [False] * 3 + [True] * 3

        store.refresh_series(conn, 'local')
        store.ingest_report(conn, night(2.5, scale=1.3), 'r')
        store.read_results(conn, 'local', target='/scratch')
        assert [s for _, s, _ in _kept(conn)] == ['"/scratch"', 'null']
        store.ingest_report(conn, night(1.5, scale=0.7), 'r')
        assert store.refresh_series(conn, 'local') == 8
        assert _kept(conn) == [('local', '"/scratch"', 8),
                               ('local', 'null', 8)]
        late = _series_text(store.read_results(conn, 'local'))
        assert late == _built_afresh(conn)
        store.refresh_series(conn, 'local')
        one = _series_text(store.read_results(conn, 'local',
                                              target='/scratch'))
        assert one == _built_afresh(conn, target='/scratch')
        assert one != late                  # the night on /other is not in

        store.refresh_series(conn, 'local')
        conn.execute("UPDATE pfsbench_series SET stamp = 'old', body = 'x'")
        conn.commit()
        again = _series_text(store.read_results(conn, 'local'))
        assert again == late
        assert conn.execute('SELECT stamp FROM pfsbench_series WHERE '
                            "scope = 'null'").fetchone()[0] != 'old'


def test_the_kept_series_is_rewritten_once_it_lags_beyond_lag(store_url):
    """A night's ingest writes its rows, not the year's series (about 2.5
    s a night for 500 cases): the kept series is rewritten once it misses
    more than ``lag`` nights, and a reader adds the missing ones in memory
    meanwhile, to the same series as one built from the rows."""
    with store.open_store(store_url) as conn:
        for n in range(3):
            store.ingest_report(conn, nightly(n * DAY), 'r')
        assert store.refresh_series(conn, 'local', 2) == 3
        assert _kept(conn) == [('local', 'null', 3)]
        for n in (3, 4):
            store.ingest_report(conn, nightly(n * DAY), 'r')
            store.refresh_series(conn, 'local', 2)
            lagging = _series_text(store.read_results(conn, 'local', lag=2))
            assert _kept(conn) == [('local', 'null', 3)]   # not rewritten
        assert lagging == _built_afresh(conn)
        store.refresh_series(conn, 'local', 2)             # rebuilt: 5
        store.ingest_report(conn, nightly(5 * DAY), 'r')
        store.refresh_series(conn, 'local', 0)
        assert _kept(conn) == [('local', 'null', 6)]
        for n in (6, 7, 8):
            store.ingest_report(conn, nightly(n * DAY), 'r')
        store.refresh_series(conn, 'local', 2)           # 3 behind: written
        assert _kept(conn) == [('local', 'null', 9)]
        # A night stored late (older than the newest kept) rebuilds it
        # whatever the lag.
        store.ingest_report(conn, nightly(4.5 * DAY), 'r')
        store.refresh_series(conn, 'local', 5)
        assert _kept(conn) == [('local', 'null', 10)]


def test_a_store_of_schema_1_is_read_and_migrated(tmp_path):
    """A store written before the series table: the gate reads it as it
    is (without writing), the next ingest adds the table."""
    url = str(tmp_path / 'old.sqlite')
    with store.open_store(url) as conn:
        store.ingest_report(conn, nightly(0), 'r')
        conn.execute('DROP TABLE pfsbench_series')
        conn.execute('ALTER TABLE pfsbench_cases DROP COLUMN untimed')
        conn.execute('DELETE FROM pfsbench_migrations WHERE version >= 2')
        conn.commit()
    with store.open_store(url, create=False, migrate=False) as conn:
        got = store.read_results(conn, 'local')
        assert len(got.series()[0].uuids) == 1
    with store.open_store(url) as conn:
        store.ingest_report(conn, nightly(DAY), 'r')
        assert store.refresh_series(conn, 'local') == 2
        assert _kept(conn) == [('local', 'null', 2)]


def test_a_store_of_schema_2_is_read_without_the_untimed_column(tmp_path):
    """A store written before version 3 (no ``untimed`` column) is read
    as it is by a gate that may not migrate it (its cases timed every
    figure), and migrated by the next ingest."""
    url = str(tmp_path / 'old.sqlite')
    report = nightly(0)
    report['runs'][0]['testcases'][0]['untimed_figures'] = 'seeks_bw_sum'
    with store.open_store(url) as conn:
        store.ingest_report(conn, report, 'r')
        conn.execute('ALTER TABLE pfsbench_cases DROP COLUMN untimed')
        conn.execute('DELETE FROM pfsbench_migrations WHERE version >= 3')
        conn.commit()
    with store.open_store(url, create=False, migrate=False) as conn:
        got = store.read_results(conn, 'local')
        assert len(got.records) == 6
        assert {r.untimed for r in got.records} == {()}
    with store.open_store(url) as conn:
        store.ingest_report(conn, nightly(DAY), 'r')
        store.ingest_report(conn, report | {'session_info': dict(
            report['session_info'], uuid='again')}, 'r')
        got = store.read_results(conn, 'local')
        assert [r.untimed for r in got.records
                if r.session == 'again'][0] == ('seeks_bw_sum',)


def test_a_night_being_ingested_blocks_no_gate(store_url, monkeypatch):
    """While cluster alpha's ingest holds its transaction open (its rows,
    and its series row being written), beta's gate and alpha's own gate
    read, each with its series a night behind (they would write it):
    neither waits for alpha's commit (the series is a cache: a gate
    gives up writing it after SERIES_LOCK_WAIT).  On PostgreSQL beta
    ingests meanwhile too; SQLite has one writer at a time (beta's
    ingest would wait for alpha's commit: docs/results-store.md)."""
    import time
    # A statement that hangs on a lock fails the test instead of hanging.
    monkeypatch.setenv('PGOPTIONS', '-c statement_timeout=8000')
    with store.open_store(store_url) as conn:
        for n in range(3):
            for system in ('alpha', 'beta'):
                store.ingest_report(conn, nightly(n * DAY, system=system),
                                    'r')
        for system in ('alpha', 'beta'):
            store.refresh_series(conn, system)
            store.ingest_report(conn, nightly(3 * DAY, system=system), 'r')
        postgres = conn.postgres

    writer = store.open_store(store_url)
    try:
        store.ingest_report(writer, nightly(4 * DAY, system='alpha'), 'r',
                            commit=False)
        writer.execute("UPDATE pfsbench_series SET written = 'now' WHERE "
                       "system = 'alpha'")
        for system in ('beta', 'alpha'):
            t0 = time.monotonic()
            with store.open_store(store_url, create=False,
                                  migrate=False) as conn:
                got = store.read_results(conn, system, newest=2)
            series, _ = got.series()
            assert len(got.records) == 12
            took = time.monotonic() - t0
            assert took < 4, f'{system}: {took:.1f} s'
            assert len(series.uuids) == 4
        if postgres:
            t0 = time.monotonic()
            with store.open_store(store_url) as conn:
                store.ingest_report(conn, nightly(4 * DAY, system='beta'),
                                    'r')
                assert store.refresh_series(conn, 'beta') == 5
            assert time.monotonic() - t0 < 4
        writer.commit()
    finally:
        writer.close()
    with store.open_store(store_url) as conn:
        assert [len(store.read_results(conn, s).sessions)
                for s in ('alpha', 'beta')] == [5, 5 if postgres else 4]


def test_an_ingest_that_fails_leaves_nothing_for_the_next_to_commit(
        store_url, monkeypatch):
    # The figures of the first night fail to go in: its session row must
    # not be committed by the next ingest on the same connection.
    failing, good = nightly(DAY), nightly(2 * DAY)
    with store.open_store(store_url) as conn:
        real = conn.insert_rows

        def refuse_figures(table, *rest):
            if table == 'pfsbench_figures':
                raise conn.errors[0]('disk full (a test)')
            return real(table, *rest)

        monkeypatch.setattr(conn, 'insert_rows', refuse_figures)
        with pytest.raises(conn.errors[0]):
            store.ingest_report(conn, failing, 'one.json')
        monkeypatch.setattr(conn, 'insert_rows', real)
        store.ingest_report(conn, good, 'two.json')
    with store.open_store(store_url) as conn:
        stored = [u for u, in conn.execute(
            'SELECT uuid FROM pfsbench_sessions')]
    assert stored == [good['session_info']['uuid']]


def test_a_migration_interrupted_half_way_leaves_nothing(store_url,
                                                         monkeypatch):
    # The second statement of the first migration fails: its first
    # (CREATE TABLE pfsbench_sessions) must go too, or the retry fails
    # with "already exists".
    from pfsbench.store import db, schema
    real = db.Connection.execute

    def interrupted(self, statement, params=()):
        if statement.startswith('CREATE INDEX pfsbench_sessions_system'):
            raise self.errors[0]('interrupted (a test)')
        return real(self, statement, params)

    monkeypatch.setattr(db.Connection, 'execute', interrupted)
    with pytest.raises(PfsbenchError):
        store.open_store(store_url)
    monkeypatch.setattr(db.Connection, 'execute', real)
    with store.open_store(store_url, migrate=False, create=False) as conn:
        assert schema.applied_version(conn) == 0
        with pytest.raises(conn.errors):
            conn.execute('SELECT 1 FROM pfsbench_sessions')
    with store.open_store(store_url) as conn:
        assert schema.applied_version(conn) == schema.VERSION
        assert conn.execute('SELECT COUNT(*) FROM pfsbench_sessions'
                            ).fetchone()[0] == 0


def test_each_table_has_the_columns_named_once(store_url):
    # The inserts and readers use pfsbench.store.columns: a migration
    # that adds a column the list lacks (or a name misspelled) fails here.
    from pfsbench.store import columns
    assert len(columns.TABLES) == 7
    with store.open_store(store_url) as conn:
        for table, named in columns.TABLES.items():
            cur = conn.execute(f'SELECT * FROM {table} WHERE 1 = 0')
            found = [d[0] for d in cur.description]
            assert sorted(found) == sorted(named), table
            assert len(set(named)) == len(named), table


def test_a_row_is_built_by_column_name_only():
    from pfsbench.store import columns
    assert columns.row(columns.BASELINES, {
        'ingested': 't', 'body': '{}', 'name': 'pre', 'system': 'a'}) == (
            'a', 'pre', '{}', 't')
    with pytest.raises(KeyError):       # a column missing
        columns.row(columns.BASELINES, {'system': 'a', 'name': 'pre',
                                        'body': '{}'})
    with pytest.raises(KeyError):       # a name that is not a column
        columns.row(columns.BASELINES, {'system': 'a', 'name': 'pre',
                                        'body': '{}', 'ingested': 't',
                                        'extra': 1})
    assert columns.insert('pfsbench_baselines', columns.BASELINES) == (
        'INSERT INTO pfsbench_baselines(system, name, body, ingested) '
        'VALUES(?,?,?,?)')


def test_the_provenance_of_a_figures_sessions(store_url):
    # The history page flags where provenance changed: each session of
    # the figure's rows, oldest first, with its extras as the gate
    # compares them; sessions without the figure are not there.
    nights = [nightly(3 * DAY, extras={'fs_version': '2.0'}),
              nightly(DAY), nightly(2 * DAY),
              nightly(4 * DAY, var='read_bw',
                      extras={'fs_version': '9.9'}),
              nightly(5 * DAY, system='beta',
                      extras={'fs_version': '1.8', HOSTILE: HOSTILE})]
    with store.open_store(store_url) as conn:
        for report in nights:
            store.ingest_report(conn, report, 'r.json')
        got = store.provenance_history(conn, 'write_bw')
        alpha = store.provenance_history(conn, 'write_bw',
                                         systems_=['local'],
                                         since='1970-01-03')
        named = store.provenance_history(conn, 'write_bw', name='%nodes=2')
        none = store.provenance_history(conn, 'write_bw', name='ior')
    assert [(r['system'], r['night'], r['provenance']['fs_version'])
            for r in got] == [('local', '1970-01-02', '1.8'),
                              ('local', '1970-01-03', '1.8'),
                              ('local', '1970-01-04', '2.0'),
                              ('beta', '1970-01-06', '1.8')]
    assert [r['time'] for r in got] == [DAY, 2 * DAY, 3 * DAY, 5 * DAY]
    assert [r['session'] for r in got] == [
        nights[i]['session_info']['uuid'] for i in (1, 2, 0, 4)]
    assert got[-1]['provenance'][HOSTILE] == HOSTILE
    assert {'reframe_version', 'hostname'} <= got[0]['provenance'].keys()
    assert [r['night'] for r in alpha] == ['1970-01-03', '1970-01-04']
    assert named == got and none == []
