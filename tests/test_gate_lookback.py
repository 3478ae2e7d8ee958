# SPDX-License-Identifier: BSD-3-Clause
"""The lookback rule (pfsbench.gate.judge.lookback, rule.judge_nights) on
synthetic nights: its error rates on a noisy history, intended-change
markers, outlying nights, like-for-like history and the unstable tier,
the last ones through ``pfsbench gate`` on synthetic ReFrame databases."""

import json
import math
import random

import pytest

from pfsbench import cli
from pfsbench.gate.history.series import CaseColumns
from pfsbench.gate.judge import lookback
from pfsbench.gate.judge.config import GateConfig
from pfsbench.gate.judge.rule import judge_nights, tonight_p
from pfsbench.gate.statistics.stats import (SPREAD_MEDIANS, Moments,
                                            moments, night_spread,
                                            pooled_scale, wild_repeats)
import synth

CASE = 'dd_stream_per_node %nodes=1'
DAY = 86400.0


def night(rng, level, cv, repeats):
    return moments([level * math.exp(rng.gauss(0.0, cv))
                    for _ in range(repeats)])


def rates(step, trials=1000, tau=0.01, cv=0.04, repeats=5, nights=20,
          seed=7):
    """Regression and inconclusive rates of tonight ``1 + step`` times
    the level, on nights with night-to-night noise ``tau`` and repeats
    of relative spread ``cv``; the level from 5 nights."""
    rng = random.Random(seed)
    counts = {'regression': 0, 'inconclusive': 0, 'pass': 0,
              'improvement': 0}
    for _ in range(trials):
        history = [night(rng, math.exp(rng.gauss(0.0, tau)), cv, repeats)
                   for _ in range(nights)]
        tonight = night(rng, (1 + step) * math.exp(rng.gauss(0.0, tau)), cv,
                        repeats)
        out = judge_nights(history[-5:], tonight, [history], 0.05,
                           'higher', 0.10, confidence=0.98)
        counts[out['verdict']] += 1

    return {v: n / trials for v, n in counts.items()}


def test_noisy_unchanged_nights_pass_and_a_10_percent_step_is_found():
    # The goal of issue 14 on nights like this machine's writes.
    unchanged = rates(0.0)
    assert unchanged['regression'] <= 0.01
    assert unchanged['inconclusive'] <= 0.20
    slower = rates(-0.10)
    assert slower['regression'] >= 0.90
    assert slower['pass'] <= 0.01


@pytest.mark.rates
def test_the_default_level_keeps_false_alarms_under_the_goal():
    # A site's goal is at most 1 % false alarms per figure and night.  A
    # rule at exactly 1 % one-sided (confidence 0.98) pages about 1 % on
    # normal nights (here 20 nights of 5 % night noise, 5 repeats of 5 %):
    # its t has the degrees of freedom of the history's nights, which
    # estimate the noise it divides by.  The default (0.99,
    # docs/gate-evidence.md) stays under it.
    default = GateConfig().lookback_confidence

    def false_alarms(confidence, trials=3000):
        rng = random.Random(11)
        found = 0
        for _ in range(trials):
            history = [night(rng, math.exp(rng.gauss(0.0, 0.05)), 0.05, 5)
                       for _ in range(20)]
            tonight = night(rng, math.exp(rng.gauss(0.0, 0.05)), 0.05, 5)
            found += judge_nights(history[-5:], tonight, [history], 0.05,
                                  'higher', 0.10,
                                  confidence=confidence)['verdict'] == \
                'regression'
        return found / trials

    assert false_alarms(default) <= 0.01
    assert 0.005 <= false_alarms(0.98) <= 0.0125


def test_the_far_tail_is_calibrated_where_the_night_noise_is_near_0():
    # Night noise 5 %, 5 repeats of 10 %: the night noise often comes
    # out near 0, and Satterthwaite's rule alone then credited the
    # repeats' 32 degrees of freedom to a variance the 8 nights' spread
    # measures: 29 of 3000 unchanged nights had p < 0.005 (twice the
    # nominal 15).  The nights' own degrees of freedom keep it under.
    def p_of(nights, tonight):
        return tonight_p(lookback.interval(
                             nights, tonight,
                             lookback.night_variance([nights]), 0.99),
                         'higher')

    assert unchanged_tail(5, 0.05, 0.10, 5, 8, 0.005, p_of) <= 15


def unchanged_tail(seed, tau, cv, repeats, count, level, p_of):
    """How many of 3000 unchanged nights (``count`` level nights and
    tonight, night noise ``tau``, ``repeats`` of spread ``cv``) have
    ``p_of(nights, tonight)`` below ``level``."""
    rng = random.Random(seed)
    tail = 0
    for _ in range(3000):
        nights = [night(rng, math.exp(rng.gauss(0.0, tau)), cv, repeats)
                  for _ in range(count)]
        tonight = night(rng, math.exp(rng.gauss(0.0, tau)), cv, repeats)
        tail += p_of(nights, tonight) < level
    return tail


