# SPDX-License-Identifier: BSD-3-Clause
"""The index of figures beside ReFrame's database: a second read comes
from it and equals the first, a new session is indexed, a deleted one
pruned, an entry of another format rewritten, a damaged or foreign index
file ignored with one line and rebuilt, nothing in it can run code, and
ReFrame's file is never written."""

import hashlib
import json
import os
import sqlite3

import pytest

import synth
from pfsbench.gate.store import index, results as res


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


def _entries(db):
    with sqlite3.connect(str(db.parent / index.INDEX_DIR /
                             index.INDEX_FILE)) as conn:
        return {u: json.loads(stamp) for u, stamp in conn.execute(
            'SELECT uuid, stamp FROM sessions')}


def test_second_read_comes_from_the_index(db, monkeypatch):
    before = _digest(db)
    first = res.read_database(str(db))
    assert os.listdir(db.parent / index.INDEX_DIR) == [index.INDEX_FILE]
    assert sorted(_entries(db)) == sorted(first.sessions)

    def no_json(*args):
        raise AssertionError('decoded a session the index holds')

    monkeypatch.setattr(res, '_records_of_report', no_json)
    second = res.read_database(str(db))
    # The history reads each session's figures, kept in the index; the
    # records are read only when asked for.
    for uuid in second.sessions:
        assert second.figures(uuid) == first.figures(uuid) == \
            res.session_figures(first.by_session(uuid))

    assert _snapshot(second) == _snapshot(first)
    assert _digest(db) == before
    assert sorted(os.listdir(db.parent)) == ['pfsbench-index', 'results.db']
    # The newest-N window reads only what it needs from the index too.
    assert len(res.read_database(str(db), newest=2).sessions) == 2


def test_new_and_deleted_sessions(db):
    res.read_database(str(db))
    directory = db.parent / index.INDEX_DIR
    new = synth.session({'c %nodes=1': 70.0}, time_start=9 * 86400.0)
    synth.write_database(str(db), [new])
    uuid = new['session_info']['uuid']
    results = res.read_database(str(db))
    assert uuid in results.sessions
    assert uuid in _entries(db)
    assert [r.perf['write_bw'][0] for r in results.by_session(uuid)] == \
        [70.0] * 3

    gone = results.ordered_sessions()[0].uuid
    with sqlite3.connect(str(db)) as conn:
        conn.execute('DELETE FROM sessions WHERE uuid = ?', (gone,))
    results = res.read_database(str(db))
    assert gone not in results.sessions
    assert gone not in _entries(db) and len(_entries(db)) == 4
    assert gone not in index.load_series(str(directory),
                                         res.SERIES_STAMP).sessions


def test_entry_of_another_format_is_rewritten(db):
    first = res.read_database(str(db))
    uuid = first.ordered_sessions()[-1].uuid
    path = db.parent / index.INDEX_DIR / index.INDEX_FILE
    session, _ = index.load(str(path.parent), uuid, res.INDEX_STAMP)
    rows = index.load_records(str(path.parent), uuid, res.INDEX_STAMP)
    index.save(str(path.parent), session, {}, rows[:1],
               (-1,) + res.INDEX_STAMP[1:])
    again = res.read_database(str(db))
    assert len(again.by_session(uuid)) == 6
    assert _entries(db)[uuid] == json.loads(index._stamp(res.INDEX_STAMP))
    assert len(res.read_database(str(db)).by_session(uuid)) == 6
    # An entry that does not decode into the index's types.
    with sqlite3.connect(str(path)) as conn:
        conn.execute('UPDATE sessions SET head = ?, records = ? '
                     'WHERE uuid = ?', ('{"x": 1}', '[{"\\u0000t": [1]',
                                        uuid))
    assert len(res.read_database(str(db)).by_session(uuid)) == 6
    # Records that are JSON but not rows of records.
    with sqlite3.connect(str(path)) as conn:
        conn.execute('UPDATE sessions SET records = ? WHERE uuid = ?',
                     ('[[1, 2], {"a": null}]', uuid))
    assert len(res.read_database(str(db)).by_session(uuid)) == 6


def _read_quietly(db, capsys):
    results = res.read_database(str(db))
    return results, capsys.readouterr().err


@pytest.mark.parametrize('content', [
    b'not a database at all' * 100,
    b'SQLite format 3\x00' + b'\xff' * 4000,
    'foreign'])
