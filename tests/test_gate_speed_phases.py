# SPDX-License-Identifier: BSD-3-Clause
"""The gate command's phases after the cases: the history, the labels,
the reports and the exit, laid out so both cores finish together, give
what one process gives (docs/gate-evidence.md, "Speed: a year of
nightlies")."""

import gc
import re
import subprocess
import sys
import weakref

import pytest

import synth
from pfsbench.cli import entry
from pfsbench.core import fields
from pfsbench.gate.history import past
from pfsbench.gate.judge import (baseline, config as gate_config, pooled,
                                 record as record_module)
from pfsbench.gate.judge.record import compare, run_gate, what_changed
from pfsbench.gate.judge.rows import VarRow, rendering
from pfsbench.gate.judge.sweeps import sweeps
from pfsbench.gate.report import html, render, render_all
from pfsbench.gate.statistics import forked
from pfsbench.store.runs import read_database


def _gate_dir(tmp_path, nights=8):
    """A runs database and a baseline ``pre`` beside it."""
    reports = list(synth.nightly_history(nights, 2, repeats=3, noise=0.04,
                                         step_night=nights - 2, step=-0.2,
                                         variables=('write_bw',)))
    db = str(tmp_path / 'results.db')
    synth.write_database(db, reports)
    uuids = [r['session_info']['uuid'] for r in reports]
    baseline.save(baseline.build(read_database(db), uuids[:3], 'pre'),
                  str(tmp_path), force=True)
    return db


def test_the_command_turns_the_collector_back_on(tmp_path, capsys,
                                                 monkeypatch):
    db = _gate_dir(tmp_path)
    module = entry.verb_module('gate')
    real, seen = module.run_gate, []
    monkeypatch.setattr(module, 'run_gate', lambda *a, **k: (
        seen.append(gc.isenabled()) or real(*a, **k)))
    code = entry.main(['gate', '-b', 'pre', '--db', db,
                       '--baseline-dir', str(tmp_path)])
    assert code in (0, 1) and seen == [False] and gc.isenabled()
    assert 'pfsbench gate:' in capsys.readouterr().out


def test_the_command_leaves_only_its_last_run_to_the_exit(tmp_path, capsys,
                                                          monkeypatch):
    db = _gate_dir(tmp_path)
    module = entry.verb_module('gate')
    real, seen = module.run_gate, []
    monkeypatch.setattr(module, '_LEFT', [])
    monkeypatch.setattr(module, 'run_gate', lambda *a, **k: (
        seen.append(weakref.ref(a[1])) or real(*a, **k)))
    argv = ['gate', '-b', 'pre', '--db', db, '--baseline-dir', str(tmp_path)]
    codes = [entry.main(argv), entry.main(argv)]
    gc.collect()
    left = module._LEFT
    assert codes == [1, 1]
    # The list holds itself, then the last run's results and record only:
    # the first run's results were freed.
    assert left[0] is left and len(left) == 3
    assert left[1] is seen[1]() and seen[0]() is None
    assert left[2]['exit_code'] == codes[1]
    assert capsys.readouterr().out.count('pfsbench gate:') == 2


def test_what_the_command_leaves_to_its_exit_keeps_output_and_exit_code(
        tmp_path):
    db = _gate_dir(tmp_path)
    code = ('import atexit, sys\n'
            'from pfsbench.cli import entry\n'
            "atexit.register(print, 'atexit ran')\n"
            'sys.stdout.write("buffered ")\n'
            f"sys.exit(entry.main(['gate', '-b', 'pre', '--db', {db!r}, "
            f"'--baseline-dir', {str(tmp_path)!r}]))\n")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True,
                         text=True, timeout=120, check=False)
    assert out.returncode == 1, out.stderr
    assert out.stdout.startswith('buffered ')
    assert 'pfsbench gate:' in out.stdout
    assert out.stdout.endswith('atexit ran\n')


def _judged(tmp_path, cases=6):
    """``(results, baseline, current uuids)`` of a history that steps
    down at its 22nd night (regressions and change points)."""
    reports = list(synth.nightly_history(30, cases, repeats=3, noise=0.04,
                                         step_night=22, step=-0.15,
                                         variables=('write_bw', 'read_bw')))
    db = str(tmp_path / 'results.db')
    synth.write_database(db, reports)
    uuids = [r['session_info']['uuid'] for r in reports]
    results = read_database(db)
    return results, baseline.build(results, uuids[:3], 'pre'), uuids[-1:]


