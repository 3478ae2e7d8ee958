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
