# SPDX-License-Identifier: BSD-3-Clause
"""The lookback rule: tonight against the level of earlier nights, with
the night-to-night noise of the variable's own history.

Repeats of one night share that night's state, so a verdict from the
repeats alone cries wolf on a noisy target (docs/gate-evidence.md).
This rule, after Conbench's lookback z-score and Apache Otava's
change-point tests, treats a *night* as the unit:

* each night is its mean, the spread of its repeats and their count
  (:class:`~pfsbench.gate.statistics.stats.Moments`); on the log scale its mean
  has the within-night variance ``e = cv^2 / n``;
* the night-to-night variance ``tau^2`` is what the spread of the night
  means in the like-for-like history has beyond their own ``e``
  (a random-effects model, DerSimonian-Laird), estimated per segment
  between intended-change markers (a marker resets the level, never the
  noise), after removing outlying nights (robust z on the log means);
* the level is the inverse-variance weighted mean of the level nights,
  each weighted ``1 / (tau^2 + e_i)``: a noisy night counts less;
* tonight's change ``d = ln m_c - level`` has the variance
  ``tau^2 + e_c + 1 / sum(w_i)`` and a t interval with Satterthwaite's
  degrees of freedom, never more than the history's nights carry
  (:func:`change_df`).

Two thresholds (Otava's weak and strict): a **regression** needs the
whole interval below 0 (the loss is real) *and* the point change beyond
the tolerance (it matters); a night **passes** when its interval rules
out a loss of ``detect`` (the loss the gate promises not to miss);
anything between is **inconclusive**.

A night's moments leave out its wild repeats (:func:`night_moments`):
one repeat that other users' load made 15 times slower or faster must
not move the night, nor widen its spread, as much as the mean of five
would let it (the quality bench's capped recording, docs/gate-evidence.md).
A night of at least 5 repeats measures them by its own
median absolute deviation; one of 3 or 4 (where the night window
holds more than the default nightly's 2), whose own is too often near
0, by the within-night scale pooled over the figure's nights before it (:func:`pooled_scale`: the history's
columns by the nights before each, tonight and the baseline's nights
by the history).  Each verdict lists the repeats its nights left out
(``wild_repeats`` in the gate's record) and the scale used.
"""

import math
import statistics
from dataclasses import replace

from pfsbench.core.errors import NotEnoughSamples
from pfsbench.gate.statistics.stats import (RatioInterval, f_sf,
                                            satterthwaite_df, t_quantile)
from pfsbench.gate.statistics.values import expm1
# The lookback rule's view of one night (lb.night_moments to its users).
from pfsbench.gate.statistics.stats import (  # noqa: F401
    night_moments, pooled_scale)


def log_moments(night, pooled_cv2=None):
    """``(ln mean, within-night variance of ln mean)`` of one night.

    Args:
        night: :class:`~pfsbench.gate.statistics.stats.Moments` (mean > 0).
        pooled_cv2: squared coefficient of variation used when the night
            has a single sample (no spread of its own).

    Returns:
        ``(x, e)``; ``e`` is ``None`` for one sample without
        ``pooled_cv2``.
    """
    x = math.log(night.mean)
    if night.n > 1 and night.variance is not None:
        return x, night.variance / (night.n * night.mean ** 2)

    if pooled_cv2 is None:
        return x, None

    return x, pooled_cv2 / night.n


def not_positive(level, current, segments):
    """How many of the nights the rule would read have a mean that is not
    positive (0: a spread or a skew of one stream, which is a real
    value): the log scale, and so the rule, does not apply to them."""
    nights = [current, *level, *(n for seg in segments for n in seg)]
    return sum(1 for n in nights if not n.mean > 0)


def pooled_cv2(nights):
    """Squared coefficient of variation pooled over nights with a spread
    (weighted by their degrees of freedom), or ``None``."""
    num = den = 0.0
    for night in nights:
        if night.n > 1 and night.variance is not None and night.mean > 0:
            num += (night.n - 1) * night.variance / night.mean ** 2
            den += night.n - 1

    return num / den if den else None


