# SPDX-License-Identifier: BSD-3-Clause
"""Property-based tests (Hypothesis) of the whole gate: any figure series
a check can log (zeros, constants, one sample, one night, lower-is-better
figures, missing nights, huge and tiny values) gives a verdict through
``pfsbench baseline record`` and ``pfsbench gate`` (history, lookback and
interval rules, change points, every report format), never a traceback;
NaN or infinity give a one-line error naming the case and the figure.

Each example writes a small ReFrame database in the shape of ReFrame's
(tests/synth.py) into its own temporary directory.
"""

import json
import math
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import pytest

import synth
from pfsbench import cli
from pfsbench.gate.judge import lookback
from pfsbench.gate.judge.rule import VERDICTS, judge, judge_nights
from pfsbench.gate.statistics.stats import Moments, moments

CASE = 'dd_stream_per_node %nodes=1'
OTHER = 'dd_stream_per_node %nodes=2'
DAY = 86400.0
#: A higher-is-better and a lower-is-better figure, as dd logs them.
UNITS = {'write_bw': 'MB/s', 'start_skew': 's'}
GATE_VERBS = ['baseline', 'gate', 'report']

# From a skew of a nanosecond to a rate of a petabyte per second, and
# beyond both by a few orders of magnitude.
sizes = st.floats(min_value=1e-12, max_value=1e18, allow_nan=False,
                  allow_infinity=False)
value = st.one_of(st.just(0.0), sizes, st.sampled_from([1.0, 100.0]))


@st.composite
def night_values(draw, kind, constant, nights):
    """Per night, the repeats of one figure, or ``None`` (the case did
    not run that night)."""
    out = []
    for i in range(nights):
        # The first night (the baseline) and the last (tonight) ran.
        if 0 < i < nights - 1 and draw(st.booleans()) and \
                draw(st.booleans()):
            out.append(None)
            continue

        repeats = draw(st.integers(1, 4))
        if kind == 'constant':
            out.append([constant] * repeats)
        elif kind == 'free':
            out.append(draw(st.lists(value, min_size=repeats,
                                     max_size=repeats)))
        else:  # a level with a relative spread, maybe a step
            scale = constant * (0.5 if i >= nights // 2 and
                                kind == 'step' else 1.0)
            out.append([scale * (1.0 + draw(st.floats(-0.2, 0.2)))
                        for _ in range(repeats)])

    return out


@st.composite
def series(draw):
    nights = draw(st.integers(1, 9))
    figures = {}
    for var in UNITS:
        kind = draw(st.sampled_from(['constant', 'free', 'noisy', 'step']))
        constant = draw(st.one_of(st.just(0.0), sizes)) \
            if kind == 'constant' else draw(sizes)
        figures[var] = draw(night_values(kind, constant, nights))

    # A figure missing on a night is the case not running that night.
    for i in range(nights):
        if any(f[i] is None for f in figures.values()):
            for f in figures.values():
                f[i] = None

    return figures


def _database(path, figures, bad=None):
    """A database of one session per night; ``bad`` = ``(night, var,
    value)`` puts a value such as NaN into that night's first repeat."""
    reports = []
    nights = len(next(iter(figures.values())))
    for i in range(nights):
        uuid = f'{i:08d}-0000-4000-8000-000000000000'
        cases = []
        if figures['write_bw'][i] is not None:
            repeats = max(len(f[i]) for f in figures.values())
            for r in range(repeats):
                perf = {var: (f[i][min(r, len(f[i]) - 1)], UNITS[var])
                        for var, f in figures.items()}
                if bad and bad[0] == i and r == 0:
                    perf[bad[1]] = (bad[2], UNITS[bad[1]])

                cases.append(synth.make_testcase(
                    uuid, 0, len(cases), CASE, perf,
                    repeat=r if repeats > 1 else None, time=i * DAY + r))

        # Another case runs every night, so that a night without CASE is
        # still a session.
        cases.append(synth.make_testcase(
            uuid, 0, len(cases), OTHER, {'write_bw': (100.0, 'MB/s')},
            time=i * DAY + 10))
        reports.append(synth.make_report(cases, time_start=i * DAY,
                                         session_uuid=uuid))

    synth.write_database(str(path), reports)
    return [r['session_info']['uuid'] for r in reports]


