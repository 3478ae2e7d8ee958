# SPDX-License-Identifier: BSD-3-Clause
"""The gate's report record (pfsbench.gate.judge.record) through
``run_gate`` and ``compare`` on small synthetic ReFrame databases: each
test pins what a reader of the record relies on (docs/mutation.md,
gate/judge/record.py)."""

import itertools
import re

import pytest

import synth
from pfsbench.core import fields
from pfsbench.core.errors import ConfigError
from pfsbench.gate.judge import baseline as judge_baseline
from pfsbench.gate.judge.config import GateConfig, Override
from pfsbench.gate.judge.record import (REPORT_FORMAT_VERSION, REPORT_KIND,
                                        UNTIMED_REASON, compare,
                                        night_families, run_gate)
from pfsbench.store.runs import read_database

DAY = 86400.0
T0 = 1.7e9
A, B, C = 'a %nodes=1', 'b %nodes=1', 'c %nodes=1'


def key(name):
    return f'{name} @local:default+builtin'


def nights(count, tonight, extras=None, **kwargs):
    """``count`` ordinary nights of cases A and B, then ``tonight``
    (``{name: values}``)."""
    out = []
    for t in range(count):
        out.append(synth.session(
            {A: [100.0 + t % 3, 101.0, 99.0], B: [50.0, 50.5 + t % 2, 49.5]},
            time_start=T0 + t * DAY, extras={'fs_version': '1.8'}))
    out.append(synth.session(tonight, time_start=T0 + count * DAY,
                             extras=extras or {'fs_version': '1.8'},
                             **kwargs))
    return out


_DBS = itertools.count()


def stored(tmp_path, reports, base=3):
    """``(results, uuids, baseline of the first ``base`` sessions)``."""
    # A directory each: the store kept beside a database is the
    # directory's.
    directory = tmp_path / f'runs{next(_DBS)}'
    directory.mkdir()
    db = str(directory / 'results.db')
    synth.write_database(db, reports)
    results = read_database(db)
    uuids = [r['session_info']['uuid'] for r in reports]
    return results, uuids, judge_baseline.build(results, uuids[:base], 'pre')


def judge(found, config=None, name_filter=None, **kwargs):
    """The gate's record of the last session of :func:`stored`."""
    results, uuids, built = found
    return run_gate(built, results, [uuids[-1]], config or GateConfig(),
                    name_filter=name_filter, **kwargs)


def gate(tmp_path, reports, config=None, base=3, name_filter=None,
         **kwargs):
    found = stored(tmp_path, reports, base)
    return judge(found, config, name_filter, **kwargs), found[1], found[2]


@pytest.fixture
def night(tmp_path):
    """Seven nights of A and B; tonight A loses 30 %, B is not run and a
    new case C is.  (Each test's own: mutmut maps a test to the functions
    it calls, and a fixture shared by a module is called by its first
    test only.)"""
    reports = nights(7, {A: [70.0, 71.0, 69.0], C: [5.0, 5.0, 5.0]})
    return gate(tmp_path, reports, baseline_path='base.json')


def test_the_record_names_itself_its_baseline_and_settings(night):
    record, uuids, built = night
    assert (record['kind'], record['format_version']) == \
        (REPORT_KIND, REPORT_FORMAT_VERSION) == ('pfsbench-gate-report', 1)
    assert re.search(r'/runs\d+/results\.db$', record['source'])
    assert record['baseline'] == {
        'name': 'pre', 'path': 'base.json', 'created': built['created'],
        'sessions': uuids[:3], 'extras': [{'fs_version': '1.8'}] * 3,
        'contended_samples': []}
    assert [s['uuid'] for s in record['current_sessions']] == [uuids[-1]]
    assert record['current_sessions'][0]['time_start'] == T0 + 7 * DAY
    assert record['settings'] == {
        'config': '<defaults>', 'confidence': 0.99,
        'lookback_confidence': 0.99, 'tolerance': 0.05,
        'inconclusive_exit': 0, 'sample_unit': 'repeat',
        'night_noise': True, 'assumed_night_cv': 0.1, 'rule': 'lookback',
        'night_false_alarms': 0.01, 'families': 1,
        'method': 'lookback-nights'}


def test_the_record_counts_and_exits(night):
    record = night[0]
    assert record['missing'] == [{'case': key(B),
                                  'reason': 'not in the current session(s)'}]
    assert record['new_cases'] == [key(C)]
    assert record['repeats'] == {'current': 3, 'left_out': {'contended': 0}}
    assert record['summary'] == {'pass': 0, 'regression': 1,
                                 'improvement': 0, 'inconclusive': 0,
                                 'ignored': 0, 'missing': 1}
    assert record['sensitivity'] == {'figures': 1, 'blind': 0,
                                     'power': 0.9}
    assert record['exit_code'] == 1
    assert record['changes'] == {key(A): []}
    assert record['contended_samples'] == [] and record['sweeps'] == []
    assert len(record['history']) == 1


