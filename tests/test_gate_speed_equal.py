# SPDX-License-Identifier: BSD-3-Clause
"""The gate's fast paths give the same bits as the plain rules they
replace: the windows' correction (``both_below`` over cached Simpson
nodes, ``min_p_bound``, the windows' level against the 30-step
bisection), the night noise without a window's nights, the running
median, the night scale and which nights have a variable equal the
rules as written, number for number; a gate over a synthetic history
renders the same JSON, JUnit and HTML with either, and a report's case
rows taken once render the same (docs/gate-evidence.md, "Speed: a year
of nightlies")."""

import math
import random
import re
import statistics

import pytest

import synth
from pfsbench.gate.judge import baseline, config as gate_config
from pfsbench.gate.judge import pooled
from pfsbench.gate.judge.record import run_gate
from pfsbench.gate.report import render
from pfsbench.gate.statistics import stats
from pfsbench.store.runs import read_database


def plain_both_below(h, rho, low=None):
    """The rule as written: Simpson's rule over ``theta = asin(r)``, each
    node's weight and sine computed where it is added (``low`` is
    recomputed, not taken)."""
    low = statistics.NormalDist().cdf(h)
    top = math.asin(min(max(rho, 0.0), 1.0))
    if top == 0.0:
        return low * low
    step = top / 32
    total = 0.0
    for i in range(33):
        weight = 1 if i in (0, 32) else (4 if i % 2 else 2)
        total += weight * math.exp(-h * h / (1.0 + math.sin(i * step)))
    return low * low + total * step / 3.0 / (2.0 * math.pi)


def test_both_below_is_the_plain_rule_to_the_bit():
    rand = random.Random(47)
    cases = [(h, rho) for h in (-6.0, -3.1, -1.0, 0.0, 0.7)
             for rho in (-0.2, 0.0, 1e-9, 0.3, 0.999, 1.0, 1.5)]
    cases += [(rand.uniform(-7, 1), rand.uniform(0, 1)) for _ in range(400)]
    assert len(cases) > 400
    for h, rho in cases:
        assert stats.both_below(h, rho) == plain_both_below(h, rho), (h, rho)


def _with_plain_rule(monkeypatch, fn, cases):
    """``fn(*case)`` of each case with the cached nodes, then with the
    plain rule in their place."""
    pooled._window_level.cache_clear()
    fast = [fn(*case) for case in cases]
    monkeypatch.setattr(stats, 'both_below', plain_both_below)
    pooled._window_level.cache_clear()
    plain = [fn(*case) for case in cases]
    pooled._window_level.cache_clear()
    return fast, plain


def test_min_p_bound_is_the_plain_rule_to_the_bit(monkeypatch):
    rand = random.Random(4747)
    cases = []
    for _ in range(150):
        ses = [rand.uniform(0.01, 1.0)]
        for _ in range(rand.randint(0, 40)):
            ses.append(ses[-1] * rand.choice([1.0, 0.97, rand.uniform(0.5,
                                                                      1.2)]))
        cases.append((rand.choice([0.0, 1.0, rand.uniform(1e-7, 0.2)]), ses))
    assert sum(len(ses) > 1 and 0.0 < p < 1.0 for p, ses in cases) > 50
    fast, plain = _with_plain_rule(monkeypatch, stats.min_p_bound, cases)
    assert fast == plain


def test_window_level_is_the_plain_bisection_to_the_bit(monkeypatch):
    rand = random.Random(470)
    cases = []
    for _ in range(40):
        ses = [1.0]
        for _ in range(rand.randint(1, 25)):
            ses.append(ses[-1] * rand.uniform(0.7, 1.0))
        cases.append((rand.choice([0.01, 0.002]), ses))
    fast, plain = _with_plain_rule(monkeypatch, pooled.window_level, cases)
    assert len(set(fast)) > 30
    assert fast == plain


def plain_window_level(alpha, ses):
    """The windows' level as written: 30 bisection steps in log p, each
    evaluating the bound at the midpoint."""
    if len(ses) <= 1:
        return alpha
    ratios = [round(min(1.0, long / short), 3) if short > 0 else 1.0
              for short, long in zip(ses, ses[1:])]
    ses = [1.0]
    for ratio in ratios:
        ses.append(ses[-1] * ratio)
    low, high = alpha / len(ses), alpha
    for _ in range(30):
        mid = math.sqrt(low * high)
        if stats.min_p_bound(mid, ses) > alpha:
            high = mid
        else:
            low = mid
    return low


