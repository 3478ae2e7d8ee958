# SPDX-License-Identifier: BSD-3-Clause
"""A variable's past: per-session means before the current session (for
the night-noise floor) and over the whole window, with change points and
the provenance that changed where each step began.
"""

import statistics
from array import array
from collections import defaultdict
from collections.abc import Sequence

from pfsbench.gate.history import provenance
from pfsbench.gate.statistics import changepoints as cp
from pfsbench.gate.statistics.forked import ordered_map


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
        ``{CaseKey: [Night, ...]}``, oldest first.
    """
    series, inside = results.series()
    objs = [series.sessions[u] for u in series.uuids]
    times = [s.time_start for s in objs]
    out = {}
    for key, (uuid, _) in current.items():
        cols = series.cases.get(key)
        if cols is None:
            continue

        until = results.sessions[uuid].time_start
        wanted = {i for i, c in enumerate(cols.configs)
                  if c == configs.get(key)}
        pos, ids = cols.pos.tolist(), cols.config_ids.tolist()
        picked = []
        for j in range(len(pos) - 1, -1, -1):
            p = pos[j]
            if inside[p] and times[p] < until and ids[j] in wanted:
                picked.append(Night(objs[p], cols, j))
                if len(picked) == limit:
                    break

        picked.reverse()
        out[key] = picked

    return out


class Night:
    """One night of a case in the history: its session, and its figures
    read from the case's columns when asked for."""

    __slots__ = ('session', 'cols', 'j')

    def __init__(self, session, cols, j):
        self.session, self.cols, self.j = session, cols, j

    @property
    def like(self):
        """:func:`pfsbench.gate.history.results.like_tags` of the night."""
        return self.cols.likes[self.cols.like_ids[self.j]]

    def moments(self, var):
        """:class:`~pfsbench.gate.statistics.stats.Moments` of ``var``, or
        ``None``."""
        return self.cols.moments(var, self.j)

    def has(self, var):
        """Whether the night has ``var`` (its :meth:`moments` are not
        ``None``)."""
        return self.cols.has(var, self.j)

    def spread(self, var):
        """The night's robust within-night scale of ``var``
        (:func:`~pfsbench.gate.statistics.stats.night_spread`), or
        ``None``."""
        return self.cols.spread(var, self.j)


def history_means(nights, var):
    """The means of ``var`` over :func:`past_nights`' list of one case
    (nights without it left out)."""
    if not nights:
        return []

    cols = nights[0].cols
    found = cols.columns.get(var)
    if found is None:
        return []

    means, _, counts = found
    return [means[n.j] for n in nights if counts[n.j]]


def _series(results, cases, sessions):
    """``{case: {var: [point, ...]}}`` of the cases named ``cases``
    (strings) over ``sessions``, every configuration (a session's
    configurations merged, weighted by their sample counts); a point is
    ``{'session', 'time', 'mean', 'n'}``."""
    series, inside = results.series()
    window = {s.uuid for s in sessions}
    ok = [inside[p] and u in window for p, u in enumerate(series.uuids)]
    times = [series.sessions[u].time_start for u in series.uuids]
    out = {case: defaultdict(list) for case in cases}
    keys = {}
    for key, cols in series.cases.items():
        name = str(key)
        if name not in out:
            continue

        keys[name] = key
        pos = cols.pos.tolist()
        use = [j for j, p in enumerate(pos) if ok[p]]
        if len(set(pos[j] for j in use)) != len(use):
            out[name] = _merged(series.uuids, times, pos, use, cols)
            continue

        # One configuration per session (the usual case).
        at = [pos[j] for j in use]
        uuids = [series.uuids[p] for p in at]
        when = [times[p] for p in at]
        for var, (means, _, counts) in cols.columns.items():
            if len(use) != len(pos):
                means = array(means.typecode, [means[j] for j in use])
                counts = array(counts.typecode, [counts[j] for j in use])
            # Copies: the record does not change with the series.
            out[name][var] = Points(uuids, when, means[:], counts[:])

    return out, keys


class Points(Sequence):
    """A figure's history points, ``{'session', 'time', 'mean', 'n'}``
    each, the nights with a count only, oldest first: a list's view of
    the series' columns, its dicts made when first read (the reports
    read the few they plot; JSON writes it as the list,
    :func:`plain`)."""

    __slots__ = ('_columns', '_made', 'means')

    def __init__(self, uuids, times, means, counts):
        kept = [j for j, n in enumerate(counts) if n]
        if len(kept) != len(counts):
            uuids, times = [uuids[j] for j in kept], [times[j] for j in kept]
            means = array(means.typecode, [means[j] for j in kept])
            counts = array(counts.typecode, [counts[j] for j in kept])
        #: The means as an array of doubles (a change-point search reads
        #: them without the dicts).
        self.means = means
        self._columns = (uuids, times, counts)
        self._made = None

    @property
    def uuids(self):
        """The points' sessions, oldest first."""
        return self._columns[0]

    def _points(self):
        if self._made is None:
            uuids, times, counts = self._columns
            self._made = [{'session': u, 'time': t, 'mean': m, 'n': n}
                          for u, t, m, n in zip(uuids, times, self.means,
                                                counts)]
        return self._made

    def __len__(self):
        return len(self.means)

    def __getitem__(self, index):
        return self._points()[index]

    def __iter__(self):
        return iter(self._points())

    def __eq__(self, other):
        return list(self) == (list(other) if isinstance(other, Points)
                              else other)

    __hash__ = None

    def __repr__(self):
        return repr(self._points())

    def __reduce__(self):
        return list, (self._points(),)


