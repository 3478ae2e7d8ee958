# SPDX-License-Identifier: BSD-3-Clause
"""Statistics of the gate, stdlib only (pyperf style).

The gate compares the mean of a variable's current samples with the mean
of its baseline samples as a *relative change* ``mean(cur)/mean(base) - 1``
and gives a confidence interval for it:

* work on the log of the ratio of means, ``d = ln(mean(cur)/mean(base))``;
* its variance by the delta method is ``a + b`` with
  ``a = var(cur)/(n_cur*mean(cur)**2)`` and
  ``b = var(base)/(n_base*mean(base)**2)`` (squared coefficient of
  variation over n, per side);
* Welch-Satterthwaite degrees of freedom
  ``nu = (a+b)**2 / (a**2/(n_cur-1) + b**2/(n_base-1))``;
* interval ``d +- t(1-alpha/2, nu) * sqrt(a+b)``, mapped back with
  ``exp(.) - 1``, so the interval on the relative change is asymmetric and
  never goes below -100 %.

docs/gate-method.md gives the derivation and the verdict rules built on it.
"""

import functools
import math
import statistics
from dataclasses import dataclass, field

from pfsbench.core.errors import NotEnoughSamples
from pfsbench.gate.statistics.values import expm1


def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = tiny if abs(d) < tiny else d
    d = 1.0 / d
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break

    return h


def _betainc(a, b, x):
    """Regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0

    if x >= 1.0:
        return 1.0

    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a

    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t, df):
    """Cumulative distribution function of Student's t.

    Args:
        t: the point.
        df: degrees of freedom (> 0, need not be an integer).

    Returns:
        P(T <= t).
    """
    if df <= 0:
        raise ValueError(f'degrees of freedom must be > 0, got {df}')

    if math.isinf(df):
        return statistics.NormalDist().cdf(t)

    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t >= 0 else tail


def f_sf(f, d1, d2):
    """Survival function of Fisher's F distribution, ``P(F > f)``.

    Args:
        f: the point (>= 0).
        d1: numerator degrees of freedom.
        d2: denominator degrees of freedom.
    """
    if f <= 0.0:
        return 1.0

    return 1.0 - _betainc(d1 / 2.0, d2 / 2.0, d1 * f / (d1 * f + d2))


@functools.lru_cache(maxsize=4096)
def t_quantile(p, df):
    """Quantile (inverse CDF) of Student's t, by bisection on :func:`t_cdf`.

    Args:
        p: probability in (0, 1).
        df: degrees of freedom (> 0).

    Returns:
        t such that P(T <= t) = p, to about 1e-10.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f'p must be in (0, 1), got {p}')

    if p < 0.5:
        return -t_quantile(1.0 - p, df)

    if math.isinf(df) or df > 1e7:
        return statistics.NormalDist().inv_cdf(p)

    # Newton from the normal quantile: for p > 0.5 the CDF is concave on
    # t > 0, so the steps climb monotonically to the root.
    x = statistics.NormalDist().inv_cdf(p)
    lpdf0 = (math.lgamma((df + 1) / 2) - math.lgamma(df / 2) -
             0.5 * math.log(df * math.pi))
    for _ in range(100):
        pdf = math.exp(lpdf0 - (df + 1) / 2 * math.log1p(x * x / df))
        step = (p - t_cdf(x, df)) / pdf
        x += step
        if abs(step) < 1e-12 * (1.0 + abs(x)):
            return x

    # Not converged (tiny df): bisection.
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
        if hi > 1e12:
            return math.inf

    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid

        if hi - lo < 1e-12 * max(1.0, hi):
            break

    return 0.5 * (lo + hi)


def welch_df(a, na, b, nb):
    """Welch-Satterthwaite degrees of freedom of two means: Satterthwaite's
    (:func:`satterthwaite_df`) for two parts.

    Args:
        a: variance of the first mean (s1**2/n1, or its log-scale analogue).
        na: number of samples behind ``a``.
        b: variance of the second mean.
        nb: number of samples behind ``b``.

    Returns:
        The effective degrees of freedom (``inf`` if both variances are 0).
    """
    return satterthwaite_df(((a, na - 1), (b, nb - 1)))


