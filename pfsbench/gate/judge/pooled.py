# SPDX-License-Identifier: BSD-3-Clause
"""Pooled nights: the nights since the level began, judged together.

The lookback rule (:mod:`pfsbench.gate.judge.lookback`) judges tonight
alone against the level; at a night noise of 10-14 % one night cannot
find a loss below about 35-50 % (its bound, docs/gate.md).  A loss that
lasts is in every night since it began: their mean has the night noise
divided by their count, so together they find what no single one can.

Two rules, compared on the same recordings by bench/gate_quality.py
(``--pooled``; docs/gate.md, "Pooled nights"):

* ``window`` (the default): for every window of the newest nights
  ending tonight (2 up to ``lookback.pooled.nights`` of them, since the
  level began), a t test of the window's mean log change against the
  level.  Its variance is the night noise and the nights' own within-
  night variance over the window's count, plus the level's own
  uncertainty (shared by every night: it does not shrink with more
  nights); the degrees of freedom of tonight's interval
  (:func:`lookback.change_df`).  The smallest one-sided p-value over the
  windows, corrected by the null distribution of the windows' smallest
  p (:func:`~pfsbench.gate.statistics.stats.min_p_bound`: the windows
  overlap), is the pooled p-value; a regression needs it below the lookback rule's
  one-sided level, the window's mean change *and* its median night's
  change beyond the tolerance (one wild night in a window must not make
  it a loss).  The night the shift began is the first of the window with
  the smallest p-value.
* ``cusum``: Page's one-sided CUSUM on each night's change in units of
  its own standard error (night noise, its within-night variance and
  the level's), reference ``k = 0.5`` and decision interval ``h``
  (``lookback.pooled.cusum_h``).  The shift began the night after the
  sum was last 0.  It ignores that the level's error is shared by every
  night, so a level set a little high drifts the sum up on unchanged
  nights: on the bench it cried wolf more often at the same power.
"""

import functools
import math
import statistics

from pfsbench.gate.judge import lookback
from pfsbench.gate.judge.sensitivity import _loss_fraction, smallest_log_loss
from pfsbench.gate.statistics.stats import (min_p_bound, t_cdf,
                                             t_quantile)
from pfsbench.gate.statistics.values import expm1

#: Rules of ``lookback.pooled.rule``.
RULES = ('window', 'cusum', 'off')

#: CUSUM reference value (in standard errors): tuned to a shift of one.
CUSUM_K = 0.5

#: A window is a loss only if its mean without its worst night is too.
TRIM_WORST = True


def _night(night, cv2):
    """``(x, e)`` of a night: its log mean and within-night variance of
    it, never below the pooled one (as tonight's in the interval)."""
    x, own = lookback.log_moments(night, cv2)
    e = own or 0.0
    if cv2 is not None:
        e = max(e, cv2 / night.n)

    return x, e


