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