def test_a_row_names_its_case_and_both_sides(night):
    record, uuids, built = night
    [row] = record['results']
    assert {k: row[k] for k in ('case', 'name', 'check', 'params', 'system',
                                'partition', 'environ', 'var', 'unit',
                                'direction', 'tolerance', 'session')} == {
        'case': key(A), 'name': A, 'check': 'a', 'params': {'nodes': '1'},
        'system': 'local', 'partition': 'default', 'environ': 'builtin',
        'var': 'write_bw', 'unit': 'MB/s', 'direction': 'higher',
        'tolerance': 0.05, 'session': uuids[-1]}
    values = built['cases'][0]['perfvars']['write_bw']['values']
    assert row['base']['values'] == values and row['base']['n'] == 9
    assert row['base']['mean'] == pytest.approx(sum(values) / 9)
    assert row['cur'] == {'n': 3, 'mean': 70.0,
                          'values': [70.0, 71.0, 69.0]}
    assert row['verdict'] == 'regression'
    assert row['fixed_tolerance_verdict'] == 'regression'
    # The level the change is against, and its nights.
    assert row['base']['level'] == pytest.approx(70.0 / (1 + row['change']))
    assert row['base']['nights'] == row['lookback']['level_nights'] == 3
    # The loss a pass must rule out: twice the tolerance by default.
    assert row['lookback']['detect'] == 2 * 0.05
    assert row['lookback']['history_nights'] == 7
    # The pooled view weighs the nights since the baseline.
    assert row['pooled']['count'] == 5


def test_a_name_filter_judges_and_lists_only_its_cases(tmp_path):
    reports = nights(4, {A: [100.0, 101.0, 99.0], C: [5.0, 5.0, 5.0]})
    found = stored(tmp_path, reports)
    record = judge(found, name_filter=re.compile('^a'))
    assert [r['case'] for r in record['results']] == [key(A)]
    assert record['missing'] == [] and record['new_cases'] == []
    assert record['repeats']['current'] == 3
    record = judge(found, name_filter=re.compile('^[bc]'))
    assert record['results'] == [] and record['new_cases'] == [key(C)]
    assert record['missing'] == [{'case': key(B), 'reason':
                                  'not in the current session(s)'}]
    assert record['repeats']['current'] == 0
    assert record['settings']['confidence'] == 0.95
    assert record['settings']['families'] == 0


def test_the_interval_rule_and_its_settings(tmp_path):
    reports = nights(4, {A: [100.0, 101.0, 99.0], B: [50.0, 50.5, 49.5]})
    record = gate(tmp_path, reports, GateConfig(rule='interval'))[0]
    assert record['settings']['method'] == 'welch-log-ratio'
    assert record['settings']['confidence'] == 0.95
    assert record['settings']['rule'] == 'interval'
    assert len(record['results']) == 2
    for row in record['results']:
        assert 'lookback' not in row or row['lookback'] is None
        assert not row['reason'].endswith('interval rule')
        assert row['night_noise'] == {'cv': 0.1, 'df': None, 'sessions': 4,
                                      'assumed': True}


def test_too_few_like_nights_fall_back_to_the_interval_rule(tmp_path):
    reports = nights(2, {A: [100.0, 101.0, 99.0], B: [50.0, 50.5, 49.5]})
    record = gate(tmp_path, reports, base=2)[0]
    assert len(record['results']) == 2
    for row in record['results']:
        assert row['reason'].endswith(
            '; fewer than 3 like-for-like nights in the history: interval '
            'rule')
        assert row['night_noise']['assumed'] is True
        assert row['night_noise']['sessions'] == 2
    assert record['settings']['confidence'] == 0.95
    assert record['settings']['method'] == 'lookback-nights'


def test_measured_night_noise_and_the_history_it_reads(tmp_path):
    reports = nights(7, {A: [100.0, 101.0, 99.0], B: [50.0, 50.5, 49.5]})
    found = stored(tmp_path, reports)
    row = judge(found, GateConfig(rule='interval'))['results'][0]
    assert set(row['night_noise']) == {'cv', 'df', 'sessions'}
    assert row['night_noise']['sessions'] == 7
    cfg = GateConfig(rule='interval', history_sessions=5)
    row = judge(found, cfg)['results'][0]
    assert row['night_noise']['sessions'] == 5
    # Without the night noise, or with sessions as samples: none.
    for cfg in (GateConfig(rule='interval', night_noise=False),
                GateConfig(rule='interval', sample_unit='session'),
                GateConfig(rule='interval', night_noise=False,
                           assumed_night_cv=0.0)):
        assert 'night_noise' not in judge(found, cfg)['results'][0]


def test_assumed_night_noise_off_leaves_the_repeats_alone(tmp_path):
    reports = nights(1, {A: [100.0, 101.0, 99.0], B: [50.0, 50.5, 49.5]})
    record = gate(tmp_path, reports, GateConfig(assumed_night_cv=0.0),
                  base=1)[0]
    assert 'night_noise' not in record['results'][0]


def test_sessions_as_samples_compare_session_means(tmp_path):
    reports = nights(4, {A: [100.0, 101.0, 99.0], B: [50.0, 50.5, 49.5]})
    cfg = GateConfig(rule='interval', sample_unit='session')
    record, _, built = gate(tmp_path, reports, cfg)
    row = record['results'][0]
    assert row['base']['session_means'] == pytest.approx(
        [100.0, 100.0 + 1 / 3, 100.0 + 2 / 3])
    assert record['settings']['sample_unit'] == 'session'


