# SPDX-License-Identifier: BSD-3-Clause
"""The gate's report record: :func:`compare` judges every variable of
every baseline case (:mod:`pfsbench.gate.judge.rule`) on the samples of
:mod:`pfsbench.gate.judge.samples`, and :func:`run_gate` adds the history
(:mod:`pfsbench.gate.history.past`) and what changed since the baseline
(:mod:`pfsbench.gate.history.provenance`) into the one record that every output
format renders (pfsbench.gate.report).
"""

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass

from pfsbench.core.errors import ConfigError
from pfsbench.gate.history import provenance
from pfsbench.gate.history.past import (history, history_means,
                                        history_series, history_steps,
                                        past_nights)
from pfsbench.gate.history.results import like_tags
from pfsbench.gate.judge import budget
from pfsbench.gate.judge.baseline import (case_key, contended_note,
                                         contended_sample, first_difference,
                                         unusable_reason, written_stamp)
from pfsbench.gate.judge.lookback import night_moments, not_positive
from pfsbench.gate.judge.rows import VarRow
from pfsbench.gate.judge.rule import (VERDICTS, exit_code,
                                      fixed_tolerance_verdict,
                                      hold_disturbed, judge, judge_nights)
from pfsbench.gate.judge.samples import (iteration_moments, like_for_like,
                                         lookback_nights, night_scale,
                                         recent_nights, select_current,
                                         session_means, wild_entries)
from pfsbench.gate.judge.sensitivity import POWER
from pfsbench.gate.judge.sweeps import sweeps
from pfsbench.gate.statistics.forked import ordered_map
from pfsbench.gate.statistics.stats import night_noise

#: ``kind`` and ``format_version`` of the report record
#: (pfsbench.gate.report.load_record checks both).
REPORT_KIND = 'pfsbench-gate-report'
REPORT_FORMAT_VERSION = 1


def _mean_or_none(values):
    return statistics.fmean(values) if values else None


@dataclass
class CaseNight:
    """One baseline case's current night, as :func:`compare` judges it."""

    key: object
    #: The baseline's case dict.
    case: dict
    session: object
    #: Tonight's uncontended records of the case.
    records: list
    #: Its contended samples, left out
    #: (:func:`pfsbench.gate.judge.baseline.contended_sample`).
    left_out: list
    #: The case's nights before tonight, and the like-for-like ones.
    case_nights: list
    like_nights: list
    #: The uuids of the pooled view's nights that saw foreign load.
    disturbed: set
    #: Whether a provenance difference since the baseline names a cause
    #: (``None``: not asked yet; :func:`names_a_cause`).
    changed: object = None

    @property
    def uuid(self):
        return self.session.uuid


def compare(baseline, results, session_uuids, config, name_filter=None,
            jobs=1):
    """Compare the current sessions with a baseline.

    Args:
        baseline: a validated baseline dict.
        results: the loaded :class:`~pfsbench.gate.history.results.Results`.
        session_uuids: the sessions that make up "the current run".
        config: a :class:`~pfsbench.gate.judge.config.GateConfig`.
        name_filter: optional compiled regex on the case name.
        jobs: processes judging the cases, each a contiguous part of them
            (:func:`~pfsbench.gate.statistics.forked.ordered_map`).

    Returns:
        ``(rows, missing, new_cases, contended)``: one
        :class:`~pfsbench.gate.judge.rows.VarRow` per variable,
        one dict per baseline case without a usable current measurement,
        the names of current cases that the baseline lacks, and the
        current samples left out because they were contended
        (:func:`pfsbench.gate.judge.baseline.contended_sample`).

    Raises:
        ConfigError: a case ran with a different configuration than in the
            baseline (``-S`` variables, task counts), or a unit changed.
    """
    return _compare(baseline, results, session_uuids, config, name_filter,
                    jobs)[:4]


