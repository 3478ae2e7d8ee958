# SPDX-License-Identifier: BSD-3-Clause
"""Seed 001's aggregates on the figures its text describes: per-node bonnie
rates "around 400 MB/s, but some nodes reaching values as high as 1300
MB/s", 3 repeats, 64 nodes."""

import statistics

import pytest

from pfsbench.core import aggregate

#: Three repeats on four nodes: n4 is the kind of outlier seed 001 saw.
REPEATS = [[400, 410, 395, 1300], [390, 420, 405, 1250],
           [405, 400, 398, 1280]]


def test_mean_over_repeats_and_plain_sum():
    sums = [aggregate.plain_sum(r) for r in REPEATS]
    assert sums == [2505, 2465, 2483]
    assert aggregate.mean_over_repeats(sums) == pytest.approx(2484.333, 1e-6)


def test_conservative_is_lowest_stream_averaged_times_streams():
    # Lowest per repeat: 395, 390, 398 -> mean 394.33 -> x 4 streams.
    assert aggregate.conservative(REPEATS) == pytest.approx(1577.333, 1e-6)
    assert aggregate.conservative(REPEATS) < aggregate.mean_over_repeats(
        [aggregate.plain_sum(r) for r in REPEATS])


def test_conservative_needs_equal_stream_counts():
    with pytest.raises(ValueError, match='stream counts'):
        aggregate.conservative([[1, 2], [1, 2, 3]])
    with pytest.raises(ValueError):
        aggregate.conservative([])


def _sixty_four_nodes():
    """58 nodes spread 380..437 MB/s and 6 at 1100..1300: seed 001's
    "typical result" on 64 nodes."""
    return [380 + i for i in range(0, 58)] + [1100, 1150, 1200, 1250,
                                              1280, 1300]


def test_trimming_never_keeps_the_outliers():
    values = _sixty_four_nodes()
    kept = aggregate.trimmed_points(values)
    assert kept[:4] == [380, 381, 382, 383]
    assert max(kept) < 1100
    total = aggregate.trimmed(values)
    assert total == pytest.approx(statistics.fmean(kept) * 64)
    assert total < aggregate.plain_sum(values)


def test_trimming_as_the_seed_words_it_keeps_the_four_lowest():
    """Added one by one from the bottom, the highest point of a scattered
    set lies beyond one standard deviation of the set's mean: the rule
    stops at the 4 lowest (reported to the lead as a finding)."""
    assert aggregate.trimmed_points(_sixty_four_nodes()) == [380, 381, 382,
                                                             383]


def test_trimming_keeps_points_that_agree():
    assert aggregate.trimmed_points([400] * 10) == [400] * 10
    assert aggregate.trimmed_points([400, 400, 400, 400, 400, 1300]) == [
        400] * 5
    # Fewer points than the start: all are kept.
    assert aggregate.trimmed_points([1300, 400, 700]) == [400, 700, 1300]


def test_missing_figure_makes_the_aggregate_missing():
    assert aggregate.plain_sum([400, None]) is None
    assert aggregate.mean_over_repeats([400, None]) is None
    assert aggregate.conservative([[400, 410], [None, 420]]) is None
    assert aggregate.trimmed([None, 1, 2]) is None
    assert aggregate.spread_pct([1, None]) is None


def test_spread_and_slowest_node():
    per_node = {'n1': 400.0, 'n2': 1300.0, 'n3': 395.0, 'n4': None}
    assert aggregate.slowest(per_node) == 'n3'
    assert aggregate.slowest({'b': 1.0, 'a': 1.0}) == 'a'
    assert aggregate.slowest({'a': None}) is None
    assert aggregate.spread_pct([400, 1300, 395]) == pytest.approx(
        (1300 - 395) / statistics.fmean([400, 1300, 395]) * 100)
