# SPDX-License-Identifier: BSD-3-Clause
"""Tests that bite on the gate's statistics: each fails on a hand-made
mutation that the suite once let through (docs/gate-method.md):

1. Holm's bound ``alpha / (m - rank)`` replaced by ``alpha / m``: a
   step-down whose first step passes and whose second decides;
2. the pooled window's trim dropping its best night instead of its worst:
   a -50 % night followed by a normal one is no lasting loss;
3. ``pooled_scale``'s upper quartile replaced by the median;
4. the windows' correction (the null distribution of their smallest
   p-value) replaced by Bonferroni's, or made smaller than the truth.
"""

import math
import random
import statistics

import pytest

from pfsbench.gate.judge import budget, pooled
from pfsbench.gate.statistics.stats import (Moments, both_below,
                                            min_p_bound, pooled_scale)


def test_holm_steps_down_to_the_second_bound():
    # 0.004 < 0.015 / 3 passes the first step; 0.006 is above 0.015 / 3
    # but below 0.015 / 2: only the step-down rejects it.
    assert budget.holm([0.006, 0.5, 0.004], 0.015) == [True, False, True]
    # The third step: 0.5 is not below 0.015.
    assert budget.holm([0.004, 0.006, 0.014], 0.015) == [True, True, True]


def _flat(mean, n=5, cv=0.01):
    return Moments(mean, (cv * mean) ** 2, n)


def test_one_wild_night_and_a_normal_one_are_no_lasting_loss():
    # Mean of the two -35 %, median -35 %: without its worst night the
    # window is at the level, so it is no loss that lasts.
    level = [_flat(100.0) for _ in range(6)]
    found = pooled.window_test(level, [_flat(50.0), _flat(100.0)],
                               (0.03 ** 2, 10), 0.05, 'higher', 0.005, 7)
    assert found['p'] < 0.005          # the window is far off the level
    assert not found['regression'], found
    # Two nights at -50 % are.
    found = pooled.window_test(level, [_flat(50.0), _flat(50.0)],
                               (0.03 ** 2, 10), 0.05, 'higher', 0.005, 7)
    assert found['regression'], found


def test_the_pooled_scale_is_the_upper_quartile():
    spreads = [0.01 * i for i in range(1, 9)]
    # statistics.quantiles' default (exclusive) upper quartile of 1..8 is
    # 6.75; the median is 4.5.
    assert pooled_scale(spreads) == pytest.approx(0.0675)
    assert pooled_scale(spreads) > statistics.median(spreads) + 0.02


def test_both_below_is_the_bivariate_normal():
    normal = statistics.NormalDist()
    for h in (-2.5, -1.0, 0.3):
        assert both_below(h, 0.0) == pytest.approx(normal.cdf(h) ** 2)
        assert both_below(h, 1.0) == pytest.approx(normal.cdf(h), rel=1e-6)
    # P(Z1 <= 0, Z2 <= 0) = 1/4 + asin(rho) / (2 pi) (Sheppard).
    for rho in (0.3, 0.7, 0.95):
        assert both_below(0.0, rho) == pytest.approx(
            0.25 + math.asin(rho) / (2 * math.pi), rel=1e-6)


def _simulated_min_p(ses, a, v, p, trials, seed):
    """How often the smallest p-value of windows of the newest 2, 3, ...
    nights (each night's deviation of variance ``a``, the level's error of
    variance ``v``) is ``p`` or less, with no change."""
    rng = random.Random(seed)
    h = statistics.NormalDist().inv_cdf(p)
    hits = 0
    for _ in range(trials):
        shared = rng.gauss(0.0, math.sqrt(v))
        total = 0.0
        for k in range(1, len(ses) + 2):
            total += rng.gauss(0.0, math.sqrt(a))
            if k >= 2 and (total / k + shared) / ses[k - 2] <= h:
                hits += 1
                break
    return hits / trials


@pytest.mark.parametrize('v', [0.0, 0.2])
def test_the_windows_correction_is_their_smallest_p_values_own(v):
    # 6 windows (7 nights): the bound is at or above the simulated rate
    # (never lets more through) and within 20 % of it, where Bonferroni's
    # 6 p is about twice it.
    a, p = 1.0, 0.005
    ses = [math.sqrt(a / k + v) for k in range(2, 8)]
    simulated = _simulated_min_p(ses, a, v, p, 40000, seed=3)
    bound = min_p_bound(p, ses)
    spread = 2.0 * math.sqrt(simulated / 40000)
    assert simulated - spread <= bound <= 1.2 * simulated + spread
    assert bound < 0.7 * len(ses) * p
    # A single window is its own p; independent windows are Bonferroni's
    # (nearly: 1 - (1 - p)^2 for 2).
    assert min_p_bound(p, ses[:1]) == p
    assert min_p_bound(p, [1.0, 1e-9]) == pytest.approx(
        1 - (1 - p) ** 2, rel=1e-3)


def test_the_detects_label_is_the_budgeted_one():
    # Tonight's rule judges at 0.5 %; over 10 families at 1 % a lone loss
    # must reach 0.1 %: the label names what the figure finds there.
    from pfsbench.gate.judge.sensitivity import sensitivity
    rows = []
    for i in range(10):
        own = sensitivity(0.05 ** 2, 20, 0.005, 0.05, 0.10, 'higher', 5,
                          0.04 ** 2, 0.02 ** 2, 8)
        rows.append({'case': 'c', 'var': f'phase{i}_bw', 'unit': 'MB/s',
                     'verdict': 'pass', 'reason': 'r',
                     'base': {'values': [float(i), 1.0]},
                     'cur': {'values': [float(i), 2.0]},
                     'lookback': {'p': 0.5}, 'sensitivity': own})
    found = budget.apply(rows, 0.01)
    assert found['families'] == 10
    budget.label_detects(rows, found)
    budgeted = rows[0]['sensitivity']
    assert budgeted['alpha'] == pytest.approx(0.001)
    assert budgeted['detects'] > own['detects'] + 0.02
    assert rows[0]['reason'].startswith(
        f'r; detects >= {budgeted["detects"]:.0%}'), rows[0]['reason']
