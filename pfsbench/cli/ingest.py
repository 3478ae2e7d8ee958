# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench ingest``: run reports into the results store."""

import itertools
import os
import sys

from pfsbench import store
from pfsbench.core.errors import MissingData
from pfsbench.gate.history import runreport
from pfsbench.gate.history.results import default_runs_dir
from pfsbench.gate.judge import baseline
from pfsbench.store import db, runs, spool

HELP = 'load run reports (or a whole runs directory) into the results store'
DESCRIPTION = (
    'Load ReFrame run reports into the results store (SQLite under the runs '
    'directory by default; a site\'s PostgreSQL with --store '
    'postgresql://USER@HOST/DB, the password from PGPASSFILE or a service '
    'file, never in the URL). A session already stored is left as it is: '
    'loading twice is one session. --from-runs DIR loads a runs '
    "directory's ReFrame results database and its baselines. When the "
    'store does not answer, the reports wait in the spool directory and go '
    'in first with the next ingest (exit 3). Exit codes: 0 stored, 2 bad '
    'input or a store that refused the login or a grant (nothing spooled), '
    '3 the store did not answer (reports spooled).')
EXAMPLES = (
    'pfsbench ingest --from-runs runs --system hawk',
    'pfsbench ingest run-report-1234.json --store postgresql://pfsbench_'
    'ingest@db.example.org/pfsbench',
    'pfsbench ingest --from-runs runs --since 2026-11-26T18:00',
)


def add_arguments(parser):
    parser.add_argument(
        'reports', metavar='REPORT', nargs='*',
        help='ReFrame run report files (run-report-*.json)')
    parser.add_argument(
        '--from-runs', metavar='DIR', default=None,
        help="a runs directory: every session of its results.db and its "
             'baselines (default: none)')
    parser.add_argument(
        '--since', metavar='AGE', default=None,
        help='with --from-runs: only sessions started within AGE (30m, 12h, '
             '7d) or since a date (default: all)')
    parser.add_argument(
        '--store', metavar='URL', default=None,
        help='the results store: a file path, sqlite:///PATH or '
             'postgresql://USER@HOST[:PORT]/DB (default: $PFSBENCH_STORE, '
             'else store in the gate settings, else '
             f'<runs>/{db.SQLITE_FILE})')
    parser.add_argument(
        '--system', metavar='NAME', default=None,
        help="the cluster's name in the store (default: the ReFrame system "
             'of the test cases)')
    parser.add_argument(
        '--spool', metavar='DIR', default=None,
        help='where reports wait while the store does not answer (default: '
             f'<runs>/{spool.SPOOL_DIR})')
    parser.add_argument(
        '--config', metavar='FILE', default=None,
        help='gate settings naming the store (default: config/gate.yaml)')


def configured_store(path):
    """The store the gate's settings name, or None."""
    from pfsbench.gate.judge import config as gate_config
    return getattr(gate_config.load(path), 'store', None)


def run(args):
    from pfsbench.cli.sessions import parse_since

    runs_dir = args.from_runs or default_runs_dir()
    spool_dir = args.spool or spool.default_dir(
        os.environ.get('PFSBENCH_RUNS') or runs_dir)
    url = db.resolve_url(args.store, runs_dir, configured_store(args.config))
    if not args.reports and not args.from_runs and \
            not spool.waiting(spool_dir):
        raise MissingData('nothing to ingest: give REPORT files or '
                          '--from-runs DIR (the spool '
                          f'{spool_dir} is empty)')

    # Read what was asked for before the store is tried: a bad file is an
    # error of its own (exit 2), not a reason to spool.
    given = [(runreport.read(path), os.path.abspath(path))
             for path in args.reports]
    since = parse_since(args.since) if args.since else None
    from_runs = _from_runs(args, since)

    counts = {'added': 0, 'there': 0, 'into': set()}
    clusters = set()
    try:
        with store.open_store(url) as conn:
            _ingest(conn, args, spool_dir, given, from_runs, counts,
                    clusters)
            # The gate's history of each cluster that got a night, kept
            # current here (a gate with a read-only role reads it as it
            # is; a cache: where this role may not write it, nothing
            # happens).
            for cluster in sorted(counts['into']):
                store.refresh_series(conn, cluster, store.SERIES_LAG)
    except store.StoreDown as err:
        # Not there, or gone mid-way: what is not committed waits.  A
        # refused login (StoreRefused) is no reason to wait: exit 2.
        # The runs directory's read afresh: the store may have gone
        # mid-way through them.
        kept = [spool.put(spool_dir, report, args.system) for report, _ in
                itertools.chain(given, _from_runs(args, since))]
        print(f'pfsbench: {err}', file=sys.stderr)
        print(f'pfsbench: {len(kept)} report(s) wait in {spool_dir}; the '
              'next ingest loads them', file=sys.stderr)
        return store.StoreDown.exit_code

    print(f'pfsbench: {counts["added"]} session(s) stored, '
          f'{counts["there"]} already there, in {db.redact(url)}')
    return 0


def _from_runs(args, since):
    """``(report, source)`` of each session of ``--from-runs`` since
    ``since``, read as they are taken (none without the option)."""
    if not args.from_runs:
        return iter(())
    return runs.reports(args.from_runs, since=since)


def _ingest(conn, args, spool_dir, given, from_runs, counts, clusters):
    for path in spool.waiting(spool_dir):
        # Under the cluster it was kept for, whatever this ingest names.
        report, system = spool.read_for(path)
        _one(conn, report, path, system or args.system, counts, clusters)
        os.unlink(path)
    for report, source in given:
        _one(conn, report, source, args.system, counts, clusters)
    for report, source in from_runs:
        _one(conn, report, source, args.system, counts, clusters)
    if args.from_runs:
        for name, data, path in runs.baselines(args.from_runs):
            baseline.validate(data, path)
            cluster = args.system or (
                next(iter(clusters)) if len(clusters) == 1 else
                next((c.get('system') for c in data['cases']), None))
            done = store.save_baseline(conn, cluster or 'unknown', data)
            if done == 'differs':
                print(f'pfsbench: warning: {path}: baseline {name!r}: '
                      f'another baseline of that name is kept for '
                      f'{cluster}; left as it is (record under a new name)',
                      file=sys.stderr)
            else:
                print(f'baseline {name}: {done} for {cluster}')


def _one(conn, report, source, system, counts, clusters):
    uuid, cluster, added = store.ingest_report(conn, report, source, system)
    clusters.add(cluster)
    counts['added' if added else 'there'] += 1
    if added:
        counts['into'].add(cluster)
    print(f'{uuid}: {"stored" if added else "already stored"} '
          f'(cluster {cluster})')