def satterthwaite_df(parts):
    """Satterthwaite's degrees of freedom of a sum of variances
    ``[(var, df), ...]`` (parts with a variance or df of 0 add nothing),
    ``inf`` where no part has both."""
    total = sum(v for v, _ in parts)
    den = sum(v * v / df for v, df in parts if v > 0 and df > 0)
    return math.inf if den == 0.0 else total * total / den


#: Simpson intervals of :func:`both_below`'s integral (even; its
#: integrand is smooth, 32 give 1e-9 of the probability).
_SIMPSON = 32


#: Simpson's weights of its nodes, 1 4 2 4 ... 2 4 1.
_WEIGHTS = tuple(1 if i in (0, _SIMPSON) else (4 if i % 2 else 2)
                 for i in range(_SIMPSON + 1))


@functools.lru_cache(maxsize=1024)
def _simpson_nodes(rho):
    """:func:`both_below`'s Simpson rule for correlation ``rho``, which
    does not depend on ``h``: the step and each node's ``1 +
    sin(theta)``, or None when ``rho <= 0`` (a search over ``h`` asks
    for the same few correlations at every step; a window pattern has
    at most a few hundred)."""
    top = math.asin(min(max(rho, 0.0), 1.0))
    if top == 0.0:
        return None

    step = top / _SIMPSON
    return step, tuple(1.0 + math.sin(i * step) for i in range(_SIMPSON + 1))


def both_below(h, rho, low=None):
    """``P(Z1 <= h, Z2 <= h)`` of two standard normals of correlation
    ``rho`` in [0, 1]: Plackett's identity, the density's integral over
    the correlation, taken in ``theta = asin(r)`` where it is smooth
    (docs/gate-method.md, "The windows' correction").  ``low``, if
    given, is ``Phi(h)``."""
    if low is None:
        low = statistics.NormalDist().cdf(h)
    nodes = _simpson_nodes(rho)
    if nodes is None:
        return low * low

    step, points = nodes
    # The nodes' terms are added one by one in order, as the rule reads
    # (a compensated or pairwise sum would move the last bits).
    exponent = -h * h
    total = 0.0
    for weight, denominator in zip(_WEIGHTS, points):
        total += weight * math.exp(exponent / denominator)

    return low * low + total * step / 3.0 / (2.0 * math.pi)


def min_p_bound(p, ses):
    """The chance, with no change, that the smallest one-sided p-value
    over nested windows is ``p`` or less: Hunter's upper bound on a union
    over the chain of neighbouring windows.

    The windows are the newest 2, 3, ... nights; the statistic of the
    longer of two shares all the shorter one's nights, so their
    correlation is ``se_long / se_short`` (the covariance is the longer
    window's variance), and each window's statistic depends on the
    shorter ones only through its neighbour: the chain is the tree
    Hunter's bound wants.  ``sum P(A_k) - sum P(A_k and A_k+1)``, never
    above Bonferroni's ``p * windows`` (docs/gate-method.md, "The
    windows' correction").

    Args:
        p: the smallest of the windows' one-sided p-values.
        ses: the windows' standard errors, shortest window first.

    Returns:
        The corrected p-value, in ``[p, min(1, p * len(ses))]``.
    """
    count = len(ses)
    if count <= 1 or p <= 0.0:
        return p
    if p >= 1.0:
        return 1.0

    h = statistics.NormalDist().inv_cdf(p)
    low = statistics.NormalDist().cdf(h)
    pairs = sum(both_below(h, min(1.0, long / short) if short > 0 else 1.0,
                           low)
                for short, long in zip(ses, ses[1:]))
    return min(1.0, max(p, count * p - pairs))


