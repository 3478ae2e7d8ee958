# SPDX-License-Identifier: BSD-3-Clause
"""Decoding the store's rows (pfsbench.store.records) through its public
functions: the mutants bench/mutation.py found the store's tests letting
through (docs/mutation.md).  SQLite only: pure and fast."""

import json
import os

import pytest

from pfsbench.core import fields
from pfsbench.gate.history.results import CaseKey, read_reports
from pfsbench.store import ingest, records
from pfsbench.store.connect import open_store
from pfsbench.store.db import StoreDown
import synth

DAY = 86400.0


def _report(t, system='local', target='/mnt/a', session_uuid=None,
            **kwargs):
    """Two repeats of a case: the first passes, the second fails, was
    contended, ran 3 iterations on other nodes and left two figures
    untimed."""
    given = {fields.TARGET_PATH: target, fields.ITERATIONS: 3,
             fields.CONTENDED: True, fields.CONTENTION: 'foreign io',
             fields.UNTIMED: 'b a'}
    cases = [synth.make_testcase(
        session_uuid, 0, 0, 'dd %n=1', {'bw': (1.0, 'MB/s'),
                                       'lat': (float('inf'), 's')},
        system=system, repeat=0, time=t + 1,
        loggable={fields.TARGET_PATH: target}),
        synth.make_testcase(
        session_uuid, 0, 1, 'dd %n=1', {'bw': (2.0, 'MB/s')},
        system=system, repeat=1, result='fail', fail_phase='sanity',
        fail_reason='no output', time=t + 2, nodelist=('n2', 'n3'),
        loggable=given),
        synth.make_testcase(session_uuid, 0, 2, 'mdtest', {}, system=system,
                            repeat=2, time=t + 3,
                            loggable={fields.TARGET_PATH: target})]
    return synth.make_report(cases, time_start=t, session_uuid=session_uuid,
                             **kwargs)


@pytest.fixture
def stored(tmp_path):
    """A store of three sessions: two of cluster ``local`` started in
    the same second (uuids ``b...`` then ``a...`` ingested), one of
    ``other`` earlier; returns its URL and the reports by uuid."""
    url = str(tmp_path / 'store.sqlite')
    reports = [_report(2 * DAY, session_uuid='b-late-ingested'),
               _report(2 * DAY, session_uuid='a-same-second',
                       target='/mnt/b', extras={'fs_version': '2.0'}),
               _report(DAY, system='vm', session_uuid='c-other-cluster')]
    with open_store(url) as conn:
        for rep in reports:
            ingest.ingest_report(conn, rep, 'r')
    return url, {r['session_info']['uuid']: r for r in reports}


def test_sessions_of_one_cluster_oldest_first_then_by_uuid(stored):
    url, _ = stored
    with open_store(url) as conn:
        local = records.sessions_of(conn, 'local')
        every = records.sessions_of(conn, None)
    assert list(local) == ['a-same-second', 'b-late-ingested']
    assert list(every) == ['c-other-cluster', 'a-same-second',
                           'b-late-ingested']
    assert local['a-same-second'].extras == {'fs_version': '2.0'}
    assert local['a-same-second'].time_start == 2 * DAY


def test_records_of_are_the_reports_records_in_any_chunk(stored, tmp_path):
    url, reports = stored
    uuids = ['a-same-second', 'b-late-ingested', 'c-other-cluster']
    paths = []
    for uuid in uuids:
        path = tmp_path / f'{uuid}.json'
        path.write_text(json.dumps(reports[uuid]))
        paths.append(str(path))
    expected = {u: [r for r in read_reports(paths).records if r.session == u]
                for u in uuids}
    with open_store(url) as conn:
        whole = records.records_of(conn, uuids)
        by_one = records.records_of(conn, uuids, chunk=1)
        by_two = records.records_of(conn, uuids, chunk=2)
    assert all(len(expected[u]) == 3 for u in uuids)
    assert [r.key.name for r in expected['a-same-second'] if not r.perf] == [
        'mdtest']
    assert whole == by_one == by_two == expected
    # Shared, as the report reader shares them.
    first, second = whole['a-same-second'][0], whole['b-late-ingested'][0]
    assert first.key is second.key and first.nodelist is second.nodelist
    assert first.config is second.config
    assert first.tags is whole['a-same-second'][2].tags
    assert [r.fail_phase for r in whole['a-same-second']] == [
        '', 'sanity', '']


