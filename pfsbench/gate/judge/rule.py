# SPDX-License-Identifier: BSD-3-Clause
"""The verdict rule: one variable's samples on both sides in, a verdict
out (:func:`judge`, applying :func:`decide` to the change interval), and
the gate's exit code from the verdicts (:func:`exit_code`).
"""

import math
import statistics
from dataclasses import dataclass

from pfsbench.core.clock import utc_day as day
from pfsbench.core.errors import NotEnoughSamples
from pfsbench.gate.judge import lookback, sensitivity
from pfsbench.gate.judge.pooled import (detect_inputs, detects_at,
                                        pooled_test)
from pfsbench.gate.statistics.stats import (floor_by_nights, min_p_bound,
                                            ratio_interval,
                                            t_cdf, t_quantile,
                                            ratio_interval_moments,
                                            repeats_to_settle)

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
        interval: a :class:`pfsbench.gate.statistics.stats.RatioInterval`.
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


def _repeats_text(need, per, never):
    """What an inconclusive reason says of the repeats that would settle
    it: ``need`` per ``per`` (side, night), or ``never`` for ``None``."""
    if need is None:
        return never

    if need > 1000:
        return f'more than 1000 repeats per {per} would be needed'

    return f'about {need} repeats per {per} would settle it'


def _zero_on_a_side(base, cur, direction, min_samples):
    """The verdict where samples of exactly 0 leave no ratio, as the
    fields to set, or ``None`` where a ratio exists."""
    if base and cur and not any(base) and not any(cur):
        # A spread or a skew of exactly 0 on both sides (one stream): no
        # ratio exists, and nothing changed.
        return {'verdict': 'pass', 'reason': '0 in the baseline and now',
                'change': 0.0, 'low': 0.0, 'high': 0.0}

    if direction == 'lower' and cur and not any(cur) and \
            len(cur) >= min_samples:
        # Nothing is lower than 0 (a spread or a skew of one stream): no
        # ratio exists, and nothing got worse.
        change = -1.0 if base and statistics.fmean(base) > 0 else 0.0
        return {'verdict': 'pass', 'reason': '0 now: nothing is lower',
                'change': change, 'low': change, 'high': change}

    return None


def _interval_reason(verdict, iv, threshold, confidence, nights,
                     nights_assumed):
    """``(reason, repeats_needed)`` of the interval rule's verdict
    (:func:`decide`); ``repeats_needed`` only where more repeats per
    side would settle an inconclusive verdict."""
    pct = f'{confidence:.0%}'
    interval = (f'the {pct} interval [{iv.low:+.1%}, {iv.high:+.1%}]'
                f' contains the tolerance {threshold:+.1%}')
    if verdict == 'inconclusive' and iv.night_floor and nights_assumed:
        return (f'{interval}: fewer '
                'than 5 nights in the history, so the night-to-'
                f'night noise is assumed ({math.sqrt(nights[0]):.0%},'
                ' assumed_night_cv in the gate settings) and it is '
                'larger than the tolerance; more repeats per run '
                'will not settle it: the history measures it after '
                '5 nights, or record the baseline over more nights'), None

    if verdict == 'inconclusive' and iv.night_floor:
        return (f'{interval}: the '
                'night-to-night noise of the history is larger than '
                'the tolerance; more repeats per run will not settle '
                'it: record the baseline over more nights or widen '
                'the tolerance'), None

    if verdict == 'inconclusive':
        need = repeats_to_settle(iv, threshold)
        need_txt = _repeats_text(need, 'side', 'the change sits on the '
                                 'tolerance; more repeats will not settle '
                                 'it')
        return (f'{interval}: noise '
                f'is larger than the tolerance; {need_txt}'), need

    if verdict == 'regression':
        return (f'the whole {pct} interval lies beyond '
                f'{threshold:+.1%}'), None

    if verdict == 'improvement':
        return (f'the whole {pct} interval lies beyond '
                f'{-threshold:+.1%}'), None

    return (f'the {pct} interval excludes a change worse than '
            f'{threshold:+.1%}'), None


