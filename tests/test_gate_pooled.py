# SPDX-License-Identifier: BSD-3-Clause
"""Pooled nights (pfsbench.gate.judge.pooled) and the night's
false-alarm budget (pfsbench.gate.judge.budget): a lasting loss that no
single night finds is found by the nights since it began together, an
unchanged night does not page, an intended change starts a new level,
and twins of one rate count once."""

import json
import math
import random

import pytest

from pfsbench.gate.history import provenance
from pfsbench.gate.judge import budget, pooled
from pfsbench.gate.judge.rule import judge_nights
from pfsbench.gate.statistics.stats import Moments, t_quantile
from test_gate_lookback import gate_json, night, nights_db, run
import synth

DAY = 86400.0
WINDOW = {'rule': 'window', 'nights': 7}
CUSUM = {'rule': 'cusum', 'nights': 7, 'cusum_h': 5.0}


def lasting(loss, settings, trials=300, tau=0.12, cv=0.10, repeats=5,
            after=4, seed=11, level=5, as_gate=False):
    """Per trial: 15 history nights (the first ``level`` the level), then
    ``after`` nights ``1 - loss`` times the level.

    Returns:
        ``(first, each)``: per trial the night (1-based) the rule first
        calls a regression (``None``: never), and per night the share of
        trials that call it a regression."""
    rng = random.Random(seed)
    found = []
    each = [0] * after
    for _ in range(trials):
        def one(mean):
            return night(rng, mean * math.exp(rng.gauss(0.0, tau)), cv,
                         repeats)

        history = [one(1.0) for _ in range(15)]
        recent = []
        first = None
        for i in range(after):
            tonight = one(1.0 - loss)
            # The gate's history holds the nights since the loss began
            # too (as_gate), not only the 15 before it.
            seg = history + recent if as_gate else history
            out = judge_nights(history[:level], tonight, [seg], 0.05,
                               'higher', 0.10, 0.99,
                               recent=[(i * DAY, n) for n in recent],
                               pooled=settings)
            if out['verdict'] == 'regression':
                each[i] += 1
                first = first or i + 1
            recent.append(tonight)
        found.append(first)

    return found, [n / trials for n in each]


def by(found, nights):
    return sum(f is not None and f <= nights for f in found) / len(found)


def test_a_lasting_30_percent_loss_is_found_within_4_nights():
    # 12 % night noise, 10 level nights: tonight alone finds 30 % on fewer
    # than half of the nights; the nights since it began together find it
    # on the 4th night 4 times in 5 (measured: 43 % and 88 %).
    alone, alone_each = lasting(0.30, None, level=10)
    together, each = lasting(0.30, WINDOW, level=10)
    assert max(alone_each) <= 0.55
    assert each[3] >= 0.80 and each[1] > alone_each[1] + 0.15
    assert by(together, 4) >= 0.88 and by(together, 4) > by(alone, 4)


@pytest.mark.rates
def test_unchanged_nights_are_not_flagged():
    # About as often as tonight alone is (1-2 % per figure and night on
    # these normal nights with their estimated noise; the night's budget
    # spreads that over the figures, bench/gate_quality.py --pooled).
    _, alone = lasting(0.0, None, after=7, seed=5)
    _, each = lasting(0.0, WINDOW, after=7, seed=5)
    assert max(each) <= 0.025
    assert sum(each) <= sum(alone) + 0.03


@pytest.mark.rates
def test_the_window_rule_beats_the_cusum_on_unchanged_nights():
    # The CUSUM ignores that the level's error is shared by every night:
    # its false alarms grow with the nights since the level.
    _, window = lasting(0.0, WINDOW, after=7, seed=5)
    _, cusum = lasting(0.0, CUSUM, after=7, seed=5)
    assert sum(window) < sum(cusum)


def test_the_pooled_test_names_the_night_the_shift_began():
    rng = random.Random(3)
    level = [night(rng, 1.0, 0.02, 5) for _ in range(5)]
    before = [night(rng, 1.0, 0.02, 5) for _ in range(2)]
    after = [night(rng, 0.8, 0.02, 5) for _ in range(4)]
    found = pooled.window_test(level, before + after, (0.05 ** 2, 10),
                               0.05, 'higher', 0.005, 7)
    assert found['regression']
    assert found['start'] == 2 and found['nights'] == 4
    assert found['change'] == pytest.approx(-0.2, abs=0.03)


def lasting_db(tmp_path, seed=4):
    """10 baseline nights with 12 % night noise, 2 unchanged nights after,
    then 4 nights 30 % lower (tonight the 4th; the first on
    1970-01-13)."""
    rng = random.Random(seed)
    levels = [500.0 * math.exp(rng.gauss(0.0, 0.12)) for _ in range(12)]
    levels += [350.0 * math.exp(rng.gauss(0.0, 0.12)) for _ in range(4)]
    return nights_db(tmp_path, levels)


