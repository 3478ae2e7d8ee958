# SPDX-License-Identifier: BSD-3-Clause
"""The gate's fast paths give the same bits as the plain rules they
replace: the windows' correction (``both_below`` over cached Simpson
nodes, ``min_p_bound``) equals the rule as written, number for number,
and a gate over a synthetic history renders the same JSON, JUnit and
HTML with either (docs/gate-evidence.md, "Speed: a year of nightlies")."""

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


def test_the_window_takes_out_one_equal_night_of_the_history_each():
    # Constant nights compare equal: a window of two of them leaves the
    # third in the noise, as list.remove did; a copy counts as the night.
    from pfsbench.gate.judge import rule
    from pfsbench.gate.statistics.stats import Moments

    flat = [Moments(100.0, 1.0, 3) for _ in range(3)]
    moved = [Moments(m, 1.0, 3) for m in (90.0, 110.0, 95.0)]
    seen = []
    real = rule.lookback.night_variance

    def spy(segments):
        seen.append([list(seg) for seg in segments])
        return real(segments)

    rule.lookback.night_variance = spy
    try:
        without = rule._noise_without([flat + moved], 'fallback')
        without([Moments(100.0, 1.0, 3), flat[1]])
        assert without([]) == 'fallback'
    finally:
        rule.lookback.night_variance = real
    assert seen == [[[flat[2]] + moved]]
