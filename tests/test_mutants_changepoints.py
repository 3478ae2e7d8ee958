# SPDX-License-Identifier: BSD-3-Clause
"""Step changes of a nightly series (pfsbench.gate.statistics.changepoints)
through its public functions, one test per mutant that bench/mutation.py
found the rest of the fast lane letting through (docs/mutation.md).

The reference below is the method of the module's docstring written
naively (each split's T from its two segments' means), so the prefix sums
and the squared score of ``detect`` are checked against the definition."""

import math
import random
import statistics

import pytest

from pfsbench.gate.statistics import changepoints as cp
from pfsbench.gate.statistics.stats import diff_sigma


def _reference(values, threshold, min_segment, min_change, floor=1e-4):
    x = cp.median3([math.log(v) for v in values])
    sigma = max(diff_sigma(x) if len(x) >= 3 else 0.0, floor)
    found = []

    def search(lo, hi):
        best = None
        for k in range(lo + min_segment, hi - min_segment + 1):
            step = statistics.fmean(x[k:hi]) - statistics.fmean(x[lo:k])
            t = abs(step) / (sigma * math.sqrt(1 / (k - lo) + 1 / (hi - k)))
            if best is None or t > best[1]:
                best = (k, t, step)
        if best is None or best[1] <= threshold or \
                abs(math.expm1(best[2])) < min_change:
            return
        found.append(best[:2])
        search(lo, best[0])
        search(best[0], hi)

    search(0, len(x))
    found.sort()
    bounds = [0] + [k for k, _ in found] + [len(x)]
    out = []
    for i, (k, t) in enumerate(found):
        ml = statistics.fmean(x[bounds[i]:k])
        mr = statistics.fmean(x[k:bounds[i + 2]])
        out.append((k, math.exp(ml), math.exp(mr), math.expm1(mr - ml), t))
    return out


def _noisy(n, steps, noise, seed):
    rng = random.Random(seed)
    level, out = 100.0, []
    for i in range(n):
        level *= dict(steps).get(i, 1.0)
        out.append(level * math.exp(noise * rng.gauss(0, 1)))
    return out


@pytest.mark.parametrize('values, min_segment, min_change', [
    (_noisy(60, [(12, 1.25), (30, 0.8), (44, 1.3)], 0.03, 1), 3, 0.05),
    (_noisy(40, [(5, 0.7), (18, 1.4), (33, 0.75)], 0.05, 2), 4, 0.0),
    (_noisy(30, [(3, 1.5), (26, 0.6)], 0.02, 3), 2, 0.1),
])
def test_detect_is_the_method_of_its_definition(values, min_segment,
                                                min_change):
    want = _reference(values, 5.0, min_segment, min_change)
    assert len(want) >= 2
    got = cp.detect(values, min_segment=min_segment, min_change=min_change)
    assert [c.index for c in got] == [w[0] for w in want]
    for c, (_, before, after, change, score) in zip(got, want):
        assert c.before == pytest.approx(before, rel=1e-9)
        assert c.after == pytest.approx(after, rel=1e-9)
        assert c.change == pytest.approx(change, rel=1e-9, abs=1e-12)
        assert c.score == pytest.approx(score, rel=1e-9)


def _alternating(n, at, factor, d=0.01):
    return [(factor if i >= at else 1.0) * math.exp(d if i % 2 else -d)
            for i in range(n)]


def test_default_threshold_is_five():
    values = _alternating(20, 10, 1.055)
    score = [c.score for c in cp.detect(values, threshold=0)
             if c.index == 10]
    assert score and 5.0 < score[0] < 6.0
    assert [c.index for c in cp.detect(values)] == [10]
    assert cp.detect(values, threshold=score[0]) == []


def test_a_split_at_exactly_the_threshold_or_min_change_is_no_step():
    one = cp.detect([1.0, 2.0], min_segment=1)
    assert [c.index for c in one] == [1]
    assert one[0].before == 1.0 and one[0].after == 2.0
    assert cp.detect([1.0, 2.0], min_segment=1, threshold=one[0].score) == []
    assert cp.detect([1.0, 2.0], min_segment=1,
                     min_change=one[0].change) == [one[0]]
    assert cp.detect([1.0, 2.0], min_segment=1,
                     min_change=math.nextafter(one[0].change, 2)) == []


def test_the_shortest_series_with_a_step_and_the_default_segment():
    assert [c.index for c in cp.detect([1.0, 1, 1, 1.5, 1.5, 1.5])] == [3]
    assert cp.detect([1.0, 1, 1, 1.5, 1.5]) == []


def test_min_change_is_read_in_the_steps_own_direction():
    # A fall to 0.8 is a change of -20 %, a rise back +25 %.
    values = [1.0] * 5 + [0.8] * 5
    assert [c.index for c in cp.detect(values, min_change=0.19)] == [5]
    assert cp.detect(values, min_change=0.22) == []


def test_a_step_at_the_last_split_a_segment_allows():
    values = [1.0] * 7 + [2.0] * 2
    assert [c.index for c in cp.detect(values, min_segment=3)] == [6]
    values = [1.0] * 6 + [2.0] * 3
    assert [c.index for c in cp.detect(values, min_segment=3)] == [6]


def test_values_below_one_are_values():
    values = [0.5] * 4 + [0.25] * 4
    assert [c.index for c in cp.detect(values)] == [4]


@pytest.mark.parametrize('bad', [0.0, -1.0, None])
def test_a_value_not_positive_is_named(bad):
    with pytest.raises(ValueError) as refused:
        cp.detect([1.0, 2.0, bad, 3.0, 1.0, 2.0])
    assert str(refused.value) == \
        'change-point detection needs positive values'


def test_median3_keeps_both_ends_and_smooths_three():
    assert cp.median3([5, 1, 2, 9]) == [5, 2, 2, 9]
    assert cp.median3([3, 1, 2]) == [3, 2, 2]
    assert cp.median3([1, 2]) == [1, 2]
    assert cp.median3([]) == []


def test_noise_sigma_from_three_values_up():
    assert cp.noise_sigma([0.0, 1.0]) == 0.0
    assert cp.noise_sigma([0.0, 1.0, 3.0]) == \
        pytest.approx(1.4826 * 0.5 / math.sqrt(2))
