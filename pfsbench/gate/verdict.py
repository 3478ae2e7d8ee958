# SPDX-License-Identifier: BSD-3-Clause
"""The gate: latest run versus a baseline, per test case and variable.

:func:`decide` is the verdict rule, :func:`compare` applies it to every
baseline case, and :func:`run_gate` builds the one report record that
every output format renders (pfsbench.gate.report).
"""

import datetime
import math
import statistics
from collections import defaultdict

from pfsbench import __version__
from pfsbench.fields import MEAN_SUFFIX, STDDEV_SUFFIX
from pfsbench.errors import ConfigError, NotEnoughSamples
from pfsbench.gate import baseline as bl
from pfsbench.gate import changepoints as cp
from pfsbench.gate import provenance as prov
from pfsbench.gate.stats import (floor_by_nights, moments_from_summaries,
                                 night_noise, ratio_interval,
                                 ratio_interval_moments, repeats_to_settle)

#: ``kind`` and ``format_version`` of the report record
#: (pfsbench.gate.report.load_record checks both).
REPORT_KIND = 'pfsbench-gate-report'
REPORT_FORMAT_VERSION = 1
VERDICTS = ('regression', 'inconclusive', 'improvement', 'pass', 'missing',
            'ignored')


def decide(interval, tolerance, direction):
    """Verdict of one variable from its change interval.

    In the variable's *worse* direction (down for ``higher``, up for
    ``lower``):

    * ``regression``: the whole interval lies beyond the tolerance
      (``high < -tol`` for higher-is-better);
    * ``improvement``: the whole interval lies beyond the tolerance the
      other way (``low > +tol``);
    * ``inconclusive``: the interval contains the worse-side threshold, so
      the data can neither show a regression nor rule one out;
    * ``pass``: the interval excludes a loss bigger than the tolerance.

    Args:
        interval: a :class:`pfsbench.gate.stats.RatioInterval`.
        tolerance: the smallest relative change that matters (0.05).
        direction: ``'higher'`` or ``'lower'`` is better.

    Returns:
        ``(verdict, threshold)`` where ``threshold`` is the worse-side
        limit (``-tol`` or ``+tol``).
    """
    lo, hi = interval.low, interval.high
    if direction == 'higher':
        if hi < -tolerance:
            return 'regression', -tolerance

        if lo > tolerance:
            return 'improvement', -tolerance

        if lo < -tolerance:
            return 'inconclusive', -tolerance

        return 'pass', -tolerance

    if direction == 'lower':
        if lo > tolerance:
            return 'regression', tolerance

        if hi < -tolerance:
            return 'improvement', tolerance

        if hi > tolerance:
            return 'inconclusive', tolerance

        return 'pass', tolerance

    raise ValueError(f'direction must be higher or lower, got {direction!r}')


def fixed_tolerance_verdict(base, cur, tolerance, direction):
    """What a fixed ReFrame-style reference would say: the current mean
    against the baseline mean with a plain ``-tol`` bound, no statistics.

    Returns:
        ``'regression'``, ``'pass'``, or ``None`` if the baseline mean is
        not positive (no ratio).
    """
    mean_base = statistics.fmean(base)
    if mean_base <= 0:
        return None

    change = statistics.fmean(cur) / mean_base - 1.0
    if direction == 'higher':
        return 'regression' if change < -tolerance else 'pass'

    return 'regression' if change > tolerance else 'pass'


