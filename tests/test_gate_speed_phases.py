# SPDX-License-Identifier: BSD-3-Clause
"""The gate command's phases after the cases: the history, the labels,
the reports and the exit, laid out so both cores finish together, give
what one process gives (docs/gate-evidence.md, "Speed: a year of
nightlies")."""

import gc
import subprocess
import sys
import weakref

import synth
from pfsbench.cli import entry
from pfsbench.gate.judge import baseline
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


def test_the_command_leaves_only_its_last_run_to_the_exit(tmp_path, capsys,
                                                          monkeypatch):
    db = _gate_dir(tmp_path)
    module = entry.verb_module('gate')
    real, seen, hooks = module.run_gate, [], []
    monkeypatch.setattr(module, '_LEFT', [])
    monkeypatch.setattr(module.atexit, 'register', hooks.append)
    monkeypatch.setattr(module, 'run_gate', lambda *a, **k: (
        seen.append(weakref.ref(a[1])) or real(*a, **k)))
    argv = ['gate', '-b', 'pre', '--db', db, '--baseline-dir', str(tmp_path)]
    codes = [entry.main(argv), entry.main(argv)]
    gc.collect()
    left = module._LEFT
    assert codes == [1, 1] and hooks == [gc.freeze]
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
                         text=True, timeout=120)
    assert out.returncode == 1, out.stderr
    assert out.stdout.startswith('buffered ')
    assert 'pfsbench gate:' in out.stdout
    assert out.stdout.endswith('atexit ran\n')