def test_ignored_and_unstable_figures(tmp_path):
    reports = nights(7, {A: [70.0, 71.0, 69.0], B: [50.0, 50.5, 49.5]})
    cfg = GateConfig(path='gate.yaml', overrides=[
        Override('a.write_bw', unstable=True),
        Override('b.*', ignore=True)])
    record = gate(tmp_path, reports, cfg)[0]
    a, b = record['results']
    assert a['verdict'] == 'inconclusive'
    assert a['reason'].startswith('unstable figure (gate.yaml: unstable): '
                                  'reported, never gating: the whole ')
    assert b['verdict'] == 'ignored' and b['reason'] == \
        'ignored in gate.yaml'
    assert (b['change'], b['low'], b['high'], b['df'],
            b['repeats_needed']) == (None,) * 5
    assert record['exit_code'] == 0
    assert record['summary']['ignored'] == 1
    assert record['sensitivity']['figures'] == 1
    assert record['settings']['confidence'] == 0.99


def test_a_units_or_configurations_change_is_refused(tmp_path):
    reports = nights(3, {A: [100.0, 101.0, 99.0]}, unit='GB/s')
    with pytest.raises(ConfigError) as err:
        gate(tmp_path, reports)
    assert str(err.value) == (
        f'session {reports[-1]["session_info"]["uuid"]}:{key(A)}: '
        "write_bw: 'GB/s': unit differs from the baseline's 'MB/s'")
    reports = nights(3, {A: [100.0, 101.0, 99.0]}, num_tasks=4)
    with pytest.raises(ConfigError) as err:
        gate(tmp_path, reports)
    assert str(err.value) == (
        f'session {reports[-1]["session_info"]["uuid"]}:{key(A)}: '
        "num_tasks: 4: differs from the baseline's 1: the run was "
        'configured differently; record a new baseline')


def _with(report, name, **loggable):
    """``report`` with every repeat of case ``name`` given ``loggable``."""
    for case in report['runs'][0]['testcases']:
        if case['name'] == name:
            case.update(loggable)
    return report


def test_contended_repeats_are_left_out_and_listed(tmp_path):
    reports = nights(7, {A: [100.0, 101.0, 99.0], B: [50.0, 50.5, 49.5]})
    tonight = reports[-1]['runs'][0]['testcases']
    tonight[0].update({fields.CONTENDED: True})
    for case in tonight[3:]:
        case.update({fields.CONTENDED: True})
    record, uuids, _ = gate(tmp_path, reports)
    assert [s['case'] for s in record['contended_samples']] == \
        [key(A)] + [key(B)] * 3
    assert all(s['session'] == uuids[-1]
               for s in record['contended_samples'])
    assert record['repeats'] == {'current': 6, 'left_out': {'contended': 4}}
    [row] = record['results']
    assert row['cur']['n'] == 2
    [miss] = record['missing']
    assert miss['case'] == key(B) and miss['session'] == uuids[-1]
    assert miss['reason'].startswith('every repeat was contended: 3 ')


def test_an_unusable_repeat_makes_the_case_missing(tmp_path):
    reports = nights(3, {A: [100.0, 101.0, 99.0], B: [50.0, 50.5, 49.5]})
    bad = reports[-1]['runs'][0]['testcases'][4]
    bad.update(result='fail', fail_phase='sanity', fail_reason='no\nmore')
    record, uuids, _ = gate(tmp_path, reports)
    [miss] = record['missing']
    assert miss == {'case': key(B), 'session': uuids[-1],
                    'reason': '1 of 3 repeat(s) unusable: failed in sanity: '
                              'no'}
    assert [r['case'] for r in record['results']] == [key(A)]


def test_a_session_stopped_early_is_missing_data(tmp_path):
    reports = nights(3, {A: [100.0, 101.0, 99.0], B: [50.0, 50.5, 49.5]},
                     )
    reports[-1]['session_info']['num_aborted'] = 2
    record, uuids, _ = gate(tmp_path, reports)
    assert record['missing'] == [{
        'case': f'session {uuids[-1]}', 'session': uuids[-1],
        'reason': 'stopped early: 2 aborted case(s)'}]
    assert len(record['results']) == 2
    assert record['summary']['missing'] == 1
    # Missing data without a regression: exit 3.
    assert [r['verdict'] for r in record['results']] == ['pass', 'pass']
    assert record['exit_code'] == 3


def test_a_variable_not_reported_or_untimed(tmp_path):
    reports = nights(3, {A: [100.0, 101.0, 99.0]})
    tonight = synth.session({A: [1.0, 1.0, 1.0]}, time_start=T0 + 3 * DAY,
                            var='read_bw')
    reports[-1] = tonight
    record, uuids, _ = gate(tmp_path, reports)
    assert {'case': key(A), 'session': uuids[-1], 'var': 'write_bw',
            'reason': 'variable write_bw not reported'} in record['missing']
    for case in tonight['runs'][0]['testcases']:
        case[fields.UNTIMED] = 'write_bw other_bw'
    record = gate(tmp_path, reports)[0]
    [row] = record['results']
    assert row['verdict'] == 'pass' and row['untimed'] is True
    assert row['reason'] == UNTIMED_REASON.format(var='write_bw')
    assert (row['change'], row['low'], row['high'], row['df'],
            row['repeats_needed']) == (None,) * 5
    assert row['cur'] == {'n': 0, 'mean': None, 'values': []}
    assert [m['case'] for m in record['missing']] == [key(B)]