def judge(base, cur, tolerance, direction, confidence=0.95, min_samples=2,
          nights=None, moments=None):
    """Verdict of one variable from its samples.

    Args:
        base: baseline samples.
        cur: current samples.
        tolerance: smallest relative change that matters.
        direction: ``'higher'`` or ``'lower'``.
        confidence: coverage of the interval.
        min_samples: fewer current samples than this give ``inconclusive``.
        nights: ``(variance, df, k)`` of the night-to-night noise of the
            log session mean and the baseline's session count, or ``None``;
            the interval is then at least that wide
            (:func:`pfsbench.gate.stats.floor_by_nights`).
        moments: ``(baseline, current)``
            :class:`~pfsbench.gate.stats.Moments` of every tool iteration,
            used instead of ``base`` and ``cur`` for the interval.

    Returns:
        A dict with ``verdict``, ``reason``, ``change``, ``low``, ``high``,
        ``df``, ``repeats_needed`` (for ``inconclusive``).
    """
    out = {'verdict': 'inconclusive', 'reason': '', 'change': None,
           'low': None, 'high': None, 'df': None, 'repeats_needed': None}
    if base and cur and not any(base) and not any(cur):
        # A spread or a skew of exactly 0 on both sides (one stream): no
        # ratio exists, and nothing changed.
        out.update(verdict='pass', reason='0 in the baseline and now',
                   change=0.0, low=0.0, high=0.0)
        return out

    try:
        if moments is not None:
            iv = ratio_interval_moments(*moments, confidence)
        else:
            iv = ratio_interval(base, cur, confidence)
    except NotEnoughSamples as err:
        out['reason'] = str(err)
        return out

    if nights is not None:
        iv = floor_by_nights(iv, *nights)

    out.update(change=iv.change, low=iv.low, high=iv.high,
               df=None if math.isinf(iv.df) else iv.df)
    verdict, threshold = decide(iv, tolerance, direction)
    n_cur = moments[1].n if moments is not None else len(cur)
    if n_cur < min_samples and verdict != 'inconclusive':
        out['reason'] = (f'{n_cur} current sample(s), the gate needs '
                         f'{min_samples}')
        return out

    out['verdict'] = verdict
    pct = f'{confidence:.0%}'
    if verdict == 'inconclusive' and iv.night_floor:
        out['reason'] = (f'the {pct} interval [{iv.low:+.1%}, {iv.high:+.1%}]'
                         f' contains the tolerance {threshold:+.1%}: the '
                         'night-to-night noise of the history is larger than '
                         'the tolerance; more repeats per run will not settle '
                         'it: record the baseline over more nights or widen '
                         'the tolerance')
    elif verdict == 'inconclusive':
        need = repeats_to_settle(iv, threshold)
        out['repeats_needed'] = need
        if need is None:
            need_txt = ('the change sits on the tolerance; more repeats '
                        'will not settle it')
        elif need > 1000:
            need_txt = 'more than 1000 repeats per side would be needed'
        else:
            need_txt = f'about {need} repeats per side would settle it'
        out['reason'] = (f'the {pct} interval [{iv.low:+.1%}, {iv.high:+.1%}]'
                         f' contains the tolerance {threshold:+.1%}: noise '
                         f'is larger than the tolerance; {need_txt}')
    elif verdict == 'regression':
        out['reason'] = (f'the whole {pct} interval lies beyond '
                         f'{threshold:+.1%}')
    elif verdict == 'improvement':
        out['reason'] = (f'the whole {pct} interval lies beyond '
                         f'{-threshold:+.1%}')
    else:
        out['reason'] = (f'the {pct} interval excludes a change worse than '
                         f'{threshold:+.1%}')

    if iv.night_floor and verdict != 'inconclusive':
        out['reason'] += ('; interval widened to the night-to-night noise '
                          'of the history')

    if moments is not None:
        out['reason'] += (f'; samples: {moments[0].n} baseline and '
                          f'{moments[1].n} current tool iterations (from '
                          'each run\'s mean and standard deviation)')

    if iv.borrowed:
        side = 'baseline' if iv.borrowed == 'base' else 'current'
        out['reason'] += (f'; one {side} sample, spread taken from the '
                          'other side')

    return out


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
    chosen = set(session_uuids)
    start = {u: s.time_start for u, s in results.sessions.items()}
    latest = {}
    for rec in results.records:
        if rec.session not in chosen or rec.key not in keys:
            continue

        prev = latest.get(rec.key)
        if prev is None or start[rec.session] > start[prev]:
            latest[rec.key] = rec.session

    out = {}
    for rec in results.records:
        if latest.get(rec.key) == rec.session:
            out.setdefault(rec.key, (rec.session, []))[1].append(rec)

    return out


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
    until = {key: start[sess] for key, (sess, _) in current.items()}
    per = defaultdict(lambda: defaultdict(list))
    for rec in results.records:
        limit_time = until.get(rec.key)
        if limit_time is None or start[rec.session] >= limit_time or \
                rec.fail_phase not in bl.USABLE_FAIL_PHASES or rec.contended:
            continue

        if configs is not None and rec.config != configs.get(rec.key):
            continue

        for var, (value, _) in rec.perf.items():
            if value is not None:
                per[(rec.key, var)][rec.session].append(float(value))

    out = {}
    for kv, sessions in per.items():
        uuids = sorted(sessions, key=start.get)[-limit:]
        out[kv] = [statistics.fmean(sessions[u]) for u in uuids]

    return out