def test_the_rule_is_as_good_for_a_figure_where_lower_is_better():
    rng = random.Random(3)
    history = [night(rng, 10.0, 0.03, 5) for _ in range(15)]
    slower = Moments(11.5, (11.5 * 0.03) ** 2, 5)
    out = judge_nights(history[-5:], slower, [history], 0.05, 'lower', 0.10)
    assert out['verdict'] == 'regression'
    same = Moments(10.0, (10.0 * 0.03) ** 2, 5)
    out = judge_nights(history[-5:], same, [history], 0.05, 'lower', 0.10)
    assert out['verdict'] == 'pass'


def test_a_spread_with_its_tolerance_of_50_percent_is_never_a_traceback():
    # *_stream_spread (lower is better, tolerance 0.5, so detect 1.0) of
    # two dd streams on MooseFS, seen in bench/nightly_month.py: an
    # inconclusive night asked ln(1 - 1.0) for the repeats that would
    # settle it.  A loss there is a doubling, not a zero.
    rng = random.Random(5)
    history = [night(rng, 20.0 * math.exp(rng.gauss(0.0, 0.4)), 0.5, 3)
               for _ in range(8)]
    out = judge_nights(history[-3:], night(rng, 30.0, 0.5, 3), [history],
                       0.5, 'lower', 1.0, confidence=0.98)
    assert out['verdict'] == 'inconclusive', out
    assert 'would settle it' in out['reason'] or \
        'will not settle it' in out['reason'], out['reason']
    assert lookback.log_margin(1.0, 'lower') == pytest.approx(math.log(2.0))
    assert lookback.log_margin(0.5, 'higher') == pytest.approx(math.log(2.0))


def test_a_tolerance_of_one_on_a_higher_is_better_figure_gives_a_verdict():
    # MB/s with tolerance 1.0 (the schema allows up to 10): detect 2.0, a
    # "loss" to zero or below; ln(1 - 2) raised before.
    assert lookback.log_margin(1.0, 'higher') == math.inf
    rng = random.Random(7)
    history = [night(rng, 500.0 * math.exp(rng.gauss(0.0, 0.4)), 50.0, 3)
               for _ in range(8)]
    out = judge_nights(history[-3:], night(rng, 300.0, 50.0, 3), [history],
                       1.0, 'higher', 2.0, confidence=0.98)
    assert out['verdict'] in ('pass', 'inconclusive'), out


def test_a_noisy_night_weighs_less_in_the_level():
    tight = Moments(100.0, 1.0, 5)
    noisy = Moments(80.0, 30.0 ** 2, 5)
    mu, _ = lookback.level([tight, noisy], 0.0)
    assert math.exp(mu) > 99.0
    mu_even, _ = lookback.level([tight, Moments(80.0, 0.64, 5)], 0.0)
    assert math.exp(mu_even) == pytest.approx(math.sqrt(100.0 * 80.0))


def test_the_noise_is_what_the_nights_vary_beyond_their_repeats():
    rng = random.Random(11)
    history = [night(rng, math.exp(rng.gauss(0.0, 0.05)), 0.02, 5)
               for _ in range(200)]
    tau2, df = lookback.night_variance([history])
    assert df == 199
    assert math.sqrt(tau2) == pytest.approx(0.05, rel=0.15)
    # Nights that vary only as their repeats do: no night noise.
    flat = [night(rng, 1.0, 0.05, 5) for _ in range(200)]
    assert math.sqrt(lookback.night_variance([flat])[0]) < 0.01


def test_a_step_between_segments_does_not_count_as_noise():
    rng = random.Random(5)
    before = [night(rng, 100.0, 0.02, 5) for _ in range(10)]
    after = [night(rng, 60.0, 0.02, 5) for _ in range(10)]
    split = lookback.split_at_markers(before + after, [False] * 10 + [True] +
                                      [False] * 9)
    assert [len(s) for s in split] == [10, 10]
    assert math.sqrt(lookback.night_variance(split)[0]) < 0.02
    assert math.sqrt(lookback.night_variance([before + after])[0]) > 0.2


def test_outlying_nights_are_left_out():
    rng = random.Random(9)
    history = [night(rng, 100.0, 0.02, 5) for _ in range(10)]
    history[4] = Moments(50.0, 1.0, 5)
    kept, dropped = lookback.drop_outliers(history, 3.5)
    assert dropped == [history[4]] and len(kept) == 9
    out = judge_nights(history[-5:], night(rng, 100.0, 0.02, 5), [history],
                       0.05, 'higher', 0.10)
    assert out['verdict'] == 'pass'
    assert out['lookback']['outliers'] == 1


def test_a_night_within_its_own_noise_is_no_outlier():
    # Ten nights whose means agree to 0.01 % by chance (a MAD of almost
    # 0), each of 5 repeats with a 5 % spread: the mean of a night is
    # known to 5 % / sqrt(5) = 2.2 %.  A night 3 % off is within its own
    # noise and must stay, in the noise and in the level; without the
    # floor of the outlier scale it lies 200 MADs out and is dropped.
    agree = [Moments(100.0 * (1 + 1e-4 * (-1) ** i), 25.0, 5)
             for i in range(10)]
    off = Moments(103.0, 25.0, 5)
    history = agree[:6] + [off] + agree[6:]
    kept, dropped = lookback.drop_outliers(history, 3.5)
    assert dropped == [] and kept == history
    out = judge_nights(history[-5:], Moments(100.0, 25.0, 5), [history],
                       0.05, 'higher', 0.10)
    assert out['lookback']['outliers'] == 0
    assert out['lookback']['history_nights'] == len(history)
    assert out['lookback']['level_nights'] == 5
    # A night far beyond its own noise still goes.
    far = agree[:6] + [Moments(70.0, 12.25, 5)] + agree[6:]
    assert lookback.drop_outliers(far, 3.5)[1] == [far[6]]


