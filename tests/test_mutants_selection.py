# SPDX-License-Identifier: BSD-3-Clause
"""What a nightly's tags select and what each case costs
(pfsbench.plan.selection) through its public functions, ReFrame's listing
and dry run stood in for: the mutants bench/mutation.py found the
planner's tests letting through (docs/mutation.md).  Pure and fast."""

import json
import os

import pytest

from pfsbench.core.errors import ConfigError
from pfsbench.plan import selection
from pfsbench.plan.estimate import MIB
import synth


def _sel(**kwargs):
    runs = [{'display_name': 'a', 'nodes': 2}, {'display_name': 'b'},
            {'display_name': 'c', 'nodes': 0}]
    given = dict(runs=runs, skips={}, here=False,
                 past={'a': [10.0, 30.0, 20.0], 'c': []},
                 limits={'a': 100, 'b': 200, 'c': 300},
                 first={'a': (99, 'x'), 'b': (40, 'work'),
                        'c': (5, 'assumed')})
    given.update(kwargs)
    return selection.Selection(**given)


def test_a_cases_seconds_are_its_median_else_its_first_night():
    sel = _sel()
    assert [sel.seconds(c) for c in sel.runs] == [20.0, 40, 5]
    assert [sel.source(c) for c in sel.runs] == [
        '3 earlier run(s)', 'first night: work', 'first night: assumed']
    assert sel.estimate_s == 65.0
    assert sel.at_most_s == 600
    assert sel.node_s == 2 * 20.0 + 40 + 5
    assert sel.known == 1


def test_the_cases_a_time_limit_would_kill():
    sel = _sel(over_limit={'a': (600, 100, 'x'), 'b': (270, 120,
                                                       "the check's")})
    line = ("b: its first-night estimate, 4.5 m, is more than the check's "
            "(2.0 m): the case would be killed at the limit, not measured "
            "(a longer time_limit or a smaller case)")
    assert sel.killed() == [line]
    assert sel.killed(sel.runs[:1]) == []
    assert _sel().killed() == []


def test_tags_that_select_nothing():
    assert str(selection.selects_nothing(['E1', 'x'], 'h:p')) == (
        "<command line>:--tags: 'E1 x': selects no case on h:p (tags match "
        "exactly: E1 is E1 alone; reframe -c reframe-checks --list-tags "
        "lists them)")


PART = {'name': 'cpu', 'extras': {'targets': [
    {'name': 'scratch', 'fstype': 'lustre'},
    {'name': 'local', 'fstype': 'xfs', 'scope': 'node',
     'expected_aggregate_mib_s': 100}]}}


def test_a_cases_target_and_first_night():
    assert selection.case_target({}, PART)['name'] == 'scratch'
    assert selection.case_target({'target': 'local'}, PART)['name'] == \
        'local'
    assert selection.case_target({'target': 'gone'}, PART)['name'] == \
        'scratch'
    assert selection.case_target({}, {}) is None
    case = {'display_name': 'fio', 'size': 100 * MIB, 'nodes': 4,
            'target': 'local'}
    # node scope: 4 nodes x 100 MiB/s for 4 streams of 100 MiB: two
    # passes of 1 s (a shared scope's would take 4 s)
    assert selection.first_night(case, PART, None) == (
        62.0, "work at local's expected_* rates")
    assert selection.first_night(case, PART, 30) == (
        30, "work at local's expected_* rates")
    assert selection.first_night({'display_name': 'x'}, {}, None, 7) == (
        7, 'assumed')


def test_this_host_is_the_systems_by_its_patterns(monkeypatch):
    monkeypatch.setattr(selection.socket, 'gethostname', lambda: 'hawk-n1')
    assert selection.runs_here({'hostnames': ['vulcan', 'hawk-']})
    assert not selection.runs_here({'hostnames': ['n1']})
    assert not selection.runs_here({})


def _report(path, cases, **kwargs):
    path.write_text(json.dumps(synth.make_report(cases, **kwargs)))