def _compare(baseline, results, session_uuids, config, name_filter=None,
             jobs=1, beside=None, prepare=None, seek=None, alongside=None):
    """:func:`compare`, and ``beside(rows, prepared, sought)`` of the
    judged rows (:class:`~pfsbench.gate.judge.rows.VarRow`, before the
    night's labels: it must not read a reason or sensitivity) computed
    here while a child labels them, ``alongside(rows)`` in that child
    (its result must pickle): ``(rows, missing, new_cases, contended,
    (beside's result, alongside's or None) or None)``.  ``prepared`` is
    ``prepare(names)`` of the selected cases' names, computed here while
    children judge cases (None without ``prepare``); ``sought`` is
    ``seek(rows)`` of each part's row dicts, computed in the process that
    judged them, the lists joined in the rows' order (None without
    ``seek``)."""
    cases = [c for c in baseline['cases']
             if name_filter is None or name_filter.search(c['name'])]
    keys = {case_key(c): c for c in cases}
    current = select_current(results, session_uuids, set(keys))
    lookback = config.rule == 'lookback'
    wants_past = lookback or (config.night_noise and
                              config.sample_unit == 'repeat')
    if wants_past:
        results.series()            # read once, before the parts fork

    def judge_part(part):
        past = {}
        if wants_past:
            past = past_nights(
                results, {k: current[k] for k in part if k in current},
                max(config.history_sessions,
                    config.lookback_nights if lookback else 0),
                {k: keys[k].get('config', {}) for k in part})
        found = judge_cases(baseline, results, keys, part, current, past,
                            config)
        return found + (seek(found[0]) if seek is not None else [],)

    prepared = []

    def meanwhile(part, found):
        if prepare is not None:
            prepared.append(prepare({str(k) for k in keys}))

    rows, missing, contended, causes, sought = [], [], [], {}, []
    for found in ordered_map(judge_part, sorted(keys), jobs,
                             first=None if prepare is None
                             else _preparing_share(jobs),
                             meanwhile=meanwhile):
        rows += found[0]
        missing += found[1]
        contended += found[2]
        causes.update(found[3])
        sought += found[4]

    # The night's false-alarm budget: Holm over its independent figures,
    # but for the cases whose night brings a change the provenance names.
    found = budget.apply(rows, config.night_false_alarms, causes)
    tasks = [lambda: budget.label_detects(rows, found)]
    if beside is not None:
        judged = [VarRow(**row) for row in rows]
        tasks = [lambda: beside(judged, prepared[0] if prepared else None,
                                sought if seek is not None else None),
                 lambda: (_labels(rows, found), alongside(judged)
                          if alongside is not None else None)]
    done = [out for part in ordered_map(
        lambda part: [task() for task in part], tasks, jobs)
        for out in part]
    if beside is not None:
        _relabel(rows, done[1][0])
    rows = [VarRow(**row) for row in rows]

    # A session that stopped early is missing data even where its finished
    # cases could be judged (they are): what it did not run is unknown.
    for uuid in session_uuids:
        session = results.sessions[uuid]
        if session.num_aborted:
            missing.append({'case': f'session {uuid}', 'session': uuid,
                            'reason': f'stopped early: {session.num_aborted}'
                            ' aborted case(s)'})

    chosen = set(session_uuids)
    new_cases = sorted({str(key) for uuid in chosen
                        for key in results.case_records(uuid)
                        if key not in keys and
                        (name_filter is None or name_filter.search(key.name))})
    return rows, missing, new_cases, contended, \
        (done[0], done[1][1]) if beside is not None else None


#: The history's series (``prepare``) as a share of judging the cases and
#: seeking their change points, on a year of nightlies
#: (docs/gate-evidence.md, "Speed: a year of nightlies").
PREPARING = 0.025


def _preparing_share(jobs):
    """This process's share of the cases where it also prepares the
    history's series while ``jobs - 1`` others judge theirs: all finish
    together."""
    jobs = max(1, int(jobs))
    return (1 - PREPARING * (jobs - 1)) / jobs


def _labels(rows, found):
    """:func:`~pfsbench.gate.judge.budget.label_detects` of ``rows``
    (changed in place): what it set, row by row (:func:`_relabel`)."""
    budget.label_detects(rows, found)
    return [(row.get('sensitivity'), row.get('reason'),
             (row.get('pooled') or {}).get('detects', _UNSET))
            for row in rows]


