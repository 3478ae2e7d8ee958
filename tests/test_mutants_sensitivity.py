# SPDX-License-Identifier: BSD-3-Clause
"""What a figure's gate can detect (pfsbench.gate.judge.sensitivity)
through its public functions, one test per mutant that bench/mutation.py
found the rest of the fast lane letting through (docs/mutation.md)."""

import math

from pfsbench.gate.judge import lookback
from pfsbench.gate.judge import sensitivity
from pfsbench.gate.statistics.stats import Moments, RatioInterval, t_quantile


def _sens(detects, blind, need=None, target=0.1):
    return {'detects': detects, 'target': target, 'power': 0.9,
            'alpha': 0.01, 'blind': blind, 'repeats': 5,
            'repeats_needed': need}


def test_label_of_each_kind_of_figure():
    assert sensitivity.label(None) == ''
    assert sensitivity.label(_sens(0.08, False)) == 'detects >= 8%'
    tail = ': cannot detect the loss it must find (10%, lookback.detect); '
    assert sensitivity.label(_sens(0.28, True, 12)) == (
        'detects >= 28%' + tail +
        'about 12 repeats per night would find it 9 times in 10')
    assert sensitivity.label(_sens(0.28, True, 1000)) == (
        'detects >= 28%' + tail +
        'about 1000 repeats per night would find it 9 times in 10')
    assert sensitivity.label(_sens(0.28, True, 1001)) == (
        'detects >= 28%' + tail +
        'more than 1000 repeats per night would find it 9 times in 10')
    assert sensitivity.label(_sens(None, True)) == (
        'detects no loss' + tail +
        'no repeat count would find it (the night-to-night noise)')


def test_short_label_of_each_kind_of_figure():
    assert sensitivity.short_label(None) == '-'
    assert sensitivity.short_label(_sens(0.08, False)) == '>=8%'
    assert sensitivity.short_label(_sens(0.28, True)) == '>=28% blind'
    assert sensitivity.short_label(_sens(None, True)) == 'none blind'


def test_no_finite_spread_detects_nothing():
    for se2 in (None, math.inf, math.nan, -1e-9):
        out = sensitivity.sensitivity(se2, 10, 0.01, 0.05, 0.1, 'higher', 5, 0.0,
                                      0.0, 5)
        assert out == {'detects': None, 'target': 0.1, 'power': 0.9,
                       'alpha': 0.01, 'blind': True, 'repeats': 5,
                       'repeats_needed': None}


def test_at_level_recomputes_below_its_own_alpha_only():
    out = sensitivity.sensitivity(0.0025, 8, 0.01, 0.05, 0.1, 'higher', 5,
                                  0.001, 0.002, 5)
    assert out['inputs'] == {'se2': 0.0025, 'df': 8, 'tolerance': 0.05,
                             'direction': 'higher', 'tau2': 0.001,
                             'cv2': 0.002, 'level_nights': 5,
                             'rule': 'lookback'}
    assert sensitivity.at_level(out, 0.01) is out
    assert sensitivity.at_level(out, 0.02) is out
    lower = sensitivity.at_level(out, 0.001)
    assert lower == sensitivity.sensitivity(0.0025, 8, 0.001, 0.05, 0.1, 'higher',
                                            5, 0.001, 0.002, 5)
    assert lower['detects'] > out['detects']
    assert sensitivity.at_level(None, 0.001) is None
    bare = {k: v for k, v in out.items() if k != 'inputs'}
    assert sensitivity.at_level(bare, 0.001) is bare


def _loss(se, df, alpha, tol, direction, rule, power=0.9):
    t_a, t_p = t_quantile(1 - alpha, max(df, 1.0)), t_quantile(power,
                                                               max(df, 1.0))
    margin = lookback.log_margin(tol, direction)
    if rule == 'lookback':
        return max(t_a * se, margin) + t_p * se
    return margin + (t_a + t_p) * se