def test_records_of_a_target_keep_only_its_cases(stored):
    url, _ = stored
    with open_store(url) as conn:
        got = records.records_of(conn, ['a-same-second', 'b-late-ingested'],
                                 target='/mnt/b')
    assert [len(got[u]) for u in ('a-same-second', 'b-late-ingested')] == \
        [3, 0]
    assert all(dict(r.tags)[fields.TARGET_PATH] == '/mnt/b'
               for r in got['a-same-second'])


def test_a_store_before_the_untimed_column_times_every_figure(stored):
    url, _ = stored
    with open_store(url) as conn:
        conn.execute("UPDATE pfsbench_cases SET untimed = 'x y'")
        conn.commit()
        assert {r.untimed for r in records.records_of(
            conn, ['b-late-ingested'])['b-late-ingested']} == {('x', 'y')}
        conn.execute('DELETE FROM pfsbench_migrations WHERE version > ?',
                     (records.schema.UNTIMED_COLUMN,))
        conn.commit()
        assert {r.untimed for r in records.records_of(
            conn, ['b-late-ingested'])['b-late-ingested']} == {('x', 'y')}
        conn.execute('DELETE FROM pfsbench_migrations WHERE version >= ?',
                     (records.schema.UNTIMED_COLUMN,))
        conn.commit()
        got = records.records_of(conn, ['b-late-ingested'])
    assert [r.untimed for r in got['b-late-ingested']] == [(), (), ()]


def test_the_loaders_read_one_session_when_called(stored):
    url, _ = stored
    load = records.loader(url, 'a-same-second', None)
    summary = records.summary_loader(url, 'a-same-second', None)
    of_target = records.summary_loader(url, 'a-same-second', '/mnt/a')
    got = load()
    assert [r.session for r in got] == ['a-same-second'] * 3
    key = CaseKey('dd %n=1', 'local', 'default', 'builtin')
    tags = ((fields.TARGET_PATH, '/mnt/b'),)
    assert summary() == [(key, False, ('n1',), tags),
                         (key, True, ('n2', 'n3'), tags),
                         (CaseKey('mdtest', 'local', 'default', 'builtin'),
                          False, ('n1',), tags)]
    assert of_target() == []
    assert records.loader(url, 'a-same-second', '/mnt/a')() == []
    assert len(records.summary_loader(url, 'a-same-second', '/mnt/b')()) \
        == 3
    gone = url + '.gone'
    for made in (records.loader, records.summary_loader):
        with pytest.raises(StoreDown):
            made(gone, 'a-same-second', None)()
        assert not os.path.exists(gone)


def test_the_loaders_read_a_store_as_it_is(stored):
    # A reader's role may not migrate: the loaders read an older store.
    url, _ = stored
    with open_store(url) as conn:
        conn.execute('DELETE FROM pfsbench_migrations WHERE version = ?',
                     (records.schema.VERSION,))
        conn.commit()
    assert len(records.loader(url, 'a-same-second', None)()) == 3
    assert len(records.summary_loader(url, 'a-same-second', None)()) == 3
    assert len(records.summary_loader(url, 'a-same-second',
                                      None).contended()) == 1
    with open_store(url, migrate=False) as conn:
        assert records.schema.applied_version(conn) == \
            records.schema.VERSION - 1


def test_the_summary_loader_names_a_sessions_contended_cases_once(stored):
    url, _ = stored
    key = CaseKey('dd %n=1', 'local', 'default', 'builtin')
    assert records.summary_loader(url, 'a-same-second',
                                  None).contended() == [key]
    assert records.summary_loader(url, 'a-same-second',
                                  '/mnt/b').contended() == [key]
    assert records.summary_loader(url, 'a-same-second',
                                  '/mnt/a').contended() == []
    assert records.summary_loader(url, 'b-late-ingested',
                                  None).contended() == [key]
    with open_store(url) as conn:
        conn.execute("UPDATE pfsbench_cases SET contended = 0 "
                     "WHERE session = 'b-late-ingested'")
        conn.commit()
    assert records.summary_loader(url, 'b-late-ingested',
                                  None).contended() == []
    assert records.summary_loader(url, 'a-same-second',
                                  None).contended() == [key]
    gone = url + '.gone'
    with pytest.raises(StoreDown):
        records.summary_loader(gone, 'a-same-second', None).contended()
    assert not os.path.exists(gone)