def _mean_or_none(values):
    return statistics.fmean(values) if values else None


def compare(baseline, results, session_uuids, config, name_filter=None):
    """Compare the current sessions with a baseline.

    Args:
        baseline: a validated baseline dict.
        results: the loaded :class:`~pfsbench.gate.results.Results`.
        session_uuids: the sessions that make up "the current run".
        config: a :class:`~pfsbench.gate.config.GateConfig`.
        name_filter: optional compiled regex on the case name.

    Returns:
        ``(rows, missing, new_cases, contended)``: one dict per variable,
        one dict per baseline case without a usable current measurement,
        the names of current cases that the baseline lacks, and the
        current samples left out because they were contended
        (:func:`pfsbench.gate.baseline.contended_sample`).

    Raises:
        ConfigError: a case ran with a different configuration than in the
            baseline (``-S`` variables, task counts), or a unit changed.
    """
    cases = [c for c in baseline['cases']
             if name_filter is None or name_filter.search(c['name'])]
    keys = {bl.case_key(c): c for c in cases}
    current = select_current(results, session_uuids, set(keys))
    past = {}
    if config.night_noise and config.sample_unit == 'repeat':
        past = history_means(results, current, config.history_sessions,
                             {k: c.get('config', {}) for k, c in keys.items()})

    rows, missing, contended = [], [], []
    for key in sorted(keys):
        case = keys[key]
        if key not in current:
            missing.append({'case': str(key), 'reason': 'not in the '
                            'current session(s)'})
            continue

        sess_uuid, records = current[key]
        session = results.sessions[sess_uuid]
        left_out = [bl.contended_sample(r) for r in records if r.contended]
        contended += left_out
        records = [r for r in records if not r.contended]
        if not records:
            missing.append({'case': str(key), 'session': sess_uuid,
                            'reason': 'every repeat was contended: ' +
                            bl.contended_note(left_out)})
            continue

        bad = [why for why in (bl.unusable_reason(r, session)
                               for r in records) if why]
        if bad:
            missing.append({'case': str(key), 'session': sess_uuid,
                            'reason': f'{len(bad)} of {len(records)} '
                            f'repeat(s) unusable: {bad[0]}'})
            continue

        for rec in records:
            if rec.config != case.get('config', {}):
                field, old, new = bl.first_difference(case.get('config', {}),
                                                      rec.config)
                raise ConfigError(
                    f'session {sess_uuid}', f'{key}: {field}', new,
                    f'differs from the baseline\'s {old!r}: the run was '
                    'configured differently; record a new baseline'
                )

        for var in sorted(case['perfvars']):
            pv = case['perfvars'][var]
            unit = pv['unit']
            tol, direction, ignore = config.settings_for(key.check, var, unit)
            cur = [rec.perf[var][0] for rec in records if var in rec.perf]
            units = {rec.perf[var][1] for rec in records if var in rec.perf}
            row = {
                'case': str(key), 'name': key.name, 'check': key.check,
                'params': key.params, 'system': key.system,
                'partition': key.partition, 'environ': key.environ,
                'var': var, 'unit': unit, 'direction': direction,
                'tolerance': tol, 'session': sess_uuid,
                'base': {'n': len(pv['values']),
                         'mean': _mean_or_none(pv['values']),
                         'values': pv['values']},
                'cur': {'n': len(cur), 'mean': _mean_or_none(cur),
                        'values': [float(v) for v in cur]},
            }
            if units and units != {unit}:
                raise ConfigError(
                    f'session {sess_uuid}', f'{key}: {var}',
                    ', '.join(sorted(units)),
                    f'unit differs from the baseline\'s {unit!r}'
                )

            if not cur:
                missing.append({'case': str(key), 'session': sess_uuid,
                                'var': var, 'reason': f'variable {var} not '
                                'reported'})
                continue

            base_vals, cur_vals = pv['values'], cur
            nights = None
            noise = night_noise(past.get((key, var), []))
            if noise is not None:
                nights = (noise[0], noise[1], len(set(pv['session_index'])))
                row['night_noise'] = {'cv': math.sqrt(noise[0]),
                                      'df': noise[1],
                                      'sessions': len(past[(key, var)])}

            moments = None
            if config.iteration_moments and config.sample_unit == 'repeat':
                moments = iteration_moments(case, var, records)
                if moments is not None:
                    row['base']['iterations'] = moments[0].n
                    row['cur']['iterations'] = moments[1].n

            if config.sample_unit == 'session':
                # One sample per session: the baseline's session means
                # against this session's mean, so night-to-night drift
                # counts as noise (a prediction interval, docs/gate.md).
                base_vals = session_means(pv)
                cur_vals = [statistics.fmean(cur)]
                row['base']['session_means'] = base_vals

            if ignore:
                row.update(verdict='ignored', reason='ignored in '
                           f'{config.path}', change=None, low=None,
                           high=None, df=None, repeats_needed=None)
            else:
                row.update(judge(base_vals, cur_vals, tol, direction,
                                 config.confidence,
                                 1 if config.sample_unit == 'session'
                                 else config.min_samples, nights=nights,
                                 moments=moments))

            row['fixed_tolerance_verdict'] = fixed_tolerance_verdict(
                pv['values'], cur, tol, direction
            ) if direction else None
            rows.append(row)

    # A session that stopped early is missing data even where its finished
    # cases could be judged (they are): what it did not run is unknown.
    for uuid in session_uuids:
        session = results.sessions[uuid]
        if session.num_aborted:
            missing.append({'case': f'session {uuid}', 'session': uuid,
                            'reason': f'stopped early: {session.num_aborted}'
                            ' aborted case(s)'})

    chosen = set(session_uuids)
    new_cases = sorted({str(r.key) for r in results.records
                        if r.session in chosen and
                        r.key not in keys and
                        (name_filter is None or
                         name_filter.search(r.key.name))})
    return rows, missing, new_cases, contended


