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


# By hand: the rules as docs/gate.md ("Pooled nights") states them, on
# nights of unequal spread and count, from the lookback rule's public
# level and noise functions.

from pfsbench.gate.judge import lookback  # noqa: E402
from pfsbench.gate.statistics.stats import (min_p_bound, t_cdf,  # noqa: E402
                                            t_quantile)

UNEQUAL = [Moments(100.0, 9.0, 4), Moments(102.0, 1.0, 6),
           Moments(98.0, 25.0, 3), Moments(101.0, 4.0, 5)]


def _x_e(night, cv2):
    """A night's log mean and its within-night variance, never below the
    level's pooled one."""
    own = night.variance / (night.n * night.mean ** 2) if night.n > 1 \
        else 0.0
    return math.log(night.mean), max(own, cv2 / night.n)


def _cusum_by_hand(level, nights, noise, tolerance, direction, h):
    sign = 1.0 if direction == 'higher' else -1.0
    cv2 = lookback.pooled_cv2(level)
    mu, var_mu = lookback.level(level, noise[0], cv2)
    s, start = 0.0, 0
    pairs = [_x_e(n, cv2) for n in nights]
    for i, (x, e) in enumerate(pairs):
        s = max(0.0, s - sign * (x - mu) / math.sqrt(noise[0] + e + var_mu)
                - 0.5)
        if s == 0.0:
            start = i + 1
    start = min(start, len(nights) - 1)
    d = sum(x for x, _ in pairs[start:]) / (len(nights) - start) - mu
    alarm = s > h and sign * d < -lookback.log_margin(tolerance, direction)
    return s, start, d, alarm


@pytest.mark.parametrize('direction, scale, level', [
    ('higher', 0.8, UNEQUAL), ('lower', 1.25, UNEQUAL),
    # A level night of one repeat takes the pooled spread.
    ('higher', 0.8, UNEQUAL + [Moments(99.0, None, 1)]),
    ('lower', 1.25, UNEQUAL + [Moments(99.0, None, 1)])])
def test_cusum_by_hand_on_nights_of_unequal_spread(direction, scale, level):
    nights = [Moments(100.0 / scale ** 0.2, 1.0, 3),
              Moments(100.0 * scale, 36.0, 7),
              Moments(95.0 * scale, 0.25, 2), Moments(97.0 * scale, 16.0, 4)]
    out = pooled.cusum_test(level, nights, (0.0004, 6), 0.05, direction,
                            2.0, 7)
    s, start, d, alarm = _cusum_by_hand(level, nights, (0.0004, 6), 0.05,
                                        direction, 2.0)
    assert alarm is True and start == 1
    assert out['statistic'] == pytest.approx(s, rel=1e-12)
    assert (out['start'], out['nights']) == (start, 3)
    assert out['change'] == pytest.approx(math.expm1(d), rel=1e-12)
    # Just above the statistic, no alarm; the change at the tolerance's
    # margin is no loss beyond it.
    assert pooled.cusum_test(level, nights, (0.0004, 6), 0.05, direction,
                             s * (1 + 1e-9), 7)['regression'] is False
    assert pooled.cusum_test(level, nights, (0.0004, 6), 0.05, direction,
                             s * (1 - 1e-9), 7)['regression'] is True
    loss = -math.expm1(d) if direction == 'higher' else math.expm1(d)
    for tolerance, found in [(loss * (1 - 1e-9), True),
                             (loss * (1 + 1e-9), False)]:
        assert pooled.cusum_test(level, nights, (0.0004, 6), tolerance,
                                 direction, 2.0, 7)['regression'] is found


