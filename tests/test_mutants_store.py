# SPDX-License-Identifier: BSD-3-Clause
"""The results store (pfsbench.store) through its public functions: the
mutants bench/mutation.py found the store's tests letting through
(docs/mutation.md).  SQLite only: pure and fast."""

import math
import sqlite3
import time

import pytest

from pfsbench.core import fields
from pfsbench.core.errors import MissingData, PfsbenchError, ResultsError
from pfsbench.store import connect, db, ingest, schema
import synth
from pfsbench.store.db import StoreDown


@pytest.fixture
def behind_utc(monkeypatch):
    """The local time zone 5 hours behind UTC while the test runs."""
    monkeypatch.setenv('TZ', 'EST+5')
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_now_is_utc_whatever_the_local_zone(behind_utc):
    stamp = connect.now()
    assert stamp.endswith('+00:00') and len(stamp) == 25, stamp


def test_open_store_without_create_creates_nothing(tmp_path):
    path = tmp_path / 'none.db'
    with pytest.raises(StoreDown) as err:
        connect.open_store(str(path), create=False)
    assert str(err.value) == (f'{path}: results store not found '
                              '(pfsbench ingest creates it)')
    assert not path.exists()


def test_open_store_without_migrate_names_the_empty_store(tmp_path):
    path = tmp_path / 'empty.db'
    sqlite3.connect(path).close()
    with pytest.raises(MissingData) as err:
        connect.open_store(str(path), migrate=False)
    assert str(err.value) == (f'{path}: no pfsbench results store there '
                              'yet (pfsbench ingest creates it)')
    conn = connect.open_store(str(path))
    conn.close()
    connect.open_store(str(path), migrate=False).close()


def test_open_store_waits_its_timeout_on_a_locked_store_and_says_why(
        tmp_path):
    path = tmp_path / 'locked.db'
    holder = sqlite3.connect(path)
    holder.execute('BEGIN EXCLUSIVE')
    try:
        start = time.monotonic()
        with pytest.raises(StoreDown) as err:
            connect.open_store(str(path), timeout=0.2)
        waited = time.monotonic() - start
    finally:
        holder.rollback()
        holder.close()
    assert 0.15 < waited < 5.0
    assert str(err.value) == (f'{path}: the results store stopped '
                              'answering: database is locked')


def test_to_json_is_compact_keeps_key_order_and_text():
    assert ingest.to_json({'b': 1, 'a': ['é', 2.5]}) == '{"b":1,"a":["é",2.5]}'


def test_night_of_is_the_utc_date_or_zeros(behind_utc):
    assert ingest.night_of(0) == '1970-01-01'
    assert ingest.night_of(86399.5) == '1970-01-01'
    assert ingest.night_of(1e300) == '0000-00-00'


def _figures(conn):
    return conn.execute('SELECT figure, value, raw FROM pfsbench_figures '
                        'ORDER BY seq, pos').fetchall()


def test_a_figure_goes_in_as_a_number_and_as_json_where_it_must(tmp_path):
    report = synth.session({'dd %n=1': [2.5, 1, -0.0, math.inf, True]},
                           time_start=86400.0, repeats=5)
    with connect.open_store(str(tmp_path / 's.db')) as conn:
        ingest.ingest_report(conn, report, 'r')
        got = [(v, r) for _, v, r in _figures(conn)]
    assert got == [(2.5, None), (1.0, '1'), (0.0, '-0.0'),
                   (None, 'Infinity'), (None, 'true')]


def test_the_cluster_is_the_systems_else_the_hosts(tmp_path):
    report = synth.session({'dd %n=1': 1.0}, time_start=86400.0,
                           extras={'fs': 'é', 'az': 1})
    with connect.open_store(str(tmp_path / 's.db')) as conn:
        assert ingest.ingest_report(conn, report, 'r')[1] == 'local'
        empty = dict(report, session_info=dict(report['session_info'],
                                               uuid='u2'), runs=[])
        assert ingest.ingest_report(conn, empty, 'r')[1] == 'vm'
        nameless = dict(empty, session_info=dict(empty['session_info'],
                                                 uuid='u3', hostname=''))
        assert ingest.ingest_report(conn, nameless, 'r')[1] == 'unknown'
        extras = conn.execute('SELECT extras FROM pfsbench_sessions '
                              'ORDER BY uuid').fetchall()
    assert extras == [('{"fs":"é","az":1}',)] * 3


