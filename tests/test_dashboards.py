# SPDX-License-Identifier: BSD-3-Clause
"""The store's SQL face (pfsbench.store.views) and the Grafana dashboard
(config/grafana/pfsbench-dashboard.json): every panel's, variable's and
annotation's query runs against a store holding a few nights, on SQLite
and on a throw-away PostgreSQL 15, and returns the rows expected of
them (docs/dashboards.md)."""

import json
import pathlib
import re

import pytest

from pfsbench import store
from pfsbench.store import triage, views
import synth
from test_store import store_url  # noqa: F401
from test_store_roles import doc_sql, roles  # noqa: F401

REPO = pathlib.Path(__file__).resolve().parent.parent
DASHBOARD = REPO / 'config' / 'grafana' / 'pfsbench-dashboard.json'
CASE1 = 'dd_stream_per_node %nodes=1'
CASE2 = 'dd_stream_per_node %nodes=2'
DAY = 86400.0
#: Night 3 loses 20 % on CASE1, and its server version changed.
HAWK = [({CASE1: [500.0, 510.0, 490.0], CASE2: [900.0, 910.0, 890.0]}, '1.8'),
        ({CASE1: [505.0, 495.0, 500.0], CASE2: [905.0, 895.0, 900.0]}, '1.8'),
        ({CASE1: [400.0, 404.0, 396.0], CASE2: [900.0, 900.0, 900.0]}, '1.9')]
#: Columns every release keeps (docs/dashboards.md).
COLUMNS = {
    'pfsbench_v_nights': [
        'time', 'epoch', 'night', 'cluster', 'partition', 'target',
        'filesystem', 'test', 'rf_system', 'environ', 'figure', 'unit',
        'mean', 'n', 'min', 'max', 'failed', 'sessions'],
    'pfsbench_v_sessions': [
        'time', 'epoch', 'night', 'cluster', 'session', 'hostname',
        'reframe_version', 'cases', 'failures', 'aborted', 'skipped',
        'spack_lock'],
    'pfsbench_v_provenance': [
        'time', 'epoch', 'night', 'cluster', 'session', 'key', 'value'],
    'pfsbench_v_pages': [
        'time', 'night', 'cluster', 'session', 'case', 'figure', 'kind',
        'change', 'mark', 'who', 'why'],
}


def ingest_nights(conn):
    """Three nights of hawk (the third a loss and a new server version,
    its page marked invalid, then acknowledged), one of vulcan (one
    repeat failed, a case held)."""
    for n, (cases, version) in enumerate(HAWK):
        uuid, _, _ = store.ingest_report(conn, synth.session(
            cases, time_start=(n + 1) * DAY + 3600, system='hawk',
            extras={'fs_version': version, 'spack_lock': f'lock{n}'}),
            f'hawk{n}.json')
    page = ('1970-01-04', uuid, CASE1, 'write_bw')
    triage.keep_pages(conn, 'hawk', [page + ('paged', -0.2)], 'now')
    for when, what, who in (('t1', 'invalid', 'alice'), ('t2', 'ack', 'bob')):
        triage.mark(conn, uuid, '', '', what, who, 'upgrade', when)
    triage.keep_pages(conn, 'vulcan', [('1970-01-04', 'v', CASE1, 'write_bw',
                                        'held', -0.1)], 'now')
    vulcan = synth.session({CASE1: [300.0, 310.0]}, time_start=3 * DAY,
                           system='vulcan', extras={'fs_version': '2.0'})
    vulcan['runs'][0]['testcases'][1]['result'] = 'fail'
    store.ingest_report(conn, vulcan, 'vulcan.json')


