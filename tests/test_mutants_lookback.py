# SPDX-License-Identifier: BSD-3-Clause
"""The lookback rule's parts (pfsbench.gate.judge.lookback) by hand on
small nights: a night's log moments, the pooled spread, outlying nights
and their clamp, the night noise with and without some nights, the
level, the degrees of freedom, the verdict at its thresholds, the
repeats that would settle a night (docs/mutation.md)."""

import math
import statistics

import pytest

from pfsbench.core.errors import NotEnoughSamples
from pfsbench.gate.judge import lookback
from pfsbench.gate.statistics.stats import (Moments, RatioInterval, f_sf,
                                            t_quantile)


def _n(mean, cv=0.02, n=5):
    return Moments(mean, (cv * mean) ** 2, n)


def test_log_moments_of_a_night():
    assert lookback.log_moments(_n(4.0, 0.1, 5)) == (
        pytest.approx(math.log(4.0)), pytest.approx(0.01 / 5))
    one = Moments(4.0, None, 1)
    assert lookback.log_moments(one) == (math.log(4.0), None)
    assert lookback.log_moments(one, 0.04) == (math.log(4.0), 0.04)
    assert lookback.log_moments(Moments(4.0, None, 2), 0.04)[1] == 0.02


def test_not_positive_counts_every_night_read():
    zero = Moments(0.0, 0.0, 3)
    assert lookback.not_positive([_n(1.0)], _n(1.0), [[_n(1.0)]]) == 0
    assert lookback.not_positive([zero], zero, [[zero, _n(1.0)], [zero]]) \
        == 4
    assert lookback.not_positive([], Moments(-1.0, 0.0, 2), []) == 1


def test_pooled_cv2_by_degrees_of_freedom():
    nights = [_n(10.0, 0.1, 3), _n(20.0, 0.2, 5), Moments(5.0, None, 1),
              Moments(-1.0, 1.0, 4)]
    assert lookback.pooled_cv2(nights) == pytest.approx(
        (2 * 0.01 + 4 * 0.04) / 6)
    assert lookback.pooled_cv2([Moments(5.0, None, 1)]) is None
    assert lookback.pooled_cv2([Moments(5.0, 1.0, 1)]) is None


def _steady(count, outlier=None):
    nights = [_n(100.0 * (1 + 0.01 * ((i % 3) - 1))) for i in range(count)]
    if outlier is not None:
        nights[-1] = _n(outlier)
    return nights


def test_drop_outliers_needs_8_nights():
    assert lookback.MIN_NIGHTS_FOR_OUTLIERS == 8
    seven = _steady(7, outlier=200.0)
    assert lookback.drop_outliers(seven, 3.5) == (seven, [])
    eight = _steady(8, outlier=200.0)
    kept, dropped = lookback.drop_outliers(eight, 3.5)
    assert kept == eight[:-1]
    assert dropped == [eight[-1]]
    assert lookback.drop_outliers(eight, None) == (eight, [])


def test_drop_outliers_at_the_limit():
    eight = _steady(8, outlier=200.0)
    logs = [math.log(n.mean) for n in eight]
    med = statistics.median(logs)
    scale = 1.4826 * statistics.median(abs(x - med) for x in logs)
    z = (math.log(200.0) - med) / scale
    assert lookback.drop_outliers(eight, z * 1.0001)[1] == []
    assert lookback.drop_outliers(eight, z * 0.9999)[1] == [eight[-1]]
    low = _steady(8, outlier=50.0)
    assert lookback.drop_outliers(low, 3.5)[1] == [low[-1]]


def test_drop_outliers_clamps_for_the_noise():
    eight = _steady(8, outlier=200.0)
    logs = [math.log(n.mean) for n in eight]
    med = statistics.median(logs)
    scale = 1.4826 * statistics.median(abs(x - med) for x in logs)
    kept, dropped = lookback.drop_outliers(eight, 3.5, clamp=True)
    assert dropped == [eight[-1]]
    assert kept[:-1] == eight[:-1]
    ratio = math.exp(med + 3.5 * scale) / 200.0
    assert kept[-1].mean == pytest.approx(math.exp(med + 3.5 * scale))
    assert kept[-1].variance == pytest.approx(eight[-1].variance * ratio ** 2)
    assert kept[-1].n == 5
    low = _steady(8, outlier=50.0)
    logs = [math.log(n.mean) for n in low]
    med = statistics.median(logs)
    scale = max(1.4826 * statistics.median(abs(x - med) for x in logs),
                math.sqrt(0.0004 / 5))
    kept, _ = lookback.drop_outliers(low, 3.5, clamp=True)
    assert kept[-1].mean == pytest.approx(math.exp(med - 3.5 * scale))
    one = _steady(8)
    one[-1] = Moments(200.0, None, 1)
    kept, _ = lookback.drop_outliers(one, 3.5, clamp=True)
    assert kept[-1].variance is None


