# SPDX-License-Identifier: BSD-3-Clause
"""A first night's estimate of a case (pfsbench.plan.estimate) through
its public functions: the mutants bench/mutation.py found the planner's
tests letting through (docs/mutation.md).  Pure arithmetic, fast."""

import math

import pytest

from pfsbench.plan import estimate
from pfsbench.plan.estimate import MIB, Rates

#: Rates in which each bound of a pass can be made the slowest.
R = Rates(stream_mib_s=100, node_mib_s=300, aggregate_mib_s=1000,
          metadata_ops_s=50, source='test')


def test_rates_of_a_type_and_a_sites_expected_keys():
    assert estimate.rates(None) == Rates(200, 1000, 2000, 1000,
                                         'unknown default')
    assert estimate.rates({'fstype': 'lustre'}) == Rates(
        500, 2000, 10000, 5000, 'lustre default')
    assert estimate.rates({}, 'nfs').source == 'nfs default'
    assert estimate.rates({'fstype': 'xfs'}, 'nfs').stream_mib_s == 500
    assert estimate.rates({'name': 'scratch', 'fstype': 'ceph',
                           'expected_node_mib_s': '42',
                           'expected_metadata_ops_s': 0}) == Rates(
        300, 42.0, 5000, 2000, "scratch's expected_*")
    assert estimate.rates({'expected_stream_mib_s': 7,
                           'expected_aggregate_mib_s': 8}) == Rates(
        7.0, 1000, 8.0, 1000, "stage's expected_*")


def test_a_cases_family_is_its_directory_else_its_first_word():
    assert estimate.family({'@file': '/r/reframe-checks/fio/fio.py',
                            'display_name': 'x'}) == 'fio'
    assert estimate.family({'display_name': 'dd %n=1'}) == 'dd'


@pytest.mark.parametrize('case, got', [
    ({'display_name': 'dd', 'count': '3', 'block_size': 5}, 15),
    ({'display_name': 'dd', 'count': 'x', 'block_size': 5}, 0),
    ({'display_name': 'fio', 'size': 7}, 7),
    ({'display_name': 'bonnie', 'size_mib': 2}, 2 * MIB),
    ({'display_name': 'iozone', 'file_size_kib': 3}, 3072),
    ({'display_name': 'ior', 'size': 7}, 0),
])
def test_the_bytes_of_one_stream(case, got):
    assert estimate.stream_bytes(case) == got


def _fio(mib, **more):
    return dict({'display_name': 'fio', 'size': mib * MIB}, **more)


def test_a_streams_case_takes_its_slowest_bound_per_pass():
    # one stream: 100 MiB / 100 MiB/s = 1 s a pass, two passes
    assert estimate.work_seconds(_fio(100), R) == 2.0
    # six streams of a node: 600 MiB / 300 MiB/s = 2 s a pass
    assert estimate.work_seconds(_fio(100, streams_per_node=2,
                                      processes=3), R) == 4.0
    # 20 nodes of one stream: 2000 MiB / 1000 MiB/s = 2 s a pass
    assert estimate.work_seconds(_fio(100, nodes=20), R) == 4.0
    # a node-local target: its aggregate grows with the nodes
    assert estimate.work_seconds(_fio(100, nodes=20), R, 'node') == 2.0
    assert estimate.work_seconds(_fio(100, repeats=3), R) == 6.0
    assert estimate.work_seconds(dict(_fio(100), display_name='bonnie',
                                      size_mib=100), R) == 3.0
    assert estimate.work_seconds({'display_name': 'iozone',
                                  'file_size_kib': 100 * 1024}, R) == 4.0
    # zeros count as one
    assert estimate.work_seconds(_fio(100, nodes=0, streams_per_node=0,
                                      processes=0, repeats=0), R) == 2.0


def test_a_partitions_cap_on_bytes_per_stream():
    assert estimate.work_seconds(_fio(100), R, extras={
        'max_bytes_per_stream': 50 * MIB}) == 1.0
    assert estimate.work_seconds(_fio(100), R, extras={
        'max_bytes_per_stream': 0}) == 2.0
    assert estimate.work_seconds({'display_name': 'fio'}, R) is None


def test_an_mdtest_case_is_its_items_operations():
    case = {'display_name': 'mdtest', 'items_per_task': 10, 'nodes': 2,
            'tasks_per_node': 5}
    # 100 items x 4 operations / 50 ops/s
    assert estimate.work_seconds(case, R) == 8.0
    assert estimate.work_seconds(dict(case, kind='both'), R) == 16.0
    assert estimate.work_seconds(dict(case, kind='files'), R) == 8.0
    assert estimate.work_seconds(dict(case, iterations=3), R) == 24.0
    assert estimate.work_seconds(dict(case, tasks_per_node=0,
                                      iterations=0), R) == 1.6
    assert estimate.work_seconds(case, R, extras={
        'mdtest_max_items': 25}) == 2.0
    assert estimate.work_seconds(dict(case, items_per_task=0), R) is None
    assert estimate.work_seconds({'display_name': 'ior'}, R) is None


def test_a_stonewalled_case_takes_its_writes_and_one_more():
    case = {'display_name': 'io500', 'stonewall_s': '30'}
    assert estimate.work_seconds(case, R) == 90
    assert estimate.work_seconds(dict(case, stonewalled_writes=4), R) == 150
    assert estimate.work_seconds(dict(case, stonewalled_writes=0), R) == 90
    assert estimate.first_night_seconds(case, R, 300) == (150, 'stonewall')


def test_a_first_night_is_its_work_and_overhead_never_above_its_limit():
    assert estimate.first_night_seconds(_fio(100), R, 300) == (
        62.0, 'work at test rates')
    assert estimate.first_night_seconds({'display_name': 'ior'}, R, 300) \
        == (300, 'assumed')
    assert estimate.first_night_seconds(_fio(100), R, 300, limit=61) == (
        61, 'work at test rates')
    assert estimate.first_night_seconds(_fio(100), R, 300, limit=0) == (
        62.0, 'work at test rates')
    assert estimate.first_night_seconds(_fio(100), R, 300,
                                        limit=math.inf)[0] == 62.0
    assert estimate.first_night_seconds(
        _fio(100, nodes=20), R, 300, scope='node',
        extras={'max_bytes_per_stream': 50 * MIB}) == (61.0,
                                                       'work at test rates')


#: Rates whose aggregate bound a second stream already crosses.
R2 = Rates(stream_mib_s=100, node_mib_s=300, aggregate_mib_s=150,
           metadata_ops_s=50)


def test_what_a_case_leaves_out_counts_as_one():
    # 100 MiB a stream: 1 s a stream alone, 2 streams 200 MiB / 150 MiB/s
    assert estimate.work_seconds(_fio(100), R2) == 2.0
    assert estimate.work_seconds(_fio(100, nodes=0, streams_per_node=0,
                                      processes=0), R2) == 2.0
    assert estimate.work_seconds(_fio(100, nodes=2), R2) == 2 * 200 / 150
    assert estimate.work_seconds(_fio(100, streams_per_node=2), R2) == \
        2 * 200 / 150
    assert estimate.work_seconds(_fio(100, processes=2), R2) == 2 * 200 / 150
    assert estimate.work_seconds(_fio(100, nodes=2, streams_per_node=2),
                                 R2) == 2 * 400 / 150
    md = {'display_name': 'mdtest', 'items_per_task': 10}
    assert estimate.work_seconds(md, R) == 10 * 4 / 50
