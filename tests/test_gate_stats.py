# SPDX-License-Identifier: BSD-3-Clause
"""Statistics and verdicts of the gate: known inputs, known answers."""

import math
import statistics

import pytest

from pfsbench.core.errors import NotEnoughSamples
from pfsbench.gate.judge.rule import decide, fixed_tolerance_verdict, judge
from pfsbench.gate.statistics.stats import (ratio_interval, repeats_to_settle,
                                            t_cdf, t_quantile, welch_df)


@pytest.mark.parametrize('df, expected', [
    # Two-sided 95 % critical values from any t table.
    (1, 12.7062047), (2, 4.3026527), (3, 3.1824463), (4, 2.7764451),
    (9, 2.2621572), (10, 2.2281389), (30, 2.0422725), (1000, 1.9623391),
])
def test_t_quantile_matches_tables(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-6)


def test_t_cdf_known_values_and_symmetry():
    assert t_cdf(0.0, 5) == pytest.approx(0.5)
    # Cauchy (df=1): P(T <= 1) = 3/4.
    assert t_cdf(1.0, 1) == pytest.approx(0.75, abs=1e-12)
    assert t_cdf(-2.0, 7) == pytest.approx(1 - t_cdf(2.0, 7))
    assert t_quantile(0.025, 6) == pytest.approx(-t_quantile(0.975, 6))


def test_welch_df_equal_variances_and_sizes():
    # Equal variances and sizes: 2(n-1).
    assert welch_df(0.5, 5, 0.5, 5) == pytest.approx(8.0)
    assert math.isinf(welch_df(0.0, 3, 0.0, 3))


def test_ratio_interval_against_hand_computation():
    base = [100.0, 102.0, 98.0]
    cur = [90.0, 91.0, 89.0]
    iv = ratio_interval(base, cur, 0.95)
    # By hand: means 100 and 90; variances 4 and 1.
    a = 1.0 / (3 * 90.0 ** 2)     # var(cur)/(n mean^2)
    b = 4.0 / (3 * 100.0 ** 2)
    df = (a + b) ** 2 / (a * a / 2 + b * b / 2)
    t = t_quantile(0.975, df)
    d = math.log(0.9)
    assert iv.change == pytest.approx(-0.1)
    assert iv.df == pytest.approx(df)
    assert df == pytest.approx(3.1272, abs=1e-3)
    assert iv.low == pytest.approx(math.exp(d - t * math.sqrt(a + b)) - 1)
    assert iv.high == pytest.approx(math.exp(d + t * math.sqrt(a + b)) - 1)
    assert iv.low == pytest.approx(-0.13623, abs=1e-4)
    assert iv.high == pytest.approx(-0.06225, abs=1e-4)


def test_ratio_interval_covers_at_nominal_rate():
    # Monte Carlo coverage check of the method on normal data with a known
    # 10 % drop: the 95 % interval must contain -0.1 about 95 % of the time.
    import random
    rng = random.Random(42)
    hits, trials = 0, 2000
    for _ in range(trials):
        base = [rng.gauss(100, 5) for _ in range(5)]
        cur = [rng.gauss(90, 5) for _ in range(5)]
        iv = ratio_interval(base, cur)
        hits += iv.low <= -0.1 <= iv.high

    assert 0.93 <= hits / trials <= 0.97


def test_single_sample_borrows_spread():
    iv = ratio_interval([100.0, 110.0, 90.0], [80.0])
    assert iv.borrowed == 'cur'
    assert iv.df == 2
    assert iv.cv2_cur == iv.cv2_base


def test_not_enough_samples():
    with pytest.raises(NotEnoughSamples):
        ratio_interval([100.0], [90.0])

    with pytest.raises(NotEnoughSamples):
        ratio_interval([], [90.0, 91.0])


class _IV:
    def __init__(self, low, high):
        self.low, self.high = low, high


@pytest.mark.parametrize('low, high, direction, verdict', [
    (-0.20, -0.10, 'higher', 'regression'),
    (-0.08, +0.02, 'higher', 'inconclusive'),
    (-0.04, +0.02, 'higher', 'pass'),
    (+0.04, +0.20, 'higher', 'pass'),        # may be better, not shown
    (+0.06, +0.20, 'higher', 'improvement'),
    (+0.10, +0.20, 'lower', 'regression'),   # a time went up 10-20 %
    (-0.02, +0.08, 'lower', 'inconclusive'),
    (-0.02, +0.04, 'lower', 'pass'),
    (-0.20, -0.06, 'lower', 'improvement'),
])
def test_decide(low, high, direction, verdict):
    assert decide(_IV(low, high), 0.05, direction)[0] == verdict