def _window_patterns(rand):
    """Standard errors of nested windows: the window test's own shape
    (night noise, within-night variance, the level's) and random
    ones."""
    for _ in range(150):
        n = rand.randint(1, 60)
        if rand.random() < 0.5:
            tau2, e = rand.uniform(1e-4, 0.05), rand.uniform(0.0, 0.01)
            var_mu = rand.choice([0.0, rand.uniform(0.0, 0.01)])
            ses = [math.sqrt((tau2 + e) / k + var_mu)
                   for k in range(2, n + 3)]
        else:
            ses = [1.0]
            for _ in range(n):
                ses.append(ses[-1] * rand.choice(
                    [1.0, rand.uniform(0.5, 1.0), rand.uniform(0.99, 1.0)]))
        yield rand.choice([0.05, 0.01, 0.005, 0.002, 0.001, 1e-5]), ses


def test_window_level_is_the_30_step_bisection_to_the_bit(monkeypatch):
    calls = []
    real = pooled.min_p_bound
    monkeypatch.setattr(pooled, 'min_p_bound',
                        lambda p, ses: calls.append(p) or real(p, ses))
    cases = list(_window_patterns(random.Random(4747)))
    pooled._window_level.cache_clear()
    fast = [pooled.window_level(alpha, ses) for alpha, ses in cases]
    pooled._window_level.cache_clear()
    plain = [plain_window_level(alpha, ses) for alpha, ses in cases]
    assert len(set(fast)) > 100
    assert fast == plain
    # ... with a third of the bisection's evaluations of the bound or
    # fewer.
    assert len(calls) < 10 * len(cases)


def test_running_median_is_the_min_max_rule_to_the_bit():
    from pfsbench.gate.statistics.changepoints import median3
    rand = random.Random(4711)
    series = [[rand.choice([0.0, -0.0, 1.0, -1.0, rand.gauss(0.0, 1.0)])
               for _ in range(rand.randint(0, 40))] for _ in range(400)]
    assert sum(len(s) >= 3 for s in series) > 300
    for values in series:
        plain = list(values) if len(values) < 3 else [values[0]] + [
            max(min(a, b), min(max(a, b), c))
            for a, b, c in zip(values, values[1:], values[2:])
        ] + [values[-1]]
        assert [repr(v) for v in median3(values)] == \
            [repr(v) for v in plain], values


def plain_detect(values, threshold=5.0, min_segment=3, min_change=0.0,
                 sigma_floor=1e-4):
    """The change points as the rule reads: each split's score from its
    index, its counts as ints."""
    from pfsbench.gate.statistics import changepoints as cp
    x = cp.median3([math.log(v) for v in values])
    if len(values) < 2 * min_segment:
        return []
    sigma = max(cp.noise_sigma(x), sigma_floor)
    prefix = [0.0]
    for v in x:
        prefix.append(prefix[-1] + v)
    found = []

    def search(lo, hi):
        ks = range(lo + min_segment, hi - min_segment + 1)
        if not ks:
            return
        n, base, total = hi - lo, prefix[lo], prefix[hi] - prefix[lo]
        scores = [((k - lo) * total - n * (prefix[k] - base)) ** 2 /
                  ((k - lo) * (hi - k)) for k in ks]
        k = ks[scores.index(max(scores))]
        left = (prefix[k] - base) / (k - lo)
        right = (prefix[hi] - prefix[k]) / (hi - k)
        best = abs(right - left) / (
            sigma * math.sqrt(1.0 / (k - lo) + 1.0 / (hi - k)))
        if not (best <= threshold or
                abs(math.expm1(right - left)) < min_change):
            found.append((k, best))
            search(lo, k)
            search(k, hi)

    search(0, len(values))
    return cp._refit(sorted(found), x)