def _interval_notes(verdict, iv, nights, nights_assumed, moments, n_cur,
                    min_samples):
    """What the interval rule's reason adds after the verdict's own: the
    night floor, the samples from moments, a borrowed spread, a short
    night."""
    notes = ''
    if iv.night_floor and verdict != 'inconclusive' and nights_assumed:
        notes += ('; interval widened to the night-to-night noise '
                  f'assumed ({math.sqrt(nights[0]):.0%}) until the '
                  'history holds 5 nights')
    elif iv.night_floor and verdict != 'inconclusive':
        notes += ('; interval widened to the night-to-night noise '
                  'of the history')

    if moments is not None:
        notes += (f'; samples: {moments[0].n} baseline and '
                  f'{moments[1].n} current tool iterations (from '
                  'each run\'s mean and standard deviation)')

    if iv.borrowed:
        side = 'baseline' if iv.borrowed == 'base' else 'current'
        notes += (f'; one {side} sample, spread taken from the '
                  'other side')

    if n_cur < min_samples and verdict != 'inconclusive':
        notes += '; ' + _short_night(
            n_cur, min_samples, 'the baseline\'s repeats'
            if iv.borrowed == 'cur' else 'tonight\'s repeats')

    return notes


def judge(base, cur, tolerance, direction, confidence=0.95, min_samples=2,
          nights=None, moments=None, detect=None, nights_assumed=False):
    """Verdict of one variable from its samples.

    Args:
        base: baseline samples.
        cur: current samples.
        tolerance: smallest relative change that matters.
        direction: ``'higher'`` or ``'lower'``.
        confidence: coverage of the interval.
        min_samples: fewer current samples than this give
            ``inconclusive``, unless the whole interval lies beyond the
            tolerance (a regression or an improvement then).
        nights: ``(variance, df, k)`` of the night-to-night noise of the
            log session mean and the baseline's session count, or ``None``;
            the interval is then at least that wide
            (:func:`pfsbench.gate.statistics.stats.floor_by_nights`).
        nights_assumed: ``nights`` is the assumed noise of gate.yaml's
            ``assumed_night_cv`` (a history too short to measure it), not
            the history's; only the reason differs.
        moments: ``(baseline, current)``
            :class:`~pfsbench.gate.statistics.stats.Moments` of every tool
            iteration, used instead of ``base`` and ``cur`` for the interval.
        detect: the loss the gate must find (the figure's sensitivity
            target, :mod:`pfsbench.gate.judge.sensitivity`); default twice the
            tolerance.

    Returns:
        A dict with ``verdict``, ``reason``, ``change``, ``low``, ``high``,
        ``df``, ``repeats_needed`` (for ``inconclusive``) and
        ``sensitivity`` (:func:`pfsbench.gate.judge.sensitivity.sensitivity`,
        ``None`` without an interval).
    """
    out = {'verdict': 'inconclusive', 'reason': '', 'change': None,
           'low': None, 'high': None, 'df': None, 'repeats_needed': None,
           'sensitivity': None}
    zero = _zero_on_a_side(base, cur, direction, min_samples)
    if zero is not None:
        out.update(zero)
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
    out['sensitivity'] = sensitivity.of_interval(
        iv, tolerance, max(detect or 2 * tolerance, tolerance), direction,
        'interval', tau2=nights[0] if nights and iv.night_floor else 0.0,
        level_nights=nights[2] if nights else 1)
    verdict, threshold = decide(iv, tolerance, direction)
    n_cur = moments[1].n if moments is not None else len(cur)
    if n_cur < min_samples and verdict == 'pass':
        # Ruling a loss out takes the samples the gate asks for.
        out['reason'] = (f'{n_cur} current sample(s), the gate needs '
                         f'{min_samples}')
        return out

    out['verdict'] = verdict
    out['reason'], out['repeats_needed'] = _interval_reason(
        verdict, iv, threshold, confidence, nights, nights_assumed)
    out['reason'] += _interval_notes(verdict, iv, nights, nights_assumed,
                                     moments, n_cur, min_samples)
    return out


def _short_night(n, min_samples, source):
    """Why a night of fewer samples than ``min_samples`` (its contended
    repeats left out) still has a verdict: a whole interval beyond the
    tolerance is not silence (a collapse is never green,
    docs/gate-method.md), a pass would need them all."""
    return (f'{n} current sample(s) where the gate needs {min_samples}: '
            f'judged with the spread of one repeat as {source} know it, '
            'the whole interval beyond the tolerance')


