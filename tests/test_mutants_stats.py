# SPDX-License-Identifier: BSD-3-Clause
"""The gate's statistics (pfsbench.gate.statistics.stats) against closed
forms and hand-computed values at the edges the rules rely on: Student's
t of 1 and 2 degrees of freedom, Fisher's F of 2, Plackett's identity at
0, the windows' bound at its ends, the robust night moments
(docs/mutation.md)."""

import math
import statistics

import pytest

from pfsbench.core.errors import NotEnoughSamples
from pfsbench.gate.statistics.stats import (
    MIN_REPEATS_FOR_WILD, OWN_SCALE, SPREAD_MEDIANS, WILD_Z, Moments,
    RatioInterval, both_below, diff_sigma, f_sf, floor_by_nights,
    median_abs_dev, min_p_bound, moments, moments_from_summaries,
    night_moments, night_noise, night_spread, pooled_scale, ratio_interval,
    ratio_interval_moments, repeats_to_settle, satterthwaite_df,
    smallest_count, t_cdf, t_quantile, welch_df, wild_repeats,
    wild_scale_text)

PHI = statistics.NormalDist().cdf


@pytest.mark.parametrize('t', [-30.0, -3.0, -0.4, 0.0, 0.3, 1.0, 2.5, 40.0])
def test_t_cdf_of_1_and_2_degrees_of_freedom(t):
    # Cauchy, and the closed form of 2 degrees of freedom.
    assert t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi,
                                        rel=1e-12, abs=1e-14)
    assert t_cdf(t, 2) == pytest.approx(
        0.5 + t / (2.0 * math.sqrt(2.0 + t * t)), rel=1e-12, abs=1e-14)
    assert t_cdf(t, math.inf) == pytest.approx(PHI(t), rel=1e-12)


def test_t_cdf_refuses_no_degrees_of_freedom():
    for df in (0, -1.0):
        with pytest.raises(ValueError, match=f'got {df}'):
            t_cdf(1.0, df)


@pytest.mark.parametrize('p', [0.6, 0.9, 0.975, 0.999, 0.9999999])
def test_t_quantile_of_1_and_2_degrees_of_freedom(p):
    assert t_quantile(p, 1) == pytest.approx(
        math.tan(math.pi * (p - 0.5)), rel=1e-9)
    assert t_quantile(p, 2) == pytest.approx(
        (2 * p - 1) * math.sqrt(2.0 / (4 * p * (1 - p))), rel=1e-9)
    assert t_quantile(1 - p, 2) == pytest.approx(-t_quantile(p, 2),
                                                 rel=1e-12)
    assert t_quantile(p, 2e7) == statistics.NormalDist().inv_cdf(p)
    assert t_quantile(p, math.inf) == statistics.NormalDist().inv_cdf(p)


def test_t_quantile_of_a_tiny_df_and_its_bounds():
    # Newton does not converge for df this small: bisection, or infinity
    # where the quantile is beyond 1e12.
    for p in (0.6, 0.7):
        q = t_quantile(p, 0.05)
        assert t_cdf(q, 0.05) == pytest.approx(p, abs=1e-9)
        assert t_cdf(q * 1.01, 0.05) > p
    for p in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match=f'got {p}'):
            t_quantile(p, 3)


@pytest.mark.parametrize('f, d2', [(0.5, 3), (1.0, 7), (4.0, 10.5),
                                   (20.0, 2)])
def test_f_sf_of_2_numerator_degrees(f, d2):
    assert f_sf(f, 2, d2) == pytest.approx((1 + 2 * f / d2) ** (-d2 / 2),
                                           rel=1e-10)


def test_f_sf_at_and_below_zero():
    assert f_sf(0.0, 3, 4) == 1.0
    assert f_sf(-1.0, 3, 4) == 1.0
    # Symmetry of F(d, d) about 1.
    assert f_sf(1.0, 6, 6) == pytest.approx(0.5, rel=1e-12)


def test_satterthwaite_and_welch_df():
    assert satterthwaite_df([(2.0, 4), (1.0, 9)]) == pytest.approx(
        9.0 / (4.0 / 4 + 1.0 / 9))
    # A part with no variance or no df adds to the sum, not the divisor.
    assert satterthwaite_df([(2.0, 4), (1.0, 0)]) == pytest.approx(
        9.0 / 1.0)
    assert satterthwaite_df([(2.0, 4), (0.0, 3)]) == pytest.approx(4.0)
    assert satterthwaite_df([(0.0, 4), (0.0, 3)]) == math.inf
    assert welch_df(2.0, 5, 1.0, 10) == pytest.approx(
        9.0 / (4.0 / 4 + 1.0 / 9))