def _cli(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _one_line(err):
    assert err.startswith('pfsbench: error: ') and err.count('\n') == 1, err
    assert 'Traceback' not in err


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@SETTINGS
@given(figures=series(), rule=st.sampled_from(['lookback', 'interval']),
       level=st.sampled_from(['baseline', 'recent']))
# Found by Hypothesis: nights 17 orders of magnitude above tonight make
# a change of exactly -100 % (no level to show).
@example(figures={
    'write_bw': [[4.9e16, 4.9e16], [4.9e16, 4.9e16], [4.9e16, 5.9e16],
                 [4.6e16, 4.9e16], [2.2e16, 2.5e16], None, [2.4e16, 2.8e16],
                 [2.5e16, 2.5e16]],
    'start_skew': [[6.7e16, 7.9e17, 100.0], [4.1e15, 100.0, 1.0],
                   [2.3e17, 0.0, 100.0], [0.0, 0.0, 4.3e17, 1.0],
                   [1.0, 1.0, 100.0], None, [0.0, 0.0, 4.3e17, 1.0],
                   [1.0, 0.0, 0.0]]}, rule='lookback', level='baseline')
@pytest.mark.rates
def test_any_series_gets_a_verdict_and_every_report(figures, rule, level,
                                                   capsys, monkeypatch):
    monkeypatch.setattr(cli.entry, 'VERBS', GATE_VERBS)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        db = tmp / 'runs' / 'results.db'
        db.parent.mkdir()
        uuids = _database(db, figures)
        conf = tmp / 'gate.yaml'
        conf.write_text(f'rule: {rule}\nlookback: {{level: {level}}}\n'
                        'changepoints: {min_segment: 2}\n')
        code, out, err = _cli(['baseline', 'record', 'base', '--db', str(db),
                               '--session', uuids[0]], capsys)
        assert code == 0, err
        saved = tmp / 'gate.json'
        code, out, err = _cli(
            ['gate', '-b', 'base', '--db', str(db), '--config', str(conf),
             '--format', 'json', '--json', str(saved), '--all-figures',
             '--markdown', str(tmp / 'gate.md'), '--junit',
             str(tmp / 'gate.xml'), '--html', str(tmp / 'gate.html')],
            capsys)
        assert code in (0, 1, 3), err
        record = json.loads(out)
        rows = {r['var']: r for r in record['results'] if r['case'].startswith(
            CASE + ' ')}
        assert set(rows) == set(UNITS), record
        for row in rows.values():
            assert row['verdict'] in VERDICTS, row
            assert row['reason'], row

        # Zeros: a figure that is 0 on the baseline's night and tonight
        # did not change.
        for var, row in rows.items():
            if not any(figures[var][0]) and not any(figures[var][-1]):
                assert row['verdict'] == 'pass', row

        for fmt in ('text', 'markdown', 'html', 'junit'):
            assert _cli(['report', str(saved), '--format', fmt],
                        capsys)[0] == code


@settings(SETTINGS, max_examples=25)
@given(figures=series(), var=st.sampled_from(sorted(UNITS)),
       bad=st.sampled_from([math.nan, math.inf, -math.inf]),
       tonight=st.booleans())
def test_nan_or_infinity_is_a_one_line_error_naming_case_and_figure(
        figures, var, bad, tonight, capsys, monkeypatch):
    monkeypatch.setattr(cli.entry, 'VERBS', GATE_VERBS)
    night = len(figures[var]) - 1 if tonight else 0
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / 'results.db'
        uuids = _database(db, figures, bad=(night, var, bad))
        record = ['baseline', 'record', 'base', '--db', str(db), '--session',
                  uuids[0]]
        code, _, err = _cli(record, capsys)
        if night == 0:
            # The baseline refuses it.
            assert code in (2, 3), err
            _one_line(err)
            assert CASE in err and f'{var}: {bad!r}' in err, err
            return

        assert code == 0, err
        code, out, err = _cli(['gate', '-b', 'base', '--db', str(db)],
                              capsys)
        assert code in (2, 3), out + err
        assert 'Traceback' not in err
        line = [ln for ln in (out + err).splitlines()
                if f'{var}: {bad!r}: not a finite number' in ln]
        assert line and CASE in line[0], out + err


nights_st = st.lists(st.builds(
    lambda m, cv, n: moments([m * (1 + cv * (-1) ** k) for k in range(n)]),
    st.one_of(st.just(0.0), sizes), st.floats(0.0, 0.5), st.integers(1, 5)),
    min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(level=nights_st, history=nights_st, current=nights_st,
       direction=st.sampled_from(['higher', 'lower']),
       markers=st.lists(st.booleans(), max_size=12))
def test_the_rules_give_a_verdict_for_any_nights(level, history, current,
                                                 direction, markers):
    tonight = current[-1]
    segments = lookback.split_at_markers(history, markers + [False] * 12)
    out = judge_nights(level, tonight, segments, 0.05, direction, 0.10,
                       confidence=0.98)
    if lookback.not_positive(level, tonight, segments) and out is not None:
        # Nights at 0 go to the interval rule, unless 0 stays 0.
        assert out['verdict'] == 'pass' and tonight.mean == 0
    if out is not None:
        assert out['verdict'] in VERDICTS and out['reason']
        return

    base = [n.mean for n in level]
    out = judge(base, [n.mean for n in current], 0.05, direction,
                moments=(level[0], tonight))
    assert out['verdict'] in VERDICTS and out['reason']


def test_a_constant_figure_passes_and_a_constant_zero_too():
    for value in (0.0, 3.0):
        nights = [Moments(value, 0.0, 5) for _ in range(10)]
        for direction in ('higher', 'lower'):
            out = judge_nights(nights[:5], Moments(value, 0.0, 5),
                               [nights], 0.05, direction, 0.10)
            assert out['verdict'] == 'pass', out


def test_a_lower_is_better_figure_at_0_for_weeks_then_0_again_passes():
    # start_skew of one stream: 0 every night, a history of four weeks.
    weeks = [Moments(0.0, 0.0, 3) for _ in range(28)]
    out = judge_nights(weeks[:5], Moments(0.0, 0.0, 3), [weeks], 0.05,
                       'lower', 0.10)
    assert out['verdict'] == 'pass' and out['change'] == 0.0
    # Positive nights beside the zeros: the interval rule judges, and 0
    # tonight is nothing worse for a lower-is-better figure.
    mixed = weeks[:10] + [Moments(0.002, 1e-7, 3)] * 5
    assert judge_nights(mixed[-5:], Moments(0.0, 0.0, 3), [mixed], 0.05,
                        'lower', 0.10) is None
    out = judge([0.002, 0.0021, 0.0019], [0.0, 0.0, 0.0], 0.05, 'lower')
    assert out['verdict'] == 'pass' and out['change'] == -1.0


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.one_of(st.just(0.0), sizes), min_size=1,
                       max_size=6),
       scale=st.one_of(st.none(), st.just(0.0),
                       st.floats(min_value=1e-9, max_value=10.0)))
def test_a_short_night_by_a_pooled_scale_keeps_most_of_it(values, scale):
    # Whatever the figure's other nights say: fewer than half left out,
    # none of a night of 1 or 2, and a mean among the repeats.
    night = lookback.night_moments(values, scale)
    assert 2 * night.n > len(values)
    assert night.n == len(values) or len(values) >= 3
    assert min(values) * (1 - 1e-9) <= night.mean <= max(values) * (1 + 1e-9)
    assert night.variance is None or night.variance >= 0.0
    assert len(night.left_out) == len(values) - night.n


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.one_of(st.just(0.0), sizes), min_size=1,
                       max_size=12))
def test_a_night_without_its_wild_repeats_keeps_most_of_them(values):
    night = lookback.night_moments(values)
    # Wild means beyond 8 MADs of the median: never half the night.
    assert 2 * night.n > len(values)
    assert min(values) * (1 - 1e-9) <= night.mean <= max(values) * (1 + 1e-9)
    assert night.variance is None or night.variance >= 0.0
