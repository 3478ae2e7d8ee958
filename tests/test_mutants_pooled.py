# SPDX-License-Identifier: BSD-3-Clause
"""Pooled nights (pfsbench.gate.judge.pooled): the CUSUM rule and the
label, through their public functions; the mutants bench/mutation.py
found no test of the module reaching (docs/mutation.md)."""

import math

import pytest

from pfsbench.core import clock

from pfsbench.gate.judge import pooled
from pfsbench.gate.statistics.stats import Moments
from test_mutants_store import behind_utc  # noqa: F401 (a fixture)

LEVEL = [Moments(100.0, 4.0, 5)] * 5
NOISE = (0.0025, 10)
SAME = Moments(100.0, 4.0, 5)


def _cusum(nights, direction='higher', h=5.0, max_nights=7, tolerance=0.05):
    return pooled.cusum_test(LEVEL, nights, NOISE, tolerance, direction, h,
                             max_nights)


def test_cusum_finds_a_lasting_loss_from_the_night_it_began():
    out = _cusum([SAME] * 3 + [Moments(60.0, 4.0, 5)] * 3)
    assert out['regression'] is True and out['p'] == 0.0
    assert (out['start'], out['nights']) == (3, 3)
    assert out['change'] == out['low'] == out['high'] == \
        pytest.approx(-0.4)
    # Each lost night adds its own z less the reference k (0.5): the sum
    # over the last 2 of them is 2 z - 2 k, over 3 it is 3 z - 3 k.
    two = _cusum([SAME] * 3 + [Moments(60.0, 4.0, 5)] * 3, max_nights=2)
    assert (two['start'], two['nights']) == (0, 2)
    z = (out['statistic'] + 3 * pooled.CUSUM_K) / 3
    assert two['statistic'] == pytest.approx(2 * z - 2 * pooled.CUSUM_K)
    assert out['statistic'] > 20


def test_cusum_alarms_only_above_its_decision_interval():
    nights = [SAME] * 3 + [Moments(60.0, 4.0, 5)] * 3
    s = _cusum(nights)['statistic']
    assert _cusum(nights, h=s - 0.01)['regression'] is True
    above = _cusum(nights, h=s + 0.01)
    assert above['regression'] is False and above['p'] == 1.0
    assert above['statistic'] == s


def test_cusum_needs_the_change_beyond_the_tolerance():
    out = _cusum([SAME] * 3 + [Moments(60.0, 4.0, 5)] * 3, tolerance=0.5)
    assert out['regression'] is False and out['statistic'] > 20


def test_cusum_of_unchanged_nights_stays_at_zero():
    out = _cusum([SAME] * 4)
    assert out == {'p': 1.0, 'nights': 1, 'start': 3, 'change': 0.0,
                   'low': 0.0, 'high': 0.0, 'regression': False,
                   'statistic': 0.0}


def test_cusum_of_a_lower_is_better_figure_finds_a_rise():
    out = _cusum([SAME] * 3 + [Moments(140.0, 4.0, 5)] * 3, 'lower')
    assert out['regression'] is True
    assert (out['start'], out['nights']) == (3, 3)
    assert out['change'] == pytest.approx(0.4)
    # A drop is no loss of a lower-is-better figure.
    down = _cusum([SAME] * 3 + [Moments(60.0, 4.0, 5)] * 3, 'lower')
    assert down['regression'] is False and down['statistic'] == 0.0


def test_cusum_needs_two_nights_and_a_level():
    assert _cusum([Moments(60.0, 4.0, 5)]) is None
    assert _cusum([SAME, SAME], max_nights=1) is None
    assert pooled.cusum_test([], [SAME] * 3, NOISE, 0.05, 'higher', 5.0,
                             7) is None


