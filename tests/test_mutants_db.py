# SPDX-License-Identifier: BSD-3-Clause
"""The store's connection (pfsbench.store.db) through its public
functions: the mutants bench/mutation.py found the store's tests letting
through (docs/mutation.md).  SQLite, and PostgreSQL as far as no
server is needed: pure and fast.  The tests of a PostgreSQL server
(:func:`mutation_pg`) use the one ``PFSBENCH_MUTATION_PG`` names, as a
mutation run of the fast lane gives it; else the root lane's throw-away
cluster (tests/pgcluster.py), where tests/lanes.py routes them."""

import os
import sqlite3
import time

import lanes
import pytest

from pfsbench.core.errors import ConfigError, ResultsError
from pfsbench.store import db

#: A running PostgreSQL server's URL (its password in ``PGPASSFILE``, as
#: a site keeps it) for the PostgreSQL tests of a mutation run, whose
#: lane starts no cluster (docs/mutation.md, "store/db.py").
PG_SERVER = lanes.SERVER_FIXTURES['mutation_pg']


@pytest.fixture
def mutation_pg(request):
    """A fresh database for a test of a PostgreSQL server, dropped after
    the test: on ``$PFSBENCH_MUTATION_PG``'s server where the variable
    names one, else in the throw-away cluster (``pg_url``, which skips,
    saying why, where PostgreSQL cannot start)."""
    server = os.environ.get(PG_SERVER)
    if not server:
        yield request.getfixturevalue('pg_url')
        return
    import psycopg
    name = f'pfsbench_mut_{os.getpid()}_{time.monotonic_ns()}'
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE {name}')
    try:
        yield server.rsplit('/', 1)[0] + '/' + name
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE {name} WITH (FORCE)')


def test_the_server_tests_start_a_cluster_only_where_none_is_given(
        monkeypatch):
    # The root lane starts the throw-away cluster; a mutation run's fast
    # lane gives its server and keeps these tests.
    monkeypatch.delenv(PG_SERVER, raising=False)
    assert lanes.lanes_of({'mutation_pg', 'tmp_path'}) == {'root'}
    monkeypatch.setenv(PG_SERVER, 'postgresql://ann@h/db')
    assert lanes.lanes_of({'mutation_pg', 'tmp_path'}) == set()
    monkeypatch.setenv(PG_SERVER, '')
    assert lanes.lanes_of({'mutation_pg'}) == {'root'}


def test_a_sqlite_url_is_its_path_and_the_directory_is_made(tmp_path):
    path = tmp_path / 'new' / 'dir' / 's.sqlite'
    with db.Connection(f'sqlite://{path}') as conn:
        assert (conn.url, conn.where, conn.postgres, conn.role) == (
            f'sqlite://{path}', f'sqlite://{path}', False, None)
        assert conn.execute('PRAGMA foreign_keys').fetchone()[0] == 1
        assert conn.sql('SELECT ?') == 'SELECT ?'
    assert path.exists()
    with pytest.raises(ConfigError) as err:
        db.Connection('sqlite:relative.db')
    assert str(err.value) == (
        "<command line>:--store: 'sqlite:relative.db': expected "
        "sqlite:///ABSOLUTE/PATH, a file path or postgresql://...")


def test_a_store_that_cannot_be_opened_is_down(tmp_path):
    (tmp_path / 'file').write_text('')
    path = tmp_path / 'file' / 's.sqlite'
    with pytest.raises(db.StoreDown) as err:
        db.Connection(str(path))
    assert str(err.value).startswith(
        f'{path}: the results store cannot be opened: ')
    with pytest.raises(db.StoreDown):
        db.Connection(str(path), create=False)


def test_a_statements_error_leaves_as_ours(tmp_path):
    with pytest.raises(ResultsError) as err:
        with db.Connection(str(tmp_path / 's.sqlite')) as conn:
            conn.execute('CREATE TABLE t(x)')
            conn.execute('INSERT INTO t VALUES (1)')
            conn.execute('SELECT nosuch FROM t')
    assert str(err.value) == f'{tmp_path / "s.sqlite"}: no such column: nosuch'
    with db.Connection(str(tmp_path / 's.sqlite')) as conn:  # rolled back
        assert conn.execute('SELECT COUNT(*) FROM t').fetchone()[0] == 0
        conn.insert_rows('t', ('x',), [])
        conn.insert_rows('t', ('x',), [(1,), (2,)])
        conn.begin()
        assert conn.conn.in_transaction
        conn.begin()
        conn.execute('CREATE TABLE u(y)')
        conn.rollback()
        assert [r for r, in conn.execute('SELECT x FROM t')] == []
        assert conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE "
                            "name = 'u'").fetchone()[0] == 0
    with pytest.raises(ValueError):
        with db.Connection(str(tmp_path / 's.sqlite')):
            raise ValueError('not a driver error')