def median_abs_dev(values):
    """Median absolute deviation from the median (not scaled).

    Args:
        values: at least one number.

    Returns:
        median(|x - median(values)|).
    """
    # Sorted first: the deviations of sorted values fall then rise, two
    # runs the median's sort merges at once; the same values, so the
    # same median.  Not where one is NaN (no order: as written).
    ordered = sorted(values)
    med = statistics.median(ordered)
    deviations = [abs(x - med) for x in ordered]
    if math.isnan(sum(deviations)):
        med = statistics.median(values)
        return statistics.median(abs(x - med) for x in values)

    return statistics.median(deviations)


def diff_sigma(x):
    """Robust standard deviation of the noise of a series, from its first
    differences so that a few steps barely count:
    ``1.4826 * MAD(diff(x)) / sqrt(2)``.

    Args:
        x: at least two values, in series order.
    """
    diffs = [b - a for a, b in zip(x, x[1:])]
    return 1.4826 * median_abs_dev(diffs) / math.sqrt(2.0)


@dataclass(frozen=True)
class RatioInterval:
    """Relative change of the current mean over the baseline mean.

    Attributes:
        change: point estimate, ``mean_cur/mean_base - 1``.
        low: lower end of the confidence interval on ``change``.
        high: upper end of the confidence interval on ``change``.
        confidence: the interval's coverage, e.g. 0.95.
        df: Welch degrees of freedom used for the t quantile.
        cv2_base: squared coefficient of variation of one baseline sample.
        cv2_cur: squared coefficient of variation of one current sample.
        n_base: number of baseline samples.
        n_cur: number of current samples.
        borrowed: ``'base'`` or ``'cur'`` if that side had one sample and
            took its spread from the other side, else ``''``.
        night_floor: the variance was raised to the night-to-night
            variance seen in the history (:func:`floor_by_nights`).
    """

    change: float
    low: float
    high: float
    confidence: float
    df: float
    cv2_base: float
    cv2_cur: float
    n_base: int
    n_cur: int
    borrowed: str = ''
    night_floor: bool = False


def ratio_interval(base, cur, confidence=0.95):
    """Confidence interval of the relative change of means (log-ratio,
    delta method, Welch degrees of freedom).

    One side may have a single sample: it then borrows the other side's
    coefficient of variation (the same relative noise is assumed), and the
    degrees of freedom are the other side's ``n - 1``.

    Args:
        base: baseline samples (positive numbers).
        cur: current samples (positive numbers).
        confidence: coverage of the interval, in (0, 1).

    Returns:
        A :class:`RatioInterval`.

    Raises:
        NotEnoughSamples: a side is empty, both sides have one sample, or a
            mean is not positive.
    """
    nb, nc = len(base), len(cur)
    if nb == 0 or nc == 0:
        raise NotEnoughSamples(
            f'need samples on both sides, got {nb} baseline and {nc} current'
        )

    return ratio_interval_moments(
        Moments(statistics.fmean(base),
                statistics.variance(base) if nb > 1 else None, nb),
        Moments(statistics.fmean(cur),
                statistics.variance(cur) if nc > 1 else None, nc),
        confidence)


@dataclass(frozen=True)
class Moments:
    """Mean, sample variance (``None`` for one sample) and count."""

    mean: float
    variance: float
    n: int
    #: The repeats :func:`night_moments` left out as wild, ``((index,
    #: value, robust z), ...)`` (index: the repeat's place among the
    #: night's values); the statistics above are of the others.  Not part
    #: of equality: two nights with the same statistics are the same.
    left_out: tuple = field(default=(), compare=False)
    #: Which scale the wild repeats were measured by (:func:`night_moments`),
    #: ``''`` where none was left out.
    wild_scale: str = field(default='', compare=False)


def moments(values):
    """:class:`Moments` of samples, in floating point (two passes; the
    statistics module's exact fractions are 50 times slower, and the
    gate takes the moments of every night of a long history).

    Args:
        values: at least one number.
    """
    n = len(values)
    mean = math.fsum(values) / n
    if n < 2:
        return Moments(mean, None, n)

    return Moments(mean, math.fsum((v - mean) ** 2 for v in values) / (n - 1),
                   n)