@pytest.mark.parametrize('h', [-2.0, -0.5, 0.0, 0.7, 2.3])
def test_both_below_at_the_ends_of_the_correlation(h):
    assert both_below(h, 0.0) == PHI(h) ** 2
    assert both_below(h, -0.3) == PHI(h) ** 2
    assert both_below(h, 1.0) == pytest.approx(PHI(h), rel=1e-6)
    assert both_below(h, 1.5) == both_below(h, 1.0)
    assert both_below(h, 0.5, low=0.25) == pytest.approx(
        0.0625 + both_below(h, 0.5) - PHI(h) ** 2, rel=1e-12)


@pytest.mark.parametrize('rho', [0.1, 0.5, 0.9])
def test_both_below_at_zero_is_sheppards(rho):
    assert both_below(0.0, rho) == pytest.approx(
        0.25 + math.asin(rho) / (2 * math.pi), rel=1e-9)


def test_min_p_bound_at_its_ends():
    assert min_p_bound(0.01, [0.1]) == 0.01
    assert min_p_bound(0.01, []) == 0.01
    assert min_p_bound(0.0, [0.1, 0.2]) == 0.0
    assert min_p_bound(-0.1, [0.1, 0.2]) == -0.1
    assert min_p_bound(1.0, [0.1, 0.2]) == 1.0
    assert min_p_bound(1.2, [0.1, 0.2]) == 1.0
    # Equal windows are one test; an independent pair is 2p - p^2.
    assert min_p_bound(0.01, [0.1, 0.1, 0.1]) == pytest.approx(0.01)
    assert min_p_bound(0.01, [0.1, 0.0]) == pytest.approx(0.02 - 1e-4)
    assert min_p_bound(0.01, [0.0, 0.1]) == pytest.approx(0.01)
    assert min_p_bound(0.4, [1.0, 0.0, 0.0]) == pytest.approx(
        1.2 - 0.16 - 0.4, rel=1e-8)
    assert min_p_bound(0.6, [1.0, 1e-9, 1e-18]) == 1.0
    # A longer window of a larger error counts as fully correlated.
    assert min_p_bound(0.01, [0.1, 0.2]) == pytest.approx(0.01)
    mid = min_p_bound(0.01, [0.1, 0.05])
    assert mid == pytest.approx(0.02 - both_below(
        statistics.NormalDist().inv_cdf(0.01), 0.5), rel=1e-12)
    assert 0.01 < mid < 0.02


def test_median_abs_dev_and_diff_sigma():
    assert median_abs_dev([1.0, 2.0, 4.0, 10.0]) == 1.5
    assert median_abs_dev([5.0]) == 0.0
    assert diff_sigma([0.0, 1.0, 3.0, 6.0, 10.0]) == pytest.approx(
        1.4826 * 1.0 / math.sqrt(2.0))


def test_ratio_interval_names_an_empty_side():
    with pytest.raises(NotEnoughSamples,
                       match='got 0 baseline and 2 current'):
        ratio_interval([], [1.0, 2.0])
    with pytest.raises(NotEnoughSamples,
                       match='got 2 baseline and 0 current'):
        ratio_interval([1.0, 2.0], [])
    with pytest.raises(NotEnoughSamples, match=(
            r'means must be positive for a ratio, got baseline -1.0 and '
            r'current 2.0')):
        ratio_interval([-1.0, -1.0], [2.0, 2.0])
    with pytest.raises(NotEnoughSamples, match='current 0.0$'):
        ratio_interval([1.0, 2.0], [0.0, 0.0])


def test_ratio_interval_by_hand():
    base, cur = [10.0, 12.0, 11.0], [9.0, 9.5, 10.0, 9.5]
    iv = ratio_interval(base, cur, 0.9)
    a = statistics.variance(cur) / 9.5 ** 2 / 4
    b = statistics.variance(base) / 11.0 ** 2 / 3
    df = (a + b) ** 2 / (a * a / 3 + b * b / 2)
    half = t_quantile(0.95, df) * math.sqrt(a + b)
    d = math.log(9.5 / 11.0)
    assert iv == RatioInterval(pytest.approx(math.expm1(d)),
                               pytest.approx(math.expm1(d - half)),
                               pytest.approx(math.expm1(d + half)), 0.9,
                               pytest.approx(df),
                               pytest.approx(b * 3), pytest.approx(a * 4),
                               3, 4, '', False)