def test_pooled_test_picks_the_rule():
    nights = [SAME] * 3 + [Moments(60.0, 4.0, 5)] * 3
    assert pooled.pooled_test('cusum', LEVEL, nights, NOISE, 0.05,
                              'higher', 0.005, 7, cusum_h=5.0) == \
        _cusum(nights)
    assert pooled.pooled_test('cusum', LEVEL, nights, NOISE, 0.05, 'higher',
                              0.005, 7, cusum_h=30.0)['regression'] is False
    assert pooled.pooled_test('off', LEVEL, nights, NOISE, 0.05,
                              'higher', 0.005, 7) is None


def test_label_of_tonight_and_the_nights_together():
    assert pooled.label(0.48, 0.22, 4, '2026-11-20') == (
        'detects >= 48% tonight, >= 22% over the 4 nights since 2026-11-20')
    assert pooled.label(0.48, 0.22, 2, None) == (
        'detects >= 48% tonight, >= 22% over the 2 nights')
    assert pooled.label(None, 0.22, 3, '') == (
        'detects no loss tonight, >= 22% over the 3 nights')
    assert pooled.label(0.48, 0.22, 1, 'x') == 'detects >= 48% tonight'
    assert pooled.label(0.48, None, 4, 'x') == 'detects >= 48% tonight'


def test_day_is_the_utc_date():
    assert clock.utc_day(None) is None
    assert clock.utc_day(0) == '1970-01-01'
    assert clock.utc_day(86399.9) == '1970-01-01'
    assert clock.utc_day(1764374400) == '2025-11-29'


def test_pooled_tests_cusum_interval_is_five_by_default():
    # 12 % lost on the last 3 nights sums to between 5 and 6.
    nights = [SAME] * 3 + [Moments(88.0, 4.0, 5)] * 3
    out = pooled.pooled_test('cusum', LEVEL, nights, NOISE, 0.05, 'higher',
                             0.005, 7)
    assert 5.0 < out['statistic'] < 6.0
    assert out['regression'] is True


@pytest.mark.usefixtures('behind_utc')
def test_day_is_the_utc_date_whatever_the_local_zone():
    assert clock.utc_day(0) == '1970-01-01'
    assert clock.utc_day(86399.9) == '1970-01-01'


def test_detect_inputs_need_two_nights_and_a_level():
    assert pooled.detect_inputs(LEVEL, 1, NOISE, 0.05, 'higher', 7) is None
    assert pooled.detect_inputs([], 3, NOISE, 0.05, 'higher', 7) is None
    two = pooled.detect_inputs(LEVEL, 2, NOISE, 0.05, 'higher', 7)
    assert two['direction'] == 'higher' and two['tolerance'] == 0.05
    # At most max_nights count.
    assert pooled.detect_inputs(LEVEL, 9, NOISE, 0.05, 'higher', 2) == two


def test_detects_at_the_default_power_and_each_direction():
    args = (LEVEL, 4, NOISE, 0.05)
    higher = pooled.detects(*args, 'higher', 0.005, 7)
    assert higher == pooled.detects(*args, 'higher', 0.005, 7, power=0.90)
    assert higher > pooled.detects(*args, 'higher', 0.005, 7, power=0.5)
    assert pooled.detects(*args, 'lower', 0.005, 7) > higher


def test_cusum_of_a_lower_is_better_rise_mirrors_a_loss():
    # Nights of one relative spread: a rise by e^0.3 of a lower-is-better
    # figure sums as a drop by e^-0.3 of a higher-is-better one.
    def nights(factor):
        mean = 100.0 * math.exp(factor)
        return [SAME] * 3 + [Moments(mean, (0.02 * mean) ** 2, 5)] * 3

    up = _cusum(nights(0.3), 'lower')
    down = _cusum(nights(-0.3), 'higher')
    assert up['statistic'] == pytest.approx(down['statistic'], rel=1e-9)
    assert up['statistic'] > 5.0


def test_cusum_alarms_only_above_its_interval_not_at_it():
    nights = [SAME] * 3 + [Moments(60.0, 4.0, 5)] * 3
    s = _cusum(nights)['statistic']
    assert _cusum(nights, h=s)['regression'] is False