def moments_from_summaries(means, pstdevs, counts):
    """The moments of all iterations of several runs, from each run's
    mean, population standard deviation and iteration count (what IOR and
    mdtest print as Mean and StdDev over ``-i`` iterations).

    Exact: the pooled sum of squares is
    ``sum(r_i s_i^2 + r_i (m_i - M)^2)`` with ``M`` the grand mean.

    Args:
        means: per-run means.
        pstdevs: per-run population standard deviations.
        counts: per-run iteration counts (>= 1).

    Returns:
        :class:`Moments` over ``sum(counts)`` iterations.
    """
    total = sum(counts)
    grand = sum(r * m for r, m in zip(counts, means)) / total
    ss = sum(r * s * s + r * (m - grand) ** 2
             for m, s, r in zip(means, pstdevs, counts))
    return Moments(grand, ss / (total - 1) if total > 1 else None, total)


def ratio_interval_moments(base, cur, confidence=0.95):
    """:func:`ratio_interval` from :class:`Moments` of each side."""
    nb, nc = base.n, cur.n
    if nb < 2 and nc < 2:
        raise NotEnoughSamples(
            'need at least 2 samples on one side to estimate the spread, '
            f'got {nb} baseline and {nc} current'
        )

    mb, mc = base.mean, cur.mean
    if mb <= 0 or mc <= 0:
        raise NotEnoughSamples(
            f'means must be positive for a ratio, got baseline {mb!r} and '
            f'current {mc!r}'
        )

    borrowed = ''
    cv2b = base.variance / mb ** 2 if nb > 1 else None
    cv2c = cur.variance / mc ** 2 if nc > 1 else None
    if cv2b is None:
        cv2b, borrowed = cv2c, 'base'
    elif cv2c is None:
        cv2c, borrowed = cv2b, 'cur'

    a, b = cv2c / nc, cv2b / nb
    if borrowed == 'base':
        df = nc - 1 if a + b > 0 else math.inf
    elif borrowed == 'cur':
        df = nb - 1 if a + b > 0 else math.inf
    else:
        df = welch_df(a, nc, b, nb)

    d = math.log(mc / mb)
    half = 0.0
    if a + b > 0:
        half = t_quantile(0.5 + confidence / 2.0, df) * math.sqrt(a + b)

    return RatioInterval(
        change=expm1(d), low=expm1(d - half),
        high=expm1(d + half), confidence=confidence, df=df,
        cv2_base=cv2b, cv2_cur=cv2c, n_base=nb, n_cur=nc, borrowed=borrowed
    )


def repeats_to_settle(interval, threshold, max_repeats=1000):
    """Repeats per side that would move the interval off ``threshold``.

    Assumes the point estimate and both coefficients of variation stay as
    measured and that the baseline and the run both get ``n`` repeats.

    Args:
        interval: a :class:`RatioInterval` that straddles ``threshold``.
        threshold: relative change the interval must not contain
            (``-tol`` or ``+tol``).
        max_repeats: give up beyond this many.

    Returns:
        The smallest such ``n`` (>= 2); ``max_repeats + 1`` if more than
        ``max_repeats`` would be needed; ``None`` if the change sits
        exactly on the threshold (no number of repeats settles it).
    """
    if interval.change <= -1.0:
        return None

    margin = abs(math.log1p(interval.change) - math.log1p(threshold))
    cv2 = interval.cv2_base + interval.cv2_cur
    if margin == 0.0:
        return None

    p = 0.5 + interval.confidence / 2.0

    def settles(n):
        a, b = interval.cv2_cur / n, interval.cv2_base / n
        df = welch_df(a, n, b, n)
        return t_quantile(p, df) * math.sqrt(cv2 / n) < margin

    # The half-width shrinks as n grows (both the t quantile and the
    # standard error do), so bisect for the first n that settles.
    return smallest_count(settles, max_repeats)