def test_drop_outliers_floor_is_the_nights_own_spread():
    # Nights that agree exactly: the scale is their repeats' spread.
    same = [_n(100.0, 0.1)] * 7 + [_n(103.0, 0.1)]
    assert lookback.drop_outliers(same, 3.5)[1] == []
    flat = [Moments(100.0, 0.0, 5)] * 7 + [Moments(103.0, 0.0, 5)]
    assert lookback.drop_outliers(flat, 3.5) == (flat, [])


def _tau2(segments):
    ss = within = 0.0
    df = count = 0
    for seg in segments:
        xs = [math.log(n.mean) for n in seg]
        es = [n.variance / (n.n * n.mean ** 2) for n in seg]
        mean = statistics.fmean(xs)
        ss += sum((x - mean) ** 2 for x in xs)
        df += len(xs) - 1
        within += sum(es)
        count += len(xs)
    return max(0.0, ss / df - within / count), df


def test_night_variance_by_hand():
    a = [_n(100.0), _n(110.0), _n(95.0)]
    b = [_n(50.0), _n(52.0)]
    assert lookback.night_variance([a, b]) == (
        pytest.approx(_tau2([a, b])[0]), 3)
    assert lookback.night_variance([a, b])[0] > 0
    # A segment of one night adds nothing; fewer than 2 df: none.
    assert lookback.night_variance([a, [_n(1.0)]]) == \
        lookback.night_variance([a])
    assert lookback.night_variance([b, b[:1]]) is None
    # Nights closer than their repeats: 0, never negative.
    close = [_n(100.0, 0.2), _n(100.1, 0.2), _n(99.9, 0.2)]
    assert lookback.night_variance([close]) == (0.0, 2)


def test_night_variance_of_one_sample_nights():
    nights = [Moments(100.0, None, 1), Moments(130.0, None, 1),
              _n(80.0, 0.1, 3), Moments(0.0, 0.0, 3)]
    xs = [math.log(v) for v in (100.0, 130.0, 80.0)]
    es = [0.01, 0.01, 0.01 / 3]
    mean = statistics.fmean(xs)
    ss = sum((x - mean) ** 2 for x in xs)
    tau2, df = lookback.night_variance([nights[:3]])
    assert df == 2
    assert tau2 == pytest.approx(ss / 2 - sum(es) / 3)
    bare = [Moments(100.0, None, 1), Moments(130.0, None, 1),
            Moments(80.0, None, 1)]
    assert lookback.night_variance([bare]) == (pytest.approx(ss / 2), 2)


def test_noise_without_is_the_noise_of_the_rest():
    a = [_n(100.0), _n(110.0), _n(95.0), _n(104.0)]
    b = [_n(50.0), _n(52.0), _n(49.0)]
    without = lookback.NoiseWithout([a, b])
    assert without([]) == lookback.night_variance([a, b])
    assert without([a[1]]) == lookback.night_variance(
        [[a[0], a[2], a[3]], b])
    assert without([a[1], b[0]]) == lookback.night_variance(
        [[a[0], a[2], a[3]], b[1:]])
    assert without([b[0], b[1]]) == lookback.night_variance([a])
    assert without([_n(7.0)]) == lookback.night_variance([a, b])
    # Equal nights: one taken per time named.
    same = [_n(100.0), _n(100.0), _n(110.0), _n(90.0)]
    assert lookback.NoiseWithout([same])([same[0]]) == \
        lookback.night_variance([same[1:]])
    assert lookback.NoiseWithout([same])([same[0], same[0]]) == \
        lookback.night_variance([same[2:]])
    assert lookback.NoiseWithout([same])([same[0]] * 3) == \
        lookback.night_variance([same[2:]])


