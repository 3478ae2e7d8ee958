# SPDX-License-Identifier: BSD-3-Clause
"""What the gate says it can detect (pfsbench.gate.judge.sensitivity): the
figure beside each verdict must be the slowdown the rule really finds 9
times in 10, a figure that cannot find the gate's detect threshold is
labelled blind with the repeats that would reach it, and the reports
show and count both, through ``pfsbench gate`` on synthetic nights."""

import json
from html import escape
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pfsbench import cli
from pfsbench.gate.judge import sensitivity
from pfsbench.gate.judge.rule import judge, judge_nights
from pfsbench.gate.statistics.stats import Moments, moments, t_quantile
import synth

CASE = 'dd_stream_per_node %nodes=1'
DAY = 86400.0
#: z(0.99) + z(0.90), the bound of docs/gate-evidence.md.
GAP = 2.3263 + 1.2816


def night(rng, level, cv, repeats):
    return moments([level * math.exp(rng.gauss(0.0, cv))
                    for _ in range(repeats)])


def test_with_the_level_known_it_is_the_bound_of_the_quality_bench():
    # tau 8.3 %, cv 9.1 %, R = 5: the write bound of docs/gate-evidence.md (28 %),
    # with normal quantiles and a tolerance the bound exceeds.
    se = math.sqrt(0.083 ** 2 + 0.091 ** 2 / 5)
    out = sensitivity.sensitivity(se * se, None, 0.01, 0.05, 0.10, 'higher', 5,
                                  0.083 ** 2, 0.091 ** 2, 1000)
    assert out['detects'] == pytest.approx(-math.expm1(-GAP * se), rel=1e-3)
    assert out['detects'] == pytest.approx(0.28, abs=0.005)
    assert out['blind']


def test_a_quiet_figure_detects_its_tolerance_plus_the_power_margin():
    # No noise at all: the change must only pass the tolerance.
    out = sensitivity.sensitivity(0.0, 10, 0.01, 0.05, 0.10, 'higher', 5, 0.0,
                                  0.0, 5)
    assert out['detects'] == pytest.approx(0.05)
    assert not out['blind'] and out['repeats_needed'] is None


def test_a_lower_is_better_figure_detects_a_growth():
    se = 0.05
    up = sensitivity.sensitivity(se * se, None, 0.01, 0.05, 0.10, 'lower', 5,
                                 0.0, 0.0, 5)
    down = sensitivity.sensitivity(se * se, None, 0.01, 0.05, 0.10, 'higher',
                                   5, 0.0, 0.0, 5)
    assert up['detects'] == pytest.approx(math.expm1(GAP * se), rel=1e-3)
    assert up['detects'] > down['detects']