def plain(obj):
    """``json.dumps``' ``default``: :class:`Points` as its list."""
    if isinstance(obj, Points):
        return obj._points()
    raise TypeError(f'Object of type {type(obj).__name__} is not JSON '
                    'serializable')


def _merged(uuids, times, pos, use, cols):
    """:func:`_series` of a case that ran with several configurations in
    one session: their means merged, weighted by their counts."""
    out = defaultdict(list)
    for var, (means, _, counts) in cols.columns.items():
        points = out[var]
        last = None
        for j in use:
            n = counts[j]
            if not n:
                continue

            if pos[j] == last:
                prev = points[-1]
                k = prev['n']
                prev['mean'] = (prev['mean'] * k + means[j] * n) / (k + n)
                prev['n'] = k + n
            else:
                points.append({'session': uuids[pos[j]],
                               'time': times[pos[j]], 'mean': means[j],
                               'n': n})
            last = pos[j]

    return out


def history_series(results, cases, config):
    """The history's series of the cases named ``cases`` (strings; more
    than the judged rows' is no harm): :func:`history`'s ``series``, to
    be computed while other processes judge the cases."""
    ordered = results.ordered_sessions()[-config.history_sessions:]
    return _series(results, cases, ordered)


def history_steps(results, rows, config):
    """The change points of each of ``rows``' figures (row dicts:
    ``case``, ``var``, ``tolerance``), in their order: :func:`history`'s
    ``steps``, sought in the process that judged the rows
    (docs/gate-evidence.md, "Speed: a year of nightlies")."""
    series, _ = history_series(results, {r['case'] for r in rows}, config)
    return [_steps(_means(series[r['case']].get(r['var'], [])),
                   r['tolerance'], config) for r in rows]


def history(results, rows, config, jobs=1, lazy=False, series=None,
            steps=None):
    """Per-session means of every compared variable, with change points
    (failed and contended records left out; ``jobs`` processes seek them,
    each for a contiguous part of ``rows``).  ``lazy``: each figure's
    points are :class:`Points`, made when first read (JSON writes them
    with :func:`plain`), else lists.  ``series``: what
    :func:`history_series` returned for at least the rows' cases;
    ``steps``: what :func:`history_steps` returned for ``rows`` (then
    none are sought here).

    Returns:
        A list of dicts, one per row in ``rows``, with the series, the
        baseline band and the change points (each naming the session where
        the step began and the tags that differ from the session before).
    """
    series, keys = series or history_series(
        results, {r.case for r in rows}, config)

    def part_steps(part):
        return [_steps(_means(series[rows[i].case].get(rows[i].var, [])),
                       rows[i].tolerance, config) for i in part]

    def changes_of(i, found):
        points = series[rows[i].case].get(rows[i].var, [])
        uuids = points.uuids if isinstance(points, Points) else \
            [p['session'] for p in points]
        return [_change(results, uuids, c, keys.get(rows[i].case))
                for c in found]

    if steps is None:
        steps = [found for part in ordered_map(
            part_steps, range(len(rows)), jobs) for found in part]
    out = []
    for i, (row, found) in enumerate(zip(rows, steps)):
        points = series[row.case].get(row.var, [])
        base_vals = row.base['values']
        band = {'mean': statistics.fmean(base_vals),
                'min': min(base_vals), 'max': max(base_vals)}
        out.append({'case': row.case, 'check': row.check,
                    'var': row.var, 'unit': row.unit,
                    'points': points if lazy else list(points),
                    'baseline': band,
                    'changepoints': changes_of(i, found)})

    return out


def _change(results, uuids, c, key):
    """The history's record of the change point ``c`` of a figure whose
    points are of the sessions ``uuids``: where it began and the tags
    that changed near it."""
    before = results.sessions[uuids[c.index - 1]]
    after = results.sessions[uuids[c.index]]
    at, diff = _tag_change_near(results, uuids, c.index, key)
    return {'index': c.index, 'session': after.uuid,
            'time': after.time_start, 'previous_session': before.uuid,
            'before': c.before, 'after': c.after, 'change': c.change,
            'score': c.score, 'tags_changed': diff,
            'tags_changed_at': at}


def _means(points):
    """The means of ``points`` as an array of doubles."""
    if isinstance(points, Points):
        return points.means
    return array('d', [p['mean'] for p in points])


def _steps(means, tolerance, config):
    """The change points of one figure's ``means`` (none where the
    series is too short or not positive)."""
    if len(means) < 2 * config.changepoint_min_segment or \
            not all(m > 0 for m in means):
        return []
    min_change = config.changepoint_min_change
    if min_change is None:
        min_change = tolerance
    return cp.detect(means, threshold=config.changepoint_threshold,
                     min_segment=config.changepoint_min_segment,
                     min_change=min_change)


def _tags_of(results, uuid, key):
    case = results.case_summary(uuid).get(key)
    return provenance.session_tags(results.sessions[uuid],
                                   *((case.nodes, case.tags) if case else ()))


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

        diff = provenance.differences([_tags_of(results, uuids[k - 1], key)],
                                      _tags_of(results, uuids[k], key))
        if diff:
            return uuids[k], {c.key: [c.before[0], c.after] for c in diff}

    return None, {}