def test_noise_without_nights_of_one_sample():
    a = [_n(100.0), Moments(110.0, None, 1), _n(95.0), _n(104.0, 0.1)]
    without = lookback.NoiseWithout([a])
    assert without([]) == lookback.night_variance([a])
    assert without([a[3]]) == lookback.night_variance([a[:3]])
    assert without([a[0], a[1]]) == lookback.night_variance([a[2:]])
    assert without([a[0], a[1], a[2]]) is None


def test_level_by_inverse_variance():
    nights = [_n(100.0, 0.1, 4), _n(120.0, 0.2, 4)]
    w = [1 / (0.001 + 0.01 / 4), 1 / (0.001 + 0.04 / 4)]
    mu, var = lookback.level(nights, 0.001)
    assert mu == pytest.approx((w[0] * math.log(100.0) +
                                w[1] * math.log(120.0)) / sum(w))
    assert var == pytest.approx(1 / sum(w))
    one = [Moments(100.0, None, 1), Moments(120.0, None, 1)]
    assert lookback.level(one, 0.0, 0.01) == (
        pytest.approx(math.log(math.sqrt(100.0 * 120.0))),
        pytest.approx(0.005))
    # No variance at all: equal weights of 1e12.
    assert lookback.level(one, 0.0) == (
        pytest.approx(math.log(math.sqrt(100.0 * 120.0))),
        pytest.approx(0.5e-12))


def test_change_df():
    assert lookback.change_df([(1.0, 4), (1.0, 4)], 10) == 8.0
    assert lookback.change_df([(1.0, 4), (1.0, 4)], 5) == 5.0
    assert lookback.change_df([(1.0, 3), (2.0, 7)], 100) == \
        math.floor(10 * 9.0 / (1 / 3 + 4 / 7)) / 10
    assert lookback.change_df([(0.0, 3), (0.0, 5)], 100) == 100
    assert lookback.change_df([(1.0, 0.3), (0.0, 1)], 100) == 1.0
    assert lookback.change_df([(1.0, 4), (1.0, 4)], 0) == 1.0
    assert lookback.change_df([(0.0, 3), (0.0, 5)], math.inf) == math.inf


def test_interval_refuses():
    with pytest.raises(NotEnoughSamples,
                       match='^no night to take the level from$'):
        lookback.interval([], _n(1.0), (0.01, 5))
    for level, cur in (([_n(1.0)], Moments(0.0, 0.0, 3)),
                       ([_n(1.0), Moments(-1.0, 0.0, 3)], _n(1.0))):
        with pytest.raises(NotEnoughSamples,
                           match='^means must be positive for a ratio$'):
            lookback.interval(level, cur, (0.01, 5))


def test_interval_by_hand():
    level = [_n(100.0, 0.02, 5), _n(102.0, 0.02, 5), _n(98.0, 0.02, 5)]
    cur = _n(90.0, 0.02, 5)
    tau2, tau_df = 0.0004, 6
    iv = lookback.interval(level, cur, (tau2, tau_df), 0.9)
    e = 0.0004 / 5
    mu, var_mu = lookback.level(level, tau2, 0.0004)
    share = tau2 / (tau2 + e)
    parts = [(tau2 + share * var_mu, 6), (e + (1 - share) * var_mu, 12)]
    df = lookback.change_df(parts, tau_df)
    half = t_quantile(0.95, df) * math.sqrt(sum(v for v, _ in parts))
    d = math.log(90.0) - mu
    assert iv == RatioInterval(
        pytest.approx(math.expm1(d)), pytest.approx(math.expm1(d - half)),
        pytest.approx(math.expm1(d + half)), 0.9, df,
        pytest.approx(var_mu), pytest.approx(e), 3, 5, '', True)
    assert df == 6.0


def test_interval_tonight_never_narrower_than_the_level():
    level = [_n(100.0, 0.05, 5)] * 3
    tight = lookback.interval(level, _n(100.0, 0.001, 5), (0.0, 4))
    assert tight.cv2_cur == pytest.approx(0.0025 / 5)
    one = lookback.interval(level, Moments(100.0, None, 1), (0.0, 4))
    assert one.cv2_cur == pytest.approx(0.0025)
    flat = lookback.interval([Moments(100.0, 0.0, 5)] * 2,
                             Moments(90.0, 0.0, 5), (0.0, 4))
    assert flat.low == pytest.approx(-0.1, abs=1e-5)
    assert flat.high == pytest.approx(-0.1, abs=1e-5)