def test_a_lasting_loss_is_a_regression_through_the_gate(tmp_path, capsys):
    db = lasting_db(tmp_path)
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                'latest~15', '--session', 'latest~6'], capsys)[0] == 0
    code, row = gate_json(db, capsys)
    assert code == 1 and row['verdict'] == 'regression', row['reason']
    assert row['pooled']['regression']
    assert 'since 1970-01-13' in row['reason']
    assert ' tonight, >= ' in row['reason']
    # Tonight alone did not find it.
    off = tmp_path / 'gate.yaml'
    off.write_text('lookback:\n  pooled:\n    rule: off\n')
    code, row = gate_json(db, capsys, '--config', str(off))
    assert code == 0 and row['verdict'] != 'regression', row['reason']


def test_an_intended_change_starts_a_new_level(tmp_path, capsys):
    # The same nights with the loss marked as intended: no pooled
    # regression across the marker.
    rng = random.Random(4)
    levels = [500.0 * math.exp(rng.gauss(0.0, 0.12)) for _ in range(12)]
    levels += [350.0 * math.exp(rng.gauss(0.0, 0.12)) for _ in range(4)]
    db = nights_db(tmp_path, levels,
                   extras={12: {'intended_change': 'copies-2'}})
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                'latest~15', '--session', 'latest~6'], capsys)[0] == 0
    code, row = gate_json(db, capsys)
    assert code == 0 and row['verdict'] != 'regression', row['reason']
    assert 'pooled' not in row
    # Unmarked, the nights since the loss are a regression together.
    (tmp_path / 'unmarked').mkdir()
    db = nights_db(tmp_path / 'unmarked', levels)
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                'latest~15', '--session', 'latest~6'], capsys)[0] == 0
    code, row = gate_json(db, capsys)
    assert code == 1 and row['pooled']['regression'], row['reason']


def row(var, p, verdict='regression', values=(1.0, 2.0), case='c'):
    return {'case': case, 'var': var, 'unit': 'MB/s', 'verdict': verdict,
            'reason': 'r', 'base': {'values': list(values)},
            'cur': {'values': [v * 0.5 for v in values]},
            'lookback': {'p': p}}


def test_twins_of_one_rate_count_once():
    # write_bw and its twins at p = 0.004 and one other figure: two
    # families, Holm's first bound 0.01 / 2 keeps the loss.
    rows = [row('write_bw', 0.004, values=(1.0, 2.0)),
            row('write_bw_sum', 0.004, values=(1.1, 2.1)),
            row('write_bw_trimmed', 0.004, values=(1.2, 2.2)),
            row('write_bw_conservative', 0.004, values=(1.3, 2.3)),
            row('read_bw', 0.5, 'pass', values=(3.0, 4.0))]
    found = budget.apply(rows, 0.01)
    assert found['families'] == 2 and found['held'] == 0
    assert all(r['verdict'] == 'regression' for r in rows[:4])
    # Counted as four figures, the same loss would be held.
    assert budget.holm([0.004] * 4 + [0.5], 0.01) == [False] * 5


def test_diagnostic_figures_never_page_nor_spend_the_budget():
    # A lasting loss on read_bw (p = 0.0098) with the repeats' spread of
    # both phases judged that night: diagnostics counted as figures made
    # 4 families (0.0098 > 0.02 / 4 held it); the headline ones are 2.
    # A diagnostic's own "regression" is shown, never paging.
    rows = [row('read_bw', 0.0098, values=(1.0, 2.0)),
            row('write_bw', 0.6, 'pass', values=(5.0, 6.0)),
            row('read_repeat_spread', 0.5, 'pass', values=(7.0, 8.0)),
            row('write_repeat_spread', 0.5, 'pass', values=(9.0, 10.0)),
            row('read_node_bw_min', 0.001, values=(1.5, 2.5)),
            row('create_device_util', 0.001, values=(3.5, 4.5))]
    rows[2]['unit'] = rows[3]['unit'] = '%'
    found = budget.apply(rows, 0.02)
    assert found['families'] == 2 and found['held'] == 0
    assert found['diagnostics'] == 2
    assert rows[0]['verdict'] == 'regression' and rows[0]['role'] == \
        'headline'
    assert [r['role'] for r in rows[2:]] == ['diagnostic'] * 4
    for diag in rows[4:]:
        assert diag['verdict'] == 'inconclusive', diag['var']
        assert diag['reason'].startswith('diagnostic figure: '), diag
    # Counted as before (4 families), the loss would have been held.
    assert budget.holm([0.0098, 0.6, 0.5, 0.5], 0.02)[0] is False


