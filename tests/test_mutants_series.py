# SPDX-License-Identifier: BSD-3-Clause
"""The kept series (pfsbench.store.series) through its public functions:
the mutants bench/mutation.py found the store's tests letting through
(docs/mutation.md).  SQLite only: pure and fast."""

import json
import sqlite3
import time

from pfsbench.core import fields
from pfsbench.store import codec, db, ingest, records, series
from pfsbench.store.connect import open_store
import synth

DAY = 86400.0


def _ingest(conn, night, system='alpha', target='/a', cases=('dd %n=1',)):
    ingest.ingest_report(conn, synth.session(
        {name: [float(night), night + 1.0] for name in cases},
        time_start=night * DAY,
        repeats=2, system=system, session_uuid=f'{system}-{night:02}',
        loggable={fields.TARGET_PATH: target}), 'r')


def _kept(conn):
    return {(s, json.loads(w)): (n, newest) for s, w, n, newest in
            conn.execute('SELECT system, scope, sessions, newest FROM '
                         'pfsbench_series')}


def _sync(conn, system='alpha', target=None, keep=True, lag=0, chunk=100):
    sessions = records.sessions_of(
        conn, None if system == series.EVERY_CLUSTER else system)
    return series.synced_series(
        conn, None if system == series.EVERY_CLUSTER else system, target,
        sessions, chunk, keep, lag)


def test_scope_is_the_targets_json_as_written():
    assert series.scope(None) == 'null'
    assert series.scope('/mnt/é') == '"/mnt/é"'


def test_a_series_is_written_only_when_kept_and_changed(tmp_path):
    with open_store(str(tmp_path / 's.sqlite')) as conn:
        for night in (1, 2, 3):
            _ingest(conn, night)
        _ingest(conn, 1, system='beta')
        got = _sync(conn, keep=False)
        assert got.uuids == ['alpha-01', 'alpha-02', 'alpha-03']
        assert _kept(conn) == {}
        _sync(conn)
        assert _kept(conn) == {('alpha', None): (3, 'alpha-03')}
        written = conn.execute('SELECT written FROM pfsbench_series'
                               ).fetchone()[0]
        conn.execute("UPDATE pfsbench_series SET written = 'then'")
        assert _sync(conn).uuids == got.uuids        # nothing new
        assert _kept(conn)[('alpha', None)] == (3, 'alpha-03')
        assert conn.execute('SELECT written FROM pfsbench_series'
                            ).fetchone()[0] == 'then'
        assert written.endswith('+00:00')
        every = _sync(conn, system=series.EVERY_CLUSTER, chunk=1)
        assert every.uuids == ['alpha-01', 'beta-01', 'alpha-02', 'alpha-03']
        assert _kept(conn)[('*', None)] == (4, 'alpha-03')


def test_new_nights_beyond_the_lag_rewrite_it(tmp_path):
    with open_store(str(tmp_path / 's.sqlite')) as conn:
        _ingest(conn, 1)
        _sync(conn)
        _ingest(conn, 2)
        _ingest(conn, 3)
        assert len(_sync(conn, lag=2).uuids) == 3       # read, not kept
        assert _kept(conn)[('alpha', None)] == (1, 'alpha-01')
        assert len(_sync(conn, lag=1).uuids) == 3
        assert _kept(conn)[('alpha', None)] == (3, 'alpha-03')


def test_a_gone_or_older_session_rebuilds_it(tmp_path):
    with open_store(str(tmp_path / 's.sqlite')) as conn:
        for night in (2, 3):
            _ingest(conn, night)
        _sync(conn)
        _ingest(conn, 1)                                # older than kept
        got = _sync(conn, lag=5)
        assert got.uuids == ['alpha-01', 'alpha-02', 'alpha-03']
        assert _kept(conn)[('alpha', None)] == (3, 'alpha-03')
        for table in ('figures', 'cases', 'sessions'):
            conn.execute(f'DELETE FROM pfsbench_{table} WHERE '
                         f"{'uuid' if table == 'sessions' else 'session'}"
                         " = 'alpha-02'")
        conn.commit()
        assert _sync(conn, lag=5).uuids == ['alpha-01', 'alpha-03']
        assert _kept(conn)[('alpha', None)] == (2, 'alpha-03')


