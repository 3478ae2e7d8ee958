# SPDX-License-Identifier: BSD-3-Clause
"""Reports waiting for the store (pfsbench.store.spool) through its
public functions: the mutants bench/mutation.py found the store's tests
letting through (docs/mutation.md).  Pure and fast."""

import json
import os
import time

import pytest

from pfsbench.core.errors import ResultsError
from pfsbench.store import spool

HOUR = 3600.0


def _report(uuid):
    return {'session_info': {'uuid': uuid}, 'runs': [], 'text': 'é'}


def test_the_spool_is_under_the_runs_directory():
    assert spool.default_dir('/runs') == '/runs/store-spool'


def test_put_keeps_one_file_per_session_named_safely(tmp_path):
    where = tmp_path / 'deep' / 'spool'
    path = spool.put(str(where), _report('a/b c:d'))
    assert path == str(where / 'a_b_c_d.json')
    assert spool.put(str(where), _report('a/b c:d')) == path
    assert sorted(os.listdir(where)) == ['a_b_c_d.json']
    assert 'é' in open(path, encoding='utf-8').read()     # as written
    assert spool.read_for(path) == (_report('a/b c:d'), None)
    nameless = spool.put(str(where), {'runs': []})
    assert os.path.basename(nameless) == 'unknown.json'
    assert os.path.basename(spool.put(
        str(where), {'session_info': None})) == 'unknown.json'


def test_a_report_kept_for_a_cluster_reads_back_with_it(tmp_path):
    report = _report('u1')
    path = spool.put(str(tmp_path), report, system='hawk')
    assert report == _report('u1')                      # not changed
    assert json.load(open(path))[spool.SYSTEM_KEY] == 'hawk'
    assert spool.read_for(path) == (_report('u1'), 'hawk')
    listed = tmp_path / 'list.json'
    listed.write_text('[1]')
    assert spool.read_for(str(listed)) == ([1], None)


def test_a_put_that_fails_leaves_no_temporary_file(tmp_path):
    with pytest.raises(TypeError):
        spool.put(str(tmp_path), {'session_info': {'uuid': 'x'},
                                  'bad': {1, 2}})
    assert os.listdir(tmp_path) == []


def test_waiting_is_oldest_first_then_by_name(tmp_path):
    paths = [spool.put(str(tmp_path), _report(u)) for u in 'cab']
    (tmp_path / 'note.txt').write_text('')
    for path, when in zip(paths, (100.0, 100.0, 50.0)):
        os.utime(path, (when, when))
    assert spool.waiting(str(tmp_path)) == [paths[2], paths[1], paths[0]]
    assert spool.waiting(str(tmp_path / 'none')) == []


def test_overdue_only_beyond_36_hours(tmp_path):
    assert spool.overdue(str(tmp_path), now=1e9) is None
    old = spool.put(str(tmp_path), _report('old'))
    new = spool.put(str(tmp_path), _report('new'))
    os.utime(old, (86400.0, 86400.0))
    os.utime(new, (90000.0, 90000.0))
    assert spool.overdue(str(tmp_path), now=86400.0 + 36 * HOUR) is None
    assert spool.overdue(str(tmp_path), now=86400.0 + 48 * HOUR) == (
        f'2 report(s) have waited in {tmp_path} since 1970-01-02 00:00 UTC '
        '(2.0 days): the results store has not taken them and its history '
        'misses those nights; pfsbench ingest loads them once it answers')
    os.utime(old, None)
    os.utime(new, None)
    assert spool.overdue(str(tmp_path)) is None


def test_a_spooled_file_that_is_not_json_is_named(tmp_path):
    path = tmp_path / 'x.json'
    path.write_text('{')
    with pytest.raises(ResultsError) as err:
        spool.read(str(path))
    assert str(err.value).startswith(
        f'{path}: spooled report unreadable: Expecting')
    assert path.exists()
    with pytest.raises(ResultsError) as err:
        spool.read(str(tmp_path / 'gone.json'))
    assert 'gone.json: spooled report unreadable: [Errno 2]' in str(err.value)


def test_a_report_is_written_beside_its_name_under_a_hidden_one(
        tmp_path, monkeypatch):
    # Renamed within its directory (one file system: atomic), under a
    # name waiting() does not list.
    moves = []
    replace = os.replace

    def spy(src, dst):
        moves.append((src, dst))
        replace(src, dst)
    monkeypatch.setattr(spool.os, 'replace', spy)
    path = spool.put(str(tmp_path), _report('u'))
    (src, dst), = moves
    assert dst == path
    assert os.path.dirname(src) == str(tmp_path)
    assert os.path.basename(src).startswith('.spool-')


def test_overdue_is_by_the_hour_in_utc(tmp_path, monkeypatch):
    monkeypatch.setenv('TZ', 'EST+5')
    time.tzset()
    try:
        old = spool.put(str(tmp_path), _report('old'))
        os.utime(old, (86400.0, 86400.0))
        line = spool.overdue(str(tmp_path), now=86400.0 + 36 * HOUR + 5)
    finally:
        monkeypatch.undo()
        time.tzset()
    assert line is not None and ' since 1970-01-02 00:00 UTC (1.5 days)' \
        in line