def test_judge_known_regression_and_pass():
    base = [100.0, 101.0, 99.0, 100.5, 99.5]
    assert judge(base, [80.0, 81.0, 79.0], 0.05, 'higher')['verdict'] == \
        'regression'
    assert judge(base, [100.2, 99.8, 100.1], 0.05, 'higher')['verdict'] == \
        'pass'
    # A time that went from 10 s to 12 s is a regression.
    assert judge([10.0, 10.1, 9.9], [12.0, 12.1, 11.9], 0.05,
                 'lower')['verdict'] == 'regression'


def test_judge_inconclusive_reports_repeats_needed():
    base = [100.0, 120.0, 85.0]
    cur = [95.0, 110.0, 80.0]
    out = judge(base, cur, 0.05, 'higher')
    assert out['verdict'] == 'inconclusive'
    assert out['repeats_needed'] is not None and out['repeats_needed'] > 3
    assert f'about {out["repeats_needed"]} repeats' in out['reason']
    # With that many repeats at the same means and spreads the verdict
    # settles: build such samples and check.
    n = out['repeats_needed']
    mb, mc = statistics.fmean(base), statistics.fmean(cur)
    sb, sc = statistics.stdev(base), statistics.stdev(cur)
    import random
    rng = random.Random(1)

    def exact(mean, sd):
        xs = [rng.gauss(0, 1) for _ in range(n)]
        m, s = statistics.fmean(xs), statistics.stdev(xs)
        return [mean + sd * (x - m) / s for x in xs]

    settled = judge(exact(mb, sb), exact(mc, sc), 0.05, 'higher')
    assert settled['verdict'] != 'inconclusive'


def test_repeats_to_settle_none_on_threshold():
    iv = ratio_interval([100.0, 110.0, 90.0], [95.0, 105.0, 85.0])
    assert repeats_to_settle(iv, iv.change) is None


def test_too_few_current_samples_is_inconclusive():
    out = judge([100.0, 101.0, 99.0], [100.5], 0.05, 'higher', min_samples=2)
    assert out['verdict'] == 'inconclusive'
    assert '1 current sample' in out['reason']
    # A collapse is not silent (issue 33): the whole interval beyond the
    # tolerance, judged with the baseline's spread of one repeat.
    out = judge([100.0, 101.0, 99.0], [50.0], 0.05, 'higher', min_samples=2)
    assert out['verdict'] == 'regression'
    assert '1 current sample(s) where the gate needs 2' in out['reason']


def test_fixed_tolerance_verdict():
    assert fixed_tolerance_verdict([100.0], [89.0], 0.10, 'higher') == \
        'regression'
    assert fixed_tolerance_verdict([100.0], [91.0], 0.10, 'higher') == 'pass'
    assert fixed_tolerance_verdict([10.0], [11.5], 0.10, 'lower') == \
        'regression'


def test_zero_on_both_sides_passes():
    out = judge([0.0, 0.0, 0.0], [0.0, 0.0], 0.05, 'lower')
    assert out['verdict'] == 'pass' and out['change'] == 0.0
    # Zero only in the baseline: no ratio, so no claim either way.
    assert judge([0.0, 0.0], [0.1, 0.2], 0.05, 'lower')['verdict'] == \
        'inconclusive'
    assert fixed_tolerance_verdict([0.0, 0.0], [0.0], 0.10, 'lower') is None


def test_repeats_to_settle_hand_checked():
    # cv 10 % per sample on both sides, change -20 %, threshold -5 %:
    # margin = ln(0.95) - ln(0.8) = 0.1719; need t(nu) * sqrt(0.02/n) below
    # it.  n=5: nu=8, t=2.306, 2.306*0.0632 = 0.146 < 0.172; n=4: nu=6,
    # t=2.447, 2.447*0.0707 = 0.173 > 0.172.  So 5.
    from pfsbench.gate.statistics.stats import RatioInterval
    iv = RatioInterval(change=-0.2, low=-0.5, high=0.1, confidence=0.95,
                       df=4, cv2_base=0.01, cv2_cur=0.01, n_base=3,
                       n_cur=3)
    assert repeats_to_settle(iv, -0.05) == 5
    huge = RatioInterval(change=-0.06, low=-0.9, high=2.0, confidence=0.95,
                         df=4, cv2_base=1.0, cv2_cur=1.0, n_base=3, n_cur=3)
    assert repeats_to_settle(huge, -0.05) == 1001