def test_a_kept_body_that_is_not_a_series_is_built_again(tmp_path):
    with open_store(str(tmp_path / 's.sqlite')) as conn:
        _ingest(conn, 1)
        built = codec.dumps(_sync(conn))
        conn.execute('UPDATE pfsbench_series SET body = ?',
                     (codec.dumps([1]),))
        conn.commit()
        assert codec.dumps(_sync(conn, lag=5)) == built
        assert conn.execute('SELECT body FROM pfsbench_series'
                            ).fetchone()[0] == built


def test_a_series_of_a_target_reads_the_rows_of_its_cases(tmp_path):
    with open_store(str(tmp_path / 's.sqlite')) as conn:
        _ingest(conn, 1, target='/a')
        _ingest(conn, 2, target='/b')
        conn.execute("UPDATE pfsbench_sessions SET figures = 'damaged'")
        got = _sync(conn, target='/b')
        every = _sync(conn)
    assert got.uuids == ['alpha-01', 'alpha-02']
    (_, columns), = got.cases.items()
    assert list(columns.pos) == [1]          # only night 2 wrote to /b
    (_, columns), = every.cases.items()
    assert list(columns.pos) == [0, 1]


def test_writing_it_leaves_the_stores_own_wait(tmp_path):
    with open_store(str(tmp_path / 's.sqlite'), timeout=3.0) as conn:
        _ingest(conn, 1)
        _sync(conn)
        assert _kept(conn)
        assert conn.execute('PRAGMA busy_timeout').fetchone()[0] == 3000


def test_refresh_series_brings_every_kept_scope_up_to_date(tmp_path):
    with open_store(str(tmp_path / 's.sqlite')) as conn:
        _ingest(conn, 1)
        _sync(conn, target='/a')
        conn.execute("INSERT INTO pfsbench_series(system, scope, stamp, "
                     "sessions, newest, body, written) VALUES ('alpha', "
                     "'not json', '', 0, '', '', '')")
        conn.commit()
        _ingest(conn, 2)
        assert series.refresh_series(conn, 'alpha') == 2
        kept = _kept_raw(conn)
        assert series.refresh_series(conn, 'nobody') == 0
    assert kept == {'null': 2, '"/a"': 2, 'not json': 0}


def _kept_raw(conn):
    return dict(conn.execute('SELECT scope, sessions FROM pfsbench_series'))


def test_refresh_series_of_a_store_without_the_table_is_nothing(tmp_path):
    with open_store(str(tmp_path / 's.sqlite')) as conn:
        _ingest(conn, 1)
        conn.execute('DROP TABLE pfsbench_series')
        conn.commit()
        assert series.refresh_series(conn, 'alpha') == 0
        got = _sync(conn)
    assert got.uuids == ['alpha-01']


def test_writing_it_waits_at_most_half_a_second_for_another_writer(
        tmp_path):
    path = str(tmp_path / 's.sqlite')
    with open_store(path, timeout=5.0) as conn:
        _ingest(conn, 1)
        holder = sqlite3.connect(path)
        holder.execute('BEGIN IMMEDIATE')
        try:
            start = time.monotonic()
            got = _sync(conn)
            waited = time.monotonic() - start
        finally:
            holder.rollback()
            holder.close()
        assert got.uuids == ['alpha-01']       # read, not kept
        assert _kept(conn) == {}
        assert 0.4 < waited < 1.4, waited
        assert conn.execute('PRAGMA busy_timeout').fetchone()[0] == 5000