def test_spread_grew_at_its_level():
    night = _n(100.0, 0.1, 5)
    ratio = 0.01 / 0.002
    p = f_sf(ratio, 4, 20)
    assert lookback.spread_grew(night, 0.002, 20, alpha=p * 1.001)
    assert not lookback.spread_grew(night, 0.002, 20, alpha=p * 0.999)
    assert not lookback.spread_grew(Moments(100.0, None, 1), 0.002, 20)
    assert not lookback.spread_grew(Moments(100.0, None, 3), 0.002, 20)
    assert not lookback.spread_grew(night, 0.0, 20)
    assert not lookback.spread_grew(night, 0.002, 0)
    assert lookback.spread_grew(_n(100.0, 0.3, 5), 0.002, 1, alpha=0.5)
    assert not lookback.spread_grew(_n(100.0, 0.045, 5), 0.002, 20)
    assert lookback.spread_grew(_n(100.0, 0.2, 5), 0.002, 20)


def _iv(change, low, high):
    return RatioInterval(change, low, high, 0.95, 10.0, 0.0, 0.0, 3, 5)


@pytest.mark.parametrize('iv, verdict', [
    (_iv(-0.2, -0.3, -0.1), 'regression'),
    (_iv(-0.05, -0.11, -0.01), 'inconclusive'),  # change at -tol
    (_iv(-0.06, -0.11, 0.0), 'inconclusive'),    # high at 0: not a loss
    (_iv(-0.06, -0.11, -0.01), 'regression'),
    (_iv(0.2, 0.1, 0.3), 'improvement'),
    (_iv(0.05, 0.01, 0.1), 'pass'),
    (_iv(0.06, 0.0, 0.1), 'pass'),
    (_iv(0.0, -0.1, 0.1), 'pass'),                # low at -detect
    (_iv(0.0, -0.11, 0.1), 'inconclusive'),
])
def test_decide_higher(iv, verdict):
    threshold = -0.05 if verdict in ('regression', 'improvement') else -0.1
    assert lookback.decide(iv, 0.05, 0.1, 'higher') == (verdict, threshold)


@pytest.mark.parametrize('iv, verdict', [
    (_iv(0.2, 0.1, 0.3), 'regression'),
    (_iv(-0.2, -0.3, -0.1), 'improvement'),
    (_iv(0.0, -0.1, 0.1), 'pass'),
    (_iv(0.0, -0.1, 0.11), 'inconclusive'),
])
def test_decide_lower(iv, verdict):
    threshold = 0.05 if verdict in ('regression', 'improvement') else 0.1
    assert lookback.decide(iv, 0.05, 0.1, 'lower') == (verdict, threshold)


def test_decide_names_a_bad_direction():
    with pytest.raises(ValueError, match="got 'up'"):
        lookback.decide(_iv(0.0, -0.1, 0.1), 0.05, 0.1, 'up')


def test_log_margin():
    assert lookback.log_margin(0.1, 'lower') == pytest.approx(math.log(1.1))
    assert lookback.log_margin(0.1, 'higher') == pytest.approx(
        -math.log(0.9))
    assert lookback.log_margin(1.0, 'higher') == math.inf
    assert lookback.log_margin(2.0, 'lower') == pytest.approx(math.log(3.0))


def test_repeats_to_settle_by_hand():
    level = [_n(100.0, 0.1, 3)] * 4
    cur = _n(100.0, 0.1, 3)
    need = lookback.repeats_to_settle(level, cur, (0.0001, 10), 0.1, 0.95)
    assert 3 < need < 100
    margin = -math.log(0.9)

    def half(r):
        nights = [Moments(100.0, 0.01 * 1e4, r)] * 4
        _, var_mu = lookback.level(nights, 0.0001, 0.01)
        df = lookback.change_df([(0.0001, 10),
                                 (0.01 / r + var_mu, (r - 1) * 5)], 10)
        return t_quantile(0.975, df) * math.sqrt(0.0001 + 0.01 / r + var_mu)

    assert half(need) < margin <= half(need - 1)
    assert lookback.repeats_to_settle(level, cur, (0.0001, 10), 0.1, 0.95,
                                      max_repeats=need - 1) == need
    # Lower-is-better: the margin is ln(1.1), a little smaller.
    lower = lookback.repeats_to_settle(level, cur, (0.0001, 10), 0.1, 0.95,
                                       direction='lower')
    assert (need, lower) == (6, 8)
    assert lookback.repeats_to_settle(level, cur, (0.0001, 10), 0.5,
                                      0.95) == 2
    # The night noise alone is too large.
    assert lookback.repeats_to_settle(level, cur, (0.01, 10), 0.1,
                                      0.95) is None