def test_change_points_sought_where_the_cases_were_judged_are_the_history(
        tmp_path):
    results, base, current = _judged(tmp_path, cases=7)
    config = gate_config.GateConfig()
    rows = compare(base, results, current, config)[0]
    alone = past.history(results, rows, config)
    assert sum(bool(h['changepoints']) for h in alone) >= 6
    # The steps of row dicts in their order, each part's joined.
    dicts = [r.as_dict() for r in rows]
    steps = past.history_steps(results, dicts[:5], config) + \
        past.history_steps(results, dicts[5:], config)
    assert past.history(results, rows, config, steps=steps) == alone
    assert past.history(results, rows, config,
                        steps=steps[::-1]) != alone
    assert past.history(results, rows, config, jobs=2) == alone
    for jobs in (1, 2, 3):
        pooled._window_level.cache_clear()
        record = run_gate(base, results, current, config, jobs=jobs)
        assert record['history'] == alone, jobs
        final = [VarRow.from_dict(r) for r in record['results']]
        assert record['changes'] == what_changed(base, results, final)
        assert record['changes'] and any(record['changes'].values())
        assert record['sweeps'] == sweeps(results, current, None)


def test_without_history_nothing_is_sought(tmp_path, monkeypatch):
    results, base, current = _judged(tmp_path, cases=3)
    config = gate_config.GateConfig()
    monkeypatch.setattr(record_module, 'history_steps',
                        lambda *a: pytest.fail('sought'))
    monkeypatch.setattr(record_module, 'history_series',
                        lambda *a: pytest.fail('prepared'))
    for jobs in (1, 2):
        out = run_gate(base, results, current, config, jobs=jobs,
                       with_history=False)
        assert out['history'] == [] and out['changes']
        assert out['summary']['regression'] > 0


def test_the_process_preparing_the_series_judges_fewer_cases(tmp_path,
                                                              monkeypatch):
    assert record_module.PREPARING == 0.025
    assert record_module._preparing_share(1) == 1.0
    assert record_module._preparing_share(2) == (1 - 0.025) / 2
    assert record_module._preparing_share(3) == (1 - 0.05) / 3
    assert forked.parts_of(list(range(500)), 2,
                           record_module._preparing_share(2))[0] == \
        list(range(244))
    results, base, current = _judged(tmp_path, cases=3)
    config = gate_config.GateConfig()
    shares, real = [], record_module.ordered_map

    def spy(fn, items, jobs, first=None, meanwhile=None):
        shares.append(first)
        return real(fn, items, jobs, first, meanwhile)

    monkeypatch.setattr(record_module, 'ordered_map', spy)
    run_gate(base, results, current, config, jobs=3)
    run_gate(base, results, current, config, jobs=3, with_history=False)
    # The cases' maps (the labels' takes no share).
    assert shares[0] == (1 - 0.05) / 3 and shares[2] is None


def test_html_drawn_apart_from_its_plots_is_html_drawn_whole(tmp_path):
    results, base, current = _judged(tmp_path, cases=9)
    config = gate_config.GateConfig()
    pooled._window_level.cache_clear()
    record = run_gate(base, results, current, config)
    # Three cases need attention, six pass.
    cases = sorted({r['case'] for r in record['results']})
    for row in record['results']:
        if row['case'] in cases[3:]:
            row['verdict'] = 'pass'
    fmts = ['junit', 'html', 'text', 'html']
    for plots, shown in ((-1, 0), (0, 0), (1, 1), (4, 4), (60, 9)):
        whole = [render(record, fmt, plots) for fmt in fmts]
        with rendering(record):
            assert html.html_parts(record, plots).count(None) == shown
            assert len(html.drawn_plots(record, plots)) == shown
        # The others' plots after the three, the count of those shown.
        assert (f'{shown - 3} of 6 cases shown' in whole[1]) == (
            3 < shown < 9), plots
        for jobs in (2, 3, 5):
            assert render_all(record, fmts, jobs, max_plots=plots) == \
                whole, (plots, jobs)
    with rendering(record):
        drawn = html.drawn_plots(record, 4)
        parts = html.html_parts(record, 4)
    assert len(drawn) == 4 and parts.count(None) == 4
    # The cases that need attention are plotted first, in their box.
    at = parts.index(None)
    assert parts[at - 1].startswith('<div class="regression">')
    assert html.fill(parts, drawn) == render(record, 'html', 4)


