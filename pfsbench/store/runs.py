# SPDX-License-Identifier: BSD-3-Clause
"""The run reports of a runs directory: ReFrame's results database (read
only, under ReFrame's shared lock, as the gate reads it) and the
baselines beside it, for ``pfsbench ingest --from-runs``."""

import glob
import json
import os
import sqlite3

from pfsbench.core.errors import ResultsError
from pfsbench.gate.store import results as rs


def reports(runs_dir, since=None, timeout=30.0):
    """Yield ``(report, source)`` for each session of
    ``<runs_dir>/results.db``, oldest first; with ``since`` (Unix time)
    only those started at or after it.

    Raises:
        MissingData: no results database there.
        ResultsError: it is not ReFrame's, or a blob is not JSON.
    """
    path = os.path.join(runs_dir, 'results.db')
    rs.require_database(path)
    uri = 'file:' + rs._uri_quote(os.path.abspath(path)) + '?mode=ro'
    with rs._reframe_read_lock(path, timeout):
        conn = sqlite3.connect(uri, uri=True, timeout=timeout)
        try:
            query = 'SELECT uuid FROM sessions'
            args = ()
            if since is not None:
                query += ' WHERE session_start_unix >= ?'
                args = (since,)
            try:
                uuids = [u for u, in conn.execute(
                    query + ' ORDER BY session_start_unix, uuid', args)]
            except sqlite3.DatabaseError as err:
                raise ResultsError(f'{path}: {rs._why(err)}: not a ReFrame '
                                   'results database') from None
            for uuid in uuids:
                row = conn.execute('SELECT json_blob FROM sessions WHERE '
                                   'uuid = ?', (uuid,)).fetchone()
                if row is None:
                    continue
                try:
                    report = json.loads(row[0])
                except (TypeError, ValueError) as err:
                    raise ResultsError(f'{path}: sessions[{uuid}].json_blob: '
                                       f'not JSON: {err}') from None
                yield report, f'{path}[{uuid}]'
        finally:
            conn.close()


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
