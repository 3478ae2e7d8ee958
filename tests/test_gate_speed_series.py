# SPDX-License-Identifier: BSD-3-Clause
"""The history's series, computed in the parent while children judge the
cases (docs/gate-evidence.md, "Speed: a year of nightlies"), is the
history computed after them."""

import synth
from pfsbench.gate.history import past
from pfsbench.gate.judge import baseline, config as gate_config, pooled
from pfsbench.gate.judge.record import compare, run_gate
from pfsbench.store.runs import read_database


def _setup(tmp_path):
    db = str(tmp_path / 'results.db')
    reports = list(synth.nightly_history(30, 4, repeats=3, noise=0.04,
                                         step_night=22, step=-0.15,
                                         variables=('write_bw', 'read_bw')))
    synth.write_database(db, reports)
    uuids = [r['session_info']['uuid'] for r in reports]
    results = read_database(db)
    return results, baseline.build(results, uuids[:3], 'pre'), uuids[-1:]


def test_the_history_prepared_beside_the_cases_is_the_history(tmp_path):
    results, base, current = _setup(tmp_path)
    config = gate_config.GateConfig()
    pooled._window_level.cache_clear()
    record = run_gate(base, results, current, config, jobs=2)
    rows = compare(base, results, current, config)[0]
    fresh = past.history(results, rows, config)
    assert len(fresh) == len(rows) > 4
    assert sum(bool(h['changepoints']) for h in fresh) >= 4
    assert all(len(h['points']) >= 20 for h in fresh)
    assert record['history'] == fresh


def test_a_series_of_more_cases_gives_the_rows_history(tmp_path):
    results, base, current = _setup(tmp_path)
    config = gate_config.GateConfig()
    rows = compare(base, results, current, config)[0]
    some = [r for r in rows if r.case == rows[-1].case]
    every = past.history_series(results, {r.case for r in rows}, config)
    alone = past.history(results, some, config)
    assert alone and all(h['points'] for h in alone)
    assert past.history(results, some, config, series=every) == alone
