# SPDX-License-Identifier: BSD-3-Clause
"""The kept series: each cluster's history as the gate reads it (a
:class:`~pfsbench.gate.history.series.Series` per cluster and target, in
``pfsbench_series``), brought up to date with the sessions stored since
and written back by a role that may write it."""

import contextlib
import json

from pfsbench.gate.history.keys import CaseKey, Session
from pfsbench.gate.history.results import session_figures
from pfsbench.gate.history.series import SERIES_FORMAT, Series
from pfsbench.store import codec, columns
from pfsbench.store.connect import now
from pfsbench.store.ingest import FIGURES, FIGURES_STAMP
from pfsbench.store.records import records_of, sessions_of

#: Nights a kept series may lag its cluster's sessions before a writer
#: rewrites it (``pfsbench ingest`` and ``pfsbench gate``): a reader adds
#: those nights in memory (about 0.03 s each for 500 cases), while the
#: rewrite of a year's series is about 2.5 s (bench/store_speed.py), so
#: a night's ingest stays a write of its own rows (0.5-0.75 s) on six
#: nights of seven.
SERIES_LAG = 6

#: How long writing the series may wait for another writer of the same
#: row (or, on SQLite, of the file) before it gives up: the series is a
#: cache, a gate must not wait for it.
SERIES_LOCK_WAIT = 0.5

#: What a kept series was computed with: what its sessions' figures
#: were, the series layout and the session's fields.
_SERIES_STAMP = json.dumps(FIGURES + (SERIES_FORMAT, tuple(
    Session.__dataclass_fields__)))

#: The ``system`` of the series of every cluster's sessions (a runs
#: directory's that ran on several clusters).
EVERY_CLUSTER = '*'


def scope(target):
    """The ``scope`` column of a series of ``target`` (None: every
    target)."""
    return json.dumps(target, ensure_ascii=False)


def synced_series(conn, system, target, sessions, chunk, keep, lag=0):
    """The cluster's kept series brought up to date with ``sessions``
    (``system`` None: every cluster's): a session gone is dropped, new
    ones are appended, a session older than the newest kept one starts
    it again; written back when it changed (only appended: when more
    than ``lag`` nights were)."""
    where = scope(target)
    if system is None:
        system = EVERY_CLUSTER
    series = _load_series(conn, system, where)
    changed = False
    if series is not None and not sessions.keys() >= set(series.uuids):
        series = series.drop(sessions)
        changed = True

    new = [u for u in sessions if series is None or u not in series.sessions]
    if new:
        newest = series.newest_key() if series is not None else None
        first = sessions[new[0]]
        if newest is None or (first.time_start, first.uuid) < newest:
            series = Series()
            new = list(sessions)
            changed = True
        elif len(new) > lag:
            changed = True
        # A chunk at a time: a year's figures need not be held at once.
        for start in range(0, len(new), chunk):
            part = new[start:start + chunk]
            figures = _figures_of(conn, part, target)
            for uuid in part:
                series.add(sessions[uuid], figures[uuid])
    elif series is None:
        series = Series()

    if changed and keep:
        _save_series(conn, system, where, series)
    return series


def _figures_of(conn, uuids, target):
    """``{uuid: session_figures}``: as kept at ingest where they were
    kept by this pfsbench (their stamp is :data:`FIGURES_STAMP`) for every
    target, else from the rows."""
    out, keys = {}, {}
    if target is None:
        marks = ','.join('?' * len(uuids))
        for uuid, blob in conn.execute(
                f'SELECT uuid, figures FROM pfsbench_sessions WHERE uuid '
                f'IN ({marks}) AND figures_stamp = ?',
                [*uuids, FIGURES_STAMP]):
            try:
                found = codec.loads(blob)
            except codec.Damaged:
                continue
            out[uuid] = {keys.get(k) or keys.setdefault(k, CaseKey(*k)): v
                         for k, v in found.items()}
    todo = [u for u in uuids if u not in out]
    if todo:
        for uuid, records in records_of(conn, todo, target).items():
            out[uuid] = session_figures(records)
    return out


def _load_series(conn, system, where):
    """The kept series of ``system`` and scope ``where``, or None (none
    kept, kept by another pfsbench, damaged, a store of schema 1)."""
    try:
        row = conn.execute('SELECT stamp, body FROM pfsbench_series WHERE '
                           'system = ? AND scope = ?',
                           (system, where)).fetchone()
    except conn.errors:
        conn.rollback()
        return None
    if row is None or row[0] != _SERIES_STAMP:
        return None
    try:
        series = codec.loads(row[1])
    except codec.Damaged:
        return None
    return series if isinstance(series, Series) else None


def _save_series(conn, system, where, series):
    """Keep ``series`` in the store; True if it was written.  Nothing
    happens where this role may not write it (a read role), another
    writer holds it, or the store is of schema 1."""
    try:
        if conn.postgres:
            row = conn.execute(
                "SELECT has_table_privilege('pfsbench_series', 'INSERT') "
                "AND has_table_privilege('pfsbench_series', 'UPDATE')"
            ).fetchone()
            if not row[0]:
                conn.rollback()
                return False
            conn.execute(f"SET LOCAL lock_timeout = "
                         f"'{int(SERIES_LOCK_WAIT * 1000)}ms'")
        else:
            conn.execute(f'PRAGMA busy_timeout = '
                         f'{int(SERIES_LOCK_WAIT * 1000)}')
        conn.execute(
            columns.insert('pfsbench_series', columns.SERIES) +
            ' ON CONFLICT (system, scope) DO UPDATE SET stamp = '
            'excluded.stamp, sessions = excluded.sessions, newest = '
            'excluded.newest, body = excluded.body, written = '
            'excluded.written',
            columns.row(columns.SERIES, dict(
                system=system, scope=where, stamp=_SERIES_STAMP,
                sessions=len(series.uuids),
                newest=series.uuids[-1] if series.uuids else '',
                body=codec.dumps(series), written=now())))
        conn.commit()
        return True
    except conn.errors:
        conn.rollback()
        return False
    except TypeError:               # a value the codec does not keep
        conn.rollback()
        return False
    finally:
        if not conn.postgres:
            with contextlib.suppress(*conn.errors):
                conn.execute('PRAGMA busy_timeout = '
                             f'{int(conn.timeout * 1000)}')


def refresh_series(conn, system, lag=0):
    """Bring every series kept for ``system`` (and the one of all its
    targets) up to date with its sessions, as ``pfsbench ingest`` does
    after a night: the gate then reads them as they are (``lag``: left
    as they are while they miss at most that many new nights).  Returns
    the number of sessions of the cluster's series."""
    scopes = {scope(None)}
    try:
        scopes.update(s for s, in conn.execute(
            'SELECT scope FROM pfsbench_series WHERE system = ?', (system,)))
    except conn.errors:
        conn.rollback()
        return 0
    sessions = sessions_of(conn, system)
    for where in sorted(scopes):
        try:
            target = json.loads(where)
        except ValueError:
            continue
        synced_series(conn, system, target, sessions, 100, True, lag)
    return len(sessions)
