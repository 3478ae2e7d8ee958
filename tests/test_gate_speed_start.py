# SPDX-License-Identifier: BSD-3-Clause
"""The gate's serial start made cheaper reads and decides the same: the
sessions read without their kept figures, the kept figures still used
only where this pfsbench kept them (docs/gate-evidence.md, "Speed: a year
of nightlies"), and settings checked against their schema once per
unchanged file, as a baseline is; what the command made frozen for the
interpreter's exit."""

import gc
import hashlib
import json
import subprocess
import sys

from pfsbench import store
from pfsbench.store import ingest, records, series
import synth

DAY = 86400.0


def _night(day, value):
    uuid = f'{day:08d}-0000-4000-8000-000000000000'
    cases = [synth.make_testcase(
        uuid, 0, r, 'dd_a', {'write_bw': (value + r, 'MB/s')}, repeat=r,
        time=day * DAY + r) for r in range(3)]
    return synth.make_report(cases, time_start=day * DAY, session_uuid=uuid)


def _store(tmp_path, nights):
    url = str(tmp_path / 'pfsbench-store.sqlite')
    with store.open_store(url) as conn:
        for day, value in enumerate(nights):
            store.ingest_report(conn, _night(day, value), f'r{day}.json')
    return url


def test_the_sessions_are_read_without_their_kept_figures(tmp_path):
    url = _store(tmp_path, [400.0, 410.0])
    statements = []
    with store.open_store(url) as conn:
        conn.conn.set_trace_callback(statements.append)
        got = records.sessions_of(conn, 'local')
    assert [s.time_start for s in got.values()] == [0.0, DAY]
    reads = [s for s in statements if 'pfsbench_sessions' in s]
    assert reads
    assert not any('figures' in s for s in reads), reads


def test_kept_figures_of_another_stamp_are_computed_from_the_rows(
        tmp_path):
    url = _store(tmp_path, [400.0, 410.0, 420.0])
    with store.open_store(url) as conn:
        # Night 1 kept night 0's figures under this pfsbench's stamp,
        # night 2 night 0's under another one: only night 1's are used.
        kept = dict(conn.execute('SELECT uuid, figures FROM '
                                 'pfsbench_sessions'))
        uuids = sorted(kept)
        for uuid, stamp in ((uuids[1], ingest.FIGURES_STAMP),
                            (uuids[2], 'another pfsbench')):
            conn.execute('UPDATE pfsbench_sessions SET figures = ?, '
                         'figures_stamp = ? WHERE uuid = ?',
                         (kept[uuids[0]], stamp, uuid))
        conn.commit()
        got = series.synced_series(conn, 'local', None,
                                   records.sessions_of(conn, 'local'),
                                   100, False)
    (columns,) = got.cases.values()
    assert list(columns.columns['write_bw'][0]) == [401.0, 401.0, 421.0]


def _load_in_child(path):
    """``(loaded, jsonschema imported)`` of gate settings loaded by a
    fresh interpreter (the tolerance, or the error's message)."""
    code = ('import sys\n'
            'from pfsbench.core.errors import ConfigError\n'
            'from pfsbench.gate.judge import config\n'
            'try:\n'
            f'    print(config.load({str(path)!r}).tolerance)\n'
            'except ConfigError as err:\n'
            '    print(err)\n'
            'print("jsonschema" in sys.modules)\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True,
                         text=True, check=True).stdout.split('\n')
    return out[0], out[1] == 'True'


def test_settings_that_passed_are_not_checked_again_until_they_change(
        tmp_path):
    path = tmp_path / 'gate.yaml'
    path.write_text('tolerance: 0.07\n')
    assert _load_in_child(path) == ('0.07', True)
    assert (tmp_path / '.gate.yaml.checked').exists()
    assert _load_in_child(path) == ('0.07', False)
    # Other bytes under the same mark: checked, refused, and not marked.
    path.write_text('tolerance: "x"\n')
    bad = f"{path}:tolerance: 'x': expected a number in (0.0, 10.0]"
    assert _load_in_child(path) == (bad, True)
    assert _load_in_child(path) == (bad, True)
    # The checks the schema cannot state run each time.
    path.write_text('tolerance: 0.07\nlookback:\n  detect: 0.1\n')
    assert _load_in_child(path)[0] == '0.07'
    path.write_text('tolerance: 0.07\nlookback:\n  detect: 0.01\n')
    for _ in range(2):
        assert _load_in_child(path)[0].startswith(
            f'{path}:lookback.detect: 0.01: must be at least the tolerance')


def test_settings_errors_name_the_file_as_before(tmp_path):
    bad = tmp_path / 'bad.yaml'
    bad.write_text('tolerance: [1,\n  x: {\n')
    assert _load_in_child(bad)[0] == (
        f'{bad}:<yaml>: None: while parsing a flow node did not find '
        f'expected node content   in "{bad}", line 3, column 1')
    latin = tmp_path / 'latin.yaml'
    latin.write_bytes(b'tolerance: 0.05\nname: "\xff"\n')
    assert _load_in_child(latin)[0] == (
        f'{latin}:<yaml>: None: not UTF-8: byte 0xff at offset 23')
    assert not (tmp_path / '.bad.yaml.checked').exists()


def test_the_schemas_fingerprint_is_importlib_resources_listing():
    from importlib import resources

    from pfsbench.schemas import loader, validation
    sha = hashlib.sha256()
    files = resources.files('pfsbench.schemas')
    listed = sorted(files.iterdir(), key=lambda e: e.name)
    for entry in listed:
        if entry.is_file() and entry.name.endswith(('.json', '.py')):
            sha.update(entry.name.encode() + b'\0' + entry.read_bytes())
    assert sum(e.name.endswith('.json') for e in listed) >= 5
    assert validation.fingerprint() == sha.hexdigest()
    assert loader.load('gate.json') == json.loads(
        files.joinpath('gate.json').read_text())


def test_what_the_command_made_is_frozen_for_the_exit(monkeypatch):
    import argparse

    from pfsbench.cli import gate

    made = []
    monkeypatch.setattr(gate, '_run', lambda args, jobs: (
        made.extend([i] for i in range(2000)), gc.isenabled())[1])
    gc.unfreeze()
    try:
        assert gate.run(argparse.Namespace(jobs=1)) is False
        assert gc.isenabled() and len(made) == 2000
        assert gc.get_freeze_count() >= len(made)
    finally:
        gc.unfreeze()


def test_the_settings_mark_is_beside_them_and_spares_the_check(
        tmp_path, monkeypatch):
    from pfsbench.gate.judge import config
    from pfsbench.schemas import validation

    path = tmp_path / 'gate.yaml'
    path.write_text('tolerance: 0.07\n')
    monkeypatch.chdir(tmp_path.parent)
    checks = []
    real = validation.check
    monkeypatch.setattr(validation, 'check', lambda *a, **k: (
        checks.append(a[2]), real(*a, **k)))
    assert config.load(str(path)).tolerance == 0.07
    assert checks == [str(path)]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        '.gate.yaml.checked', 'gate.yaml']
    assert len((tmp_path / '.gate.yaml.checked').read_text().strip()) == 64
    assert config.load(str(path)).tolerance == 0.07
    assert checks == [str(path)]
