# SPDX-License-Identifier: BSD-3-Clause
"""Baseline files (pfsbench.gate.judge.baseline) through their public
functions, one test per mutant that bench/mutation.py found the rest of
the fast lane letting through (docs/mutation.md)."""

import json
import os
from types import SimpleNamespace

import pytest

from pfsbench.core.errors import ConfigError, MissingData
from pfsbench.gate.judge import baseline


def test_baselines_live_beside_the_database(tmp_path):
    assert baseline.baseline_dir(str(tmp_path / 'runs' / 'results.db')) == \
        str(tmp_path / 'runs' / 'baselines')
    here = os.getcwd()
    assert baseline.baseline_dir('results.db') == os.path.join(here, 'baselines')


def test_finite_is_a_measurement():
    assert baseline.finite(1.5) and baseline.finite(0)
    assert not baseline.finite(float('nan')) and not baseline.finite(True)
    assert not baseline.finite(None)


def test_a_contended_sample_names_case_session_and_contention():
    record = SimpleNamespace(key='c @s:p+e', session='u1',
                             contention='2 foreign jobs')
    assert baseline.contended_sample(record) == {
        'case': 'c @s:p+e', 'session': 'u1', 'contention': '2 foreign jobs'}


def test_first_difference_is_the_first_key_in_sorted_order():
    assert baseline.first_difference({'b': 1, 'c': 2}, {'b': 1, 'c': 3}) == \
        ('c', 2, 3)
    assert baseline.first_difference({'b': 1}, {'a': 0, 'b': 1}) == ('a', None, 0)
    assert baseline.first_difference({'a': 0, 'b': 1}, {'b': 1}) == ('a', 0, None)
    assert baseline.first_difference({'a': 1}, {'a': 1}) == ('?', {'a': 1},
                                                             {'a': 1})


def test_save_writes_the_file_in_its_key_order_and_refuses_to_overwrite(
        tmp_path):
    base = {'name': 'b1', 'zeta': [1, 2], 'alpha': {'y': 1, 'x': 2}}
    directory = str(tmp_path / 'baselines')
    path = baseline.save(base, directory)
    assert path == os.path.join(directory, 'b1.json')
    with open(path) as fp:
        assert fp.read() == json.dumps(base, indent=1) + '\n'
    assert os.listdir(directory) == ['b1.json']
    with pytest.raises(baseline.BaselineExists) as refused:
        baseline.save(dict(base, zeta=[3]), directory)
    assert str(refused.value) == (
        f"{path}: baseline 'b1' exists; delete it first or pass --force")
    baseline.save(dict(base, zeta=[3]), directory, force=True)
    with open(path) as fp:
        assert json.load(fp)['zeta'] == [3]
    assert os.listdir(directory) == ['b1.json']


def test_load_names_a_missing_baseline_and_the_known_ones(tmp_path):
    directory = str(tmp_path)
    baseline.save({'name': 'b2'}, directory)
    baseline.save({'name': 'a1'}, directory)
    (tmp_path / 'not a name.json').write_text('{}')
    missing = os.path.join(directory, 'zz.json')
    with pytest.raises(MissingData) as refused:
        baseline.load(directory, 'zz')
    assert str(refused.value) == \
        f"{missing}: baseline 'zz' not found (known: a1, b2)"
    with pytest.raises(MissingData) as refused:
        baseline.load(str(tmp_path / 'none'), 'zz')
    assert str(refused.value).endswith("baseline 'zz' not found (known: "
                                       'none)')


def test_load_names_a_file_that_is_not_json(tmp_path):
    (tmp_path / 'b.json').write_text('{"name": ')
    with pytest.raises(ConfigError) as refused:
        baseline.load(str(tmp_path), 'b')
    assert str(refused.value).startswith(
        f"{tmp_path / 'b.json'}:<json>: None: not JSON: ")


