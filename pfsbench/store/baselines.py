# SPDX-License-Identifier: BSD-3-Clause
"""The baselines a gate judges against, kept per cluster."""

import json

from pfsbench.core.errors import ConfigError, MissingData
from pfsbench.store import columns
from pfsbench.store.connect import now
from pfsbench.store.ingest import to_json


def save_baseline(conn, system, baseline):
    """Keep a baseline (the dict ``pfsbench baseline record`` writes) for
    ``system``.  Insert only (an ingest role has INSERT and SELECT, no
    UPDATE or DELETE): a baseline of that name kept already stays.

    Returns:
        ``'stored'``, ``'already stored'`` or ``'differs'`` (another
        baseline of that name is kept; record the new one under a new
        name).
    """
    name = baseline['name']
    body = to_json(baseline)
    row = conn.execute('SELECT body FROM pfsbench_baselines WHERE '
                       'system = ? AND name = ?', (system, name)).fetchone()
    if row is not None:
        return 'already stored' if row[0] == body else 'differs'
    conn.execute(columns.insert('pfsbench_baselines', columns.BASELINES) +
                 ' ON CONFLICT (system, name) DO NOTHING',
                 columns.row(columns.BASELINES, dict(
                     system=system, name=name, body=body, ingested=now())))
    conn.commit()
    return 'stored'


def load_baseline(conn, system, name):
    """``(baseline, where)`` of a baseline kept for ``system`` (decoded,
    not validated: the gate validates it as it does a file).

    Raises:
        MissingData: none of that name (the message lists those kept).
        ConfigError: it is not JSON.
    """
    where = f'{conn.where}#baselines/{system}/{name}'
    row = conn.execute('SELECT body FROM pfsbench_baselines WHERE '
                       'system = ? AND name = ?', (system, name)).fetchone()
    if row is None:
        kept = [n for n, in conn.execute(
            'SELECT name FROM pfsbench_baselines WHERE system = ? '
            'ORDER BY name', (system,))]
        raise MissingData(f'{where}: baseline not found (kept for '
                          f'{system}: {", ".join(kept) or "none"}; pfsbench '
                          'ingest --from-runs DIR loads a runs directory\'s '
                          'baselines)')
    try:
        data = json.loads(row[0])
    except ValueError as err:
        raise ConfigError(where, '<json>', None, f'not JSON: {err}') from None
    return data, where