def window_test(level_nights, nights, noise, tolerance, direction,
                alpha, max_nights, noise_without=None):
    """The ``window`` rule on the nights since the level (tonight last).

    Args:
        level_nights: the level's :class:`Moments` (outliers left out).
        nights: the nights since the level began, oldest first, tonight
            last (:class:`Moments`, means > 0).
        noise: ``(tau2, df)`` of :func:`lookback.night_variance`.
        tolerance: the smallest change that matters.
        direction: ``'higher'`` or ``'lower'``.
        alpha: the one-sided false-alarm level (before the windows'
            correction).
        max_nights: the longest window.
        noise_without: ``f(history nights) -> (tau2, df)``, the night
            noise without a window's nights (a lasting loss read as
            history noise would hide itself), or ``None``: ``noise``.

    Returns:
        ``None`` with fewer than 2 nights, else ``{'p', 'nights',
        'start', 'change', 'low', 'high', 'regression', 'windows', 'se',
        'df'}``: ``p`` the corrected p-value, ``nights`` the best window's
        length, ``start`` its first night's index in ``nights``, ``low``/
        ``high`` its ``1 - 2 alpha / windows`` interval of the relative
        change.
    """
    nights = list(nights)[-max_nights:]
    if len(nights) < 2 or not level_nights:
        return None

    sign = 1.0 if direction == 'higher' else -1.0
    cv2 = lookback.pooled_cv2(level_nights)
    cv2_df = max(sum(n.n - 1 for n in level_nights if n.n > 1), 1)
    level_pairs = [lookback.log_moments(n, cv2) for n in level_nights]
    mean_e = statistics.fmean([e or 0.0 for _, e in level_pairs])
    pairs = [_night(n, cv2) for n in nights]
    windows = len(nights) - 1
    best = None
    ses = []
    margin = lookback.log_margin(tolerance, direction)
    for k in range(2, len(nights) + 1):
        # The window's history nights (all but tonight) are left out of
        # its noise.
        tau2, tau_df = (noise_without(nights[-k:-1]) if noise_without
                        else noise)
        mu, var_mu = lookback.level_of(level_pairs, tau2)
        share = tau2 / (tau2 + mean_e) if tau2 + mean_e > 0 else 1.0
        win = pairs[-k:]
        d = statistics.fmean([x for x, _ in win]) - mu
        e = statistics.fmean([e for _, e in win])
        parts = [(tau2 / k + share * var_mu, max(tau_df, 1)),
                 (e / k + (1 - share) * var_mu, cv2_df)]
        var = sum(v for v, _ in parts)
        df = lookback.change_df(parts, tau_df)
        se = math.sqrt(var) if var > 0 else 0.0
        # In "higher is better" terms a loss is negative.
        loss = sign * d
        p = (t_cdf(loss / se, df) if se > 0 else
             (0.0 if loss < 0 else 1.0))
        each = sorted(sign * (x - mu) for x, _ in win)
        median = statistics.median(each)
        # Without its worst night, the window's mean is still beyond the
        # tolerance: a loss that lasts is in every night, one disturbed
        # night is not (docs/gate-evidence.md, pooled nights: on the quiet
        # ext4 recordings the night after a disturbed one paged with it).
        rest = statistics.fmean(each[1:])
        ses.append(se)
        found = {'p': p, 'nights': k,
                 'start': len(nights) - k, 'd': d, 'se': se, 'df': df,
                 'beyond': loss < -margin and median < -margin and
                 (rest < -margin or not TRIM_WORST)}
        if best is None or (found['beyond'], -found['p']) > \
                (best['beyond'], -best['p']):
            best = found

    # Corrected for the windows by the null distribution of their
    # smallest p-value; the interval at the level the correction leaves
    # each window.
    best['raw_p'], best['ses'] = best['p'], ses
    best['p'] = min_p_bound(best['p'], ses)
    each = window_level(alpha, ses)
    half = t_quantile(1.0 - each, best['df']) * best['se']
    best.update(change=expm1(best['d']),
                low=expm1(best['d'] - half),
                high=expm1(best['d'] + half), windows=windows,
                window_alpha=each,
                regression=best['beyond'] and best['p'] < alpha)
    return best


def window_level(alpha, ses):
    """The one-sided level each of the windows (standard errors ``ses``,
    shortest first) is held to so that their smallest p-value keeps
    ``alpha`` (:func:`~pfsbench.gate.statistics.stats.min_p_bound`):
    between ``alpha / windows`` (Bonferroni) and ``alpha``.  The bound
    depends on the neighbours' ratios only; rounded to 0.001 they key a
    cache (a night judges many figures at the same few)."""
    if len(ses) <= 1:
        return alpha

    ratios = tuple(round(min(1.0, long / short), 3) if short > 0 else 1.0
                   for short, long in zip(ses, ses[1:]))
    return _window_level(alpha, ratios)


#: Bisection steps of the windows' level (its bracket narrows 2**30-fold
#: in log p: a few parts in a billion of the level).
LEVEL_STEPS = 30

#: Secant steps towards the level before a midpoint is evaluated.
_SECANT_STEPS = 8

#: Below this relative distance from a point whose bound is known, a
#: step's midpoint is evaluated rather than taken as on that point's
#: side (the computed bound is monotone far above its rounding there).
_NEAR = 1e-10