def test_one_sample_borrows_the_other_sides_spread():
    iv = ratio_interval([10.0], [9.0, 11.0, 10.0], 0.95)
    assert (iv.borrowed, iv.df, iv.n_base, iv.n_cur) == ('base', 2, 1, 3)
    assert iv.cv2_base == iv.cv2_cur == pytest.approx(0.01)
    half = t_quantile(0.975, 2) * math.sqrt(0.01 / 3 + 0.01)
    assert iv.high == pytest.approx(math.expm1(half))
    iv = ratio_interval([9.0, 11.0, 10.0, 10.0], [10.0], 0.95)
    assert (iv.borrowed, iv.df) == ('cur', 3)
    # No spread at all: a point, of infinite degrees of freedom.
    for base, cur in (([5.0], [5.0, 5.0]), ([5.0, 5.0], [4.0])):
        iv = ratio_interval(base, cur)
        assert iv.df == math.inf
        assert iv.low == iv.change == iv.high
    iv = ratio_interval([5.0, 5.0], [4.0, 4.0])
    assert (iv.low, iv.high, iv.df) == (pytest.approx(-0.2),
                                        pytest.approx(-0.2), math.inf)


def test_moments_of_samples():
    assert moments([2.0]) == Moments(2.0, None, 1)
    assert moments([1.0, 2.0, 6.0]) == Moments(3.0, 7.0, 3)


def test_moments_from_summaries_of_one_iteration():
    assert moments_from_summaries([4.0], [0.0], [1]) == Moments(4.0, None,
                                                                1)
    got = moments_from_summaries([1.0, 3.0], [0.0, 1.0], [1, 2])
    assert (got.mean, got.n) == (7.0 / 3.0, 3)
    assert got.variance == pytest.approx(statistics.variance([1.0, 2.0,
                                                              4.0]))


def test_repeats_to_settle_edges():
    iv = RatioInterval(-0.04, -0.1, 0.02, 0.95, 8.0, 0.01, 0.01, 5, 5)
    need = repeats_to_settle(iv, -0.05)
    assert 2 <= need <= 1000
    margin = abs(math.log(0.96) - math.log(0.95))

    def half(n):
        return t_quantile(0.975, welch_df(0.01 / n, n, 0.01 / n, n)) * \
            math.sqrt(0.02 / n)

    assert half(need) < margin <= half(need - 1)
    assert repeats_to_settle(iv, -0.05, max_repeats=need - 1) == need
    assert repeats_to_settle(iv, -0.04) is None
    lost = RatioInterval(-1.0, -1.0, -0.5, 0.95, 8.0, 0.01, 0.01, 5, 5)
    assert repeats_to_settle(lost, -0.05) is None
    easy = RatioInterval(0.5, -0.1, 0.9, 0.95, 8.0, 0.01, 0.01, 5, 5)
    assert repeats_to_settle(easy, -0.05) == 2


def test_smallest_count():
    assert smallest_count(lambda n: n >= 7, 1000) == 7
    assert smallest_count(lambda n: n >= 1000, 1000) == 1000
    assert smallest_count(lambda n: n >= 1001, 1000) == 1001
    assert smallest_count(lambda n: True, 1000) == 2
    assert smallest_count(lambda n: n >= 3, 4) == 3


def test_night_noise_by_hand():
    means = [100.0, 110.0, None, 0.0, 99.0, 108.0, 100.0]
    logs = [math.log(v) for v in (100.0, 110.0, 99.0, 108.0, 100.0)]
    sigma = diff_sigma(logs)
    assert night_noise(means) == (pytest.approx(sigma * sigma), 1.0)
    assert night_noise(means, min_sessions=6) is None
    many = [100.0 + (i % 3) for i in range(12)]
    assert night_noise(many)[1] == 4
    assert night_noise([100.0] * 4) is None


def test_floor_by_nights_by_hand():
    iv = ratio_interval([10.0, 10.1, 9.9], [10.0, 10.05, 9.95], 0.9)
    wide = floor_by_nights(iv, 0.01, 6, base_sessions=4)
    half = t_quantile(0.95, 6) * math.sqrt(0.01 * 1.25)
    d = math.log1p(iv.change)
    assert wide == RatioInterval(iv.change, pytest.approx(math.expm1(
        d - half)), pytest.approx(math.expm1(d + half)), 0.9, 6,
        iv.cv2_base, iv.cv2_cur, 3, 3, '', True)
    assert floor_by_nights(iv, 1e-12, 6) is iv
    lost = RatioInterval(-1.0, -1.0, -0.9, 0.95, 4.0, 0.0, 0.0, 3, 3)
    assert floor_by_nights(lost, 0.01, 6) is lost
    one = ratio_interval([10.0], [9.0, 10.0, 11.0])
    assert floor_by_nights(one, 0.05, 3).borrowed == 'base'


