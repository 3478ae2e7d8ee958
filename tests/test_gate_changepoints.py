# SPDX-License-Identifier: BSD-3-Clause
"""Change-point detection on nightly series."""

import random

import pytest

from pfsbench.gate.statistics.changepoints import detect, median3


def _series(n, steps, noise=0.02, seed=0):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        level = 100.0
        for at, factor in steps:
            if i >= at:
                level *= factor

        out.append(level * (1 + noise * rng.gauss(0, 1)))

    return out


def test_finds_one_step_where_it_begins():
    cps = detect(_series(60, [(40, 0.8)]), min_change=0.05)
    assert [c.index for c in cps] == [40]
    assert cps[0].change == pytest.approx(-0.2, abs=0.03)


def test_finds_two_steps():
    cps = detect(_series(90, [(30, 1.3), (60, 0.7)]), min_change=0.05)
    assert [c.index for c in cps] == [30, 60]


def test_quiet_series_and_single_outlier_give_nothing():
    values = _series(120, [])
    assert detect(values, min_change=0.05) == []
    values[50] *= 0.3          # one bad night is not a step
    assert detect(values, min_change=0.05) == []


def test_small_step_below_min_change_is_ignored():
    values = _series(60, [(30, 0.97)], noise=0.002)
    assert detect(values, min_change=0.05) == []
    assert [c.index for c in detect(values, min_change=0.01)] == [30]


def test_median3_keeps_steps():
    assert median3([1, 1, 9, 1, 1, 5, 5, 5]) == [1, 1, 1, 1, 1, 5, 5, 5]
