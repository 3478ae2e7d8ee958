# SPDX-License-Identifier: BSD-3-Clause
"""The baselines kept in the store (pfsbench.store.baselines) through its
public functions: the mutants bench/mutation.py found the store's tests
letting through (docs/mutation.md).  SQLite only: pure and fast."""

import pytest

from pfsbench.core.errors import ConfigError, MissingData
from pfsbench.store import baselines
from pfsbench.store.connect import open_store


def test_a_baseline_is_kept_once_per_cluster_and_name(tmp_path):
    url = str(tmp_path / 's.sqlite')
    pre = {'name': 'pre', 'cases': {'é': [1.5]}}
    with open_store(url) as conn:
        assert baselines.save_baseline(conn, 'hawk', pre) == 'stored'
        assert baselines.save_baseline(conn, 'hawk', dict(pre)) == \
            'already stored'
        assert baselines.save_baseline(conn, 'hawk', dict(
            pre, cases={})) == 'differs'
        assert baselines.save_baseline(conn, 'vulcan', dict(
            pre, cases={})) == 'stored'
        row = conn.execute("SELECT body, ingested FROM pfsbench_baselines "
                           "WHERE system = 'hawk'").fetchone()
    assert row[0] == '{"name":"pre","cases":{"é":[1.5]}}'
    assert row[1].endswith('+00:00')
    with open_store(url) as conn:                 # committed
        assert baselines.load_baseline(conn, 'hawk', 'pre') == (
            pre, f'{url}#baselines/hawk/pre')
        assert baselines.load_baseline(conn, 'vulcan', 'pre')[0] == dict(
            pre, cases={})


def test_a_missing_baseline_lists_those_kept(tmp_path):
    url = str(tmp_path / 's.sqlite')
    with open_store(url) as conn:
        for name in ('b', 'a'):
            baselines.save_baseline(conn, 'hawk', {'name': name})
        baselines.save_baseline(conn, 'vulcan', {'name': 'c'})
        with pytest.raises(MissingData) as err:
            baselines.load_baseline(conn, 'hawk', 'c')
        assert str(err.value) == (
            f"{url}#baselines/hawk/c: baseline not found (kept for hawk: "
            "a, b; pfsbench ingest --from-runs DIR loads a runs "
            "directory's baselines)")
        with pytest.raises(MissingData) as err:
            baselines.load_baseline(conn, 'none', 'a')
        assert '(kept for none: none; ' in str(err.value)


def test_a_baseline_that_is_not_json_is_named(tmp_path):
    url = str(tmp_path / 's.sqlite')
    with open_store(url) as conn:
        conn.execute("INSERT INTO pfsbench_baselines VALUES "
                     "('hawk', 'bad', '{', 'then')")
        with pytest.raises(ConfigError) as err:
            baselines.load_baseline(conn, 'hawk', 'bad')
    assert str(err.value).startswith(
        f"{url}#baselines/hawk/bad:<json>: None: not JSON: Expecting")