#: Fewer nights than this keep their outliers: the MAD of a handful of
#: nights is too unstable a scale (a night 10 % off would count as an
#: outlier among five that agree by chance, and the noise would be
#: underestimated).
MIN_NIGHTS_FOR_OUTLIERS = 8


def drop_outliers(nights, limit, clamp=False):
    """Nights whose log mean lies within ``limit`` robust z-scores of the
    median; with fewer than :data:`MIN_NIGHTS_FOR_OUTLIERS` nights, all.

    The scale is the MAD (x 1.4826) of the log means, but never less
    than the typical within-night spread of a night mean: a few nights
    that agree closely must not make a night that differs only by its
    repeats' noise an outlier.

    ``clamp``, for the night noise: an outlier is kept, moved to the
    limit (winsorised).  The MAD of 20 nights is a noisy scale: it
    leaves out an ordinary night in many months, and the noise of the
    rest, dropped, was too small (unchanged nights paged 1.5 times too
    often beyond p = 0.01/12; docs/gate-evidence.md, "The far tail");
    at the limit the night still counts, a disturbed one no more than
    the limit.

    Args:
        nights: :class:`~pfsbench.gate.statistics.stats.Moments` list.
        limit: the largest robust z kept (e.g. 3.5); ``None`` keeps all.
        clamp: keep the outliers at the limit in ``kept``.

    Returns:
        ``(kept, dropped)`` lists, in order (``dropped``: the outliers
        as they were).
    """
    if limit is None or len(nights) < MIN_NIGHTS_FOR_OUTLIERS:
        return list(nights), []

    cv2 = pooled_cv2(nights)
    pairs = [log_moments(n, cv2) for n in nights]
    logs = [x for x, _ in pairs]
    med = statistics.median(logs)
    scale = max(1.4826 * statistics.median(abs(x - med) for x in logs),
                math.sqrt(statistics.median(e or 0.0 for _, e in pairs)))
    if scale == 0.0:
        return list(nights), []

    kept, dropped = [], []
    for night, x in zip(nights, logs):
        if abs(x - med) / scale <= limit:
            kept.append(night)
            continue

        dropped.append(night)
        if clamp:
            ratio = math.exp(med + math.copysign(limit * scale, x - med) - x)
            kept.append(replace(night, mean=night.mean * ratio,
                                variance=None if night.variance is None
                                else night.variance * ratio * ratio))

    return kept, dropped


def night_variance(segments):
    """Night-to-night variance of the log night mean beyond each night's
    own within-night variance (random effects, method of moments).

    Args:
        segments: lists of :class:`~pfsbench.gate.statistics.stats.Moments`,
            one per stretch between intended-change markers (each around its
            own level).

    Returns:
        ``(tau2, df)``: the variance (>= 0) and its degrees of freedom
        (nights minus segments), or ``None`` with fewer than 2 degrees.
    """
    return _variance_of([[_terms(n) for n in seg] for seg in segments])


def _terms(night):
    """What :func:`night_variance` takes of one night: ``(night, ln mean
    or None, own within-night variance or None, pooled_cv2's numerator
    and denominator terms or None)``, each as :func:`log_moments` and
    :func:`pooled_cv2` compute it."""
    x = math.log(night.mean) if night.mean > 0 else None
    own = (night.variance / (night.n * night.mean ** 2)
           if x is not None and night.n > 1 and night.variance is not None
           else None)
    cv2 = ((night.n - 1) * night.variance / night.mean ** 2, night.n - 1) \
        if night.n > 1 and night.variance is not None and night.mean > 0 \
        else None
    return night, x, own, cv2


def _variance_of(segments):
    """:func:`night_variance` of segments of :func:`_terms`: the sums in
    the order :func:`pooled_cv2` and :func:`log_moments` take them."""
    num = den = 0.0
    for seg in segments:
        for _, _, _, part in seg:
            if part is not None:
                num += part[0]
                den += part[1]
    cv2 = num / den if den else None
    parts = []
    for seg in segments:
        if len(seg) < 2:
            continue

        pairs = [(x, own if own is not None else
                  (None if cv2 is None else cv2 / night.n))
                 if x is not None else log_moments(night, cv2)
                 for night, x, own, _ in seg]
        parts.append(([x for x, _ in pairs], [e or 0.0 for _, e in pairs]))
    return _spread_beyond_own(parts)