#: A row's pooled view without ``detects``.
_UNSET = '<unset>'


def _relabel(rows, labels):
    """Set what :func:`_labels` found on ``rows`` (the parent's copy of
    rows a child labelled)."""
    for row, (sensitivity, reason, detects) in zip(rows, labels):
        if sensitivity is not None:
            row['sensitivity'] = sensitivity
        if reason is not None:
            row['reason'] = reason
        if detects != _UNSET:
            row['pooled']['detects'] = detects


def judge_cases(baseline, results, keys, part, current, past, config):
    """The row dicts of the cases ``part`` (keys of ``keys``, in order):
    ``(rows, missing, contended, causes)`` as :func:`compare` adds them
    up, each case judged on its own."""
    rows, missing, contended, causes = [], [], [], {}
    for key in part:
        night = case_night(baseline, results, key, keys[key],
                           current.get(key), past.get(key, []), config,
                           missing, contended)
        if night is None:
            continue

        first = len(rows)
        for var in sorted(night.case['perfvars']):
            row = judge_var(baseline, night, var, config, missing)
            if row is not None:
                rows.append(row)

        if any(r['verdict'] == 'regression' for r in rows[first:]):
            brought = night_brings(baseline, results, night)
            if brought:
                causes[str(key)] = brought
    return rows, missing, contended, causes


def case_night(baseline, results, key, case, current, case_nights, config,
               missing, contended):
    """The :class:`CaseNight` of one baseline case, or ``None`` where it
    cannot be judged tonight (then ``missing`` says why); its contended
    samples are added to ``contended``.

    Raises:
        ConfigError: it ran with a different configuration than in the
            baseline.
    """
    if current is None:
        missing.append({'case': str(key), 'reason': 'not in the '
                        'current session(s)'})
        return None

    sess_uuid, records = current
    session = results.sessions[sess_uuid]
    left_out = [contended_sample(r) for r in records if r.contended]
    contended += left_out
    records = [r for r in records if not r.contended]
    if not records:
        missing.append({'case': str(key), 'session': sess_uuid,
                        'reason': 'every repeat was contended: ' +
                        contended_note(left_out)})
        return None

    bad = [why for why in (unusable_reason(r, session)
                           for r in records) if why]
    if bad:
        missing.append({'case': str(key), 'session': sess_uuid,
                        'reason': f'{len(bad)} of {len(records)} '
                        f'repeat(s) unusable: {bad[0]}'})
        return None

    for rec in records:
        if rec.config != case.get('config', {}):
            field, old, new = first_difference(case.get('config', {}),
                                                  rec.config)
            raise ConfigError(
                f'session {sess_uuid}', f'{key}: {field}', new,
                f'differs from the baseline\'s {old!r}: the run was '
                'configured differently; record a new baseline'
            )

    night = CaseNight(key, case, session, records, left_out, case_nights,
                      [], set())
    if config.rule == 'lookback':
        night.like_nights = like_for_like(case_nights, session,
                                          like_tags(records),
                                          config.lookback_match,
                                          config.lookback_nights)
        night.disturbed = disturbed_nights(
            results, key,
            night.like_nights[-2 * config.lookback_pooled_nights:])
        if night.disturbed:
            # A change the provenance names explains a loss the load
            # might have: then no night is left out, none held.
            night.changed = names_a_cause(baseline, case, session, records)
            if night.changed:
                night.disturbed = set()
    return night


def night_brings(baseline, results, night):
    """``'key (label), ...'`` of the named changes tonight brings to the
    case (:func:`changes_brought`), or ``''``."""
    previous = None
    if night.case_nights:
        before = night.case_nights[-1].session
        previous = (before, results.case_records(before.uuid).get(
            night.key, ()))
    brought = changes_brought(baseline, night.case, night.session,
                              night.records, previous)
    return ', '.join(f'{c.key} ({c.label})' for c in brought)