@functools.lru_cache(maxsize=4096)
def _window_level(alpha, ratios):
    """The bisection's level for the windows of ``ratios``.

    It is the plain bisection, step for step: each step's midpoint goes
    to the side the bound puts it on.  The bound rises with ``p``, so a
    midpoint beyond a point already evaluated is on that point's side;
    the points are placed by the secant method on the level (a few
    evaluations of the bound instead of one per step), and a midpoint
    too near them to tell is evaluated itself.  The result is the
    bisection's to the bit (tests/test_gate_speed_equal.py)."""
    ses = [1.0]
    for ratio in ratios:
        ses.append(ses[-1] * ratio)
    search = _Bracket(alpha, lambda p: min_p_bound(p, ses))
    low, high = alpha / len(ses), alpha
    for _ in range(LEVEL_STEPS):
        mid = math.sqrt(low * high)
        if search.above(mid):
            high = mid
        else:
            low = mid

    return low


class _Bracket:
    """Which side of the level ``bound(p) = alpha`` a ``p`` is on, from
    the nearest points evaluated below and above it."""

    def __init__(self, alpha, bound):
        self.alpha, self.bound = alpha, bound
        # (p, bound(p)) of the nearest points below and above the level
        # (the bound of 0 is 0) and of the last two evaluated.
        self.below, self.over = (0.0, 0.0), None
        self.last = [self.below]

    def above(self, p):
        """Whether ``bound(p) > alpha``."""
        for _ in range(_SECANT_STEPS):
            known = self._side(p)
            if known is not None:
                return known
            guess = self._guess()
            if guess is None:
                break
            self._evaluate(guess)

        return self._evaluate(p)

    def _side(self, p):
        if self.over is not None and p >= self.over[0] * (1.0 + _NEAR):
            return True
        if p <= self.below[0] * (1.0 - _NEAR):
            return False
        return None

    def _guess(self):
        """The secant's next point on the level, kept inside the bracket
        and off its ends, or ``None`` (nothing known above the level, or
        the bracket too narrow)."""
        low, high = (self.below[0] * (1.0 + 2 * _NEAR),
                     math.inf if self.over is None
                     else self.over[0] * (1.0 - 2 * _NEAR))
        if self.over is None or low >= high:
            return None
        (p0, f0), (p1, f1) = self.last[-2:]
        if f1 == f0:
            (p0, f0), (p1, f1) = self.below, self.over
        guess = p1 + (self.alpha - f1) * (p1 - p0) / (f1 - f0)
        return min(max(guess, low), high)

    def _evaluate(self, p):
        value = self.bound(p)
        over = value > self.alpha
        if over and (self.over is None or p < self.over[0]):
            self.over = (p, value)
        elif not over and p > self.below[0]:
            self.below = (p, value)
        self.last = [self.last[-1], (p, value)]
        return over


def cusum_test(level_nights, nights, noise, tolerance, direction, h,
               max_nights):
    """The ``cusum`` rule on the nights since the level (tonight last).

    Returns:
        ``None`` with fewer than 2 nights, else ``{'p', 'nights',
        'start', 'change', 'low', 'high', 'regression', 'statistic'}``
        (``p`` is 0 on an alarm, else 1: the CUSUM has no p-value; ``low``
        and ``high`` are the change's).
    """
    nights = list(nights)[-max_nights:]
    if len(nights) < 2 or not level_nights:
        return None

    tau2, _ = noise
    sign = 1.0 if direction == 'higher' else -1.0
    cv2 = lookback.pooled_cv2(level_nights)
    mu, var_mu = lookback.level(level_nights, tau2, cv2)
    s, start = 0.0, 0
    pairs = [_night(n, cv2) for n in nights]
    for i, (x, e) in enumerate(pairs):
        se = math.sqrt(tau2 + e + var_mu) or 1e-12
        s = max(0.0, s - sign * (x - mu) / se - CUSUM_K)
        if s == 0.0:
            start = i + 1

    start = min(start, len(nights) - 1)
    win = pairs[start:]
    d = statistics.fmean(x for x, _ in win) - mu
    margin = lookback.log_margin(tolerance, direction)
    alarm = s > h and sign * d < -margin
    return {'p': 0.0 if alarm else 1.0, 'nights': len(win), 'start': start,
            'change': expm1(d), 'low': expm1(d),
            'high': expm1(d), 'regression': alarm, 'statistic': s}