def test_delete_removes_the_file_and_its_mark(tmp_path):
    directory = str(tmp_path)
    path = baseline.save({'name': 'b'}, directory)
    (tmp_path / '.b.checked').write_text('x')
    assert baseline.delete(directory, 'b') == path
    assert os.listdir(directory) == []
    baseline.save({'name': 'c'}, directory)
    assert baseline.delete(directory, 'c') == os.path.join(directory, 'c.json')
    with pytest.raises(MissingData) as refused:
        baseline.delete(directory, 'c')
    assert str(refused.value).endswith("baseline 'c' not found (known: "
                                       'none)')


def _good():
    return {
        'format_version': 1, 'kind': 'pfsbench-baseline', 'name': 'pre',
        'sessions': [{'uuid': 'u0', 'time_start': 0.0, 'time_end': 1.0},
                     {'uuid': 'u1', 'time_start': 2.0}],
        'cases': [{'name': 'c', 'system': 's', 'partition': 'p',
                   'environ': 'e', 'provenance': [
                       {'session_index': 0, 'tags': {}},
                       {'session_index': 1, 'tags': {}}],
                   'perfvars': {
                       'ok': {'unit': 'MB/s', 'values': [1.0],
                              'session_index': [1]},
                       'bw': {'unit': 'MB/s', 'values': [1.0, 2.0],
                              'session_index': [0, 1],
                              'iterations': [3, 3]}}}]}


def _refused(change):
    data = _good()
    change(data)
    with pytest.raises(ConfigError) as refused:
        baseline.validate(data, 'b.json')
    return str(refused.value)


def _pv(data):
    return data['cases'][0]['perfvars']['bw']


def test_validate_accepts_a_good_baseline_with_or_without_its_mark(
        tmp_path):
    baseline.validate(_good(), 'b.json')
    mark = str(tmp_path / '.b.checked')
    text = json.dumps(_good()).encode()
    baseline.validate(_good(), 'b.json', (text, mark))
    baseline.validate(_good(), 'b.json', (text, mark))


def test_validate_names_each_bad_index_count_and_value():
    assert _refused(lambda d: d['cases'][0]['provenance'][1].update(
        session_index=2)) == (
        'b.json:cases.0.provenance.1.session_index: 2: expected an index '
        'into sessions (0..1)')
    assert _refused(lambda d: _pv(d).update(session_index=[0, 2])) == (
        'b.json:cases.0.perfvars.bw.session_index: [0, 2]: expected 2 '
        'indexes into sessions (0..1)')
    assert _refused(lambda d: _pv(d).update(session_index=[0])) == (
        'b.json:cases.0.perfvars.bw.session_index: [0]: expected 2 '
        'indexes into sessions (0..1)')
    assert _refused(lambda d: _pv(d).update(iterations=[3])) == (
        'b.json:cases.0.perfvars.bw.iterations: [3]: expected 2 iteration '
        'counts >= 1')
    assert _refused(lambda d: _pv(d).update(values=[1.0, 1e300])) == (
        'b.json:cases.0.perfvars.bw.values.1: 1e+300: beyond the magnitude '
        'of a measurement (1e-100 to 1e+100, or 0)')
    assert _refused(lambda d: _pv(d).update(iterations=[3, 10 ** 10])) == (
        'b.json:cases.0.perfvars.bw.iterations.1: 10000000000: not an '
        'iteration count (1 to 1,000,000,000)')
    assert _refused(lambda d: d['sessions'][1].update(
        time_start=1e20)) == (
        'b.json:sessions.1.time_start: 1e+20: not a time (seconds since '
        '1970, years 1 to 9999)')
    assert _refused(lambda d: d['sessions'][0].update(time_end=-1e20)) == (
        'b.json:sessions.0.time_end: -1e+20: not a time (seconds since '
        '1970, years 1 to 9999)')


