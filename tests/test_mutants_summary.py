# SPDX-License-Identifier: BSD-3-Clause
"""The summary of a run report (pfsbench.gate.report.summary) through
render_text and skipped_by_family: the mutants bench/mutation.py found
the planner's tests letting through (docs/mutation.md).  Pure and fast."""

import json

from pfsbench.gate.report import summary
import synth

UUID = '0123456789abcdef'


def _case(name, perf, **kwargs):
    given = {k: kwargs.pop(k) for k in ('hashcode', 'filename')
             if k in kwargs}
    kwargs.setdefault('system', 'hawk')
    kwargs.setdefault('partition', 'cpu')
    case = synth.make_testcase(UUID, 0, 0, name, perf, **kwargs)
    case.update(given)
    return case


def _skip(name, code, family, **kwargs):
    return _case(name, {}, result='skip', hashcode=code,
                 filename=f'/r/reframe-checks/{family}/c.py', **kwargs)


CASES = [
    _case('ior_check %nodes=1 %api=posix', {'bw': (1234.5, 'MB/s'),
                                            'lat': (0.05, 's')}),
    _case('ior_check %nodes=2 %api=posix', {'bw': (12.25, 'MB/s')},
          result='fail', fail_reason='sanity: no output\nmore'),
    _skip('dd_check %n=1', 'aaaaaaaa', 'dd'),
    _skip('dd_check %n=2', 'bbbbbbbb', 'dd', partition='gpu'),
    _skip('md_check %n=1', 'cccccccc', 'md'),
    _case('bad_check', {}, result='fail', fail_reason='boom'),
    _case('net_check %n=1', {'bw': (100.0, 'MB/s')}),
    _case('net_check %n=1', {'bw': (0.999, 'MB/s')}, partition='gpu'),
    _case('one_check', {'ops': (None, 'op/s')}),
] + [_case(f'fio_check %size={i}', {'bw': (-1.5 * i, 'MB/s')})
     for i in range(7)]

LOG = ('session 0123456789abcdef\n'
       '[     SKIP ] ( 1/9) dd_check %n=1 /aaaaaaaa @hawk:cpu+builtin '
       '[needs 2 nodes]\n'
       '[     SKIP ] ( 2/9) dd_check %n=2 /bbbbbbbb @hawk:gpu+builtin [dd '
       "not found: build it with the suite's Spack environment; or else]\n")


def _runs(tmp_path, log=LOG):
    (tmp_path / 'reports').mkdir()
    report = synth.make_report(CASES, session_uuid=UUID)
    report['session_info']['num_skipped'] = 3
    path = tmp_path / 'reports' / 'run-report-1.json'
    path.write_text(json.dumps(report))
    if log is not None:
        (tmp_path / 'reframe.log').write_text(log)
    return str(path)


def test_skipped_by_family():
    assert summary.skipped_by_family(CASES) == {
        'dd': (2, ['hawk:cpu', 'hawk:gpu']), 'md': (1, ['hawk:cpu'])}


def test_skip_reasons_from_the_sessions_own_log(tmp_path):
    path = _runs(tmp_path)
    assert summary.skip_reasons(path, UUID) == {
        'aaaaaaaa': 'needs 2 nodes',
        'bbbbbbbb': "dd not found: build it with the suite's Spack "
                    "environment; or else"}
    assert summary.skip_reasons(path, 'another') == {}
    (tmp_path / 'reframe.log').unlink()
    assert summary.skip_reasons(path, UUID) == {}


def test_the_summary_text(tmp_path):
    path = _runs(tmp_path)
    assert summary.render_text(path) == f"""\
pfsbench summary of session 01234567: 16 case(s), 2 failure(s), 3 skipped \
({path})

ior_check on hawk:cpu
  figure  unit  nodes=1  nodes=2
                   pass     fail
  bw      MB/s     1234     12.2
  lat     s        0.05        -

dd_check on hawk:cpu, hawk:gpu
  1 case(s) skip: needs 2 nodes
  1 case(s) skip: dd not found: build it with the suite's Spack environment; \
or else

md_check on hawk:cpu
  1 case(s) skip (reasons: the SKIP lines of the run)

bad_check on hawk:cpu
  1 case(s) fail: boom

net_check on hawk:cpu, hawk:gpu
  figure  unit  @hawk:cpu  @hawk:gpu
                     pass       pass
  bw      MB/s        100          1

one_check on hawk:cpu
  figure  unit  case
                pass
  ops     op/s     -

fio_check on hawk:cpu
  case    result  bw (MB/s)
  size=0  pass           -0
  size=1  pass         -1.5
  size=2  pass           -3
  size=3  pass         -4.5
  size=4  pass           -6
  size=5  pass         -7.5
  size=6  pass           -9

FAILED ior_check %nodes=2 %api=posix @hawk:cpu: sanity: no output
more

FAILED bad_check @hawk:cpu: boom

skipped: dd (2 case(s) on hawk:cpu, hawk:gpu), md (1 case(s) on hawk:cpu)
  1 case(s): needs 2 nodes
  1 case(s): dd not found: build it with the suite's Spack environment \
(a tool is missing)
  1 case(s): see the SKIP lines
  build the tools for hawk:cpu: spack -e spack-repo/environments/hawk/cpu \
install (docs/spack.md)
  build the tools for hawk:gpu: spack -e spack-repo/environments/hawk/gpu \
install (docs/spack.md)
"""


