# SPDX-License-Identifier: BSD-3-Clause
"""A runs directory as the store's source (pfsbench.store.runs) through
its public functions: the mutants bench/mutation.py found the store's
tests letting through (docs/mutation.md).  SQLite only: pure and fast."""

import json
import os
import sqlite3

import pytest

from pfsbench.core.errors import ResultsError
from pfsbench.store import runs
import synth

DAY = 86400.0


def _database(path, nights, system=lambda night: 'local'):
    synth.write_database(str(path), [synth.session(
        {'c %nodes=1': [1.0 + night, 2.0]}, time_start=night * DAY,
        repeats=2, session_uuid=f'night-{night:02}', system=system(night))
        for night in nights])
    return str(path)


def test_reports_are_the_sessions_oldest_first_from_since(tmp_path):
    db = _database(tmp_path / 'results.db', [3, 1, 2])
    got = [(r['session_info']['uuid'], source)
           for r, source in runs.reports(str(tmp_path))]
    assert got == [(f'night-{n:02}', f'{db}[night-{n:02}]')
                   for n in (1, 2, 3)]
    assert [r['session_info']['uuid'] for r, _ in runs.reports(
        str(tmp_path), since=2 * DAY)] == ['night-02', 'night-03']


def test_baselines_are_read_by_name_and_a_bad_one_is_named(tmp_path):
    where = tmp_path / 'baselines'
    where.mkdir()
    (where / 'b.json').write_text(json.dumps({'x': 1}))
    (where / 'a.json').write_text(json.dumps([2]))
    (where / 'note.txt').write_text('not a baseline')
    assert runs.baselines(str(tmp_path)) == [
        ('a', [2], str(where / 'a.json')), ('b', {'x': 1},
                                            str(where / 'b.json'))]
    other = tmp_path / 'other'
    other.mkdir()
    assert runs.baselines(str(tmp_path), str(other)) == []
    (where / 'c.json').write_text('{')
    with pytest.raises(ResultsError) as err:
        runs.baselines(str(tmp_path))
    assert str(err.value).startswith(
        f'{where / "c.json"}: baseline unreadable: Expecting')


def test_the_local_store_is_beside_the_database_where_it_may_be(
        tmp_path, monkeypatch):
    db = str(tmp_path / 'results.db')
    beside = str(tmp_path / 'pfsbench-store.sqlite')
    assert runs.local_store(db) == beside
    writable = {str(tmp_path)}
    monkeypatch.setattr(runs.os, 'access',
                        lambda path, mode: mode == os.W_OK and
                        str(path) in writable)
    assert runs.local_store(db) == beside        # the directory may be
    open(beside, 'w').close()
    assert runs.local_store(db) != beside        # the store may not be
    writable.add(beside)
    assert runs.local_store(db) == beside
    writable.clear()
    elsewhere = runs.local_store(db)
    assert os.path.basename(elsewhere).startswith(
        f'pfsbench-store-{os.getuid()}-')
    assert len(os.path.basename(elsewhere)) == len(
        'pfsbench-store--.sqlite') + len(str(os.getuid())) + 16


def test_read_database_window(tmp_path):
    db = _database(tmp_path / 'results.db', range(1, 6))

    def uuids(**kwargs):
        got = runs.read_database(db, **kwargs)
        assert got.source == db
        return [s.uuid for s in got.ordered_sessions()]
    assert uuids() == [f'night-{n:02}' for n in range(1, 6)]
    assert uuids(since=4 * DAY) == ['night-04', 'night-05']
    assert uuids(newest=2) == ['night-04', 'night-05']
    assert uuids(newest=0) == []
    assert uuids(newest_since=5 * DAY) == ['night-05']
    assert uuids(newest=1, newest_since=4 * DAY) == [
        'night-03', 'night-04', 'night-05']
    assert uuids(newest=3, since=4 * DAY) == ['night-04', 'night-05']


def test_read_database_catches_up_past_a_batch(tmp_path):
    nights = range(1, runs._BATCH + 3)
    db = _database(tmp_path / 'results.db', nights)
    assert len(runs.read_database(db).sessions) == len(nights)
    assert len(runs.read_database(db, newest=1).sessions) == 1


def test_a_database_of_one_or_two_clusters_reads_their_history(tmp_path):
    (tmp_path / 'one').mkdir()
    (tmp_path / 'two').mkdir()
    one = _database(tmp_path / 'one' / 'results.db', [1, 2],
                    system=lambda night: 'hawk')
    two = _database(tmp_path / 'two' / 'results.db', [1, 2],
                    system=lambda night: ('hawk', 'vulcan')[night - 1])
    got = runs.read_database(one)
    both = runs.read_database(two)
    # Each database's history is kept under its cluster, or every
    # cluster's.
    for db, system in ((one, 'hawk'), (two, '*')):
        with sqlite3.connect(runs.local_store(db)) as conn:
            assert [s for s, in conn.execute(
                'SELECT system FROM pfsbench_series')] == [system]
        conn.close()
    assert sorted({k.system for k in got.series()[0].cases}) == ['hawk']
    assert sorted({k.system for k in both.series()[0].cases}) == \
        ['hawk', 'vulcan']
    assert len(both.sessions) == 2


def test_a_session_read_names_its_database_and_the_kept_series_lags(
        tmp_path):
    db = _database(tmp_path / 'results.db', [1, 2])
    got = runs.read_database(db)
    assert got.sessions['night-01'].source == f'{db}[night-01]'

    def kept():
        with sqlite3.connect(runs.local_store(db)) as conn:
            found = conn.execute('SELECT sessions FROM pfsbench_series'
                                 ).fetchall()
        conn.close()
        return found
    assert kept() == [(2,)]
    synth.write_database(db, [synth.session(
        {'c %nodes=1': [9.0, 9.0]}, time_start=3 * DAY, repeats=2,
        session_uuid='night-03')])
    assert len(runs.read_database(db).sessions) == 3
    assert kept() == [(2,)]       # a new night: read, the series not rewritten
