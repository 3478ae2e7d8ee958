# SPDX-License-Identifier: BSD-3-Clause
"""The verdict rule (pfsbench.gate.judge.rule) at the edges its callers
rely on: the interval rule's bounds, the exit code, a held disturbed
night, the pooled reason and the figure's p-value (docs/mutation.md)."""

import math
import random
from types import SimpleNamespace

import pytest

from pfsbench.gate.judge import lookback, pooled
from pfsbench.gate.judge.rule import (decide, exit_code, figure_p,
                                      fixed_tolerance_verdict,
                                      hold_disturbed, judge, judge_nights,
                                      pooled_reason,
                                      tonight_p, tonight_se)
from pfsbench.gate.statistics.stats import (Moments, RatioInterval, f_sf,
                                            moments,
                                            min_p_bound, ratio_interval,
                                            ratio_interval_moments,
                                            t_cdf, t_quantile)


def _iv(low, high, change=None, df=10.0, confidence=0.95):
    change = (low + high) / 2.0 if change is None else change
    return RatioInterval(change, low, high, confidence, df, 0.01, 0.01, 5, 5)


@pytest.mark.parametrize('low, high, verdict', [
    (-0.30, -0.10, 'regression'),
    (-0.30, -0.05, 'inconclusive'),   # high exactly at -tol: not beyond
    (0.05, 0.30, 'pass'),             # low exactly at +tol: not a gain
    (0.06, 0.30, 'improvement'),
    (-0.05, 0.04, 'pass'),            # low exactly at -tol: rules it out
    (-0.06, 0.04, 'inconclusive'),
])
def test_decide_higher_at_the_tolerance(low, high, verdict):
    assert decide(_iv(low, high), 0.05, 'higher') == (verdict, -0.05)


@pytest.mark.parametrize('low, high, verdict', [
    (0.10, 0.30, 'regression'),
    (0.05, 0.30, 'inconclusive'),     # low exactly at +tol
    (-0.30, -0.05, 'pass'),           # high exactly at -tol
    (-0.30, -0.06, 'improvement'),
    (-0.04, 0.05, 'pass'),            # high exactly at +tol
    (-0.04, 0.06, 'inconclusive'),
])
def test_decide_lower_at_the_tolerance(low, high, verdict):
    assert decide(_iv(low, high), 0.05, 'lower') == (verdict, 0.05)


def test_decide_names_a_bad_direction():
    with pytest.raises(ValueError, match="'up'"):
        decide(_iv(0.0, 0.1), 0.05, 'up')


def test_fixed_tolerance_at_its_bound():
    assert fixed_tolerance_verdict([100.0], [75.0], 0.25, 'higher') == 'pass'
    assert fixed_tolerance_verdict([100.0], [125.0], 0.25, 'lower') == 'pass'
    assert fixed_tolerance_verdict([4.0], [6.0], 0.25, 'lower') == \
        'regression'
    assert fixed_tolerance_verdict([-1.0, 1.0], [5.0], 0.1, 'higher') is None


def _config(inconclusive_exit=0):
    return SimpleNamespace(inconclusive_exit=inconclusive_exit)


def test_exit_code_of_each_summary():
    assert exit_code({'regression': 1, 'pass': 3}, ['x'], _config(3)) == 1
    assert exit_code({'pass': 3}, ['x'], _config()) == 3
    assert exit_code({'pass': 0}, [], _config()) == 3
    assert exit_code({}, [], _config()) == 3
    assert exit_code({'pass': 2, 'inconclusive': 1}, [], _config(3)) == 3
    assert exit_code({'pass': 2, 'inconclusive': 1}, [], _config(0)) == 0
    assert exit_code({'pass': 2, 'inconclusive': 0}, [], _config(3)) == 0
    assert exit_code({'pass': 2, 'regression': 0}, [], _config()) == 0


def _row(verdict='regression', lookback=None):
    return {'verdict': verdict, 'reason': 'the whole interval is a loss',
            'lookback': lookback}


def test_hold_disturbed_holds_a_regression_under_load():
    row = _row(lookback={'level_nights': 4})
    assert hold_disturbed(row, 2, 3, False) is True
    assert row['verdict'] == 'inconclusive'
    assert row['reason'] == (
        'held: foreign load seen on 2 of 5 repeat(s) of this case tonight '
        '(left out as contended) and no cause changed since the baseline '
        '(other nodes name none): the loss is the load\'s until a night '
        'without it confirms it; the whole interval is a loss')
    assert row['lookback'] == {'level_nights': 4, 'disturbed': 2}


def test_hold_disturbed_leaves_the_rest():
    for args in ((0, 5, False), (2, 3, True)):
        row = _row()
        assert hold_disturbed(row, *args) is False
        assert row == _row()

    row = _row('pass')
    assert hold_disturbed(row, 2, 3, False) is False
    assert row['verdict'] == 'pass'
    row = _row()
    assert hold_disturbed(row, 1, 4, False) is True
    assert row['lookback'] is None


def _found(**kw):
    found = {'since': '2026-11-20', 'nights': 4, 'rule': 'window',
             'p': 0.0012, 'windows': 3, 'low': -0.2, 'high': -0.1,
             'change': -0.15, 'statistic': 6.25}
    found.update(kw)
    return found