def test_a_wild_repeat_tonight_is_listed_and_left_out(tmp_path):
    values = [100.0, 100.2, 99.8, 100.1, 99.9, 300.0]
    reports = nights(7, {A: values})
    found = stored(tmp_path, reports)
    uuids = found[1]
    [row] = judge(found)['results']
    [wild] = row['wild_repeats']
    assert (wild['night'], wild['session'], wild['repeat'],
            wild['value']) == ('tonight', uuids[-1], 6, 300.0)
    assert row['cur']['n'] == 5
    assert row['cur']['mean'] == pytest.approx(100.0)
    assert row['cur']['values'] == values
    # The interval rule judges every repeat.
    record = judge(found, GateConfig(rule='interval'))
    assert record['results'][0]['cur']['n'] == 6


def test_tonight_marked_as_an_intended_change_says_so(tmp_path):
    reports = nights(7, {A: [70.0, 71.0, 69.0]},
                     extras={'intended_change': 'v2'})
    [row] = gate(tmp_path, reports)[0]['results']
    assert row['reason'] == ('tonight is marked as an intended change '
                             '(intended_change=v2): it starts a new level')
    assert 'level' not in row['base']


def test_a_change_since_the_baseline_is_named(tmp_path):
    reports = nights(7, {A: [70.0, 71.0, 69.0]},
                     extras={'fs_version': '2.0'})
    record = gate(tmp_path, reports)[0]
    [change] = record['changes'][key(A)]
    assert change['key'] == 'fs_version'
    assert record['results'][0]['verdict'] == 'regression'


def iterations_run(t, mean):
    """Night ``t`` of case A's IOR-like ``bw_mean`` and ``bw_stddev`` over
    4 iterations a repeat, 3 repeats from ``mean`` up."""
    return synth.make_report(
        [synth.make_testcase(
            f's{t}', 0, i, A,
            {'bw_mean': (mean + i, 'MB/s'), 'bw_stddev': (1.0, 'MB/s')},
            repeat=i, time=T0 + t * DAY + 1,
            loggable={'iterations': 4}) for i in range(3)],
        time_start=T0 + t * DAY, session_uuid=f's{t}')


def test_iteration_counts_are_noted_on_both_sides(tmp_path):
    reports = [iterations_run(t, 100.0) for t in range(6)]
    record = gate(tmp_path, reports)[0]
    [mean] = [r for r in record['results'] if r['var'] == 'bw_mean']
    assert mean['base']['iterations'] == 36
    assert mean['cur']['iterations'] == 12
    # Not where the settings turn them off, nor for sessions as samples
    # under the interval rule.
    found = stored(tmp_path, reports)
    for cfg in (GateConfig(iteration_moments=False),
                GateConfig(rule='interval', sample_unit='session')):
        [mean] = [r for r in judge(found, cfg)['results']
                  if r['var'] == 'bw_mean']
        assert 'iterations' not in mean['base']
    for cfg in (GateConfig(rule='interval'),
                GateConfig(sample_unit='session')):
        [mean] = [r for r in judge(found, cfg)['results']
                  if r['var'] == 'bw_mean']
        assert mean['base']['iterations'] == 36
    # The lookback rule judges tonight's iterations, not its repeats.
    lows = [[r['low'] for r in judge(found, GateConfig(
        iteration_moments=on, lookback_detect=0.2))['results']
        if r['var'] == 'bw_mean'] for on in (True, False)]
    assert lows[0] != lows[1]
    [mean] = [r for r in judge(found, GateConfig(lookback_detect=0.2))[
        'results'] if r['var'] == 'bw_mean']
    assert mean['lookback']['detect'] == 0.2


def test_compare_returns_rows_missing_new_and_contended(tmp_path):
    reports = nights(3, {A: [100.0, 101.0, 99.0], C: [1.0, 1.0, 1.0]})
    db = str(tmp_path / 'results.db')
    synth.write_database(db, reports)
    results = read_database(db)
    uuids = [r['session_info']['uuid'] for r in reports]
    built = judge_baseline.build(results, uuids[:3], 'pre')
    rows, missing, new, contended = compare(built, results, [uuids[-1]],
                                            GateConfig())
    assert [r.case for r in rows] == [key(A)]
    assert [m['case'] for m in missing] == [key(B)]
    assert new == [key(C)] and contended == []
    assert night_families(rows) == 1
    assert night_families([]) == 0
    # A case missing tonight before one that is not.
    found = stored(tmp_path, nights(3, {B: [50.0, 50.5, 49.5]}))
    rows, missing = compare(found[2], found[0], found[1][-1:],
                            GateConfig())[:2]
    assert [r.case for r in rows] == [key(B)]
    assert [m['case'] for m in missing] == [key(A)]
    # Two sessions as the current run: each case's latest.
    rows = compare(built, results, uuids[2:], GateConfig())[0]
    assert [r.session for r in rows] == [uuids[-1], uuids[2]]