def test_night_spread_and_its_medians():
    assert night_spread([5.0]) is None
    assert night_spread([5.0, 0.0]) is None
    assert night_spread([5.0, math.inf]) is None
    assert night_spread([5.0, 5.0, 5.0]) == 0.0
    logs = [0.0, 0.1, 0.3]
    values = [math.exp(x) for x in logs]
    # Three repeats: half the range over the table's 0.7942 (the middle
    # one's deviation left out).
    assert night_spread(values) == pytest.approx(0.15 / 0.7942)
    four = [math.exp(x) for x in (0.0, 0.1, 0.2, 0.6)]
    assert night_spread(four) == pytest.approx(0.1 / SPREAD_MEDIANS[4])
    for n, trend in ((13, 0.6745 + 0.11 / 13), (14, 0.6745 - 0.78 / 14)):
        vals = [math.exp(0.01 * i) for i in range(n)]
        logs = [0.01 * i for i in range(n)]
        med = statistics.median(logs)
        devs = sorted(abs(x - med) for x in logs)[n % 2:]
        assert night_spread(vals) == pytest.approx(
            statistics.median(devs) / trend)


def test_pooled_scale():
    assert pooled_scale([0.1, None, 0.2, float('nan'), 0.3, 0.4]) is None
    found = pooled_scale([0.1, None, 0.2, float('nan'), 0.3, 0.4, 0.5])
    assert found == statistics.quantiles([0.1, 0.2, 0.3, 0.4, 0.5], n=4)[2]
    # The newest 20 nights only.
    assert pooled_scale([9.0] + [0.1] * 16 + [9.0] * 4) == \
        pytest.approx(0.1)
    assert pooled_scale([0.1] * 16 + [9.0] * 4) == pytest.approx(0.1)
    assert pooled_scale([0.1] * 15 + [9.0] * 5) > 1.0


def test_wild_repeats_of_a_long_night():
    night = [100.0, 101.0, 99.0, 100.5, 99.5, 300.0]
    wild = wild_repeats(night)
    assert [(i, v) for i, v, _ in wild] == [(5, 300.0)]
    logs = [math.log(v) for v in night]
    med = statistics.median(logs)
    mad = 1.4826 * statistics.median(abs(x - med) for x in logs)
    assert wild[0][2] == pytest.approx((math.log(300.0) - med) / mad)
    # The pooled scale floors the night's own.
    assert wild_repeats(night, scale=0.5) == []
    assert wild_repeats(night, scale=0.001) == wild
    assert wild_repeats([100.0] * 6) == []
    assert wild_repeats(night[:-1] + [0.0]) == []
    assert wild_repeats(night[:-1] + [math.nan]) == []


def test_wild_repeats_at_the_limit():
    # Five repeats, MAD 0.1 in logs: the limit is 8 x 1.4826 x 0.1.
    limit = WILD_Z * 1.4826 * 0.1
    logs = [-0.1, 0.0, 0.0, 0.1, limit * 1.001]
    assert [i for i, _, _ in wild_repeats([math.exp(x) for x in logs])] \
        == [4]
    logs[-1] = limit * 0.999
    assert wild_repeats([math.exp(x) for x in logs]) == []


def test_wild_repeats_of_a_short_night():
    night = [100.0, 101.0, 160.0]
    assert wild_repeats(night) == []
    assert [i for i, _, _ in wild_repeats(night, scale=0.001)] == [2]
    assert wild_repeats(night, scale=0.0005) == []  # 2 of 3 beyond: broad
    night = [100.0, 100.0, 160.0, 100.0]
    wild = wild_repeats(night, scale=0.02)
    assert [(i, v) for i, v, _ in wild] == [(2, 160.0)]
    assert wild[0][2] == pytest.approx(math.log(1.6) / 0.02)
    # 16 pooled scales is the limit of a short night.
    assert wild_repeats(night, scale=math.log(1.6) / 15.9) == []
    assert wild_repeats(night, scale=math.log(1.6) / 16.1) != []
    assert wild_repeats([100.0, 160.0], scale=0.001) == []
    assert wild_repeats([100.0, 100.0, 160.0], scale=0.0) == []


def test_night_moments_leave_the_wild_out():
    night = [100.0, 101.0, 99.0, 100.5, 99.5, 300.0]
    got = night_moments(night)
    assert got == moments(night[:5])
    assert got.left_out == ((5, 300.0, wild_repeats(night)[0][2]),)
    assert got.wild_scale == OWN_SCALE
    assert night_moments(night[:5]) == moments(night[:5])
    assert night_moments(night[:5]).left_out == ()
    short = night_moments([100.0, 100.0, 160.0, 100.0], scale=0.02)
    assert (short.n, short.mean) == (3, 100.0)
    assert short.wild_scale == (
        'the within-night scale pooled over the figure\'s other nights '
        '(2 %; limit 16)')


