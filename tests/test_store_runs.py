# SPDX-License-Identifier: BSD-3-Clause
"""A runs directory read through the results store beside it: the first
read ingests every session, a second ingests nothing and equals the
first, a new session goes in, a deleted one leaves the results, the
kept series equals the one built from the reports, nothing kept in the
store can run code, and ReFrame's file is never written."""

import hashlib
import os
import sqlite3

import pytest

import synth
from pfsbench.gate.history import results as res
from pfsbench.store import codec, runs


@pytest.fixture
def db(tmp_path):
    path = tmp_path / 'results.db'
    synth.write_database(str(path), [synth.session(
        {'c %nodes=1': [100.0 + night, 101.0, 99.0],
         'd %nodes=2': [50.0, 51.0, 49.0]},
        time_start=night * 86400.0, extras={'fs_type': 'ext4'})
        for night in range(4)])
    return path


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _snapshot(results):
    return ({u: s.as_dict() for u, s in results.sessions.items()},
            [(str(r.key), r.session, r.repeat, r.perf, r.config, r.tags,
              r.nodelist, r.contended) for r in results.records])


def _decoded(db):
    """The database's sessions decoded from ReFrame's JSON, as run
    report files are read (no store)."""
    out = res.Results(str(db))
    for report, source in runs.reports(str(db.parent)):
        out.add_report(report, source)
    return out


def _stored(db):
    with sqlite3.connect(str(db.parent / 'pfsbench-store.sqlite')) as conn:
        return {u for u, in conn.execute(
            'SELECT uuid FROM pfsbench_sessions')}


def test_second_read_ingests_nothing_and_equals_the_first(db, monkeypatch):
    before = _digest(db)
    first = runs.read_database(str(db))
    assert _stored(db) == set(first.sessions) and len(first.sessions) == 4
    assert _snapshot(first) == _snapshot(_decoded(db))

    def no_ingest(*args, **kwargs):
        raise AssertionError('ingested a session the store holds')

    monkeypatch.setattr(runs, 'ingest_report', no_ingest)
    second = runs.read_database(str(db))
    for uuid in second.sessions:
        assert second.figures(uuid) == first.figures(uuid) == \
            res.session_figures(first.by_session(uuid))
    assert _snapshot(second) == _snapshot(first)
    assert _digest(db) == before
    assert sorted(os.listdir(db.parent)) == ['pfsbench-store.sqlite',
                                             'results.db']
    # The newest-N window reads only its sessions.
    assert len(runs.read_database(str(db), newest=2).sessions) == 2


def test_new_and_deleted_sessions(db):
    runs.read_database(str(db))
    new = synth.session({'c %nodes=1': 70.0}, time_start=9 * 86400.0)
    synth.write_database(str(db), [new])
    uuid = new['session_info']['uuid']
    results = runs.read_database(str(db))
    assert uuid in results.sessions and uuid in _stored(db)
    assert [r.perf['write_bw'][0] for r in results.by_session(uuid)] == \
        [70.0] * 3

    # Deleted from ReFrame's database (reframe --delete-stored-sessions):
    # the store keeps its rows, the gate reads it no more.
    gone = results.ordered_sessions()[0].uuid
    with sqlite3.connect(str(db)) as conn:
        conn.execute('DELETE FROM sessions WHERE uuid = ?', (gone,))
    results = runs.read_database(str(db))
    assert gone not in results.sessions and len(results.sessions) == 4
    series, inside = results.series()
    assert [u for u, i in zip(series.uuids, inside) if i] == \
        [s.uuid for s in results.ordered_sessions()]


def _columns(results):
    series, inside = results.series()
    return {str(key): [(series.uuids[p], cols.configs[c], cols.likes[k],
                        {var: (m[j], n[j]) for var, (m, _, n)
                         in cols.columns.items()})
                       for j, (p, c, k) in enumerate(zip(
                           cols.pos, cols.config_ids, cols.like_ids))
                       if inside[p]]
            for key, cols in series.cases.items()}


