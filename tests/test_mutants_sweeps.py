# SPDX-License-Identifier: BSD-3-Clause
"""The scaling sweeps of a session (pfsbench.gate.judge.sweeps) through
its public functions, one test per mutant that bench/mutation.py found the
rest of the fast lane letting through (docs/mutation.md).

The sessions are a stand-in for
:class:`pfsbench.gate.history.results.Results` with what ``sweeps`` reads:
``sessions[uuid].time_start``, ``figures(uuid)`` (per case, its
configuration and ``{var: (mean, samples)}``) and ``case_records(uuid)``
(per case, records whose ``perf`` gives each variable's unit)."""

import re
from types import SimpleNamespace

import pytest

from pfsbench.gate.history.keys import CaseKey
from pfsbench.gate.judge import sweeps


class _Results:
    """``{uuid: (time_start, {name: (config, {var: (mean, samples)}),
    units})}``: each case's figures and the units of its variables."""

    def __init__(self, sessions, units):
        self.sessions = {u: SimpleNamespace(time_start=t)
                         for u, (t, _) in sessions.items()}
        self._cases = {u: {CaseKey(n, 'sys', 'part', 'env'): v
                           for n, v in cases.items()}
                       for u, (_, cases) in sessions.items()}
        self._units = units

    def figures(self, uuid):
        return {k: [(config, values, 'more')]
                for k, (config, values) in self._cases[uuid].items()}

    def case_records(self, uuid):
        return {k: [SimpleNamespace(perf={v: (0.0, self._units[v])
                                          for v in values})]
                for k, (_, values) in self._cases[uuid].items()}


UNITS = {'write_cpu_util': '%', 'write_bw': 'MB/s',
         'write_bw_mean': 'MB/s', 'write_bw_stddev': 'MB/s',
         'read_bw_max': 'MB/s', 'create_device_write_mib_s': 'MiB/s',
         'note': None, 'file_create': 'ops/s', 'create_cpu_util': '%'}


def _case(write, read, create=(10.0, [9.0, 11.0]), config=None):
    values = {'write_cpu_util': (50.0, [50.0]), 'write_bw': write,
              'write_bw_mean': write, 'write_bw_stddev': (1.0, [1.0]),
              'read_bw_max': read,
              'create_device_write_mib_s': (3.0, [3.0]),
              'note': (1.0, [1.0]), 'file_create': create,
              'create_cpu_util': (40.0, [40.0])}
    return (config or {}, values)


N1, N2, N4 = ('chk %nodes=1 %mode=a', 'chk %nodes=2 %mode=a',
              'chk %nodes=4 %mode=a')


def _night():
    """Session 'b-old' (older, its uuid sorting last) holds the three
    counts; 'a-new' the counts 2 and 4 again: the latest of each case."""
    old = {N1: _case((100.0, [90.0, 110.0]), (10.0, [10.0])),
           N2: _case((1.0, [1.0]), (1.0, [1.0])),
           N4: _case((1.0, [1.0]), (1.0, [1.0]))}
    new = {N2: _case((180.0, [170.0, 190.0]), (20.0, [20.0]),
                     create=(21.0, [20.0, 22.0])),
           N4: _case((185.0, [140.0, 230.0]), (40.0, [40.0]),
                     create=(39.0, [39.0]))}
    return _Results({'b-old': (1.0, old), 'a-new': (2.0, new)}, UNITS)


def test_a_sweep_record_in_full():
    found = sweeps.sweeps(_night(), ['b-old', 'a-new'])
    assert [s['var'] for s in found] == ['file_create', 'read_bw_max',
                                         'write_bw']
    write = found[2]
    assert write == {
        'check': 'chk', 'system': 'sys', 'partition': 'part',
        'environ': 'env', 'fixed': {'mode': 'a'}, 'swept': 'nodes',
        'var': 'write_bw', 'unit': 'MB/s', 'session': 'b-old',
        'steps': [
            {'processes': 1, 'value': '1', 'case': N1, 'rate': 100.0,
             'n': 2, 'min': 90.0, 'max': 110.0, 'speedup': 1.0,
             'efficiency': 1.0, 'cpu_util_pct': None},
            {'processes': 2, 'value': '2', 'case': N2, 'rate': 180.0,
             'n': 2, 'min': 170.0, 'max': 190.0, 'speedup': 1.8,
             'efficiency': 0.9, 'cpu_util_pct': None},
            {'processes': 4, 'value': '4', 'case': N4, 'rate': 185.0,
             'n': 2, 'min': 140.0, 'max': 230.0, 'speedup': 1.85,
             'efficiency': 0.4625, 'cpu_util_pct': None}],
        'saturation': {'processes': 2, 'rate': 180.0, 'efficiency': 0.9},
        'saturated': True,
        'peak': {'processes': 4, 'value': '4', 'case': N4, 'rate': 185.0,
                 'n': 2},
    }
    # The sweep that keeps scaling is not saturated.
    assert found[1]['saturated'] is False
    assert found[1]['saturation']['processes'] == 4
    assert [s['cpu_util_pct'] for s in found[0]['steps']] == [40.0] * 3