def _spread_beyond_own(parts):
    """:func:`night_variance` from each segment's (of 2 nights or more)
    ``(log means, within-night variances)``."""
    ss = within = 0.0
    df = count = 0
    for xs, es in parts:
        # fmean of a list, not of a generator: the same fsum, without
        # a generator counting the values.
        mean = statistics.fmean(xs)
        ss += sum([(x - mean) ** 2 for x in xs])
        df += len(xs) - 1
        within += sum(es)
        count += len(xs)

    if df < 2:
        return None

    # The spread of the night means around their level minus what the
    # nights' own repeats explain; the rest is the nights' own noise.
    return max(0.0, ss / df - within / count), df


class NoiseWithout:
    """:func:`night_variance` of ``segments`` without some of their
    nights, each night's terms taken once for every call."""

    def __init__(self, segments):
        self._segments = [[_terms(n) for n in seg] for seg in segments]
        # Where each night is, in order: (segment, position) by value,
        # keyed by the fields a night's equality compares (a tuple hashes
        # in C; the class's hash is a Python call per look-up).
        self._where = {}
        for i, seg in enumerate(self._segments):
            for j, (night, _, _, _) in enumerate(seg):
                self._where.setdefault(
                    (night.mean, night.variance, night.n), []).append((i, j))
        # Where every night has its own within-night variance, the pooled
        # one (over the nights left) is not read: each segment's log
        # means and variances are fixed.
        self._own = all(x is not None and own is not None
                        for seg in self._segments for _, x, own, _ in seg)
        self._columns = [([t[1] for t in seg], [t[2] or 0.0 for t in seg])
                         for seg in self._segments]

    def __call__(self, nights):
        """The variance without ``nights``: each takes out the first
        equal night of the segments not yet taken (as ``list.remove``
        would), or ``None`` as :func:`night_variance`."""
        taken, used = set(), {}
        for night in nights:
            key = (night.mean, night.variance, night.n)
            places = self._where.get(key, ())
            at = used.get(key, 0)
            if at < len(places):
                taken.add(places[at])
                used[key] = at + 1
        if not self._own:
            return _variance_of([[t for j, t in enumerate(seg)
                                  if (i, j) not in taken]
                                 for i, seg in enumerate(self._segments)])
        parts = [(list(xs), list(es)) for xs, es in self._columns]
        for i, j in sorted(taken, reverse=True):
            del parts[i][0][j], parts[i][1][j]
        return _spread_beyond_own([part for part in parts
                                   if len(part[0]) >= 2])


def level(nights, tau2, cv2=None):
    """Inverse-variance weighted level of ``nights`` on the log scale.

    Args:
        nights: the level nights
            (:class:`~pfsbench.gate.statistics.stats.Moments`).
        tau2: night-to-night variance.
        cv2: pooled squared CV for single-sample nights.

    Returns:
        ``(level, variance of level)``.
    """
    return level_of([log_moments(n, cv2) for n in nights], tau2)


def level_of(pairs, tau2):
    """:func:`level` of the nights' :func:`log_moments` ``pairs`` (the
    pooled windows weigh the same level nights at each window's noise)."""
    weights = [1.0 / (tau2 + (e or 0.0)) if tau2 + (e or 0.0) > 0 else 1e12
               for _, e in pairs]
    total = sum(weights)
    return (sum(w * x for w, (x, _) in zip(weights, pairs)) / total,
            1.0 / total)


