# SPDX-License-Identifier: BSD-3-Clause
"""The samples a verdict compares: the current session's records of each
case, every tool iteration rebuilt from a run's mean and standard
deviation, a baseline variable's session means.
"""

import statistics
from collections import defaultdict

from pfsbench.core.fields import MEAN_SUFFIX, STDDEV_SUFFIX
from pfsbench.gate.judge.lookback import split_at_markers
from pfsbench.gate.statistics import changepoints as cp
from pfsbench.gate.statistics.stats import (OWN_SCALE, POOL_NIGHTS,
                                            moments_from_summaries,
                                            night_moments, pooled_scale)


def wild_entries(night, session, found):
    """The repeats a night left out as wild
    (:attr:`~pfsbench.gate.statistics.stats.Moments.left_out`), as a gate
    record lists them: ``night`` is ``'tonight'``, ``'baseline'`` or
    ``'history'``, ``repeat`` counts from 1."""
    return [{'night': night, 'session': session, 'repeat': i + 1,
             'value': v, 'robust_z': round(z, 1),
             'why': f'{z:.1f} times {found.wild_scale or OWN_SCALE} from '
                    'its night\'s median, on the log scale'}
            for i, v, z in found.left_out]


def night_scale(past, var):
    """The pooled within-night scale of ``var`` over a case's nights
    before tonight (:func:`pfsbench.gate.history.past.past_nights`, its
    configuration): what tonight and the baseline's nights of 3 or 4
    repeats measure their wild repeats by, as each history night was
    measured by the nights before it
    (:func:`~pfsbench.gate.statistics.stats.pooled_scale`, which pools
    the newest :data:`~pfsbench.gate.statistics.stats.POOL_NIGHTS`
    spreads: only those are read)."""
    spreads = []
    for night in reversed(past):
        spread = night.spread(var)
        if spread is not None and spread == spread:
            spreads.append(spread)
            if len(spreads) == POOL_NIGHTS:
                break
    spreads.reverse()
    return pooled_scale(spreads)


def iteration_moments(case, var, records):
    """Moments of every tool iteration behind ``var`` on both sides, or
    ``None`` when ``var`` is not such a mean or a count is missing.

    Args:
        case: the baseline case (its ``perfvars`` hold the sibling).
        var: the variable, ``<x>_mean``.
        records: the current session's records of the case.

    Returns:
        ``(baseline Moments, current Moments)`` or ``None``.
    """
    if not var.endswith(MEAN_SUFFIX):
        return None

    sibling = var[:-len(MEAN_SUFFIX)] + STDDEV_SUFFIX
    pv, sd = case['perfvars'][var], case['perfvars'].get(sibling)
    if sd is None or 'iterations' not in pv or \
            len(sd['values']) != len(pv['values']):
        return None

    cur = [(r.perf[var][0], r.perf[sibling][0], r.iterations)
           for r in records if var in r.perf and sibling in r.perf]
    if not cur or len(cur) != len(records) or \
            any(v is None or s is None or n is None for v, s, n in cur):
        return None

    return (moments_from_summaries(pv['values'], sd['values'],
                                   pv['iterations']),
            moments_from_summaries(*zip(*cur)))


def session_means(perfvar):
    """Per-session means of a baseline variable, in session order."""
    groups = defaultdict(list)
    for value, idx in zip(perfvar['values'], perfvar['session_index']):
        groups[idx].append(value)

    return [statistics.fmean(groups[i]) for i in sorted(groups)]


def select_current(results, session_uuids, keys):
    """The latest session's records of each case among ``session_uuids``.

    Returns:
        ``{CaseKey: (session uuid, [Record, ...])}``.
    """
    start = {u: results.sessions[u].time_start for u in set(session_uuids)}
    latest = {}
    for uuid in sorted(start, key=start.get):
        for key in results.case_records(uuid):
            prev = latest.get(key)
            if key in keys and (prev is None or start[uuid] > start[prev]):
                latest[key] = uuid

    return {key: (uuid, list(results.case_records(uuid)[key]))
            for key, uuid in latest.items()}


def _tag(like, session, name):
    """A like-for-like value: the case's tag, else the session extra."""
    for key, value in like:
        if key == name:
            return value

    value = session.extras.get(name)
    return None if value is None else str(value)