@dataclass(frozen=True)
class _History:
    """The like-for-like nights of one figure, outlying nights left out:
    the ``level`` nights, the history's ``segments`` (split at intended
    changes), how many nights were ``outliers``, the night-to-night
    ``noise`` ``(variance, df)`` of the segments and ``rest``, their
    :class:`~pfsbench.gate.judge.lookback.NoiseWithout` (``None``: made
    where needed)."""

    level: list
    segments: list
    outliers: int
    noise: tuple
    rest: object = None

    def basis(self):
        """What a lookback reason says the verdict stands on."""
        text = (f'tonight against {len(self.level)} level night(s), '
                f'night-to-night noise {math.sqrt(self.noise[0]):.1%} from '
                f'{sum(len(s) for s in self.segments)} like-for-like '
                'night(s)')
        if self.outliers:
            text += f', {self.outliers} outlying night(s) left out'

        return text


@dataclass(frozen=True)
class _Rule:
    """The lookback rule's settings for one figure."""

    tolerance: float
    direction: str
    detect: float
    confidence: float

    @property
    def worse(self):
        """The tolerance on the figure's worse side (``-tol`` for
        higher-is-better)."""
        return -self.tolerance if self.direction == 'higher' else \
            self.tolerance


def _zero_nights(level, current, segments, detect):
    """The lookback verdict where a night has no logarithm: a pass where
    the figure was 0 on every level night and is 0 tonight, else ``None``
    (the interval rule judges)."""
    if level and not any(n.mean for n in level) and not current.mean:
        # A spread or a skew that has been 0 (one stream) and is 0
        # again: nothing changed, whatever the history holds.
        return {'verdict': 'pass', 'change': 0.0, 'low': 0.0,
                'high': 0.0, 'df': None, 'repeats_needed': None,
                'spread_change': None,
                'reason': f'0 tonight and on the {len(level)} level '
                          'night(s)',
                'lookback': {'level_nights': len(level),
                             'history_nights': sum(map(len, segments)),
                             'outliers': 0, 'night_cv': 0.0, 'df': None,
                             'detect': detect}}

    # A night at 0 has no logarithm: the interval rule judges.
    return None


def _without_outliers(level, segments, outlier_z):
    """The :class:`_History` of ``level`` and ``segments`` without their
    nights beyond ``outlier_z``, or ``None`` where too few nights remain
    for the noise."""
    kept = []
    dropped = 0
    for seg in segments:
        # The noise keeps its outliers at the limit (lookback.drop_outliers).
        ok, out = lookback.drop_outliers(seg, outlier_z, clamp=True)
        kept.append(ok)
        dropped += len(out)

    # The noise without no night is the segments' night_variance; the
    # pooled windows read it without theirs: each night's terms taken
    # once for both.
    rest = lookback.NoiseWithout(kept)
    noise = rest(())
    if noise is None:
        return None

    level_kept, level_out = lookback.drop_outliers(level, outlier_z)
    return _History(level_kept, kept, dropped + len(level_out), noise, rest)


def _lookback_record(history, detect):
    """A lookback verdict's dict before the interval: inconclusive, with
    what the history holds under ``lookback``."""
    return {'verdict': 'inconclusive', 'reason': '', 'change': None,
            'low': None, 'high': None, 'df': None, 'repeats_needed': None,
            'spread_change': None, 'sensitivity': None,
            'lookback': {'level_nights': len(history.level),
                         'history_nights': sum(len(s)
                                               for s in history.segments),
                         'outliers': history.outliers,
                         'night_cv': math.sqrt(history.noise[0]),
                         'df': history.noise[1], 'detect': detect}}