def smallest_count(enough, limit):
    """The smallest count n >= 2 for which ``enough(n)`` holds, where
    ``enough`` holds from some count on (bisection); ``limit + 1`` if
    ``enough(limit)`` does not."""
    if not enough(limit):
        return limit + 1

    lo, hi = 1, limit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if enough(mid):
            hi = mid
        else:
            lo = mid

    return max(hi, 2)


def night_noise(session_means, min_sessions=5):
    """Night-to-night variance of a variable's log session mean.

    Estimated robustly from consecutive differences of the history, so a
    step (an upgrade) in the history barely counts:
    ``sigma = 1.4826 * MAD(diff(ln m)) / sqrt(2)``.

    Args:
        session_means: per-session means of the history, oldest first,
            without the session under test.
        min_sessions: fewer sessions give ``None``.

    Returns:
        ``(variance, df)`` or ``None``; ``df`` is 37 % of ``len - 1``
        (the efficiency of the MAD), at least 1.
    """
    values = [v for v in session_means if v is not None and v > 0]
    if len(values) < min_sessions:
        return None

    sigma = diff_sigma([math.log(v) for v in values])
    return sigma * sigma, max(1.0, round(0.37 * (len(values) - 1)))


def floor_by_nights(interval, night_var, night_df, base_sessions=1):
    """Widen an interval to at least the night-to-night noise.

    Repeats within one session share that night's state, so their spread
    can understate how much two sessions differ.  The half-width of the
    interval on ``ln(m_cur/m_base)`` is raised to
    ``t(df_n) * sqrt(night_var * (1 + 1/k))`` (one current session, ``k``
    baseline sessions) when that is larger; it is never narrowed.

    Args:
        interval: a :class:`RatioInterval`.
        night_var: variance of a log session mean across nights.
        night_df: its degrees of freedom.
        base_sessions: sessions behind the baseline samples (k).

    Returns:
        The same interval, or a wider one with ``night_floor=True``.
    """
    if interval.low <= -1.0:
        # A loss of all but a rounding error (means 16 orders of
        # magnitude apart): no log to widen around, and nothing below.
        return interval

    p = 0.5 + interval.confidence / 2.0
    d = math.log1p(interval.change)
    # The interval's own half-width (it may have a t quantile of few
    # degrees of freedom): the floor only ever widens it.
    own = max(d - math.log1p(interval.low), math.log1p(interval.high) - d)
    half = t_quantile(p, night_df) * math.sqrt(
        night_var * (1.0 + 1.0 / base_sessions))
    if half <= own:
        return interval

    return RatioInterval(
        change=interval.change, low=expm1(d - half),
        high=expm1(d + half), confidence=interval.confidence,
        df=night_df, cv2_base=interval.cv2_base, cv2_cur=interval.cv2_cur,
        n_base=interval.n_base, n_cur=interval.n_cur,
        borrowed=interval.borrowed, night_floor=True)


#: Fewer repeats than this are not judged by their own spread: the
#: median absolute deviation of three or four repeats is too often near 0
#: by chance, so that an ordinary repeat would look wild.  Such a night
#: of at least :data:`MIN_REPEATS_FOR_POOLED` repeats is judged by the
#: pooled within-night scale of its figure's other nights instead
#: (:func:`pooled_scale`), where there are :data:`MIN_POOL_NIGHTS`.
MIN_REPEATS_FOR_WILD = 5

#: The shortest night the pooled scale can leave a repeat out of: in a
#: night of 2 neither repeat is nearer the median than the other.
MIN_REPEATS_FOR_POOLED = 3

#: Nights with a spread a pooled scale needs (fewer: none, every repeat
#: of a short night is kept).
MIN_POOL_NIGHTS = 5

#: The pooled scale reads at most this many nights (the newest).
POOL_NIGHTS = 20

#: A repeat whose log lies more than this many scaled median absolute
#: deviations (x 1.4826) from its night's median log is wild.  Large on
#: purpose: it must leave a broad but ordinary spread alone (the
#: unthrottled recording's repeats span a factor of 3) and catch a
#: repeat far outside an otherwise steady night (the bench's).
WILD_Z = 8.0

