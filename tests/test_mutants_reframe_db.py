# SPDX-License-Identifier: BSD-3-Clause
"""ReFrame's results database read-only (pfsbench.store.reframe_db)
through its public functions: the mutants bench/mutation.py found the
store's tests letting through (docs/mutation.md).  Pure and fast."""

import sqlite3
import subprocess
import sys
import time

import pytest

from pfsbench.core.errors import MissingData, ResultsError
from pfsbench.store import reframe_db
import synth

DAY = 86400.0


@pytest.fixture
def db(tmp_path):
    path = tmp_path / 'results.db'
    synth.write_database(str(path), [synth.session(
        {'c': 1.0}, time_start=night * DAY, repeats=1,
        session_uuid=f'n{night}') for night in (2, 1, 3)])
    return str(path)


def test_a_missing_database_says_how_it_is_made(tmp_path):
    path = str(tmp_path / 'results.db')
    with pytest.raises(MissingData) as err:
        with reframe_db.opened(path):
            pass
    assert str(err.value) == (f'{path}: results database not found (set '
                              '--db or PFSBENCH_RUNS; has ReFrame run with '
                              'storage enabled?)')


def test_listed_oldest_first_from_since_and_reports_in_the_order_asked(db):
    with reframe_db.opened(db) as conn:
        assert reframe_db.listed(conn) == [('n1', DAY), ('n2', 2 * DAY),
                                           ('n3', 3 * DAY)]
        assert reframe_db.listed(conn, 2 * DAY) == [('n2', 2 * DAY),
                                                    ('n3', 3 * DAY)]
        got = list(reframe_db.reports(conn, db, ['n3', 'gone', 'n1']))
    assert [(r['session_info']['uuid'], s) for r, s in got] == [
        ('n3', f'{db}[n3]'), ('n1', f'{db}[n1]')]


def test_a_blob_that_is_not_json_is_named(db):
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE sessions SET json_blob = '{' WHERE uuid = 'n2'")
    conn.close()
    with reframe_db.opened(db) as conn:
        with pytest.raises(ResultsError) as err:
            list(reframe_db.reports(conn, db, ['n1', 'n2']))
    assert str(err.value).startswith(
        f'{db}: sessions[n2].json_blob: not JSON: Expecting')


@pytest.mark.parametrize('version, shown', [('2.0', "'2.0'"), (None, 'None')])
def test_another_schema_is_refused_naming_its_version(db, version, shown):
    with sqlite3.connect(db) as conn:
        conn.execute('DELETE FROM metadata')
        if version:
            conn.execute('INSERT INTO metadata VALUES (?)', (version,))
    conn.close()
    with pytest.raises(ResultsError) as err:
        with reframe_db.opened(db):
            pass
    assert str(err.value) == (
        f'{db}: metadata.schema_version: {shown}: incompatible results '
        'database (pfsbench reads 1.0, ReFrame 4.x)')


def test_a_file_that_is_not_a_reframe_database_is_named(tmp_path):
    path = tmp_path / 'results.db'
    sqlite3.connect(path).close()
    with pytest.raises(ResultsError) as err:
        with reframe_db.opened(str(path)):
            pass
    assert str(err.value) == (
        f'{path}: metadata.schema_version: no such table: metadata: not a '
        'ReFrame results database')


def test_a_query_that_fails_is_named(db):
    with pytest.raises(ResultsError) as err:
        with reframe_db.opened(db) as conn:
            conn.execute('SELECT nosuch FROM sessions')
    assert str(err.value) == f'{db}: no such column: nosuch'


def test_a_database_a_writer_holds_says_so(db):
    holder = sqlite3.connect(db)
    holder.execute('BEGIN EXCLUSIVE')
    try:
        with pytest.raises(ResultsError) as err:
            with reframe_db.opened(db, timeout=0.05):
                pass
    finally:
        holder.rollback()
        holder.close()
    assert str(err.value) == (
        f'{db}: metadata.schema_version: database is locked (another '
        'process is writing it; retry later): not a ReFrame results '
        'database')


def test_a_locked_database_waits_its_timeout_and_names_the_lock(db, tmp_path):
    lock = tmp_path / '.db.lock'
    lock.write_text('')
    with reframe_db.opened(db, timeout=0.1) as conn:     # nobody holds it
        assert reframe_db.listed(conn)
    holder = subprocess.Popen(
        [sys.executable, '-c', 'import fcntl, sys, time\n'
         f'fp = open({str(lock)!r}, "r+")\n'
         'fcntl.lockf(fp, fcntl.LOCK_EX)\nprint(flush=True)\n'
         'time.sleep(30)'], stdout=subprocess.PIPE, text=True)
    try:
        holder.stdout.readline()
        start = time.monotonic()
        with pytest.raises(ResultsError) as err:
            with reframe_db.opened(db, timeout=0.2):
                pass
        waited = time.monotonic() - start
    finally:
        holder.kill()
        holder.wait()
    assert str(err.value) == (
        f'{db}: locked: another process (a ReFrame session storing its '
        f'report?) holds {lock} for more than 0.2 s; retry later')
    assert 0.2 <= waited < 0.9, waited          # tried every 0.1 s