def test_repeats_to_settle_at_the_night_noise_bound():
    level = [_n(100.0, 0.01, 3)] * 4
    cur = _n(100.0, 0.01, 3)
    margin = -math.log(0.9)
    tau2 = (margin / t_quantile(0.975, 10)) ** 2 / 1.25
    assert lookback.repeats_to_settle(level, cur, (tau2 * 1.001, 10), 0.1,
                                      0.95) is None
    assert lookback.repeats_to_settle(level, cur, (tau2 * 0.9, 10), 0.1,
                                      0.95) is not None


def test_split_at_markers():
    assert lookback.split_at_markers([1, 2, 3, 4, 5],
                                     [True, False, True, True, False]) == \
        [[1, 2], [3], [4, 5]]
    assert lookback.split_at_markers([1, 2], [False, False]) == [[1, 2]]
    assert lookback.split_at_markers([], []) == []


def _interval_by_hand(level, cur, tau2, tau_df, confidence):
    """The interval as the module's docstring states it, with the level
    from :func:`lookback.level` and the df from :func:`change_df`."""
    spread = [n for n in level if n.n > 1]
    cv2_df = sum(n.n - 1 for n in spread)
    cv2 = (sum((n.n - 1) * n.variance / n.mean ** 2 for n in spread) /
           cv2_df if cv2_df else None)
    mu, var_mu = lookback.level(level, tau2, cv2)
    own = cur.variance / (cur.n * cur.mean ** 2) if cur.n > 1 else 0.0
    e_c, e_df = own, max(cur.n - 1, 1)
    if cv2 is not None:
        e_c = max(own, cv2 / cur.n)
        grew = cur.n > 1 and f_sf(cur.variance / cur.mean ** 2 / cv2,
                                  cur.n - 1, cv2_df) < 0.01
        if not grew:
            e_df = max(cv2_df, e_df)
    es = [n.variance / (n.n * n.mean ** 2) if n.n > 1 else
          (0.0 if cv2 is None else cv2 / n.n) for n in level]
    mean_e = sum(es) / len(es)
    share = tau2 / (tau2 + mean_e) if tau2 + mean_e > 0 else 1.0
    parts = [(tau2 + share * var_mu, max(tau_df, 1)),
             (e_c + (1 - share) * var_mu, e_df)]
    df = lookback.change_df(parts, tau_df)
    half = t_quantile(0.5 + confidence / 2, df) * math.sqrt(
        parts[0][0] + parts[1][0])
    d = math.log(cur.mean) - mu
    return d, half, df, var_mu, e_c


#: Unequal level nights and tonight's spread like theirs; tonight's
#: spread grew (its own degrees of freedom).
UNEQUAL = [([_n(100.0, 0.01, 3), _n(104.0, 0.05, 8), Moments(97.0, None, 1),
             _n(99.0, 0.03, 4)], _n(92.0, 0.02, 4)),
           ([_n(100.0, 0.01, 3), _n(104.0, 0.02, 8), _n(99.0, 0.015, 4)],
            _n(92.0, 0.3, 6))]
#: Two nights of one repeat: no pooled spread.
SINGLE = [Moments(100.0, None, 1), Moments(103.0, None, 1)]