#: The limit for a night of 3 or 4 repeats, in pooled scales
#: (:func:`pooled_scale`).  Twice :data:`WILD_Z`: such a night's median is
#: one of its 3 or 4 repeats, and its scale is borrowed from nights whose
#: spreads differ (the capped writes' nights: 0.4 to 9 %).  The quality
#: bench's capped writes at 3 repeats kept their false alarms (0.3 %) from
#: 12 to 24 and not at 8 (0.5 %; docs/gate-evidence.md).
WILD_Z_SHORT = 16.0

#: Median of :func:`night_spread`'s statistic over samples of n standard
#: normal values (400 000 samples each, seed 19; tests/test_gate_lookback.py
#: checks them): the statistic divided by it estimates sigma without the
#: small-sample bias.  Odd and even n differ because an odd night's
#: median is one of its repeats (its zero deviation is left out).
SPREAD_MEDIANS = {2: 0.4770, 3: 0.7942, 4: 0.4536, 5: 0.7138, 6: 0.5331,
                  7: 0.6951, 8: 0.5732, 9: 0.6874, 10: 0.5956, 11: 0.6849,
                  12: 0.6094}


def _spread_median(n):
    """:data:`SPREAD_MEDIANS` for ``n``; beyond 12 repeats the large-n
    value 0.6745 with the table's 1/n trend (within 0.5 % at 11 and 12)."""
    found = SPREAD_MEDIANS.get(n)
    if found is not None:
        return found

    return 0.6745 + (0.11 if n % 2 else -0.78) / n


def night_spread(values):
    """A night's robust within-night scale on the log scale, without the
    small-sample bias: the median of its repeats' absolute deviations
    from the night's median log (an odd night's median repeat, whose
    deviation is 0 by construction, left out) over its median for normal
    repeats (:data:`SPREAD_MEDIANS`).  For 3 repeats: half the range of
    their logs over 0.7942.

    Args:
        values: the night's repeats.

    Returns:
        The scale (an estimate of sigma of a repeat's log, 0 for equal
        repeats), or ``None`` for fewer than 2 repeats or any not
        positive and finite.
    """
    n = len(values)
    if n < 2 or not all(math.isfinite(v) and v > 0 for v in values):
        return None

    logs = [math.log(v) for v in values]
    med = statistics.median(logs)
    devs = sorted(abs(x - med) for x in logs)
    if n % 2:
        devs = devs[1:]

    return statistics.median(devs) / _spread_median(n)


def pooled_scale(spreads):
    """The pooled within-night scale of a figure's nights: the upper
    quartile of their :func:`night_spread` (the newest
    :data:`POOL_NIGHTS`, ``None`` and NaN ones skipped): the scale of a
    broad but ordinary night of the figure's.  Each night's spread is
    scaled to estimate sigma whatever its repeat count, so that nights
    of different counts pool; nights with a wild repeat (up to a
    quarter) barely move the quartile, while the median would leave out
    the ordinary repeats of a night broader than most (the capped
    writes: 1.8 % false alarms at 3 repeats, docs/gate-evidence.md).

    Args:
        spreads: the nights' spreads, oldest first.

    Returns:
        The scale, or ``None`` with fewer than :data:`MIN_POOL_NIGHTS`
        nights that have one.
    """
    found = [s for s in spreads if s is not None and s == s]
    found = found[-POOL_NIGHTS:]
    if len(found) < MIN_POOL_NIGHTS:
        return None

    return statistics.quantiles(found, n=4)[2]