def test_pooled_reason_of_the_window_rule():
    text = pooled_reason(_found(), -0.05)
    assert text == (
        'the 4 nights since 2026-11-20 together: a lasting change of '
        '-15.0% beyond -5.0% (one-sided p = 0.0012, corrected over 3 '
        'overlapping window(s) of the newest nights by the null '
        'distribution of their smallest; interval [-20.0%, -10.0%]); '
        'the shift began on 2026-11-20')


def test_pooled_reason_of_the_cusum_and_no_day():
    text = pooled_reason(_found(rule='cusum', since=None), 0.05)
    assert text == (
        'the 4 nights together: a lasting change of -15.0% beyond +5.0% '
        '(a one-sided CUSUM of 6.2 night errors); the shift began on '
        'the night before')


def test_figure_p_of_each_case():
    assert figure_p(None, {'p': 0.3}, 0.1) == 0.3
    # No raw p (the CUSUM) or no standard error: the smaller, doubled.
    assert figure_p(0.02, {'p': 0.03}, 0.1) == pytest.approx(0.04)
    assert figure_p(0.04, {'p': 0.03, 'raw_p': 0.01}, 0.0) == \
        pytest.approx(0.06)
    assert figure_p(0.9, {'p': 0.8}, 0.1) == 1.0
    # The window rule: tonight is its window of one night.
    one = figure_p(0.01, {'p': 0.5, 'raw_p': 0.2, 'ses': [0.1]}, 0.1)
    other = figure_p(0.3, {'p': 0.5, 'raw_p': 0.01, 'ses': [0.1]}, 0.1)
    assert one == pytest.approx(other)
    assert one == pytest.approx(min_p_bound(0.01, [0.1, 0.1]))
    assert 0.01 < one < 0.02


def test_tonight_se_and_p_of_an_interval():
    iv = _iv(math.expm1(-0.3), math.expm1(0.1), math.expm1(-0.1), df=8.0)
    se, df = tonight_se(iv)
    assert df == 8.0
    assert se == pytest.approx(0.2 / t_quantile(0.975, 8.0))
    assert tonight_p(iv, 'higher') == pytest.approx(t_cdf(-0.1 / se, 8.0))
    assert tonight_p(iv, 'lower') == pytest.approx(t_cdf(0.1 / se, 8.0))
    # The wider side gives the half-width; a df below 1 counts as 1.
    iv = _iv(math.expm1(-0.1), math.expm1(0.3), math.expm1(0.0), df=0.5)
    assert tonight_se(iv) == (pytest.approx(0.3 / t_quantile(0.975, 1.0)),
                              1.0)
    iv = _iv(-0.2, 0.1, 0.0, df=None)
    assert tonight_se(iv)[1] == math.inf


def test_tonight_p_without_a_finite_interval():
    for iv in (_iv(-1.0, 0.1, -0.5), _iv(-0.5, 0.1, -1.0)):
        assert tonight_se(iv) == (None, None)
        assert tonight_p(iv, 'higher') == 0.0
        assert tonight_p(iv, 'lower') is None

    flat = _iv(0.0, 0.0, 0.0)
    assert tonight_p(flat, 'higher') == 1.0
    assert tonight_p(_iv(-0.1, -0.1, -0.1), 'higher') == 0.0
    assert tonight_p(_iv(0.1, 0.1, 0.1), 'lower') == 0.0


BASE = [100.0, 101.0, 99.0, 100.5, 99.5]
STEADY = [100.0, 100.2, 99.8, 100.1, 99.9]


@pytest.mark.parametrize('cur, verdict, reason', [
    (STEADY, 'pass', 'the 95% interval excludes a change worse than -5.0%'),
    ([80.0, 80.5, 79.5, 80.2, 79.8], 'regression',
     'the whole 95% interval lies beyond -5.0%'),
    ([120.0, 120.5, 119.5, 120.2, 119.8], 'improvement',
     'the whole 95% interval lies beyond +5.0%'),
])
def test_judge_reason_of_each_verdict(cur, verdict, reason):
    out = judge(BASE, cur, 0.05, 'higher')
    assert (out['verdict'], out['reason']) == (verdict, reason)
    assert out['repeats_needed'] is None
    assert out['low'] < out['change'] < out['high']
    assert out['df'] > 4.0
    assert out['sensitivity']['target'] == pytest.approx(0.1)


def test_judge_inconclusive_names_the_repeats():
    out = judge(BASE, [96.0, 90.0, 99.0, 93.0, 97.0], 0.05, 'higher')
    assert out['verdict'] == 'inconclusive'
    assert out['reason'] == (
        'the 95% interval [-9.2%, -0.6%] contains the tolerance -5.0%: '
        'noise is larger than the tolerance; more than 1000 repeats per '
        'side would be needed')
    assert out['repeats_needed'] == 1001
    out = judge(BASE, [96.0, 93.0, 99.0, 92.0, 96.0], 0.05, 'higher',
                confidence=0.9)
    assert out['verdict'] == 'inconclusive'
    assert 0 < out['repeats_needed'] <= 1000
    assert out['reason'].startswith('the 90% interval [')
    assert out['reason'].endswith(
        f': noise is larger than the tolerance; about '
        f'{out["repeats_needed"]} repeats per side would settle it')


