# SPDX-License-Identifier: BSD-3-Clause
"""Any value, anywhere a run report or a baseline file holds a number
(issue 33): 1e308, infinity, NaN, -0.0, subnormals, iteration counts of
10**400, times past the year 9999.  ``pfsbench baseline record`` and
``pfsbench gate`` answer each with a verdict or with one line naming the
field and the value, exit 2 or 3; never a traceback (a figure of 1e308
ended ``pfsbench gate`` in ``OverflowError``: ``fsum``'s intermediate
overflow).

Hypothesis draws the values and where they go: the run reports the gate
reads (``--report``) and the baseline file it is given.
"""

import json
import math
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import synth
from pfsbench import cli

GATE_VERBS = ['baseline', 'gate', 'report']
CASE = 'dd_stream_per_node %nodes=1'
DAY = 86400.0

#: Every float (NaN, both infinities, -0.0, subnormals, 1e308), huge
#: integers, and the ordinary values around them.
hostile = st.one_of(
    st.floats(),
    st.sampled_from([1e308, -1e308, math.inf, -math.inf, math.nan, -0.0,
                     5e-324, 2.2250738585072014e-308, 1e-100, 1e100,
                     1.7976931348623157e308]),
    st.integers(min_value=-10 ** 400, max_value=10 ** 400),
    st.sampled_from([10 ** 400, 2 ** 63, 10 ** 30]))

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _report(night, values, *, iterations=None, time_start=None,
            completion=None):
    uuid = f'{night:08d}-0000-4000-8000-000000000000'
    start = night * DAY if time_start is None else time_start
    cases = []
    for r, value in enumerate(values):
        loggable = {}
        if iterations is not None:
            loggable = {'repetitions': iterations,
                        'write_bw_mean': value, 'write_bw_stddev': 1.0}
        case = synth.make_testcase(
            uuid, 0, r, CASE, {'write_bw': (value, 'MB/s'),
                               'start_skew': (0.01 * (r + 1), 's')},
            repeat=r, time=night * DAY + r, loggable=loggable)
        if completion is not None:
            case['job_completion_time_unix'] = completion
        cases.append(case)

    return synth.make_report(cases, time_start=start, session_uuid=uuid)


def _write(path, report):
    # json writes NaN and Infinity as Python reads them back; an int of
    # 10**400 stays an int.
    path.write_text(json.dumps(report))
    return str(path)


