# SPDX-License-Identifier: BSD-3-Clause
"""scripts/nightly.sh after its gate: tonight's pages into the store, the
triage record beside the reports, the verdict posted (docs/notify.md,
docs/triage.md).  The script's own block, run by bash on a gate record of
a synthetic night, with a receiver on 127.0.0.1; ReFrame is not run."""

import pathlib
import subprocess
import threading

import pytest

from test_notify import SECRET, Receiver, _closed_port, gate_record

REPO = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = REPO / 'scripts' / 'nightly.sh'


def after_the_gate():
    """The nightly's lines from tonight's pages to its exit."""
    text = SCRIPT.read_text()
    start = text.index("# Tonight's pages into the store")
    end = text.index('exit "$verdict"')
    assert start < end
    return text[start:end]


def run_block(out, url, store, verdict=1, ingested=0):
    if not (REPO / '.venv' / 'bin' / 'pfsbench').exists():
        pytest.skip('scripts/nightly.sh runs .venv/bin/pfsbench: run '
                    'scripts/setup.sh first')
    script = (f'set -uo pipefail\nout={out}; verdict={verdict}; '
              f'ingested={ingested}; cluster=hawk; system=hawk:batch; '
              f"notify=(); notify_url='{url}'; "
              f'store=(--store {store} --system hawk); gate_config=()\n'
              + after_the_gate() + 'echo "verdict=$verdict"\n')
    done = subprocess.run(['bash', '-c', script], cwd=REPO, text=True,
                          capture_output=True, timeout=300)
    assert SECRET not in done.stdout + done.stderr
    return done


def test_a_regression_night_is_kept_counted_and_posted_once(tmp_path,
                                                           capsys):
    record = gate_record(tmp_path, capsys, 0.8)
    server = Receiver()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        done = run_block(tmp_path, server.url, tmp_path / 's.sqlite')
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == 'verdict=1'
    triage = (tmp_path / 'triage.txt').read_text().splitlines()
    assert triage[0].startswith('triage record of hawk: 1 night(s) ')
    assert f'nightly: {triage[0]}' in done.stdout
    assert len(server.posts) == 1
    text = server.posts[0][1]['text'].splitlines()
    assert text[0].startswith('pfsbench gate on hawk: REGRESSION')
    assert text[2:] == [triage[0], f'reports: {tmp_path}/gate.html']
    assert record.exists()


def test_a_receiver_that_is_down_leaves_the_verdict(tmp_path, capsys):
    gate_record(tmp_path, capsys, 0.8)
    done = run_block(tmp_path, f'http://127.0.0.1:{_closed_port()}/{SECRET}',
                     tmp_path / 's.sqlite', ingested=3)
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == 'verdict=1'
    assert 'pfsbench notify: warning: the notify URL in ' \
        '$PFSBENCH_NOTIFY_URL did not take the verdict' in done.stderr