def test_the_history_of_passed_cases_in_the_reports(tmp_path):
    reports = tmp_path / 'reports'
    reports.mkdir()

    def case(name, took, **kwargs):
        kwargs.setdefault('system', 'hawk')
        kwargs.setdefault('partition', 'cpu')
        tc = synth.make_testcase('u', 0, 0, name, {}, **kwargs)
        tc['time_total'] = took
        return tc
    _report(reports / 'run-report-1.json', [
        case('ior', 10.0, repeat=0), case('ior', 12.0, repeat=1),
        case('dd', 5.0), case('dd', 6.0, result='fail', environ='e2'),
        case('dd', 0.0, environ='e3'), case('fio', 3.0, partition='gpu'),
        case('mdtest', 4.0, system='vulcan')])
    _report(reports / 'run-report-2.json', [case('dd', 7.0)])
    (reports / 'run-report-3.json').write_text('{')
    _report(reports / 'other.json', [case('dd', 99.0)])
    _report(reports / 'run-report-4.txt', [case('dd', 99.0)])
    assert selection.history(str(tmp_path), 'hawk', 'cpu') == {
        'ior': [10.0, 12.0], 'dd': [5.0, 7.0]}
    assert selection.history(str(tmp_path / 'none'), 'hawk', 'cpu') == {}


@pytest.fixture
def reframe(monkeypatch, tmp_path):
    """``select`` with ReFrame's listing and dry run stood in for: the
    cases listed and the skips (set them); the calls made."""
    state = {'listed': [], 'skips': {}, 'calls': []}

    def describe(settings, spec, checks, tags, args=()):
        state['calls'].append(('describe', settings, spec, tags, args))
        state['describe'] = (settings, spec, checks, tags, args)
        return state['listed']

    def dry_run(settings, spec, checks, tags, env, args):
        state['calls'].append(('dry', env, args))
        state['dry'] = (settings, spec, checks, tags, env, args)
        if isinstance(state['skips'], Exception):
            raise state['skips']
        return state['skips']
    monkeypatch.setattr(selection.cases, 'describe', describe)
    monkeypatch.setattr(selection.cases, 'dry_run_skips', dry_run)
    monkeypatch.setattr(selection.socket, 'gethostname', lambda: 'hawk')
    return state


SYSTEM = {'name': 'hawk', 'hostnames': ['hawk']}


def test_select_leaves_out_the_skipped_and_caps_the_limits(reframe,
                                                           tmp_path):
    reframe['listed'] = [
        {'display_name': 'a', 'time_limit': 7200},
        {'display_name': 'b', 'time_limit': 600},
        {'display_name': 'c'},
        {'display_name': 'gone', 'time_limit': 60}]
    reframe['skips'] = {'gone': 'no tool'}
    part = dict(PART, time_limit='1:00:00')
    sel = selection.select('/cfg', 'hawk:cpu', SYSTEM, part, ['E1'],
                           str(tmp_path), assume_s=5000)
    assert reframe['calls'][0] == ('dry', {'PFSBENCH_DRY_RUN_TOOLS': 'check'},
                                   ['-P', 'target=scratch,local'])
    assert reframe['calls'][1][:4] == ('describe', '/cfg/settings.py',
                                       'hawk:cpu', ['E1'])
    assert [c['display_name'] for c in sel.runs] == ['a', 'b', 'c']
    assert (sel.skips, sel.here, sel.past) == ({'gone': 'no tool'}, True, {})
    # A case without a time_limit of its own (every check sets one) is
    # not bounded: 0, its estimate as it is.
    assert sel.limits == {'a': 3600, 'b': 600, 'c': 0}
    assert sel.first == {'a': (3600, 'assumed'), 'b': (600, 'assumed'),
                         'c': (5000, 'assumed')}
    assert sel.over_limit == {
        'a': (5000, 3600, "the partition's time_limit"),
        'b': (5000, 600, "the check's time_limit")}
    free = selection.select('/cfg', 'hawk:cpu', {'name': 'hawk'}, PART,
                            ['E1'], str(tmp_path), assume_s=300)
    assert reframe['calls'][-2][1] is None            # not this host
    assert free.limits == {'a': 7200, 'b': 600, 'c': 0}
    assert free.first == {'a': (300, 'assumed'), 'b': (300, 'assumed'),
                          'c': (300, 'assumed')}
    assert free.over_limit == {}


def test_select_refuses_nothing_selected_or_everything_skipped(reframe,
                                                               tmp_path):
    with pytest.raises(ConfigError) as err:
        selection.select('/cfg', 'h:p', SYSTEM, PART, ['x'], str(tmp_path))
    assert 'selects no case on h:p' in str(err.value)
    reframe['listed'] = [{'display_name': n} for n in 'abc']
    reframe['skips'] = {'a': 'r2', 'b': 'r1', 'c': 'r2'}
    with pytest.raises(ConfigError) as err:
        selection.select('/cfg', 'h:p', SYSTEM, PART, ['x', 'y'],
                         str(tmp_path))
    assert str(err.value) == (
        "<command line>:--system: 'h:p': every case --tags x y selects (3) "
        "would be skipped there: r1 (and 1 other reason(s)); pfsbench "
        "check-config --system h:p names what is missing")
    reframe['skips'] = {'a': 'r2', 'b': 'r2', 'c': 'r2'}
    with pytest.raises(ConfigError) as err:
        selection.select('/cfg', 'h:p', SYSTEM, PART, ['x'], str(tmp_path))
    assert str(err.value).endswith(
        'would be skipped there: r2; pfsbench check-config --system h:p '
        'names what is missing')