@pytest.mark.parametrize('name', ['', '-a', 'a b', 'a' * 101, None])
def test_check_name_refuses_what_no_file_name_is(name):
    with pytest.raises(ConfigError) as refused:
        baseline.check_name(name)
    assert str(refused.value) == (
        f"<command line>:baseline: {name!r}: a baseline name is 1-100 "
        "letters, digits, '.', '_' or '-', starting with a letter or digit")


def test_check_name_accepts_a_name():
    assert baseline.check_name('a' * 100) == 'a' * 100
    assert baseline.check_name('9.b_c-d') == '9.b_c-d'


def _record(**more):
    fields = {'fail_phase': '', 'fail_reason': '', 'result': 'pass',
              'perf': {'bw': (1.0, 'MB/s')}, 'iterations': 3}
    fields.update(more)
    return SimpleNamespace(**fields)


LIVE = SimpleNamespace(dry_run=False)


@pytest.mark.parametrize('record, session, why', [
    (_record(), SimpleNamespace(dry_run=True),
     'a --dry-run session (performance values are None)'),
    (_record(fail_phase='run', fail_reason='first\nsecond'), LIVE,
     'failed in run: first'),
    (_record(fail_phase='run', fail_reason=''), LIVE,
     'failed in run: no reason given'),
    (_record(result='abort'), LIVE, 'aborted'),
    (_record(result='skip'), LIVE, 'skipped'),
    (_record(perf={}), LIVE, 'no performance variables'),
    (_record(perf={'bw': (None, 'MB/s')}), LIVE,
     'performance values are None'),
    (_record(perf={'a': (1.0, 's'), 'bw': (float('inf'), 'MB/s')}), LIVE,
     'bw: inf: not a finite number'),
    (_record(iterations=0), LIVE,
     'repetitions/iterations: 0: not an iteration count (1 to '
     '1,000,000,000)'),
    (_record(iterations=None), LIVE, ''),
    (_record(), LIVE, ''),
])
def test_unusable_reason_of_each_kind_of_record(record, session, why):
    assert baseline.unusable_reason(record, session) == why


# build: a baseline from a results database -------------------------------

DAY = 86400.0
T0 = 1.7e9


def _results(tmp_path, reports):
    import synth
    from pfsbench.store.runs import read_database

    directory = tmp_path / f'runs{len(list(tmp_path.iterdir()))}'
    directory.mkdir()
    db = str(directory / 'results.db')
    synth.write_database(db, reports)
    return read_database(db), [r['session_info']['uuid'] for r in reports]


def _night(t, values, **kwargs):
    import synth

    return synth.session(values, time_start=T0 + t * DAY,
                         extras={'night': str(t)}, **kwargs)


def _loggable(report, index, **fields):
    report['runs'][0]['testcases'][index].update(fields)
    return report


def test_build_holds_every_sample_by_session_oldest_first(tmp_path):
    reports = [_night(t, {'a %nodes=1': [100.0 + t, 101.0],
                          'b %nodes=2': [5.0, 6.0 + t]}) for t in range(2)]
    _loggable(reports[1], 0, job_nodelist=['n2'], iterations=4)
    results, uuids = _results(tmp_path, reports)
    built = baseline.build(results, [uuids[1], uuids[0]], 'pre')
    assert (built['format_version'], built['kind'], built['name']) == \
        (1, 'pfsbench-baseline', 'pre')
    assert built['database'] == results.source
    assert [s['uuid'] for s in built['sessions']] == uuids
    assert [s['extras'] for s in built['sessions']] == \
        [{'night': '0'}, {'night': '1'}]
    assert built['contended_samples'] == [] and 'missing_cases' not in built
    a, b = built['cases']
    assert (a['name'], a['params'], a['system'], a['partition'],
            a['environ'], a['config']) == \
        ('a %nodes=1', {'nodes': '1'}, 'local', 'default', 'builtin',
         {'num_tasks': 1})
    assert 'config_session' not in a
    assert a['perfvars'] == {'write_bw': {
        'unit': 'MB/s', 'values': [100.0, 101.0, 101.0, 101.0],
        'session_index': [0, 0, 1, 1]}}
    assert b['perfvars']['write_bw']['values'] == [5.0, 6.0, 5.0, 7.0]
    assert a['provenance'] == [
        {'session_index': 0, 'tags': {'job_nodelist': 'n1'}},
        {'session_index': 1, 'tags': {'job_nodelist': 'n1,n2'}}]
    assert b['provenance'][1] == {'session_index': 1,
                                  'tags': {'job_nodelist': 'n1'}}