def _window_by_hand(level, nights, noise, tolerance, direction, alpha):
    sign = 1.0 if direction == 'higher' else -1.0
    tau2, tau_df = noise
    cv2 = lookback.pooled_cv2(level)
    cv2_df = max(sum(n.n - 1 for n in level), 1)
    mean_e = sum(n.variance / (n.n * n.mean ** 2) if n.n > 1 else cv2 / n.n
                 for n in level) / len(level)
    mu, var_mu = lookback.level(level, tau2, cv2)
    share = tau2 / (tau2 + mean_e)
    pairs = [_x_e(n, cv2) for n in nights]
    margin = lookback.log_margin(tolerance, direction)
    found = []
    for k in range(2, len(nights) + 1):
        win = pairs[-k:]
        d = sum(x for x, _ in win) / k - mu
        e = sum(e for _, e in win) / k
        parts = [(tau2 / k + share * var_mu, tau_df),
                 (e / k + (1 - share) * var_mu, cv2_df)]
        se = math.sqrt(parts[0][0] + parts[1][0])
        df = lookback.change_df(parts, tau_df)
        each = sorted(sign * (x - mu) for x, _ in win)
        rest = sum(each[1:]) / (k - 1)
        beyond = sign * d < -margin and each[(k - 1) // 2] < -margin \
            if k % 2 else sign * d < -margin and \
            (each[k // 2 - 1] + each[k // 2]) / 2 < -margin
        found.append({'k': k, 'd': d, 'se': se, 'df': df,
                      'p': t_cdf(sign * d / se, df),
                      'beyond': beyond and rest < -margin})
    best = max(found, key=lambda f: (f['beyond'], -f['p']))
    return best, [f['se'] for f in found]


@pytest.mark.parametrize('direction, scale, level, noise', [
    ('higher', 0.85, UNEQUAL, (0.0004, 6)),
    ('lower', 1.18, UNEQUAL, (0.0004, 6)),
    # Many nights of history: Satterthwaite's df decides (the night
    # noise's share of the level, the level nights' spread).
    ('higher', 0.85, UNEQUAL + [Moments(99.0, None, 1)], (0.0004, 1000)),
    ('lower', 1.18, [Moments(100.0, 4.0, 2), Moments(101.0, 9.0, 2),
                     Moments(99.0, None, 1)], (0.00002, 1000)),
])
def test_window_by_hand_on_nights_of_unequal_spread(direction, scale, level,
                                                    noise):
    nights = [Moments(101.0, 4.0, 5), Moments(100.0 * scale, 36.0, 7),
              Moments(96.0 * scale, 0.25, 2), Moments(99.0 * scale, 16.0, 4)]
    out = pooled.window_test(level, nights, noise, 0.05, direction, 0.005,
                             7)
    best, ses = _window_by_hand(level, nights, noise, 0.05, direction,
                                0.005)
    assert best['beyond'] and best['k'] == 3
    assert (out['nights'], out['start']) == (3, 1)
    assert out['windows'] == 3
    assert out['raw_p'] == pytest.approx(best['p'], rel=1e-9)
    assert out['ses'] == pytest.approx(ses, rel=1e-12)
    assert out['se'] == pytest.approx(best['se'], rel=1e-12)
    assert out['df'] == best['df']
    assert out['p'] == pytest.approx(min_p_bound(best['p'], ses), rel=1e-9)
    assert out['change'] == pytest.approx(math.expm1(best['d']), rel=1e-12)
    each = pooled.window_level(0.005, ses)
    assert out['window_alpha'] == each
    half = t_quantile(1.0 - each, best['df']) * best['se']
    assert (out['low'], out['high']) == pytest.approx(
        (math.expm1(best['d'] - half), math.expm1(best['d'] + half)),
        rel=1e-12)
    assert out['regression'] is (out['p'] < 0.005)


def test_window_median_and_worst_night_must_be_beyond_the_tolerance():
    ok = Moments(100.0, 4.0, 5)
    lost = Moments(80.0, 2.56, 5)
    # One lost night among kept ones: the mean may be beyond, never the
    # median or the rest.
    deep = Moments(40.0, 0.64, 5)
    out = pooled.window_test(LEVEL, [ok, ok, deep], NOISE, 0.05, 'higher',
                             0.005, 7)
    assert out['regression'] is False
    out = pooled.window_test(LEVEL, [ok, lost, lost], NOISE, 0.05,
                             'higher', 0.005, 7)
    assert out['regression'] is True and out['nights'] == 2
    assert out['start'] == 1
    # The longest window: max_nights of the newest.
    out = pooled.window_test(LEVEL, [lost] * 6, NOISE, 0.05, 'higher',
                             0.005, 4)
    assert out['windows'] == 3 and len(out['ses']) == 3
    assert pooled.window_test(LEVEL, [lost] * 6, NOISE, 0.05, 'higher',
                              0.005, 1) is None
    assert pooled.window_test([], [lost] * 3, NOISE, 0.05, 'higher',
                              0.005, 7) is None


def test_window_noise_leaves_the_windows_nights_out():
    lost = Moments(80.0, 2.56, 5)
    asked = []

    def without(history):
        asked.append(list(history))
        return (0.0001 * len(history), 3 + len(history))
    out = pooled.window_test(LEVEL, [lost] * 4, NOISE, 0.05, 'higher',
                             0.005, 7, without)
    assert [len(h) for h in asked] == [1, 2, 3]
    plain = pooled.window_test(LEVEL, [lost] * 4, (0.0001, 4), 0.05,
                               'higher', 0.005, 7)
    assert out['ses'][0] == pytest.approx(plain['ses'][0], rel=1e-12)
    assert out['ses'][1] != pytest.approx(plain['ses'][1], rel=1e-6)


def test_pooled_test_window_passes_every_argument_on():
    nights = [Moments(101.0, 4.0, 5), Moments(85.0, 36.0, 7),
              Moments(82.0, 0.25, 2), Moments(84.0, 16.0, 4),
              Moments(83.0, 9.0, 6)]

    def without(history):
        return (0.0004 + 0.0001 * len(history), 6 + len(history))

    for direction, scale in (('higher', 1.0), ('lower', 1.2)):
        shown = [Moments(n.mean * scale, n.variance * scale ** 2, n.n)
                 for n in nights]
        for args in [(0.05, direction, 0.005, 3, without),
                     (0.1, direction, 0.02, 7, without),
                     (0.05, direction, 0.005, 7, None)]:
            want = pooled.window_test(UNEQUAL, shown, (0.0004, 6), *args)
            got = pooled.pooled_test('window', UNEQUAL, shown, (0.0004, 6),
                                     *args[:4], noise_without=args[4])
            assert got == want
    # The arguments differ in what they give.
    outs = [pooled.pooled_test('window', UNEQUAL, nights, (0.0004, 6), *a)
            for a in [(0.05, 'higher', 0.005, 7), (0.2, 'higher', 0.005, 7),
                      (0.05, 'lower', 0.005, 7), (0.05, 'higher', 0.5, 7),
                      (0.05, 'higher', 0.005, 3)]]
    assert len({repr(o) for o in outs}) == 5
    assert outs[0]['regression'] is True


def _detect_inputs_by_hand(level, count, tau2, tau_df, tolerance,
                           direction):
    spread = [n for n in level if n.n > 1]
    dfs = sum(n.n - 1 for n in spread)
    cv2 = (sum((n.n - 1) * n.variance / n.mean ** 2 for n in spread) / dfs
           if dfs else 0.0)
    var_mu = lookback.level(level, tau2, cv2)[1]
    e = cv2 / (sum(n.n for n in level) / len(level))
    share = tau2 / (tau2 + e) if tau2 + e > 0 else 1.0
    parts = [(tau2 / count + share * var_mu, max(tau_df, 1)),
             (e / count + (1 - share) * var_mu, max(dfs, 1))]
    df = lookback.change_df(parts, tau_df)
    return {'se': math.sqrt(parts[0][0] + parts[1][0]),
            'df': None if math.isinf(df) else df,
            'ses': [math.sqrt((tau2 + e) / k + var_mu)
                    for k in range(2, count + 1)],
            'tolerance': tolerance, 'direction': direction}


@pytest.mark.parametrize('level, count, noise', [
    (UNEQUAL + [Moments(99.0, None, 1)], 4, (0.0004, 1000)),
    (UNEQUAL, 6, (0.00001, 1000)),
    ([Moments(100.0, 4.0, 2), Moments(97.0, 1.0, 2)], 3, (0.0002, 1000)),
    ([Moments(100.0, None, 1), Moments(97.0, None, 1)], 5, (0.0004, 8)),
    ([Moments(100.0, 0.0, 3), Moments(97.0, 0.0, 3)], 3, (0.0, 1000)),
    ([Moments(0.5, 0.0004, 3), Moments(0.52, 0.0001, 5)], 3,
     (0.00002, 1000)),
    ([Moments(100.0, 4.0, 2), Moments(97.0, None, 1)], 3, (0.00001, 1000)),
])
def test_detect_inputs_by_hand(level, count, noise):
    got = pooled.detect_inputs(level, count, noise, 0.05, 'higher', 7)
    want = _detect_inputs_by_hand(level, count, *noise, 0.05, 'higher')
    assert got['df'] == want['df']
    assert got['se'] == pytest.approx(want['se'], rel=1e-12)
    assert got['ses'] == pytest.approx(want['ses'], rel=1e-12)
    assert (got['tolerance'], got['direction']) == (0.05, 'higher')


def test_detects_at_by_hand_in_each_direction():
    from itertools import product

    from pfsbench.gate.judge.sensitivity import smallest_log_loss

    # (A small error: the tolerance's margin, of its direction, decides.)
    for direction, df, se in product(('higher', 'lower'), (3.0, None),
                                     (0.02, 0.002)):
        inputs = {'se': se, 'df': df, 'ses': [0.03, 0.025, 0.02],
                  'tolerance': 0.05, 'direction': direction}
        delta = smallest_log_loss(
            se, math.inf if df is None else df,
            pooled.window_level(0.01, inputs['ses']), 0.05, direction,
            'lookback', 0.8)
        want = (math.expm1(delta) if direction == 'lower'
                else -math.expm1(-delta))
        assert pooled.detects_at(inputs, 0.01, 0.8) == \
            pytest.approx(want, rel=1e-12)
    # A loss of all of a higher-is-better figure is none it finds; a
    # lower-is-better one may double.
    wide = {'se': 50.0, 'df': None, 'ses': [50.0], 'tolerance': 0.05,
            'direction': 'higher'}
    assert pooled.detects_at(wide, 0.01) is None
    assert pooled.detects_at(dict(wide, direction='lower'), 0.01) > 1.0


def test_window_of_two_nights_and_a_median_not_beyond():
    ok, lost = Moments(100.0, 4.0, 5), Moments(80.0, 2.56, 5)
    out = pooled.window_test(LEVEL, [ok, lost], NOISE, 0.05, 'higher',
                             0.005, 7)
    assert (out['windows'], out['nights'], len(out['ses'])) == (1, 2, 1)
    # Two deep nights before three ordinary ones: the mean of the five,
    # and of the four without the worst, is beyond; their median is not.
    deep = Moments(30.0, 0.36, 5)
    out = pooled.window_test(LEVEL, [deep, deep, ok, ok, ok], NOISE, 0.05,
                             'higher', 0.005, 7)
    assert out['regression'] is False and out['beyond'] is False


def test_window_margin_of_a_lower_is_better_figure():
    # A rise of 5.1 %: beyond ln(1.05), within -ln(0.95).
    level = [Moments(100.0, 0.01, 20)] * 5
    risen = [Moments(105.1, 0.01, 20)] * 4
    out = pooled.window_test(level, risen, (0.0, 100), 0.05, 'lower',
                             0.005, 7)
    assert out['beyond'] is True and out['regression'] is True



def _plain_bisection(bound, alpha, windows):
    """The level ``bound(p) = alpha`` by a plain bisection of 30 steps in
    log p between ``alpha / windows`` and ``alpha``, and its midpoints."""
    low, high, mids = alpha / windows, alpha, []
    for _ in range(30):
        mids.append(math.sqrt(low * high))
        if bound(mids[-1]) > alpha:
            high = mids[-1]
        else:
            low = mids[-1]
    return low, mids


def _plain_window_level(alpha, ses):
    """The windows' level by a plain bisection, on the standard errors'
    neighbour ratios rounded to 0.001."""
    scaled = [1.0]
    for short, long in zip(ses, ses[1:]):
        scaled.append(scaled[-1] * (round(min(1.0, long / short), 3)
                                    if short > 0 else 1.0))
    return _plain_bisection(lambda p: min_p_bound(p, scaled), alpha,
                            len(scaled))[0]


@pytest.mark.parametrize('alpha, ses', [
    (0.005, [0.03, 0.025, 0.02]),
    (0.01, [0.05, 0.05]),
    (0.05, [0.04, 0.031, 0.026, 0.023, 0.021, 0.02]),
    (0.005, [0.02, 0.04, 0.01]),
    (0.01, [0.0, 0.02, 0.015]),
    (0.001, [0.1, 0.05, 0.0333, 0.025, 0.02]),
])
def test_window_level_is_the_plain_bisection(alpha, ses):
    got = pooled.window_level(alpha, ses)
    assert got == _plain_window_level(alpha, ses)
    assert alpha / len(ses) <= got <= alpha


def test_window_level_of_one_window_is_alpha():
    assert pooled.window_level(0.01, [0.02]) == 0.01
    assert pooled.window_level(0.01, []) == 0.01


def test_nights_of_no_spread_at_all():
    # No night noise and no spread: the night noise's share is 1, and
    # the degrees of freedom of the windows those of the history.
    flat = [Moments(100.0, 0.0, 3)] * 2
    nights = [Moments(90.0, 0.0, 3), Moments(91.0, 0.0, 3)]
    out = pooled.window_test(flat, nights, (0.0, 10), 0.05, 'higher', 0.005,
                             7)
    assert out['df'] == 10.0
    assert out['change'] == pytest.approx(math.sqrt(90.0 * 91.0) / 100 - 1)
    inputs = pooled.detect_inputs(flat, 3, (0.0, math.inf), 0.05, 'higher',
                                  7)
    assert inputs['df'] is None
    # A night without a spread of its own takes the level's, or none.
    level = UNEQUAL + [Moments(99.0, None, 1)]
    nights = [Moments(100.0, 4.0, 5), Moments(80.0, 0.0, 3),
              Moments(82.0, None, 1)]
    out = pooled.cusum_test(level, nights, (0.0004, 6), 0.05, 'higher', 2.0,
                            7)
    s = _cusum_by_hand(level, nights, (0.0004, 6), 0.05, 'higher', 2.0)[0]
    assert out['statistic'] == pytest.approx(s, rel=1e-12)
    single = [Moments(100.0, None, 1), Moments(98.0, None, 1)]
    out = pooled.window_test(single, [Moments(90.0, None, 1)] * 2,
                             (0.0004, 1000), 0.05, 'higher', 0.005, 7)
    mu, var_mu = lookback.level(single, 0.0004)
    se = math.sqrt(0.0004 / 2 + var_mu)
    assert out['se'] == pytest.approx(se, rel=1e-12)
    assert out['df'] == lookback.change_df([(0.0004 / 2 + var_mu, 1000),
                                            (0.0, 1)], 1000)


def _clear_pooled_caches():
    """Forget the levels already found, whatever function caches them
    (a level read from a cache costs no evaluation, and the count below
    must see at least one)."""
    for function in vars(pooled).values():
        if hasattr(function, 'cache_clear'):
            function.cache_clear()


#: Windows' standard errors and the ``min_p_bound`` evaluations the
#: level takes now (measured with the secant placement; a plain 30-step
#: bisection takes 30): a change that costs evaluations fails here.
EVALUATIONS = [
    (0.005, [0.03, 0.025, 0.02], 6),
    (0.01, [0.05, 0.05], 28),
    (0.05, [0.04, 0.031, 0.026, 0.023, 0.021, 0.02], 7),
    (0.005, [0.02, 0.04, 0.01], 5),
    (0.01, [0.0, 0.02, 0.015], 6),
    (0.001, [0.1, 0.05, 0.0333, 0.025, 0.02], 6),
    (0.01, [0.05, 0.035, 0.029, 0.025, 0.022, 0.02, 0.019], 7),
    (0.0201, [0.3, 0.1, 0.03], 7),
    (0.003, [0.05] + [0.049] * 6, 8),
    (0.02, [0.1, 0.0707, 0.0577, 0.05, 0.0447, 0.0408, 0.0378], 6),
]


@pytest.mark.parametrize('alpha, ses, most', EVALUATIONS)
def test_window_level_costs_few_evaluations(monkeypatch, alpha, ses, most):
    calls = []

    def counted(p, scaled):
        calls.append(p)
        return min_p_bound(p, scaled)

    want = _plain_window_level(alpha, ses)
    _clear_pooled_caches()
    monkeypatch.setattr(pooled, 'min_p_bound', counted)
    assert pooled.window_level(alpha, ses) == want
    assert 1 <= len(calls) <= most


def _flat_at_the_level(alpha):
    """Rises as ``2.4 p`` to ``alpha``, stays there to ``alpha / 1.6``,
    then rises as ``1.6 p``."""
    return lambda p, ses: min(max(2.4 * p, alpha), max(1.6 * p, alpha))


def _steps(alpha):
    """Flat in eighths of ``alpha``: evaluations of equal value."""
    return lambda p, ses: math.floor(3.0 * p / alpha * 8.0) / 8.0 * alpha


def _jump(alpha):
    """``p`` below ``alpha / 2``, ``3 p`` from there: a step over the
    level."""
    return lambda p, ses: p if p < alpha / 2.0 else 3.0 * p


def _straight(alpha):
    return lambda p, ses: 2.5 * p


@pytest.mark.parametrize('shape', [_flat_at_the_level, _steps, _jump,
                                   _straight])
@pytest.mark.parametrize('alpha', [0.00731, 0.0137])
def test_window_level_is_the_bisection_of_any_rising_bound(monkeypatch,
                                                           shape, alpha):
    # Whatever the bound's shape (flat at the level, in steps, a jump
    # over it), each midpoint goes to the side the plain bisection puts
    # it on: the level is the plain bisection's to the bit.
    bound = shape(alpha)
    want, _ = _plain_bisection(lambda p: bound(p, None), alpha, 3)
    _clear_pooled_caches()
    monkeypatch.setattr(pooled, 'min_p_bound', bound)
    assert pooled.window_level(alpha, [0.03, 0.02, 0.01]) == want


@pytest.mark.parametrize('step', [23, 25, 26])
def test_window_level_where_the_bound_jumps_at_a_midpoint(monkeypatch,
                                                          step):
    # The secant's points close in on the jump from below to within the
    # bracket's margin; the midpoint on the jump is still above.
    alpha = 0.0137
    _, mids = _plain_bisection(lambda p: p if p < alpha / 2 else 3.0 * p,
                               alpha, 3)
    jump = mids[step]

    def bound(p, ses):
        return p if p < jump else 3.0 * p

    want, _ = _plain_bisection(lambda p: bound(p, None), alpha, 3)
    _clear_pooled_caches()
    monkeypatch.setattr(pooled, 'min_p_bound', bound)
    assert pooled.window_level(alpha, [0.03, 0.02, 0.01]) == want
