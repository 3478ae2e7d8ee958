# SPDX-License-Identifier: BSD-3-Clause
"""The history query: one figure over time, across clusters and
targets (``pfsbench history``)."""


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
    query = ('SELECT system, partition, target, filesystem, name, night, '
             'session, time_start, unit, value FROM pfsbench_figures '
             'WHERE figure = ? AND value IS NOT NULL')
    args = [figure]
    if name:
        # instr / strpos: a substring, no LIKE wildcards to escape.
        query += (' AND strpos(name, ?) > 0' if conn.postgres
                  else ' AND instr(name, ?) > 0')
        args.append(name)
    if systems_:
        query += f' AND system IN ({",".join("?" * len(systems_))})'
        args += list(systems_)
    if since:
        query += ' AND night >= ?'
        args.append(since)
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