def _lookback_reason(out, iv, verdict, threshold, together, history,
                     current, rule):
    """``(reason, repeats_needed)`` of the lookback verdict, before its
    notes; marks ``out['pooled']`` decided where the pooled nights made
    the regression that tonight alone did not."""
    tol = rule.worse
    interval = (f'{rule.confidence:.0%} interval '
                f'[{iv.low:+.1%}, {iv.high:+.1%}]')
    if together is not None and together['regression'] and \
            lookback.decide(iv, rule.tolerance, rule.detect,
                            rule.direction)[0] != 'regression':
        # The report shows the pooled change and interval, not tonight's.
        out['pooled']['decided'] = True
        return pooled_reason(together, tol), None

    if verdict == 'regression':
        return (f'the whole {interval} is a loss and the change '
                f'is beyond {tol:+.1%}'), None

    if verdict == 'improvement':
        return f'the whole {interval} is a gain beyond {-tol:+.1%}', None

    if verdict == 'pass':
        return (f'the {interval} rules out a loss beyond '
                f'{threshold:+.1%} and shows no significant loss beyond '
                f'{tol:+.1%}'), None

    need = lookback.repeats_to_settle(history.level, current, history.noise,
                                      rule.detect, rule.confidence,
                                      direction=rule.direction)
    need_txt = _repeats_text(need, 'night', 'the night-to-night noise '
                             'alone is too large: more repeats will not '
                             'settle it; more level nights or a larger '
                             'detect will')
    return (f'the {interval} can neither rule out a loss of '
            f'{threshold:+.1%} nor show one beyond '
            f'{tol:+.1%}: {need_txt}'), need


def _spread_grew(current, level):
    """Tonight's spread over the level nights' where an F test (1 %)
    finds it grew, else ``None``."""
    cv2 = lookback.pooled_cv2(level)
    if cv2 and lookback.spread_grew(current, cv2, sum(
            n.n - 1 for n in level if n.n > 1)):
        return math.sqrt(current.variance / current.mean ** 2 / cv2)

    return None


def judge_nights(level, current, segments, tolerance, direction,
                 detect, confidence=0.95, min_samples=2, outlier_z=3.5,
                 recent=None, pooled=None):
    """Verdict of one variable by the lookback rule
    (:mod:`pfsbench.gate.judge.lookback`): tonight against the level nights,
    with the night-to-night noise of the like-for-like history.

    Args:
        level: :class:`~pfsbench.gate.statistics.stats.Moments` of the nights
            that set the level (the baseline's, or those since an intended
            change).
        current: tonight's :class:`~pfsbench.gate.statistics.stats.Moments`.
        segments: the history's nights for the noise, split at
            intended-change markers (lists of Moments).
        tolerance: the smallest change that matters.
        direction: ``'higher'`` or ``'lower'``.
        detect: the loss a passing night must rule out.
        confidence: coverage of the interval.
        min_samples: fewer current samples give ``inconclusive``,
            unless the whole interval lies beyond the tolerance.
        outlier_z: nights beyond this robust z are left out of the level
            and of the noise.
        recent: the nights since the level began before tonight, oldest
            first, as ``(time_start, Moments)`` (:mod:`pooled
            <pfsbench.gate.judge.pooled>`; ``None`` or empty: tonight
            alone).
        pooled: ``{'rule', 'nights', 'cusum_h'}`` of
            ``lookback.pooled`` (``None``: tonight alone).

    Returns:
        A dict as :func:`judge`'s, plus ``lookback`` (what the verdict
        used; its ``p`` is the one-sided p-value of the figure's loss for
        the night's false-alarm budget, tonight's and the pooled nights'
        together: :func:`figure_p`) and ``pooled`` (what the nights since
        the level found, where judged), or ``None`` when the history
        holds too few nights for the noise (fewer than 3 in a segment); the caller then judges by the
        interval rule.
    """
    if lookback.not_positive(level, current, segments):
        return _zero_nights(level, current, segments, detect)

    history = _without_outliers(level, segments, outlier_z)
    if history is None:
        return None

    rule = _Rule(tolerance, direction, detect, confidence)
    out = _lookback_record(history, detect)
    try:
        iv = lookback.interval(history.level, current, history.noise,
                               confidence)
    except NotEnoughSamples as err:
        out['reason'] = str(err)
        return out

    out.update(change=iv.change, low=iv.low, high=iv.high,
               df=None if math.isinf(iv.df) else iv.df)
    out['sensitivity'] = sensitivity.of_interval(
        iv, tolerance, detect, direction, 'lookback', tau2=history.noise[0],
        level_nights=len(history.level))
    verdict, threshold = lookback.decide(iv, tolerance, detect, direction)
    out['lookback']['p'] = tonight_p(iv, direction)
    together = _pooled(history.level, current, recent, history.noise,
                       tolerance, direction, confidence, pooled, out,
                       segments=history.segments,
                       tonight_se=tonight_se(iv)[0], rest=history.rest)
    if together is not None and together['regression']:
        verdict = 'regression'

    if current.n < min_samples and (
            verdict == 'pass' or
            decide(iv, tolerance, direction)[0] != verdict):
        # Ruling a loss out takes the samples the gate asks for; so
        # does a change whose whole interval is not beyond the tolerance.
        out['reason'] = (f'{current.n} current sample(s), the gate needs '
                         f'{min_samples}; {history.basis()}')
        return out

    out['verdict'] = verdict
    out['reason'], out['repeats_needed'] = _lookback_reason(
        out, iv, verdict, threshold, together, history, current, rule)
    ratio = _spread_grew(current, history.level)
    if ratio is not None:
        out['spread_change'] = ratio
        out['reason'] += (f'; tonight\'s spread is {ratio:.1f} times the '
                          'level nights\' (F test, 1 %): a disturbed '
                          'night?')

    if current.n < min_samples and verdict != 'inconclusive':
        out['reason'] += '; ' + _short_night(
            current.n, min_samples, 'the level nights (pooled)')

    out['reason'] += f'; {history.basis()}'
    return out