def grafana_sql(sql, variables, start='1970-01-01T00:00:00Z',
                end='1970-01-05T00:00:00Z'):
    """``sql`` as Grafana's PostgreSQL data source sends it: a multi-value
    variable as a quoted list, a single value escaped in place, the time
    filter as a BETWEEN of ISO 8601 literals."""
    sql = re.sub(r'\$__timeFilter\(([^)]*)\)',
                 lambda m: f"{m.group(1)} BETWEEN '{start}' AND '{end}'", sql)
    for name, value in variables.items():
        if isinstance(value, list):
            text = ','.join("'" + v.replace("'", "''") + "'" for v in value)
        else:
            text = value.replace("'", "''")
        sql = sql.replace(f'${name}', text)
    assert '$' not in sql, sql
    return sql


def rows(conn, sql, **variables):
    cur = conn.execute(grafana_sql(sql, variables))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def queries():
    """``{where: SQL}`` of every query of the dashboard."""
    board = json.loads(DASHBOARD.read_text())
    out = {f'panel {p["title"]}': t['rawSql'] for p in board['panels']
           for t in p['targets']}
    out.update({f'variable {v["name"]}': v['query']
                for v in board['templating']['list']})
    out.update({f'annotation {a["name"]}': a['target']['rawSql']
                for a in board['annotations']['list']})
    assert len(out) == 9
    return out


def test_the_views_have_their_columns_and_a_row_per_night(store_url):
    with store.open_store(store_url) as conn:
        ingest_nights(conn)
        for name, columns in COLUMNS.items():
            cur = conn.execute(f'SELECT * FROM {name} WHERE 1 = 0')
            assert [d[0] for d in cur.description] == columns, name
        got = rows(conn, 'SELECT night, cluster, test, mean, n, min, max, '
                         'failed, unit FROM pfsbench_v_nights ORDER BY '
                         'cluster, night, test')
    assert len(got) == 7
    assert got[4] == {'night': '1970-01-04', 'cluster': 'hawk', 'test': CASE1,
                      'mean': pytest.approx(400.0), 'n': 3, 'min': 396.0,
                      'max': 404.0, 'failed': 0, 'unit': 'MB/s'}
    assert got[6]['cluster'] == 'vulcan' and got[6]['failed'] == 1
    assert got[6]['mean'] == pytest.approx(305.0)


def test_every_dashboard_query_returns_the_expected_rows(store_url):
    q = queries()
    both = ['hawk', 'vulcan']
    with store.open_store(store_url) as conn:
        ingest_nights(conn)
        clusters = rows(conn, q['variable cluster'])
        figures = rows(conn, q['variable figure'], cluster=both)
        series = rows(conn, q["panel $figure: each night's mean"],
                      cluster=['hawk'], figure='write_bw')
        newest = rows(conn, q['panel $figure: the newest night of each case'],
                      cluster=both, figure='write_bw')
        stored = rows(conn, q['panel Nights stored'], cluster=both)
        changes = rows(conn, q['panel Provenance changes'], cluster=both)
        marks = rows(conn, q['annotation Provenance changes'], cluster=both)
        nothing = rows(conn, q['panel Nights stored'], cluster=['nobody'])
        tally = rows(conn, q['panel Pages and their triage'], cluster=both)
        pages = rows(conn, q['panel Pages'], cluster=both)
    assert [c['cluster'] for c in clusters] == both
    assert [f['figure'] for f in figures] == ['write_bw']
    means = [sum(v) / len(v) for cases, _ in HAWK for v in cases.values()]
    assert [s['value'] for s in series] == pytest.approx(means)
    assert [s['metric'] for s in series][:2] == [
        f'hawk {CASE1} default ', f'hawk {CASE2} default ']
    assert [(r['cluster'], r['test'], r['night'], r['n'], r['failed'])
            for r in newest] == [('hawk', CASE1, '1970-01-04', 3, 0),
                                 ('hawk', CASE2, '1970-01-04', 3, 0),
                                 ('vulcan', CASE1, '1970-01-04', 2, 1)]
    assert newest[0]['mean'] == pytest.approx(400.0)
    assert [(r['cluster'], r['sessions'], r['newest'], r['failures'])
            for r in stored] == [('hawk', 3, '1970-01-04', 0),
                                 ('vulcan', 1, '1970-01-04', 0)]
    assert [(r['cluster'], r['key'], r['previous'], r['value'])
            for r in changes] == [('hawk', 'spack_lock', 'lock0', 'lock1'),
                                  ('hawk', 'fs_version', '1.8', '1.9'),
                                  ('hawk', 'spack_lock', 'lock1', 'lock2')]
    assert [m['text'] for m in marks] == [
        'hawk: spack_lock lock0 -> lock1', 'hawk: fs_version 1.8 -> 1.9',
        'hawk: spack_lock lock1 -> lock2']
    assert nothing == []
    assert tally == [{'cluster': 'hawk', 'pages': 1, 'invalid': 0,
                      'acknowledged': 1, 'held': 0},
                     {'cluster': 'vulcan', 'pages': 0, 'invalid': 0,
                      'acknowledged': 0, 'held': 1}]
    assert [(p['cluster'], p['case'], p['kind'], p['mark'], p['who'])
            for p in pages] == [('hawk', CASE1, 'paged', 'ack', 'bob'),
                                ('vulcan', CASE1, 'held', None, None)]


