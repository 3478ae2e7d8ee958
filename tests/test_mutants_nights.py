# SPDX-License-Identifier: BSD-3-Clause
"""Each case's nights as nightly-plan sizes them (pfsbench.plan.nights)
through case_nights: the mutants bench/mutation.py found the planner's
tests letting through (docs/mutation.md).  SQLite only: pure and fast."""

from pfsbench.core import fields
from pfsbench.gate.judge.config import GateConfig, Override
from pfsbench.gate.statistics.stats import night_moments
from pfsbench.plan.nights import case_nights
import synth

DAY = 86400.0


def _night(uuid, night, bw):
    """One session: ``ior`` on partition ``cpu`` of ``hawk`` with three
    usable repeats of ``bw``, and what the planner must not count: a
    repeat that failed its sanity, one contended, one without a value,
    one infinite, the same case elsewhere, another case."""
    cases = []

    def case(name, perf, **kwargs):
        kwargs.setdefault('system', 'hawk')
        kwargs.setdefault('partition', 'cpu')
        cases.append(synth.make_testcase(uuid, 0, len(cases), name, perf,
                                         repeat=len(cases), **kwargs))
    for value in bw:
        case('ior', {'bw': (value, 'MB/s'), 'lat': (1.0, 's'),
                     'noisy': (5.0, 'MB/s')})
    case('ior', {'bw': (1.0, 'MB/s')}, result='fail', fail_phase='sanity')
    case('ior', {'bw': (bw[0], 'MB/s')}, result='fail',
         fail_phase='performance')
    case('ior', {'bw': (1.0, 'MB/s')}, loggable={fields.CONTENDED: True})
    case('ior', {'bw': (None, 'MB/s'), 'lat': (float('inf'), 's')})
    case('ior', {'bw': (1.0, 'MB/s')}, system='other')
    case('ior', {'bw': (1.0, 'MB/s')}, partition='gpu')
    case('dd', {'bw': (7.0, 'MB/s')})
    return synth.make_report(cases, time_start=night * DAY,
                             session_uuid=uuid)


def _db(tmp_path, nights):
    path = str(tmp_path / 'results.db')
    synth.write_database(path, [_night(f'n{i}', i, bw)
                                for i, bw in enumerate(nights, 1)])
    return path


def test_the_usable_repeats_of_the_cases_named_oldest_first(tmp_path):
    db = _db(tmp_path, [(2.0, 4.0, 6.0), (5.0, 5.0, 8.0)])
    config = GateConfig(overrides=[Override('noisy', unstable=True),
                                   Override('ior.lat', ignore=True)])
    got = case_nights(db, 'hawk', 'cpu', {'ior'}, config)
    assert list(got) == ['ior']
    assert list(got['ior']) == ['bw']
    assert got['ior']['bw'] == [night_moments([2.0, 4.0, 6.0, 2.0]),
                                night_moments([5.0, 5.0, 8.0, 5.0])]
    assert [m.n for m in got['ior']['bw']] == [4, 4]
    both = case_nights(db, 'hawk', 'cpu', {'ior', 'dd'}, GateConfig())
    assert sorted(both) == ['dd', 'ior']
    assert sorted(both['ior']) == ['bw', 'lat', 'noisy']
    assert [m.n for m in both['ior']['lat']] == [3, 3]
    assert case_nights(db, 'hawk', 'cpu', set(), GateConfig()) == {}


def test_the_newest_nights_and_sessions_only(tmp_path):
    db = _db(tmp_path, [(1.0, 1.0, 1.0), (2.0, 2.0, 2.0), (3.0, 3.0, 3.0),
                        (4.0, 4.0, 4.0)])
    means = [m.mean for m in case_nights(
        db, 'hawk', 'cpu', {'ior'}, GateConfig(lookback_nights=2))[
        'ior']['bw']]
    assert means == [3.0, 4.0]
    means = [m.mean for m in case_nights(
        db, 'hawk', 'cpu', {'ior'}, GateConfig(history_sessions=3))[
        'ior']['bw']]
    assert means == [2.0, 3.0, 4.0]


def test_a_wild_repeat_is_measured_by_the_nights_before(tmp_path):
    db = _db(tmp_path, [(10.0, 10.5, 11.0)] * 5 + [(10.0, 10.5, 100.0)])
    got = case_nights(db, 'hawk', 'cpu', {'ior'}, GateConfig())['ior']['bw']
    assert [m.n for m in got] == [4, 4, 4, 4, 4, 3]
    assert [v for _, v, _ in got[-1].left_out] == [100.0]


def test_each_figure_is_measured_by_its_own_nights_before(tmp_path):
    # bw's nights are quiet, lat's broad: bw's wild repeat tonight is wild
    # by bw's own spread, not by one pooled with lat's.
    nights = []
    for i in range(6):
        bw = (10.0, 10.5, 100.0 if i == 5 else 11.0)
        cases = [synth.make_testcase(
            f'n{i}', 0, r, 'ior', {'bw': (b, 'MB/s'), 'lat': (lat, 's')},
            system='hawk', partition='cpu', repeat=r)
            for r, (b, lat) in enumerate(zip(bw, (1.0, 5.0, 25.0)))]
        nights.append(synth.make_report(cases, time_start=(i + 1) * DAY,
                                        session_uuid=f'n{i}'))
    path = str(tmp_path / 'results.db')
    synth.write_database(path, nights)
    got = case_nights(path, 'hawk', 'cpu', {'ior'}, GateConfig())['ior']
    assert [m.n for m in got['bw']] == [3, 3, 3, 3, 3, 2]
    assert [v for _, v, _ in got['bw'][-1].left_out] == [100.0]
    assert [m.n for m in got['lat']] == [3] * 6