def test_damaged_or_foreign_index_is_ignored_with_one_line_and_rebuilt(
        db, capsys, content):
    fresh = _snapshot(res.read_database(str(db)))
    path = db.parent / index.INDEX_DIR / index.INDEX_FILE
    path.unlink()
    if content == 'foreign':
        # Another program's SQLite file at the index's path.
        with sqlite3.connect(str(path)) as conn:
            conn.execute('CREATE TABLE sessions(uuid TEXT, blob BLOB)')
        conn.close()
    else:
        path.write_bytes(content)

    results, err = _read_quietly(db, capsys)
    assert _snapshot(results) == fresh
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f'pfsbench: {path}: ')
    assert lines[0].endswith(": not a pfsbench index; ignored, rebuilt "
                             "from ReFrame's database")
    # Rebuilt: the next read is quiet and comes from the index.
    assert sorted(_entries(db)) == sorted(fresh[0])
    results, err = _read_quietly(db, capsys)
    assert err == '' and _snapshot(results) == fresh


def test_nothing_in_the_index_can_run_code(db, tmp_path):
    res.read_database(str(db))
    directory = str(db.parent / index.INDEX_DIR)
    uuid = sorted(_entries(db))[0]
    witness = tmp_path / 'ran'
    # What pickle would run on load; the index stores JSON text, which
    # decodes into its own types or nothing.
    payload = ('cos\nsystem\n(S\'touch %s\'\ntR.' % witness)
    with sqlite3.connect(os.path.join(directory, index.INDEX_FILE)) as conn:
        conn.execute('UPDATE sessions SET head = ?, records = ?',
                     (payload, payload))
        conn.execute('UPDATE series SET body = ?', (payload,))
    conn.close()
    assert index.load(directory, uuid, res.INDEX_STAMP) is None
    assert index.load_records(directory, uuid, res.INDEX_STAMP) is None
    assert index.load_series(directory, res.SERIES_STAMP) is None
    # Tagged JSON naming a type the index does not keep is refused too.
    with pytest.raises(index.Damaged):
        index._loads('{"\\u0000os.system": "touch %s"}' % witness)
    assert len(res.read_database(str(db)).sessions) == 4
    assert not witness.exists()


def test_index_switched_off(db, monkeypatch):
    monkeypatch.setenv('PFSBENCH_NO_INDEX', '1')
    assert len(res.read_database(str(db)).sessions) == 4
    assert sorted(os.listdir(db.parent)) == ['results.db']


def _columns(results):
    series, inside = results.series()
    return {str(key): [(series.uuids[p], cols.configs[c], cols.likes[k],
                        {var: (m[j], n[j]) for var, (m, _, n)
                         in cols.columns.items()})
                       for j, (p, c, k) in enumerate(zip(
                           cols.pos, cols.config_ids, cols.like_ids))
                       if inside[p]]
            for key, cols in series.cases.items()}


def test_series_kept_in_the_index_equals_the_figures(db, monkeypatch):
    kept = res.read_database(str(db))
    assert index.load_series(str(db.parent / index.INDEX_DIR),
                             res.SERIES_STAMP) is not None
    again = res.read_database(str(db))
    # A session older than every kept one, added late: built again.
    late = synth.session({'c %nodes=1': 80.0}, time_start=-86400.0)
    synth.write_database(str(db), [late])
    later = res.read_database(str(db))
    monkeypatch.setenv('PFSBENCH_NO_INDEX', '1')
    fresh = res.read_database(str(db))
    assert _columns(later) == _columns(fresh)
    assert _columns(kept) == _columns(again)
    assert _columns(later)['c %nodes=1 @local:default+builtin'][0][0] == \
        late['session_info']['uuid']
    # The newest-N window sees only its sessions.
    monkeypatch.delenv('PFSBENCH_NO_INDEX')
    window = res.read_database(str(db), newest=2)
    assert [len(v) for v in _columns(window).values()] == [2, 2]
    # A series file written otherwise is built again.
    directory = str(db.parent / index.INDEX_DIR)
    stale = index.load_series(directory, res.SERIES_STAMP)
    stale.cases.clear()
    index.save_series(directory, stale, ('old',))
    assert _columns(res.read_database(str(db))) == _columns(fresh)
    assert index.load_series(directory, res.SERIES_STAMP).cases