def _contend(report, index, contention='busy'):
    report['runs'][0]['testcases'][index].update(
        {fields.CONTENDED: True, fields.CONTENTION: contention})
    return report


def test_a_cause_tonight_brings_is_judged_at_its_own_level(tmp_path):
    reports = nights(7, {A: [70.0, 71.0, 69.0], B: [50.0, 50.5, 49.5]},
                     extras={'fs_version': '2.0'})
    record = gate(tmp_path, reports)[0]
    a, b = record['results']
    assert a['verdict'] == 'regression'
    assert a['reason'].startswith(
        "judged at its own level, outside the night's false-alarm budget: "
        'tonight brings fs_version (')
    assert a['lookback']['own_level'] is True
    assert 'own_level' not in b['lookback']
    # The same change the night before: tonight brings nothing new.
    reports[-2]['session_info']['fs_version'] = '2.0'
    record = gate(tmp_path, reports)[0]
    assert 'own_level' not in record['results'][0]['lookback']
    assert not record['results'][0]['reason'].startswith('judged at')


def test_a_regression_on_a_contended_night_is_held(tmp_path):
    reports = nights(7, {A: [70.0, 71.0, 69.0, 70.5], B: [50.0, 50.5, 49.5]})
    _contend(reports[-1], 3)
    record = gate(tmp_path, reports)[0]
    a = record['results'][0]
    assert a['verdict'] == 'inconclusive'
    assert a['reason'].startswith('held: foreign load seen on 1 of 4 '
                                  'repeat(s) of this case tonight')
    assert record['exit_code'] == 0
    # A cause in the provenance: it stays a regression.
    reports[-1]['session_info']['fs_version'] = '2.0'
    a = gate(tmp_path, reports)[0]['results'][0]
    assert a['verdict'] == 'regression'


def test_disturbed_nights_leave_the_pooled_view(tmp_path):
    reports = nights(7, {A: [70.0, 71.0, 69.0], B: [50.0, 50.5, 49.5]})
    _contend(reports[5], 0)
    record = gate(tmp_path, reports)[0]
    assert record['results'][0]['pooled']['count'] == 4
    # Not with a cause named since the baseline.
    reports[-1]['session_info']['fs_version'] = '2.0'
    record = gate(tmp_path, reports)[0]
    assert record['results'][0]['pooled']['count'] == 5
    # Only the newest 2 x lookback.pooled.nights like nights are asked.
    record = gate(tmp_path, nights(7, {A: [70.0, 71.0, 69.0]}),
                  GateConfig(lookback_pooled_nights=2))[0]
    assert record['results'][0]['pooled']['count'] == 2


def test_what_changed_reads_tonights_uncontended_repeats(tmp_path):
    reports = nights(7, {A: [100.0, 101.0, 99.0, 100.5]})
    reports[-1]['runs'][0]['testcases'][3]['job_nodelist'] = ['n9']
    record = gate(tmp_path, reports)[0]
    assert [c['key'] for c in record['changes'][key(A)]] == ['job_nodelist']
    _contend(reports[-1], 3)
    record = gate(tmp_path, reports)[0]
    assert record['changes'] == {key(A): []}


def _case_tag(report, value):
    for case in report['runs'][0]['testcases']:
        case[fields.SERVER_PROVENANCE] = value
    return report


def test_each_cause_tonight_brings_is_named_the_case_level_too(tmp_path):
    reports = nights(7, {A: [70.0, 71.0, 69.0]},
                     extras={'fs_version': '2.0'})
    for report in reports[:-1]:
        _case_tag(report, 'lustre=2.15')
    _case_tag(reports[-1], 'lustre=2.16')
    # A cause back at the baseline's is not brought.
    for report in reports:
        report['session_info']['kernel'] = '6.1'
    reports[-2]['session_info']['kernel'] = '6.2'
    [row] = gate(tmp_path, reports)[0]['results']
    assert row['reason'].startswith(
        "judged at its own level, outside the night's false-alarm budget: "
        'tonight brings fs_version (file-system version), '
        'server_provenance (server side (versions, servers, layout)); the '
        'whole ')
    # The case's change already on the night before: not tonight's.
    _case_tag(reports[-2], 'lustre=2.16')
    [row] = gate(tmp_path, reports)[0]['results']
    assert row['reason'].startswith(
        'judged at its own level, outside the night\'s false-alarm budget: '
        'tonight brings fs_version (file-system version); the whole ')


def test_a_regression_with_no_night_before_it(tmp_path):
    # The baseline's session is newer than tonight: every change named
    # since the baseline is tonight's.
    older = synth.session({A: [60.0, 61.0, 59.0]}, time_start=T0 - DAY,
                          extras={'fs_version': '2.0'})
    newer = synth.session({A: [100.0, 101.0, 99.0]}, time_start=T0,
                          extras={'fs_version': '1.8'})
    results, uuids, built = stored(tmp_path, [newer, older], base=1)
    [row] = run_gate(built, results, [uuids[-1]],
                     GateConfig())['results']
    assert row['verdict'] == 'regression'


