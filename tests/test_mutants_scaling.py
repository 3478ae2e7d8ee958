# SPDX-License-Identifier: BSD-3-Clause
"""A sweep's scaling and saturation (pfsbench.gate.statistics.scaling)
through its public functions, one test per mutant that bench/mutation.py
found the rest of the fast lane letting through (docs/mutation.md)."""

import pytest

from pfsbench.gate.statistics import scaling


def test_efficiency_is_against_the_smallest_count_not_one():
    steps = scaling.scaling_steps([(8, 300.0), (2, 100.0), (4, 180.0)])
    assert [s.processes for s in steps] == [2, 4, 8]
    assert [s.speedup for s in steps] == [1.0, 1.8, 3.0]
    assert [s.efficiency for s in steps] == [1.0, 0.9, 0.75]


@pytest.mark.parametrize('points, message', [
    ([], 'no points to scale'),
    ([(2, 1.0), (2, 2.0)], 'repeated process counts in [2, 2]'),
    ([(0, 1.0), (2, 2.0)],
     'process counts and rates must be positive: [(0, 1.0), (2, 2.0)]'),
    ([(1, 0.5), (2, 0.0)],
     'process counts and rates must be positive: [(1, 0.5), (2, 0.0)]'),
    ([(-1, 1.0), (2, 2.0)],
     'process counts and rates must be positive: [(-1, 1.0), (2, 2.0)]'),
])
def test_bad_points_are_named(points, message):
    with pytest.raises(ValueError) as refused:
        scaling.scaling_steps(points)
    assert str(refused.value) == message


def test_a_rate_of_none_with_a_positive_count_is_refused():
    with pytest.raises(ValueError, match='must be positive'):
        scaling.scaling_steps([(1, 1.0), (2, None)])


def test_a_rate_below_one_is_a_rate():
    steps = scaling.scaling_steps([(1, 0.5), (2, 0.75)])
    assert steps[1].speedup == 1.5


def test_a_gain_of_exactly_min_gain_still_scales():
    # 2 * (1 + 0.5) == 3.0 exactly: the later point beats it by min_gain.
    step = scaling.saturation_point([(1, 2.0), (2, 3.0), (4, 3.0)],
                                    min_gain=0.5)
    assert step.processes == 2