def _new_row(night, var, pv, tol, direction, cur):
    """The row dict of one variable before its verdict."""
    key = night.key
    return {
        'case': str(key), 'name': key.name, 'check': key.check,
        'params': key.params, 'system': key.system,
        'partition': key.partition, 'environ': key.environ,
        'var': var, 'unit': pv['unit'], 'direction': direction,
        'tolerance': tol, 'session': night.uuid,
        'base': {'n': len(pv['values']),
                 'mean': _mean_or_none(pv['values']),
                 'values': pv['values']},
        'cur': {'n': len(cur), 'mean': _mean_or_none(cur),
                'values': [float(v) for v in cur]},
    }


#: The reason of a figure the tool could not time on any repeat tonight.
UNTIMED_REASON = ('too fast to time: the tool could not time {var} on any '
                  "repeat tonight (bonnie++'s +++++: over before its clock "
                  "could time it), no loss against the baseline's timed "
                  'runs')


def judge_var(baseline, night, var, config, missing):
    """The row dict of one variable of a case's night, or ``None`` where
    tonight did not report it (``missing`` says so).

    Raises:
        ConfigError: its unit differs from the baseline's.
    """
    records = night.records
    pv = night.case['perfvars'][var]
    unit = pv['unit']
    tol, direction, ignore, unstable = config.variable(
        night.key.check, var, unit)
    cur = [rec.perf[var][0] for rec in records if var in rec.perf]
    units = {rec.perf[var][1] for rec in records if var in rec.perf}
    row = _new_row(night, var, pv, tol, direction, cur)
    if units and units != {unit}:
        raise ConfigError(
            f'session {night.uuid}', f'{night.key}: {var}',
            ', '.join(sorted(units)),
            f'unit differs from the baseline\'s {unit!r}'
        )

    if not cur and records and all(var in rec.untimed for rec in records):
        # bonnie++'s +++++ on every repeat: over before its clock could
        # time it, so quicker than the baseline's timed runs; not missing
        # data, and no loss to judge.
        row.update(verdict='pass', untimed=True, change=None, low=None,
                   high=None, df=None, repeats_needed=None,
                   reason=UNTIMED_REASON.format(var=var))
        return row

    if not cur:
        missing.append({'case': str(night.key), 'session': night.uuid,
                        'var': var, 'reason': f'variable {var} not '
                        'reported'})
        return None

    moments = _iteration_moments(night, var, config, row)
    by_nights, zero_nights, wild = None, 0, []
    if config.rule == 'lookback' and not ignore:
        by_nights, zero_nights, wild = _by_nights(
            baseline, night, var, pv, cur, moments, (tol, direction),
            config, row)

    if ignore:
        row.update(verdict='ignored', reason=f'ignored in {config.path}',
                   change=None, low=None, high=None, df=None,
                   repeats_needed=None)
    elif by_nights is not None:
        row.update(by_nights)
        # (A change of -100 % is a level 17 orders of magnitude above
        # tonight: no level to show.)
        if row['change'] is not None and row['change'] > -1.0:
            # What the change is against: the level of the nights.
            row['base']['level'] = row['cur']['mean'] / (1.0 + row['change'])
            row['base']['nights'] = by_nights['lookback']['level_nights']
    else:
        wild = _by_interval(night, var, pv, cur, moments, (tol, direction),
                            config, row, zero_nights)

    _hold(baseline, night, row, unstable, config)
    if wild:
        row['wild_repeats'] = wild
    row['fixed_tolerance_verdict'] = fixed_tolerance_verdict(
        pv['values'], cur, tol, direction) if direction else None
    return row


def _iteration_moments(night, var, config, row):
    """The tool iterations' moments of both sides where the gate reads
    them (:func:`pfsbench.gate.judge.samples.iteration_moments`), their
    counts noted in ``row``; else ``None``."""
    if not config.iteration_moments or not (
            config.rule == 'lookback' or config.sample_unit == 'repeat'):
        return None

    moments = iteration_moments(night.case, var, night.records)
    if moments is not None:
        row['base']['iterations'] = moments[0].n
        row['cur']['iterations'] = moments[1].n
    return moments