def test_judge_detect_is_at_least_the_tolerance():
    assert judge(BASE, STEADY, 0.05, 'higher', detect=0.2)[
        'sensitivity']['target'] == pytest.approx(0.2)
    assert judge(BASE, STEADY, 0.05, 'higher', detect=0.01)[
        'sensitivity']['target'] == pytest.approx(0.05)


@pytest.mark.parametrize('assumed, reason', [
    (True, 'fewer than 5 nights in the history, so the night-to-night noise '
           'is assumed (10%, assumed_night_cv in the gate settings) and it '
           'is larger than the tolerance; more repeats per run will not '
           'settle it: the history measures it after 5 nights, or record '
           'the baseline over more nights'),
    (False, 'the night-to-night noise of the history is larger than the '
            'tolerance; more repeats per run will not settle it: record '
            'the baseline over more nights or widen the tolerance'),
])
def test_judge_inconclusive_at_the_night_floor(assumed, reason):
    out = judge(BASE, STEADY, 0.05, 'higher', nights=(0.01, 4, 1),
                nights_assumed=assumed)
    assert out['verdict'] == 'inconclusive'
    assert out['reason'] == (
        'the 95% interval [-32.5%, +48.1%] contains the tolerance -5.0%: '
        + reason)
    assert out['repeats_needed'] is None
    assert out['df'] == 4
    assert out['sensitivity']['inputs']['tau2'] == 0.01


@pytest.mark.parametrize('assumed, note', [
    (True, 'interval widened to the night-to-night noise assumed (3%) '
           'until the history holds 5 nights'),
    (False, 'interval widened to the night-to-night noise of the history'),
])
def test_judge_pass_at_the_night_floor(assumed, note):
    out = judge(BASE, STEADY, 0.3, 'higher', nights=(0.001, 4, 3),
                nights_assumed=assumed)
    assert out['verdict'] == 'pass'
    assert out['reason'] == \
        'the 95% interval excludes a change worse than -30.0%; ' + note
    assert out['sensitivity']['inputs']['level_nights'] == 3


def test_judge_below_the_night_floor_takes_no_night_noise():
    out = judge(BASE, STEADY, 0.05, 'higher', nights=(1e-9, 4, 3))
    assert out['reason'] == \
        'the 95% interval excludes a change worse than -5.0%'
    assert out['sensitivity']['inputs']['tau2'] == 0.0
    assert out['sensitivity']['inputs']['level_nights'] == 3


SHORT = ('judged with the spread of one repeat as {} know it, the whole '
         'interval beyond the tolerance')


@pytest.mark.parametrize('base, cur, least, notes', [
    (BASE, [80.0], 2, 'one current sample, spread taken from the other '
     'side; 1 current sample(s) where the gate needs 2: ' +
     SHORT.format('the baseline\'s repeats')),
    ([100.0], [80.0, 80.5, 79.5], 4, 'one baseline sample, spread taken '
     'from the other side; 3 current sample(s) where the gate needs 4: ' +
     SHORT.format('tonight\'s repeats')),
    ([100.0], [80.0, 80.5, 79.5], 3, 'one baseline sample, spread taken '
     'from the other side'),
])
def test_judge_one_sample_borrows_the_spread(base, cur, least, notes):
    out = judge(base, cur, 0.05, 'higher', min_samples=least)
    assert out['verdict'] == 'regression'
    assert out['reason'] == \
        f'the whole 95% interval lies beyond -5.0%; {notes}'


def test_judge_a_short_pass_is_inconclusive():
    out = judge(BASE, [100.0], 0.05, 'higher')
    assert (out['verdict'], out['reason']) == (
        'inconclusive', '1 current sample(s), the gate needs 2')
    assert out['change'] == pytest.approx(0.0)
    assert out['repeats_needed'] is None
    assert judge(BASE, [100.0], 0.05, 'higher', min_samples=1)[
        'verdict'] == 'pass'


def test_judge_from_moments():
    out = judge(BASE, [100.0], 0.05, 'higher',
                moments=(Moments(100.0, 1.0, 10), Moments(80.0, 1.0, 12)))
    assert out['verdict'] == 'regression'
    assert out['reason'] == (
        'the whole 95% interval lies beyond -5.0%; samples: 10 baseline '
        'and 12 current tool iterations (from each run\'s mean and '
        'standard deviation)')
    assert out['change'] == pytest.approx(-0.2)
    assert out['sensitivity']['repeats'] == 12


def test_judge_at_zero():
    for base, cur in (([0.0, 0.0], [0.0, 0.0]), ([0.0, 0.0, 0.0], [0.0])):
        out = judge(base, cur, 0.05, 'lower')
        assert out == {'verdict': 'pass',
                       'reason': '0 in the baseline and now', 'change': 0.0,
                       'low': 0.0, 'high': 0.0, 'df': None,
                       'repeats_needed': None, 'sensitivity': None}

    out = judge([1.0, 2.0], [0.0, 0.0], 0.05, 'lower')
    assert (out['verdict'], out['reason']) == ('pass',
                                               '0 now: nothing is lower')
    assert (out['change'], out['low'], out['high']) == (-1.0, -1.0, -1.0)
    out = judge([0.0, 0.0], [0.0, 0.0, 1.0], 0.05, 'lower')
    assert out['reason'] != '0 now: nothing is lower'
    # Too few zeros tonight, or zeros of a higher-is-better figure.
    assert judge([1.0, 2.0], [0.0], 0.05, 'lower')['reason'] != \
        '0 now: nothing is lower'
    assert judge([1.0, 2.0], [0.0], 0.05, 'lower', min_samples=1)[
        'reason'] == '0 now: nothing is lower'
    assert judge([1.0, 2.0], [0.0, 0.0], 0.05, 'higher')['reason'] != \
        '0 now: nothing is lower'


