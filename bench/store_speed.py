#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The results store at a site's scale: a year x 500 cases x 3 clusters.

For each backend (SQLite, and PostgreSQL 15 in a throw-away cluster as
tests/pgcluster.py starts one, or ``--pg-url``): ingests ``--nights``
nights of ``--cases`` test cases x ``--repeats`` repeats x two figures
(tests/synth.py's nightly history, as bench/gate_speed.py) for each of
``--clusters`` clusters, one ``pfsbench.store.ingest_report`` per night
as the nightly does; then, each in a fresh process (its peak memory its
own):

- *gate read*: what ``pfsbench gate --store`` reads of one cluster
  (``read_results`` with the gate's window, ``history_sessions`` + 1
  sessions; the history's series as the store keeps it, built once from
  every session at the end of the load, as ``pfsbench ingest`` does; and
  tonight's records);
- *one night's ingest*: one more night of one cluster (its rows);
- the gate read again with that night not yet in the kept series, by a
  role that may not write it (it appends the night in memory);
- the series brought up to date (``refresh_series``, what ``pfsbench
  ingest`` does after the rows);
- with ``--contention SECONDS``: cluster-1 ingests nights in a loop while
  cluster-0's gate reads repeatedly and a probe reads one row every
  20 ms (and counts PostgreSQL's waiting lock requests); the same
  without the ingest first: the worst delay a lock can have caused, and
  whether every night committed is in the store;

and prints wall seconds, CPU seconds and peak RSS (goals: gate read < 5
s, one night's ingest < 1 s, peak < 500 MiB).

Usage: nice python3 bench/store_speed.py [--nights 365] [--cases 500]
       [--clusters 3] [--backend sqlite --backend postgresql] [--replicate]
       [--contention 60]
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
# The synthetic results and the throw-away PostgreSQL are test helpers.
sys.path.insert(0, os.path.join(REPO, 'tests'))

import synth                                               # noqa: E402
from pfsbench import store                                 # noqa: E402
from pfsbench.gate.judge import config as gate_config      # noqa: E402

DAY = 86400.0
VARIABLES = ('write_bw', 'read_bw')


def peak_mib():
    """This process's peak resident memory: VmHWM (ru_maxrss would carry
    the parent's, the loader's, across fork and exec on Linux)."""
    try:
        with open('/proc/self/status') as fp:
            for line in fp:
                if line.startswith('VmHWM:'):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def night_reports(args, cluster, nights, start_night=0):
    """The nights of one cluster (its own seed: clusters differ)."""
    gen = synth.nightly_history(start_night + nights, args.cases,
                                repeats=args.repeats, seed=cluster,
                                variables=VARIABLES, start=1.7e9)
    for n, report in enumerate(gen):
        if n >= start_night:
            yield report


def later_nights(args, cluster, count, first):
    """``count`` nights of one cluster after its year, from night
    ``first`` on (their own seed: no year to generate and skip)."""
    return synth.nightly_history(count, args.cases, repeats=args.repeats,
                                 seed=1000 * (cluster + 1) + first,
                                 variables=VARIABLES,
                                 start=1.7e9 + first * DAY)


def populate(args, url):
    """The year of every cluster, committed every 30 nights (what is
    measured is the fresh night below; a commit per night would make the
    year an hour of fsyncs on this VM)."""
    times = []
    with store.open_store(url) as conn:
        for cluster in range(1 if args.replicate else args.clusters):
            name = f'cluster-{cluster}'
            for n, report in enumerate(night_reports(args, cluster,
                                                     args.nights)):
                t0 = time.perf_counter()
                store.ingest_report(conn, report, 'bench', system=name,
                                    commit=False)
                if n % 30 == 29:
                    conn.commit()
                times.append(time.perf_counter() - t0)
            conn.commit()
            print(f'  {name}: {args.nights} nights ingested '
                  f'(median {statistics.median(times):.3f} s per night)',
                  flush=True)
        if args.replicate:
            replicate(conn, args.clusters)
        # What pfsbench ingest does after a night: the gate's history
        # kept (built from every session here, the first time).
        for cluster in range(min(2, args.clusters) if args.contention
                             else 1):
            t0, c0 = time.perf_counter(), cpu()
            store.refresh_series(conn, f'cluster-{cluster}')
            print(f'  cluster-{cluster}: its series built from every '
                  f'session and kept: {time.perf_counter() - t0:.1f} s '
                  f'(CPU {cpu() - c0:.1f} s)', flush=True)
    return times


def replicate(conn, clusters):
    """Clusters 1.. as copies of cluster 0 under their own names and
    session uuids, made inside the database (INSERT ... SELECT): the
    volume of many clusters in minutes instead of an hour of ingests on
    a loaded VM.  Cluster 0 itself went in night by night."""
    columns = {}
    for table in ('pfsbench_sessions', 'pfsbench_cases', 'pfsbench_figures'):
        cur = conn.execute(f'SELECT * FROM {table} LIMIT 0')
        columns[table] = [d[0] for d in cur.description]
    for n in range(1, clusters):
        name, tail = f'cluster-{n}', f'-c{n}'
        for table, key, where in (
                ('pfsbench_sessions', 'uuid', "system = 'cluster-0'"),
                ('pfsbench_cases', 'session',
                 'session IN (SELECT uuid FROM pfsbench_sessions WHERE '
                 "system = 'cluster-0')"),
                ('pfsbench_figures', 'session', "system = 'cluster-0'")):
            select = ', '.join(
                f"{c} || '{tail}'" if c == key else
                f"'{name}'" if c == 'system' else c
                for c in columns[table])
            conn.execute(f'INSERT INTO {table} SELECT {select} FROM {table} '
                         f'WHERE {where}')
        conn.commit()
        print(f'  {name}: a copy of cluster-0 (INSERT ... SELECT)',
              flush=True)


def child(args):
    """One measurement in this (fresh) process; prints a JSON line."""
    url = args.child_url
    if args.child in ('read', 'read-behind'):
        # read: the gate's read with the series current (pfsbench ingest
        # keeps it); read-behind: a night stored since, read by a role
        # that may not write the series (it appends it in memory).
        window = gate_config.GateConfig().history_sessions + 1
        t0, c0 = time.perf_counter(), cpu()
        with store.open_store(url, create=False, migrate=False) as conn:
            connect = time.perf_counter() - t0
            t0 = time.perf_counter()
            results = store.read_results(conn, 'cluster-0', newest=window,
                                         keep=args.child == 'read')
        read = time.perf_counter() - t0
        series, _ = results.series()
        newest = results.ordered_sessions()[-1].uuid
        records = len(results.by_session(newest))
        total = time.perf_counter() - t0
        out = {'sessions': len(results.sessions),
               'history': len(series.uuids), 'records': records,
               'cases': len(series.cases), 'read_s': read,
               'connect_s': connect,
               'read_and_series_s': total, 'cpu_s': cpu() - c0}
    elif args.child == 'refresh':
        with store.open_store(url) as conn:
            t0, c0 = time.perf_counter(), cpu()
            store.refresh_series(conn, 'cluster-0')
        out = {'refresh_s': time.perf_counter() - t0, 'cpu_s': cpu() - c0}
    else:
        report = next(later_nights(args, 0, 1, args.nights))
        t0 = time.perf_counter()
        with store.open_store(url) as conn:
            connect = time.perf_counter() - t0
            t0, c0 = time.perf_counter(), cpu()
            store.ingest_report(conn, report, 'bench', system='cluster-0')
        out = {'ingest_s': time.perf_counter() - t0, 'cpu_s': cpu() - c0,
               'connect_s': connect}
    out['peak_mib'] = peak_mib()
    print(json.dumps(out))


def loop(args, body):
    """Run ``body()`` until ``--child-seconds`` passed; its durations."""
    times, waits = [], []
    end = time.monotonic() + args.child_seconds
    while time.monotonic() < end:
        t0, c0 = time.perf_counter(), cpu()
        body()
        times.append(time.perf_counter() - t0)
        waits.append(times[-1] - (cpu() - c0))
    loop.waits = waits
    return times


def child_writer(args):
    """cluster-1's nightly, night after night: its rows, then its series
    (what pfsbench ingest does), each night committed."""
    nights = later_nights(args, 1, 100000, args.nights + 10)
    stored = []
    with store.open_store(args.child_url) as conn:
        def night():
            uuid, _, added = store.ingest_report(conn, next(nights),
                                                 'bench', system='cluster-1')
            store.refresh_series(conn, 'cluster-1')
            stored.append(uuid)
        times = loop(args, night)
    return {'times': times, 'uuids': stored}


def child_reader(args):
    """cluster-0's gate, read after read (its series current: it writes
    nothing)."""
    window = gate_config.GateConfig().history_sessions + 1

    def read():
        with store.open_store(args.child_url, create=False,
                              migrate=False) as conn:
            results = store.read_results(conn, 'cluster-0', newest=window)
        results.series()
        results.by_session(results.ordered_sessions()[-1].uuid)
    times = loop(args, read)
    # Wall minus this process's CPU: what a read waited for (the server,
    # the disk, other processes, a lock).
    return {'times': times, 'waits': loop.waits}


def child_probe(args):
    """A one-row read of cluster-0's sessions every 20 ms on its own
    connection: its latency is what a lock makes a reader wait (its own
    work is a millisecond); on PostgreSQL also the most lock requests
    seen waiting at once (pg_locks, not granted)."""
    waiting = 0
    with store.open_store(args.child_url, create=False,
                          migrate=False) as conn:
        def probe():
            nonlocal waiting
            conn.execute('SELECT COUNT(*) FROM pfsbench_sessions WHERE '
                         'system = ?', ('cluster-0',)).fetchone()
            if conn.postgres:
                waiting = max(waiting, conn.execute(
                    'SELECT COUNT(*) FROM pg_locks WHERE NOT granted'
                ).fetchone()[0])
            conn.rollback()             # no snapshot held between probes
            time.sleep(0.02)
        times = loop(args, probe)
    return {'times': [t - 0.02 for t in times], 'waiting': waiting}


def contention(args, backend, url):
    """Issue 34: two clusters at the same moment lose nothing and never
    block each other's gate for more than a second."""
    def start(what):
        cmd = [sys.executable, os.path.abspath(__file__), '--child', what,
               '--child-url', url, '--child-seconds', str(args.contention),
               '--nights', str(args.nights), '--cases', str(args.cases),
               '--repeats', str(args.repeats)]
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)

    def finish(proc):
        out, _ = proc.communicate()
        if proc.returncode:
            raise SystemExit(f'{backend}: a contention child failed')
        return json.loads(out.strip().splitlines()[-1])

    def count():
        with store.open_store(url, create=False, migrate=False) as conn:
            return conn.execute('SELECT COUNT(*) FROM pfsbench_sessions '
                                "WHERE system = 'cluster-1'").fetchone()[0]

    def summary(times):
        times = sorted(times)
        return (f'{len(times)} x, median {statistics.median(times):.3f} s, '
                f'p99 {times[int(0.99 * (len(times) - 1))]:.3f} s, '
                f'max {times[-1]:.3f} s')

    print(f'  contention, {args.contention:g} s each:', flush=True)
    phases = {}
    for phase in ('alone', 'with cluster-1 ingesting'):
        before = count()
        procs = {'reader': start('reader'), 'probe': start('probe')}
        if phase != 'alone':
            procs['writer'] = start('writer')
        found = {name: finish(proc) for name, proc in procs.items()}
        phases[phase] = found
        print(f'    {phase}: cluster-0 gate reads '
              f'{summary(found["reader"]["times"])}; one-row probe '
              f'{summary(found["probe"]["times"])}' +
              (f'; lock requests waiting at once: at most '
               f'{found["probe"]["waiting"]}' if is_pg(url) else ''),
              flush=True)
        if 'writer' in found:
            writer = found['writer']
            stored = count() - before
            lost = 'none lost' if stored == len(writer['uuids']) else 'LOST'
            print(f'    cluster-1 nights ingested (rows + series): '
                  f'{summary(writer["times"])}; {len(writer["uuids"])} '
                  f'committed, {stored} in the store afterwards: {lost}',
                  flush=True)
    alone, busy = (phases[p] for p in phases)
    worst = max(busy['reader']['times']) - statistics.median(
        alone['reader']['times'])
    print(f'    worst delay a lock can have caused: gate read {worst:.3f} s '
          f'over the median alone (CPU contention included: 2 busy '
          f'processes); its longest wait (wall minus its CPU) '
          f'{max(busy["reader"]["waits"]):.3f} s against '
          f'{max(alone["reader"]["waits"]):.3f} s alone; one-row probe '
          f'{max(busy["probe"]["times"]):.3f} s against '
          f'{max(alone["probe"]["times"]):.3f} s alone', flush=True)


def is_pg(url):
    return url.startswith('postgres')


def measure(args, url, what):
    cmd = [sys.executable, os.path.abspath(__file__), '--child', what,
           '--child-url', url, '--nights', str(args.nights), '--cases',
           str(args.cases), '--repeats', str(args.repeats)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench(args, backend, url):
    print(f'{backend}: {args.clusters} clusters x {args.nights} nights x '
          f'{args.cases} cases x {args.repeats} repeats x {len(VARIABLES)} '
          'figures', flush=True)
    t0 = time.perf_counter()
    times = populate(args, url)
    print(f'  populated in {time.perf_counter() - t0:.0f} s (30 nights '
          f'per commit); per night: median {statistics.median(times):.3f} s, '
          f'max {max(times):.3f} s')
    read = measure(args, url, 'read')
    print(f'  gate read of one cluster, its series kept ({read["sessions"]} '
          f'sessions of a history of {read["history"]}, {read["cases"]} '
          f'cases; tonight\'s {read["records"]} records loaded): '
          f'{read["read_s"]:.2f} s, with the series and tonight\'s records '
          f'{read["read_and_series_s"]:.2f} s (CPU {read["cpu_s"]:.2f} s; '
          f'connecting before it {read["connect_s"]:.2f} s), '
          f'peak {read["peak_mib"]:.0f} MiB', flush=True)
    one = measure(args, url, 'ingest')
    print(f'  one night\'s ingest ({args.cases * args.repeats} cases, '
          f'{args.cases * args.repeats * len(VARIABLES)} figures): '
          f'{one["ingest_s"]:.3f} s (CPU {one["cpu_s"]:.3f} s; connecting '
          f'before it {one["connect_s"]:.2f} s), peak '
          f'{one["peak_mib"]:.0f} MiB', flush=True)
    behind = measure(args, url, 'read-behind')
    print(f'  gate read, that night not yet in the kept series, by a role '
          f'that may not write it: {behind["read_and_series_s"]:.2f} s '
          f'(CPU {behind["cpu_s"]:.2f} s), peak {behind["peak_mib"]:.0f} '
          'MiB', flush=True)
    fresh = measure(args, url, 'refresh')
    print(f'  the series brought up to date after that night (what '
          f'pfsbench ingest does after the rows): {fresh["refresh_s"]:.2f} '
          f's (CPU {fresh["cpu_s"]:.2f} s), peak {fresh["peak_mib"]:.0f} '
          'MiB', flush=True)
    if args.contention:
        contention(args, backend, url)
    return read, one


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--nights', type=int, default=365)
    parser.add_argument('--cases', type=int, default=500)
    parser.add_argument('--repeats', type=int, default=3)
    parser.add_argument('--clusters', type=int, default=3)
    parser.add_argument('--backend', action='append',
                        choices=('sqlite', 'postgresql'))
    parser.add_argument('--replicate', action='store_true',
                        help='ingest cluster 0 night by night, make the '
                             'others as its copies in SQL (minutes instead '
                             'of an hour on a loaded VM)')
    parser.add_argument('--pg-url', default=None,
                        help='an empty PostgreSQL database (default: a '
                             'throw-away cluster)')
    parser.add_argument('--contention', type=float, default=0,
                        metavar='SECONDS',
                        help='then, for SECONDS: cluster-1 ingests nights '
                             'in a loop while cluster-0\'s gate reads '
                             'repeatedly and a probe reads one row every '
                             '20 ms; the same without the ingest first')
    parser.add_argument('--child', help=argparse.SUPPRESS)
    parser.add_argument('--child-url', help=argparse.SUPPRESS)
    parser.add_argument('--child-seconds', type=float,
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child in ('writer', 'reader', 'probe'):
        print(json.dumps(globals()[f'child_{args.child}'](args)))
        return 0
    if args.child:
        child(args)
        return 0

    backends = args.backend or ['sqlite', 'postgresql']
    tmp = tempfile.mkdtemp(prefix='pfsbench-store-bench-')
    cluster = None
    try:
        for backend in backends:
            if backend == 'sqlite':
                bench(args, backend, os.path.join(tmp, 'store.sqlite'))
                continue
            url = args.pg_url
            if url is None:
                import pgcluster
                why = pgcluster.pg_missing()
                if why:
                    print(f'postgresql: skipped: {why}')
                    continue
                cluster = pgcluster.Cluster()
                os.environ['PGPASSFILE'] = cluster.passfile
                url = cluster.url
            bench(args, backend, url)
    finally:
        if cluster is not None:
            cluster.remove()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