def test_smallest_log_loss_of_each_rule_direction_and_df():
    assert sensitivity.smallest_log_loss(0.0, 10, 0.01, 0.05, 'higher') == \
        -math.log1p(-0.05)
    assert sensitivity.smallest_log_loss(0.0, 10, 0.01, 0.05, 'lower') == \
        math.log1p(0.05)
    for df in (0.5, 1, 3):
        for rule in ('lookback', 'interval'):
            assert sensitivity.smallest_log_loss(0.1, df, 0.01, 0.05, 'higher',
                                                 rule) == \
                _loss(0.1, df, 0.01, 0.05, 'higher', rule)
    # The default rule is the lookback rule.
    assert sensitivity.smallest_log_loss(0.1, 3, 0.01, 0.05, 'higher') == \
        _loss(0.1, 3, 0.01, 0.05, 'higher', 'lookback') != \
        _loss(0.1, 3, 0.01, 0.05, 'higher', 'interval')


def _reach(target, tau2, cv2, k, df, alpha, tol, direction, rule, power):
    for r in range(2, 1001):
        night = tau2 + cv2 / r
        se = math.sqrt(night + night / k)
        if _loss(se, df, alpha, tol, direction, rule, power) <= \
                lookback.log_margin(target, direction):
            return r
    return 1001


def test_repeats_to_reach_is_the_smallest_count_that_finds_the_target():
    for direction in ('higher', 'lower'):
        for rule, power in (('lookback', 0.9), ('interval', 0.5)):
            got = sensitivity.repeats_to_reach(0.15, 0.0004, 0.04, 5, 20, 0.01,
                                               0.05, direction, rule, power)
            assert got == _reach(0.15, 0.0004, 0.04, 5, 20, 0.01, 0.05,
                                 direction, rule, power)
            assert 2 < got < 1001
    # The default rule and power.
    assert sensitivity.repeats_to_reach(0.15, 0.0004, 0.04, 5, 20, 0.01, 0.05,
                                        'higher') == \
        _reach(0.15, 0.0004, 0.04, 5, 20, 0.01, 0.05, 'higher', 'lookback',
               0.9)
    # No noise: a target of exactly the tolerance is reached.
    assert sensitivity.repeats_to_reach(0.05, 0.0, 0.0, 5, 20, 0.01, 0.05,
                                        'higher') == 2
    assert sensitivity.repeats_to_reach(0.05, 0.01, 0.0, 5, 20, 0.01, 0.05,
                                        'higher') is None


def test_sensitivity_reads_its_direction_power_and_df():
    out = sensitivity.sensitivity(0.01, None, 0.01, 0.05, 0.15, 'lower', 4,
                                  0.0004, 0.04, 5, power=0.5)
    assert out['inputs']['df'] is None
    assert out['detects'] == math.expm1(
        _loss(0.1, math.inf, 0.01, 0.05, 'lower', 'lookback', 0.5))
    assert out['blind'] and out['repeats_needed'] == sensitivity.repeats_to_reach(
        0.15, 0.0004, 0.04, 5, math.inf, 0.01, 0.05, 'lower', 'lookback',
        0.5)
    assert out['repeats_needed'] != sensitivity.repeats_to_reach(
        0.15, 0.0004, 0.04, 5, math.inf, 0.01, 0.05, 'higher', 'lookback')


def test_a_loss_of_all_of_a_rate_is_none_of_a_time_is_kept():
    rate = sensitivity.sensitivity(1e6, 3, 0.01, 0.05, 0.1, 'higher', 5, 0.0, 0.0, 5)
    assert rate['detects'] is None and rate['blind']
    time = sensitivity.sensitivity(1e6, 3, 0.01, 0.05, 0.1, 'lower', 5, 0.0, 0.0, 5)
    assert time['detects'] == math.inf and time['blind']
    small = sensitivity.sensitivity(1e-4, 3, 0.01, 0.05, 0.5, 'lower', 5, 0.0, 0.0,
                                    5)
    assert 0 < small['detects'] < 1 and not small['blind']


def test_a_figure_that_detects_exactly_its_target_is_not_blind():
    found = sensitivity.sensitivity(0.0004, 10, 0.01, 0.05, 1.0, 'higher', 5, 0.0,
                                    0.0004, 5)['detects']
    assert not sensitivity.sensitivity(0.0004, 10, 0.01, 0.05, found, 'higher', 5,
                                       0.0, 0.0004, 5)['blind']


def test_at_level_keeps_direction_rule_repeats_and_power():
    out = sensitivity.sensitivity(0.0025, 1, 0.01, 0.05, 0.1, 'lower', 3, 0.001,
                                  0.002, 4, rule='interval', power=0.8)
    assert sensitivity.at_level(out, 0.001) == sensitivity.sensitivity(
        0.0025, 1, 0.001, 0.05, 0.1, 'lower', 3, 0.001, 0.002, 4,
        rule='interval', power=0.8)


