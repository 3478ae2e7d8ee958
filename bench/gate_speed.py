#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Wall time of the gate over a year of nightly history.

Builds a synthetic ReFrame results database (ReFrame 4.10's SQLite schema,
data version 4.2 reports) of ``--nights`` sessions x ``--cases`` test cases
x ``--repeats`` repeats with two performance variables each, every test
case padded to ``--pad`` bytes of JSON (a real dd test case is ~4.4 kB),
with a -15 % step at night 300.  Then times each stage of
``pfsbench gate``: the first ingest (the gate reads a runs directory from
the results store beside it, ``pfsbench-store.sqlite``, and ingests what
that lacks first: the first time, every session), reading the sessions
back from the store, recording a baseline, comparing the last night,
history and change points over every variable, and rendering text, JUnit
and HTML (60 plots), and ``pfsbench gate`` as a user runs it.  "End to
end" counts from the second read on.

Usage: python3 bench/gate_speed.py [--nights 365] [--cases 500]
"""

import argparse
import contextlib
import os
import resource
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
# The synthetic results generator is test data, kept with the tests.
sys.path.insert(0, os.path.join(REPO, 'tests'))

import synth                                               # noqa: E402
from pfsbench import cli                                   # noqa: E402
from pfsbench.gate.judge import baseline as bl                   # noqa: E402
from pfsbench.gate.judge import config as gate_config            # noqa: E402
from pfsbench.gate.report import render                    # noqa: E402
from pfsbench.store.runs import local_store, read_database      # noqa: E402
from pfsbench.gate.store.history import history              # noqa: E402
from pfsbench.gate.judge.record import compare, run_gate       # noqa: E402


class Timer:
    """Times each stage: wall seconds and this process's CPU seconds (on
    a shared machine the wall time counts other processes too)."""

    def __init__(self):
        self.rows = []

    def __call__(self, label, fn, *args, **kwargs):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn(*args, **kwargs)
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        self.rows.append((label, dt, cpu))
        print(f'{label:55} {dt:8.2f} s  (CPU {cpu:6.2f} s)', flush=True)
        return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--nights', type=int, default=365)
    parser.add_argument('--cases', type=int, default=500)
    parser.add_argument('--repeats', type=int, default=3)
    parser.add_argument('--pad', type=int, default=4000,
                        help='bytes of filler per test case (default 4000)')
    parser.add_argument('--work', default=None,
                        help='directory for results.db (default: new tmp)')
    parser.add_argument('--keep-store', action='store_true',
                        help='keep the store a previous run wrote (default: '
                        'remove it, so the first read ingests every '
                        'session)')
    args = parser.parse_args()
    work = args.work or tempfile.mkdtemp(prefix='pfsbench-gate-speed-')
    os.makedirs(work, exist_ok=True)
    db = os.path.join(work, 'results.db')
    timer = Timer()
    print(f'python3 {" ".join(sys.argv)}')
    print(f'database: {db}')
    if not os.path.exists(db):
        def build():
            batch = []
            for rep in synth.nightly_history(
                    args.nights, args.cases, repeats=args.repeats,
                    noise=0.05, step_night=300, step=-0.15,
                    variables=('write_bw', 'read_bw'), pad=args.pad):
                batch.append(rep)
                if len(batch) == 20:
                    synth.write_database(db, batch)
                    batch = []

            synth.write_database(db, batch)

        timer('generate the synthetic database (not gate time)', build)

    size = os.path.getsize(db) / 2**20
    print(f'{args.nights} nights x {args.cases} cases x {args.repeats} '
          f'repeats x 2 variables; database {size:.0f} MiB')
    kept = local_store(db)
    if os.path.exists(kept) and not args.keep_store:
        os.unlink(kept)

    timer('first read: ingest every session into the store', read_database,
          db)
    results = timer('read the sessions (from the store)', read_database, db)
    print(f'  {len(results.sessions)} sessions (records read when asked '
          'for)')
    uuids = [s.uuid for s in results.ordered_sessions()]
    base = timer('record a baseline from the first 5 nights', bl.build,
                 results, uuids[:5], 'speed')
    cfg = gate_config.GateConfig()
    rows, missing, _, _ = timer('compare the last night (verdicts)', compare,
                                base, results, [uuids[-1]], cfg)
    hist = timer('history + change points of every variable', history,
                 results, rows, cfg)
    ncp = sum(len(h['changepoints']) for h in hist)
    print(f'  {len(rows)} variables, {ncp} change points, '
          f'{sum(r.verdict == "regression" for r in rows)} regressions')
    record = timer('run_gate (compare + history, as the CLI does)', run_gate,
                   base, results, [uuids[-1]], cfg)
    timer('render text', render, record, 'text')
    timer('render JUnit', render, record, 'junit')
    timer('render HTML (60 history plots + scaling plots)', render, record,
          'html', 60)
    counted = [(dt, cpu) for label, dt, cpu in timer.rows
               if label.startswith(('read the', 'record', 'run_gate',
                                    'render'))]
    print(f'gate end to end after the first read (read + baseline + '
          f'run_gate + 3 renders): {sum(d for d, _ in counted):.1f} s '
          f'(CPU {sum(c for _, c in counted):.1f} s)')
    bl.save(base, work, force=True)
    out = os.path.join(work, 'gate')

    def cli_gate():
        with open(os.devnull, 'w') as sink, \
                contextlib.redirect_stdout(sink):
            return cli.main(['gate', '-b', 'speed', '--db', db,
                             '--baseline-dir', work, '--session', 'latest',
                             '--junit', out + '.xml', '--html',
                             out + '.html'])

    code = timer('pfsbench gate --junit --html (the CLI, one process)',
                 cli_gate)
    print(f'  exit code {code}')
    small = timer('read only the newest 61 sessions (history_sessions: 60)',
                  read_database, db, newest=61)
    print(f'  {len(small.sessions)} sessions')
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    print(f'peak RSS {peak:.0f} MiB; CPU {cpu.ru_utime + cpu.ru_stime:.0f} '
          f's in all; {os.getloadavg()[0]:.1f} load average at the end')


if __name__ == '__main__':
    main()