def test_judge_too_few_samples():
    out = judge([1.0], [1.0], 0.05, 'higher')
    assert out == {'verdict': 'inconclusive', 'reason': (
        'need at least 2 samples on one side to estimate the spread, got '
        '1 baseline and 1 current'), 'change': None, 'low': None,
        'high': None, 'df': None, 'repeats_needed': None,
        'sensitivity': None}


def _history():
    """Twelve nights of 5 repeats (2 % apart) about a level with 1 %
    night-to-night noise, from a fixed seed."""
    rng = random.Random(3)
    nights = [moments([math.exp(rng.gauss(0.0, 0.01) + rng.gauss(0.0, 0.02))
                       for _ in range(5)]) for _ in range(12)]
    return nights, rng


BASIS = ('tonight against 5 level night(s), night-to-night noise 0.6% from '
         '12 like-for-like night(s)')


@pytest.mark.parametrize('level, verdict, reason', [
    (1.0, 'pass', 'the 95% interval [-3.8%, +1.1%] rules out a loss beyond '
                  '-10.0% and shows no significant loss beyond -5.0%'),
    (0.8, 'regression', 'the whole 95% interval [-23.0%, -19.1%] is a loss '
                        'and the change is beyond -5.0%'),
    (1.2, 'improvement', 'the whole 95% interval [+15.4%, +21.4%] is a '
                         'gain beyond +5.0%'),
])
def test_judge_nights_reason_of_each_verdict(level, verdict, reason):
    nights, rng = _history()
    # The first 12 draws set the nights; tonight continues the stream.
    tonight = moments([level * math.exp(rng.gauss(0.0, 0.02))
                       for _ in range(5)])
    out = judge_nights(nights[-5:], tonight, [nights], 0.05, 'higher', 0.10)
    assert out['verdict'] == verdict
    assert out['reason'] == f'{reason}; {BASIS}'
    assert out['lookback']['level_nights'] == 5
    assert out['lookback']['history_nights'] == 12
    assert out['lookback']['outliers'] == 0
    assert out['lookback']['df'] == 11
    assert out['lookback']['night_cv'] == pytest.approx(0.0061, abs=1e-4)
    assert out['df'] == 11.0
    assert out['spread_change'] is None


def test_judge_nights_a_disturbed_inconclusive_night():
    nights, _ = _history()
    tonight = moments([1.0, 0.7, 1.3, 0.9, 1.1])
    out = judge_nights(nights[-5:], tonight, [nights], 0.05, 'higher', 0.10)
    assert out['verdict'] == 'inconclusive'
    assert out['repeats_needed'] == 5
    assert out['spread_change'] == pytest.approx(11.71, abs=0.01)
    assert out['reason'] == (
        'the 95% interval [-24.4%, +32.0%] can neither rule out a loss of '
        '-10.0% nor show one beyond -5.0%: about 5 repeats per night would '
        'settle it; tonight\'s spread is 11.7 times the level nights\' (F '
        f'test, 1 %): a disturbed night?; {BASIS}')


def test_judge_nights_short_nights():
    nights, _ = _history()
    out = judge_nights(nights[-5:], moments([0.8]), [nights], 0.05,
                       'higher', 0.10)
    assert out['verdict'] == 'regression'
    assert out['reason'] == (
        'the whole 95% interval [-23.6%, -16.4%] is a loss and the change '
        'is beyond -5.0%; 1 current sample(s) where the gate needs 2: '
        'judged with the spread of one repeat as the level nights (pooled) '
        f'know it, the whole interval beyond the tolerance; {BASIS}')
    out = judge_nights(nights[-5:], moments([1.0]), [nights], 0.05,
                       'higher', 0.10)
    assert (out['verdict'], out['reason']) == (
        'inconclusive', f'1 current sample(s), the gate needs 2; {BASIS}')
    assert judge_nights(nights[-5:], moments([1.0]), [nights], 0.05,
                        'higher', 0.10, min_samples=1)['verdict'] == 'pass'


def test_judge_nights_names_the_outlying_night():
    nights, _ = _history()
    nights[-1] = moments([3.0, 3.05, 2.95, 3.02, 2.98])
    out = judge_nights(nights[-5:], moments([0.8, 0.81, 0.79, 0.8, 0.8]),
                       [nights], 0.05, 'higher', 0.10)
    assert out['lookback']['outliers'] == 1
    assert out['reason'].endswith(
        'tonight against 5 level night(s), night-to-night noise 1.3% from '
        '12 like-for-like night(s), 1 outlying night(s) left out')