def lookback_power(loss, tau, cv, repeats, trials, seed):
    """Share of nights ``loss`` slower that the lookback rule calls a
    regression, and the median sensitivity it reported on unchanged
    nights of the same history."""
    rng = random.Random(seed)
    found = 0
    said = []
    for _ in range(trials):
        history = [night(rng, math.exp(rng.gauss(0.0, tau)), cv, repeats)
                   for _ in range(20)]
        level = math.exp(rng.gauss(0.0, tau))
        same = night(rng, level, cv, repeats)
        slower = Moments((1 - loss) * same.mean,
                         same.variance * (1 - loss) ** 2, same.n)
        out = judge_nights(history[-5:], same, [history], 0.05, 'higher',
                           0.10, confidence=0.98)
        said.append(out['sensitivity']['detects'])
        out = judge_nights(history[-5:], slower, [history], 0.05, 'higher',
                           0.10, confidence=0.98)
        found += out['verdict'] == 'regression'

    said.sort()
    return found / trials, said[len(said) // 2]


@pytest.mark.parametrize('tau, cv, repeats', [(0.03, 0.04, 5),
                                              (0.08, 0.09, 5),
                                              (0.01, 0.15, 3)])
@pytest.mark.rates
def test_the_rule_finds_nine_in_ten_of_the_slowdown_it_says_it_detects(
        tau, cv, repeats):
    # What the gate reports must be what it does: at the loss it names
    # on an unchanged night, 90 % of slower nights are regressions, and
    # at two thirds of it clearly fewer.
    _, said = lookback_power(0.0, tau, cv, repeats, 300, 5)
    power, _ = lookback_power(said, tau, cv, repeats, 600, 6)
    assert 0.83 <= power <= 0.97, (said, power)
    weaker, _ = lookback_power(said * 2 / 3, tau, cv, repeats, 600, 6)
    assert weaker < 0.75, (said, weaker)


def test_the_interval_rule_reports_its_own_sensitivity():
    rng = random.Random(4)
    base = [100 * math.exp(rng.gauss(0, 0.03)) for _ in range(5)]
    cur = [100 * math.exp(rng.gauss(0, 0.03)) for _ in range(5)]
    out = judge(base, cur, 0.05, 'higher')
    found = out['sensitivity']
    # Welch at 95 %: a loss must clear the tolerance by t(0.975) +
    # t(0.90) standard errors of the log ratio (delta method).
    b, c = moments(base), moments(cur)
    se = math.sqrt(b.variance / (5 * b.mean ** 2) +
                   c.variance / (5 * c.mean ** 2))
    gap = t_quantile(0.975, out['df']) + t_quantile(0.90, out['df'])
    assert found['detects'] == pytest.approx(
        -math.expm1(math.log(0.95) - gap * se), rel=1e-6)
    assert found['alpha'] == pytest.approx(0.025)
    # 3 % per repeat, 5 a side: about 12 %, more than the 10 % target.
    assert found['blind'] and 0.10 < found['detects'] < 0.15
    need = found['repeats_needed']
    assert 5 < need < 20
    # That many repeats a side, each side with the larger of tonight's
    # two spreads, reach the target.
    cv = max(math.sqrt(m.variance) / m.mean for m in (b, c))
    out = judge(spread_exactly(100.0, cv, need, rng),
                spread_exactly(100.0, cv, need, rng), 0.05, 'higher')
    assert not out['sensitivity']['blind'], out['sensitivity']


def spread_exactly(mean, cv, n, rng):
    """``n`` samples whose mean and relative spread are exactly these."""
    z = [rng.gauss(0, 1) for _ in range(n)]
    m = moments(z)
    return [mean * (1 + cv * (x - m.mean) / math.sqrt(m.variance))
            for x in z]


def test_a_blind_figure_names_the_repeats_that_reach_the_target():
    # Steady nights, a spread of 10 % per repeat, 3 repeats: more
    # repeats help (the history's night noise, estimated from 3 repeats
    # a night, is 2 %).
    rng = random.Random(11)
    history = [night(rng, 1.0, 0.10, 3) for _ in range(20)]
    out = judge_nights(history[-5:], night(rng, 1.0, 0.10, 3), [history],
                       0.05, 'higher', 0.10, confidence=0.98)
    found = out['sensitivity']
    assert found['blind'] and found['detects'] > 0.10
    need = found['repeats_needed']
    assert need is not None and 3 < need <= sensitivity.MAX_REPEATS
    assert sensitivity.label(found).startswith(
        f'detects >= {found["detects"]:.0%}: cannot detect the loss it must '
        f'find (10%, lookback.detect); about {need} repeats per night would find it 9 times in '
        '10')
    # With that many repeats on every night the figure is no longer blind.
    history = [night(rng, 1.0, 0.10, need) for _ in range(20)]
    out = judge_nights(history[-5:], night(rng, 1.0, 0.10, need),
                       [history], 0.05, 'higher', 0.10, confidence=0.98)
    assert not out['sensitivity']['blind'], out['sensitivity']


def test_no_repeat_count_cures_the_night_to_night_noise():
    rng = random.Random(2)
    history = [night(rng, math.exp(rng.gauss(0, 0.13)), 0.02, 5)
               for _ in range(20)]
    out = judge_nights(history[-5:], night(rng, 1.0, 0.02, 5), [history],
                       0.05, 'higher', 0.10, confidence=0.98)
    found = out['sensitivity']
    assert found['blind'] and found['repeats_needed'] is None
    assert 'no repeat count would find it' in sensitivity.label(found)


def nights_db(tmp_path, levels, cv, seed=2):
    rng = random.Random(seed)
    db = tmp_path / 'runs' / 'results.db'
    db.parent.mkdir()
    reports = []
    for i, level in enumerate(levels):
        values = [level * (1 + rng.gauss(0.0, cv)) for _ in range(5)]
        reports.append(synth.session({CASE: values}, time_start=i * DAY))

    synth.write_database(str(db), reports)
    return db


def gate(db, capsys, *argv):
    code = cli.main(['gate', '-b', 'base', '--db', str(db), *argv])
    out, err = capsys.readouterr()
    assert code in (0, 1, 3), err
    return code, out


@pytest.mark.parametrize('cv, blind', [(0.01, False), (0.40, True)])
def test_the_reports_show_and_count_what_each_figure_detects(
        tmp_path, capsys, cv, blind):
    db = nights_db(tmp_path, [500.0] * 8, cv)
    assert cli.main(['baseline', 'record', 'base', '--db', str(db),
                     '--session', 'latest~7']) == 0
    capsys.readouterr()
    _, out = gate(db, capsys, '--format', 'json')
    record = json.loads(out)
    row = record['results'][0]
    assert row['sensitivity']['blind'] is blind
    assert record['sensitivity'] == {'figures': 1, 'blind': int(blind),
                                     'power': 0.9}
    said = f'detects >= {row["sensitivity"]["detects"]:.0%}'
    assert said in row['reason']
    _, text = gate(db, capsys)
    assert 'DETECTS' in text.splitlines()[3]
    cell = f'>={row["sensitivity"]["detects"]:.0%}' + (' blind' if blind
                                                      else '')
    assert cell in text.splitlines()[4]
    assert ('1 cannot detect the loss they must find' in text.splitlines()[0]) \
        is blind
    _, markdown = gate(db, capsys, '--format', 'markdown')
    assert f'| {row["verdict"]} | {cell} | ' in markdown
    assert '| `write_bw` | - | `dd_stream_per_node %nodes=1' in markdown
    html = tmp_path / 'gate.html'
    gate(db, capsys, '--html', str(html))
    assert (f'<td>{escape(cell)}</td>' in html.read_text() and
            '<td><code>write_bw</code></td>' in html.read_text())


positive = st.floats(min_value=1e-6, max_value=1e9, allow_nan=False)
nights_of = st.lists(st.lists(positive, min_size=1, max_size=6),
                     min_size=3, max_size=12)


@settings(max_examples=150, deadline=None)
@given(history=nights_of, tonight=st.lists(positive, min_size=1,
                                           max_size=6),
       direction=st.sampled_from(['higher', 'lower']))
def test_any_series_gets_a_sensitivity_that_grows_with_the_noise(
        history, tonight, direction):
    # Constants, single samples, huge and tiny values: a figure the gate
    # can say something about, never an error, and never a loss smaller
    # than the tolerance it must exceed.
    nights = [moments(v) for v in history]
    out = judge_nights(nights[-5:], moments(tonight), [nights], 0.05,
                       direction, 0.10, confidence=0.98)
    found = None if out is None else out['sensitivity']
    if found is None:
        return

    assert found['detects'] is None or found['detects'] >= 0.05 - 1e-9
    assert found['blind'] == (found['detects'] is None or
                              found['detects'] > 0.10)
    assert sensitivity.label(found).startswith('detects')


@settings(max_examples=200, deadline=None)
@given(se2=st.floats(min_value=0.0, max_value=4.0),
       more=st.floats(min_value=0.0, max_value=4.0),
       df=st.floats(min_value=1.0, max_value=1e6),
       direction=st.sampled_from(['higher', 'lower']),
       rule=st.sampled_from(['lookback', 'interval']))
def test_more_noise_never_buys_more_sensitivity(se2, more, df, direction,
                                                rule):
    quiet, noisy = (sensitivity.sensitivity(v, df, 0.01, 0.05, 0.10,
                                            direction, 5, v, 0.0, 5, rule)
                    for v in (se2, se2 + more))
    if noisy['detects'] is not None:
        assert quiet['detects'] <= noisy['detects'] + 1e-12
    # A blind figure's remedy never claims fewer repeats than it has
    # when the night noise is all of it (cv 0): none reaches it.
    if noisy['blind']:
        assert noisy['repeats_needed'] is None
