# SPDX-License-Identifier: BSD-3-Clause
"""The history query (pfsbench.store.history) through its public
functions: the mutants bench/mutation.py found the store's tests letting
through (docs/mutation.md).  SQLite only: pure and fast."""

import pytest

from pfsbench.core import fields
from pfsbench.store import db, history, ingest
from pfsbench.store.connect import open_store
import synth

DAY = 86400.0


@pytest.fixture
def conn(tmp_path):
    """Nights 1-3 of ``hawk`` (cases ``ior a``, ``ior b`` on /a, ``dd``
    on /b) and night 2 of ``vulcan``; two repeats each, values
    ``night`` and ``night + 2``, figure ``bw``; night 3's ``dd`` logs no
    value."""
    with open_store(str(tmp_path / 's.sqlite')) as conn:
        for system, night in (('hawk', 1), ('hawk', 2), ('vulcan', 2),
                              ('hawk', 3)):
            uuid = f'{system}-{night}'
            cases = []
            for name, target in (('ior a', '/a'), ('ior b', '/a'),
                                 ('dd', '/b')):
                for rep in (0, 1):
                    value = None if (name, night) == ('dd', 3) else \
                        float(night + 2 * rep)
                    cases.append(synth.make_testcase(
                        uuid, 0, len(cases), name, {'bw': (value, 'MB/s'),
                                                    'other': (9.0, 's')},
                        system=system, repeat=rep,
                        loggable={fields.TARGET_PATH: target}))
            ingest.ingest_report(conn, synth.make_report(
                cases, time_start=night * DAY, session_uuid=uuid,
                extras={'fs_version': f'v{night}'}), 'r')
        yield conn


def _keys(rows):
    return [(r['session'], r['name']) for r in rows]


def test_figure_history_one_row_per_session_and_case(conn):
    rows = history.figure_history(conn, 'bw')
    assert _keys(rows) == [
        ('hawk-1', 'ior a'), ('hawk-1', 'ior b'), ('hawk-1', 'dd'),
        ('hawk-2', 'ior a'), ('hawk-2', 'ior b'), ('hawk-2', 'dd'),
        ('vulcan-2', 'ior a'), ('vulcan-2', 'ior b'), ('vulcan-2', 'dd'),
        ('hawk-3', 'ior a'), ('hawk-3', 'ior b')]
    assert rows[3] == {
        'system': 'hawk', 'partition': 'default', 'target': '/a',
        'filesystem': '', 'name': 'ior a', 'night': '1970-01-03',
        'time': 2 * DAY, 'session': 'hawk-2', 'unit': 'MB/s', 'n': 2,
        'mean': 3.0, 'min': 2.0, 'max': 4.0}


def test_figure_history_filters(conn):
    assert _keys(history.figure_history(conn, 'bw', name='or b')) == [
        ('hawk-1', 'ior b'), ('hawk-2', 'ior b'), ('vulcan-2', 'ior b'),
        ('hawk-3', 'ior b')]
    assert _keys(history.figure_history(
        conn, 'bw', name='%', systems_=['vulcan'])) == []
    assert [r['session'] for r in history.figure_history(
        conn, 'bw', name='dd', systems_=['vulcan', 'hawk'])] == [
        'hawk-1', 'hawk-2', 'vulcan-2']
    assert _keys(history.figure_history(
        conn, 'bw', systems_=['hawk'], since='1970-01-03')) == [
        ('hawk-2', 'ior a'), ('hawk-2', 'ior b'), ('hawk-2', 'dd'),
        ('hawk-3', 'ior a'), ('hawk-3', 'ior b')]
    assert history.figure_history(conn, 'none') == []


def test_provenance_history_of_the_figures_sessions(conn):
    got = history.provenance_history(conn, 'bw', name='dd')
    assert [g['session'] for g in got] == ['hawk-1', 'hawk-2', 'vulcan-2']
    assert got[0] == {'session': 'hawk-1', 'system': 'hawk',
                      'night': '1970-01-02', 'time': DAY,
                      'provenance': {'fs_version': 'v1',
                                     'reframe_version': '4.10.4',
                                     'hostname': 'vm'}}
    assert [g['session'] for g in history.provenance_history(
        conn, 'bw', systems_=['vulcan'], since='1970-01-03')] == ['vulcan-2']


def test_sessions_of_the_same_second_are_in_uuid_order(tmp_path):
    with open_store(str(tmp_path / 's.sqlite')) as conn:
        for uuid, system in (('b-second', 'alpha'), ('a-first', 'zeta')):
            ingest.ingest_report(conn, synth.session(
                {'dd': 1.0}, time_start=DAY, repeats=1, session_uuid=uuid,
                system=system, var='bw'), 'r')
        got = history.provenance_history(conn, 'bw')
    assert [g['session'] for g in got] == ['a-first', 'b-second']


class _AsPostgres(db.Connection):
    """A SQLite store that answers as PostgreSQL for the history's
    substring test (``strpos``; SQLite's ``instr`` refused)."""

    def __init__(self, url):
        super().__init__(url)
        self.conn.create_function('strpos', 2,
                                  lambda text, part: text.find(part) + 1)
        self.postgres = True

    def sql(self, statement):
        assert 'instr(' not in statement
        return statement


def test_a_case_name_is_a_substring_on_postgresql_too(conn, tmp_path):
    url = conn.url
    pg = _AsPostgres(url)
    try:
        got = history.figure_history(pg, 'bw', name='or b')
        sessions = history.provenance_history(pg, 'bw', name='dd')
    finally:
        pg.close()
    assert [(r['session'], r['name']) for r in got] == [
        ('hawk-1', 'ior b'), ('hawk-2', 'ior b'), ('vulcan-2', 'ior b'),
        ('hawk-3', 'ior b')]
    assert [s['session'] for s in sessions] == ['hawk-1', 'hawk-2',
                                                'vulcan-2']