def test_change_points_are_the_plain_search_to_the_bit():
    from pfsbench.gate.statistics import changepoints as cp
    rand = random.Random(4712)
    series = []
    for _ in range(300):
        n = rand.randint(0, 120)
        steps = {rand.randrange(max(n, 1)): rand.uniform(-0.5, 0.5)
                 for _ in range(rand.randint(0, 4))}
        level, values = 1.0, []
        for i in range(n):
            level *= math.exp(steps.get(i, 0.0))
            values.append(level * math.exp(rand.gauss(0.0, 0.05)))
        series.append(values)
    # Ties: constant stretches and a symmetric step.
    series += [[1.0] * 40, [1.0] * 20 + [2.0] * 20,
               [1.0, 2.0] * 20, [2.0] * 10 + [1.0] * 20 + [2.0] * 10]
    found = 0
    for values in series:
        for segment, change in ((3, 0.0), (5, 0.05), (1, 0.0)):
            fast = cp.detect(values, 5.0, segment, change)
            found += len(fast)
            assert fast == plain_detect(values, 5.0, segment, change), \
                (values, segment)
    assert found > 300


def _renders(db, reports):
    results = read_database(db)
    uuids = [r['session_info']['uuid'] for r in reports]
    base = baseline.build(results, uuids[:3], 'pre')
    pooled._window_level.cache_clear()
    rec = run_gate(base, results, [uuids[-1]], gate_config.GateConfig())
    stamp = re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?'
                       r'(Z|[+-]\d\d:?\d\d)?')
    return rec, {form: stamp.sub('<time>', render(rec, form, 60))
                 for form in ('json', 'junit', 'html')}


def test_gate_renders_the_same_bytes_as_with_the_plain_rule(tmp_path,
                                                           monkeypatch):
    reports = list(synth.nightly_history(30, 3, repeats=3, noise=0.04,
                                         step_night=24, step=-0.12,
                                         variables=('write_bw', 'read_bw')))
    db = str(tmp_path / 'results.db')
    synth.write_database(db, reports)
    fast, fast_out = _renders(db, reports)
    monkeypatch.setattr(stats, 'both_below', plain_both_below)
    plain, plain_out = _renders(db, reports)
    pooled._window_level.cache_clear()
    assert fast['summary']['regression'] > 0
    for form in fast_out:
        assert fast_out[form] == plain_out[form], form


def plain_night_variance(segments):
    """The night noise as written: pooled_cv2 over every night, then
    each segment's log moments, sums and means."""
    from pfsbench.gate.judge import lookback
    cv2 = lookback.pooled_cv2([n for seg in segments for n in seg])
    ss = within = 0.0
    df = count = 0
    for seg in segments:
        if len(seg) < 2:
            continue
        pairs = [lookback.log_moments(n, cv2) for n in seg]
        mean = statistics.fmean(x for x, _ in pairs)
        ss += sum((x - mean) ** 2 for x, _ in pairs)
        df += len(seg) - 1
        within += sum(e or 0.0 for _, e in pairs)
        count += len(seg)
    if df < 2:
        return None
    return max(0.0, ss / df - within / count), df


def plain_without(segments, nights):
    """The night noise without the window's nights as written: each of
    ``nights`` removes the first equal night of the segments
    (``list.remove``)."""
    rest = [list(seg) for seg in segments]
    for night in nights:
        for seg in rest:
            if night in seg:
                seg.remove(night)
                break
    return plain_night_variance(rest)


def _random_segments(rand, own=False):
    """Segments of nights, some equal, and windows of their nights; with
    ``own`` every night has a spread of its own (the usual history)."""
    from pfsbench.gate.statistics.stats import Moments

    def variance():
        return rand.choice([None, 0.0, rand.uniform(0.1, 40.0)] if not own
                           else [0.0, rand.uniform(0.1, 40.0)])

    def count():
        return rand.choice([1, 2, 3, 5] if not own else [2, 3, 5])

    pool = [Moments(rand.uniform(50, 150), variance(), count())
            for _ in range(6)]
    segments = []
    for _ in range(rand.randint(1, 4)):
        segments.append([rand.choice(pool) if rand.random() < 0.3 else
                         Moments(rand.uniform(50, 150), variance(), count())
                         for _ in range(rand.randint(1, 12))])
    flat = [n for seg in segments for n in seg]
    windows = [rand.sample(flat, rand.randint(1, min(6, len(flat))))
               for _ in range(4)]
    windows.append(flat[-3:])
    windows.append([pool[0], pool[0]])
    return segments, windows