def test_an_old_store_migrated_has_the_views(store_url):
    """A store of schema 1 (before the views): the next open migrates it
    and the views answer with the same columns and rows."""
    with store.open_store(store_url) as conn:
        ingest_nights(conn)
        before = rows(conn, 'SELECT * FROM pfsbench_v_nights ORDER BY '
                            'cluster, night, test')
        for statement in views.DROP + (
                'DROP TABLE pfsbench_series',
                'ALTER TABLE pfsbench_cases DROP COLUMN untimed',
                'DELETE FROM pfsbench_migrations WHERE version >= 2'):
            conn.execute(statement)
        conn.commit()
        assert views.missing(conn) == list(views.NAMES)
    with store.open_store(store_url) as conn:
        assert views.missing(conn) == []
        after = rows(conn, 'SELECT * FROM pfsbench_v_nights ORDER BY '
                           'cluster, night, test')
        # Opening a current store writes nothing.
        assert views.ensure(conn, False) is False
    assert len(before) == 7 and after == before


def test_a_view_dropped_is_made_again_at_the_next_open(store_url):
    with store.open_store(store_url) as conn:
        conn.execute('DROP VIEW pfsbench_v_provenance')
        conn.commit()
        assert views.missing(conn) == ['pfsbench_v_provenance']
    with store.open_store(store_url) as conn:
        assert views.missing(conn) == []


def test_the_roles_read_the_views_and_an_ingest_role_leaves_them(
        roles, tmp_path, capsys):
    """docs/results-store.md's roles: the read role (Grafana's) selects
    from the views, also from views the owner made again; the ingest role
    cannot create them and ingests all the same."""
    import psycopg
    owner, ingest, read = (roles[f'pfsbench_{r}']
                           for r in ('owner', 'ingest', 'read'))
    with store.open_store(owner) as conn:
        ingest_nights(conn)
    with psycopg.connect(owner, autocommit=True) as conn:
        for statement in doc_sql('grants'):
            conn.execute(statement)
        for statement in views.DROP:
            conn.execute(statement)
    with store.open_store(ingest) as conn:       # refused: left as they are
        store.ingest_report(conn, synth.session(
            {CASE1: [480.0]}, time_start=5 * DAY, system='hawk'), 'r')
        assert views.missing(conn) == list(views.NAMES)
    with store.open_store(owner) as conn:
        assert views.missing(conn) == []
    with psycopg.connect(read) as conn:
        got = conn.execute('SELECT cluster, night, n FROM pfsbench_v_nights '
                           "WHERE night = '1970-01-06'").fetchall()
    assert got == [('hawk', '1970-01-06', 1)]
