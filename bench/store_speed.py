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
  sessions) and the history's series built from it;
- *one night's ingest*: one more night of one cluster;

and prints wall seconds, CPU seconds and peak RSS (goals: gate read < 5
s, one night's ingest < 1 s, peak < 500 MiB).

Usage: nice python3 bench/store_speed.py [--nights 365] [--cases 500]
       [--clusters 3] [--backend sqlite --backend postgresql]
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
    if args.child == 'read':
        window = gate_config.GateConfig().history_sessions + 1
        t0, c0 = time.perf_counter(), cpu()
        with store.open_store(url, create=False, migrate=False) as conn:
            connect = time.perf_counter() - t0
            t0 = time.perf_counter()
            results = store.read_results(conn, 'cluster-0', newest=window)
        read = time.perf_counter() - t0
        series, _ = results.series()
        total = time.perf_counter() - t0
        out = {'sessions': len(results.sessions),
               'records': sum(len(results.by_session(u))
                              for u in list(results.sessions)[:1]) *
               len(results.sessions),
               'cases': len(series.cases), 'read_s': read,
               'connect_s': connect,
               'read_and_series_s': total, 'cpu_s': cpu() - c0}
    else:
        report = next(night_reports(args, 0, 1, start_night=args.nights))
        t0 = time.perf_counter()
        with store.open_store(url) as conn:
            connect = time.perf_counter() - t0
            t0, c0 = time.perf_counter(), cpu()
            store.ingest_report(conn, report, 'bench', system='cluster-0')
        out = {'ingest_s': time.perf_counter() - t0, 'cpu_s': cpu() - c0,
               'connect_s': connect}
    out['peak_mib'] = peak_mib()
    print(json.dumps(out))


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
    print(f'  gate read of one cluster ({read["sessions"]} sessions, '
          f'~{read["records"]} records, {read["cases"]} cases): '
          f'{read["read_s"]:.2f} s, with the series '
          f'{read["read_and_series_s"]:.2f} s (CPU {read["cpu_s"]:.2f} s; '
          f'connecting before it {read["connect_s"]:.2f} s), '
          f'peak {read["peak_mib"]:.0f} MiB')
    one = measure(args, url, 'ingest')
    print(f'  one night\'s ingest ({args.cases * args.repeats} cases, '
          f'{args.cases * args.repeats * len(VARIABLES)} figures): '
          f'{one["ingest_s"]:.3f} s (CPU {one["cpu_s"]:.3f} s; connecting '
          f'before it {one["connect_s"]:.2f} s), peak '
          f'{one["peak_mib"]:.0f} MiB', flush=True)
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
    parser.add_argument('--child', help=argparse.SUPPRESS)
    parser.add_argument('--child-url', help=argparse.SUPPRESS)
    args = parser.parse_args()
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