def test_the_history_is_given_the_prepared_series_and_the_parts_steps(
        tmp_path, monkeypatch):
    results, base, current = _judged(tmp_path, cases=5)
    config = gate_config.GateConfig()
    given, real = [], record_module.history

    def spy(results, rows, config, jobs=1, lazy=False, series=None,
            steps=None):
        given.append((len(rows), series, steps))
        return real(results, rows, config, jobs, lazy, series, steps)

    monkeypatch.setattr(record_module, 'history', spy)
    alone = run_gate(base, results, current, config)['history']
    for jobs in (1, 2):
        assert run_gate(base, results, current, config,
                        jobs=jobs)['history'] == alone
    assert len(given) == 3
    for count, series, steps in given:
        # What the parent prepared, and each row's steps, none sought
        # again.
        assert count == 10 and len(series[0]) == 5 and len(steps) == 10
        assert sum(map(bool, steps)) >= 8


def test_compare_labels_its_rows_as_the_record_does(tmp_path):
    results, base, current = _judged(tmp_path, cases=3)
    config = gate_config.GateConfig()
    rows = compare(base, results, current, config)[0]
    record = run_gate(base, results, current, config)
    assert [r.reason for r in rows] == \
        [r['reason'] for r in record['results']]
    assert all('detects >=' in r.reason for r in rows)


def test_the_records_defaults_counts_and_points(tmp_path):
    results, base, current = _judged(tmp_path, cases=3)
    config = gate_config.GateConfig()
    record = run_gate(base, results, current, config)
    assert record['baseline']['path'] == ''
    assert record['baseline']['contended_samples'] == []
    verdicts = [r['verdict'] for r in record['results']]
    assert verdicts.count('regression') >= 2
    assert record['summary'] == {
        **{v: verdicts.count(v) for v in
           ('pass', 'regression', 'improvement', 'inconclusive',
            'ignored')}, 'missing': 0}
    assert all(type(h['points']) is list for h in record['history'])
    lazy = run_gate(base, results, current, config, lazy=True)
    assert all(isinstance(h['points'], past.Points)
               for h in lazy['history'])
    assert lazy['history'] == record['history']
    # A baseline written without them lists none; else its own.
    del base['contended_samples']
    assert run_gate(base, results, current, config)['baseline'][
        'contended_samples'] == []
    # The baseline's own contended samples, named in the record.
    base['contended_samples'] = [{'case': 'x', 'session': 's'}]
    assert run_gate(base, results, current, config)['baseline'][
        'contended_samples'] == [{'case': 'x', 'session': 's'}]


def test_each_parts_missing_cases_and_contended_samples_are_kept(tmp_path):
    night = {'a %nodes=1': [100.0, 101.0, 99.0],
             'b %nodes=1': [50.0, 50.5, 49.5]}
    reports = [synth.session(night, time_start=1.7e9 + t * 86400.0)
               for t in range(8)]
    # Tonight every repeat of the first case was contended: it is
    # missing, its samples listed.
    for case in reports[-1]['runs'][0]['testcases'][:3]:
        case[fields.CONTENDED] = True
    db = str(tmp_path / 'results.db')
    synth.write_database(db, reports)
    results = read_database(db)
    uuids = [r['session_info']['uuid'] for r in reports]
    base = baseline.build(results, uuids[:3], 'pre')
    one = run_gate(base, results, uuids[-1:], gate_config.GateConfig())
    assert [m['case'] for m in one['missing']] == \
        ['a %nodes=1 @local:default+builtin']
    assert len(one['contended_samples']) == 3
    two = run_gate(base, results, uuids[-1:], gate_config.GateConfig(),
                   jobs=2)
    assert (two['missing'], two['contended_samples']) == \
        (one['missing'], one['contended_samples'])


def test_the_sweeps_are_the_name_filters(tmp_path):
    night = {f'chk %nodes={n} %mode=a': [100.0 * n, 101.0 * n, 99.0 * n]
             for n in (1, 2, 4)}
    reports = [synth.session(night, time_start=1.7e9 + t * 86400.0)
               for t in range(6)]
    for report in reports:
        for case in report['runs'][0]['testcases']:
            case['num_tasks'] = int(case['name'].split('=')[1].split()[0])
    db = str(tmp_path / 'results.db')
    synth.write_database(db, reports)
    results = read_database(db)
    uuids = [r['session_info']['uuid'] for r in reports]
    base = baseline.build(results, uuids[:3], 'pre')
    some = re.compile('nodes=[12] ')
    record = run_gate(base, results, uuids[-1:], gate_config.GateConfig(),
                      name_filter=some)
    assert record['sweeps'] == sweeps(results, uuids[-1:], some) != \
        sweeps(results, uuids[-1:], None)
    assert record['sweeps']