def test_the_series_equals_the_one_built_from_the_reports(db):
    kept = runs.read_database(str(db))
    assert _columns(kept) == _columns(_decoded(db))
    # A session older than every kept one, added late: built again.
    late = synth.session({'c %nodes=1': 80.0}, time_start=-86400.0)
    synth.write_database(str(db), [late])
    later = runs.read_database(str(db))
    assert _columns(later) == _columns(_decoded(db))
    assert _columns(later)['c %nodes=1 @local:default+builtin'][0][0] == \
        late['session_info']['uuid']
    # The newest-N window sees only its sessions.
    window = runs.read_database(str(db), newest=2)
    assert [len(v) for v in _columns(window).values()] == [2, 2]


def test_a_series_kept_with_another_stamp_is_not_read(db):
    fresh = _columns(runs.read_database(str(db)))
    assert fresh
    path = db.parent / 'pfsbench-store.sqlite'
    with sqlite3.connect(str(path)) as conn:
        (body,), = conn.execute('SELECT body FROM pfsbench_series')
        stale = codec.loads(body)
        stale.cases.clear()
        # What another pfsbench kept: every case gone, its stamp another.
        conn.execute("UPDATE pfsbench_series SET stamp = '[\"old\"]', "
                     'body = ?', (codec.dumps(stale),))
    conn.close()
    assert _columns(runs.read_database(str(db))) == fresh


def test_nothing_kept_in_the_store_can_run_code(db, tmp_path):
    runs.read_database(str(db))
    witness = tmp_path / 'ran'
    # What pickle would run on load; the store keeps JSON text, which
    # decodes into its own types or nothing.
    payload = ('cos\nsystem\n(S\'touch %s\'\ntR.' % witness)
    with sqlite3.connect(str(db.parent / 'pfsbench-store.sqlite')) as conn:
        conn.execute('UPDATE pfsbench_sessions SET figures = ?', (payload,))
        conn.execute('UPDATE pfsbench_series SET body = ?', (payload,))
    conn.close()
    with pytest.raises(codec.Damaged):
        codec.loads(payload)
    # Tagged JSON naming a type the codec does not keep is refused too.
    with pytest.raises(codec.Damaged):
        codec.loads('{"\\u0000os.system": "touch %s"}' % witness)
    results = runs.read_database(str(db))
    assert _columns(results) == _columns(_decoded(db))
    assert not witness.exists()


def test_a_runs_directory_that_may_not_be_written(db, monkeypatch):
    # Its store is then this user's, in the temporary directory.
    assert runs.local_store(str(db)) == str(db.parent /
                                           'pfsbench-store.sqlite')
    monkeypatch.setattr(runs.os, 'access', lambda path, mode: False)
    elsewhere = runs.local_store(str(db))
    assert os.path.dirname(elsewhere) == runs.tempfile.gettempdir()
    assert elsewhere != runs.local_store(str(db.parent / 'x' / 'results.db'))


def test_a_runs_directory_of_two_clusters_reads_both(tmp_path):
    # Sessions stored under two clusters (their ReFrame systems): the gate
    # reads every session of the database, the history of both.
    db = tmp_path / 'results.db'
    synth.write_database(str(db), [synth.session(
        {'c %nodes=1': [100.0 + night, 101.0, 99.0]},
        time_start=night * 86400.0, system=system)
        for night, system in enumerate(['hawk', 'vulcan', 'hawk'])])
    results = runs.read_database(str(db))
    assert len(results.sessions) == 3
    assert sorted({k.system for k in results.series()[0].cases}) == \
        ['hawk', 'vulcan']
    assert _columns(results) == _columns(_decoded(db))
    with sqlite3.connect(str(db.parent / 'pfsbench-store.sqlite')) as conn:
        assert sorted(s for s, in conn.execute(
            'SELECT DISTINCT system FROM pfsbench_sessions')) == \
            ['hawk', 'vulcan']
    conn.close()
    # The newest session's cluster only would be a window of one.
    assert len(runs.read_database(str(db), newest=2).sessions) == 2