def tonight_se(iv):
    """``(se, df)`` of tonight's log change from its lookback interval
    (the half-width on the log scale over the rule's t quantile), or
    ``(None, None)`` without a finite interval."""
    if iv.low <= -1.0 or iv.change <= -1.0:
        return None, None

    d = math.log1p(iv.change)
    half = max(d - math.log1p(iv.low), math.log1p(iv.high) - d)
    df = math.inf if iv.df is None else max(iv.df, 1.0)
    return half / t_quantile(0.5 + iv.confidence / 2.0, df), df


def tonight_p(iv, direction):
    """One-sided p-value of tonight's loss from its lookback interval
    (the half-width on the log scale over the rule's t quantile is its
    standard error), or ``None`` without a finite interval."""
    if iv.low <= -1.0 or iv.change <= -1.0:
        return 0.0 if direction == 'higher' else None

    d = math.log1p(iv.change)
    se, df = tonight_se(iv)
    loss = d if direction == 'higher' else -d
    if se <= 0:
        return 0.0 if loss < 0 else 1.0

    return t_cdf(loss / se, df)


def _noise_without(segments, noise, rest=None):
    """``f(nights)``: the night noise of ``segments`` without ``nights``
    (the window's history nights), or ``noise`` where too few remain
    (``rest``: the segments' :class:`lookback.NoiseWithout`, if made).

    A lasting loss is in every night of the window: read as history, its
    step would count as night noise (on the MooseFS month,
    docs/gate-evidence.md, the noise went from 0.0 % to 14 % the night
    after copies 1 -> 2, and what the nights together detect from 31 %
    to 47 %).  The window is
    judged against the noise of the nights outside it."""
    if not segments:
        return lambda nights: noise
    if rest is None:
        rest = lookback.NoiseWithout(segments)

    def without(nights):
        if not nights:
            return noise
        return rest(nights) or noise

    return without


