# SPDX-License-Identifier: BSD-3-Clause
"""Scaling sweeps in the gate record and its reports (issue 10, item 8):
the current session's cases that differ only in a process count, each
step's efficiency and the saturation point, drawn by ``pfsbench report``.

The sweep is seed 004's Lustre 2.0 multi-client mdsrate stat (NP 1..64,
``tests/data/seeds/004``), which the source says saturates at NP 16.
"""

import json
import re
import xml.etree.ElementTree as ET

import pytest

import synth
from pfsbench import cli
from pfsbench.gate.judge import baseline, config as gate_config
from pfsbench.gate.judge.record import run_gate
from pfsbench.gate.judge.sweeps import cpu_var_for
from pfsbench.gate.report import render
from pfsbench.store.runs import read_database

NP = [1, 2, 4, 8, 16, 32, 64]
MDSRATE_STAT = [20723.21, 38718.54, 71319.94, 136389.06, 237378.41,
                21183.94, 14156.72]
CHECK = 'mdtest_e16_mdsrate_standin'


def _session(start, scale=1.0, other=None):
    """A session of the E16 sweep (2 repeats per NP, +-1 %), a 2-node case
    of another family, and ``other`` cases ``{name: num_tasks}``."""
    uuid = f'sess-{start:.0f}'
    cases = []
    for np_, rate in zip(NP, MDSRATE_STAT):
        for rep, f in enumerate((0.99, 1.01)):
            perf = {'file_stat': (rate * f * scale, 'ops/s'),
                    'file_stat_mean': (rate * f * scale * 0.9, 'ops/s'),
                    'file_stat_stddev': (rate * 0.01, 'ops/s'),
                    'stat_cpu_util': (min(100.0, 6.0 * np_), '%'),
                    # The MDT's figures beside the rate (seed 000's
                    # families log them): context, not a sweep.
                    'stat_server_device_read_mib_s': (2.0 * np_, 'MiB/s'),
                    'stat_server_device_iops': (50.0 * np_, 'IOPS')}
            cases.append(synth.make_testcase(
                uuid, 0, len(cases), f'{CHECK} %clients=multi %np={np_}',
                perf, repeat=rep, num_tasks=np_ * 70, time=start + 1))
    for name, tasks in (other or {}).items():
        cases.append(synth.make_testcase(
            uuid, 0, len(cases), name, {'write_bw': (100.0, 'MB/s')},
            num_tasks=tasks, time=start + 1))
    return synth.make_report(cases, time_start=start, session_uuid=uuid)


@pytest.fixture(scope='module')
def record(tmp_path_factory):
    db = str(tmp_path_factory.mktemp('runs') / 'results.db')
    # The current session has a case of another check at 2 and 4 tasks
    # (a sweep), and two cases at one count (no sweep).
    other = {'dd_streaming %nodes=2 %mode=a': 2,
             'dd_streaming %nodes=4 %mode=a': 4,
             'lone_check %tasks=3 %kind=x': 3,
             'lone_check %tasks=3 %kind=y': 3}
    reports = [_session(1e9), _session(2e9, other=other)]
    synth.write_database(db, reports)
    results = read_database(db)
    uuids = [r['session_info']['uuid'] for r in reports]
    base = baseline.build(results, uuids[:1], 'base')
    return run_gate(base, results, uuids[1:], gate_config.GateConfig())


def _sweep(record, check, var):
    (found,) = [s for s in record['sweeps']
                if s['check'] == check and s['var'] == var]
    return found


def test_the_record_carries_the_sweep_and_its_saturation(record):
    sweep = _sweep(record, CHECK, 'file_stat')
    assert sweep['swept'] == 'np'
    assert sweep['fixed'] == {'clients': 'multi'}
    # Processes are ReFrame's num_tasks (70 clients x NP).
    assert [s['processes'] for s in sweep['steps']] == [70 * n for n in NP]
    assert [s['value'] for s in sweep['steps']] == [str(n) for n in NP]
    # Mean of the two repeats, their spread, efficiency against NP 1.
    eight = sweep['steps'][3]
    assert eight['rate'] == pytest.approx(136389.06)
    assert eight['min'] == pytest.approx(136389.06 * 0.99)
    assert eight['n'] == 2
    assert eight['efficiency'] == pytest.approx(136389.06 / 20723.21 / 8)
    # The source's "cpu get saturated at $NP=16".
    assert sweep['saturation']['processes'] == 70 * 16
    assert sweep['saturated'] is True
    # The CPU utilisation logged for the stat phase rides along.
    assert [s['cpu_util_pct'] for s in sweep['steps']][:3] == [6, 12, 24]