def test_judge_nights_at_zero():
    zero = Moments(0.0, 0.0, 3)
    out = judge_nights([zero, zero], zero, [[zero, zero, zero], [zero]],
                       0.05, 'higher', 0.1)
    assert out == {
        'verdict': 'pass', 'change': 0.0, 'low': 0.0, 'high': 0.0,
        'df': None, 'repeats_needed': None, 'spread_change': None,
        'reason': '0 tonight and on the 2 level night(s)',
        'lookback': {'level_nights': 2, 'history_nights': 4, 'outliers': 0,
                     'night_cv': 0.0, 'df': None, 'detect': 0.1}}
    one = Moments(1.0, 0.0, 3)
    assert judge_nights([zero, one], zero, [[zero] * 3], 0.05, 'higher',
                        0.1) is None
    assert judge_nights([], zero, [[zero] * 3], 0.05, 'higher', 0.1) is None
    assert judge_nights([zero], one, [[zero] * 3], 0.05, 'higher',
                        0.1) is None


def test_judge_on_the_tolerance_no_repeats_settle_it():
    out = judge([0.9, 1.0, 1.1], [0.6, 0.75, 0.9], 0.25, 'higher')
    assert (out['verdict'], out['repeats_needed']) == ('inconclusive', None)
    assert out['reason'] == (
        'the 95% interval [-50.5%, +13.6%] contains the tolerance -25.0%: '
        'noise is larger than the tolerance; the change sits on the '
        'tolerance; more repeats will not settle it')


def test_judge_keeps_every_note():
    out = judge(BASE, [100.0], 0.3, 'higher', nights=(0.001, 4, 1),
                moments=(Moments(100.0, 1.0, 10), Moments(100.0, 1.0, 12)))
    assert out['reason'] == (
        'the 95% interval excludes a change worse than -30.0%; interval '
        'widened to the night-to-night noise of the history; samples: 10 '
        'baseline and 12 current tool iterations (from each run\'s mean '
        'and standard deviation)')
    out = judge([100.0], STEADY, 0.3, 'higher', nights=(0.001, 4, 1),
                nights_assumed=True)
    assert out['reason'] == (
        'the 95% interval excludes a change worse than -30.0%; interval '
        'widened to the night-to-night noise assumed (3%) until the '
        'history holds 5 nights; one baseline sample, spread taken from '
        'the other side')


def test_judge_names_1000_repeats_and_more():
    # A current mean found by bisection where exactly 1000 repeats a side
    # settle the night.
    m = 95.07516479492188
    out = judge(BASE, [m * 0.99, m, m * 1.01], 0.05, 'higher')
    assert out['repeats_needed'] == 1000
    assert out['reason'].endswith(
        'about 1000 repeats per side would settle it')


def test_judge_a_short_inconclusive_night_has_no_short_note():
    out = judge([90.0, 110.0, 95.0, 105.0, 100.0], [96.0], 0.05, 'higher')
    assert out['verdict'] == 'inconclusive'
    assert out['reason'].endswith(
        'about 440 repeats per side would settle it; one current sample, '
        'spread taken from the other side')


def test_judge_zero_now_without_a_positive_baseline():
    for base in ([], [-1.0, 1.0]):
        out = judge(base, [0.0, 0.0], 0.05, 'lower')
        assert (out['reason'], out['change']) == ('0 now: nothing is lower',
                                                  0.0)


def test_judge_takes_the_confidence_asked():
    cur = [96.0, 93.0, 99.0, 92.0, 96.0]
    out = judge(BASE, cur, 0.05, 'higher', confidence=0.8)
    assert (out['low'], out['high']) == (
        pytest.approx(ratio_interval(BASE, cur, 0.8).low),
        pytest.approx(ratio_interval(BASE, cur, 0.8).high))
    pair = (Moments(100.0, 4.0, 5), Moments(95.0, 4.0, 5))
    out = judge(BASE, cur, 0.05, 'higher', confidence=0.8, moments=pair)
    assert out['low'] == pytest.approx(
        ratio_interval_moments(*pair, 0.8).low)


def test_judge_sensitivity_inputs_and_an_infinite_df():
    for direction in ('higher', 'lower'):
        inputs = judge(BASE, STEADY, 0.05, direction)['sensitivity'][
            'inputs']
        assert (inputs['direction'], inputs['rule']) == (direction,
                                                         'interval')
    # No spread on either side: a point, whose df is none.
    out = judge([5.0, 5.0], [4.0, 4.0], 0.05, 'higher')
    assert (out['verdict'], out['df']) == ('regression', None)
    assert out['low'] == pytest.approx(-0.2)


def _lasting(level, days=5):
    """``days`` nights at ``level`` since 2026-09-21 (UTC), as
    judge_nights' ``recent``."""
    steady = (1.0, 1.01, 0.99, 1.005, 0.995)
    return [(1.79e9 + i * 86400.0, moments([level * x for x in steady]))
            for i in range(days)]


@pytest.mark.parametrize('rule, how', [
    ('window', 'one-sided p = 6.8e-07, corrected over 5 overlapping '
               'window(s) of the newest nights by the null distribution of '
               'their smallest; interval [-10.1%, -6.0%]'),
    ('cusum', 'a one-sided CUSUM of 36.7 night errors'),
])
def test_judge_nights_pooled_nights_decide(rule, how):
    nights, _ = _history()
    tonight = moments([0.92, 0.92 * 1.05, 0.92 * 0.95])
    out = judge_nights(nights[-5:], tonight, [nights], 0.05, 'higher', 0.10,
                       recent=_lasting(0.92),
                       pooled={'rule': rule, 'nights': 7})
    assert out['verdict'] == 'regression'
    assert out['pooled']['decided'] is True
    assert out['reason'].startswith(
        'the 6 nights since 2026-09-21 together: a lasting change of -8.1% '
        f'beyond -5.0% ({how}); the shift began on 2026-09-21; tonight\'s '
        'spread is 2.6 times')


