# SPDX-License-Identifier: BSD-3-Clause
"""The judge's and the statistics' faster paths give the bits of the
rules as written: the MAD over sorted values, the change points'
positivity check, logs and running sums, the history's noise taken with
the windows' noise without their nights, the level nights' log moments
taken once, the wild repeats and the like-for-like extras of the history
nights (docs/gate-evidence.md, "Speed: a year of nightlies")."""

import math
import random
import statistics

import pytest

from pfsbench.gate.statistics import changepoints as cp
from pfsbench.gate.statistics import stats


def plain_median_abs_dev(values):
    med = statistics.median(values)
    return statistics.median(abs(x - med) for x in values)


def test_median_abs_dev_is_the_rule_as_written_to_the_bit():
    rand = random.Random(4711)
    pool = [0.0, -0.0, 1.0, -1.0, 2.5, math.inf, -math.inf, math.nan]
    lists = []
    for _ in range(600):
        n = rand.randint(1, 30)
        if rand.random() < 0.3:
            values = [rand.choice(pool + [rand.gauss(0.0, 1.0)])
                      for _ in range(n)]
        else:
            values = [rand.choice([rand.gauss(0.0, 1.0), 0.5, -0.5])
                      for _ in range(n)]
        lists.append(values)
    assert sum(any(v != v for v in values) for values in lists) > 20
    for values in lists:
        got = stats.median_abs_dev(values)
        want = plain_median_abs_dev(values)
        assert repr(got) == repr(want), values
    assert stats.median_abs_dev([1.0, 2.0, 4.0, 10.0]) == 1.5


def test_median_abs_dev_of_a_nan_keeps_the_written_order():
    # With a NaN the sort is no order: the values' own order decides,
    # as written.
    values = [5.0, 1.0, math.nan, 2.0]
    assert repr(plain_median_abs_dev(values)) == 'nan'
    assert repr(stats.median_abs_dev(values)) == 'nan'


def _series(rand):
    for _ in range(60):
        n = rand.randint(0, 120)
        level, values = 100.0, []
        for _ in range(n):
            if rand.random() < 0.03:
                level *= rand.choice([0.7, 0.85, 1.2, 1.5])
            values.append(level * math.exp(rand.gauss(0.0, 0.03)))
        yield values


def test_detect_is_the_plain_rule_to_the_bit():
    # The rule as written (logs in a list, running sums appended one by
    # one): tests/test_gate_speed_equal.py's, here at a smallest step.
    from test_gate_speed_equal import plain_detect
    series = list(_series(random.Random(4712)))
    found = [cp.detect(v, min_change=0.05) for v in series]
    assert sum(len(points) for points in found) > 20
    assert found == [plain_detect(v, min_change=0.05) for v in series]


@pytest.mark.parametrize('values', [
    [1.0, 2.0, None, 3.0, 4.0, 5.0],
    [1.0, 2.0, 3.0, 0.0, 4.0, 5.0],
    [-1.0],
    [1.0, 1.0, 1.0, 1.0, 1.0, -0.0],
])
def test_detect_refuses_a_value_not_positive(values):
    with pytest.raises(ValueError, match='positive values'):
        cp.detect(values)


def _segments(rand):
    """Segments of a history's nights: spreads of their own or not, a
    night of one repeat, a night far out (an outlier to clamp)."""
    from pfsbench.gate.statistics.stats import Moments
    own = rand.random() < 0.5
    segments = []
    for _ in range(rand.randint(0, 3)):
        seg = []
        for _ in range(rand.randint(1, 14)):
            n = rand.choice([2, 3, 5] if own else [1, 2, 3])
            variance = rand.choice([0.0, rand.uniform(0.1, 40.0)] if own
                                   else [None, 0.0, rand.uniform(0.1, 40.0)])
            seg.append(Moments(rand.uniform(80, 120), variance, n))
        if rand.random() < 0.3:
            seg.append(Moments(400.0, 4.0, 3))
        segments.append(seg)
    return segments


def test_history_noise_is_night_variance_to_the_bit():
    from pfsbench.gate.judge import lookback, rule
    rand = random.Random(4713)
    checked = 0
    for _ in range(400):
        segments = _segments(rand)
        level = [n for seg in segments for n in seg][:6]
        kept = [lookback.drop_outliers(seg, 3.5, clamp=True)[0]
                for seg in segments]
        want = lookback.night_variance(kept)
        got = rule._without_outliers(level, segments, 3.5)
        if want is None:
            assert got is None
            continue
        checked += 1
        assert got.noise == want
        assert got.segments == kept
        # Its noise without nights is the segments' own.
        flat = [n for seg in kept for n in seg]
        window = flat[-3:]
        fresh = lookback.NoiseWithout(kept)
        assert got.rest(window) == fresh(window)
    assert checked > 150


def test_judge_nights_takes_the_history_nights_terms_once(monkeypatch):
    from pfsbench.gate.judge import lookback, rule
    from pfsbench.gate.statistics.stats import Moments
    made, real = [], lookback._terms
    monkeypatch.setattr(lookback, '_terms',
                        lambda night: made.append(night) or real(night))
    rand = random.Random(4714)
    history = [Moments(rand.uniform(95, 105), 4.0, 3) for _ in range(20)]
    recent = [(1_795_000_000 + 86_400 * day, Moments(90.0, 4.0, 3))
              for day in range(4)]
    history += [n for _, n in recent]
    out = rule.judge_nights(history[:5], Moments(90.0, 4.0, 3), [history],
                            0.01, 'higher', 0.10, recent=recent,
                            pooled={'rule': 'window', 'nights': 7})
    assert out['pooled'] is not None and out['pooled']['nights'] >= 2
    # The noise and the windows' noise without their nights: each
    # history night's terms once.
    assert len(made) == len(history)