def history(results, rows, config):
    """Per-session means of every compared variable, with change points
    (failed and contended records left out).

    Returns:
        A list of dicts, one per row in ``rows``, with the series, the
        baseline band and the change points (each naming the session where
        the step began and the tags that differ from the session before).
    """
    wanted = {(r['case'], r['var']) for r in rows}
    ordered = results.ordered_sessions()[-config.history_sessions:]
    pos = {s.uuid: i for i, s in enumerate(ordered)}
    series = defaultdict(lambda: defaultdict(list))
    nodes = defaultdict(set)
    case_tags = defaultdict(set)
    for rec in results.records:
        if rec.session not in pos:
            continue

        skey = str(rec.key)
        nodes[(skey, rec.session)].update(rec.nodelist)
        case_tags[(skey, rec.session)].update(rec.tags)
        if rec.fail_phase not in bl.USABLE_FAIL_PHASES or rec.contended:
            continue

        for var, (value, _) in rec.perf.items():
            if value is not None and (skey, var) in wanted:
                series[(skey, var)][rec.session].append(float(value))

    out = []
    for row in rows:
        per_sess = series.get((row['case'], row['var']), {})
        uuids = sorted(per_sess, key=lambda u: pos[u])
        points = [{'session': u, 'time': ordered[pos[u]].time_start,
                   'mean': statistics.fmean(per_sess[u]),
                   'n': len(per_sess[u])} for u in uuids]
        base_vals = row['base']['values']
        band = {'mean': statistics.fmean(base_vals),
                'min': min(base_vals), 'max': max(base_vals)}
        changes = []
        means = [p['mean'] for p in points]
        if len(means) >= 2 * config.changepoint_min_segment and \
                all(m > 0 for m in means):
            min_change = config.changepoint_min_change
            if min_change is None:
                min_change = row['tolerance']

            for c in cp.detect(means, threshold=config.changepoint_threshold,
                               min_segment=config.changepoint_min_segment,
                               min_change=min_change):
                before = results.sessions[uuids[c.index - 1]]
                after = results.sessions[uuids[c.index]]
                at, diff = _tag_change_near(results, uuids, c.index,
                                            row['case'], nodes, case_tags)
                changes.append({
                    'index': c.index, 'session': after.uuid,
                    'time': after.time_start, 'previous_session':
                    before.uuid, 'before': c.before, 'after': c.after,
                    'change': c.change, 'score': c.score,
                    'tags_changed': diff,
                    'tags_changed_at': at,
                })

        out.append({'case': row['case'], 'check': row['check'],
                    'var': row['var'], 'unit': row['unit'],
                    'points': points, 'baseline': band,
                    'changepoints': changes})

    return out