def test_the_interval_rule_lists_the_historys_wild_repeats(tmp_path):
    values = [100.0, 100.2, 99.8, 100.1, 99.9, 300.0]
    reports = nights(7, {A: [100.0, 101.0, 99.0]})
    reports[4] = synth.session({A: values}, time_start=T0 + 4 * DAY)
    found = stored(tmp_path, reports)
    wild_night = found[1][4]
    for config in (GateConfig(rule='interval'), GateConfig()):
        [row] = judge(found, config)['results']
        assert [(w['night'], w['session'], w['repeat'], w['value'])
                for w in row['wild_repeats']] == \
            [('history', wild_night, 6, 300.0)]
    # Fewer than 5 nights measure no night noise: none is read.
    [row] = judge(found, GateConfig(rule='interval',
                                    history_sessions=3))['results']
    assert 'wild_repeats' not in row


VERDICT_KEYS = ('verdict', 'change', 'low', 'high', 'df', 'reason',
                'repeats_needed')


def _interval_verdict(row, base, nights, assumed, confidence=0.95,
                      min_samples=2, detect=None):
    from pfsbench.gate.judge.rule import judge as interval_rule

    want = interval_rule(base, row['cur']['values'], 0.05, 'higher',
                         confidence, min_samples, nights=nights,
                         nights_assumed=assumed, detect=detect)
    # The night's budget adds what the figure detects.
    assert want['reason'] in row['reason']
    keys = [k for k in want if k != 'reason']
    assert set(VERDICT_KEYS) - {'reason'} <= set(keys)
    return {k: row[k] for k in keys}, {k: want[k] for k in keys}


def test_the_interval_rule_takes_the_measured_or_assumed_night_noise(
        tmp_path):
    import math

    from pfsbench.gate.statistics.stats import night_noise

    # Nights far apart: their noise, not the repeats', widens tonight's
    # interval.
    means = [100.0, 108.0, 93.0, 104.0, 96.0, 110.0, 90.0]
    reports = [synth.session({A: [m, m + 1.0, m - 1.0]},
                             time_start=T0 + t * DAY)
               for t, m in enumerate(means)]
    reports.append(synth.session({A: [95.0, 96.0, 94.0]},
                                 time_start=T0 + 7 * DAY))
    found = stored(tmp_path, reports)
    base = found[2]['cases'][0]['perfvars']['write_bw']['values']
    tau2, df = night_noise(means)
    [row] = judge(found, GateConfig(rule='interval'))['results']
    assert row['night_noise'] == {'cv': pytest.approx(math.sqrt(tau2)),
                                  'df': df, 'sessions': 7}
    got, want = _interval_verdict(row, base, (tau2, df, 3), False)
    assert got == want
    # Fewer than 5 nights: the assumed noise, its square a variance.
    cfg = GateConfig(rule='interval', history_sessions=4,
                     assumed_night_cv=0.2)
    [row] = judge(found, cfg)['results']
    got, want = _interval_verdict(row, base, (0.2 ** 2, math.inf, 3), True)
    assert got == want
    assert row['night_noise'] == {'cv': 0.2, 'df': None, 'sessions': 4,
                                  'assumed': True}


def test_a_night_at_zero_falls_back_to_the_interval_rule(tmp_path):
    reports = nights(7, {A: [0.0, 0.0, 0.0]})
    [row] = gate(tmp_path, reports)[0]['results']
    note = '; 1 night(s) at 0 (no ratio on the log scale): interval rule'
    assert row['reason'].endswith(note)
    # After the interval rule's own reason.
    assert row['reason'][:-len(note)].startswith(
        'means must be positive for a ratio')
    assert 'lookback' not in row or row['lookback'] is None


def test_a_short_night_measures_its_wild_repeats_by_the_history(tmp_path):
    # Nights of 3 repeats: only the history's pooled scale finds one wild.
    spread = [(0.4, -0.8, 0.3), (-0.5, 0.9, 0.1), (1.1, -0.2, -0.6),
              (0.2, 0.6, -1.0), (-0.9, 0.3, 0.5), (0.7, -0.4, -0.1),
              (-0.3, 1.0, -0.7), (0.6, -0.6, 0.2)]
    reports = [synth.session({A: [100.0 * (1 + 0.01 * z) for z in zs]},
                             time_start=T0 + t * DAY)
               for t, zs in enumerate(spread)]
    reports.append(synth.session({A: [100.0, 100.5, 300.0]},
                                 time_start=T0 + 8 * DAY))
    found = stored(tmp_path, reports)
    [row] = judge(found)['results']
    [wild] = row['wild_repeats']
    assert (wild['night'], wild['repeat'], wild['value']) == \
        ('tonight', 3, 300.0)
    assert row['cur'] == {'n': 2, 'mean': 100.25,
                          'values': [100.0, 100.5, 300.0]}


def test_the_change_points_min_change_or_the_tolerance(tmp_path):
    # A step of 8 % after the baseline splits the noise history where
    # the smallest step is the tolerance (5 %), not where it is 50 %.
    means = [100.0, 100.5, 99.5, 100.0, 108.0, 108.5, 107.5, 108.0, 108.2,
             107.9]
    reports = [synth.session({A: [m, m + 0.5, m - 0.5]},
                             time_start=T0 + t * DAY)
               for t, m in enumerate(means)]
    reports.append(synth.session({A: [108.0, 108.5, 107.5]},
                                 time_start=T0 + len(means) * DAY))
    found = stored(tmp_path, reports)
    found_by = {mc: judge(found, GateConfig(changepoint_min_change=mc))[
        'results'][0]['lookback'] for mc in (None, 0.05, 0.5)}
    assert found_by[None] == found_by[0.05]
    assert (found_by[None]['df'], found_by[0.5]['df']) == (8, 9)
    assert found_by[None]['night_cv'] < found_by[0.5]['night_cv']


