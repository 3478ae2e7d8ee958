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

docs/gate.md gives the derivation and the verdict rules built on it.
"""

import functools
import math
import statistics
from dataclasses import dataclass, field

from pfsbench.core.errors import NotEnoughSamples


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
    """Welch-Satterthwaite degrees of freedom.

    Args:
        a: variance of the first mean (s1**2/n1, or its log-scale analogue).
        na: number of samples behind ``a``.
        b: variance of the second mean.
        nb: number of samples behind ``b``.

    Returns:
        The effective degrees of freedom (``inf`` if both variances are 0).
    """
    num = (a + b) ** 2
    den = 0.0
    if a > 0:
        den += a * a / (na - 1)

    if b > 0:
        den += b * b / (nb - 1)

    return math.inf if den == 0.0 else num / den


def median_abs_dev(values):
    """Median absolute deviation from the median (not scaled).

    Args:
        values: at least one number.

    Returns:
        median(|x - median(values)|).
    """
    med = statistics.median(values)
    return statistics.median(abs(x - med) for x in values)


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
        change=math.expm1(d), low=math.expm1(d - half),
        high=math.expm1(d + half), confidence=confidence, df=df,
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
        change=interval.change, low=math.expm1(d - half),
        high=math.expm1(d + half), confidence=interval.confidence,
        df=night_df, cv2_base=interval.cv2_base, cv2_cur=interval.cv2_cur,
        n_base=interval.n_base, n_cur=interval.n_cur,
        borrowed=interval.borrowed, night_floor=True)


#: Fewer repeats than this keep every repeat: the median absolute
#: deviation of three or four repeats is too often near 0 by chance, so
#: that an ordinary repeat would look wild.
MIN_REPEATS_FOR_WILD = 5

#: A repeat whose log lies more than this many scaled median absolute
#: deviations (x 1.4826) from its night's median log is wild.  Large on
#: purpose: it must leave a broad but ordinary spread alone (the
#: unthrottled recording's repeats span a factor of 3) and catch a
#: repeat far outside an otherwise steady night (the bench's).
WILD_Z = 8.0


def wild_repeats(values):
    """The repeats of one night that are wild: ``[(index, value, robust
    z), ...]``, in the night's order (see :func:`night_moments`)."""
    if len(values) < MIN_REPEATS_FOR_WILD or \
            not all(math.isfinite(v) and v > 0 for v in values):
        return []

    logs = [math.log(v) for v in values]
    med = statistics.median(logs)
    mad = 1.4826 * statistics.median(abs(x - med) for x in logs)
    if mad == 0.0:
        return []

    return [(i, v, abs(x - med) / mad)
            for i, (v, x) in enumerate(zip(values, logs))
            if abs(x - med) > WILD_Z * mad]


#: Why a repeat is left out, as reports say it.
WILD_REASON = (f'its log more than {WILD_Z:g} scaled median absolute '
               'deviations (z) from its night\'s median log, in a night of '
               f'at least {MIN_REPEATS_FOR_WILD} repeats')


def night_moments(values):
    """:class:`Moments` of one night's repeats
    without its wild ones (listed in :attr:`Moments.left_out`).

    With at least :data:`MIN_REPEATS_FOR_WILD` repeats, all positive and
    finite, a repeat whose log lies beyond :data:`WILD_Z` robust z-scores
    (scaled MAD) of the night's median log is left out; fewer than half
    can be.  Repeats that agree exactly (MAD 0: constants, zeros) keep
    every repeat.

    Args:
        values: the night's repeats (at least one).
    """
    wild = wild_repeats(values)
    if not wild:
        return moments(values)

    out = {i for i, _, _ in wild}
    kept = moments([v for i, v in enumerate(values) if i not in out])
    return Moments(kept.mean, kept.variance, kept.n,
                   tuple((i, float(v), z) for i, v, z in wild))