def test_build_keeps_iteration_counts_where_every_sample_has_one(tmp_path):
    reports = [_night(t, {'a %nodes=1': [100.0, 101.0],
                          'b %nodes=1': [5.0, 6.0]}) for t in range(2)]
    for report in reports:
        for i in range(4):
            _loggable(report, i, iterations=3 + i)
    _loggable(reports[1], 2, iterations=None)
    results, uuids = _results(tmp_path, reports)
    a, b = baseline.build(results, uuids, 'pre')['cases']
    assert a['perfvars']['write_bw']['iterations'] == [3, 4, 3, 4]
    assert 'iterations' not in b['perfvars']['write_bw']


def test_build_with_a_name_filter_takes_its_cases_only(tmp_path):
    import re

    reports = [_night(0, {'a %nodes=1': [1.0, 2.0], 'b %nodes=1': [1.0]})]
    results, uuids = _results(tmp_path, reports)
    built = baseline.build(results, uuids, 'pre', re.compile('^b'))
    assert [c['name'] for c in built['cases']] == ['b %nodes=1']
    with pytest.raises(MissingData) as err:
        baseline.build(results, uuids, 'pre', re.compile('^z'))
    assert str(err.value) == f'no test case selected from session(s) ' \
        f'{uuids[0]}'


def test_build_refuses_a_session_stopped_early(tmp_path):
    reports = [_night(0, {'a %nodes=1': [1.0]}),
               _night(1, {'a %nodes=1': [1.0]})]
    reports[1]['session_info']['num_aborted'] = 2
    results, uuids = _results(tmp_path, reports)
    with pytest.raises(MissingData) as err:
        baseline.build(results, uuids, 'pre')
    assert str(err.value) == (f'session {uuids[1]}: stopped early (2 '
                              'aborted case(s)); choose other sessions')


def test_build_refuses_an_unusable_record_naming_it(tmp_path):
    report = _night(0, {'a %nodes=1': [1.0, 2.0]})
    _loggable(report, 1, result='fail', fail_phase='sanity',
              fail_reason='bad')
    results, uuids = _results(tmp_path, [report])
    with pytest.raises(MissingData) as err:
        baseline.build(results, uuids, 'pre')
    assert str(err.value) == (f'session {uuids[0]}: a %nodes=1 '
                              '@local:default+builtin: failed in sanity: bad')


def test_build_refuses_a_unit_or_configuration_that_changed(tmp_path):
    reports = [_night(0, {'a %nodes=1': [1.0]}),
               _night(1, {'a %nodes=1': [1.0]}, unit='GB/s')]
    results, uuids = _results(tmp_path, reports)
    with pytest.raises(ConfigError) as err:
        baseline.build(results, uuids, 'pre')
    assert str(err.value) == (
        f"session {uuids[1]}:a %nodes=1 @local:default+builtin: write_bw: "
        "'GB/s': unit differs from 'MB/s' in an earlier session")
    reports = [_night(0, {'a %nodes=1': [1.0]}),
               _night(1, {'a %nodes=1': [1.0]}, num_tasks=4)]
    results, uuids = _results(tmp_path, reports)
    with pytest.raises(ConfigError) as err:
        baseline.build(results, uuids, 'pre')
    assert str(err.value) == (
        f'session {uuids[1]}:a %nodes=1 @local:default+builtin: num_tasks: '
        f'4: differs from 1 in session {uuids[0]}; sessions with different '
        'parameters cannot form one baseline')