def test_too_short_a_history_leaves_it_to_the_interval_rule():
    rng = random.Random(1)
    two = [night(rng, 100.0, 0.02, 5) for _ in range(2)]
    assert judge_nights(two, two[0], [two], 0.05, 'higher', 0.10) is None


def run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def nights_db(tmp_path, levels, extras=None, nodelists=None, seed=2,
              loggable=None):
    """A database of one night per level (5 repeats with 2 % spread),
    and its baseline of the first night; ``loggable``: ``{night:
    {variable: value}}`` of the nights' test cases."""
    rng = random.Random(seed)
    db = tmp_path / 'runs' / 'results.db'
    db.parent.mkdir()
    reports = []
    for i, level in enumerate(levels):
        values = [level * (1 + rng.gauss(0.0, 0.02)) for _ in range(5)]
        reports.append(synth.session(
            {CASE: values}, time_start=i * DAY,
            extras=(extras or {}).get(i),
            nodelist=(nodelists or {}).get(i, ('n1',)),
            loggable=(loggable or {}).get(i)))

    synth.write_database(str(db), reports)
    return db


def gate_json(db, capsys, *extra):
    code, out, err = run(['gate', '-b', 'base', '--db', str(db), '--format',
                          'json', *extra], capsys)
    assert code in (0, 1), err
    return code, json.loads(out)['results'][0]


def test_an_intended_change_resets_the_level(tmp_path, capsys):
    # Ten nights at 500, a planned upgrade that makes them 400, four
    # nights at 400, then tonight at 400.
    levels = [500.0] * 10 + [400.0] * 5 + [400.0]
    db = nights_db(tmp_path, levels,
                   extras={10: {'intended_change': 'lustre-2.15'}})
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                'latest~15'], capsys)[0] == 0
    code, row = gate_json(db, capsys)
    assert code == 0 and row['verdict'] == 'pass', row['reason']
    assert row['lookback']['level_nights'] == 5
    # The step is not noise: the history keeps both segments.
    assert row['lookback']['history_nights'] == 15
    assert row['lookback']['night_cv'] < 0.03
    # Without the marker the same nights are a -20 % regression against
    # the baseline's level.
    db2 = nights_db(tmp_path / 'unmarked', levels) \
        if (tmp_path / 'unmarked').mkdir() is None else None
    assert run(['baseline', 'record', 'base', '--db', str(db2), '--session',
                'latest~15'], capsys)[0] == 0
    code, row = gate_json(db2, capsys)
    assert code == 1 and row['verdict'] == 'regression', row['reason']
    assert row['change'] == pytest.approx(-0.2, abs=0.03)


def test_a_marker_kept_on_later_nights_marks_the_first_only(tmp_path,
                                                            capsys):
    levels = [500.0] * 10 + [400.0] * 6
    marked = {i: {'intended_change': 'lustre-2.15'} for i in range(10, 16)}
    db = nights_db(tmp_path, levels, extras=marked)
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                'latest~15'], capsys)[0] == 0
    code, row = gate_json(db, capsys)
    assert code == 0 and row['verdict'] == 'pass', row['reason']
    assert row['lookback']['level_nights'] == 5


def test_an_unmarked_step_in_the_history_is_not_noise(tmp_path, capsys):
    # A baseline of 15 nights at 500, then 15 nights at 400 that nobody
    # marked: tonight is still 20 % below the baseline, and the step must
    # not widen the noise until the loss looks inconclusive.
    db = nights_db(tmp_path, [500.0] * 15 + [400.0] * 16)
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                'latest~30'], capsys)[0] == 0
    code, row = gate_json(db, capsys)
    assert code == 1 and row['verdict'] == 'regression', row['reason']
    assert row['lookback']['night_cv'] < 0.03
    assert row['change'] == pytest.approx(-0.2, abs=0.03)


def test_tonight_marked_as_an_intended_change_starts_a_new_level(
        tmp_path, capsys):
    db = nights_db(tmp_path, [500.0] * 6 + [300.0],
                   extras={6: {'intended_change': 'new-raid-layout'}})
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                'latest~6'], capsys)[0] == 0
    code, row = gate_json(db, capsys)
    assert code == 0 and row['verdict'] == 'inconclusive'
    assert 'intended_change=new-raid-layout' in row['reason']


