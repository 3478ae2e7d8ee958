# SPDX-License-Identifier: BSD-3-Clause
"""Step changes in a nightly series (robust binary segmentation).

Method (docs/gate-method.md, "History and change points"):

1. Work on ``x = ln(y)`` so that a step is a relative change and the noise
   of a rate is roughly constant.
2. Remove isolated outliers with a running median of 3 (a one-night spike
   vanishes, a step keeps its position).
3. Estimate the noise from first differences, which a few steps barely
   touch: ``sigma = 1.4826 * MAD(diff(x)) / sqrt(2)``.
4. Binary segmentation: in a segment, the split ``k`` maximising
   ``T = |mean(left) - mean(right)| / (sigma * sqrt(1/n_left + 1/n_right))``
   is a change point if ``T > threshold`` and the relative step
   ``exp(mean(right) - mean(left)) - 1`` is at least ``min_change``; then
   both halves are searched again.  Segments are at least ``min_segment``
   long.

No dependency beyond the stdlib; a series of 365 nights takes well under
a millisecond per level.
"""

import functools
import itertools
import math
import statistics
from dataclasses import dataclass

from pfsbench.gate.statistics.stats import diff_sigma


@dataclass(frozen=True)
class ChangePoint:
    """A step that begins at ``index`` of the series.

    Attributes:
        index: position of the first value after the step.
        before: mean of the segment before (original scale, geometric).
        after: mean of the segment after (original scale, geometric).
        change: ``after/before - 1``.
        score: the statistic ``T`` of the split.
    """

    index: int
    before: float
    after: float
    change: float
    score: float


def median3(values):
    """Running median of width 3; the ends are kept.  Each is
    ``max(min(a, b), min(max(a, b), c))``, with the builtins' choice on
    ties (``min`` keeps the first of equal values, ``max`` too), written
    out: a year of nights per figure."""
    n = len(values)
    if n < 3:
        return list(values)

    out = [values[0]]
    append = out.append
    a, b = values[0], values[1]
    for i in range(2, n):
        c = values[i]
        low = b if b < a else a
        high = b if b > a else a
        mid = c if c < high else high
        append(mid if mid > low else low)
        a, b = b, c
    append(values[-1])
    return out


def noise_sigma(x):
    """Robust standard deviation of the noise of ``x`` (from first
    differences, so steps barely count)."""
    if len(x) < 3:
        return 0.0

    return diff_sigma(x)


def detect(values, threshold=5.0, min_segment=3, min_change=0.0,
           sigma_floor=1e-4):
    """Change points of a positive series.

    Args:
        values: the series (e.g. one variable's per-session means), > 0.
        threshold: minimal split statistic ``T`` (a z-score).
        min_segment: minimal number of values on each side of a step.
        min_change: minimal relative step to report (e.g. the tolerance).
        sigma_floor: lower bound of the log-scale noise, so a perfectly
            constant series does not make every wiggle a step.

    Returns:
        A list of :class:`ChangePoint`, by index.
    """
    for v in values:
        if v is None or v <= 0:
            raise ValueError('change-point detection needs positive values')

    n = len(values)
    if n < 2 * min_segment:
        return []

    x = median3(list(map(math.log, values)))
    sigma = max(noise_sigma(x), sigma_floor)
    # The running sums, each the previous one plus the next value.
    prefix = list(itertools.accumulate(x, initial=0.0))

    found = []

    def search(lo, hi):
        n = hi - lo
        splits = _splits(n, min_segment)
        if not splits:
            return

        # T^2 sigma^2 = (nl S - n Sl)^2 / (nl nr n) with Sl the left sum
        # and S the segment's: no square root nor division per split;
        # each split's counts as the floats the products convert them to
        # (_splits), its left sum read in step.
        base, total = prefix[lo], prefix[hi] - prefix[lo]
        size = float(n)
        scores = [(nl * total - size * (sums - base)) ** 2 / product
                  for (nl, product), sums in zip(splits,
                                                 prefix[lo + min_segment:])]
        best_k = lo + min_segment + scores.index(max(scores))
        nl, nr = best_k - lo, hi - best_k
        best_step = (prefix[hi] - prefix[best_k]) / nr - \
            (prefix[best_k] - base) / nl
        best = abs(best_step) / (sigma * math.sqrt(1.0 / nl + 1.0 / nr))
        if best <= threshold or abs(math.expm1(best_step)) < min_change:
            return

        # Its before/after means are refitted once every step is known.
        found.append((best_k, best))
        search(lo, best_k)
        search(best_k, hi)

    search(0, n)
    return _refit(sorted(found), x)


@functools.lru_cache(maxsize=256)
def _splits(n, min_segment):
    """The splits of a segment of ``n`` values with at least
    ``min_segment`` on each side: ``((nl, nl * nr), ...)`` as floats
    (exact: the counts are far below 2**53, and an int meets a float in
    an arithmetic operation as this float), by left count.  A year of
    nights has the same few segment lengths in every figure."""
    return tuple((float(nl), float(nl * (n - nl)))
                 for nl in range(min_segment, n - min_segment + 1))


def _refit(splits, x):
    """Change points from ``[(index, score)]`` (sorted), each step's
    before/after means taken between its neighbouring steps."""
    out = []
    bounds = [0] + [k for k, _ in splits] + [len(x)]
    for i, (k, score) in enumerate(splits):
        ml = statistics.fmean(x[bounds[i]:k])
        mr = statistics.fmean(x[k:bounds[i + 2]])
        out.append(ChangePoint(index=k, before=math.exp(ml),
                               after=math.exp(mr), change=math.expm1(mr - ml),
                               score=score))

    return out