CONTENTION = 'busy: 40 % from 2 other clients (n7; n8)'


def test_build_lists_contended_samples_and_lost_cases(tmp_path):
    report = _night(0, {'a %nodes=1': [1.0, 2.0], 'b %nodes=1': [3.0, 4.0],
                        'c %nodes=1': [5.0]})
    for i in (0, 2, 3, 4):
        _loggable(report, i, contended=True, contention=CONTENTION)
    results, uuids = _results(tmp_path, [report])
    with pytest.raises(MissingData) as err:
        baseline.build(results, uuids, 'pre')
    assert str(err.value) == (
        f'2 case(s) with no uncontended repeat in session(s) {uuids[0]}, '
        'which the baseline would not gate: b %nodes=1 '
        '@local:default+builtin (2 contended samples left out: '
        f'{CONTENTION}; by foreign source: n7: 2, n8: 2); c %nodes=1 '
        '@local:default+builtin (1 contended sample left out: '
        f'{CONTENTION}; by foreign source: n7: 1, n8: 1); choose other '
        'sessions, or record without them with --allow-missing')
    built = baseline.build(results, uuids, 'pre', allow_missing=True)
    assert built['missing_cases'] == ['b %nodes=1 @local:default+builtin',
                                      'c %nodes=1 @local:default+builtin']
    assert [c['name'] for c in built['cases']] == ['a %nodes=1']
    assert sorted((s['case'], s['session'], s['contention'])
                  for s in built['contended_samples']) == \
        [('a %nodes=1 @local:default+builtin', uuids[0], CONTENTION)] + \
        [('b %nodes=1 @local:default+builtin', uuids[0], CONTENTION)] * 2 + \
        [('c %nodes=1 @local:default+builtin', uuids[0], CONTENTION)]
    # Every case contended: none selected, and why.
    report = _night(1, {'a %nodes=1': [1.0]})
    _loggable(report, 0, contended=True)
    results, uuids = _results(tmp_path, [report])
    with pytest.raises(MissingData) as err:
        baseline.build(results, uuids, 'pre', allow_missing=True)
    assert str(err.value) == (
        f'no test case selected from session(s) {uuids[0]} (1 contended '
        'sample left out: no detail recorded)')


def test_contended_note_names_each_contention_once_and_sources():
    assert baseline.contended_note([]) == ''
    samples = [{'contention': 'x'}, {'contention': ''}, {'contention': 'x'},
               {}, {'contention': 'from 1 other job (j1; j2)'},
               {'contention': 'from 3 other jobs (j2)'}]
    assert baseline.contended_note(samples) == (
        '6 contended samples left out: x; no detail recorded; from 1 other '
        'job (j1; j2); from 3 other jobs (j2); by foreign source: j2: 2, '
        'j1: 1')
    assert baseline.contended_note([{'contention': 'y'}]) == \
        '1 contended sample left out: y'


def test_without_uncontended_lists_the_cases_lost_sorted():
    contended = [{'case': 'z', 'contention': 'q'}, {'case': 'a'},
                 {'case': 'k', 'contention': 'q'}, {'case': 'z'}]
    assert baseline.without_uncontended({'k'}, contended) == [
        ('a', 1, '1 contended sample left out: no detail recorded'),
        ('z', 2, '2 contended samples left out: q; no detail recorded')]
    assert baseline.without_uncontended({'a', 'k', 'z'}, contended) == []


def test_case_key_of_a_baseline_case():
    key = baseline.case_key({'name': 'a %nodes=2', 'system': 's',
                             'partition': 'p', 'environ': 'e',
                             'perfvars': {}})
    assert (key.name, key.system, key.partition, key.environ) == \
        ('a %nodes=2', 's', 'p', 'e')
    assert str(key) == 'a %nodes=2 @s:p+e'