def test_only_like_for_like_nights_make_the_history(tmp_path, capsys):
    # Nights on node n2 vary more; tonight ran on n1.  (Enough n1 nights
    # that their own degrees of freedom, 5, can rule the loss out.)
    levels = [500.0, 450.0, 560.0, 500.0, 440.0, 570.0, 500.0, 460.0,
              550.0, 500.0, 500.0, 500.0, 500.0]
    nodes = {i: ('n2',) for i, v in enumerate(levels) if v != 500.0}
    db = nights_db(tmp_path, levels, nodelists=nodes)
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                'latest~12'], capsys)[0] == 0
    code, row = gate_json(db, capsys)
    assert row['verdict'] == 'pass', row['reason']
    assert row['lookback']['history_nights'] == 6
    # Matched on nothing, the other node's nights make the noise huge.
    loose = tmp_path / 'loose.yaml'
    loose.write_text('lookback:\n  match: []\n')
    code, row = gate_json(db, capsys, '--config', str(loose))
    assert row['verdict'] == 'inconclusive'
    assert row['lookback']['history_nights'] == 12


def io500_nights_db(tmp_path, levels, invalid):
    """:func:`nights_db` of an IO500 case whose ``invalid`` nights ran
    their phases short of the stonewall (``io500_valid`` false)."""
    return nights_db(tmp_path, levels, loggable={
        i: {'io500_valid': i not in invalid,
            'io500_invalid': 'ior-easy-write: ran 240 s, below the '
                             "list's minimum of 300 s" if i in invalid
                             else ''}
        for i in range(len(levels))})


def test_io500_validity_splits_the_history_and_names_the_change(
        tmp_path, capsys):
    # Ten valid nights at 500, then three whose phases ran short of the
    # stonewall at 300, then tonight, valid again at 500: its noise
    # comes from the valid nights alone.
    levels = [500.0] * 10 + [300.0] * 3 + [500.0]
    db = io500_nights_db(tmp_path, levels, invalid={10, 11, 12})
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                'latest~13'], capsys)[0] == 0
    code, row = gate_json(db, capsys)
    assert code == 0 and row['verdict'] == 'pass', row['reason']
    assert row['lookback']['history_nights'] == 10
    # Matched as before this tag (io500_valid out of lookback.match), the
    # invalid nights are in it.
    loose = tmp_path / 'loose.yaml'
    loose.write_text('lookback:\n  match: [job_nodelist]\n')
    code, row = gate_json(db, capsys, '--config', str(loose))
    assert row['lookback']['history_nights'] == 13


def test_an_invalid_io500_night_is_a_loss_named_by_its_validity(
        tmp_path, capsys):
    # The baseline is valid; tonight's run is not, and scores 40 % less:
    # a regression of the score, whose report names the validity first.
    levels = [500.0] * 10 + [300.0] * 4
    db = io500_nights_db(tmp_path, levels, invalid={10, 11, 12, 13})
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                'latest~13'], capsys)[0] == 0
    code, out, err = run(['gate', '-b', 'base', '--db', str(db), '--format',
                          'json'], capsys)
    report = json.loads(out)
    assert code == 1 and report['results'][0]['verdict'] == 'regression'
    assert report['results'][0]['lookback']['history_nights'] == 3
    first = next(iter(report['changes'].values()))[0]
    assert (first['key'], first['before'], first['after']) == (
        'io500_valid', ['True'], 'False')
    assert first['label'].startswith('IO500 validity')


def test_an_unstable_figure_reports_a_loss_but_never_fails(tmp_path,
                                                           capsys):
    db = nights_db(tmp_path, [500.0] * 8 + [400.0])
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                'latest~8'], capsys)[0] == 0
    code, row = gate_json(db, capsys)
    assert code == 1 and row['verdict'] == 'regression'
    unstable = tmp_path / 'unstable.yaml'
    unstable.write_text('variables:\n  write_bw:\n    unstable: true\n')
    code, row = gate_json(db, capsys, '--config', str(unstable))
    assert code == 0 and row['verdict'] == 'inconclusive'
    # (After the sensitivity's label where the figure is blind.)
    assert (f'unstable figure ({unstable}: unstable): reported, never '
            'gating') in row['reason']
    assert row['change'] == pytest.approx(-0.2, abs=0.03)


def test_a_night_whose_spread_grew_is_named():
    rng = random.Random(4)
    history = [night(rng, 100.0, 0.02, 5) for _ in range(10)]
    wide = Moments(100.0, 20.0 ** 2, 5)
    out = judge_nights(history[-5:], wide, [history], 0.05, 'higher', 0.10)
    assert out['spread_change'] == pytest.approx(10.0, rel=0.3)
    assert 'a disturbed night?' in out['reason']
    # Its own spread weighs it: nothing can be ruled out.
    assert out['verdict'] == 'inconclusive'
    calm = judge_nights(history[-5:], Moments(100.0, 4.0, 5), [history],
                        0.05, 'higher', 0.10)
    assert calm['spread_change'] is None and calm['verdict'] == 'pass'


