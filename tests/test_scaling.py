# SPDX-License-Identifier: BSD-3-Clause
"""Scaling efficiency and saturation on figures seed 004 published
(tests/data/seeds/004, "2.0 perf numbers" and "1.8 perf numbers")."""

import pytest

from pfsbench.gate.statistics.scaling import saturation_point, scaling_steps

NP = [1, 2, 4, 8, 16, 32, 64]
#: Lustre 2.0, multi-client MDSRATE stat (ops/s).
MDSRATE_STAT = [20723.21, 38718.54, 71319.94, 136389.06, 237378.41,
                21183.94, 14156.72]
#: Lustre 1.8, multi-client METABENCH create in different directories,
#: NP 1, 3, 7, 15, 31, 63 (the table's second "1" column).
METABENCH_NP = [1, 3, 7, 15, 31, 63]
METABENCH_CREATE = [2467.97, 6646.26, 12479.9, 15539.1, 14724.06, 12247.42]
#: Lustre 2.0, single-client MDTEST file create: still scaling at 64.
MDTEST_FILE_CREATE = [28.07, 52.16, 94.45, 163.72, 276.43, 438.82, 778.78]


def test_stat_saturates_where_the_source_says():
    # "It seems are cpu get saturated at $NP=16."
    point = saturation_point(zip(NP, MDSRATE_STAT))
    assert point.processes == 16
    assert point.speedup == pytest.approx(237378.41 / 20723.21)
    steps = scaling_steps(zip(NP, MDSRATE_STAT))
    # Near-linear up to 8, then the collapse past the saturation point.
    assert steps[3].efficiency == pytest.approx(
        136389.06 / 20723.21 / 8)
    assert steps[3].efficiency > 0.8 > steps[5].efficiency


def test_metabench_create_peaks_at_15():
    assert saturation_point(zip(METABENCH_NP, METABENCH_CREATE)) \
        .processes == 15


def test_a_sweep_that_never_saturates_ends_at_its_largest_count():
    assert saturation_point(zip(NP, MDTEST_FILE_CREATE)).processes == 64


def test_a_gain_below_the_threshold_does_not_move_the_point():
    points = [(1, 100.0), (2, 190.0), (4, 195.0), (8, 196.0)]
    assert saturation_point(points).processes == 2
    assert saturation_point(points, min_gain=0.01).processes == 4


@pytest.mark.parametrize('points', [[], [(1, 10.0), (1, 12.0)],
                                    [(1, 0.0), (2, 3.0)]])
def test_bad_points_are_refused(points):
    with pytest.raises(ValueError):
        scaling_steps(points)