@pytest.mark.parametrize('message, down', [
    ('database is locked', True), ('unable to open database file', True),
    ('disk I/O error', True), ('attempt to write a readonly database', True),
    ('no such table: x', False)])
def test_what_says_a_sqlite_store_stopped_answering(tmp_path, message,
                                                    down):
    with db.Connection(str(tmp_path / 's.sqlite')) as conn:
        err = sqlite3.OperationalError(message)
        assert conn.is_down(err) is down
        assert not conn.is_down(sqlite3.IntegrityError(message))
        got = conn.error(err)
    assert type(got) is (db.StoreDown if down else ResultsError)
    assert str(got) == (f'{tmp_path / "s.sqlite"}: the results store '
                        f'stopped answering: {message}' if down else
                        f'{tmp_path / "s.sqlite"}: {message}')


@pytest.mark.parametrize('text, fix', [
    ('FATAL: permission denied for table pfsbench_series',
     'grant it the privileges of its job (docs/results-store.md, '
     '"Roles (PostgreSQL)")'),
    ('ERROR: must have privilege x', 'grant it the privileges of its job '
     '(docs/results-store.md, "Roles (PostgreSQL)")'),
    ('FATAL: database "x" does not exist',
     'name a database that exists in the store URL'),
    ('FATAL: role "ann" does not exist',
     "give its password in PGPASSFILE (~/.pgpass) or a service file's "
     "passfile, never in a URL (docs/results-store.md)"),
])
def test_a_refusal_says_what_to_fix(text, fix):
    got = db.refused('pg', 'me', RuntimeError(text + '\nDETAIL: more'))
    role = 'ann' if 'role "ann"' in text else 'me'
    assert str(got) == (f"pg: the results store refused role {role!r}: "
                        f"{text}; {fix}")
    assert isinstance(got, db.StoreRefused) and got.exit_code == 2
    assert db.StoreDown('x').exit_code == 3
    assert str(db.refused('pg', 'me', RuntimeError(''))).startswith(
        "pg: the results store refused role 'me': RuntimeError; ")
    user = db.refused('pg', 'me', RuntimeError('for user "bob" x'))
    assert "role 'bob'" in str(user)


def test_the_role_is_the_urls_user_else_libpqs(monkeypatch):
    monkeypatch.setenv('PGUSER', 'fromenv')
    assert db.role_of('postgresql://ann@host/db') == 'ann'
    assert db.role_of('postgresql://host/db') == 'fromenv'
    assert db.role_of('/a/file') == 'fromenv'
    monkeypatch.delenv('PGUSER')
    monkeypatch.setattr(db.getpass, 'getuser', lambda: 'login')
    assert db.role_of('postgresql://host/db') == 'login'


def test_a_postgres_url_is_read_or_refused_without_its_password():
    assert db.conninfo('postgresql://ann@h:5433/db') == \
        'user=ann host=h port=5433 dbname=db'
    with pytest.raises(ConfigError) as err:
        db.conninfo('postgresql://ann:s3cret@h:port/db')
    assert str(err.value) == (
        "<store URL>:store: 'postgresql://***': expected postgresql://USER@"
        "HOST[:PORT]/DB[?KEY=VALUE&...] (docs/results-store.md)")


def test_the_store_named_and_its_password_warned_of(monkeypatch, capsys):
    monkeypatch.delenv('PFSBENCH_STORE', raising=False)
    assert db.named_url(None) is None
    assert db.named_url('', '') is None
    assert db.named_url(None, 'conf') == 'conf'
    assert db.resolve_url(None, '/runs') == '/runs/pfsbench-store.sqlite'
    assert db.resolve_url('x.db', '/runs') == 'x.db'
    monkeypatch.setenv('PFSBENCH_STORE', 'env.db')
    assert db.named_url(None, 'conf') == 'env.db'
    assert db.named_url('cli.db', 'conf') == 'cli.db'
    assert capsys.readouterr().err == ''
    secret = 'postgresql://ann:hunter2@h/db'
    assert db.named_url(secret) == secret
    assert capsys.readouterr().err == (
        'pfsbench: warning: --store holds a password, which other users can '
        'see: give it in PGPASSFILE (~/.pgpass) or a pg_service.conf service '
        'instead (docs/results-store.md)\n')
    monkeypatch.setenv('PFSBENCH_STORE', secret)
    db.named_url(None)
    assert capsys.readouterr().err.startswith(
        'pfsbench: warning: PFSBENCH_STORE holds a password, ')