def test_night_noise_and_floor_by_hand():
    from pfsbench.gate.statistics.stats import floor_by_nights, night_noise
    assert night_noise([100.0, 101.0, 99.0, 100.0]) is None   # < 5
    means = [100.0, 110.0, 100.0, 110.0, 100.0, 110.0]
    var, df = night_noise(means)
    # |diff(ln m)| is ln(1.1) every time: MAD = 0, so no night noise.
    assert var == 0.0 and df == 2
    means = [100.0, 110.0, 100.0, 90.0, 100.0, 110.0, 100.0]
    var, df = night_noise(means)
    diffs = [math.log(b / a) for a, b in zip(means, means[1:])]
    med = statistics.median(diffs)
    mad = statistics.median(abs(d - med) for d in diffs)
    assert var == pytest.approx((1.4826 * mad / math.sqrt(2)) ** 2)
    assert df == 2          # round(0.37 * 6)
    iv = ratio_interval([100.0, 100.1, 99.9], [92.0, 92.1, 91.9])
    wide = floor_by_nights(iv, var, df, base_sessions=1)
    assert wide.night_floor and wide.df == 2
    half = t_quantile(0.975, 2) * math.sqrt(2 * var)
    assert wide.low == pytest.approx(0.92 * math.exp(-half) - 1, rel=1e-3)
    assert floor_by_nights(iv, 0.0, 2) is iv      # no floor needed


def test_night_floor_never_narrows():
    from pfsbench.gate.statistics.stats import floor_by_nights
    # Few samples, a t quantile of ~2.6 degrees of freedom: a floor with a
    # slightly larger variance but many degrees of freedom would be
    # narrower; it must leave the interval alone.
    iv = ratio_interval([100.0, 104.0, 96.0], [90.0, 93.0, 87.0])
    own = iv.cv2_cur / 3 + iv.cv2_base / 3
    assert floor_by_nights(iv, own * 0.6, 200, base_sessions=1) is iv


def test_shipped_gate_yaml_directions():
    from pfsbench.gate.judge import config
    cfg = config.load(config.DEFAULT_PATH)
    assert cfg.settings_for('dd_stream_per_node', 'write_bw', 'MB/s') == \
        (0.05, 'higher', False)
    assert cfg.settings_for('ior_bw', 'write_bw_stddev', 'MiB/s') == \
        (0.5, 'lower', False)
    assert cfg.settings_for('dd_stream_per_node', 'read_stream_spread',
                            '%')[1] == 'lower'
    assert cfg.settings_for('dd_stream_per_node', 'start_skew',
                            's') == (1.0, 'lower', False)


@pytest.mark.parametrize('n', [3, 5, 10])
@pytest.mark.rates
def test_regression_rate_at_the_tolerance_is_alpha_over_two(n):
    # True change exactly -5 % (on the tolerance): the whole interval lies
    # beyond -5 % in about 2.5 % of the trials, and true change 0 almost
    # never; both by Monte Carlo on iid normal samples (CV 5 %).
    import random
    rng = random.Random(n)
    trials = 1500
    at_tol = zero = 0
    for _ in range(trials):
        base = [rng.gauss(100, 5) for _ in range(n)]
        at_tol += judge(base, [rng.gauss(95, 4.75) for _ in range(n)], 0.05,
                        'higher')['verdict'] == 'regression'
        zero += judge(base, [rng.gauss(100, 5) for _ in range(n)], 0.05,
                      'higher')['verdict'] == 'regression'

    assert 0.01 <= at_tol / trials <= 0.045
    assert zero / trials < 0.01


def test_moments_from_summaries_is_exact():
    import random
    from pfsbench.gate.statistics.stats import moments_from_summaries
    rng = random.Random(3)
    runs = [[rng.gauss(100, 7) for _ in range(r)] for r in (3, 5, 4)]
    mom = moments_from_summaries([statistics.fmean(x) for x in runs],
                                 [statistics.pstdev(x) for x in runs],
                                 [len(x) for x in runs])
    every = [v for x in runs for v in x]
    assert mom.n == 12
    assert mom.mean == pytest.approx(statistics.fmean(every))
    assert mom.variance == pytest.approx(statistics.variance(every))