def test_figures_with_the_same_samples_count_once():
    rows = [row('write_bw', 0.004), row('write_whatever', 0.004),
            row('read_bw', 0.9, 'pass', values=(5.0, 6.0))]
    assert budget.apply(rows, 0.01)['families'] == 2


def test_independent_figures_share_the_night_budget():
    rows = [row(f'phase{i}_bw', 0.004 if i == 0 else 0.5,
                'regression' if i == 0 else 'pass', values=(i + 1.0, 9.0))
            for i in range(6)]
    found = budget.apply(rows, 0.01)
    assert found['families'] == 6 and found['held'] == 1
    assert rows[0]['verdict'] == 'inconclusive'
    assert 'false-alarm budget' in rows[0]['reason']


def test_a_case_whose_night_brings_a_named_change_keeps_its_verdict():
    # Six families, one loss at p = 0.004 in case c: the budget holds it
    # (0.004 > 0.01 / 6) unless c's night brings a named change; then
    # Holm counts the other five only.
    def night():
        return [row(f'phase{i}_bw', 0.004 if i == 0 else 0.5,
                    'regression' if i == 0 else 'pass', values=(i + 1.0, 9.0),
                    case='c' if i < 2 else 'd') for i in range(6)]

    alone = night()
    assert budget.apply(alone, 0.01)['held'] == 1
    brought = night()
    found = budget.apply(brought, 0.01,
                         {'c': 'fs_super_opts (superblock options)'})
    assert found['held'] == 0 and found['families'] == 4
    assert found['own_level'] == 2
    assert brought[0]['verdict'] == 'regression'
    assert brought[0]['reason'].startswith(
        'judged at its own level, outside the night\'s false-alarm budget: '
        'tonight brings fs_super_opts (superblock options); ')
    assert brought[0]['lookback']['own_level'] is True
    # The other case's loss still meets Holm over the rest.
    other = night()
    other[2].update(verdict='regression', lookback={'p': 0.004})
    budget.apply(other, 0.01, {'c': 'kernel (kernel)'})
    assert other[2]['verdict'] == 'inconclusive'


def test_only_causes_name_a_change():
    assert provenance.named_cause('fs_super_opts')
    assert provenance.named_cause('kernel')
    assert provenance.named_cause('lustre_server')
    assert not provenance.named_cause('job_nodelist')
    assert not provenance.named_cause('a_site_extra')


CASES = [f'dd_stream_per_node %nodes={i}' for i in range(1, 9)]
ORDERED = {'fs_super_opts': 'rw;data=ordered'}
JOURNAL = {'fs_super_opts': 'rw;data=journal'}


def eight_cases_db(path, extras, capsys):
    """Eight cases, seven nights at one level (8 % night noise, 3 %
    within), then a night on which the first case is 30 % slower."""
    rng = random.Random(5)
    reports = []
    for i in range(8):
        values = {}
        for case in CASES:
            level = 500.0 * rng.lognormvariate(0.0, 0.08)
            if i == 7 and case == CASES[0]:
                level *= 0.7
            values[case] = [level * (1 + rng.gauss(0.0, 0.03))
                            for _ in range(3)]
        reports.append(synth.session(values, time_start=i * DAY,
                                     extras=extras.get(i)))
    path.mkdir(parents=True)
    db = path / 'results.db'
    synth.write_database(str(db), reports)
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                'latest~7'], capsys)[0] == 0
    return db


@pytest.mark.parametrize('changed_from, verdict', [
    (None, 'inconclusive'),      # nothing changed: an unchanged night
    (7, 'regression'),           # the night brings data=journal
    (6, 'inconclusive'),         # it came the night before
])
def test_a_night_that_brings_a_named_change_is_not_held_by_the_budget(
        tmp_path, capsys, changed_from, verdict):
    # The same values every time: tonight's -35 % is a regression by its
    # own interval (p = 0.0064 for the night's budget), which Holm over 8
    # cases holds (0.01 / 8).  CI of 2026-11-27 held a -69 % data=journal
    # night so, exit 0.
    extras = {i: ORDERED for i in range(8)}
    if changed_from is not None:
        extras.update({i: JOURNAL for i in range(changed_from, 8)})
    db = eight_cases_db(tmp_path / 'runs', extras, capsys)
    code, out, err = run(['gate', '-b', 'base', '--db', str(db), '--format',
                          'json'], capsys)
    rows = json.loads(out[out.index('{'):])['results']
    first = next(r for r in rows if r['case'].startswith(CASES[0] + ' @'))
    assert first['change'] == pytest.approx(-0.354, abs=0.01)
    assert first['verdict'] == verdict, first['reason']
    assert code == (1 if verdict == 'regression' else 0), err
    if verdict == 'regression':
        assert 'tonight brings fs_super_opts (superblock options)' in \
            first['reason']
    else:
        assert first['reason'].startswith(
            "held by the night's false-alarm budget"), first['reason']