def test_tonights_repeats_measure_its_spread_when_the_level_has_few():
    # A site's first week: the level is the baseline's one night of 2
    # repeats (1 degree of freedom), tonight has 6 within their spread.
    # A -83 % night is a regression with tonight's 5 degrees; with the
    # level's 1 (t = 63.7) its interval reached +6e10 % on CI-like load.
    level = [Moments(600.0, 30.0 ** 2, 2)]
    tonight = Moments(100.0, 30.0 ** 2, 6)
    iv = lookback.interval(level, tonight, (0.0, 5), 0.99)
    assert iv.df == 5.0
    assert lookback.decide(iv, 0.4, 0.8, 'higher')[0] == 'regression'
    # Where the level nights measure the same spread with more repeats,
    # theirs lend the degrees.
    many = [Moments(600.0, 30.0 ** 2, 9)] * 4
    alike = Moments(100.0, 5.0 ** 2, 6)
    assert lookback.interval(many, alike, (0.0, 50), 0.99).df == 32.0
    # But never more than the night means carry: with the night noise
    # near 0 the repeats' degrees made the far tail 2-3 times too heavy
    # (docs/gate-evidence.md, "The far tail").
    assert lookback.interval(many, alike, (0.0, 5), 0.99).df == 5.0


def test_one_tool_run_a_night_counts_its_iterations(tmp_path, capsys):
    # IOR-like: one run a night (no --repeat), -i 5 summarised as mean
    # and population stddev; nights vary by 1 %, tonight is 20 % slower.
    db = tmp_path / 'runs' / 'results.db'
    db.parent.mkdir()
    reports = []
    for night, mean in enumerate([1000.0, 1010.0, 990.0, 1005.0, 995.0,
                                  1000.0, 800.0]):
        tc = synth.make_testcase(f'{night}', 0, 0, 'ior_bw %nodes=1', {
            'write_bw_mean': (mean, 'MiB/s'),
            'write_bw_stddev': (20.0, 'MiB/s')}, time=night * DAY + 1)
        tc['repetitions'] = 5
        reports.append(synth.make_report([tc], time_start=night * DAY,
                                         session_uuid=f'{night}'))

    synth.write_database(str(db), reports)
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                'latest~6'], capsys)[0] == 0
    code, out, err = run(['gate', '-b', 'base', '--db', str(db), '--format',
                          'json'], capsys)
    rows = {r['var']: r for r in json.loads(out)['results']}
    mean = rows['write_bw_mean']
    assert code == 1 and mean['verdict'] == 'regression', mean['reason']
    assert mean['lookback']['history_nights'] == 6
    assert mean['cur']['iterations'] == 5


#: Ten nights of the quality bench's capped recording (read_bw, MB/s, the
#: first five repeats of ten sessions; bench/gate_quality.py's
#: /var/tmp/pfsbench-gq-sensitivity): a steady target at 43 MB/s...
CAPPED_NIGHTS = [
    [42.9, 43.2, 43.2, 43.1, 43.2], [43.0, 42.8, 43.2, 43.1, 42.9],
    [43.2, 43.1, 43.2, 43.2, 42.9], [43.0, 42.9, 43.1, 43.1, 43.1],
    [43.0, 43.1, 43.0, 43.1, 42.7], [42.9, 43.0, 43.1, 43.2, 43.1],
    [43.1, 42.9, 43.1, 43.0, 43.2], [43.0, 43.1, 43.1, 42.6, 43.0],
    [43.0, 43.1, 43.1, 43.0, 42.9], [43.1, 43.0, 43.2, 42.8, 43.0]]
#: ... and one of its sessions whose fourth and fifth repeats met other
#: users' load.
WILD_NIGHT = [43.0, 43.1, 43.1, 13.8, 39.0, 42.9, 42.5, 43.2, 42.5, 43.0]


def wild_db(tmp_path, tonight):
    db = tmp_path / 'runs' / 'results.db'
    db.parent.mkdir()
    reports = [synth.session({CASE: values}, time_start=i * DAY,
                             var='read_bw')
               for i, values in enumerate(CAPPED_NIGHTS + [tonight])]
    synth.write_database(str(db), reports)
    return db


@pytest.mark.parametrize('factor, verdict', [(1.0, 'pass'),
                                             (0.85, 'regression')])
def test_one_wild_repeat_tonight_neither_hides_nor_fakes_a_loss(
        tmp_path, capsys, factor, verdict):
    # With the mean of all ten repeats (main before issue 19's item 3)
    # the 13.8 pulls tonight 7 % down and widens its interval 20-fold:
    # both nights are inconclusive, and a real 15 % loss goes unseen.
    # Left out as wild, tonight is its nine ordinary repeats.
    db = wild_db(tmp_path, [v * factor for v in WILD_NIGHT])
    assert run(['baseline', 'record', 'base', '--db', str(db), '--session',
                f'latest~{len(CAPPED_NIGHTS)}'], capsys)[0] == 0
    code, row = gate_json(db, capsys)
    assert row['verdict'] == verdict, row['reason']
    assert code == (1 if verdict == 'regression' else 0)
    assert row['change'] == pytest.approx(factor - 1.0, abs=0.01)