def change_df(parts, tau_df):
    """Degrees of freedom of a change's variance ``[(var, df), ...]``
    (the night noise's part first): Satterthwaite's, but never more than
    the night means carry (``tau_df``), rounded down to a tenth (a
    slightly wider interval; the t quantiles of a thousand variables
    come from a small cache), at least 1.

    With equal repeats a night, tonight's mean less the level's has the
    variance ``(tau^2 + s^2/R)(1 + 1/L)`` and the night means' spread
    estimates it with their own degrees of freedom: a t on those is
    exact.  Where the night noise comes out near 0, Satterthwaite's
    rule alone credits the repeats' ``(R - 1) L`` degrees of freedom,
    and unchanged nights paged 2-3 times too often in the far tail
    (docs/gate-evidence.md, "The far tail")."""
    df = min(satterthwaite_df(parts), max(tau_df, 1))
    if math.isinf(df):
        return df

    return max(1.0, math.floor(df * 10.0) / 10.0)


def interval(level_nights, current, noise, confidence=0.95):
    """Interval of tonight's relative change against the level.

    Args:
        level_nights: nights that set the level (at least one).
        current: tonight's :class:`~pfsbench.gate.statistics.stats.Moments`.
        noise: ``(tau2, df)`` from :func:`night_variance`.
        confidence: two-sided coverage.

    Returns:
        A :class:`~pfsbench.gate.statistics.stats.RatioInterval` with
        ``night_floor=True``; ``cv2_base`` is the level's variance and
        ``cv2_cur`` tonight's within-night variance of its log mean.

    Raises:
        NotEnoughSamples: no level night, or a mean that is not positive.
    """
    if not level_nights:
        raise NotEnoughSamples('no night to take the level from')

    if current.mean <= 0 or any(n.mean <= 0 for n in level_nights):
        raise NotEnoughSamples('means must be positive for a ratio')

    tau2, tau_df = noise
    cv2 = pooled_cv2(level_nights)
    cv2_df = sum(n.n - 1 for n in level_nights if n.n > 1)
    mu, var_mu = level(level_nights, tau2, cv2)
    x_c, own = log_moments(current)
    # Tonight's within-night variance: its own spread weighs it, but
    # never less than the level nights' pooled one (a few repeats that
    # agree by chance must not make a narrow interval).  Unless an F
    # test says tonight's spread grew (Otava's change in spread), it is
    # the same spread, measured by the level nights and by tonight: the
    # degrees of freedom of the better measure.  (The level's alone made a
    # site's first week blind: a baseline of one night of 2 repeats gave
    # 6 repeats tonight t(1) = 63.7, and a -84 % data=journal night the
    # interval [-100 %, +6e10 %].)
    e_c, e_df = own or 0.0, max(current.n - 1, 1)
    if cv2 is not None:
        e_c = max(e_c, cv2 / current.n)
        if not spread_grew(current, cv2, cv2_df):
            e_df = max(cv2_df, e_df)

    d = x_c - mu
    # The level's variance is partly night noise, partly the repeats'.
    mean_e = statistics.fmean(log_moments(n, cv2)[1] or 0.0
                              for n in level_nights)
    share = tau2 / (tau2 + mean_e) if tau2 + mean_e > 0 else 1.0
    parts = [(tau2 + share * var_mu, max(tau_df, 1)),
             (e_c + (1 - share) * var_mu, e_df)]
    var = sum(v for v, _ in parts)
    df = change_df(parts, tau_df)
    half = 0.0
    if var > 0:
        half = t_quantile(0.5 + confidence / 2.0, df) * math.sqrt(var)

    return RatioInterval(
        change=expm1(d), low=expm1(d - half),
        high=expm1(d + half), confidence=confidence, df=df,
        cv2_base=var_mu, cv2_cur=e_c, n_base=len(level_nights),
        n_cur=current.n, night_floor=True)


def spread_grew(night, cv2, cv2_df, alpha=0.01):
    """Whether a night's relative spread is significantly larger than
    the pooled one of the level nights (one-sided F test).

    Args:
        night: :class:`~pfsbench.gate.statistics.stats.Moments`.
        cv2: pooled squared coefficient of variation of the level.
        cv2_df: its degrees of freedom.
        alpha: the test's level.
    """
    if night.n < 2 or night.variance is None or cv2 <= 0 or cv2_df < 1:
        return False

    ratio = night.variance / night.mean ** 2 / cv2
    return f_sf(ratio, night.n - 1, cv2_df) < alpha


