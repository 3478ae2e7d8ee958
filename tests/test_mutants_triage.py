# SPDX-License-Identifier: BSD-3-Clause
"""The nights' pages and their marks (pfsbench.store.triage) through its
public functions: the mutants bench/mutation.py found the store's tests
letting through (docs/mutation.md).  SQLite only: pure and fast."""

import sqlite3
import time

import pytest

from pfsbench.store import ingest, triage
from pfsbench.store.connect import open_store
import synth

DAY = 86400.0


@pytest.fixture
def conn(tmp_path):
    with open_store(str(tmp_path / 's.sqlite')) as conn:
        for night in (1, 2, 4):
            ingest.ingest_report(conn, synth.session(
                {'c': 1.0}, time_start=night * DAY, repeats=1,
                session_uuid=f'hawk-{night}', system='hawk'), 'r')
        yield conn


def _night(n):
    return f'1970-01-0{n + 1}'


PAGES = [(_night(1), 'hawk-1', 'ior', 'bw', 'paged', -0.2),
         (_night(2), 'hawk-2', 'ior', 'bw', 'held', -0.1),
         (_night(2), 'hawk-2', 'ior', 'iops', 'paged', None),
         (_night(2), 'hawk-2', 'dd', 'bw', 'paged', -0.3)]


def test_pages_are_kept_once(conn):
    assert triage.keep_pages(conn, 'hawk', PAGES, 't1') == 4
    assert triage.keep_pages(conn, 'hawk', PAGES[:2] + [
        (_night(3), 'hawk-3', 'x', 'bw', 'paged', 0.5)], 't2') == 1
    assert conn.execute("SELECT recorded FROM pfsbench_pages WHERE "
                        "session = 'hawk-1'").fetchone()[0] == 't1'
    assert triage.sessions_like(conn, 'hawk-') == ['hawk-1', 'hawk-2',
                                                  'hawk-3']
    assert triage.sessions_like(conn, 'hawk-2') == ['hawk-2']


def test_a_page_that_cannot_be_kept_rolls_back(conn):
    with pytest.raises(sqlite3.Error):
        triage.keep_pages(conn, 'hawk', PAGES[:1] + [(None,) * 6], 't')
    assert conn.execute('SELECT COUNT(*) FROM pfsbench_pages'
                        ).fetchone()[0] == 0


def test_marks_name_pages_and_the_newest_counts(conn):
    triage.keep_pages(conn, 'hawk', PAGES, 't')
    assert triage.mark(conn, 'hawk-2', 'none', '', 'ack', 'me', 'x',
                       '1') == 0
    assert triage.mark(conn, 'hawk-2', '', '', 'invalid', 'ann', 'noise',
                       '2') == 3
    assert triage.mark(conn, 'hawk-2', 'ior', 'bw', 'ack', 'bob', 'known',
                       '3') == 1
    assert triage.mark(conn, 'hawk-2', '', 'iops', 'ack', 'cy', 'fix',
                       '4') == 1
    assert conn.execute('SELECT COUNT(*) FROM pfsbench_marks'
                        ).fetchone()[0] == 3
    got = triage.record(conn, 'hawk')
    assert {k: got[k] for k in ('system', 'nights', 'first', 'last')} == {
        'system': 'hawk', 'nights': 3, 'first': _night(1),
        'last': _night(4)}
    assert [(p['session'], p['name'], p['figure'], p['mark'], p['who'])
            for p in got['pages']] == [
        ('hawk-1', 'ior', 'bw', None, None),
        ('hawk-2', 'dd', 'bw', 'invalid', 'ann'),
        ('hawk-2', 'ior', 'bw', 'ack', 'bob'),
        ('hawk-2', 'ior', 'iops', 'ack', 'cy')]
    assert got['pages'][1] == {
        'night': _night(2), 'session': 'hawk-2', 'name': 'dd',
        'figure': 'bw', 'kind': 'paged', 'change': -0.3, 'mark': 'invalid',
        'who': 'ann', 'why': 'noise'}
    last_two = triage.record(conn, 'hawk', nights=2)
    assert (last_two['nights'], last_two['first']) == (2, _night(2))
    assert [p['session'] for p in last_two['pages']] == ['hawk-2'] * 3
    assert triage.record(conn, 'none') == {
        'system': 'none', 'nights': 0, 'first': None, 'last': None,
        'pages': []}


def test_figure_pages_of_every_night_and_without_the_table(conn):
    triage.keep_pages(conn, 'hawk', PAGES, 't')
    triage.keep_pages(conn, 'vulcan', [
        (_night(1), 'vulcan-1', 'ior', 'bw', 'paged', -0.5)], 't')
    got = triage.figure_pages(conn, 'bw', ['hawk', 'vulcan'])
    assert [(p['session'], p['name']) for p in got] == [
        ('hawk-1', 'ior'), ('hawk-2', 'dd'), ('hawk-2', 'ior'),
        ('vulcan-1', 'ior')]
    assert triage.figure_pages(conn, 'bw', []) == []
    conn.execute('DROP TABLE pfsbench_marks')
    assert triage.figure_pages(conn, 'bw', ['hawk']) == []
    assert conn.execute('SELECT COUNT(*) FROM pfsbench_sessions'
                        ).fetchone()[0] == 3        # rolled back, usable


def test_figure_pages_reach_past_the_records_90_nights(conn):
    base = 86400 * 10
    pages = [(time.strftime('%Y-%m-%d', time.gmtime(base + n * 86400)),
              f's{n}', 'ior', 'bw', 'paged', None)
             for n in range(triage.RECORD_NIGHTS + 2)]
    triage.keep_pages(conn, 'zeta', pages, 't')
    assert len(triage.record(conn, 'zeta')['pages']) == \
        triage.RECORD_NIGHTS
    assert len(triage.figure_pages(conn, 'bw', ['zeta'])) == \
        triage.RECORD_NIGHTS + 2
