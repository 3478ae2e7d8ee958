# SPDX-License-Identifier: BSD-3-Clause
"""A runs directory as a source of the store: the run reports of its
ReFrame results database and the baselines beside it (``pfsbench ingest
--from-runs``), and the gate's read of a runs directory: what the store
beside it has not stored yet goes in first, then the sessions are read
from the store (one history path)."""

import glob
import hashlib
import json
import os
import tempfile

from pfsbench.core.errors import ResultsError
from pfsbench.store import db, reframe_db
from pfsbench.store.connect import open_store
from pfsbench.store.ingest import ingest_report
from pfsbench.store.read import read_results
from pfsbench.store.series import SERIES_LAG

#: Sessions ingested per transaction when the gate catches up.
_BATCH = 20


def reports(runs_dir, since=None, timeout=30.0):
    """Yield ``(report, source)`` for each session of
    ``<runs_dir>/results.db``, oldest first; with ``since`` (Unix time)
    only those started at or after it.

    Raises:
        MissingData: no results database there.
        ResultsError: it is not ReFrame's, or a blob is not JSON.
    """
    path = os.path.join(runs_dir, 'results.db')
    with reframe_db.opened(path, timeout) as conn:
        uuids = [u for u, _ in reframe_db.listed(conn, since)]
        yield from reframe_db.reports(conn, path, uuids)


def baselines(runs_dir, directory=None):
    """``[(name, baseline dict, path)]`` of the runs directory's
    baselines (``<runs>/baselines/*.json``)."""
    directory = directory or os.path.join(runs_dir, 'baselines')
    out = []
    for path in sorted(glob.glob(os.path.join(directory, '*.json'))):
        try:
            with open(path, encoding='utf-8') as fp:
                data = json.load(fp)
        except (OSError, ValueError) as err:
            raise ResultsError(f'{path}: baseline unreadable: {err}') \
                from None
        out.append((os.path.basename(path)[:-len('.json')], data, path))
    return out


def local_store(db_path):
    """The store of the runs directory holding ``db_path``:
    ``<runs>/pfsbench-store.sqlite`` (as ``pfsbench ingest`` makes it);
    where the runs directory may not be written (a group's, read-only),
    one of this user's in the temporary directory, named by the
    database's path."""
    runs_dir = os.path.dirname(os.path.abspath(db_path))
    path = db.default_url(runs_dir)
    if os.access(path, os.W_OK) or (not os.path.exists(path) and
                                    os.access(runs_dir, os.W_OK)):
        return path
    name = hashlib.sha256(os.path.abspath(db_path).encode()).hexdigest()
    return os.path.join(tempfile.gettempdir(),
                        f'pfsbench-store-{os.getuid()}-{name[:16]}.sqlite')


def _window(found, since, newest, newest_since):
    """The uuids of ``found`` (``[(uuid, start)]``, oldest first) the
    gate reads: started at or after ``since``, the newest ``newest``
    plus those started at or after ``newest_since``."""
    if newest_since is not None:
        newest = (newest or 0) + sum(1 for _, t in found
                                     if t >= newest_since)
    if newest is not None:
        found = found[max(0, len(found) - int(newest)):] if newest > 0 \
            else []
    return [u for u, t in found if since is None or t >= since]


def _catch_up(conn, path, rf_conn, uuids):
    """Ingest the sessions ``uuids`` of ReFrame's database, a batch per
    transaction."""
    for n, (report, source) in enumerate(
            reframe_db.reports(rf_conn, path, uuids), 1):
        ingest_report(conn, report, source, commit=False)
        if n % _BATCH == 0:
            conn.commit()
    conn.commit()


def read_database(path, timeout=30.0, since=None, newest=None,
                  newest_since=None):
    """The sessions of a ReFrame results database as the gate's
    :class:`~pfsbench.gate.history.results.Results`, read from the store
    beside it (:func:`local_store`) once what it lacks is ingested.

    Args:
        path: the ``results.db`` file.
        timeout: seconds to wait for a writer to finish.
        since: if set, only sessions that started at or after this Unix
            time.
        newest: if set, only the newest this many sessions (a long
            history then costs no more than its window).
        newest_since: add the number of sessions started at or after this
            Unix time to ``newest`` (the window before a ``--since``).

    Raises:
        MissingData: the file does not exist.
        ResultsError: the file is locked, not a ReFrame results database,
            or of an incompatible schema or report version.
    """
    with reframe_db.opened(path, timeout) as rf_conn:
        found = reframe_db.listed(rf_conn)
        with open_store(local_store(path)) as conn:
            stored = {u for u, in conn.execute(
                'SELECT uuid FROM pfsbench_sessions')}
            todo = [u for u, _ in found if u not in stored]
            if todo:
                _catch_up(conn, path, rf_conn, todo)
            return _read(conn, path, found,
                         _window(found, since, newest, newest_since))


def _read(conn, path, found, wanted):
    """The sessions ``wanted`` of the clusters the database's sessions
    (``found``) were stored under."""
    clusters = set()
    everyone = [u for u, _ in found]
    for start in range(0, len(everyone), 500):
        part = everyone[start:start + 500]
        clusters.update(c for c, in conn.execute(
            'SELECT DISTINCT system FROM pfsbench_sessions WHERE uuid IN '
            f'({",".join("?" * len(part))})', part))
    system = clusters.pop() if len(clusters) == 1 else None
    return read_results(conn, system, uuids=wanted, source=path,
                        lag=SERIES_LAG)