def test_a_night_keeps_its_repeats_unless_one_is_wild():
    assert lookback.night_moments(WILD_NIGHT) == moments(
        [v for v in WILD_NIGHT if v not in (13.8, 39.0)])
    # A broad but ordinary spread (the unthrottled recording's writes,
    # one session) keeps every repeat.
    broad = [129.0, 41.0, 135.0, 317.0, 484.0, 375.0, 168.0, 265.0, 271.0,
             77.0]
    assert lookback.night_moments(broad) == moments(broad)
    # Too few repeats to tell, constants and zeros: all kept.
    for values in ([43.0, 43.1, 13.8], [5.0] * 6, [0.0] * 6,
                   [0.0, 1.0, 1.0, 1.0, 1.0, 1.0]):
        assert lookback.night_moments(values) == moments(values)


def test_five_ordinary_repeats_are_not_made_wild_by_chance():
    # Three of five ordinary repeats agree to 0.05 %: the night's own
    # scaled MAD is near 0, and by it the ordinary +-3 % repeats are wild.
    # Floored at the figure's pooled scale (2 %), they are kept; a repeat
    # at half the others still is not.
    night = [100.0, 100.05, 99.95, 103.0, 97.0]
    assert len(wild_repeats(night)) == 2
    assert wild_repeats(night, 0.02) == []
    assert lookback.night_moments(night, 0.02) == moments(night)
    wild = [100.0, 100.05, 99.95, 103.0, 50.0]
    assert [i for i, _, _ in wild_repeats(wild, 0.02)] == [4]
    assert 'pooled' in lookback.night_moments(wild, 0.02).wild_scale
    # How often it happened: nights of 5 normal repeats (2 % spread),
    # by their own scale alone and floored at the pooled scale of 20 such
    # nights.
    rng = random.Random(5)

    def normal_night():
        return [100.0 * math.exp(rng.gauss(0.0, 0.02)) for _ in range(5)]

    scale = pooled_scale([night_spread(normal_night()) for _ in range(20)])
    nights = [normal_night() for _ in range(2000)]
    own = sum(bool(wild_repeats(n)) for n in nights) / len(nights)
    floored = sum(bool(wild_repeats(n, scale)) for n in nights)
    assert own > 0.02 and floored == 0


def wild_nights_db(tmp_path, capsys):
    """Ten capped nights, two with wild repeats (a baseline night and a
    history night after it), and tonight with one; the baseline: the
    first five.  Returns the database, the nights and their uuids."""
    nights = [list(v) for v in CAPPED_NIGHTS]
    nights[2] = list(WILD_NIGHT)
    nights[7] = [43.0, 43.1, 614.0, 43.2, 42.9]
    tonight = [43.1, 43.0, 42.9, 43.2, 12.0, 43.1]
    db, uuids = nights_and_baseline(tmp_path, capsys, nights + [tonight])
    return db, nights + [tonight], uuids


def nights_and_baseline(tmp_path, capsys, nights):
    """A database of one session per night (read_bw, a day apart) and
    the baseline 'base' of the first five.  Returns the database and the
    sessions' uuids."""
    uuids = [f'00000000-0000-4000-8000-{i:012d}' for i in range(len(nights))]
    db = tmp_path / 'runs' / 'results.db'
    db.parent.mkdir()
    synth.write_database(str(db), [
        synth.session({CASE: values}, time_start=i * DAY, var='read_bw',
                      session_uuid=uuids[i])
        for i, values in enumerate(nights)])
    assert run(['baseline', 'record', 'base', '--db', str(db)] +
               [f'--session={u}' for u in uuids[:5]], capsys)[0] == 0
    return db, uuids


def test_every_repeat_left_out_is_reported(tmp_path, capsys):
    # Wild repeats in a baseline night, a history night after the
    # baseline and tonight: each is listed in the record (which night,
    # which repeat, its value, why), counted on the summary line and
    # named in every format.  Expected: what night_moments leaves out of
    # each night as the database holds it, found independently.
    db, nights, uuids = wild_nights_db(tmp_path, capsys)
    expected = sorted(
        ('tonight' if i == 10 else 'baseline' if i < 5 else 'history',
         uuids[i], k + 1, v)
        for i, values in enumerate(nights)
        for k, v, _ in wild_repeats(values))
    assert [e[3] for e in expected] == [13.8, 39.0, 614.0, 12.0]

    code, out, err = run(['gate', '-b', 'base', '--db', str(db), '--format',
                          'json'], capsys)
    row = json.loads(out)['results'][0]
    assert row['lookback'] is not None, row['reason']
    assert sorted((w['night'], w['session'], w['repeat'], w['value'])
                  for w in row['wild_repeats']) == expected
    assert all('median' in w['why'] and w['robust_z'] > 8
               for w in row['wild_repeats'])
    # Tonight's figure is the mean judged, without its wild repeat.
    assert row['cur']['n'] == 5 and row['cur']['mean'] == pytest.approx(
        43.06)

    for fmt, counted in (('text', '4 wild repeats left out'),
                         ('markdown', '4 wild repeats left out'),
                         ('html', '4 wild repeats left out'),
                         ('junit', 'name="wild_repeats" value="4"')):
        code, out, err = run(['gate', '-b', 'base', '--db', str(db),
                              '--format', fmt], capsys)
        assert counted in out, (fmt, out)
        for value in ('13.8', '39', '614', '12'):
            assert f'{value} MB/s' in out, (fmt, value)