def test_load_validates_and_marks_what_passed(tmp_path):
    directory = str(tmp_path)
    good = dict(_good(), name='pre')
    path = baseline.save(good, directory)
    assert baseline.load(directory, 'pre') == good
    assert sorted(os.listdir(directory)) == ['.pre.checked', 'pre.json']
    assert baseline.load(directory, 'pre') == good
    bad = _good()
    _pv(bad)['session_index'] = [0, 5]
    baseline.save(bad, directory, force=True)
    with pytest.raises(ConfigError) as refused:
        baseline.load(directory, 'pre')
    assert str(refused.value).startswith(
        f'{path}:cases.0.perfvars.bw.session_index: [0, 5]: ')


def test_list_names_of_the_baseline_files_only(tmp_path):
    for name in ('pre.json', 'b.json', 'x.txt', '.pre.checked',
                 'not a name.json', 'c.json.tmp', 'valid but.json'):
        (tmp_path / name).write_text('{}')
    assert baseline.list_names(str(tmp_path)) == ['b', 'pre']
    assert baseline.list_names(str(tmp_path / 'none')) == []


def test_delete_names_the_missing_file(tmp_path):
    path = os.path.join(str(tmp_path), 'c.json')
    with pytest.raises(MissingData) as refused:
        baseline.delete(str(tmp_path), 'c')
    assert str(refused.value) == f"{path}: baseline 'c' not found (known: " \
        'none)'


def test_lost_cases_name_every_session_chosen(tmp_path):
    reports = [_night(t, {'a %nodes=1': [1.0]}) for t in range(2)]
    for report in reports:
        _loggable(report, 0, contended=True)
    reports[0] = _night(0, {'a %nodes=1': [1.0], 'b %nodes=1': [2.0]})
    _loggable(reports[0], 0, contended=True)
    results, uuids = _results(tmp_path, reports)
    with pytest.raises(MissingData) as err:
        baseline.build(results, uuids, 'pre')
    assert str(err.value).startswith(
        f'1 case(s) with no uncontended repeat in session(s) {uuids[0]}, '
        f'{uuids[1]}, which the baseline would not gate: ')


def test_validate_names_the_file_of_a_schema_error(tmp_path):
    bad = dict(_good(), kind='other')
    for checked in (None, (json.dumps(bad).encode(),
                           str(tmp_path / '.b.checked'))):
        with pytest.raises(ConfigError) as refused:
            baseline.validate(bad, 'b.json', checked)
        assert str(refused.value).startswith('b.json:')


def test_validate_a_baseline_recorded_before_cases_kept_provenance():
    data = _good()
    del data['cases'][0]['provenance']
    baseline.validate(data, 'b.json')


def test_validate_shows_a_huge_time_by_its_first_40_characters():
    stamp = 10 ** 50
    message = _refused(lambda d: d['sessions'][1].update(time_start=stamp))
    assert message == (f'b.json:sessions.1.time_start: {repr(stamp)[:40]}: '
                       'not a time (seconds since 1970, years 1 to 9999)')


def test_written_stamp_in_utc_to_the_second():
    from pfsbench import __version__

    stamp = baseline.written_stamp()
    assert set(stamp) == {'created', 'pfsbench_version'}
    assert stamp['pfsbench_version'] == __version__
    assert stamp['created'].endswith('+00:00')
    assert len(stamp['created']) == len('2026-11-29T14:06:24+00:00')


def test_build_keeps_each_cases_tags_in_its_provenance(tmp_path):
    report = _night(0, {'a %nodes=1': [1.0, 2.0]})
    _loggable(report, 1, server_provenance='lustre=2.15')
    results, uuids = _results(tmp_path, [report])
    [case] = baseline.build(results, uuids, 'pre')['cases']
    assert case['provenance'] == [{'session_index': 0, 'tags': {
        'job_nodelist': 'n1', 'server_provenance': 'lustre=2.15'}}]