def test_window_test_weighs_the_level_as_lookback_level_to_the_bit():
    # The level nights' log moments are taken once and weighed at each
    # window's noise: the best window's change and error are the ones
    # lookback.level gives from the nights themselves.
    from pfsbench.gate.judge import lookback, pooled
    from pfsbench.gate.statistics.stats import Moments
    rand = random.Random(4715)
    checked = 0
    for _ in range(200):
        level = [Moments(rand.uniform(90, 110),
                         rand.choice([None, 0.0, rand.uniform(1, 30)]),
                         rand.choice([1, 2, 3, 5]))
                 for _ in range(rand.randint(1, 12))]
        nights = [Moments(rand.uniform(80, 105), rand.uniform(1, 30), 3)
                  for _ in range(rand.randint(2, 8))]
        tau2 = rand.choice([0.0, rand.uniform(1e-4, 0.01)])
        noise = {}

        def without(window):
            noise[len(window) + 1] = (tau2 * (1 + len(window) / 10), 20)
            return noise[len(window) + 1]

        found = pooled.window_test(level, nights, (tau2, 20), 0.02, 'higher',
                                   0.005, 7, noise_without=without)
        cv2 = lookback.pooled_cv2(level)
        k = found['nights']
        mu, var_mu = lookback.level(level, noise[k][0], cv2)
        xs = [lookback.log_moments(n, cv2)[0] for n in nights[-7:][-k:]]
        assert found['d'] == statistics.fmean(xs) - mu
        checked += var_mu > 0
    assert checked > 100


def test_lookback_nights_lists_the_wild_repeats_of_history_nights_in_order():
    # Nights that left no repeat out are passed over; the others list
    # theirs in the history's order, as every night's wild_entries.
    import test_mutants_samples as ts
    from pfsbench.gate.judge import samples
    from pfsbench.gate.statistics.stats import moments, night_moments
    wild = night_moments(ts.WILD)
    assert wild.left_out
    found = [moments([99.0, 100.0, 101.0]), wild, moments([98.0, 99.0]),
             night_moments([100.0, 100.1, 99.9, 100.2, 99.8, 10.0]), wild]
    past = [ts.Night(ts.Session(f'h{i}', (2 + i) * ts.DAY), n)
            for i, n in enumerate(found)]
    _, _, _, got = ts._lookback(past)
    plain = [w for night in past
             for w in samples.wild_entries('history', night.session.uuid,
                                           night.found)]
    assert len(plain) == 3
    assert got == plain


def test_like_for_like_matches_session_extras_as_tag_reads_them():
    import test_mutants_samples as ts
    from pfsbench.gate.judge import samples
    rand = random.Random(4716)
    names = ['job_nodelist', 'target_path', 'ior_api', 'level']
    # A level of 3 is tagged '3': str of the extra.
    pick = {'target_path': ['/a', '/a', None], 'ior_api': ['POSIX', 'MPIIO'],
            'level': [3, '3', None]}
    checked = 0
    for _ in range(300):
        past = []
        for day in range(rand.randint(0, 30)):
            extras = {k: rand.choice(v) for k, v in pick.items()
                      if rand.random() < 0.8}
            like = (('job_nodelist', rand.choice(['n1', 'n2'])),)
            night = ts.Night(ts.Session(f'h{day}', day * ts.DAY, **extras),
                             like=like)
            past.append(night)
        tonight = ts.Session('t', 99 * ts.DAY,
                             **{k: rand.choice(v) for k, v in pick.items()})
        tonight_like = (('job_nodelist', 'n1'),)
        got = samples.like_for_like(past, tonight, tonight_like, names, 12)
        wanted = [(n, samples._tag(tonight_like, tonight, n)) for n in names]
        plain = [night for night in past
                 if all(samples._tag(night.like, night.session, n) == v
                        for n, v in wanted)][-12:]
        assert got == plain
        checked += len(got)
    assert checked > 100


def test_noise_without_finds_a_night_by_its_values():
    # A night equal in value is the night (as list.remove), its wild
    # repeats aside; one that differs in mean, variance or count is not.
    from dataclasses import replace
    from pfsbench.gate.judge import lookback
    from pfsbench.gate.statistics.stats import Moments
    base = [Moments(100.0 + 3 * i, 4.0 + i, 3) for i in range(7)]
    without = lookback.NoiseWithout([base])

    def plain(nights):
        rest = list(base)
        for night in nights:
            if night in rest:
                rest.remove(night)
        return lookback.night_variance([rest])

    windows = [[replace(base[2], left_out=((0, 1.0, 9.0),))],
               [Moments(106.0, 6.0, 3)], [Moments(106.0, 6.0, 4)],
               [Moments(106.0, 6.5, 3)], [Moments(106.5, 6.0, 3)],
               [base[1], base[1]], [base[0], base[3], base[5]]]
    got = [without(w) for w in windows]
    assert got == [plain(w) for w in windows]
    assert got[0] == got[1] != got[2] == got[3] == got[4] == without([])
    assert got[5] == plain([base[1]]) != got[6]


def test_noise_without_a_nan_night_is_that_night_only():
    # A NaN mean equals only the same float: the night itself is taken
    # out (one degree of freedom fewer), a new NaN night is not.
    from pfsbench.gate.judge import lookback
    from pfsbench.gate.statistics.stats import Moments
    odd = Moments(float('nan'), 4.0, 3)
    nights = [Moments(100.0 + 3 * i, 4.0 + i, 3) for i in range(6)] + [odd]
    without = lookback.NoiseWithout([nights])
    _, df = without([])
    assert without([odd])[1] == df - 1
    assert without([Moments(float('nan'), 4.0, 3)])[1] == df