def _iv(change, low, high, df=8.0, cv2_base=0.01, cv2_cur=0.02, n_cur=4):
    return RatioInterval(change, low, high, 0.9, df, cv2_base, cv2_cur, 5,
                         n_cur)


def _of(iv, rule, level_nights=1, tau2=0.0, direction='higher'):
    d = math.log1p(iv.change)
    half = max(d - math.log1p(iv.low), math.log1p(iv.high) - d)
    df = math.inf if iv.df is None else iv.df
    se2 = (half / t_quantile(0.95, max(df, 1.0))) ** 2
    cv2 = max(iv.cv2_cur or 0.0, iv.cv2_base or 0.0)
    if rule == 'lookback':
        cv2 = (iv.cv2_cur or 0.0) * iv.n_cur
    return sensitivity.sensitivity(se2, df, (1.0 - 0.9) / 2.0, 0.05, 0.1, direction, iv.n_cur,
                                   tau2, cv2, level_nights, rule)


def test_of_interval_reads_the_se_back_from_the_wider_side():
    for iv in (_iv(-0.1, -0.3, 0.05), _iv(0.1, 0.05, 0.5),
               _iv(-0.1, -0.3, 0.05, df=None), _iv(0.1, 0.0, 0.2, df=1.0),
               _iv(0.1, 0.0, 0.3, df=0.5)):
        for rule in ('lookback', 'interval'):
            got = sensitivity.of_interval(iv, 0.05, 0.1, 'lower', rule, tau2=0.01)
            assert got == _of(iv, rule, tau2=0.01, direction='lower')
            assert got['repeats'] == 4
    # Without tau2 and level nights given: none and one.
    iv = _iv(0.1, 0.0, 0.25)
    assert sensitivity.of_interval(iv, 0.05, 0.1, 'higher', 'interval') == \
        _of(iv, 'interval')


def test_of_interval_reads_a_missing_spread_as_zero():
    for cv2_base, cv2_cur in ((None, None), (0.3, 0.01), (None, 0.01)):
        iv = _iv(0.1, 0.0, 0.25, cv2_base=cv2_base, cv2_cur=cv2_cur)
        for rule in ('lookback', 'interval'):
            got = sensitivity.of_interval(iv, 0.05, 0.1, 'higher', rule, tau2=0.5,
                                          level_nights=3)
            assert got == _of(iv, rule, level_nights=3, tau2=0.5)
            assert got['repeats_needed'] is None or got['inputs']['cv2'] in \
                (0.0, 0.3, 0.04, 0.01)


def test_of_interval_of_a_total_loss_is_none():
    assert sensitivity.of_interval(_iv(-1.0, -1.0, -0.5), 0.05, 0.1, 'higher',
                                   'lookback') is None
    assert sensitivity.of_interval(_iv(-0.5, -1.2, -0.2), 0.05, 0.1, 'higher',
                                   'lookback') is None


def _nights(level, spread, cv, n=6):
    # Night means spread around ``level`` by ``spread`` (log), each with
    # ``cv`` within-night spread of 5 repeats.
    return [Moments(level * math.exp(spread * (i % 3 - 1) * (1 + i / 10)),
                    (cv * level) ** 2, 5) for i in range(n)]


NIGHTS = {'write_bw': _nights(100.0, 0.02, 0.03),
          'read_bw': _nights(50.0, 0.05, 0.10) + [Moments(0.0, 1.0, 5)],
          'open_ops': _nights(10.0, 0.4, 0.02),
          'stat_ops': _nights(10.0, 0.01, 0.01, n=2),
          'read_util': _nights(10.0, 0.9, 0.5)}


def _noise(nights, z=3.5):
    nights = [n for n in nights if n.mean > 0]
    kept, _ = lookback.drop_outliers(nights, z, clamp=True)
    tau2, df = lookback.night_variance([kept])
    return tau2, lookback.pooled_cv2(kept) or 0.0, df, len(kept)


def test_figure_noise_of_each_figure_with_three_nights():
    got = list(sensitivity.figure_noise(NIGHTS, 3.5))
    assert [g[0] for g in got] == ['write_bw', 'read_bw', 'open_ops',
                                   'read_util']
    for var, *noise in got:
        assert tuple(noise) == _noise(NIGHTS[var]), var
    assert got[1][4] == 6


