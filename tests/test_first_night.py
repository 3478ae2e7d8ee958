# SPDX-License-Identifier: BSD-3-Clause
"""First-night estimates (pfsbench.runs.estimate): a case without history
is planned at its work over a conservative rate of its target's file
system, or its stonewall, not at its time limit (issue 36: the default
nightly planned 60 h on example_lustre before any history)."""

import pytest

from pfsbench.runs.selection import Selection, first_night
from pfsbench.runs import estimate

GIB = 2 ** 30


def _case(name, family, **fields):
    return dict(display_name=name, **{'@file': f'/c/{family}/x.py'},
                **fields)


DD16 = _case('dd_stream_per_node %nodes=16', 'dd', count=50000,
             block_size=1024000, repeats=3, nodes=16, streams_per_node=1)
IO500 = _case('io500_suite_run %nodes=8 %tasks_per_node=12', 'io500',
              stonewall_s=300, stonewalled_writes=4, nodes=8)
MDTEST = _case('mdtest_metadata_rates %nodes=2', 'mdtest',
               items_per_task=1000, nodes=2, tasks_per_node=16,
               iterations=3, kind='files')
LUSTRE = {'extras': {'targets': [{'name': 'scratch', 'path': '/l',
                                  'fstype': 'lustre'}]}}


def test_a_case_is_counted_at_its_work_not_its_limit():
    seconds, how = first_night(DD16, LUSTRE, limit=7200)
    # 51.2 GB a stream, written and read, 3 times, at 500 MiB/s a stream
    # (16 streams: 763 GiB a pass, under the 10000 MiB/s of the whole).
    per_pass = 50000 * 1024000 / 2 ** 20 / 500
    assert seconds == pytest.approx(60 + 2 * 3 * per_pass)
    assert how == 'work at lustre default rates'
    assert seconds < 7200 / 5


def test_a_sites_expected_rates_replace_the_defaults():
    fast = {'extras': {'targets': [{'name': 'scratch', 'path': '/l',
                                    'fstype': 'lustre',
                                    'expected_stream_mib_s': 5000,
                                    'expected_aggregate_mib_s': 80000}]}}
    slow_s, _ = first_night(DD16, LUSTRE, limit=7200)
    fast_s, how = first_night(DD16, fast, limit=7200)
    assert fast_s < slow_s / 3
    assert how == "work at scratch's expected_* rates"


def test_the_whole_file_system_bounds_many_streams():
    many = dict(DD16, nodes=512, display_name='dd %nodes=512')
    # 512 x 48.8 GiB at 10000 MiB/s: the aggregate, not one stream, sets it.
    seconds, _ = first_night(many, LUSTRE, limit=None)
    per_pass = 512 * 50000 * 1024000 / 2 ** 20 / 10000
    assert seconds == pytest.approx(60 + 2 * 3 * per_pass)


def test_a_stonewall_a_metadata_case_and_the_unknown():
    assert first_night(IO500, LUSTRE, limit=7200) == (60 + 5 * 300,
                                                      'stonewall')
    seconds, _ = first_night(MDTEST, LUSTRE, limit=7200)
    assert seconds == pytest.approx(60 + 32000 * 4 * 3 / 5000)
    other = _case('elbencho %nodes=1', 'elbencho', nodes=1)
    assert first_night(other, LUSTRE, limit=7200, assume_s=300) == (
        300, 'assumed')
    # Never above the time limit.
    assert first_night(IO500, LUSTRE, limit=600)[0] == 600


def test_a_cap_on_bytes_and_an_fstype_change_the_work():
    capped = {'extras': dict(LUSTRE['extras'],
                             max_bytes_per_stream=GIB)}
    assert first_night(DD16, capped, limit=None)[0] == pytest.approx(
        60 + 2 * 3 * 1024 / 500)
    nfs = {'extras': {'targets': [{'name': 'home', 'path': '/h',
                                   'fstype': 'nfs'}]}}
    assert first_night(DD16, nfs, limit=None)[0] > \
        first_night(DD16, LUSTRE, limit=None)[0]


def test_history_replaces_the_first_night_estimate():
    sel = Selection([DD16], {}, False, {DD16['display_name']: [100, 300]},
                    {DD16['display_name']: 7200},
                    {DD16['display_name']: (900, 'work')})
    assert sel.seconds(DD16) == 200
    assert sel.source(DD16) == '2 earlier run(s)'
    sel = Selection([DD16], {}, False, {}, {DD16['display_name']: 7200},
                    {DD16['display_name']: (900, 'work')})
    assert (sel.seconds(DD16), sel.estimate_s, sel.at_most_s) == (
        900, 900, 7200)
    assert sel.source(DD16) == 'first night: work'


def test_every_rate_key_is_in_the_target_schema():
    from pfsbench import schemas
    props = schemas.load('target.json')['properties']
    assert set(estimate.RATE_KEYS) <= set(props)


def test_every_target_gets_its_share_of_a_budget():
    # Issue 36: with three targets a 2-hour budget gave the disk Lustre one
    # fio case: the cheapest case of each family, wherever it ran.
    from pfsbench.runs.budget import choose
    cases_, seconds = [], {}
    for target, slow in (('flash', 1), ('disk', 3), ('nvme', 1)):
        for family, minutes in (('fio', 2), ('dd', 10), ('mdtest', 5)):
            name = f'{family} %.target={target}'
            cases_.append(dict(_case(name, family), target=target))
            seconds[name] = minutes * slow * 60
    # Every case once is 85 min, twice 170: 80 min at 2 repeats (the
    # gate's minimum) hold a bandwidth and a metadata case on each target
    # (fio and mdtest: 35 min) before any target's third family; by
    # family alone, the cheapest three (17 min) ran and the disk got what
    # was left.
    repeats, chosen = choose(cases_, seconds, 4800, 5)
    got = {(c['target'], c['@file'].split('/')[2]) for c in chosen}
    assert repeats == 2
    for target in ('flash', 'disk', 'nvme'):
        assert (target, 'mdtest') in got and (target, 'fio') in got
    assert len(chosen) == 6     # dd, a third family, fits nowhere twice
    # 60 min: every target's first share (fio) and then the metadata
    # cases that fit, the targets taking turns; not 1 repeat of all.
    repeats, chosen = choose(cases_, seconds, 3600, 5)
    got = {(c['target'], c['@file'].split('/')[2]) for c in chosen}
    assert repeats == 2
    assert {t for t, f in got if f == 'fio'} == {'flash', 'disk', 'nvme'}
    assert {t for t, f in got if f == 'mdtest'} == {'flash', 'nvme'}