def _judged_with(tonight, recent, pooled):
    """judge_nights of ``tonight`` over :func:`_history`'s last 5 nights,
    with the pooled nights' ``recent`` and settings."""
    nights, _ = _history()
    return judge_nights(nights[-5:], tonight, [nights], 0.05, 'higher',
                        0.10, recent=recent, pooled=pooled)


def test_judge_nights_tonight_alone_decides():
    tonight = moments([0.8, 0.81, 0.79, 0.8, 0.8])
    out = _judged_with(tonight, _lasting(0.8),
                       {'rule': 'window', 'nights': 7})
    assert out['verdict'] == 'regression'
    assert out['pooled']['decided'] is False
    assert out['reason'].startswith('the whole 95% interval [')


def test_judge_nights_repeats_per_night_in_the_worse_direction():
    nights, _ = _history()
    tonight = moments([1.0, 1.3, 0.7])
    got = {d: judge_nights(nights[-5:], tonight, [nights], 0.05, d, 0.10)
           for d in ('higher', 'lower')}
    assert got['higher']['repeats_needed'] == 5
    assert got['lower']['repeats_needed'] == 6
    assert 'about 6 repeats per night would settle it' in \
        got['lower']['reason']


def test_judge_nights_night_noise_alone_too_large():
    wide = [moments([x, x * 1.01, x * 0.99])
            for x in (1.0, 1.3, 0.8, 1.2, 0.9, 1.1, 0.7, 1.25)]
    out = judge_nights(wide[-5:], moments([0.95, 0.96, 0.94]), [wide], 0.05,
                       'higher', 0.10)
    assert (out['verdict'], out['repeats_needed']) == ('inconclusive', None)
    assert out['reason'] == (
        'the 95% interval [-47.1%, +68.0%] can neither rule out a loss of '
        '-10.0% nor show one beyond -5.0%: the night-to-night noise alone '
        'is too large: more repeats will not settle it; more level nights '
        'or a larger detect will; tonight against 5 level night(s), '
        'night-to-night noise 22.3% from 8 like-for-like night(s)')


@pytest.mark.parametrize('ratio, grew', [(6.0, True), (5.6, False)])
def test_judge_nights_spread_test_has_the_level_nights_df(ratio, grew):
    # F(2, 20) at 1 %: 5.85 (df 15: 6.36; df 30: 5.39); 20 = 5 level
    # nights of 5 repeats less one each.
    nights, _ = _history()
    cv2 = lookback.pooled_cv2(nights[-5:])
    assert f_sf(ratio, 2, 20) < 0.01 if grew else f_sf(ratio, 2, 20) > 0.01
    tonight = Moments(1.0, ratio * cv2, 3)
    out = judge_nights(nights[-5:], tonight, [nights], 0.05, 'higher', 0.10)
    assert (out['spread_change'] is not None) == grew
    if grew:
        assert out['spread_change'] == pytest.approx(math.sqrt(ratio))


@pytest.mark.parametrize('most, first', [(7, '2026-09-21'),
                                         (4, '2026-09-23')])
def test_judge_nights_pooled_record(most, first):
    nights, _ = _history()
    tonight = moments([0.92, 0.92 * 1.05, 0.92 * 0.95])
    out = judge_nights(nights[-5:], tonight, [nights], 0.05, 'higher', 0.10,
                       recent=_lasting(0.92),
                       pooled={'rule': 'window', 'nights': most})
    assert sorted(out) == ['change', 'df', 'high', 'lookback', 'low',
                           'pooled', 'reason', 'repeats_needed',
                           'sensitivity', 'spread_change', 'verdict']
    count = min(most, 6)
    pooled = out['pooled']
    assert (pooled['rule'], pooled['count'], pooled['nights'],
            pooled['first'], pooled['since']) == ('window', count, count,
                                                  first, first)
    assert pooled['alpha'] == pytest.approx(0.025)
    assert pooled['regression'] is True
    assert pooled['low'] < pooled['change'] < pooled['high'] < -0.05
    assert 0.0 < pooled['detects'] < 0.1
    look = out['lookback']
    assert (look['level_nights'], look['history_nights'], look['outliers'],
            look['df'], look['detect']) == (5, 12, 0, 11, 0.10)
    # The figure's p: tonight's and the pooled nights', corrected once.
    assert 0.0 < look['p'] <= 2 * pooled['p']
    sens = out['sensitivity']['inputs']
    assert (sens['rule'], sens['level_nights']) == ('lookback', 5)
    assert sens['tau2'] == pytest.approx(look['night_cv'] ** 2)
    # Without the pooled nights' settings, or with the rule off: tonight
    # alone, no pooled record.
    for settings in (None, {'rule': 'off'}, {}):
        alone = judge_nights(nights[-5:], tonight, [nights], 0.05, 'higher',
                             0.10, recent=_lasting(0.92), pooled=settings)
        assert 'pooled' not in alone
        assert alone['verdict'] != 'regression'