def test_a_sweep_reports_its_peak_and_where(record):
    # Seed 001 published the peaks of its node curves: the highest mean
    # and the count it fell at (here NP 16, not the largest count).
    sweep = _sweep(record, CHECK, 'file_stat')
    assert sweep['peak'] == {
        'processes': 70 * 16, 'value': '16', 'rate': pytest.approx(
            237378.41), 'n': 2, 'case': f'{CHECK} %clients=multi %np=16'}
    dd = _sweep(record, 'dd_streaming', 'write_bw')
    # Equal rates at 2 and 4 nodes: the smaller count is the peak.
    assert dd['peak']['value'] == '2'
    row = next(line for line in render(record, 'text').splitlines()
               if line.strip().startswith('file_stat'))
    assert row.rstrip().endswith('; peak 237k ops/s at np=16')


def test_statistics_percentages_and_device_figures_are_not_sweeps(record):
    assert {s['var'] for s in record['sweeps'] if s['check'] == CHECK} == \
        {'file_stat'}


def test_only_the_count_may_differ(record):
    dd = _sweep(record, 'dd_streaming', 'write_bw')
    assert dd['swept'] == 'nodes' and dd['saturated'] is True
    assert [s['processes'] for s in dd['steps']] == [2, 4]
    # Two cases at one task count differ in something else: no sweep.
    assert not [s for s in record['sweeps'] if s['check'] == 'lone_check']


def test_cpu_variable_of_a_phase():
    names = {'file_create', 'create_cpu_util', 'remove_cpu_util'}
    assert cpu_var_for('file_create', names) == 'create_cpu_util'
    assert cpu_var_for('dir_create', names) == 'create_cpu_util'
    assert cpu_var_for('file_stat', names) is None


def test_shipped_settings_log_the_cpu_but_never_gate_it():
    # A client saturating (seed 004's NP 16) explains a rate; it is not a
    # slower file system.  The rates beside it stay gated.
    settings = gate_config.load(gate_config.DEFAULT_PATH)
    for var in ('create_cpu_util', 'stat_cpu_util_max',
                'remove_server_cpu_util'):
        assert settings.settings_for(CHECK, var, '%')[2] is True, var
    assert settings.settings_for(CHECK, 'file_create', 'ops/s') == \
        (settings.tolerance, 'higher', False)


def test_shipped_settings_log_the_device_figures_but_never_gate_them():
    # Seed 000's block-device figures say where a phase's time went.
    settings = gate_config.load(gate_config.DEFAULT_PATH)
    for var, unit in (('create_device_util', '%'),
                      ('remove_device_read_mib_s', 'MiB/s'),
                      ('create_server_device_write_mib_s', 'MiB/s'),
                      ('create_device_iops', 'IOPS'),
                      ('remove_server_device_await', 'ms')):
        assert settings.settings_for('mdtest_e1_core_scaling', var,
                                     unit)[2] is True, var


def test_text_and_markdown_tables_mark_the_step(record):
    text = render(record, 'text')
    block = text.split('scaling sweeps')[1]
    (row,) = [line for line in block.splitlines()
              if line.strip().startswith('file_stat')]
    cells = re.split(r'\s{2,}', row.strip())
    # NP 16 (1120 processes) is starred, and only it.
    assert [c.endswith('*') for c in cells[1:-1]] == \
        [False, False, False, False, True, False, False]
    assert cells[5] == '237k (72%, cpu 96%)*'
    assert cells[-1].startswith('saturates at 1120 processes')
    md = render(record, 'markdown')
    assert '## Scaling sweeps' in md
    assert '| file_stat [ops/s] |' in md and ')* |' in md


def test_html_draws_the_curve_with_the_point_marked(record):
    page = render(record, 'html')
    svgs = re.findall(r'<svg [^>]*class="sweep".*?</svg>', page)
    # E16's stat and dd's write_bw.
    assert len(svgs) == 2
    ns = '{http://www.w3.org/2000/svg}'
    root = ET.fromstring(next(s for s in svgs if 'file_stat' in s))
    [curve] = root.iter(f'{ns}polyline')
    points = [tuple(map(float, p.split(',')))
              for p in curve.get('points').split()]
    assert len(points) == len(NP)
    [mark] = [g for g in root.iter(f'{ns}g')
              if g.get('class') == 'saturation']
    [ring] = mark.iter(f'{ns}circle')
    # The ring sits on the NP 16 point of the curve, its highest.
    at = (float(ring.get('cx')), float(ring.get('cy')))
    assert at == pytest.approx(points[4], abs=0.11)
    assert at[1] == min(y for _, y in points)
    assert 'saturation 1120' in ''.join(mark.itertext())


def test_report_verb_draws_a_saved_record(record, tmp_path, monkeypatch):
    monkeypatch.setattr(cli.entry, 'VERBS', ['report'])
    path = tmp_path / 'gate.json'
    path.write_text(json.dumps(record))
    out = tmp_path / 'gate.html'
    code = cli.main(['report', str(path), '--format', 'html',
                     '--output', str(out)])
    assert code == record['exit_code']
    assert 'class="saturation"' in out.read_text()


def test_a_record_without_sweeps_still_renders(record):
    old = {k: v for k, v in record.items() if k != 'sweeps'}
    assert 'scaling sweeps' not in render(old, 'text')
    assert 'class="sweep"' not in render(old, 'html')
