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
        ``{CaseKey: [(Session, {var: (mean, values)}, like), ...]}``,
        oldest first (``like``:
        :func:`pfsbench.gate.results.like_tags`).
    """
    until = {key: results.sessions[sess].time_start
             for key, (sess, _) in current.items()}
    out = defaultdict(list)
    for session in results.ordered_sessions():
        figures = results.figures(session.uuid)
        for key, groups in figures.items():
            time_limit = until.get(key)
            if time_limit is None or session.time_start >= time_limit:
                continue

            for config, per_var, like in groups:
                if config == configs.get(key):
                    out[key].append((session, per_var, like))

    return {key: nights[-limit:] for key, nights in out.items()}


def history_means(nights):
    """``{var: [mean, ...]}`` of :func:`past_nights`' list of one
    case."""
    out = defaultdict(list)
    for _, per_var, _ in nights:
        for var, (mean, _) in per_var.items():
            out[var].append(mean)

    return out


def _series(results, cases, sessions):
    """``{case: {var: [(session, mean, n), ...]}}`` of the cases named
    ``cases`` (strings) over ``sessions``, every configuration."""
    out = {case: defaultdict(list) for case in cases}
    names = {}
    for session in sessions:
        for key, groups in results.figures(session.uuid).items():
            name = names.get(key)
            if name is None:
                name = names[key] = str(key)

            per_case = out.get(name)
            if per_case is None:
                continue

            if len(groups) == 1:
                for var, (mean, values) in groups[0][1].items():
                    per_case[var].append((session, mean, len(values)))
                continue

            merged = defaultdict(list)
            for _, per_var, _ in groups:
                for var, (_, values) in per_var.items():
                    merged[var].extend(values)

            for var, values in merged.items():
                per_case[var].append((session, statistics.fmean(values),
                                      len(values)))

    return out, {name: key for key, name in names.items()}


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
