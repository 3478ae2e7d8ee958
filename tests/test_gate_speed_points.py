# SPDX-License-Identifier: BSD-3-Clause
"""A figure's history points are made when first read: the same dicts,
the same JSON, and a gate that writes no JSON makes only those it plots
(docs/gate-evidence.md, "Speed: a year of nightlies")."""

import json
import pickle
from array import array

import synth
from pfsbench.gate.history import past
from pfsbench.gate.history.past import Points
from pfsbench.gate.judge import baseline, config as gate_config, pooled
from pfsbench.gate.judge.record import run_gate
from pfsbench.gate.report import render
from pfsbench.store.runs import read_database


def _plain(uuids, times, means, counts):
    return [{'session': u, 'time': t, 'mean': m, 'n': n}
            for u, t, m, n in zip(uuids, times, means, counts) if n]


def test_points_are_the_plain_dicts():
    uuids, times = ['a', 'b', 'c', 'd'], [1.0, 2.0, 3.0, 4.0]
    means = array('d', [5.0, float('nan'), 0.1 + 0.2, 7.25])
    counts = array('i', [3, 0, 2, 1])
    plain = _plain(uuids, times, means, counts)
    points = Points(uuids, times, means, counts)
    assert len(points) == 3 and points.uuids == ['a', 'c', 'd']
    assert list(points.means) == [5.0, 0.1 + 0.2, 7.25]
    assert points == plain and points[1] == plain[1]
    assert points[-2:] == plain[-2:]
    assert [type(p['n']) for p in points] == [int] * 3
    assert json.dumps({'p': points}, indent=1, default=past.plain) == \
        json.dumps({'p': plain}, indent=1)
    assert pickle.loads(pickle.dumps(points)) == plain
    assert not Points([], [], array('d'), array('i'))


def _record(tmp_path, lazy=True):
    db = str(tmp_path / 'results.db')
    reports = list(synth.nightly_history(30, 4, repeats=3, noise=0.04,
                                         step_night=22, step=-0.15,
                                         variables=('write_bw', 'read_bw')))
    uuids = [r['session_info']['uuid'] for r in reports]
    if not (tmp_path / 'results.db').exists():
        synth.write_database(db, reports)
    results = read_database(db)
    base = baseline.build(results, uuids[:3], 'pre')
    pooled._window_level.cache_clear()
    return run_gate(base, results, [uuids[-1]], gate_config.GateConfig(),
                    lazy=lazy)


def test_the_record_writes_its_points_as_lists(tmp_path):
    record = _record(tmp_path)
    assert json.loads(json.dumps(_record(tmp_path, lazy=False),
                                 default=str))['history'] == \
        json.loads(render(record, 'json'))['history']
    hist = record['history']
    assert hist and all(isinstance(h['points'], Points) for h in hist)
    assert any(h['changepoints'] for h in hist)
    text = render(record, 'json')
    loaded = json.loads(text)
    for item, kept in zip(loaded['history'], hist):
        assert item['points'] == list(kept['points'])
        assert len(item['points']) >= 20
    for item in hist:
        item['points'] = list(item['points'])
    assert render(record, 'json') == text


def test_a_gate_without_json_makes_only_the_points_it_plots(tmp_path):
    record = _record(tmp_path)
    made = lambda: sum(h['points']._made is not None  # noqa: E731
                       for h in record['history'])
    assert made() == 0
    render(record, 'text')
    render(record, 'junit')
    assert made() == 0
    render(record, 'html', 2)
    assert 0 < made() <= 2 * 2
