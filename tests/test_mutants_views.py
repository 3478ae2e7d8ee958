# SPDX-License-Identifier: BSD-3-Clause
"""The dashboards' views (pfsbench.store.views) through their public
functions: the mutants bench/mutation.py found the store's tests letting
through (docs/mutation.md).  SQLite's views pure and fast; PostgreSQL's
on the server ``PFSBENCH_MUTATION_PG`` names, else on the root lane's
throw-away cluster (:func:`test_mutants_db.mutation_pg`): the same rows
on both dialects."""

import datetime
import sqlite3

import pytest

from pfsbench import store
from pfsbench.store import db, views
from test_dashboards import CASE1, COLUMNS, ingest_nights
from test_mutants_db import mutation_pg  # noqa: F401


def view_rows(conn, name):
    """The rows of view ``name``, sorted, without their session's uuid
    (random per ingest), a time as SQLite writes it (ISO 8601 in UTC) and
    a float to 9 digits: what both dialects must agree on."""
    cur = conn.execute(f'SELECT * FROM {name}')
    columns = [d[0] for d in cur.description]
    assert columns == COLUMNS[name]
    out = []
    for row in cur.fetchall():
        out.append(tuple(
            v.astimezone(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')
            if isinstance(v, datetime.datetime) else
            round(v, 9) if isinstance(v, float) else v
            for column, v in zip(columns, row) if column != 'session'))
    return sorted(out, key=repr)


def test_the_views_answer_on_sqlite(tmp_path):
    with store.open_store(str(tmp_path / 's.sqlite')) as conn:
        ingest_nights(conn)
        got = {name: view_rows(conn, name) for name in views.NAMES}
    hawk = ('default', '', '', CASE1, 'hawk', 'builtin', 'write_bw', 'MB/s')
    # The first repeat's start is a night's time; one failed repeat.
    assert got['pfsbench_v_nights'][0] == (
        '1970-01-02T01:00:00Z', 90000.0, '1970-01-02', 'hawk') + hawk + (
        500.0, 3, 490.0, 510.0, 0, 1)
    assert [r[:4] + r[12:] for r in got['pfsbench_v_nights']][4:6] == [
        ('1970-01-04T00:00:00Z', 259200.0, '1970-01-04', 'vulcan',
         305.0, 2, 300.0, 310.0, 1, 1),
        ('1970-01-04T01:00:00Z', 262800.0, '1970-01-04', 'hawk',
         400.0, 3, 396.0, 404.0, 0, 1)]
    assert got['pfsbench_v_sessions'][0] == (
        '1970-01-02T01:00:00Z', 90000.0, '1970-01-02', 'hawk', 'vm',
        '4.10.4', 6, 0, 0, 0, 'lock0')
    assert [r[3] for r in got['pfsbench_v_sessions']] == [
        'hawk', 'hawk', 'vulcan', 'hawk']
    assert got['pfsbench_v_provenance'][:2] == [
        ('1970-01-02T01:00:00Z', 90000.0, '1970-01-02', 'hawk',
         'fs_version', '1.8'),
        ('1970-01-02T01:00:00Z', 90000.0, '1970-01-02', 'hawk',
         'spack_lock', 'lock0')]
    assert len(got['pfsbench_v_provenance']) == 7
    # A page's newest mark, a page unmarked.
    assert got['pfsbench_v_pages'] == [
        ('1970-01-04T00:00:00Z', '1970-01-04', 'hawk', CASE1, 'write_bw',
         'paged', -0.2, 'ack', 'bob', 'upgrade'),
        ('1970-01-04T00:00:00Z', '1970-01-04', 'vulcan', CASE1, 'write_bw',
         'held', -0.1, None, None, None)]


def test_the_views_answer_alike_on_both_dialects(tmp_path, mutation_pg):
    got = []
    for url in (str(tmp_path / 's.sqlite'), mutation_pg):
        with store.open_store(url) as conn:
            ingest_nights(conn)
            got.append({name: view_rows(conn, name) for name in views.NAMES})
    assert all(got[0].values())
    assert got[1] == got[0]


class Failing(db.Connection):
    """A SQLite store whose view statements fail with ``text``, as a
    store another ingest is migrating at the same time may."""

    text = 'database schema has changed'

    def execute(self, statement, params=()):
        if statement.startswith(('CREATE VIEW', 'DROP VIEW')):
            raise sqlite3.OperationalError(self.text)
        return super().execute(statement, params)


def a_view_dropped_is_written_again(conn, view):
    """A current store writes nothing; one ``view`` dropped is written
    again; then every view is dropped."""
    assert views.missing(conn) == []
    assert views.ensure(conn, False) is False
    conn.execute(f'DROP VIEW {view}')
    conn.commit()
    assert views.missing(conn) == [view]
    assert views.ensure(conn, False) is True
    assert views.missing(conn) == []
    drop_views(conn)


def drop_views(conn):
    for statement in views.DROP:
        conn.execute(statement)
    conn.commit()
    assert views.missing(conn) == list(views.NAMES)


def test_the_views_are_written_where_migrated_or_missing(tmp_path):
    path = str(tmp_path / 's.sqlite')
    with store.open_store(path) as conn:
        conn.execute('SELECT 1 FROM pfsbench_v_nights')
        assert views.ensure(conn, False) is False
        assert views.ensure(conn, True) is True
        a_view_dropped_is_written_again(conn, 'pfsbench_v_sessions')
    with Failing(path) as conn:         # another ingest's views, or none
        with pytest.raises(sqlite3.OperationalError):
            views.ensure(conn, True)
        super(Failing, conn).execute(views.statements(False)[1])
        conn.commit()
        assert views.missing(conn) == list(views.NAMES[1:])
        with pytest.raises(sqlite3.OperationalError):
            views.ensure(conn, False)
    with store.open_store(path) as conn:
        assert views.missing(conn) == []
    with Failing(path) as conn:
        assert views.ensure(conn, True) is False


def test_a_store_that_may_not_write_leaves_its_views(tmp_path):
    path = str(tmp_path / 's.sqlite')
    with store.open_store(path) as conn:
        drop_views(conn)
    with db.Connection(path) as conn:
        conn.conn.close()
        conn.conn = sqlite3.connect(f'file:{path}?mode=ro', uri=True)
        assert views.ensure(conn, False) is False
        assert views.missing(conn) == list(views.NAMES)
    with Failing(path) as conn:
        conn.text = 'attempt to write a readonly database'
        assert views.ensure(conn, True) is False


def test_a_postgresql_store_keeps_its_views(mutation_pg):
    role = mutation_pg.rsplit('/', 1)[1] + '_reader'
    with store.open_store(mutation_pg) as conn:
        a_view_dropped_is_written_again(conn, 'pfsbench_v_pages')
        conn.execute(f'CREATE ROLE {role} NOLOGIN')
        conn.commit()
        try:
            # A role that may not create them leaves them to the owner.
            conn.execute(f'SET ROLE {role}')
            assert views.ensure(conn, False) is False
            assert views.missing(conn) == list(views.NAMES)
        finally:
            conn.rollback()
            conn.execute(f'DROP ROLE {role}')
            conn.commit()