def test_the_interval_rule_lists_the_wild_repeats_of_its_night_noise(
        tmp_path, capsys):
    # The interval rule takes tonight's repeats as they are, but its
    # night-noise floor reads the history's night means, which leave
    # wild repeats out: those are listed, tonight's 12.0 is not.
    db, nights, uuids = wild_nights_db(tmp_path, capsys)
    config = tmp_path / 'interval.yaml'
    config.write_text('rule: interval\n')
    code, row = gate_json(db, capsys, '--config', str(config))
    assert 'night_noise' in row and row.get('lookback') is None, row
    assert sorted((w['night'], w['session'], w['value'])
                  for w in row['wild_repeats']) == [
        ('history', uuids[2], 13.8), ('history', uuids[2], 39.0),
        ('history', uuids[7], 614.0)]
    assert row['cur']['n'] == 6


#: The capped nights as the nightly's default 3 repeats would have
#: measured them.
SHORT_NIGHTS = [values[:3] for values in CAPPED_NIGHTS]


@pytest.mark.rates
def test_the_spread_of_a_night_is_unbiased_for_each_repeat_count():
    # A pooled scale mixes nights of any length: each night's spread
    # must have the median sigma whatever its count.
    rng = random.Random(5)
    for n in (2, 3, 4, 5, 10, 16, 17):
        spreads = sorted(night_spread([math.exp(rng.gauss(0.0, 0.1))
                                       for _ in range(n)])
                         for _ in range(20001))
        assert spreads[10000] == pytest.approx(0.1, rel=0.03), n
    assert SPREAD_MEDIANS[3] == pytest.approx(0.7942, abs=1e-4)


def test_a_short_night_measures_its_repeats_by_the_other_nights():
    # 3 repeats, one wild (the capped reads' 13.8 among 43.0 +- 0.1):
    # its own MAD cannot tell (main before: kept, the mean 33.3), the
    # within-night scale of the other nights (0.2 %) can.
    scale = pooled_scale([night_spread(v) for v in SHORT_NIGHTS])
    assert 0.001 < scale < 0.005
    found = lookback.night_moments([43.0, 43.1, 13.8], scale)
    assert found == moments([43.0, 43.1])
    assert [(i, v) for i, v, _ in found.left_out] == [(2, 13.8)]
    assert found.left_out[0][2] > 100
    assert 'pooled over the figure\'s other nights' in found.wild_scale
    # 4 repeats: at most one left out.
    assert lookback.night_moments([43.0, 12.0, 43.1, 42.9], scale) == moments(
        [43.0, 43.1, 42.9])
    # Two of 3 (or of 4) beyond the limit: a broad night, not a wild
    # repeat; every repeat kept.
    for values in ([43.0, 13.8, 150.0], [43.0, 13.8, 150.0, 43.1],
                   [43.0, 13.8, 12.0, 43.1]):
        assert lookback.night_moments(values, scale) == moments(values)
    # Too few nights for a scale (4 with a spread): as before.
    assert pooled_scale([night_spread(v) for v in SHORT_NIGHTS[:4]] +
                        [None, float('nan')]) is None
    # Steady nights of equal repeats: a scale of 0 leaves nothing out.
    assert pooled_scale([night_spread([5.0] * 3)] * 6) == 0.0
    assert lookback.night_moments([5.0, 5.0, 1.0], 0.0) == moments(
        [5.0, 5.0, 1.0])
    # 1 or 2 repeats, zeros: as before, whatever the scale.
    for values in ([13.8], [43.0, 13.8], [0.0, 43.0, 43.1], [0.0] * 3):
        assert lookback.night_moments(values, scale) == moments(values)


def test_a_short_night_of_ordinary_broad_spread_keeps_its_repeats():
    # The unthrottled recording's writes, one session of 10 in threes:
    # repeats spanning a factor of 12 are this target's ordinary noise.
    broad = [129.0, 41.0, 135.0, 317.0, 484.0, 375.0, 168.0, 265.0, 271.0,
             77.0, 300.0, 550.0, 410.0, 95.0, 230.0]
    nights = [broad[i:i + 3] for i in range(0, 15, 3)]
    scale = pooled_scale([night_spread(v) for v in nights])
    assert scale > 0.2
    for values in nights + [[41.0, 135.0, 484.0], [484.0, 41.0, 317.0]]:
        assert lookback.night_moments(values, scale) == moments(values)


def test_a_history_column_leaves_out_what_tonight_would():
    # The index's columns measure a short night by the nights before
    # it, as the gate measures tonight by the history.
    cols = CaseColumns()
    nights = SHORT_NIGHTS[:7] + [[43.0, 13.8, 43.1]] + SHORT_NIGHTS[7:]
    for i, values in enumerate(nights):
        cols.append(i, {}, {'read_bw': (sum(values) / 3, values)}, ())
    for i, values in enumerate(nights):
        scale = pooled_scale([night_spread(v) for v in nights[:i]])
        assert cols.moments('read_bw', i) == lookback.night_moments(values,
                                                                    scale)
        assert cols.spread('read_bw', i) == night_spread(values)
    wild = cols.moments('read_bw', 7)
    assert wild.n == 2 and [v for _, v, _ in wild.left_out] == [13.8]
    assert 'pooled' in wild.wild_scale
    # The first nights have too few before them: all kept.
    cols = CaseColumns()
    for i, values in enumerate([[43.0, 13.8, 43.1]] + SHORT_NIGHTS):
        cols.append(i, {}, {'read_bw': (0.0, values)}, ())
    assert cols.moments('read_bw', 0).n == 3