def _by_nights(baseline, night, var, pv, cur, moments, rule, config, row):
    """The lookback rule's verdict of one variable
    (:func:`pfsbench.gate.judge.rule.judge_nights`; ``rule`` is
    ``(tolerance, direction)``).

    Returns:
        ``(verdict dict or None, nights at 0, wild repeats)``.
    """
    tol, direction = rule
    # Tonight's and the baseline's short nights measured by the scale the
    # history's nights were (the case's nights before tonight).
    scale = night_scale(night.case_nights, var)
    level, segments, note, wild = lookback_nights(
        night.like_nights, night.session, baseline, pv, var, config,
        tol if config.changepoint_min_change is None
        else config.changepoint_min_change, scale)
    detect = config.lookback_detect or 2 * tol
    # Tonight's tool iterations, where known, are its samples (one IOR
    # run of -i 5 is a night of 5).
    tonight = moments[1] if moments else night_moments(cur, scale)
    zero_nights = not_positive(level, tonight, segments)
    by_nights = judge_nights(
        level, tonight, segments, tol, direction, max(detect, tol),
        config.lookback_confidence, config.min_samples,
        config.lookback_outlier_z,
        recent=None if note else recent_nights(
            night.like_nights, night.session, baseline, var, config,
            night.disturbed),
        pooled={'rule': config.lookback_pooled,
                'nights': config.lookback_pooled_nights,
                'cusum_h': config.lookback_cusum_h})
    if by_nights is not None and note:
        by_nights['reason'] = note
    if by_nights is None:
        wild = []
    elif not moments:
        wild = wild_entries('tonight', night.uuid, tonight) + wild
        if tonight.left_out:
            # Tonight as judged: its mean without them (the level shown
            # below is derived from it).
            row['cur'].update(mean=tonight.mean, n=tonight.n)
    return by_nights, zero_nights, wild


def _night_floor(night, var, pv, config, row):
    """``(night floor or None, assumed, wild repeats of the history)`` of
    the interval rule: the night noise the history measured, or the
    assumed one (:func:`pfsbench.gate.judge.rule.judge`'s ``nights``)."""
    if not (config.night_noise and config.sample_unit == 'repeat'):
        return None, False, []

    history = night.case_nights[-config.history_sessions:]
    means = history_means(history, var)
    noise = night_noise(means)
    sessions = len(set(pv['session_index']))
    if noise is not None:
        wild = [w for n in history if n.moments(var) is not None
                for w in wild_entries('history', n.session.uuid,
                                      n.moments(var))]
        row['night_noise'] = {'cv': math.sqrt(noise[0]), 'df': noise[1],
                              'sessions': len(means)}
        return (noise[0], noise[1], sessions), False, wild

    if config.assumed_night_cv:
        # Too few nights to measure it: assumed (as if known, df
        # infinite), so the first nights after a one-night baseline
        # cannot call a wobble between nights a regression.
        row['night_noise'] = {'cv': config.assumed_night_cv, 'df': None,
                              'sessions': len(means), 'assumed': True}
        return (config.assumed_night_cv ** 2, math.inf, sessions), True, []

    return None, False, []


def _by_interval(night, var, pv, cur, moments, rule, config, row,
                 zero_nights):
    """The interval rule's verdict of one variable, into ``row``
    (``rule``: ``(tolerance, direction)``); returns the history's wild
    repeats it read."""
    tol, direction = rule
    base_vals, cur_vals = pv['values'], cur
    if config.sample_unit == 'session':
        # One sample per session: the baseline's session means against
        # this session's mean, so night-to-night drift counts as noise (a
        # prediction interval, docs/gate-method.md).
        base_vals = session_means(pv)
        cur_vals = [statistics.fmean(cur)]
        row['base']['session_means'] = base_vals

    floor, assumed, wild = _night_floor(night, var, pv, config, row)
    row.update(judge(base_vals, cur_vals, tol, direction, config.confidence,
                     1 if config.sample_unit == 'session'
                     else config.min_samples,
                     nights=floor, nights_assumed=assumed,
                     detect=config.lookback_detect,
                     moments=moments if config.sample_unit == 'repeat'
                     else None))
    if config.rule == 'lookback' and zero_nights:
        row['reason'] += (f'; {zero_nights} night(s) at 0 (no ratio on the '
                          'log scale): interval rule')
    elif config.rule == 'lookback':
        row['reason'] += ('; fewer than 3 like-for-like nights in the '
                          'history: interval rule')
    return wild