def test_a_baseline_night_of_3_repeats_is_measured_by_the_history(
        tmp_path):
    spread = [(0.4, -0.8, 0.3), (-0.5, 0.9, 0.1), (1.1, -0.2, -0.6),
              (0.2, 0.6, -1.0), (-0.9, 0.3, 0.5), (0.7, -0.4, -0.1),
              (-0.3, 1.0, -0.7), (0.6, -0.6, 0.2), (0.1, -0.3, 0.2)]
    values = [[100.0 * (1 + 0.01 * z) for z in zs] for zs in spread]
    # The baseline's third night: two nights before it measure no scale.
    values[2][2] = 300.0
    reports = [synth.session({A: v}, time_start=T0 + t * DAY)
               for t, v in enumerate(values)]
    found = stored(tmp_path, reports)
    [row] = judge(found)['results']
    assert [(w['night'], w['session'], w['repeat'], w['value'])
            for w in row['wild_repeats']] == \
        [('baseline', found[1][2], 3, 300.0)]


def test_the_interval_rule_takes_the_settings_samples_and_detect(tmp_path):
    import math

    from pfsbench.gate.judge.rule import judge as interval_rule

    reports = nights(3, {A: [100.0, 101.0, 99.0]})
    found = stored(tmp_path, reports)
    base = found[2]['cases'][0]['perfvars']['write_bw']['values']
    floor = (0.02 ** 2, math.inf, 3)
    verdicts = []
    for min_samples, detect in ((4, 0.2), (2, 0.2), (2, None)):
        cfg = GateConfig(rule='interval', confidence=0.8,
                         min_samples=min_samples, lookback_detect=detect,
                         assumed_night_cv=0.02)
        [row] = judge(found, cfg)['results']
        got, want = _interval_verdict(row, base, floor, True, 0.8,
                                      min_samples, detect)
        assert got == want
        verdicts.append(row['verdict'])
    # Too few repeats, else a pass.
    assert verdicts == ['inconclusive', 'pass', 'pass']
    # Sessions as samples: one a session, at least one tonight.
    cfg = GateConfig(rule='interval', sample_unit='session',
                     confidence=0.8, min_samples=4, lookback_detect=0.2)
    [row] = judge(found, cfg)['results']
    want = interval_rule(row['base']['session_means'], [100.0], 0.05,
                         'higher', 0.8, 1, detect=0.2)
    assert {k: row[k] for k in VERDICT_KEYS if k != 'reason'} == \
        {k: want[k] for k in VERDICT_KEYS if k != 'reason'}
    assert row['verdict'] == 'pass'


def test_the_interval_rule_reads_the_tools_iterations(tmp_path):
    from pfsbench.gate.judge.rule import judge as interval_rule
    from pfsbench.gate.statistics.stats import moments_from_summaries

    reports = [iterations_run(t, 100.0) for t in range(3)] + \
        [iterations_run(3, 97.0)]
    found = stored(tmp_path, reports)
    base = [100.0, 101.0, 102.0] * 3
    both = (moments_from_summaries(base, [1.0] * 9, [4] * 9),
            moments_from_summaries([97.0, 98.0, 99.0], [1.0] * 3, [4] * 3))
    cfg = GateConfig(rule='interval', assumed_night_cv=0.0)
    [row] = [r for r in judge(found, cfg)['results'] if r['var'] == 'bw_mean']
    want = interval_rule(base, [97.0, 98.0, 99.0], 0.05, 'higher', 0.95, 2,
                         moments=both)
    assert (row['low'], row['high'], row['df']) == \
        (want['low'], want['high'], want['df'])
    plain = interval_rule(base, [97.0, 98.0, 99.0], 0.05, 'higher', 0.95, 2)
    assert (plain['low'], plain['df']) != (want['low'], want['df'])
    # Sessions as samples: the iterations are not read, whatever the rule.
    found = stored(tmp_path, reports[:1] + reports[3:], base=1)
    cfg = GateConfig(sample_unit='session', assumed_night_cv=0.0)
    [row] = [r for r in judge(found, cfg)['results'] if r['var'] == 'bw_mean']
    want = interval_rule([101.0], [98.0], 0.05, 'higher', 0.95, 1)
    assert row['base']['session_means'] == [101.0]
    assert (row['low'], row['high'], row['df']) == \
        (want['low'], want['high'], want['df'])