def test_night_noise_without_the_window_is_the_plain_rule_to_the_bit():
    from pfsbench.gate.judge import lookback
    rand = random.Random(4700)
    checked = 0
    for case in range(600):
        segments, windows = _random_segments(rand, own=case % 2 == 0)
        assert lookback.night_variance(segments) == \
            plain_night_variance(segments)
        without = lookback.NoiseWithout(segments)
        for nights in windows:
            assert without(nights) == plain_without(segments, nights), (
                segments, nights)
            checked += without(nights) is not None
    assert checked > 1000


def test_the_window_takes_out_one_equal_night_of_the_history_each():
    # Constant nights compare equal: a window of two of them leaves the
    # third in the noise, as list.remove did; a copy counts as the night.
    from pfsbench.gate.judge import rule
    from pfsbench.gate.statistics.stats import Moments

    flat = [Moments(100.0, 1.0, 3) for _ in range(3)]
    moved = [Moments(m, 1.0, 3) for m in (90.0, 110.0, 95.0)]
    without = rule._noise_without([flat + moved], 'fallback')
    got = without([Moments(100.0, 1.0, 3), flat[1]])
    assert got == plain_night_variance([[flat[2]] + moved])
    assert got != plain_night_variance([flat[1:] + moved])
    assert without([]) == 'fallback'
    assert rule._noise_without([], 'fallback')([flat[0]]) == 'fallback'


def test_night_scale_reads_the_newest_spreads_as_pooled_scale_pools():
    from pfsbench.gate.judge import samples
    from pfsbench.gate.statistics.stats import POOL_NIGHTS, pooled_scale

    class Night:
        def __init__(self, spread):
            self.value = spread

        def spread(self, var):
            return self.value

    rand = random.Random(4712)
    found = 0
    for _ in range(300):
        past = [Night(rand.choice([None, math.nan, rand.uniform(0.0, 0.2),
                                   rand.uniform(0.0, 0.2)]))
                for _ in range(rand.randint(0, 3 * POOL_NIGHTS))]
        plain = pooled_scale([n.spread('bw') for n in past])
        assert samples.night_scale(past, 'bw') == plain
        found += plain is not None
    assert found > 100


def test_a_report_takes_its_case_rows_once_and_renders_the_same(
        tmp_path, monkeypatch):
    from pfsbench.gate.judge import rows

    reports = list(synth.nightly_history(12, 3, repeats=3, noise=0.04,
                                         variables=('write_bw', 'read_bw')))
    db = str(tmp_path / 'results.db')
    synth.write_database(db, reports)
    rec, _ = _renders(db, reports)
    other = dict(rec, results=rec['results'][:2])
    forms = ('text', 'markdown', 'junit', 'html')
    plain = {form: render(rec, form, 60) for form in forms}
    calls = []
    real = rows.figures_of
    monkeypatch.setattr(rows, 'figures_of',
                        lambda found: calls.append(1) or real(found))
    with rows.rendering(rec):
        once = {form: render(rec, form, 60) for form in forms}
        assert len(calls) == 3
        # Another record inside the block has its own rows.
        assert len(rows.case_rows(other)) == 1
    stamp = re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\+00:00)?')
    for form in forms:
        assert stamp.sub('', once[form]) == stamp.sub('', plain[form]), form
    calls.clear()
    render(rec, 'text')
    assert len(calls) == 3
    rows.case_rows(rec)
    assert len(calls) == 6


def test_a_night_has_a_variable_where_it_has_its_moments():
    from pfsbench.gate.history.past import Night
    from pfsbench.gate.history.series import CaseColumns

    cols = CaseColumns()
    nights = [{'a': (100.0, [99.0, 100.0, 101.0])},
              {'b': (7.0, [7.0])},
              {'a': (90.0, []), 'b': (8.0, [8.0, 8.5])},
              {'a': (95.0, [95.0])}]
    for i, per_var in enumerate(nights):
        cols.append(i, {}, per_var, ())
    seen = []
    for j in range(len(nights)):
        night = Night(None, cols, j)
        for var in ('a', 'b', 'c'):
            # Repeats of the variable that night: it has its moments.
            want = bool(nights[j].get(var, (None, []))[1])
            seen.append(want)
            assert night.has(var) == want
            assert (night.moments(var) is not None) == want
    assert 0 < sum(seen) < len(seen)