def short_nights_db(tmp_path, capsys, factor):
    """Ten capped nights of 3 repeats, the eighth with a wild repeat,
    and tonight with one, ``factor`` times the level; the baseline: the
    first five nights."""
    nights = [list(v) for v in SHORT_NIGHTS]
    nights[7] = [43.0, 13.8, 43.1]
    tonight = [v * factor for v in (43.1, 12.0, 43.0)]
    return nights_and_baseline(tmp_path, capsys, nights + [tonight])


@pytest.mark.parametrize('factor, verdict', [(1.0, 'pass'),
                                             (0.85, 'regression')])
def test_nights_of_3_repeats_leave_out_their_wild_repeat_alike(
        tmp_path, capsys, factor, verdict):
    # The nightly's default of 3 repeats: a history night's and
    # tonight's wild repeat are left out by the same scale, and listed.
    # Main before: both kept, tonight 24 % low with a spread 300 times
    # the others', inconclusive either way.
    db, uuids = short_nights_db(tmp_path, capsys, factor)
    code, row = gate_json(db, capsys)
    assert row['verdict'] == verdict, row['reason']
    assert row['change'] == pytest.approx(factor - 1.0, abs=0.01)
    assert sorted((w['night'], w['session'], w['repeat'], w['value'])
                  for w in row['wild_repeats']) == [
        ('history', uuids[7], 2, 13.8),
        ('tonight', uuids[10], 2, pytest.approx(12.0 * factor))]
    assert all('pooled over the figure\'s other nights' in w['why'] and
               w['robust_z'] > 8 for w in row['wild_repeats'])
    assert row['cur']['n'] == 2


def test_repeats_to_settle_counts_the_repeats_degrees_of_freedom():
    # CI, data=journal on a loaded machine: one level night of 2 steady
    # repeats, tonight 2 repeats 45 % apart, no night noise measured over
    # 6 nights. The estimate said "about 2 repeats per night would settle
    # it" of a night whose 2 repeats had not (t of 1 df is 31.8 at 98 %).
    level_nights = [moments([1073.0, 1075.0])]
    tonight = moments([190.0, 350.0])
    noise = (0.0, 5)
    need = lookback.repeats_to_settle(level_nights, tonight, noise, 0.8, 0.98,
                                      direction='higher')
    assert need is not None and need > 2
    # And what it promises does settle it: an unchanged night of `need`
    # repeats with the pooled spread excludes a loss of 80 %.
    cv2 = lookback.pooled_cv2(level_nights + [tonight])
    sd = math.sqrt(cv2) * 1074.0
    settled = moments([1074.0 + sd * z for z in
                       (random.Random(1).gauss(0, 1) for _ in range(need))])
    iv = lookback.interval([moments([1073.0, 1075.0])], settled, noise, 0.98)
    assert iv.low > -0.8


def test_an_ordinary_night_the_outlier_rule_leaves_out_still_counts_as_noise():
    # 10 nights of 12 % night noise, 2 repeats of 10 %: the MAD of 10
    # nights is a noisy scale, and the outlier rule leaves an ordinary
    # night out of many months.  Dropped from the noise, the rest was too
    # quiet: 42 of 3000 unchanged nights had p < 0.01 (nominal 30).  Kept
    # at the limit, the noise is whole again.
    def p_of(nights, tonight):
        return judge_nights(nights, tonight, [nights], 0.05, 'higher',
                            0.10)['lookback']['p']

    assert unchanged_tail(3, 0.12, 0.10, 2, 10, 0.01, p_of) <= 33


def test_a_disturbed_night_counts_in_the_noise_no_more_than_the_limit():
    # 12 nights of 5 % noise and one at -60 %: the noise keeps the
    # disturbed night at the outlier limit, where it widens the noise by
    # about a tenth, not 40 times as it stands.  (A +8 % night of the 12
    # is beyond the limit too, the MAD of 13 nights being small by
    # chance: it stays, at the limit.)
    rng = random.Random(6)
    nights = [night(rng, 100.0 * math.exp(rng.gauss(0.0, 0.05)), 0.02, 5)
              for _ in range(12)]
    bad = Moments(40.0, 0.8 ** 2, 5)
    kept, dropped = lookback.drop_outliers(nights + [bad], 3.5, clamp=True)
    assert len(kept) == 13 and dropped[-1] == bad and kept[-1].mean > 80.0
    clean = lookback.night_variance([nights])[0]
    assert clean < lookback.night_variance([kept])[0] < 1.5 * clean
    assert lookback.night_variance([nights + [bad]])[0] > 30 * clean
    # The level leaves them out.
    assert lookback.drop_outliers(nights + [bad], 3.5)[0] == [
        n for n in nights if n not in dropped]
