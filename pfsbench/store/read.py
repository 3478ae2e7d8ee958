# SPDX-License-Identifier: BSD-3-Clause
"""Reading one cluster's sessions back as the gate reads a runs
directory, and the clusters the store holds."""

from pfsbench.core.errors import ConfigError, MissingData
from pfsbench.gate.history.results import Results
from pfsbench.store.records import (loader, sessions_of,
                                    summary_loader)
from pfsbench.store.series import synced_series


def systems(conn):
    """The clusters in the store, sorted."""
    return [s for s, in conn.execute(
        'SELECT DISTINCT system FROM pfsbench_sessions ORDER BY system')]


def choose_system(conn, system):
    """``system``, or the store's only cluster when None.

    Raises:
        ConfigError: no such cluster, or several and none named.
    """
    known = systems(conn)
    if system is None:
        if len(known) == 1:
            return known[0]
        raise ConfigError('<command line>', '--system', None,
                          f'{conn.where} holds {len(known)} clusters '
                          f'({", ".join(known) or "none"}): name one')
    if system not in known:
        raise MissingData(f'{conn.where}: cluster {system!r}: no sessions '
                          f'stored (known: {", ".join(known) or "none"})')
    return system


def read_results(conn, system, *, newest=None, newest_since=None,
                 target=None, chunk=100, keep=True, lag=0, uuids=None,
                 source=None):
    """One cluster's sessions as :class:`Results`, as the gate reads them:
    the sessions of the window, their records loaded from the store when
    first needed (the current night's, the baseline's, those around a
    change point), and the history's
    :class:`~pfsbench.gate.history.series.Series` of every session of the
    cluster.

    The series is kept in the store (``pfsbench_series``, one per
    cluster and target): read, brought up to date with the sessions
    stored since (their figures kept at ingest), and written back when
    it changed and ``keep`` and the store lets this role write it.

    Args:
        conn: :func:`~pfsbench.store.connect.open_store`.
        system: the cluster (None: every cluster's sessions, a runs
            directory's that ran on several).
        newest: only the newest this many sessions.
        newest_since: add the sessions started at or after this Unix
            time to ``newest``.
        target: only the test cases that wrote to this target path.
        keep: write the series back when it changed (best effort).
        lag: leave the kept series as it is while it only misses at most
            this many new nights (:data:`~pfsbench.store.series.SERIES_LAG`).
        uuids: only these sessions (instead of ``newest``).
        source: what messages name (default: the store and cluster).
    """
    sessions = sessions_of(conn, system)
    series = synced_series(conn, system, target, sessions, chunk, keep, lag)

    order = list(sessions)
    if uuids is not None:
        wanted = set(uuids)
        order = [u for u in order if u in wanted]
    if newest_since is not None:
        newest = (newest or 0) + sum(
            1 for s in sessions.values() if s.time_start >= newest_since)
    if newest is not None:
        order = order[max(0, len(order) - int(newest)):] if newest > 0 \
            else []

    results = Results(source or f'{conn.where} (cluster {system})')
    url = conn.url
    for uuid in order:
        results.add_session(sessions[uuid], loader=loader(url, uuid, target),
                            summary=summary_loader(url, uuid, target))
    results.use_series(series)
    return results.finish()