def _extras_match(got, wanted):
    """Whether a session's extras ``got`` hold each ``(name, value)`` of
    ``wanted`` as :func:`_tag` reads a session extra (``str`` of it, or
    ``None``): the check of every night of every case, in one loop."""
    for name, value in wanted:
        found = got.get(name)
        if (None if found is None else str(found)) != value:
            return False

    return True


def like_for_like(past, tonight, tonight_like, names, limit):
    """The newest ``limit`` nights of a case's history that ran like
    tonight: every tag in ``names`` equal to tonight's (the case's
    ``job_nodelist``, ``spack_provenance``, ``target_path``,
    ``target_fstype``, or a session extra).

    Args:
        past: :func:`pfsbench.gate.history.past.past_nights` of the case
            (:class:`~pfsbench.gate.history.past.Night` list), oldest first.
        tonight: the current :class:`~pfsbench.gate.history.results.Session`.
        tonight_like: :func:`pfsbench.gate.history.results.like_tags` of its
            records.
        names: ``lookback.match``.
        limit: ``lookback.nights``.

    Returns:
        The nights, oldest first.
    """
    wanted = [(name, _tag(tonight_like, tonight, name)) for name in names]
    # Nights share few distinct tag tuples: match each once, and the
    # session extras (names that are no case tag) per night.
    known = {}
    out = []
    for night in reversed(past):
        if len(out) == limit:
            break

        like = night.like
        found = known.get(like)
        if found is None:
            tags = dict(like)
            found = known[like] = (
                all(tags[name] == value for name, value in wanted
                    if name in tags),
                [(name, value) for name, value in wanted
                 if name not in tags])

        ok, extras = found
        if ok and _extras_match(night.session.extras, extras):
            out.append(night)

    out.reverse()
    return out


def lookback_nights(past, tonight, baseline, perfvar, var, config,
                    min_change, scale=None):
    """The nights the lookback rule weighs for one variable
    (:func:`pfsbench.gate.judge.rule.judge_nights`).

    The history is the case's like-for-like nights
    (:func:`like_for_like`).  The level is the baseline's nights plus the
    like-for-like nights up to its newest session (``level: baseline``)
    or the newest like-for-like nights (``level: recent``); an intended
    change (a session extra named ``lookback.marker``) after the
    baseline restarts the level there, and splits the noise history into
    segments around their own levels.

    Args:
        past: :func:`like_for_like` nights of the case.
        tonight: the current :class:`~pfsbench.gate.history.results.Session`.
        baseline: the baseline dict.
        perfvar: the baseline case's ``perfvars[var]``.
        var: the variable.
        config: the :class:`~pfsbench.gate.judge.config.GateConfig`.
        min_change: the smallest step that splits the history (the
            change points' ``min_change``, by default the tolerance).
        scale: the pooled within-night scale a baseline night of 3 or 4
            repeats measures its wild repeats by (tonight's,
            :func:`night_scale`).

    Returns:
        ``(level, segments, note, wild)``: level :class:`Moments`, lists
        of history Moments, ``''`` or why the level is empty (tonight
        starts a new level), and the repeats those nights left out as
        wild (:func:`wild_entries`).
    """
    marker = config.lookback_marker
    history = []
    for night in past:
        found = night.moments(var)
        if found is not None:
            history.append((night.session, found))

    # A marker counts where its value changes: a nightly script that
    # keeps passing the same value marks the first night only.
    values = [s.extras.get(marker) or None for s, _ in history]
    marks = [bool(v) and v != prev
             for prev, v in zip([None] + values, values)]
    # An unmarked step (a change point, Otava's segments) after the
    # baseline splits the history for the noise too, never the level:
    # around their own levels its nights are noise, around one level the
    # step would be.  Not before the baseline's newest night: the level
    # takes those nights as one, and a step the data choose among them
    # is where they differ most by chance, which shrank the noise (on
    # normal nights of 12 % noise, 1.2-1.5 % of unchanged nights were a
    # regression instead of 0.5-0.7 %: bench/gate_quality.py --pooled).
    base_end = max(s['time_start'] for s in baseline['sessions'])
    splits = list(marks)
    for c in _steps([n.mean for _, n in history], min_change, config):
        if history[c.index][0].time_start > base_end:
            splits[c.index] = True

    segments = split_at_markers([n for _, n in history], splits)
    # Every history night is read (the noise, and the level's share);
    # a night that left no repeat out lists none.
    wild = [w for s, n in history if n.left_out
            for w in wild_entries('history', s.uuid, n)]
    value = tonight.extras.get(marker) or None
    if value and value != (values[-1] if values else None):
        return [], segments, (f'tonight is marked as an intended change '
                              f'({marker}={value}): it starts a new '
                              'level'), wild

    sessions = baseline['sessions']
    base_uuids = {s['uuid'] for s in sessions}
    marked = [s.time_start for (s, _), m in zip(history, marks) if m]
    since = marked[-1] if marked else None
    if config.lookback_level == 'recent' or \
            (since is not None and since > base_end):
        level = [n for s, n in history
                 if since is None or s.time_start >= since]
        return level, segments, '', wild

    groups = defaultdict(list)
    for sample, idx in zip(perfvar['values'], perfvar['session_index']):
        groups[idx].append(sample)

    level = [night_moments(groups[i], scale) for i in sorted(groups)]
    # A baseline night is in the history too: listed once, as baseline.
    wild = [w for w in wild if w['session'] not in base_uuids]
    for i, night in zip(sorted(groups), level):
        wild += wild_entries('baseline', _session_uuid(sessions, i), night)
    level += [n for s, n in history
              if s.time_start <= base_end and s.uuid not in base_uuids and
              (since is None or s.time_start >= since)]
    return level, segments, '', wild