@pytest.mark.parametrize('level, cur, tau2, tau_df', [
    (*UNEQUAL[0], 0.0003, 5),
    (*UNEQUAL[1], 0.0003, 9),
    (SINGLE, _n(95.0, 0.02, 3), 0.0004, 1),
    # No night noise, no spread in the level: share 1.
    (SINGLE, _n(95.0, 0.02, 3), 0.0, 0),
    # Tonight of one repeat against a spread.
    ([_n(100.0, 0.02, 4), _n(101.0, 0.04, 2)], Moments(95.0, None, 1),
     0.0002, 3),
    # A history of many nights: Satterthwaite's df, not the history's,
    # decides (the night noise's share of the level, the repeats' df).
    (*UNEQUAL[0], 0.00001, 1000),
    (*UNEQUAL[1], 0.00001, 1000),
    (SINGLE, _n(95.0, 0.02, 2), 0.00001, 1000),
    (SINGLE, _n(95.0, 0.02, 3), 0.0, 1000),
    ([_n(0.5, 0.02, 4), _n(0.52, 0.04, 3)], _n(0.45, 0.01, 3), 0.00001,
     1000),
    # Level nights of 2 repeats count one degree of freedom each.
    ([_n(100.0, 0.03, 2), _n(101.0, 0.05, 2), _n(99.0, 0.04, 2)],
     _n(92.0, 0.04, 2), 0.00001, 1000),
])
def test_interval_by_hand_on_unequal_nights(level, cur, tau2, tau_df):
    iv = lookback.interval(level, cur, (tau2, tau_df), 0.95)
    d, half, df, var_mu, e_c = _interval_by_hand(level, cur, tau2, tau_df,
                                                 0.95)
    assert iv.df == df
    assert (iv.change, iv.low, iv.high) == pytest.approx(
        (math.expm1(d), math.expm1(d - half), math.expm1(d + half)),
        rel=1e-12)
    assert (iv.cv2_base, iv.cv2_cur) == pytest.approx((var_mu, e_c),
                                                      rel=1e-12)
    assert (iv.n_base, iv.n_cur, iv.night_floor, iv.confidence) == \
        (len(level), cur.n, True, 0.95)


def _settle_by_hand(level, cur, tau2, tau_df, detect, confidence, most,
                    direction):
    """The smallest repeats a night (2 or more) whose interval's half
    width is below the margin, by a plain search."""
    nights = list(level) + [cur]
    spread = [n for n in nights if n.n > 1 and n.variance is not None]
    dfs = sum(n.n - 1 for n in spread)
    cv2 = sum((n.n - 1) * n.variance / n.mean ** 2 for n in spread) / dfs \
        if dfs else 0.0
    p = 0.5 + confidence / 2
    margin = lookback.log_margin(detect, direction)

    def half(r):
        var_mu = lookback.level([Moments(n.mean, cv2 * n.mean ** 2, r)
                                 for n in level], tau2, cv2)[1]
        df = lookback.change_df([(tau2, max(tau_df, 1)),
                                 (cv2 / r + var_mu,
                                  max((r - 1) * (len(level) + 1), 1))],
                                tau_df)
        return t_quantile(p, df) * math.sqrt(tau2 + cv2 / r + var_mu)

    if t_quantile(p, max(tau_df, 1)) * math.sqrt(
            tau2 * (1 + 1 / len(level))) >= margin:
        return None
    for r in range(2, most + 1):
        if half(r) < margin:
            return r
    return most + 1


