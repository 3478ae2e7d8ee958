# SPDX-License-Identifier: BSD-3-Clause
"""The gate's cases and change points split over forked processes give
the record one process gives, bit for bit; a part's error is raised as
one process raises it, and a child that dies costs only time
(docs/gate-evidence.md, "Speed: a year of nightlies")."""

import os
import re
import time

import pytest

import synth
from pfsbench.cli import entry
from pfsbench.gate.judge import baseline, config as gate_config, pooled
from pfsbench.gate.judge.record import run_gate
from pfsbench.gate.report import render, render_all
from pfsbench.gate.statistics import changepoints as cp, forked
from pfsbench.store.runs import read_database

_STAMP = re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?'
                    r'(Z|[+-]\d\d:?\d\d)?')


def _record(db, reports, jobs):
    results = read_database(db)
    uuids = [r['session_info']['uuid'] for r in reports]
    base = baseline.build(results, uuids[:3], 'pre')
    pooled._window_level.cache_clear()
    return run_gate(base, results, [uuids[-1]], gate_config.GateConfig(),
                    jobs=jobs)


def test_the_gate_in_parts_renders_what_one_process_renders(tmp_path):
    reports = list(synth.nightly_history(40, 5, repeats=3, noise=0.04,
                                         step_night=30, step=-0.15,
                                         variables=('write_bw', 'read_bw')))
    db = str(tmp_path / 'results.db')
    synth.write_database(db, reports)
    one = _record(db, reports, 1)
    assert one['summary']['regression'] > 0
    # Each figure's change points are its own series' (no part shifted).
    config = gate_config.GateConfig()
    for item, row in zip(one['history'], one['results']):
        means = [p['mean'] for p in item['points']]
        assert (item['case'], item['var']) == (row['case'], row['var'])
        assert [(c['index'], c['before'], c['after'], c['score'])
                for c in item['changepoints']] == [
            (c.index, c.before, c.after, c.score) for c in cp.detect(
                means, config.changepoint_threshold,
                config.changepoint_min_segment, row['tolerance'])]
    assert sum(bool(h['changepoints']) for h in one['history']) >= 5
    for jobs in (2, 3):
        parts = _record(db, reports, jobs)
        for form in ('json', 'text', 'junit', 'html'):
            assert _STAMP.sub('', render(parts, form, 60)) == \
                _STAMP.sub('', render(one, form, 60)), (jobs, form)


def test_reports_rendered_in_parts_are_each_as_rendered_alone(tmp_path):
    reports = list(synth.nightly_history(20, 3, repeats=3, noise=0.04,
                                         step_night=15, step=-0.15,
                                         variables=('write_bw',)))
    db = str(tmp_path / 'results.db')
    synth.write_database(db, reports)
    record = _record(db, reports, 1)
    fmts = ['html', 'json', 'text', 'junit', 'markdown', 'text']
    alone = [render(record, fmt, 5) for fmt in fmts]
    assert len(set(alone)) == 5
    for jobs in (1, 2, 4):
        assert render_all(record, fmts, jobs, max_plots=5) == alone, jobs
        assert render_all(record, fmts[2:4], jobs, max_plots=5) == \
            alone[2:4]


def test_parts_are_contiguous_and_near_equal():
    items = list(range(11))
    assert forked.parts_of(items, 3) == [items[:3], items[3:7], items[7:]]
    assert forked.parts_of(items, 1) == [items]
    assert forked.parts_of(items[:2], 5) == [[0], [1]]
    assert forked.parts_of([], 4) == []
    # A first share: the rest in near-equal parts, none empty.
    assert forked.parts_of(items, 2, first=1 / 3) == [items[:4], items[4:]]
    assert forked.parts_of(items, 3, first=0.0) == \
        [items[:1], items[1:6], items[6:]]
    assert forked.parts_of(items[:3], 3, first=1.0) == [[0], [1], [2]]
    assert forked.parts_of(items, 1, first=0.2) == [items]


def _tagged(part):
    return [(x * x, os.getpid()) for x in part]