def _hold(baseline, night, row, unstable, config):
    """Holds a regression of a night that saw foreign load
    (:func:`pfsbench.gate.judge.rule.hold_disturbed`) or of a figure
    gate.yaml marks unstable."""
    if night.left_out and row['verdict'] == 'regression':
        if night.changed is None:
            night.changed = names_a_cause(baseline, night.case,
                                          night.session, night.records)
        hold_disturbed(row, len(night.left_out), len(night.records),
                       night.changed)

    if unstable and row['verdict'] == 'regression':
        row['verdict'] = 'inconclusive'
        row['reason'] = (f'unstable figure ({config.path}: unstable): '
                         'reported, never gating: ' + row['reason'])


def disturbed_nights(results, key, nights):
    """The uuids of the ``nights`` on which the case's own repeats saw
    foreign load (some left out as contended): the pooled view leaves
    them out (:func:`pfsbench.gate.judge.samples.recent_nights`)."""
    return {n.session.uuid for n in nights
            if key in results.contended_cases(n.session.uuid)}


def _night_tags(session, records, per_case):
    tags = provenance.session_level(session)
    if per_case:
        tags.update(provenance.case_level(*provenance.case_tags_of(records)))

    return tags


def case_changes(baseline, case, session, records):
    """The provenance differences of one case between its baseline
    sessions and tonight's (:func:`what_changed`'s, for one case)."""
    before, per_case = provenance.baseline_tags(baseline, case)
    return provenance.differences(before, _night_tags(session, records, per_case))


def names_a_cause(baseline, case, session, records):
    """Whether a provenance difference of one case since its baseline
    names a cause (:func:`pfsbench.gate.history.provenance.named_cause`):
    other nodes than the baseline's do not (a cluster's nightly job lands
    on others most nights), nor do keys the ranks do not know."""
    return any(provenance.named_cause(c.key)
               for c in case_changes(baseline, case, session, records))


def changes_brought(baseline, case, session, records, previous):
    """The changes tonight brings to a case: provenance keys that name a
    cause (:func:`pfsbench.gate.history.provenance.named_cause`), differ
    from the baseline's and did not already differ so on the case's
    previous night in the history.

    Args:
        previous: ``(session, records)`` of that night, or ``None``
            (none since the baseline: every named change is tonight's).

    Returns:
        :class:`~pfsbench.gate.history.provenance.Change` list.
    """
    before, per_case = provenance.baseline_tags(baseline, case)
    changes = [c for c in provenance.differences(
        before, _night_tags(session, records, per_case))
        if provenance.named_cause(c.key)]
    if previous is None or not changes:
        return changes

    before = _night_tags(*previous, per_case)
    return [c for c in changes if before.get(c.key) != c.after]


def current_repeats(baseline, results, session_uuids, name_filter,
                    contended):
    """How many repeats of the baseline's cases the current run holds, and
    how many of them were left out and why (the summary line counts them:
    a night that lost most of its repeats says so first).

    Returns:
        ``{'current': n, 'left_out': {'contended': k}}``.
    """
    keys = {case_key(c) for c in baseline['cases']
            if name_filter is None or name_filter.search(c['name'])}
    current = select_current(results, session_uuids, keys)
    return {'current': sum(len(recs) for _, recs in current.values()),
            'left_out': {'contended': len(contended)}}


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
    cases = {str(case_key(c)): c for c in baseline['cases']}
    wanted = {(r.case, r.session) for r in rows}
    records = defaultdict(list)
    for uuid in {u for _, u in wanted}:
        for rec in results.by_session(uuid):
            # What the contended repeats ran on did not make the figures.
            if (str(rec.key), uuid) in wanted and not rec.contended:
                records[(str(rec.key), uuid)].append(rec)

    out = {}
    for case, uuid in sorted(wanted):
        out[case] = [c.as_dict() for c in case_changes(
            baseline, cases[case], results.sessions[uuid],
            records[(case, uuid)])]

    return out


