# SPDX-License-Identifier: BSD-3-Clause
"""First-night estimates (pfsbench.plan.estimate): a case without history
is planned at its work over a conservative rate of its target's file
system, or its stonewall, not at its time limit (issue 36: the default
nightly planned 60 h on example_lustre before any history)."""

import pytest

from pfsbench.plan import estimate
from pfsbench.plan.selection import Selection, first_night

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
    from pfsbench.plan.budget import choose
    cases_, seconds = [], {}
    for target, slow in (('flash', 1), ('disk', 3), ('nvme', 1)):
        for family, minutes in (('fio', 2), ('dd', 10), ('mdtest', 5)):
            name = f'{family} %.target={target}'
            cases_.append(dict(_case(name, family), target=target))
            seconds[name] = minutes * slow * 60
    # Every case once is 85 min, 5 times 425: 200 min at 5 repeats (the
    # calibrated floor) hold a bandwidth and a metadata case on each
    # target (fio and mdtest: 35 min) before any target's third family; by
    # family alone, the cheapest three (17 min) ran and the disk got what
    # was left.
    repeats, chosen = choose(cases_, seconds, 12000, 5)
    got = {(c['target'], c['@file'].split('/')[2]) for c in chosen}
    assert repeats == 5
    for target in ('flash', 'disk', 'nvme'):
        assert (target, 'mdtest') in got and (target, 'fio') in got
    assert len(chosen) == 6     # dd, a third family, fits nowhere 5 times
    # 150 min (30 a repeat): every target's first share (fio) and then
    # the metadata cases that fit, the targets taking turns; not 1 repeat
    # of all.
    repeats, chosen = choose(cases_, seconds, 9000, 5)
    got = {(c['target'], c['@file'].split('/')[2]) for c in chosen}
    assert repeats == 5
    assert {t for t, f in got if f == 'fio'} == {'flash', 'disk', 'nvme'}
    assert {t for t, f in got if f == 'mdtest'} == {'flash', 'nvme'}


def _select(monkeypatch, part, described, past=None):
    from pfsbench.plan import selection
    # The listing and the dry run are ReFrame's: here, what they found.
    monkeypatch.setattr(selection.cases, 'describe',
                        lambda *args, **kwargs: described)
    monkeypatch.setattr(selection.cases, 'dry_run_skips',
                        lambda *args, **kwargs: {})
    monkeypatch.setattr(selection.cases, 'every_target', lambda p: [])
    monkeypatch.setattr(selection, 'runs_here', lambda system: False)
    monkeypatch.setattr(selection, 'history',
                        lambda *args: dict(past or {}))
    return selection.select('/nowhere', 'site:part', {'name': 'site'},
                            dict(part, name='part'), ['nightly'], '/runs')


#: 702000 MiB a pass at NFS's 200 MiB/s a stream, written and read: 7020 s
#: and a minute's overhead, 118.0 min.
BIG = _case('dd_big %nodes=1', 'dd', count=718848, block_size=1024000,
            repeats=1, nodes=1, time_limit=7200)
NFS = {'extras': {'targets': [{'name': 'scratch', 'path': '/n',
                               'fstype': 'nfs'}]}}


@pytest.mark.parametrize('part_limit,whose,limit', [
    ('60m', "the partition's time_limit", 60.0),
    (None, "the check's time_limit", 120.0),
])
def test_a_first_night_cut_by_a_time_limit_says_the_case_is_killed(
        monkeypatch, part_limit, whose, limit):
    # The 1-h partition showed a silent '60.0 m' for a case needing 118.
    part = dict(NFS, **({'time_limit': part_limit} if part_limit else {}))
    big = dict(BIG, time_limit=7200 if part_limit else 3600 * 2)
    if not part_limit:
        big['count'] *= 2           # 236 min, over the check's 120
    sel = _select(monkeypatch, part, [big, MDTEST])
    wanted = 118.0 if part_limit else 235.0
    assert sel.seconds(big) == limit * 60
    assert sel.killed() == [
        f"dd_big %nodes=1: its first-night estimate, {wanted:.1f} m, is "
        f"more than {whose} ({limit:.1f} m): the case would be killed at "
        f"the limit, not measured (a longer time_limit or a smaller case)"]
    assert sel.killed([MDTEST]) == []
    # A case with history ran within its limit: nothing to say.
    sel = _select(monkeypatch, part, [big], {'dd_big %nodes=1': [600]})
    assert sel.killed() == []


def test_coverage_first_bandwidth_and_metadata_on_every_shared_target():
    # --nodes 8 left the main scratch (NFS) one metadata case and no
    # bandwidth case while the node-local tmpfs got two.
    from pfsbench.plan.budget import choose, node_targets
    part = {'extras': {'targets': [
        {'name': 'scratch', 'path': '/n', 'fstype': 'nfs'},
        {'name': 'tmp', 'path': '/tmp/x', 'fstype': 'tmpfs',
         'scope': 'node'}]}}
    minutes = {('scratch', 'dd'): 30, ('scratch', 'mdtest'): 10,
               ('tmp', 'dd'): 5, ('tmp', 'mdtest'): 3, ('tmp', 'fio'): 4}
    cases_, seconds = [], {}
    for (target, family), m in minutes.items():
        name = f'{family} %target={target}'
        cases_.append(dict(_case(name, family), target=target))
        seconds[name] = m * 60
    # 215 min at 5 repeats: both of the scratch's kinds (200 min), then the
    # cheapest tmpfs case; the tmpfs' first three (24 min) left the
    # scratch's bandwidth case (60) no room.
    assert node_targets(part) == {'tmp'}
    repeats, chosen = choose(cases_, seconds, 215 * 60, 5, node_targets(part))
    assert repeats == 5
    assert [c['display_name'] for c in chosen] == [
        'dd %target=scratch', 'mdtest %target=scratch', 'mdtest %target=tmp']