def test_a_summary_without_the_log_blames_a_missing_tool(tmp_path):
    text = summary.render_text(_runs(tmp_path, log=None))
    assert text.endswith(
        'skipped: dd (2 case(s) on hawk:cpu, hawk:gpu), md (1 case(s) on '
        'hawk:cpu)\n'
        '  3 case(s): see the SKIP lines\n'
        '  build the tools for hawk:cpu: spack -e spack-repo/environments/'
        'hawk/cpu install (docs/spack.md)\n'
        '  build the tools for hawk:gpu: spack -e spack-repo/environments/'
        'hawk/gpu install (docs/spack.md)\n')
    assert '  1 case(s) skip (reasons: the SKIP lines of the run)' in text


def _family(tmp_path, cases, log=None, **info):
    """The summary of a report of ``cases`` (the session's own log
    ``log``), ``session_info`` updated with ``info`` (``None``: left
    out)."""
    (tmp_path / 'reports').mkdir()
    report = synth.make_report(cases, session_uuid=UUID)
    report['session_info'].update(info)
    for key in [k for k, v in info.items() if v is None]:
        del report['session_info'][key]
    path = tmp_path / 'reports' / 'run-report-1.json'
    path.write_text(json.dumps(report))
    if log is not None:
        (tmp_path / 'reframe.log').write_bytes(log)
    return summary.render_text(str(path))


def test_reasons_are_counted_and_a_failure_without_one_is_bare(tmp_path):
    text = _family(tmp_path, [
        _case('x_check %n=1', {}, result='fail', fail_reason='boom'),
        _case('x_check %n=2', {}, result='fail', fail_reason='boom'),
        _case('x_check %n=3', {}, result='fail')])
    assert text.splitlines()[1:5] == [
        '', 'x_check on hawk:cpu', '  2 case(s) fail: boom',
        '  1 case(s) fail']


def test_six_cases_are_columns_and_seven_rows(tmp_path):
    text = _family(tmp_path, [_case(f'f_check %s={i}', {'bw': (1.0, 'B')})
                              for i in range(6)])
    assert text.splitlines()[3].split() == [
        'figure', 'unit', 's=0', 's=1', 's=2', 's=3', 's=4', 's=5']


def test_a_figure_keeps_its_digits_by_its_size(tmp_path):
    text = _family(tmp_path, [
        _case('v_check %n=1', {'bw': (1.25, 'B'), 'ops': (1234.5, 'op/s'),
                               'lat': (0.0125, 's')}),
        _case('v_check %n=2', {'bw': (-1.75, 'B'), 'ops': (99.94, 'op/s'),
                               'lat': (-0.5, 's')})])
    assert [ln.split() for ln in text.splitlines()[3:]] == [
        ['figure', 'unit', 'n=1', 'n=2'], ['pass', 'pass'],
        ['bw', 'B', '1.25', '-1.75'], ['ops', 'op/s', '1234', '99.9'],
        ['lat', 's', '0.013', '-0.5']]


def test_the_labels_of_a_sweep(tmp_path):
    text = _family(tmp_path, [
        _case('s_check %Xs=1 %o=a=b %k=same', {'bw': (1.0, 'B')}),
        _case('s_check %Xs=2 %o=c=d %k=same', {'bw': (2.0, 'B')},
              partition='gpu')])
    lines = text.splitlines()
    assert lines[2] == 's_check on hawk:cpu, hawk:gpu'
    assert lines[3].split('  ')[3:] == ['Xs=1 o=a=b @hawk:cpu',
                                        'Xs=2 o=c=d @hawk:gpu']


def test_a_report_without_its_skip_count_says_0(tmp_path):
    text = _family(tmp_path, [_case('a_check', {'bw': (1.0, 'B')})],
                   num_skipped=None)
    assert text.startswith('pfsbench summary of session 01234567: 1 '
                           'case(s), 0 failure(s), 0 skipped (')


def test_a_log_not_in_utf8_still_gives_its_reasons(tmp_path):
    log = (b'session 0123456789abcdef \xff\n[     SKIP ] ( 1/1) d_check '
           b'/aaaaaaaa @hawk:cpu+builtin [needs \xfe2 nodes]\n')
    text = _family(tmp_path, [_skip('d_check', 'aaaaaaaa', 'dd')], log=log)
    assert '  1 case(s) skip: needs \ufffd2 nodes' in text


def test_a_skipped_case_without_its_file_has_no_family():
    skipped = _case('d_check', {}, result='skip')
    skipped.pop('filename', None)
    assert summary.skipped_by_family([skipped]) == {'': (1, ['hawk:cpu'])}
