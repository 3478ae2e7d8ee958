# SPDX-License-Identifier: BSD-3-Clause
"""The history query: one figure over time, across clusters and
targets (``pfsbench history``), and the provenance of its sessions."""

import json

from pfsbench.gate.history.provenance import session_level


def _figure_rows(conn, figure, name, systems_, since):
    """``(where, args)``: the SQL condition on ``pfsbench_figures`` that
    selects the rows of :func:`figure_history` (arguments as there)."""
    where = 'figure = ? AND value IS NOT NULL'
    args = [figure]
    if name:
        # instr / strpos: a substring, no LIKE wildcards to escape.
        where += (' AND strpos(name, ?) > 0' if conn.postgres
                  else ' AND instr(name, ?) > 0')
        args.append(name)
    if systems_:
        where += f' AND system IN ({",".join("?" * len(systems_))})'
        args += list(systems_)
    if since:
        where += ' AND night >= ?'
        args.append(since)
    return where, args


def figure_history(conn, figure, *, name=None, systems_=None, since=None):
    """One figure over time, across clusters and targets: ``[{system,
    partition, target, filesystem, name, night, session, n, mean, min,
    max, unit}]`` per session and case, oldest first.

    Args:
        figure: the figure (``write_bw``).
        name: only cases whose name holds this text (a substring).
        systems_: only these clusters.
        since: only nights on or after this ``YYYY-MM-DD``.
    """
    where, args = _figure_rows(conn, figure, name, systems_, since)
    query = ('SELECT system, partition, target, filesystem, name, night, '
             'session, time_start, unit, value FROM pfsbench_figures '
             f'WHERE {where}')
    query += ' ORDER BY time_start, session, system, target, name'

    out = {}
    for (system, partition, target, fstype, case, night, session, start,
         unit, value) in conn.execute(query, args):
        key = (start, session, system, partition, target, case)
        entry = out.get(key)
        if entry is None:
            entry = out[key] = {
                'system': system, 'partition': partition, 'target': target,
                'filesystem': fstype, 'name': case, 'night': night,
                'time': start, 'session': session, 'unit': unit,
                'values': []}
        entry['values'].append(value)

    rows = []
    for entry in out.values():
        values = entry.pop('values')
        entry.update(n=len(values), mean=sum(values) / len(values),
                     min=min(values), max=max(values))
        rows.append(entry)
    return rows


def provenance_history(conn, figure, *, name=None, systems_=None,
                       since=None):
    """The provenance of each session of a figure's history (the sessions
    of :func:`figure_history`'s rows, arguments as there), so that a
    history can mark where it changed: ``[{session, system, night, time,
    provenance}]``, oldest first (by start time, then uuid), where
    ``provenance`` is ``{key: str}`` of the session's extras, ReFrame's
    version and host, as the gate compares them
    (:func:`pfsbench.gate.history.provenance.session_level`).
    """
    where, args = _figure_rows(conn, figure, name, systems_, since)
    rows = conn.execute(
        'SELECT uuid, system, night, time_start, reframe_version, hostname,'
        ' extras FROM pfsbench_sessions WHERE uuid IN (SELECT session FROM '
        f'pfsbench_figures WHERE {where})', args).fetchall()
    # Sorted here, not in SQL: a PostgreSQL collation may order the
    # uuids of sessions started in the same second otherwise.
    rows.sort(key=lambda r: (r[3], r[0]))
    return [{'session': uuid, 'system': system, 'night': night,
             'time': start,
             'provenance': session_level({'extras': json.loads(extras),
                                          'reframe_version': version,
                                          'hostname': host})}
            for uuid, system, night, start, version, host, extras in rows]
