# SPDX-License-Identifier: BSD-3-Clause
"""The store's columns (pfsbench.store.columns) through its public
functions: the mutants bench/mutation.py found the store's tests letting
through (docs/mutation.md).  Pure and fast."""

import sqlite3

import pytest

from pfsbench.store import columns
from pfsbench.store.connect import open_store


def test_names_insert_row_and_reader():
    assert columns.names(('a', 'b')) == 'a, b'
    assert columns.names(('a', 'b'), {'b': "''"}) == "a, ''"
    assert columns.insert('t', ('a', 'b', 'c')) == \
        'INSERT INTO t(a, b, c) VALUES(?,?,?)'
    assert columns.row(('b', 'a'), {'a': 1, 'b': 2}) == (2, 1)
    with pytest.raises(KeyError) as err:
        columns.row(('a',), {'a': 1, 'z': 2, 'y': 3})
    assert err.value.args == ('not a column: y, z',)
    with pytest.raises(KeyError):
        columns.row(('a', 'b'), {'a': 1})
    row = columns.reader('R', ('x', 'y'))._make((1, 2))
    assert (type(row).__name__, row.x, row.y) == ('R', 1, 2)


def test_every_tables_columns_are_the_stores(tmp_path):
    path = str(tmp_path / 's.sqlite')
    open_store(path).close()
    conn = sqlite3.connect(path)
    try:
        for table, names in columns.TABLES.items():
            found = tuple(r[1] for r in conn.execute(
                f'PRAGMA table_info({table})'))
            assert sorted(found) == sorted(names), table
    finally:
        conn.close()
    assert len(columns.TABLES) == 7