def test_plan_case_puts_the_hardest_figure_first():
    plans = sensitivity.plan_case(NIGHTS, 0.2, 0.01, 3.5, power=0.8)
    assert [p.var for p in plans] == ['open_ops', 'read_util', 'read_bw',
                                      'write_bw']
    for plan in plans:
        tau2, cv2, df, nights = _noise(NIGHTS[plan.var])
        assert plan == sensitivity.FigurePlan(
            plan.var,
            sensitivity.repeats_to_reach(0.2, tau2, cv2, 5, df, 0.01, 0.0,
                                         'higher', 'lookback', 0.8),
            nights, math.sqrt(tau2), math.sqrt(cv2))
    assert [p.repeats is None for p in plans] == [True, True, False, False]
    assert plans[-2].repeats > plans[-1].repeats


def _detects(tau2, cv2, df, repeats, alpha, power):
    night = tau2 + cv2 / repeats
    se = math.sqrt(night + night / 5)
    return -math.expm1(-_loss(se, df, alpha, 0.0, 'higher', 'lookback',
                              power))


def test_plan_detects_is_the_least_sensitive_headline_figure():
    headline = {k: v for k, v in NIGHTS.items() if k != 'open_ops'}
    loss, var = sensitivity.plan_detects(headline, 4, 0.01, 3.5, power=0.8)
    # read_util is diagnostic: never the one that sets it.
    assert var == 'read_bw'
    assert loss == _detects(*_noise(NIGHTS['read_bw'])[:3], 4, 0.01, 0.8)
    assert loss > _detects(*_noise(NIGHTS['write_bw'])[:3], 4, 0.01, 0.8)


def test_plan_detects_without_three_nights_takes_the_default_noise():
    assert sensitivity.plan_detects({'stat_ops': NIGHTS['stat_ops']}, 4, 0.01,
                                    3.5) == \
        (_detects(0.03 ** 2, 0.05 ** 2, math.inf, 4, 0.01, 0.9), None)


def test_a_quiet_time_detects_its_own_tolerance():
    # se 0: the lower-is-better margin ln(1.05), found as +5 %.
    out = sensitivity.sensitivity(0.0, 10, 0.01, 0.05, 0.1, 'lower', 5, 0.0,
                                  0.0, 5)
    assert math.isclose(out['detects'], 0.05, rel_tol=1e-12)


#: Ten nights, the fourth at ten times the level: an outlier the night
#: noise clamps to the limit, not drops.
WILD = {'wild_bw': [Moments(m, 1.0, 5) for m in
                    (100.0, 101.0, 99.0, 1000.0, 100.5, 99.5, 100.2, 99.8,
                     100.1, 99.9)]}


def test_figure_noise_clamps_an_outlying_night_and_counts_three_up():
    edge = {'three': _nights(0.5, 0.05, 0.1, n=3),
            'two': _nights(0.5, 0.05, 0.1, n=2),
            'bare': [Moments(m, None, 1) for m in (1.0, 1.1, 0.9)]}
    got = list(sensitivity.figure_noise({**WILD, **edge}, 3.5))
    assert [g[0] for g in got] == ['wild_bw', 'three', 'bare']
    for var, *noise in got:
        assert tuple(noise) == _noise({**WILD, **edge}[var]), var
    assert got[0][4] == 10 and got[2][2] == 0.0
    clamped = lookback.drop_outliers(WILD['wild_bw'], 3.5, clamp=True)[0]
    assert max(n.mean for n in clamped) < 1000.0


def test_plans_read_the_outlier_limit():
    tau2, cv2, df, _ = _noise(WILD['wild_bw'])
    (plan,) = sensitivity.plan_case(WILD, 0.2, 0.01, 3.5)
    assert plan.tau == math.sqrt(tau2)
    assert sensitivity.plan_detects(WILD, 4, 0.01, 3.5) == \
        (_detects(tau2, cv2, df, 4, 0.01, 0.9), 'wild_bw')


def test_plan_detects_keeps_the_first_of_two_equally_sensitive_figures():
    same = {'a_bw': NIGHTS['write_bw'], 'b_bw': NIGHTS['write_bw']}
    assert sensitivity.plan_detects(same, 4, 0.01, 3.5)[1] == 'a_bw'