def _tag_change_near(results, uuids, index, case, nodes, case_tags,
                     reach=2):
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

        before = results.sessions[uuids[k - 1]]
        after = results.sessions[uuids[k]]
        diff = prov.differences(
            [prov.session_tags(before, nodes[(case, before.uuid)],
                               case_tags[(case, before.uuid)])],
            prov.session_tags(after, nodes[(case, after.uuid)],
                              case_tags[(case, after.uuid)]))
        if diff:
            return after.uuid, {c.key: [c.before[0], c.after] for c in diff}

    return None, {}


def what_changed(baseline, results, rows):
    """The provenance differences between each compared case's baseline
    sessions and its current session, likeliest cause first.

    Args:
        baseline: the baseline dict.
        results: the loaded results.
        rows: the compared rows (their ``case`` and ``session``).

    Returns:
        ``{case: [Change.as_dict(), ...]}``.
    """
    cases = {str(bl.case_key(c)): c for c in baseline['cases']}
    wanted = {(r['case'], r['session']) for r in rows}
    records = defaultdict(list)
    for uuid in {u for _, u in wanted}:
        for rec in results.by_session(uuid):
            if (str(rec.key), uuid) in wanted:
                records[(str(rec.key), uuid)].append(rec)

    out = {}
    for case, uuid in sorted(wanted):
        before, per_case = prov.baseline_tags(baseline, cases[case])
        after = prov.session_level(results.sessions[uuid])
        if per_case:
            after.update(prov.case_level(
                *prov.case_tags_of(records[(case, uuid)])))

        out[case] = [c.as_dict() for c in prov.differences(before, after)]

    return out


def exit_code(summary, missing, config):
    """0 pass, 1 regression, 3 missing data (and inconclusive if the site
    chose so in gate.yaml).  A regression wins over missing data."""
    if summary.get('regression'):
        return 1

    if missing or not sum(summary.values()):
        return 3

    if summary.get('inconclusive') and config.inconclusive_exit == 3:
        return 3

    return 0


def run_gate(baseline, results, session_uuids, config, name_filter=None,
             with_history=True, baseline_path=''):
    """Compare, collect history and change points, and build the record.

    Returns:
        The report record (a JSON-serialisable dict) that every format
        renders; ``record['exit_code']`` is the gate's exit code.
    """
    rows, missing, new_cases, contended = compare(
        baseline, results, session_uuids, config, name_filter)
    summary = {v: 0 for v in VERDICTS if v != 'missing'}
    for row in rows:
        summary[row['verdict']] += 1

    hist = history(results, rows, config) if with_history else []
    sessions = [results.sessions[u].as_dict() for u in session_uuids]
    record = {
        'kind': REPORT_KIND,
        'format_version': REPORT_FORMAT_VERSION,
        'created': datetime.datetime.now(
            datetime.timezone.utc).isoformat(timespec='seconds'),
        'pfsbench_version': __version__,
        'source': results.source,
        'baseline': {'name': baseline['name'], 'path': baseline_path,
                     'created': baseline.get('created'),
                     'sessions': [s['uuid'] for s in baseline['sessions']],
                     'extras': [s.get('extras', {})
                                for s in baseline['sessions']],
                     'contended_samples': baseline.get('contended_samples',
                                                       [])},
        'current_sessions': sessions,
        'settings': {'config': config.path, 'confidence': config.confidence,
                     'tolerance': config.tolerance,
                     'inconclusive_exit': config.inconclusive_exit,
                     'sample_unit': config.sample_unit,
                     'night_noise': config.night_noise,
                     'method': 'welch-log-ratio'},
        'results': rows,
        'missing': missing,
        'new_cases': new_cases,
        'contended_samples': contended,
        'history': hist,
        'changes': what_changed(baseline, results, rows),
        'summary': {**summary, 'missing': len(missing)},
    }
    record['exit_code'] = exit_code(summary, missing, config)
    return record