def night_families(rows):
    """How many headline figure families the night's budget counted
    (:func:`pfsbench.gate.judge.budget.apply`), 0 where none."""
    return max((r.lookback.get('families', 0) for r in rows
                if r.lookback), default=0)


def run_gate(baseline, results, session_uuids, config, name_filter=None,
             with_history=True, baseline_path='', jobs=1, lazy=False):
    """Compare, collect history and change points, and build the record
    (``jobs`` processes judge the cases and seek the change points,
    :func:`~pfsbench.gate.statistics.forked.ordered_map`: the same
    record; ``lazy``: the history's points made when first read,
    :class:`~pfsbench.gate.history.past.Points`, which
    :func:`pfsbench.gate.report.render` writes as JSON lists).

    Returns:
        The report record (a JSON-serialisable dict) that every format
        renders; ``record['exit_code']`` is the gate's exit code.
    """
    # What reads no label is built while a child labels: the history and
    # the sweeps here (each part's change points sought where it was
    # judged), what changed in that child (docs/gate-evidence.md, "Speed:
    # a year of nightlies").
    def beside(judged, series, steps):
        return (history(results, judged, config, jobs, lazy, series, steps)
                if with_history else [],
                sweeps(results, session_uuids, name_filter))

    def alongside(judged):
        return what_changed(baseline, results, judged)

    rows, missing, new_cases, contended, ((hist, swept), changes) = \
        _compare(baseline, results, session_uuids, config, name_filter,
                 jobs, beside,
                 (lambda names: history_series(results, names, config))
                 if with_history else None,
                 (lambda part: history_steps(results, part, config))
                 if with_history else None, alongside)
    summary = {v: 0 for v in VERDICTS if v != 'missing'}
    for row in rows:
        summary[row.verdict] += 1

    # Beside the verdicts (which decide the exit code): how many figures
    # could not have found the loss the gate promises not to miss.
    found = [r.sensitivity for r in rows
             if r.verdict != 'ignored' and r.sensitivity is not None]
    sensitivity = {'figures': len(found),
                   'blind': sum(s['blind'] for s in found),
                   'power': POWER}

    # The coverage the headers name: the lookback rule's where it judged
    # every variable (each reason names its own).
    judged = [r for r in rows if r.verdict != 'ignored']
    confidence = config.lookback_confidence if judged and all(
        r.lookback is not None for r in judged) else config.confidence
    sessions = [results.sessions[u].as_dict() for u in session_uuids]
    record = {
        'kind': REPORT_KIND,
        'format_version': REPORT_FORMAT_VERSION,
        **written_stamp(),
        'source': results.source,
        'baseline': {'name': baseline['name'], 'path': baseline_path,
                     'created': baseline.get('created'),
                     'sessions': [s['uuid'] for s in baseline['sessions']],
                     'extras': [s.get('extras', {})
                                for s in baseline['sessions']],
                     'contended_samples': baseline.get('contended_samples',
                                                       [])},
        'current_sessions': sessions,
        'settings': {'config': config.path, 'confidence': confidence,
                     'lookback_confidence': config.lookback_confidence,
                     'tolerance': config.tolerance,
                     'inconclusive_exit': config.inconclusive_exit,
                     'sample_unit': config.sample_unit,
                     'night_noise': config.night_noise,
                     'assumed_night_cv': config.assumed_night_cv,
                     'rule': config.rule,
                     'night_false_alarms': config.night_false_alarms,
                     'families': night_families(rows),
                     'method': 'lookback-nights' if config.rule ==
                     'lookback' else 'welch-log-ratio'},
        'results': [r.as_dict() for r in rows],
        'missing': missing,
        'new_cases': new_cases,
        'contended_samples': contended,
        'repeats': current_repeats(baseline, results, session_uuids,
                                   name_filter, contended),
        'history': hist,
        'changes': changes,
        'sweeps': swept,
        'summary': {**summary, 'missing': len(missing)},
        'sensitivity': sensitivity,
    }
    record['exit_code'] = exit_code(summary, missing, config)
    return record
