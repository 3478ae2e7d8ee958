# SPDX-License-Identifier: BSD-3-Clause
"""The results store (pfsbench.store) through its public functions: the
mutants bench/mutation.py found the store's tests letting through
(docs/mutation.md).  SQLite only: pure and fast."""

import sqlite3
import time

import pytest

from pfsbench.core.errors import MissingData
from pfsbench.store import connect
from pfsbench.store.db import StoreDown


def test_now_is_utc_whatever_the_local_zone(monkeypatch):
    monkeypatch.setenv('TZ', 'EST+5')
    time.tzset()
    try:
        stamp = connect.now()
    finally:
        monkeypatch.undo()
        time.tzset()
    assert stamp.endswith('+00:00') and len(stamp) == 25, stamp


def test_open_store_without_create_creates_nothing(tmp_path):
    path = tmp_path / 'none.db'
    with pytest.raises(StoreDown) as err:
        connect.open_store(str(path), create=False)
    assert str(err.value) == (f'{path}: results store not found '
                              '(pfsbench ingest creates it)')
    assert not path.exists()


def test_open_store_without_migrate_names_the_empty_store(tmp_path):
    path = tmp_path / 'empty.db'
    sqlite3.connect(path).close()
    with pytest.raises(MissingData) as err:
        connect.open_store(str(path), migrate=False)
    assert str(err.value) == (f'{path}: no pfsbench results store there '
                              'yet (pfsbench ingest creates it)')
    conn = connect.open_store(str(path))
    conn.close()
    connect.open_store(str(path), migrate=False).close()


def test_open_store_waits_its_timeout_on_a_locked_store_and_says_why(
        tmp_path):
    path = tmp_path / 'locked.db'
    holder = sqlite3.connect(path)
    holder.execute('BEGIN EXCLUSIVE')
    try:
        start = time.monotonic()
        with pytest.raises(StoreDown) as err:
            connect.open_store(str(path), timeout=0.2)
        waited = time.monotonic() - start
    finally:
        holder.rollback()
        holder.close()
    assert 0.15 < waited < 5.0
    assert str(err.value) == (f'{path}: the results store stopped '
                              'answering: database is locked')