def wild_repeats(values, scale=None):
    """The repeats of one night that are wild: ``[(index, value, robust
    z), ...]``, in the night's order (see :func:`night_moments`).

    Args:
        values: the night's repeats.
        scale: the figure's :func:`pooled_scale`, used for a night of
            3 or 4 repeats (``None``: such a night keeps every repeat).
    """
    n = len(values)
    short = n < MIN_REPEATS_FOR_WILD
    if (short and (scale is None or n < MIN_REPEATS_FOR_POOLED)) or \
            not all(math.isfinite(v) and v > 0 for v in values):
        return []

    logs = [math.log(v) for v in values]
    med = statistics.median(logs)
    mad = scale if short else _long_night_scale(logs, med, scale)
    if not mad > 0.0:
        return []

    limit = WILD_Z_SHORT if short else WILD_Z
    wild = [(i, v, abs(x - med) / mad)
            for i, (v, x) in enumerate(zip(values, logs))
            if abs(x - med) > limit * mad]
    # Fewer than half (a night's own MAD sees to it for long nights): a
    # short night with more beyond the limit is broad, not wild.
    return wild if 2 * len(wild) < n else []


def _long_night_scale(logs, med, scale):
    """The scale a night of at least :data:`MIN_REPEATS_FOR_WILD`
    repeats measures its wild repeats by: its own scaled median absolute
    deviation, floored at the figure's pooled scale where there is one.
    The floor: five ordinary repeats of which three agree closely by
    chance have a MAD near 0, and then their ordinary extreme looked wild
    (4.8 % of nights of 5 normal repeats, 0.5 % of nights of 10,
    tests/test_gate_lookback.py)."""
    own = 1.4826 * statistics.median(abs(x - med) for x in logs)
    return own if scale is None else max(own, scale)


#: Why a repeat is left out, as reports say it.
WILD_REASON = (f'its log more than {WILD_Z:g} of its night\'s scaled '
               'median absolute deviations (z) from the night\'s median '
               f'log (nights of {MIN_REPEATS_FOR_WILD} repeats or more; '
               'never less than the pooled scale below) or '
               f'{WILD_Z_SHORT:g} within-night scales pooled over the '
               f'figure\'s other nights (nights of {MIN_REPEATS_FOR_POOLED} '
               f'or {MIN_REPEATS_FOR_WILD - 1})')


#: The scale a night of at least :data:`MIN_REPEATS_FOR_WILD` repeats
#: measures its wild repeats by (:attr:`Moments.wild_scale`).
OWN_SCALE = (f'its night\'s scaled median absolute deviation (limit '
             f'{WILD_Z:g})')


def wild_scale_text(values, scale):
    """Which scale a night of ``values`` measured its wild repeats by,
    and the limit (:attr:`Moments.wild_scale`)."""
    if len(values) >= MIN_REPEATS_FOR_WILD:
        logs = [math.log(v) for v in values]
        med = statistics.median(logs)
        if scale is None or _long_night_scale(logs, med, None) >= scale:
            return OWN_SCALE
        return (f'the within-night scale pooled over the figure\'s other '
                f'nights ({100 * scale:.3g} %), above its night\'s own '
                f'(limit {WILD_Z:g})')

    return (f'the within-night scale pooled over the figure\'s other '
            f'nights ({100 * scale:.3g} %; limit {WILD_Z_SHORT:g})')


def night_moments(values, scale=None):
    """:class:`Moments` of one night's repeats
    without its wild ones (listed in :attr:`Moments.left_out`).

    A repeat whose log lies beyond :data:`WILD_Z` robust scales of the
    night's median log is left out, where the repeats are all positive
    and finite and fewer than half are beyond: the scale is the night's
    own scaled median absolute deviation with at least
    :data:`MIN_REPEATS_FOR_WILD` repeats, never below ``scale``, the
    figure's :func:`pooled_scale`, where there is one; else (3 or 4
    repeats) ``scale`` alone.  A scale of 0
    (constants, zeros) keeps every repeat; so do nights of 1 or 2.

    Args:
        values: the night's repeats (at least one).
        scale: the figure's pooled within-night scale, or ``None``.
    """
    wild = wild_repeats(values, scale)
    if not wild:
        return moments(values)

    out = {i for i, _, _ in wild}
    kept = moments([v for i, v in enumerate(values) if i not in out])
    return Moments(kept.mean, kept.variance, kept.n,
                   tuple((i, float(v), z) for i, v, z in wild),
                   wild_scale_text(values, scale))