def _cli(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _judged_or_refused(code, out, err):
    """A verdict (0, 1; 3 with the missing data named), or one line and
    exit 2 or 3: never a traceback."""
    assert 'Traceback' not in out + err
    assert code in (0, 1, 2, 3), (code, out, err)
    if code == 2 or (code == 3 and not out):
        assert err.startswith('pfsbench: error: ') and \
            err.count('\n') == 1, err


@SETTINGS
@given(value=hostile, repeat=st.integers(0, 2), night=st.sampled_from(
    ['baseline', 'history', 'tonight']))
@example(value=1e308, repeat=0, night='tonight')
@example(value=5e-324, repeat=0, night='baseline')
@example(value=-0.0, repeat=1, night='tonight')
@example(value=10_325_270_411_327_542_121_629_483_008, repeat=0,
         night='history')  # the pooled nights' interval overflowed
def test_any_figure_in_a_run_report(value, repeat, night, capsys,
                                    monkeypatch):
    monkeypatch.setattr(cli.entry, 'VERBS', GATE_VERBS)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        values = [200.0, 205.0, 195.0]
        values[repeat] = value
        where = {'baseline': 0, 'history': 2, 'tonight': 4}[night]
        files = [_write(tmp / f'n{n}.json', _report(
            n, values if n == where else [200.0, 210.0, 190.0]))
            for n in range(5)]
        code, out, err = _cli(['baseline', 'record', 'b', '--report',
                               files[0], '--baseline-dir', str(tmp)], capsys)
        _judged_or_refused(code, out, err)
        if code:
            assert night == 'baseline', err
            assert 'write_bw: ' in err and CASE in err, err
            return

        args = ['gate', '-b', 'b', '--baseline-dir', str(tmp), '--format',
                'json']
        for f in files[1:]:
            args += ['--report', f]
        code, out, err = _cli(args, capsys)
        _judged_or_refused(code, out, err)
        if value in (1e308, math.inf) and night == 'tonight':
            # No measurement: the case is missing data, the value named.
            assert code == 3, out + err
            assert f'write_bw: {value!r}' in out + err, out + err


@SETTINGS
@given(count=hostile, time_start=hostile, completion=hostile,
       which=st.sampled_from(['iterations', 'time_start', 'completion']))
@example(count=10 ** 400, time_start=0.0, completion=0.0,
         which='iterations')
@example(count=3, time_start=1e308, completion=0.0, which='time_start')
def test_any_count_or_time_in_a_run_report(count, time_start, completion,
                                          which, capsys, monkeypatch):
    monkeypatch.setattr(cli.entry, 'VERBS', GATE_VERBS)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        kwargs = {'iterations': {'iterations': count},
                  'time_start': {'time_start': time_start},
                  'completion': {'completion': completion}}[which]
        base = _write(tmp / 'base.json', _report(0, [200.0, 210.0, 190.0],
                                                 iterations=5))
        code, out, err = _cli(['baseline', 'record', 'b', '--report', base,
                               '--baseline-dir', str(tmp)], capsys)
        assert code == 0, err
        tonight = _write(tmp / 'tonight.json', _report(
            1, [200.0, 205.0, 195.0], **kwargs))
        code, out, err = _cli(['gate', '-b', 'b', '--baseline-dir', str(tmp),
                               '--report', base, '--report', tonight,
                               '--html', str(tmp / 'g.html')], capsys)
        _judged_or_refused(code, out, err)


def _baseline_file(tmp, capsys):
    base = _write(tmp / 'base.json', _report(0, [200.0, 210.0, 190.0],
                                             iterations=5))
    tonight = _write(tmp / 'tonight.json', _report(1, [200.0, 205.0, 195.0],
                                                   iterations=5))
    code, _, err = _cli(['baseline', 'record', 'b', '--report', base,
                         '--baseline-dir', str(tmp)], capsys)
    assert code == 0, err
    return tmp / 'b.json', base, tonight


#: Where a baseline file holds a number.
PLACES = [('cases', 0, 'perfvars', 'write_bw', 'values', 1),
          ('cases', 0, 'perfvars', 'start_skew', 'values', 0),
          ('cases', 0, 'perfvars', 'write_bw', 'iterations', 2),
          ('cases', 0, 'perfvars', 'write_bw', 'session_index', 0),
          ('sessions', 0, 'time_start'), ('sessions', 0, 'time_end'),
          ('sessions', 0, 'num_cases'), ('format_version',)]


@SETTINGS
@given(value=hostile, place=st.sampled_from(PLACES))
@example(value=1e308, place=PLACES[0])
@example(value=10 ** 400, place=PLACES[2])
def test_any_value_in_a_baseline_file(value, place, capsys, monkeypatch):
    monkeypatch.setattr(cli.entry, 'VERBS', GATE_VERBS)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        path, base, tonight = _baseline_file(tmp, capsys)
        data = json.loads(path.read_text())
        node = data
        for key in place[:-1]:
            node = node[key]
        node[place[-1]] = value
        path.write_text(json.dumps(data))
        code, out, err = _cli(['gate', '-b', 'b', '--baseline-dir', str(tmp),
                               '--report', base, '--report', tonight],
                              capsys)
        _judged_or_refused(code, out, err)
        if place == PLACES[0] and value in (1e308, math.inf):
            assert code == 2, out + err
            assert 'b.json:cases.0.perfvars.write_bw.values.1: ' in err, err