CHECKS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    selection.__file__))), os.pardir, 'reframe-checks')


def test_the_listing_and_the_dry_run_see_the_same_selection(reframe,
                                                            tmp_path):
    reframe['listed'] = [{'display_name': 'a', 'time_limit': 60}]
    selection.select('/cfg', 'hawk:cpu', {'name': 'hawk'}, PART, ['E1'],
                     str(tmp_path))
    checks = os.path.normpath(CHECKS)
    assert os.path.isdir(checks)
    targets = ['-P', 'target=scratch,local']
    assert reframe['describe'] == ('/cfg/settings.py', 'hawk:cpu', checks,
                                   ['E1'], targets)
    assert reframe['dry'] == ('/cfg/settings.py', 'hawk:cpu', checks,
                              ['E1'], None, targets)


def test_nothing_listed_is_said_before_a_failed_dry_run(reframe, tmp_path):
    reframe['skips'] = ConfigError('s', 'f', 'v', 'the dry run failed')
    with pytest.raises(ConfigError) as err:
        selection.select('/cfg', 'h:p', SYSTEM, PART, ['x'], str(tmp_path))
    assert 'selects no case on h:p' in str(err.value)


def test_a_bad_partition_time_limit_is_named(reframe, tmp_path):
    reframe['listed'] = [{'display_name': 'a', 'time_limit': 60}]
    with pytest.raises(ConfigError) as err:
        selection.select('/cfg', 'hawk:cpu', SYSTEM,
                         dict(PART, time_limit='soon'), ['E1'],
                         str(tmp_path))
    assert str(err.value).startswith("hawk:cpu:time_limit: 'soon': ")


def test_a_limit_at_the_cap_is_the_checks_and_an_estimate_at_it_fits(
        reframe, tmp_path):
    reframe['listed'] = [{'display_name': 'a', 'time_limit': 600},
                         {'display_name': 'b', 'time_limit': 300}]
    sel = selection.select('/cfg', 'hawk:cpu', SYSTEM,
                           dict(PART, time_limit='10m'), ['E1'],
                           str(tmp_path), assume_s=600)
    assert sel.limits == {'a': 600, 'b': 300}
    # 'a' asks exactly the cap: the check's own limit; its estimate, equal
    # to the limit, is not cut
    assert sel.over_limit == {'b': (600, 300, "the check's time_limit")}
    assert sel.first == {'a': (600, 'assumed'), 'b': (300, 'assumed')}
    longer = selection.select('/cfg', 'hawk:cpu', SYSTEM,
                              dict(PART, time_limit='10m'), ['E1'],
                              str(tmp_path), assume_s=700)
    assert longer.over_limit == {'a': (700, 600, "the check's time_limit"),
                                 'b': (700, 300, "the check's time_limit")}


def test_select_reads_the_history_of_its_system_and_partition(reframe,
                                                              tmp_path):
    reports = tmp_path / 'reports'
    reports.mkdir()

    def case(took, **kwargs):
        tc = synth.make_testcase('u', 0, 0, 'a', {}, **kwargs)
        tc['time_total'] = took
        return tc
    _report(reports / 'run-report-1.json', [
        case(10.0, system='hawk', partition='cpu'),
        case(20.0, system='other', partition='cpu'),
        case(30.0, system='hawk', partition='gpu')])
    reframe['listed'] = [{'display_name': 'a', 'time_limit': 600}]
    sel = selection.select('/cfg', 'hawk:cpu', SYSTEM, PART, ['E1'],
                           str(tmp_path))
    assert sel.past == {'a': [10.0]}


def test_an_unreadable_report_does_not_end_the_history(tmp_path):
    reports = tmp_path / 'reports'
    reports.mkdir()
    (reports / 'run-report-0.json').write_text('{')
    tc = synth.make_testcase('u', 0, 0, 'dd', {}, system='hawk',
                             partition='cpu')
    tc['time_total'] = 5.0
    _report(reports / 'run-report-1.json', [tc])
    assert selection.history(str(tmp_path), 'hawk', 'cpu') == {'dd': [5.0]}
