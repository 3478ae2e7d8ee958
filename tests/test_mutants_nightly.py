# SPDX-License-Identifier: BSD-3-Clause
"""What a nightly runs and costs (pfsbench.plan.nightly) through plan(),
the selection (ReFrame's listing) stood in for: the survivors of
bench/mutation.py's run of the module that tests/test_mutants_plan.py
let through (docs/mutation.md).  Pure and fast."""

import pytest

from pfsbench.plan import nightly as plans
from pfsbench.plan.selection import Selection

#: A bandwidth case on each of two targets, the second of scope node.
PART = {'name': 'cpu', 'extras': {'max_nodes': 2, 'targets': [
    {'name': 'scratch'}, {'name': 'local', 'scope': 'node'}]}}


def _case(name, target, nodes=None):
    case = {'display_name': name, 'target': target,
            '@file': '/r/reframe-checks/ior/c.py'}
    if nodes is not None:
        case['nodes'] = nodes
    return case


@pytest.fixture
def selected(monkeypatch):
    """``selection.select`` giving the cases of ``state['runs']`` at the
    seconds of ``state['seconds']`` (limits ten times those, every case
    over its limit on a first night); every call's arguments."""
    state = {'calls': [], 'runs': [], 'seconds': {}}

    def select(config_dir, spec, system, part, tags, runs_dir):
        state['calls'].append((config_dir, spec, system, part, tags,
                               runs_dir))
        seconds = state['seconds']
        return Selection(
            runs=list(state['runs']), skips={}, here=False, past={},
            limits={n: 10 * s for n, s in seconds.items()},
            first={n: (s, 'w') for n, s in seconds.items()},
            over_limit={n: (100 * s, 10 * s, 'x')
                        for n, s in seconds.items()})
    monkeypatch.setattr(plans.selection, 'select', select)
    return state


def test_the_selection_is_of_the_system_and_partition_given(selected):
    selected['runs'] = [_case('a', 'scratch')]
    selected['seconds'] = {'a': 10}
    system = {'name': 'hawk'}
    got = plans.plan('/cfg', 'hawk:cpu', system, PART, ['E1'], 2, '/runs')
    assert selected['calls'] == [('/cfg', 'hawk:cpu', system, PART, ['E1'],
                                  '/runs')]
    assert got.why == ''


def test_a_shared_targets_coverage_comes_before_a_node_targets(selected):
    # 0.5 h: 1800 s holds 5 repeats of b (360 s) alone; a (200 s) is
    # cheaper but on a node's own directory, after the shared coverage.
    selected['runs'] = [_case('a', 'local'), _case('b', 'scratch')]
    selected['seconds'] = {'a': 200, 'b': 360}
    got = plans.plan('/cfg', 'hawk:cpu', {}, PART, ['E1'], 5, '/runs',
                     budget=0.5)
    assert (got.cases, got.repeat, got.estimate_s) == (1, 5, 1800)
    assert [ln for ln in got.text.splitlines()
            if ln.startswith('case')] == ['case b']
    # only the planned case's cut is told
    assert [k.split(':')[0] for k in got.killed] == ['b']


def test_a_budget_is_hours_of_3600_seconds(selected):
    # 5 x 360.05 s is more than 0.5 h by a quarter of a second: 1 repeat
    selected['runs'] = [_case('a', 'scratch')]
    selected['seconds'] = {'a': 360.05}
    got = plans.plan('/cfg', 'hawk:cpu', {}, PART, ['E1'], 5, '/runs',
                     budget=0.5)
    assert (got.cases, got.repeat) == (1, 1)


def test_a_case_fits_on_as_many_nodes_as_it_needs(selected):
    selected['runs'] = [_case('a', 'scratch', nodes=2),
                        _case('b', 'scratch'), _case('c', 'scratch', 3)]
    selected['seconds'] = {'a': 10, 'b': 10, 'c': 10}
    got = plans.plan('/cfg', 'hawk:cpu', {}, PART, ['E1'], 5, '/runs',
                     budget=1)
    assert [ln for ln in got.text.splitlines()
            if ln.startswith('case')] == ['case a', 'case b']
    one = plans.plan('/cfg', 'hawk:cpu', {}, PART, ['E1'], 5, '/runs',
                     budget=1, nodes=1)
    assert [ln for ln in one.text.splitlines()
            if ln.startswith('case')] == ['case b']

