# SPDX-License-Identifier: BSD-3-Clause
"""A variable's past: per-session means before the current session (for
the night-noise floor) and over the whole window, with change points and
the provenance that changed where each step began.
"""

import statistics
from collections import defaultdict

from pfsbench.gate import changepoints as cp
from pfsbench.gate import provenance as prov


def past_nights(results, current, limit, configs):
    """Each case's nights before its current session (the newest
    ``limit``), for the night-noise floor and the lookback rule.

    Args:
        results: the loaded results.
        current: ``{CaseKey: (session uuid, records)}``.
        limit: keep this many sessions per case.
        configs: ``{CaseKey: config}``; records configured otherwise
            (other ``-S`` values, task counts) are left out, as are
            failed and contended ones.

    Returns:
        ``{CaseKey: [(Session, {var: Moments}, like), ...]}``, oldest
        first (``like``: :func:`pfsbench.gate.results.like_tags`).
    """
    series, inside = results.series()
    out = {}
    for key, (uuid, _) in current.items():
        cols = series.cases.get(key)
        if cols is None:
            continue

        until = results.sessions[uuid].time_start
        wanted = {i for i, c in enumerate(cols.configs)
                  if c == configs.get(key)}
        picked = []
        for j in range(len(cols.pos) - 1, -1, -1):
            if len(picked) == limit:
                break

            session = series.sessions[series.uuids[cols.pos[j]]]
            if inside[cols.pos[j]] and session.time_start < until and \
                    cols.config_ids[j] in wanted:
                picked.append((j, session))

        nights = []
        for j, session in reversed(picked):
            per_var = {}
            for var in cols.columns:
                found = cols.moments(var, j)
                if found is not None:
                    per_var[var] = found

            nights.append((session, per_var, cols.likes[cols.like_ids[j]]))

        out[key] = nights

    return out


def history_means(nights):
    """``{var: [mean, ...]}`` of :func:`past_nights`' list of one
    case."""
    out = defaultdict(list)
    for _, per_var, _ in nights:
        for var, found in per_var.items():
            out[var].append(found.mean)

    return out


def _series(results, cases, sessions):
    """``{case: {var: [(session, mean, n), ...]}}`` of the cases named
    ``cases`` (strings) over ``sessions``, every configuration (a
    session's configurations merged, weighted by their sample counts)."""
    series, inside = results.series()
    window = {s.uuid for s in sessions}
    out = {case: defaultdict(list) for case in cases}
    keys = {}
    for key, cols in series.cases.items():
        name = str(key)
        if name not in out:
            continue

        keys[name] = key
        use = [j for j, p in enumerate(cols.pos)
               if inside[p] and series.uuids[p] in window]
        for var, (means, _, counts) in cols.columns.items():
            points = out[name][var]
            last = None
            for j in use:
                n = counts[j]
                if not n:
                    continue

                p = cols.pos[j]
                if p == last:
                    session, mean, k = points[-1]
                    points[-1] = (session, (mean * k + means[j] * n) /
                                  (k + n), k + n)
                else:
                    points.append((series.sessions[series.uuids[p]],
                                   means[j], n))
                last = p

    return out, keys


def history(results, rows, config):
    """Per-session means of every compared variable, with change points
    (failed and contended records left out).

    Returns:
        A list of dicts, one per row in ``rows``, with the series, the
        baseline band and the change points (each naming the session where
        the step began and the tags that differ from the session before).
    """
    ordered = results.ordered_sessions()[-config.history_sessions:]
    series, keys = _series(results, {r.case for r in rows}, ordered)
    out = []
    for row in rows:
        found = series[row.case].get(row.var, ())
        uuids = [s.uuid for s, _, _ in found]
        points = [{'session': s.uuid, 'time': s.time_start, 'mean': mean,
                   'n': n} for s, mean, n in found]
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