def test_fixed_tolerance_of_a_small_positive_baseline():
    assert fixed_tolerance_verdict([0.5], [0.4], 0.1, 'higher') == \
        'regression'
    assert fixed_tolerance_verdict([0.5], [0.4], 0.1, 'lower') == 'pass'
    assert fixed_tolerance_verdict([0.5], [0.6], 0.1, 'lower') == \
        'regression'


def test_judge_nights_without_a_level_night():
    nights, _ = _history()
    out = judge_nights([], moments([1.0, 1.01]), [nights], 0.05, 'higher',
                       0.10)
    cv = out['lookback'].pop('night_cv')
    assert cv == pytest.approx(0.0061, abs=1e-4)
    assert out == {
        'verdict': 'inconclusive', 'reason': 'no night to take the level '
        'from', 'change': None, 'low': None, 'high': None, 'df': None,
        'repeats_needed': None, 'spread_change': None, 'sensitivity': None,
        'lookback': {'level_nights': 0, 'history_nights': 12,
                     'outliers': 0, 'df': 11, 'detect': 0.1}}


def test_judge_small_baselines():
    assert judge(BASE, STEADY, 0.05, 'higher')['sensitivity']['inputs'][
        'level_nights'] == 1
    out = judge([0.5, 0.5], [0.0, 0.0], 0.05, 'lower')
    assert (out['reason'], out['change']) == ('0 now: nothing is lower',
                                              -1.0)


def test_judge_nights_spread_test_counts_nights_of_two_repeats():
    # Five level nights of 2 repeats: 5 degrees of freedom; F(2, 5) at
    # 1 % is 13.27.
    nights, _ = _history()
    level = [Moments(1.0, 1e-4, 2)] * 5
    assert f_sf(20.0, 2, 5) < 0.01
    out = judge_nights(level, Moments(1.0, 20.0 * 1e-4, 3), [nights], 0.05,
                       'higher', 0.10)
    assert out['spread_change'] == pytest.approx(math.sqrt(20.0))


def test_judge_nights_counts_the_outliers_of_every_segment_and_the_level():
    # Twelve level nights (enough to look for outliers) and two segments,
    # one outlying night in each.
    nights, _ = _history()
    nights[-1] = moments([3.0, 3.05, 2.95, 3.02, 2.98])
    out = judge_nights(nights, moments([1.0, 1.01, 0.99, 1.0, 1.0]),
                       [nights, list(nights)], 0.05, 'higher', 0.10)
    assert out['lookback']['outliers'] == 3
    assert out['lookback']['level_nights'] == 11


def test_judge_nights_pools_7_nights_by_default_and_no_rule_is_off():
    nights, _ = _history()
    tonight = moments([0.92, 0.92 * 1.05, 0.92 * 0.95])
    out = judge_nights(nights[-5:], tonight, [nights], 0.05, 'higher', 0.10,
                       recent=_lasting(0.92, days=9),
                       pooled={'rule': 'window'})
    assert out['pooled']['count'] == 7
    alone = judge_nights(nights[-5:], tonight, [nights], 0.05, 'higher',
                         0.10, recent=_lasting(0.92), pooled={'nights': 7})
    assert 'pooled' not in alone


def test_judge_nights_figure_p_takes_tonight_as_the_shortest_window():
    # Tonight far below the nights before it, which are a little low: the
    # figure's p is tonight's corrected over its window and the pooled
    # nights' (more than the doubled smaller p, less than theirs).
    tonight = moments([0.8, 0.808, 0.792, 0.8, 0.8])
    out = _judged_with(tonight, _lasting(0.97),
                       {'rule': 'window', 'nights': 7})
    alone = _judged_with(tonight, None, None)
    assert 0.0 < 2.0 * alone['lookback']['p'] < out['lookback']['p'] < \
        out['pooled']['p']


@pytest.mark.parametrize('direction, confidence', [('higher', 0.90),
                                                   ('lower', 0.95)])
def test_judge_nights_carries_the_interval_and_tonights_p(direction,
                                                          confidence):
    nights, _ = _history()
    tonight = moments([0.97, 0.99, 0.96])
    out = judge_nights(nights[-5:], tonight, [nights], 0.05, direction,
                       0.10, confidence=confidence)
    iv = lookback.interval(nights[-5:], tonight,
                           lookback.night_variance([nights]), confidence)
    assert math.isfinite(iv.df)
    assert (out['change'], out['low'], out['high'], out['df']) == \
        (iv.change, iv.low, iv.high, iv.df)
    assert f'{confidence:.0%} interval' in out['reason']
    assert out['lookback']['p'] == tonight_p(iv, direction)
    assert out['sensitivity']['inputs']['direction'] == direction


def _with_lasting(level, days=4):
    """:func:`_history`'s nights, then ``days`` at ``level`` (the
    ``recent`` nights, which the history holds too), and tonight at
    ``level``."""
    nights, _ = _history()
    recent = _lasting(level, days)
    tonight = moments([level, level * 1.01, level * 0.99])
    return nights, recent, nights + [n for _, n in recent], tonight