def test_wild_scale_text():
    assert MIN_REPEATS_FOR_WILD == 5
    steady = [100.0, 101.0, 99.0, 100.5, 99.5]
    assert wild_scale_text(steady, None) == OWN_SCALE
    assert OWN_SCALE == ('its night\'s scaled median absolute deviation '
                         '(limit 8)')
    assert wild_scale_text(steady, 0.0001) == OWN_SCALE
    assert wild_scale_text(steady, 0.5) == (
        'the within-night scale pooled over the figure\'s other nights '
        '(50 %), above its night\'s own (limit 8)')
    assert wild_scale_text([1.0, 2.0, 3.0], 0.0123) == (
        'the within-night scale pooled over the figure\'s other nights '
        '(1.23 %; limit 16)')


def test_small_samples_at_their_bounds():
    assert moments([1.0, 3.0]) == Moments(2.0, 2.0, 2)
    assert night_spread([1.0, math.exp(0.1)]) == pytest.approx(
        0.05 / SPREAD_MEDIANS[2])
    assert diff_sigma([0.0, 2.0, 6.0, 12.0, 20.0]) == pytest.approx(
        1.4826 * 2.0 / math.sqrt(2.0))
    with pytest.raises(NotEnoughSamples, match=(
            'need at least 2 samples on one side to estimate the spread, '
            'got 1 baseline and 1 current')):
        ratio_interval_moments(Moments(1.0, None, 1), Moments(1.0, None, 1))


def test_night_noise_of_small_means_and_its_df():
    small = [0.5, 0.55, 0.52, 0.5, 0.51]
    sigma = diff_sigma([math.log(v) for v in small])
    assert night_noise(small) == (pytest.approx(sigma * sigma), 1.0)
    eight = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 100.1, 99.8]
    assert night_noise(eight)[1] == 3


def test_satterthwaite_counts_a_part_of_one_degree():
    # (1 + 1)^2 / (1/1 + 1/1) = 2: a part of df 1 is a part.
    assert satterthwaite_df([(1.0, 1), (1.0, 1)]) == pytest.approx(2.0)


def test_moments_from_summaries_of_two_iterations_have_a_variance():
    # Runs of one iteration at 1 and 3: mean 2, variance (1 + 1) / 1.
    assert moments_from_summaries([1.0, 3.0], [0.0, 0.0], [1, 1]) == \
        Moments(2.0, 2.0, 2)


def test_ratio_interval_moments_of_means_below_one():
    got = ratio_interval_moments(Moments(0.5, 0.01, 4), Moments(0.25, 0.01, 4))
    assert got.change == pytest.approx(-0.5)
    assert got.confidence == 0.95 and got.low < -0.5 < got.high
    for base, cur in ((Moments(0.0, 1.0, 4), Moments(1.0, 1.0, 4)),
                      (Moments(1.0, 1.0, 4), Moments(0.0, 1.0, 4))):
        with pytest.raises(NotEnoughSamples, match='means must be positive'):
            ratio_interval_moments(base, cur)


def test_floor_by_nights_of_a_large_change_and_one_baseline_session():
    # A 50 % gain measured tightly: its own half-width (about 0.01 in
    # logs) is what the floor compares with, not where the change sits.
    iv = ratio_interval([10.0, 10.1, 9.9], [15.0, 15.1, 14.9])
    wide = floor_by_nights(iv, 0.01, 6)
    half = t_quantile(0.975, 6) * math.sqrt(0.01 * 2.0)
    d = math.log1p(iv.change)
    assert wide.night_floor and half < d
    assert wide.low == pytest.approx(math.expm1(d - half))
    assert wide.high == pytest.approx(math.expm1(d + half))


def test_a_short_night_half_wild_is_broad_not_wild():
    assert wild_repeats([1.0, math.exp(0.001), math.exp(3), math.exp(-3)],
                        scale=0.01) == []
    (wild,) = wild_repeats([1.0, math.exp(0.001), math.exp(0.002),
                            math.exp(3)], scale=0.01)
    assert wild[0] == 3


def test_repeats_to_settle_gives_up_beyond_1000_by_default():
    iv = RatioInterval(-0.0501, -0.07, -0.03, 0.95, 4, 1e-4, 1e-4, 3, 3)
    assert repeats_to_settle(iv, -0.05) == 1001