def test_the_lookback_rule_takes_its_settings(tmp_path):
    found = stored(tmp_path, nights(9, {A: [100.0, 101.0, 99.0]}))
    [row] = judge(found)['results']
    assert row['verdict'] == 'pass'
    # At least 4 repeats: 3 are too few to pass.
    [row] = judge(found, GateConfig(min_samples=4))['results']
    assert row['verdict'] == 'inconclusive'
    # The lookback rule reads its own nights, whatever the interval
    # rule's history and night noise.
    for cfg in (GateConfig(night_noise=False), GateConfig(history_sessions=2)):
        [row] = judge(found, cfg)['results']
        assert row['lookback']['history_nights'] == 9
    # The outlying nights' limit.
    outliers = [judge(found, GateConfig(lookback_outlier_z=z))['results'][0][
        'lookback']['outliers'] for z in (3.5, 0.5)]
    assert outliers[0] < outliers[1]
    # The CUSUM's decision interval.
    found = stored(tmp_path, nights(7, {A: [70.0, 71.0, 69.0]}))
    alarms = [judge(found, GateConfig(lookback_pooled='cusum',
                                      lookback_cusum_h=h))['results'][0][
        'pooled']['regression'] for h in (5.0, 1e6)]
    assert alarms == [True, False]


def test_rows_labelled_in_a_child_are_the_rows_labelled_here(tmp_path):
    # Two families (checks a and b) at a budget of 0.004: the night's
    # level (0.002) moves each row's sensitivity, reason and pooled
    # detects from its rule's own (0.005).
    found = stored(tmp_path, nights(7, {A: [70.0, 71.0, 69.0],
                                        B: [50.0, 50.5, 49.5]}))
    cfg = GateConfig(night_false_alarms=0.004)
    here = judge(found, cfg)
    assert here['settings']['families'] == 2
    rows = here['results']
    assert [r['verdict'] for r in rows] == ['regression', 'pass']
    assert all(r['sensitivity']['alpha'] == pytest.approx(0.002) and
               'detects >=' in r['reason'] for r in rows)
    own = judge(found)['results']
    assert len(own) == 2 and all(
        r['pooled']['detects'] > o['pooled']['detects']
        for r, o in zip(rows, own))
    assert judge(found, cfg, jobs=2)['results'] == rows


def test_compare_judges_only_the_cases_its_filter_names(tmp_path):
    results, uuids, built = stored(
        tmp_path, nights(3, {A: [100.0, 101.0, 99.0], B: [50.0, 50.5, 49.5],
                             C: [1.0, 1.0, 1.0]}))
    rows, missing, new, _ = compare(built, results, uuids[-1:], GateConfig(),
                                    re.compile('^b'))
    assert [r.case for r in rows] == [key(B)]
    assert missing == [] and new == []


def test_the_lookback_rule_reads_its_newest_like_nights(tmp_path):
    found = stored(tmp_path, nights(9, {A: [100.0, 101.0, 99.0]}))
    [row] = judge(found, GateConfig(lookback_nights=5))['results']
    assert row['lookback']['history_nights'] == 5


def test_only_the_newest_like_nights_are_asked_if_disturbed(tmp_path):
    # Nights 3-7 after the baseline (0-2) saw foreign load; the pooled
    # view (2 nights: tonight and 1) asks the newest 4, so night 3 is
    # the one beside tonight.
    reports = nights(8, {A: [70.0, 71.0, 69.0]})
    for report in reports[3:8]:
        _contend(report, 0)
    found = stored(tmp_path, reports)
    [row] = judge(found, GateConfig(lookback_pooled_nights=2))['results']
    assert row['pooled']['count'] == 2
    assert row['pooled']['first'] == '2023-11-17'        # T0 + 3 days


def test_a_change_of_minus_100_percent_shows_no_level(tmp_path):
    # 1e-20 of the level: the change rounds to -1.0 (no level to show).
    [row] = gate(tmp_path, nights(7, {A: [1e-20, 1.1e-20, 0.9e-20]}))[0][
        'results']
    assert row['change'] == -1.0 and row['lookback'] is not None
    assert 'level' not in row['base'] and 'nights' not in row['base']


def test_tonights_repeats_in_two_units_are_named(tmp_path):
    reports = nights(3, {A: [100.0, 101.0, 99.0]})
    perf = reports[-1]['runs'][0]['testcases'][1]['perfvalues']
    [name] = perf
    perf[name][4] = 'GB/s'
    with pytest.raises(ConfigError) as err:
        gate(tmp_path, reports)
    assert str(err.value).endswith(
        "write_bw: 'GB/s, MB/s': unit differs from the baseline's 'MB/s'")


def test_an_ignored_figure_is_not_judged_by_the_nights(tmp_path):
    # Unknown units (no direction) and a wild repeat tonight: an ignored
    # figure keeps every repeat, lists none wild, has no fixed verdict.
    values = [100.0, 100.2, 99.8, 100.1, 99.9, 300.0]
    reports = [synth.session({A: values[:5]}, time_start=T0 + t * DAY,
                             unit='widgets') for t in range(7)]
    reports.append(synth.session({A: values}, time_start=T0 + 7 * DAY,
                                 unit='widgets'))
    cfg = GateConfig(path='gate.yaml', overrides=[Override('a.*',
                                                           ignore=True)])
    [row] = gate(tmp_path, reports, cfg)[0]['results']
    assert (row['verdict'], row['direction']) == ('ignored', None)
    assert row['cur']['n'] == 6 and 'wild_repeats' not in row
    assert row['fixed_tolerance_verdict'] is None