@pytest.mark.parametrize('level, cur, noise, detect, confidence, most, '
                         'direction', [
    ([_n(100.0, 0.1, 3), _n(120.0, 0.05, 6), Moments(90.0, None, 1)],
     _n(100.0, 0.2, 4), (0.0002, 4), 0.1, 0.95, 1000, 'higher'),
    ([_n(100.0, 0.1, 3), _n(120.0, 0.05, 6)], _n(100.0, 0.2, 4),
     (0.0002, 0), 0.1, 0.99, 1000, 'lower'),
    ([_n(100.0, 0.3, 2)] * 2, _n(100.0, 0.3, 2), (0.0, 3), 0.05, 0.9, 1000,
     'higher'),
    ([_n(100.0, 0.3, 2)] * 2, _n(100.0, 0.3, 2), (0.0, 3), 0.05, 0.9, 37,
     'higher'),
    ([_n(100.0, 0.3, 2)] * 2, _n(100.0, 0.3, 2), (0.0, 3), 0.05, 0.9, 3,
     'lower'),
    ([Moments(100.0, None, 1)] * 3, Moments(100.0, None, 1), (0.001, 2),
     0.2, 0.95, 1000, 'higher'),
    ([_n(100.0, 0.01, 5)] * 3, _n(100.0, 0.01, 5), (0.0, 2), 0.02, 0.95,
     1000, 'higher'),
    # Many nights of history: the repeats' df decides.
    ([_n(100.0, 0.1, 3), _n(120.0, 0.05, 6)], _n(100.0, 0.2, 4),
     (0.00001, 1000), 0.1, 0.95, 1000, 'higher'),
    ([_n(100.0, 0.3, 2)] * 4, _n(100.0, 0.3, 2), (0.0, 1000), 0.05, 0.99,
     1000, 'lower'),
    # One level night of 2 repeats: few degrees of freedom, a few repeats.
    ([_n(100.0, 0.05, 2)], _n(100.0, 0.05, 2), (0.0, 1000), 0.1, 0.95, 1000,
     'higher'),
    ([_n(100.0, 0.1, 2)], _n(100.0, 0.1, 2), (0.0, 1000), 0.3, 0.95, 1000,
     'higher'),
    ([_n(100.0, 0.2, 2)], _n(100.0, 0.2, 2), (0.0, 1000), 0.3, 0.95, 1000,
     'higher'),
    ([_n(100.0, 0.1, 2)], _n(100.0, 0.1, 2), (0.003, 1000), 0.3, 0.95,
     1000, 'higher'),
    ([_n(100.0, 0.2, 2)] * 2, _n(100.0, 0.2, 2), (0.01, 1000), 0.4, 0.95,
     1000, 'higher'),
    # One night of history: t(1).
    ([_n(100.0, 0.05, 3)] * 3, _n(100.0, 0.05, 3), (0.0004, 1), 0.1, 0.95,
     1000, 'higher'),
])
def test_repeats_to_settle_against_a_plain_search(level, cur, noise, detect,
                                                  confidence, most,
                                                  direction):
    want = _settle_by_hand(level, cur, *noise, detect, confidence, most,
                           direction)
    assert lookback.repeats_to_settle(level, cur, noise, detect, confidence,
                                      most, direction) == want


def test_drop_outliers_floor_reads_one_repeat_nights_by_the_pooled_spread():
    # Single-repeat nights take the pooled spread (cv 10 %) as their own:
    # the floor of the scale is then 10 %, and a night 10 % off is kept.
    single = [Moments(m, None, 1) for m in
              (100.0, 100.1, 99.9, 100.05, 99.95, 100.0, 100.02, 110.0)]
    nights = single + [_n(100.0, 0.1, 5)]
    kept, dropped = lookback.drop_outliers(nights, 3.5)
    assert (len(kept), dropped) == (9, [])
    # Without the spread night the floor is the MAD's, and it is dropped.
    kept, dropped = lookback.drop_outliers(single + [_n(100.0, 0.0001, 5)],
                                           3.5)
    assert dropped == [single[7]]


def test_noise_without_takes_equal_nights_in_their_order():
    same = _n(100.0)
    a = [same, same, _n(110.0), _n(95.0)]
    b = [same, _n(52.0), _n(49.0), _n(51.0)]
    without = lookback.NoiseWithout([a, b])
    assert without([same, same]) == lookback.night_variance([a[2:], b])
    assert without([same] * 3) == lookback.night_variance([a[2:], b[1:]])


def test_noise_without_two_nights_of_one_segment():
    a = [_n(100.0), _n(110.0), _n(95.0), _n(104.0), _n(90.0), _n(107.0)]
    without = lookback.NoiseWithout([a])
    assert without([a[1], a[3]]) == lookback.night_variance(
        [[a[0], a[2], a[4], a[5]]])
    assert without([a[3], a[1]]) == without([a[1], a[3]])


def test_noise_without_nights_of_no_spread():
    a = [Moments(100.0, 0.0, 3), _n(110.0), _n(95.0), _n(104.0),
         Moments(98.0, 0.0, 4)]
    without = lookback.NoiseWithout([a])
    assert without([]) == lookback.night_variance([a])
    assert without([a[3]]) == lookback.night_variance([a[:3] + a[4:]])