def pooled_test(rule, level_nights, nights, noise, tolerance, direction,
                alpha, max_nights, cusum_h=5.0, noise_without=None):
    """The chosen rule (``window`` or ``cusum``), or ``None``."""
    if rule == 'window':
        return window_test(level_nights, nights, noise, tolerance,
                           direction, alpha, max_nights, noise_without)
    if rule == 'cusum':
        return cusum_test(level_nights, nights, noise, tolerance,
                          direction, cusum_h, max_nights)

    return None


def detect_inputs(level_nights, count, noise, tolerance, direction,
                  max_nights):
    """What :func:`detects_at` needs: the window of ``count`` nights
    (at most ``max_nights``) as the window test has it, the nights taken
    as the level nights' typical one (their pooled within-night variance
    and mean repeat count), or ``None`` with fewer than 2 nights.

    The variance and its degrees of freedom are the window test's own
    (:func:`lookback.change_df`: Satterthwaite's over the night noise's
    and the repeats' parts, never more than the nights carry), and so
    has the label."""
    count = min(count, max_nights)
    if count < 2 or not level_nights:
        return None

    tau2, tau_df = noise
    cv2 = lookback.pooled_cv2(level_nights) or 0.0
    cv2_df = max(sum(n.n - 1 for n in level_nights if n.n > 1), 1)
    _, var_mu = lookback.level(level_nights, tau2, cv2)
    reps = statistics.fmean(n.n for n in level_nights)
    e = cv2 / reps
    share = tau2 / (tau2 + e) if tau2 + e > 0 else 1.0
    parts = [(tau2 / count + share * var_mu, max(tau_df, 1)),
             (e / count + (1 - share) * var_mu, cv2_df)]
    df = lookback.change_df(parts, tau_df)
    # The windows' standard errors as the window test has them: the
    # nights' own variance over each window's count plus the level's.
    return {'se': math.sqrt(sum(v for v, _ in parts)),
            'df': None if math.isinf(df) else df,
            'ses': [math.sqrt((tau2 + e) / k + var_mu)
                    for k in range(2, count + 1)],
            'tolerance': tolerance, 'direction': direction}


def detects_at(inputs, alpha, power=0.90):
    """The loss the window of :func:`detect_inputs` finds with ``power``
    at the windows' corrected ``alpha``, as a fraction, or ``None``."""
    if inputs is None:
        return None

    df = math.inf if inputs['df'] is None else inputs['df']
    delta = smallest_log_loss(inputs['se'], df,
                              window_level(alpha, inputs['ses']),
                              inputs['tolerance'], inputs['direction'],
                              'lookback', power)
    found = _loss_fraction(delta, inputs['direction'])
    return found if found < 1.0 or inputs['direction'] == 'lower' else None


def detects(level_nights, count, noise, tolerance, direction, alpha,
            max_nights, power=0.90):
    """The loss ``count`` nights together find with ``power`` (the
    ``window`` rule at its corrected level), as a fraction, or ``None``
    (:func:`detect_inputs`, :func:`detects_at`)."""
    return detects_at(detect_inputs(level_nights, count, noise, tolerance,
                                    direction, max_nights), alpha, power)


def label(tonight, together, count, since):
    """``'detects >= 48 % tonight, >= 22 % over the 4 nights since
    2026-11-20'`` (``tonight``/``together`` fractions or ``None``)."""
    first = ('detects no loss tonight' if tonight is None
             else f'detects >= {tonight:.0%} tonight')
    if together is None or count < 2:
        return first

    when = f' since {since}' if since else ''
    return f'{first}, >= {together:.0%} over the {count} nights{when}'