def test_a_bad_report_is_named_by_its_source(tmp_path):
    with connect.open_store(str(tmp_path / 's.db')) as conn:
        with pytest.raises(PfsbenchError) as err:
            ingest.ingest_report(conn, {'session_info': {}}, 'night-7.json')
    assert 'night-7.json' in str(err.value)


def test_a_cases_row_keeps_what_it_was_given_and_blanks_what_it_was_not(
        tmp_path):
    plain = synth.session({'dd %n=1': 1.0}, time_start=86400.0, repeats=1)
    given = synth.session({'ior %n=1': 2.0}, time_start=2 * 86400.0,
                          repeats=1, extras={'spack_lock': 'abc123'},
                          loggable={fields.TARGET_PATH: '/scratch',
                                    fields.TARGET_FSTYPE: 'lustre',
                                    fields.ITERATION_COUNT_FIELDS[0]: 4})
    with connect.open_store(str(tmp_path / 's.db')) as conn:
        ingest.ingest_report(conn, plain, 'r')
        ingest.ingest_report(conn, given, 'r')
        cases = conn.execute(
            'SELECT c.target, c.filesystem, c.iterations, s.spack_lock '
            'FROM pfsbench_cases c JOIN pfsbench_sessions s '
            'ON s.uuid = c.session ORDER BY s.night').fetchall()
    assert cases == [('', '', None, ''), ('/scratch', 'lustre', 4, 'abc123')]


def _without_newest_migration(path):
    raw = sqlite3.connect(path)
    raw.execute('DELETE FROM pfsbench_migrations WHERE version = ?',
                (schema.VERSION,))
    raw.commit()
    raw.close()


def test_a_store_of_a_newer_pfsbench_is_refused_naming_its_version(tmp_path):
    path = tmp_path / 's.db'
    connect.open_store(str(path)).close()
    raw = sqlite3.connect(path)
    raw.execute("INSERT INTO pfsbench_migrations VALUES(99, 'x', 'now')")
    raw.commit()
    raw.close()
    with pytest.raises(ResultsError) as err:
        connect.open_store(str(path))
    assert str(err.value) == (
        f'{path}: pfsbench_migrations.version: 99: written by a newer '
        f'pfsbench (this one knows schema {schema.VERSION})')


class _Racing:
    """A connection that lets another ingest migrate the store first, just
    before its own migration's transaction begins."""

    def __init__(self, conn, path):
        self._conn, self._path, self.raced = conn, path, False

    def __getattr__(self, name):
        return getattr(self._conn, name)

    def begin(self):
        if not self.raced:
            self.raced = True
            connect.open_store(self._path).close()
        return self._conn.begin()


def test_two_ingests_migrating_at_once_both_go_on(tmp_path):
    path = str(tmp_path / 's.db')
    connect.open_store(path).close()
    _without_newest_migration(path)
    racing = _Racing(db.Connection(path), path)
    try:
        assert schema.migrate(racing, 'now') == schema.VERSION
    finally:
        racing.close()
    assert racing.raced
    assert schema.applied_version(connect.open_store(path)) == schema.VERSION


def test_a_migration_rewrites_the_views(tmp_path):
    path = str(tmp_path / 's.db')
    connect.open_store(path).close()
    raw = sqlite3.connect(path)
    [(view, sql)] = raw.execute("SELECT name, sql FROM sqlite_master WHERE "
                                "type = 'view' ORDER BY name LIMIT 1")
    raw.execute(f'DROP VIEW {view}')
    raw.execute(f'CREATE VIEW {view} AS SELECT 1 AS stale')
    raw.commit()
    raw.close()
    # Without a migration the views stand as they are.
    connect.open_store(path).close()
    raw = sqlite3.connect(path)
    assert raw.execute('SELECT sql FROM sqlite_master WHERE name = ?',
                       (view,)).fetchone()[0].endswith('stale')
    raw.close()
    _without_newest_migration(path)
    connect.open_store(path).close()
    raw = sqlite3.connect(path)
    assert raw.execute('SELECT sql FROM sqlite_master WHERE name = ?',
                       (view,)).fetchone() == (sql,)
    raw.close()
