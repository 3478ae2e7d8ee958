# SPDX-License-Identifier: BSD-3-Clause
"""What a nightly runs and costs (pfsbench.plan.nightly) through plan(),
the selection (ReFrame's listing) stood in for: the mutants
bench/mutation.py found the planner's tests letting through
(docs/mutation.md).  Pure and fast."""

import pytest

from pfsbench.core.errors import ConfigError
from pfsbench.plan import nightly as plans
from pfsbench.plan import planfile
from pfsbench.plan.selection import Selection

RUNS = [{'display_name': 'a', 'nodes': 1, 'target': 'scratch'},
        {'display_name': 'b', 'nodes': 4, 'target': 'local'},
        {'display_name': 'c', 'target': ''}]
PART = {'name': 'cpu', 'extras': {'max_nodes': 4}}


@pytest.fixture
def selected(monkeypatch):
    """``selection.select`` giving :data:`RUNS` at 100, 200, 300 s (limits
    ten times those; ``b`` over its limit on a first night); its calls."""
    calls = []

    def select(config_dir, spec, system, part, tags, runs_dir):
        calls.append((config_dir, spec, tags, runs_dir))
        return Selection(
            runs=list(RUNS), skips={}, here=False, past={},
            limits={'a': 1000, 'b': 2000, 'c': 3000},
            first={'a': (100, 'w'), 'b': (200, 'w'), 'c': (300, 'w')},
            over_limit={'b': (9000, 2000, 'x')})
    monkeypatch.setattr(plans.selection, 'select', select)
    return calls


def test_a_plan_of_the_tags_and_repeats(selected):
    got = plans.plan('/cfg', 'hawk:cpu', {'name': 'hawk'}, PART, ['E1'], 3,
                     '/runs', why='the window')
    assert selected == [('/cfg', 'hawk:cpu', ['E1'], '/runs')]
    assert got == plans.Plan(3, 3, 1800, 18000, ('local', 'scratch'),
                             None, None, 'the window', None,
                             tuple(got.killed))
    assert len(got.killed) == 1 and got.killed[0].startswith('b: ')
    assert got.words == ('3 case(s) x 3 repeat(s) on targets local, '
                         'scratch: about 0.5 h, at most 5.0 h')
    assert plans.Plan(1, 2, 3600, 7200).words == (
        '1 case(s) x 2 repeat(s): about 1.0 h, at most 2.0 h')


def test_a_plan_within_a_budget(selected):
    # 0.25 h: 900 s; 5 repeats of a and b (1500 s) do not fit, of a alone
    # (500 s) they do, then c (2000 s) does not.
    got = plans.plan('/cfg', 'hawk:cpu', {}, PART, ['E1'], 5, '/runs',
                     budget=0.25, write_plan='/p')
    assert (got.cases, got.repeat, got.estimate_s, got.file,
            got.budget) == (1, 5, 500, '/p', 0.25)
    assert got.text == planfile.plan_text(
        'hawk:cpu', ['E1'], 5, [RUNS[0]],
        'pfsbench render nightly --system hawk:cpu --budget 0.25')
    many = plans.plan('/cfg', 'hawk:cpu', {}, PART, ['E1'], 5, '/runs',
                      budget=10, nodes=2)
    assert [ln for ln in many.text.splitlines() if ln.startswith('case')] \
        == ['case a', 'case c']
    assert (many.cases, many.repeat) == (2, 5)      # b needs 4 nodes
    assert many.text.splitlines()[0] == (
        '# pfsbench render nightly --system hawk:cpu --budget 10 --nodes 2')
    with pytest.raises(ConfigError) as err:
        plans.plan('/cfg', 'hawk:cpu', {}, PART, ['E1'], 5, '/runs',
                   budget=0.01)
    assert str(err.value) == ("<command line>:--budget: 0.01: no case "
                              "fits: a larger budget or --nodes")
    with pytest.raises(ConfigError) as err:
        plans.plan('/cfg', 'hawk:cpu', {}, PART, ['E1'], 5, '/runs',
                   nodes=5)
    assert '--nodes: 5: hawk:cpu has 4 node(s)' in str(err.value)


def test_a_budget_on_a_partition_of_unknown_size_takes_every_case(selected):
    got = plans.plan('/cfg', 'h:p', {}, {'name': 'p'}, ['E1'], 1, '/runs',
                     budget=1)
    assert (got.cases, got.repeat) == (3, 1)


def test_a_plan_file_gives_its_cases_and_repeats(selected, tmp_path):
    path = tmp_path / 'plan'
    planfile.write_plan_file(str(path), 'hawk:cpu', ['io'], 7,
                             [RUNS[2], RUNS[0]], 'x')
    got = plans.plan('/cfg', 'hawk:cpu', {}, PART, ['E1'], 2, '/runs',
                     plan_file=str(path))
    assert selected[-1][2] == ['io']
    assert (got.cases, got.repeat, got.estimate_s, got.file, got.text) == (
        2, 7, 2800, str(path), None)
    assert got.targets == ('scratch',)
    with pytest.raises(ConfigError) as err:
        plans.plan('/cfg', 'hawk:gpu', {}, PART, ['E1'], 2, '/runs',
                   plan_file=str(path))
    assert str(err.value) == (f"{path}:system: 'hawk:cpu': the plan is for "
                              f"another partition than --system hawk:gpu")
    path.write_text('system hawk:cpu\nrepeat 1\ntag io\ntag md\ncase a\n'
                    'case z\n')
    with pytest.raises(ConfigError) as err:
        plans.plan('/cfg', 'hawk:cpu', {}, PART, ['E1'], 2, '/runs',
                   plan_file=str(path))
    assert str(err.value) == (f"{path}:case: 'z': not among the cases tags "
                              f"io, md run on hawk:cpu")