def test_by_default_a_new_night_is_written_and_no_night_is_an_empty_series(
        tmp_path):
    with open_store(str(tmp_path / 's.sqlite')) as conn:
        empty = series.synced_series(conn, 'alpha', None, {}, 100, True)
        assert isinstance(empty, series.Series) and empty.uuids == []
        _ingest(conn, 1)
        sessions = records.sessions_of(conn, 'alpha')
        series.synced_series(conn, 'alpha', None, sessions, 100, True)
        _ingest(conn, 2)
        sessions = records.sessions_of(conn, 'alpha')
        series.synced_series(conn, 'alpha', None, sessions, 100, True)
        assert _kept(conn)[('alpha', None)] == (2, 'alpha-02')


def test_the_figures_kept_at_ingest_are_read_where_this_pfsbench_kept_them(
        tmp_path):
    with open_store(str(tmp_path / 's.sqlite')) as conn:
        for night in (1, 2, 3):
            _ingest(conn, night, cases=('dd %n=1', 'ior'))
        blobs = dict(conn.execute('SELECT uuid, figures FROM '
                                  'pfsbench_sessions'))
        for uuid, figures, stamp in (
                ('alpha-01', 'damaged', ingest.FIGURES_STAMP),
                ('alpha-02', blobs['alpha-03'], ingest.FIGURES_STAMP),
                ('alpha-03', blobs['alpha-01'], 'another pfsbench')):
            conn.execute('UPDATE pfsbench_sessions SET figures = ?, '
                         'figures_stamp = ? WHERE uuid = ?',
                         (figures, stamp, uuid))
        conn.commit()
        got = _sync(conn, keep=False)
    assert sorted(k.name for k in got.cases) == ['dd %n=1', 'ior']
    for name in ('dd %n=1', 'ior'):
        columns = got.cases[records.CaseKey(name, 'alpha', 'default',
                                            'builtin')]
        # night 1 from its rows, night 2 as kept (night 3's), night 3
        # from its rows (kept by another pfsbench)
        assert list(columns.columns['write_bw'][0]) == [1.5, 3.5, 3.5]


def test_a_cluster_whose_sessions_are_all_gone_keeps_an_empty_series(
        tmp_path):
    with open_store(str(tmp_path / 's.sqlite')) as conn:
        _ingest(conn, 1)
        _sync(conn)
        for table in ('figures', 'cases'):
            conn.execute(f'DELETE FROM pfsbench_{table}')
        conn.execute('DELETE FROM pfsbench_sessions')
        conn.commit()
        assert _sync(conn).uuids == []
        assert _kept(conn) == {('alpha', None): (0, '')}


class _AsPostgres(db.Connection):
    """A SQLite store that answers as a PostgreSQL one for the series'
    write: the role's privileges on it (``privileged``), ``SET LOCAL``
    statements kept in :attr:`set_local`."""

    def __init__(self, url, privileged):
        super().__init__(url)
        self.privileged = privileged
        self.set_local = []

    def sql(self, statement):
        return statement

    def execute(self, statement, params=()):
        if 'has_table_privilege' in statement:
            assert statement == (
                "SELECT has_table_privilege('pfsbench_series', 'INSERT') "
                "AND has_table_privilege('pfsbench_series', 'UPDATE')")
            return self.conn.execute('SELECT ?', (self.privileged,))
        if statement.startswith('SET LOCAL'):
            self.set_local.append(statement)
            return self.conn.execute('SELECT 1')
        return super().execute(statement, params)


def test_a_postgresql_role_writes_the_series_only_with_its_privileges(
        tmp_path):
    url = str(tmp_path / 's.sqlite')
    with open_store(url) as conn:
        _ingest(conn, 1)
    for privileged, kept in ((False, {}),
                             (True, {('alpha', None): (1, 'alpha-01')})):
        conn = _AsPostgres(url, privileged)
        try:
            conn.postgres = True
            sessions = records.sessions_of(conn, 'alpha')
            got = series.synced_series(conn, 'alpha', None, sessions, 100,
                                       True)
            conn.postgres = False
            assert got.uuids == ['alpha-01']
            assert _kept(conn) == kept
            assert conn.set_local == (
                ["SET LOCAL lock_timeout = '500ms'"] if privileged else [])
        finally:
            conn.close()