def decide(iv, tolerance, detect, direction):
    """Verdict of the lookback rule (see the module's docstring).

    Args:
        iv: the :class:`~pfsbench.gate.statistics.stats.RatioInterval`.
        tolerance: the smallest change that matters (strict threshold).
        detect: the loss a passing night must rule out (weak threshold,
            >= tolerance).
        direction: ``'higher'`` or ``'lower'`` is better.

    Returns:
        ``(verdict, threshold)``; ``threshold`` is the worse-side
        ``detect`` a pass must rule out.
    """
    sign = 1.0 if direction == 'higher' else -1.0
    if direction not in ('higher', 'lower'):
        raise ValueError(f'direction must be higher or lower, got '
                         f'{direction!r}')

    # In "higher is better" terms: a loss is negative.
    change = sign * iv.change
    low, high = sorted((sign * iv.low, sign * iv.high))
    if high < 0.0 and change < -tolerance:
        return 'regression', -sign * tolerance

    if low > 0.0 and change > tolerance:
        return 'improvement', -sign * tolerance

    if low >= -detect:
        return 'pass', -sign * detect

    return 'inconclusive', -sign * detect


def log_margin(fraction, direction):
    """A relative loss (positive: ``0.1`` is 10 % worse) as its distance
    on the log scale: ``-ln(1 - fraction)`` for higher-is-better,
    ``ln(1 + fraction)`` for lower-is-better (a loss of 100 % or more is
    a doubling there, not a zero; for higher-is-better it is the figure
    at 0 or below, which no finite interval reaches: infinite)."""
    if direction == 'lower':
        return math.log1p(fraction)
    if fraction >= 1.0:
        # A tolerance of 1 or more on MB/s or ops/s (the schema allows
        # up to 10): ln(0) would raise.
        return math.inf

    return -math.log1p(-fraction)


def repeats_to_settle(level_nights, current, noise, detect, confidence,
                      max_repeats=1000, direction='higher'):
    """Repeats per night that would let an unchanged night rule out a
    loss of ``detect`` (in the figure's worse ``direction``), with
    tonight's and the level's spreads as measured.

    Returns:
        The smallest such count (>= 2), ``max_repeats + 1`` if more are
        needed, or ``None`` if the night-to-night noise alone is too
        large (more repeats cannot help).
    """
    tau2, tau_df = noise
    cv2 = pooled_cv2(list(level_nights) + [current]) or 0.0
    p = 0.5 + confidence / 2.0
    margin = log_margin(detect, direction)

    def half(r):
        nights = [type(n)(n.mean, cv2 * n.mean ** 2, r)
                  for n in level_nights]
        _, var_mu = level(nights, tau2, cv2)
        # The degrees of freedom as :func:`interval` would have them with
        # r repeats a night (the repeats' spread pooled over the level
        # nights and tonight): a t quantile of the history's df alone
        # promised 2 repeats to a night whose 2 repeats gave t(1) = 31.8.
        df = change_df([(tau2, max(tau_df, 1)),
                        (cv2 / r + var_mu,
                         max((r - 1) * (len(level_nights) + 1), 1))],
                       tau_df)
        return t_quantile(p, df) * math.sqrt(tau2 + cv2 / r + var_mu)

    if t_quantile(p, max(tau_df, 1)) * math.sqrt(
            tau2 * (1 + 1 / len(level_nights))) >= margin:
        return None

    if half(max_repeats) >= margin:
        return max_repeats + 1

    lo, hi = 1, max_repeats
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if half(mid) < margin:
            hi = mid
        else:
            lo = mid

    return max(hi, 2)


def split_at_markers(nights, markers):
    """Nights split into segments, a new one at each marked night.

    Args:
        nights: in time order.
        markers: per night, whether an intended change begins there.

    Returns:
        A list of non-empty lists.
    """
    segments = [[]]
    for night, marked in zip(nights, markers):
        if marked and segments[-1]:
            segments.append([])

        segments[-1].append(night)

    return [s for s in segments if s]