def _tau2_by_hand(segments):
    """night_variance by its docstring: one-repeat nights take the spread
    pooled over every night with one (by degrees of freedom)."""
    spread = [n for seg in segments for n in seg if n.n > 1]
    dfs = sum(n.n - 1 for n in spread)
    cv2 = sum((n.n - 1) * n.variance / n.mean ** 2 for n in spread) / dfs
    ss = within = 0.0
    df = count = 0
    for seg in segments:
        if len(seg) < 2:
            continue
        xs = [math.log(n.mean) for n in seg]
        mean = sum(xs) / len(xs)
        ss += sum((x - mean) ** 2 for x in xs)
        within += sum(n.variance / (n.n * n.mean ** 2) if n.n > 1
                      else cv2 / n.n for n in seg)
        df += len(seg) - 1
        count += len(seg)
    return max(0.0, ss / df - within / count), df


@pytest.mark.parametrize('scale', [1.0, 0.01])
def test_night_variance_pools_unequal_spreads_for_one_repeat_nights(scale):
    # Nights of 2 repeats and means below 1 count in the pooled spread;
    # a short segment first is skipped, not the end.
    a = [Moments(100.0 * scale, None, 1), _n(130.0 * scale, 0.08, 2),
         _n(90.0 * scale, 0.01, 4), Moments(120.0 * scale, None, 1)]
    b = [_n(50.0 * scale, 0.2, 3), Moments(70.0 * scale, None, 1),
         _n(60.0 * scale, 0.03, 6)]
    short = [_n(10.0 * scale, 0.02, 5)]
    tau2, df = lookback.night_variance([short, a, b])
    want = _tau2_by_hand([short, a, b])
    assert df == want[1] == 5
    assert tau2 == pytest.approx(want[0], rel=1e-12)
    assert tau2 > 0
    assert lookback.NoiseWithout([short, a, b])([]) == (tau2, df)


def test_drop_outliers_one_repeat_nights_without_a_spread():
    single = [Moments(m, None, 1) for m in
              (100.0, 100.1, 99.9, 100.05, 99.95, 100.0, 100.02, 110.0)]
    kept, dropped = lookback.drop_outliers(single, 3.5)
    assert dropped == [single[7]] and len(kept) == 7


def test_spread_grew_of_two_repeats_and_at_exactly_its_level():
    night = _n(100.0, 0.5, 2)
    assert lookback.spread_grew(night, 0.0004, 20)
    night = _n(100.0, 0.1, 5)
    p = f_sf(night.variance / night.mean ** 2 / 0.002, 4, 20)
    assert not lookback.spread_grew(night, 0.002, 20, alpha=p)


def test_interval_refuses_a_level_night_at_zero_not_below_one():
    with pytest.raises(NotEnoughSamples,
                       match='^means must be positive for a ratio$'):
        lookback.interval([_n(1.0), Moments(0.0, 0.0, 3)], _n(1.0),
                          (0.01, 5))
    iv = lookback.interval([_n(0.5), _n(0.6)], _n(0.5), (0.0001, 5))
    assert iv.n_base == 2


def test_repeats_to_settle_by_default_caps_at_1000_higher_is_better():
    level = [_n(100.0, 1.0, 3)] * 4
    cur = _n(100.0, 1.0, 3)
    assert lookback.repeats_to_settle(level, cur, (0.0, 100), 0.01,
                                      0.95) == 1001
    level = [_n(100.0, 0.1, 3)] * 4
    cur = _n(100.0, 0.1, 3)
    assert lookback.repeats_to_settle(level, cur, (0.0001, 10), 0.1,
                                      0.95) == \
        lookback.repeats_to_settle(level, cur, (0.0001, 10), 0.1, 0.95,
                                   1000, 'higher')


def test_small_nights_read_by_their_own_spread():
    # Nights of 2 repeats have a spread of their own; means below 1 count.
    assert lookback.log_moments(_n(100.0, 0.1, 2)) == (
        pytest.approx(math.log(100.0)), pytest.approx(0.01 / 2))
    assert lookback.pooled_cv2([_n(0.5, 0.1, 3)]) == pytest.approx(0.01)
    # One-repeat nights without a pooled spread weigh by the night noise.
    one = [Moments(100.0, None, 1), Moments(120.0, None, 1)]
    assert lookback.level(one, 0.01) == (
        pytest.approx(math.log(math.sqrt(100.0 * 120.0))),
        pytest.approx(0.005))
