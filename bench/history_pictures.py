#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The pictures of docs/history-pictures.md, from a synthetic month: 30
nights of 2 test cases (tests/synth.py: 2 % noise between repeats, 3 %
between nights), a file-system
upgrade on night 20 (``fs_version`` 1.8 to 2.0) with a lasting loss of
20 %, the baseline the first 3 nights.  Writes into ``--out``:

* ``gate.html``: ``pfsbench gate --format html`` of the last night;
* ``history.html``: ``pfsbench history write_bw --format html`` of a
  SQLite store holding the month and the last night's pages (``pfsbench
  triage pages``);
* with ``--screenshot``, ``gate.png`` and ``history.png`` as Debian's
  ``chromium`` headless draws them (``--width`` px wide);
* with ``--images DIR``, the top of each page (its first plots) as
  ``DIR/history-pictures-gate.png`` and ``-store.png``: the pictures of
  docs/history-pictures.md.

Usage::

    bench/history_pictures.py --out runs/pictures --screenshot
    bench/history_pictures.py --out runs/pictures --images docs/img
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, '..'), os.path.join(HERE, '..', 'tests')]

import synth  # noqa: E402
from pfsbench import cli, store  # noqa: E402
from pfsbench.gate.judge import baseline        # noqa: E402
from pfsbench.gate.judge import config as gate_config  # noqa: E402
from pfsbench.gate.judge.record import run_gate  # noqa: E402
from pfsbench.gate.report import render  # noqa: E402
from pfsbench.store.runs import read_database  # noqa: E402
from pfsbench.notify.message import pages  # noqa: E402
from pfsbench.store import triage  # noqa: E402

NIGHTS, STEP_AT, STEP = 30, 20, -0.2

#: Pixels of each page the docs show: its head and first plot.
DOCS_HEIGHT = {'gate': 600, 'history': 500}

#: 2026-11-01 00:30 UTC: the month of the example.
START = 1793493000.0


#: Night-to-night noise: every figure of a night scaled by one draw of
#: ``1 + NIGHT_NOISE * N(0, 1)`` (a file system's nights differ by more
#: than its repeats within one).
NIGHT_NOISE = 0.03


def month(nights=NIGHTS, cases=2, seed=3):
    """The month's run reports, oldest first."""
    reports = list(synth.nightly_history(
        nights, cases, repeats=3, noise=0.02, step_night=STEP_AT, step=STEP,
        start=START, seed=seed))
    rng = random.Random(seed)
    for report in reports:
        scale = 1.0 + NIGHT_NOISE * rng.gauss(0, 1)
        for run in report['runs']:
            for case in run['testcases']:
                for perf in case['perfvalues'].values():
                    perf[0] *= scale
    return reports


def gate_record(reports, directory):
    """The gate's record of the last night against the first 3."""
    db = os.path.join(directory, 'results.db')
    synth.write_database(db, reports)
    results = read_database(db)
    uuids = [r['session_info']['uuid'] for r in reports]
    base = baseline.build(results, uuids[:3], 'before-upgrade')
    return run_gate(base, results, [uuids[-1]], gate_config.GateConfig())


def history_rows(reports, directory, record=None):
    """``figure_history`` of write_bw from a SQLite store of the month,
    and the store's URL; with the gate's ``record`` of the last night, its
    pages kept as ``pfsbench triage pages`` keeps them."""
    url = os.path.join(directory, 'store.sqlite')
    with store.open_store(url) as conn:
        for i, report in enumerate(reports):
            store.ingest_report(conn, report, f'night {i}')
        if record is not None:
            triage.keep_pages(conn, store.choose_system(conn, None),
                              pages(record), 'history_pictures')
        return store.figure_history(conn, 'write_bw'), url


def write_pages(out, directory):
    """``{name: path}`` of the two pages written into ``out``."""
    reports = month()
    record = gate_record(reports, directory)
    _, url = history_rows(reports, directory, record)
    paths = {name: os.path.join(out, f'{name}.html')
             for name in ('gate', 'history')}
    with open(paths['gate'], 'w') as fp:
        fp.write(render(record, 'html', max_plots=4))
    code = cli.main(['history', 'write_bw', '--store', url, '--format',
                     'html', '-o', paths['history']])
    if code:
        raise SystemExit(f'history_pictures: pfsbench history: exit {code}')
    return paths, record


def browser():
    """The path of a headless-capable Chromium, or ``None``."""
    for name in ('chromium', 'chromium-browser', 'google-chrome'):
        found = shutil.which(name)
        if found:
            return found
    return None


def screenshot(page, png, width=900, height=1400, timeout=60):
    """Draw ``page`` (an HTML file) into ``png`` with headless Chromium."""
    found = browser()
    if found is None:
        raise SystemExit('history_pictures: no chromium on PATH '
                         '(apt-get install chromium)')
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [found, '--headless', '--no-sandbox', '--disable-gpu',
             '--hide-scrollbars', f'--user-data-dir={profile}',
             f'--window-size={width},{height}', f'--screenshot={png}',
             'file://' + os.path.abspath(page)],
            check=True, capture_output=True, timeout=timeout)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--out', default='runs/pictures',
                        help='directory for the pages (default: %(default)s)')
    parser.add_argument('--screenshot', action='store_true',
                        help='also draw each page to a PNG with chromium')
    parser.add_argument('--width', type=int, default=900)
    parser.add_argument('--height', type=int, default=1400)
    parser.add_argument('--images', metavar='DIR', default=None,
                        help='draw the top of each page into DIR (the '
                             'docs\' pictures)')
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as directory:
        paths, record = write_pages(args.out, directory)
    for name, path in sorted(paths.items()):
        print(f'{name}: {path}')
        if args.screenshot:
            png = path[:-len('.html')] + '.png'
            screenshot(path, png, args.width, args.height)
            print(f'{name}: {png} ({os.path.getsize(png)} bytes)')
        if args.images:
            png = os.path.join(args.images, 'history-pictures-' + {
                'gate': 'gate', 'history': 'store'}[name] + '.png')
            screenshot(path, png, args.width, DOCS_HEIGHT[name])
            print(f'{name}: {png} ({os.path.getsize(png)} bytes)')
    print(json.dumps(record['summary']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
