# SPDX-License-Identifier: BSD-3-Clause
"""Reading a cluster back (pfsbench.store.read) through its public
functions: the mutants bench/mutation.py found the store's tests letting
through (docs/mutation.md).  SQLite only: pure and fast."""

import pytest

from pfsbench.core import fields
from pfsbench.core.errors import ConfigError, MissingData
from pfsbench.store import ingest, read
from pfsbench.store.connect import open_store
import synth

DAY = 86400.0


def _store(path, clusters, nights=4):
    """A store of ``nights`` sessions per cluster, night ``n`` started
    at ``n`` days, uuid ``<cluster>-<n>``, two targets each."""
    url = str(path / 'store.sqlite')
    with open_store(url) as conn:
        for system in clusters:
            for night in range(1, nights + 1):
                ingest.ingest_report(conn, synth.make_report(
                    [synth.make_testcase(
                        f'{system}-{night}', 0, i, f'dd {target}',
                        {'bw': (float(night), 'MB/s')}, system=system,
                        loggable={fields.TARGET_PATH: target})
                     for i, target in enumerate(('/a', '/b'))],
                    time_start=night * DAY,
                    session_uuid=f'{system}-{night}'), 'r')
    return url


def test_systems_are_sorted_and_one_is_chosen_when_alone(tmp_path):
    url = _store(tmp_path, ['zeta', 'alpha'], nights=1)
    with open_store(url) as conn:
        assert read.systems(conn) == ['alpha', 'zeta']
        assert read.choose_system(conn, 'zeta') == 'zeta'
        with pytest.raises(ConfigError) as err:
            read.choose_system(conn, None)
        assert str(err.value) == (
            f"<command line>:--system: None: {url} holds 2 clusters "
            f"(alpha, zeta): name one")
        with pytest.raises(MissingData) as err:
            read.choose_system(conn, 'beta')
        assert str(err.value) == (f"{url}: cluster 'beta': no sessions "
                                  f"stored (known: alpha, zeta)")
    one = _store(tmp_path / 'one', ['solo'], nights=1) \
        if (tmp_path / 'one').mkdir() is None else None
    with open_store(one) as conn:
        assert read.choose_system(conn, None) == 'solo'


def test_an_empty_store_names_no_cluster(tmp_path):
    url = str(tmp_path / 'empty.sqlite')
    with open_store(url) as conn:
        with pytest.raises(ConfigError) as err:
            read.choose_system(conn, None)
        assert str(err.value).endswith('holds 0 clusters (none): name one')
        with pytest.raises(MissingData) as err:
            read.choose_system(conn, 'x')
        assert str(err.value).endswith('(known: none)')


def test_read_results_window(tmp_path):
    url = _store(tmp_path, ['alpha', 'beta'])
    with open_store(url) as conn:
        def uuids(**kwargs):
            got = read.read_results(conn, 'alpha', **kwargs)
            return [s.uuid for s in got.ordered_sessions()]
        assert uuids() == ['alpha-1', 'alpha-2', 'alpha-3', 'alpha-4']
        assert uuids(newest=2) == ['alpha-3', 'alpha-4']
        assert uuids(newest=0) == []
        assert uuids(newest=9) == uuids()
        assert uuids(newest_since=3 * DAY) == ['alpha-3', 'alpha-4']
        assert uuids(newest=1, newest_since=3 * DAY) == [
            'alpha-2', 'alpha-3', 'alpha-4']
        assert uuids(newest_since=5 * DAY) == []
        assert uuids(uuids=['alpha-4', 'alpha-2', 'beta-1']) == [
            'alpha-2', 'alpha-4']
        assert uuids(uuids=['alpha-1', 'alpha-2', 'alpha-3'],
                     newest=1) == ['alpha-3']
        every = read.read_results(conn, None)
        assert len(every.sessions) == 8


def test_read_results_names_its_source_and_loads_a_target(tmp_path):
    url = _store(tmp_path, ['alpha'], nights=2)
    with open_store(url) as conn:
        got = read.read_results(conn, 'alpha', target='/b')
        named = read.read_results(conn, 'alpha', source='mine')
    # Before the records are loaded: the summary's own query.
    assert [k.name for k in got.case_summary('alpha-2')] == ['dd /b']
    assert got.source == f'{url} (cluster alpha)'
    assert named.source == 'mine'
    assert [r.key.name for r in got.records] == ['dd /b', 'dd /b']
    assert [r.session for r in got.records] == ['alpha-1', 'alpha-2']
    assert len(named.records) == 4