def test_the_report_shows_the_pooled_change_where_it_decided(
        tmp_path, capsys):
    # The table's CHANGE and INTERVAL are the pooled nights' where they
    # made the verdict (tonight alone was no regression), with the night
    # the shift began; before, every renderer showed tonight's own.
    db = lasting_db(tmp_path)
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                'latest~15', '--session', 'latest~6'], capsys)[0] == 0
    code, row = gate_json(db, capsys)
    assert code == 1 and row['pooled']['decided'], row['reason']
    together = row['pooled']
    change = f'{together["change"]:+.1%} ({together["nights"]} nights)'
    interval = (f'[{together["low"]:+.1%}, {together["high"]:+.1%}] '
                'since 1970-01-13')
    tonight = f'[{row["low"]:+.1%}, {row["high"]:+.1%}]'
    for fmt in ('text', 'markdown', 'html', 'junit'):
        code, out, _ = run(['gate', '-b', 'base', '--db', str(db),
                            '--format', fmt], capsys)
        assert code == 1
        assert change in out and interval in out, (fmt, out)
        assert tonight not in out, fmt
        if fmt != 'junit':
            assert '(N nights)' in out, fmt
    # A night tonight alone found shows its own change, no note.
    off = tmp_path / 'gate.yaml'
    off.write_text('lookback:\n  pooled:\n    rule: off\n')
    code, alone = gate_json(db, capsys, '--config', str(off))
    code, out, _ = run(['gate', '-b', 'base', '--db', str(db), '--config',
                        str(off)], capsys)
    assert f'[{alone["low"]:+.1%}, {alone["high"]:+.1%}]' in out
    assert '(N nights)' not in out
    assert f'{alone["change"]:+.1%} (' not in out


def test_a_step_among_the_level_nights_does_not_shrink_the_noise(
        tmp_path, capsys):
    # The level takes the baseline and the nights before it as one: a
    # step the change points find among them is where they differ most
    # and was split off the noise, which shrank it to the repeats' (on
    # normal nights 1.2-1.5 % of unchanged nights were a regression
    # where 0.5-0.7 % are now: bench/gate_quality.py --pooled).
    db = nights_db(tmp_path, [500.0] * 5 + [450.0] * 5 + [425.0])
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                'latest~1'], capsys)[0] == 0
    code, row = gate_json(db, capsys)
    assert row['lookback']['night_cv'] > 0.04, row['reason']
    assert code == 0 and row['verdict'] != 'regression', row['reason']


@pytest.mark.parametrize('tau', [0.0, 0.05, 0.15])
def test_what_the_nights_detect_is_the_window_tests_own_bound(tau):
    """Nights exactly at the loss the label names give the window test
    the t of 9 finds in 10 at its level (its own degrees of freedom):
    with a night noise near 0 (the repeats explain the nights' spread,
    as on the MooseFS month) the label once took other degrees of
    freedom than the test and named a loss far beyond the test's.  Both
    now have never more than the noise's own (the far tail,
    docs/gate-evidence.md)."""
    level = [Moments(200.0, (0.15 * 200.0) ** 2, 5) for _ in range(3)]
    noise = (tau * tau, 3)
    alpha, count = 0.005, 4
    found = pooled.detects(level, count, noise, 0.05, 'higher', alpha, 7)
    nights = [Moments(200.0 * (1.0 - found), (0.15 * 200.0 *
                                              (1.0 - found)) ** 2, 5)
              for _ in range(count)]
    test = pooled.window_test(level, nights, noise, 0.05, 'higher', alpha,
                              7)
    assert test['nights'] == count
    assert test['df'] <= noise[1]
    assert pooled.detect_inputs(level, count, noise, 0.05, 'higher',
                                7)['df'] <= noise[1]
    t = -test['d'] / test['se']
    want = (t_quantile(1.0 - test['window_alpha'], test['df']) +
            t_quantile(0.90, test['df']))
    # Each window's level is between Bonferroni's and alpha itself.
    assert alpha / (count - 1) < test['window_alpha'] < alpha
    assert t == pytest.approx(want, rel=0.02), (found, test)


def test_a_lasting_loss_does_not_hide_in_the_night_noise():
    """The gate's history holds the nights since the loss began: read as
    night noise, their step widened the window's own test (on the MooseFS
    month, issue 33, the noise went from 0.0 % to 14 % the night after
    copies 1 -> 2).  Each window is judged against the noise of the
    nights outside it: found by the 4th night 85 % of the time as with a
    history that ends before the loss (87 %); 72 % before."""
    found, _ = lasting(0.30, WINDOW, trials=200, as_gate=True)
    assert by(found, 4) >= 0.80, found
    unchanged, _ = lasting(0.0, WINDOW, trials=300, as_gate=True)
    assert by(unchanged, 4) <= 0.05, unchanged