def _pooled(level, current, recent, noise, tolerance, direction,
            confidence, settings, out, segments=None, tonight_se=None,
            rest=None):
    """The nights since the level began, with tonight, judged together
    (:mod:`pfsbench.gate.judge.pooled`); fills ``out['pooled']`` and
    lowers ``out['lookback']['p']`` to the pooled one where smaller.

    Returns:
        The pooled test's dict, or ``None`` where it did not judge.
    """
    if not settings or settings.get('rule', 'off') == 'off' or \
            not recent or not level:
        return None

    recent = [(t, n) for t, n in recent if n.mean > 0]
    nights = [n for _, n in recent] + [current]
    times = [t for t, _ in recent] + [None]
    alpha = (1.0 - confidence) / 2.0
    most = settings.get('nights', 7)
    without = _noise_without(segments, noise, rest)
    found = pooled_test(settings['rule'], level, nights, noise,
                           tolerance, direction, alpha, most,
                           settings.get('cusum_h', 5.0),
                           noise_without=without)
    if found is None:
        return None

    used = nights[-most:]
    times = times[-most:]
    count = len(used)
    found['since'] = day(times[found['start']])
    found['detect_inputs'] = detect_inputs(
        level, count, without(used[:-1]),
        tolerance, direction, most)
    found['detects'] = detects_at(found['detect_inputs'], alpha)
    found['alpha'] = alpha
    found['count'] = count
    found['first'] = day(times[0])
    found['rule'] = settings['rule']
    out['pooled'] = {k: found[k] for k in (
        'rule', 'p', 'nights', 'since', 'change', 'low', 'high',
        'regression', 'detects', 'count', 'first', 'detect_inputs',
        'alpha')}
    out['pooled']['decided'] = False
    out['lookback']['p'] = figure_p(out['lookback'].get('p'), found,
                                    tonight_se)
    return found


def figure_p(tonight, found, se):
    """The figure's p-value for the night's budget from tonight's
    (``tonight``, standard error ``se``) and the pooled nights' test.

    Tonight alone is the shortest of the windows: the window rule's
    correction over its smallest p-value
    (:func:`~pfsbench.gate.statistics.stats.min_p_bound`) takes it in as
    the window of 1 night, so the two views are one test, corrected
    once.  The CUSUM has no p-value of its own: the smaller, doubled
    (Bonferroni)."""
    if tonight is None:
        return found['p']
    if found.get('raw_p') is None or not se:
        return min(1.0, 2.0 * min(tonight, found['p']))

    return min_p_bound(min(tonight, found['raw_p']), [se] + found['ses'])


def pooled_reason(found, tol):
    """Why the pooled nights are a regression."""
    since = f' since {found["since"]}' if found['since'] else ''
    nights = found['nights']
    if found['rule'] == 'cusum':
        how = f'a one-sided CUSUM of {found["statistic"]:.1f} night errors'
    else:
        how = (f'one-sided p = {found["p"]:.2g}, corrected over '
               f'{found["windows"]} overlapping window(s) of the newest '
               'nights by the null distribution of their smallest; '
               f'interval [{found["low"]:+.1%}, {found["high"]:+.1%}]')
    return (f'the {nights} nights{since} together: a lasting change of '
            f'{found["change"]:+.1%} beyond {tol:+.1%} ({how}); the shift '
            f'began on {found["since"] or "the night before"}')


def hold_disturbed(row, contended, kept, changed):
    """A regression on a night the case's own repeats saw foreign load
    (``contended`` of them left out, ``kept`` judged), with no cause
    changed in the case's provenance since the baseline, is held as
    inconclusive: the load that the probe caught on some repeats reached
    the others too (bench/gate_quality.py --pooled, docs/gate-method.md
    "Disturbed nights": on the quiet recordings such nights made nearly
    every unchanged night that paged).  Where something changed
    (``+data=journal``), the loss has a cause the gate can name: it stays
    a regression, a collapse is never green.  A loss that lasts is found
    the next night, alone or with the nights since it began.

    Args:
        row: the row dict (changed in place).
        contended: the case's repeats left out tonight as contended.
        kept: the repeats judged.
        changed: whether a difference of the case's provenance from the
            baseline's names a cause
            (:func:`pfsbench.gate.judge.record.names_a_cause`: other nodes
            do not).

    Returns:
        Whether the row was held.
    """
    if not contended or changed or row.get('verdict') != 'regression':
        return False

    row['verdict'] = 'inconclusive'
    row['reason'] = (f'held: foreign load seen on {contended} of '
                     f'{contended + kept} repeat(s) of this case tonight '
                     '(left out as contended) and no cause changed since '
                     'the baseline (other nodes name none): the loss is the '
                     'load\'s until a night without it confirms it; ' +
                     row['reason'])
    if row.get('lookback') is not None:
        row['lookback'] = dict(row['lookback'], disturbed=contended)

    return True


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