def _session_uuid(sessions, index):
    """The uuid of a baseline's session ``index`` (its
    ``session_index``), or the index itself where the file lacks it."""
    if isinstance(index, int) and 0 <= index < len(sessions):
        return sessions[index].get('uuid', index)

    return index


def _steps(means, min_change, config):
    """Change points of a history's night means, with the gate's
    change-point settings."""
    if len(means) < 2 * config.changepoint_min_segment or \
            any(m <= 0 for m in means):
        return []

    return cp.detect(means, threshold=config.changepoint_threshold,
                     min_segment=config.changepoint_min_segment,
                     min_change=min_change)


def recent_nights(past, tonight, baseline, var, config, disturbed=()):
    """The nights since the level began, before tonight, that
    :mod:`pfsbench.gate.judge.pooled` judges with tonight: the
    like-for-like nights after the baseline's newest session (``level:
    baseline``), the newest ``lookback.pooled.nights - 1`` of them.

    None with ``level: recent`` (the level then moves with the nights),
    none when tonight is marked as an intended change, and none after
    an intended change since the baseline: the level restarts there and
    takes in the nights since (a new baseline gives the pooled view a
    fixed level again).

    Nights whose case saw foreign load on some repeats (``disturbed``,
    session uuids; the caller leaves it empty where the case's provenance
    names a change since the baseline) are left out: tonight's verdict
    holds such a night (:func:`pfsbench.gate.judge.rule.hold_disturbed`),
    and one disturbed night among a few must not make them a loss
    together.

    Returns:
        ``[(time_start, Moments), ...]``, oldest first.
    """
    most = config.lookback_pooled_nights - 1
    if config.lookback_level != 'baseline' or \
            config.lookback_pooled == 'off' or most < 1:
        return []

    marker = config.lookback_marker
    # The nights with the variable; the moments of the newest few only.
    history = [(night.session, night) for night in past if night.has(var)]
    values = [s.extras.get(marker) or None for s, _ in history]
    value = tonight.extras.get(marker) or None
    if value and value != (values[-1] if values else None):
        return []

    base_uuids = {s['uuid'] for s in baseline['sessions']}
    base_end = max(s['time_start'] for s in baseline['sessions'])
    marks = [bool(v) and v != prev
             for prev, v in zip([None] + values, values)]
    if any(m and s.time_start > base_end
           for (s, _), m in zip(history, marks)):
        return []

    out = [(s.time_start, n) for s, n in history
           if s.time_start > base_end and s.uuid not in base_uuids and
           s.time_start < tonight.time_start and s.uuid not in disturbed]
    return [(t, night.moments(var)) for t, night in out[-most:]]