def test_ordered_map_keeps_the_order_and_forks_the_later_parts():
    for jobs in (1, 2, 3, 7):
        found = forked.ordered_map(_tagged, range(10), jobs)
        assert [v for part in found for v, _ in part] == \
            [x * x for x in range(10)]
        pids = {pid for part in found for _, pid in part}
        assert len(pids) == min(jobs, 10)
        assert found[0][0][1] == os.getpid()


def test_ordered_map_cuts_at_the_first_share_and_maps_nothing_to_nothing():
    # The first share sets this process's part (it does other work
    # beside it); no items map to no parts, forked or not.
    sizes = forked.ordered_map(len, range(10), 2, first=0.2)
    assert sizes == [2, 8]
    assert forked.ordered_map(len, range(10), 2) == [5, 5]
    assert forked.ordered_map(len, [], 2) == []
    assert forked.ordered_map(len, [], 1) == []


def test_meanwhile_runs_here_on_the_first_part_while_children_compute(
        tmp_path):
    flag = tmp_path / 'meanwhile-ran'

    def waits_for_meanwhile(part):
        # A child's part waits (at most 10 s) for this process's
        # meanwhile to have run: it must run before they are collected.
        if os.getpid() == here:
            return [(x, True) for x in part]
        deadline = time.monotonic() + 10.0
        while not flag.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return [(x, flag.exists()) for x in part]

    here = os.getpid()
    for jobs in (1, 3):
        if flag.exists():
            flag.unlink()
        seen = []

        def meanwhile(part, result):
            seen.append((os.getpid(), list(part), result))
            flag.touch()

        found = forked.ordered_map(waits_for_meanwhile, range(9), jobs,
                                   meanwhile=meanwhile)
        assert [x for part in found for x, _ in part] == list(range(9))
        assert all(ok for part in found for _, ok in part), jobs
        first = forked.parts_of(list(range(9)), jobs)[0]
        assert seen == [(here, first, found[0])], jobs


def test_the_first_error_in_the_parts_order_is_raised():
    def fails(part):
        bad = [x for x in part if x % 4 == 3]
        if bad:
            raise ValueError(f'item {bad[0]}')
        return part

    # Parts [0..3], [4..7], [8..11]: the child's error, as one process.
    with pytest.raises(ValueError, match='item 3'):
        forked.ordered_map(fails, range(12), 3)
    with pytest.raises(ValueError, match='item 7'):
        forked.ordered_map(fails, [0, 1, 2, 4, 5, 6, 7, 8], 2)


def test_an_error_here_ends_the_children_at_once():
    parent = os.getpid()

    def slow_child(part):
        if os.getpid() != parent:
            time.sleep(60)
            return part
        raise ValueError('here')

    started = time.monotonic()
    with pytest.raises(ValueError, match='here'):
        forked.ordered_map(slow_child, range(4), 2)
    assert time.monotonic() - started < 20


def test_a_child_that_dies_costs_only_time():
    parent = os.getpid()

    def dies_in_a_child(part):
        if os.getpid() != parent:
            os._exit(3)
        return [x + 1 for x in part]

    assert forked.ordered_map(dies_in_a_child, range(6), 3) == \
        [[1, 2], [3, 4], [5, 6]]


def test_jobs_below_one_is_a_clear_error(capsys):
    assert entry.main(['gate', '-b', 'x', '--db', 'nowhere/results.db',
                       '--jobs', '0']) == 2
    err = capsys.readouterr().err
    assert '--jobs' in err and 'Traceback' not in err
    assert len(err.strip().splitlines()) == 1


def test_the_default_is_the_cores_this_process_may_use(monkeypatch):
    monkeypatch.setattr(os, 'sched_getaffinity', lambda pid: {3})
    assert forked.default_jobs() == 1
    monkeypatch.setattr(os, 'sched_getaffinity', lambda pid: {0, 1, 5})
    assert forked.default_jobs() == 3
    monkeypatch.delattr(os, 'sched_getaffinity')
    monkeypatch.setattr(os, 'cpu_count', lambda: None)
    assert forked.default_jobs() == 1