def _without(segment):
    """The night noise of ``segment`` without the nights given, or None."""
    def noise(nights):
        rest = list(segment)
        for night in nights:
            rest.remove(night)
        return lookback.night_variance([rest])
    return noise


@pytest.mark.parametrize('direction, level', [('higher', 0.97),
                                              ('lower', 1.03)])
def test_judge_nights_pools_against_the_noise_without_the_window(direction,
                                                                 level):
    # The recent nights are in the history too: the window and the
    # pooled nights' sensitivity read the noise of the nights outside it.
    nights, recent, history, tonight = _with_lasting(level)
    out = judge_nights(nights[-5:], tonight, [history], 0.01, direction,
                       0.10, recent=recent,
                       pooled={'rule': 'window', 'nights': 7})
    noise = lookback.night_variance([history])
    without = _without(history)
    used = [n for _, n in recent] + [tonight]
    found = pooled.pooled_test('window', nights[-5:], used, noise, 0.01,
                               direction, 0.025, 7, noise_without=without)
    assert found['p'] != pooled.pooled_test(
        'window', nights[-5:], used, noise, 0.01, direction, 0.025, 7)['p']
    got = out['pooled']
    assert (got['p'], got['change'], got['low'], got['high']) == \
        (found['p'], found['change'], found['low'], found['high'])
    inputs = pooled.detect_inputs(nights[-5:], 5, without(used[:-1]), 0.01,
                                  direction, 7)
    assert got['detect_inputs'] == inputs
    assert inputs['direction'] == direction
    iv = lookback.interval(nights[-5:], tonight, noise)
    assert out['lookback']['p'] == figure_p(tonight_p(iv, direction), found,
                                            tonight_se(iv)[0])


@pytest.mark.parametrize('settings, regression', [
    ({}, True),                     # 5.3 night errors, above 5
    ({'cusum_h': 5.5}, False),
    ({'cusum_h': 5.2}, True),
])
def test_judge_nights_cusum_at_its_decision_interval(settings, regression):
    nights, recent, history, tonight = _with_lasting(0.98)
    found = pooled.pooled_test(
        'cusum', nights[-5:], [n for _, n in recent] + [tonight],
        lookback.night_variance([history]), 0.01, 'higher', 0.025, 7)
    assert 5.2 < found['statistic'] < 5.5
    out = judge_nights(nights[-5:], tonight, [history], 0.01, 'higher',
                       0.10, recent=recent,
                       pooled={'rule': 'cusum', 'nights': 7, **settings})
    assert out['pooled']['regression'] is regression
    assert (out['verdict'] == 'regression') is regression


def test_judge_nights_leaves_a_zero_night_out_of_the_pooled_nights():
    nights, recent, history, tonight = _with_lasting(0.97)
    zero = (recent[0][0] - 86400.0, Moments(0.0, 0.0, 3))
    settings = {'rule': 'window', 'nights': 7}
    with_zero = judge_nights(nights[-5:], tonight, [history], 0.01,
                             'higher', 0.10, recent=[zero] + recent,
                             pooled=settings)
    out = judge_nights(nights[-5:], tonight, [history], 0.01, 'higher',
                       0.10, recent=recent, pooled=settings)
    assert with_zero['pooled'] == out['pooled']
    assert out['pooled']['count'] == 5


def test_judge_nights_pools_nothing_without_recent_nights():
    nights, _, history, tonight = _with_lasting(0.97)
    for recent in (None, []):
        out = judge_nights(nights[-5:], tonight, [history], 0.01, 'higher',
                           0.10, recent=recent,
                           pooled={'rule': 'window', 'nights': 7})
        assert 'pooled' not in out and out['verdict'] in ('pass',
                                                          'inconclusive')


def test_judge_nights_a_night_of_enough_samples_has_no_short_note():
    nights, _ = _history()
    out = judge_nights(nights[-5:], moments([0.8, 0.81]), [nights], 0.05,
                       'higher', 0.10, min_samples=2)
    assert out['verdict'] == 'regression'
    assert 'current sample(s)' not in out['reason']


def test_judge_nights_a_short_inconclusive_night_has_no_short_note():
    wide = [moments([x, x * 1.01, x * 0.99])
            for x in (1.0, 1.3, 0.8, 1.2, 0.9, 1.1, 0.7, 1.25)]
    out = judge_nights(wide[-5:], moments([0.95]), [wide], 0.05, 'higher',
                       0.10, min_samples=2)
    assert out['verdict'] == 'inconclusive'
    assert 'current sample(s)' not in out['reason']


def test_judge_nights_window_leaving_too_few_nights_takes_the_whole_noise():
    # The history is 2 nights and the 4 recent ones: without the window's
    # nights too few remain for the noise, and the whole history's is
    # taken.
    nights, recent, _, tonight = _with_lasting(0.97)
    history = nights[-2:] + [n for _, n in recent]
    out = judge_nights(nights[-5:], tonight, [history], 0.01, 'higher',
                       0.10, recent=recent,
                       pooled={'rule': 'window', 'nights': 7})
    noise = lookback.night_variance([history])
    assert _without(history)([n for _, n in recent]) is None
    assert out['pooled']['detect_inputs'] == pooled.detect_inputs(
        nights[-5:], 5, noise, 0.01, 'higher', 7)
