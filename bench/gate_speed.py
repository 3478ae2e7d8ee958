#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Wall time of the gate over a year of nightly history.

Builds a synthetic ReFrame results database (ReFrame 4.10's SQLite schema,
data version 4.2 reports) of ``--nights`` sessions x ``--cases`` test cases
x ``--repeats`` repeats with two performance variables each, every test
case padded to ``--pad`` bytes of JSON (a real dd test case is ~4.4 kB),
with a -15 % step at night 300, and a baseline of its first 5 nights.
Then runs ``pfsbench gate`` as a user does, each run a process of its
own (wall and CPU time, peak memory): the first run ingests every
session into the results store beside the database
(``pfsbench-store.sqlite``: the gate reads a runs directory from it, and
ingests what it lacks first), the second judges after that first ingest.
``--stages`` also times each stage in this process (reading the sessions
back, comparing the last night, history and change points over every
variable, rendering text, JUnit and HTML with 60 plots).

Usage: python3 bench/gate_speed.py [--nights 365] [--cases 500]
"""

import argparse
import itertools
import os
import resource
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
# The synthetic results generator is test data, kept with the tests.
sys.path.insert(0, os.path.join(REPO, 'tests'))

import synth                                               # noqa: E402
from pfsbench.gate.history.past import history              # noqa: E402
from pfsbench.gate.history.results import Results                 # noqa: E402
from pfsbench.gate.judge import baseline                         # noqa: E402
from pfsbench.gate.judge import config as gate_config            # noqa: E402
from pfsbench.gate.judge.record import compare, run_gate       # noqa: E402
from pfsbench.gate.report import render                    # noqa: E402
from pfsbench.store import runs                                 # noqa: E402
from pfsbench.store.runs import local_store, read_database      # noqa: E402


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
    parser.add_argument('--stages', action='store_true',
                        help='also time each stage in this process '
                        '(default: off)')
    parser.add_argument('--jobs', type=int, default=None,
                        help="the gate's --jobs (default: its own, the "
                        'cores it may use)')
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

    # The baseline from the first 5 nights' reports, read as report files
    # are (not gate time; the store is not touched).
    first = Results(db)
    for report, source in itertools.islice(runs.reports(work), 5):
        first.add_report(report, source)
    baseline.save(baseline.build(first,
                                 [s.uuid for s in first.ordered_sessions()],
                                 'speed'), work, force=True)
    out = os.path.join(work, 'gate')
    argv = [os.path.join(os.path.dirname(sys.executable), 'pfsbench'),
            'gate', '-b', 'speed', '--db', db, '--baseline-dir', work,
            '--session', 'latest', '--junit', out + '.xml', '--html',
            out + '.html'] + (['--jobs', str(args.jobs)] if args.jobs else [])
    print('$ ' + ' '.join(argv[1:]))
    code = process('pfsbench gate, first: ingests every session', argv)
    print(f'  exit code {code}')
    code = process('pfsbench gate (the CLI, after its first ingest)', argv)
    print(f'  exit code {code}')
    if args.stages:
        stages(timer, db, cfg=gate_config.load(None))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    print(f'peak RSS of this process {peak:.0f} MiB; '
          f'{os.getloadavg()[0]:.1f} load average at the end')


#: Run in the measured process: the CLI as its console script runs it,
#: writing the peak memory of its own image at exit.  The rusage of a
#: child counts the image it was started from (this bench's, up to a
#: few hundred MiB): a process's own peak is its ``VmHWM``.  A child
#: the CLI forks (``--jobs``) shares its parent's pages until it writes
#: them: it adds the pages it made its own, counted as it exits
#: (``Private_*`` of its ``smaps_rollup``; they only grow while it
#: runs).  The peak together is at most the parent's and every child's
#: own added up (as if all ran at once: some run one after the other).
_PEAK = """
import atexit, os, sys
def peak():
    try:
        with open('/proc/self/status') as status:
            for line in status:
                if line.startswith('VmHWM:'):
                    sys.stderr.write('peak-kib ' + line.split()[1] + chr(10))
    except OSError:
        pass
def own_pages():
    real = os._exit
    def leave(code):
        try:
            with open('/proc/self/smaps_rollup') as rollup:
                kib = sum(int(line.split()[1]) for line in rollup
                          if line.startswith('Private_'))
            sys.stderr.write('child-kib %d' % kib + chr(10))
            sys.stderr.flush()
        except OSError:
            pass
        real(code)
    os._exit = leave
atexit.register(peak)
os.register_at_fork(after_in_child=own_pages)
from pfsbench.cli.entry import main
sys.exit(main(sys.argv[1:]))
"""


def process(label, argv):
    """Run ``argv`` (``pfsbench ...``) in a process of its own: its wall
    and CPU time and peak memory; its exit code."""
    t0 = time.perf_counter()
    with open(os.devnull, 'w') as sink:
        proc = subprocess.Popen([sys.executable, '-c', _PEAK, *argv[1:]],
                                stdout=sink, stderr=subprocess.PIPE,
                                text=True)
        err = proc.stderr.read()
        _, status, use = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    dt = time.perf_counter() - t0
    peak, children = use.ru_maxrss, []
    for line in err.splitlines():
        if line.startswith('peak-kib '):
            peak = int(line.split()[1])
        elif line.startswith('child-kib '):
            children.append(int(line.split()[1]))
        else:
            print(line, file=sys.stderr)
    forks = ''
    if children:
        forks = (f', {len(children)} forked children (their own '
                 f'{"+".join(f"{c / 2**10:.0f}" for c in children)} MiB):'
                 f' at most {(peak + sum(children)) / 2**10:.0f} MiB '
                 'together')
    print(f'{label:55} {dt:8.2f} s  (CPU {use.ru_utime + use.ru_stime:6.2f}'
          f' s with its children, peak RSS {peak / 2**10:.0f} MiB{forks})',
          flush=True)
    return proc.returncode


def stages(timer, db, cfg):
    """Each stage of the gate in this process, for a profile's
    bearings."""
    results = timer('read the sessions (from the store)', read_database, db,
                    newest=cfg.history_sessions + 1)
    print(f'  {len(results.sessions)} sessions (records read when asked '
          'for)')
    uuids = [s.uuid for s in results.ordered_sessions()]
    base = timer('record a baseline from the first 5 nights', baseline.build,
                 results, uuids[:5], 'speed')
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


if __name__ == '__main__':
    main()