def test_a_postgresql_store_that_does_not_answer_is_down():
    url = 'postgresql://ann@127.0.0.1:1/db'
    with pytest.raises(db.StoreDown) as err:
        db.Connection(url, timeout=2)
    assert str(err.value).startswith(
        f'{url}: the results store does not answer: ')
    assert 'refused' in str(err.value)


def test_postgresql_needs_psycopg(monkeypatch):
    monkeypatch.setitem(__import__('sys').modules, 'psycopg', None)
    with pytest.raises(ConfigError) as err:
        db.Connection('postgresql://ann@h/db')
    assert str(err.value) == (
        "<store URL>:store: 'postgresql://ann@h/db': PostgreSQL needs "
        "psycopg 3 (pip install 'psycopg[binary]')")


def test_a_postgresql_statements_error_by_what_to_do(tmp_path):
    import psycopg
    with db.Connection(str(tmp_path / 's.sqlite')) as conn:
        conn.postgres, conn.role = True, 'ann'
        assert conn.sql('a = ? AND b = ?') == 'a = %s AND b = %s'
        lost = psycopg.OperationalError('server closed the connection\nx')
        denied = psycopg.errors.InsufficientPrivilege(
            'permission denied for table pfsbench_series')
        other = psycopg.errors.UniqueViolation('duplicate key')
        assert conn.is_down(lost) and not conn.is_down(denied)
        assert not conn.is_down(other)
        got = [conn.error(e) for e in (lost, denied, other)]
        conn.postgres = False
    assert [type(g) for g in got] == [db.StoreDown, db.StoreRefused,
                                      ResultsError]
    where = str(tmp_path / 's.sqlite')
    assert str(got[0]) == (f'{where}: the results store stopped answering: '
                           'server closed the connection')
    assert str(got[1]).startswith(
        f"{where}: the results store refused role 'ann': permission denied "
        "for table pfsbench_series; grant it")
    assert str(got[2]) == f'{where}: duplicate key'


def _user(url):
    return url.split('//')[1].split('@')[0]


def test_a_postgresql_store_logs_in_as_its_role(mutation_pg):
    with db.Connection(mutation_pg, timeout=7.9) as conn:
        assert (conn.postgres, conn.where, conn.role) == (
            True, mutation_pg, _user(mutation_pg))
        assert conn.execute('SHOW application_name').fetchone() == (
            'pfsbench',)
        assert conn.conn.info.get_parameters()['connect_timeout'] == '7'
        assert conn.execute('SELECT ?::int + ?::int', (2, 3)).fetchone() == (
            5,)
    with db.Connection(mutation_pg, timeout=0.5) as conn:
        assert conn.conn.info.get_parameters()['connect_timeout'] == '1'
    with db.Connection(mutation_pg) as conn:
        assert conn.conn.info.get_parameters()['connect_timeout'] == '10'


def test_a_postgresql_store_copies_rows_in_their_columns(mutation_pg):
    with db.Connection(mutation_pg) as conn:
        conn.execute('CREATE TABLE t (a integer, b text, c float8)')
        conn.insert_rows('t', ('c', 'a', 'b'), [])
        conn.insert_rows('t', ('c', 'a', 'b'), [(0.5, 1, 'x'),
                                                (None, 2, 'y z')])
        conn.executemany('INSERT INTO t (a, b) VALUES (?, ?)', [(3, 'w')])
        assert conn.execute('SELECT a, b, c FROM t ORDER BY a').fetchall() \
            == [(1, 'x', 0.5), (2, 'y z', None), (3, 'w', None)]
        conn.commit()
    with pytest.raises(ResultsError) as err:
        with db.Connection(mutation_pg) as conn:
            conn.execute('INSERT INTO t (a) VALUES (?)', (4,))
            conn.execute('SELECT nosuch FROM t')
    assert str(err.value).startswith(
        f'{mutation_pg}: column "nosuch" does not exist')
    with db.Connection(mutation_pg) as conn:      # rolled back
        assert conn.execute('SELECT COUNT(*) FROM t').fetchone() == (3,)


def test_a_postgresql_login_refused_names_its_role(mutation_pg):
    url = mutation_pg.replace(f'//{_user(mutation_pg)}@',
                              '//pfsbench_nobody@')
    with pytest.raises(db.StoreRefused) as err:
        db.Connection(url)
    # libpq's words: the passfile holds no password for that role.
    assert str(err.value).startswith(
        f"{url}: the results store refused role 'pfsbench_nobody': "
        'connection failed: ')
    assert 'no password supplied; give its password in PGPASSFILE' in str(
        err.value)
