# SPDX-License-Identifier: BSD-3-Clause
"""A variable's past: per-session means before the current session (for
the night-noise floor) and over the whole window, with change points and
the provenance that changed where each step began.
"""

import statistics
from collections import defaultdict

from pfsbench.gate import baseline as bl
from pfsbench.gate import changepoints as cp
from pfsbench.gate import provenance as prov


def _usable(rec):
    return rec.fail_phase in bl.USABLE_FAIL_PHASES and not rec.contended


def _per_session(records, keep):
    """``{var: {session: [value, ...]}}`` of the usable records that
    ``keep(record)`` accepts."""
    per = defaultdict(lambda: defaultdict(list))
    for rec in records:
        if not _usable(rec) or not keep(rec):
            continue

        for var, (value, _) in rec.perf.items():
            if value is not None:
                per[var][rec.session].append(float(value))

    return per


def history_means(results, current, limit, configs=None):
    """Per-session means of each case's variables in the sessions before
    its current session (the newest ``limit``), for the night-noise
    floor.

    Args:
        results: the loaded results.
        current: ``{CaseKey: (session uuid, records)}``.
        limit: keep this many sessions per variable.
        configs: ``{CaseKey: config}``; records configured otherwise
            (other ``-S`` values, task counts) are left out, as are
            contended ones.

    Returns:
        ``{(CaseKey, var): [mean, ...]}``, oldest first.
    """
    start = {u: s.time_start for u, s in results.sessions.items()}
    by_key = results.by_key()
    out = {}
    for key, (sess, _) in current.items():
        until = start[sess]
        config = configs.get(key) if configs is not None else None
        per = _per_session(
            by_key.get(key, ()),
            lambda r: start[r.session] < until and
            (configs is None or r.config == config))
        for var, sessions in per.items():
            uuids = sorted(sessions, key=start.get)[-limit:]
            out[(key, var)] = [statistics.fmean(sessions[u]) for u in uuids]

    return out


def history(results, rows, config):
    """Per-session means of every compared variable, with change points
    (failed and contended records left out).

    Returns:
        A list of dicts, one per row in ``rows``, with the series, the
        baseline band and the change points (each naming the session where
        the step began and the tags that differ from the session before).
    """
    ordered = results.ordered_sessions()[-config.history_sessions:]
    pos = {s.uuid: i for i, s in enumerate(ordered)}
    by_key = results.by_key()
    keys = {str(k): k for k in by_key}
    series = {}
    for case in {r.case for r in rows}:
        key = keys.get(case)
        series[case] = _per_session(by_key.get(key, ()),
                                    lambda r: r.session in pos)

    out = []
    for row in rows:
        per_sess = series[row.case].get(row.var, {})
        uuids = sorted(per_sess, key=lambda u: pos[u])
        points = [{'session': u, 'time': ordered[pos[u]].time_start,
                   'mean': statistics.fmean(per_sess[u]),
                   'n': len(per_sess[u])} for u in uuids]
        base_vals = row.base['values']
        band = {'mean': statistics.fmean(base_vals),
                'min': min(base_vals), 'max': max(base_vals)}
        changes = []
        means = [p['mean'] for p in points]
        if len(means) >= 2 * config.changepoint_min_segment and \
                all(m > 0 for m in means):
            min_change = config.changepoint_min_change
            if min_change is None:
                min_change = row.tolerance

            for c in cp.detect(means, threshold=config.changepoint_threshold,
                               min_segment=config.changepoint_min_segment,
                               min_change=min_change):
                before = results.sessions[uuids[c.index - 1]]
                after = results.sessions[uuids[c.index]]
                at, diff = _tag_change_near(results, uuids, c.index,
                                            keys.get(row.case))
                changes.append({
                    'index': c.index, 'session': after.uuid,
                    'time': after.time_start, 'previous_session':
                    before.uuid, 'before': c.before, 'after': c.after,
                    'change': c.change, 'score': c.score,
                    'tags_changed': diff,
                    'tags_changed_at': at,
                })

        out.append({'case': row.case, 'check': row.check,
                    'var': row.var, 'unit': row.unit,
                    'points': points, 'baseline': band,
                    'changepoints': changes})

    return out


def _tags_of(results, uuid, key):
    session = results.sessions[uuid]
    return prov.session_tags(session, *prov.case_tags_of(
        results.case_records(uuid).get(key, ())))


def _tag_change_near(results, uuids, index, key, reach=2):
    """The tags that differ across the step at ``index``; if none do,
    the nearest pair of sessions within ``reach`` nights whose tags differ
    (a noisy series can place a step a night early or late).

    Returns:
        ``(uuid of the first session with the new tags or None,
        {key: [before, after]})``.
    """
    for offset in [0] + [o for j in range(1, reach + 1) for o in (-j, j)]:
        k = index + offset
        if k < 1 or k >= len(uuids):
            continue

        diff = prov.differences([_tags_of(results, uuids[k - 1], key)],
                                _tags_of(results, uuids[k], key))
        if diff:
            return uuids[k], {c.key: [c.before[0], c.after] for c in diff}

    return None, {}