def test_the_peak_is_by_the_mean_and_a_tie_goes_to_the_smaller_count():
    found = sweeps.sweeps(_night(), ['b-old', 'a-new'])
    assert found[0]['peak']['processes'] == 4
    tie = _Results({'s': (1.0, {N1: _case((5.0, [1.0]), (5.0, [9.0])),
                                N2: _case((5.0, [9.0]), (5.0, [1.0]))})},
                   UNITS)
    peaks = {s['var']: s['peak']['processes']
             for s in sweeps.sweeps(tie, ['s'])}
    assert peaks['write_bw'] == 1 and peaks['read_bw_max'] == 1


def test_the_peak_reads_the_mean_not_the_samples():
    night = _Results({'s': (1.0, {
        N1: _case((150.0, [90.0, 210.0]), (1.0, [1.0])),
        N2: _case((140.5, [140.0, 141.0]), (2.0, [2.0]))})}, UNITS)
    write = [s for s in sweeps.sweeps(night, ['s'])
             if s['var'] == 'write_bw']
    assert write and write[0]['peak']['processes'] == 1


def test_a_figure_missing_or_not_positive_at_one_count_is_no_sweep():
    missing = _case((100.0, [100.0]), (1.0, [1.0]))
    del missing[1]['read_bw_max']
    for bad in (missing, _case((0.0, [0.0]), (0.0, [0.0]))):
        night = _Results({'s': (1.0, {N1: bad, N2: _case(
            (200.0, [200.0]), (2.0, [2.0]))})}, UNITS)
        found = {s['var'] for s in sweeps.sweeps(night, ['s'])}
        assert 'file_create' in found and 'read_bw_max' not in found
    small = _Results({'s': (1.0, {N1: _case((0.5, [0.5]), (0.5, [0.5])),
                                  N2: _case((0.75, [0.75]), (1.0, [1.0]))})},
                     UNITS)
    assert {s['var'] for s in sweeps.sweeps(small, ['s'])} == \
        {'file_create', 'read_bw_max', 'write_bw'}


def test_the_name_filter_keeps_matching_cases_only():
    cases = {'other %nodes=1': _case((1.0, [1.0]), (1.0, [1.0])),
             N1: _case((1.0, [1.0]), (1.0, [1.0])),
             N2: _case((2.0, [2.0]), (2.0, [2.0])),
             'other %nodes=2': _case((2.0, [2.0]), (2.0, [2.0]))}
    night = _Results({'s': (1.0, cases)}, UNITS)
    kept = sweeps.sweeps(night, ['s'], name_filter=re.compile('^chk'))
    assert kept and {s['check'] for s in kept} == {'chk'}
    assert {s['check'] for s in sweeps.sweeps(night, ['s'])} == \
        {'chk', 'other'}


@pytest.mark.parametrize('tasks, want', [
    ((1, 3), [1, 3]),        # ReFrame's num_tasks, 1 included
    ((0, 0), [2, 4]),        # none logged: the swept value
    ((None, None), [2, 4]),
    ((True, True), [2, 4]),
])
def test_processes_are_num_tasks_else_the_swept_value(tasks, want):
    cases = {f'chk %threads={t}': _case((t * 1.0, [1.0]), (1.0, [1.0]),
                                        config={'num_tasks': n})
             for t, n in zip((2, 4), tasks)}
    night = _Results({'s': (1.0, cases)}, UNITS)
    (write,) = [s for s in sweeps.sweeps(night, ['s'])
                if s['var'] == 'write_bw']
    assert [s['processes'] for s in write['steps']] == want


def test_one_point_is_no_sweep_and_two_are_one():
    lone = _Results({'s': (1.0, {N1: _case((1.0, [1.0]), (1.0, [1.0]))})},
                    UNITS)
    assert sweeps.sweeps(lone, ['s']) == []
    two = _Results({'s': (1.0, {N1: _case((1.0, [1.0]), (1.0, [1.0])),
                                'chk %nodes=2 %mode=b': _case(
                                    (1.0, [1.0]), (1.0, [1.0])),
                                N2: _case((2.0, [2.0]), (2.0, [2.0]))})},
                   UNITS)
    found = sweeps.sweeps(two, ['s'])
    assert {s['fixed']['mode'] for s in found} == {'a'}
    assert len(found) == 3


def test_every_family_gives_its_sweeps():
    cases = {name: _case((float(n), [1.0]), (1.0, [1.0]))
             for n, name in ((1, 'x %np=1'), (2, 'x %np=2'),
                             (1, 'y %np=1'), (2, 'y %np=2'))}
    found = sweeps.sweeps(_Results({'s': (1.0, cases)}, UNITS), ['s'])
    assert sorted({s['check'] for s in found}) == ['x', 'y']


def test_title_names_the_sweep():
    sweep = {'check': 'chk', 'fixed': {'mode': 'a', 'kind': 'b'},
             'system': 'sys', 'partition': 'p', 'environ': 'e',
             'swept': 'nodes'}
    assert sweeps.title(sweep) == 'chk mode=a kind=b @sys:p+e, over nodes'
    sweep['fixed'] = {}
    assert sweeps.title(sweep) == 'chk @sys:p+e, over nodes'
