#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Three clusters, one PostgreSQL: nights of scripts/nightly.sh --store on
``localslurm:srun``, ``localslurm:mfs`` (the MooseFS of tests/mfs) and
``local``, each under its own name in one results store, and PostgreSQL
stopped during one cluster's night (docs/results-store.md, issue 34).

Each cluster has its own runs directory (its own login node) and target.
First a baseline night (a ReFrame run of the case, recorded as baseline
``pre``) and the cluster's existing history imported (``pfsbench ingest
--from-runs``); then ``--nights`` nights of each cluster in turn
(``--others-nights`` of those but the down one) through
scripts/nightly.sh with ``--store``.  Before ``--down-cluster``'s night
``--down-night`` PostgreSQL is stopped, after it started again.  Before
the last night a twin of the down cluster's newest session (the same
ReFrame system and partition, a new session uuid: a second machine
running the same site configuration) is ingested under the cluster name
``twin``: no gate of the down cluster may read it.

Asserts, and prints:

* every night gives a verdict (gate exit 0 or 1) with its reports, the
  down night included (from the local runs directory, saying the store
  did not answer, its report kept in the spool);
* the next night of that cluster loads the spool: the spool is empty
  afterwards and the store holds that night;
* each cluster's sessions in the store are exactly those of its own runs
  directory (nothing lost, nothing foreign), each figure row once (the
  rows equal the reports' figures), and each cluster holds only its own
  ReFrame system and partition;
* every gate read from the store read its own cluster only (the sessions
  its JSON report names are its own: tonight's, the history's, the
  baseline's);
* ``pfsbench history`` lists every cluster with its nights.

Needs root, ``tests/localslurm/localslurm.sh up``, ``tests/mfs/mfs.sh
up``, Debian's PostgreSQL 15 (a throw-away cluster on 127.0.0.1,
tests/pgcluster.py, removed at the end) and ``scripts/setup.sh``
(``.venv``).  Everything goes under ``--work``.

``--parallel`` runs the three clusters at once (three login nodes
starting their nightlies at the same hour; their targets differ): the
baseline nights together, then each night's three together, the store
stopped for all three on ``--down-night``.

Usage: python3 bench/store_clusters.py --work DIR [--nights 2]
       [--repeat 2] [--count 16] [--down-night 1]
       [--down-cluster localslurm-mfs] [--others-nights N] [--parallel]
       [--json FILE]
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time
import uuid as uuidlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, 'tests'))
sys.path.insert(0, HERE)
sys.path.insert(0, REPO)

from conftest import reframe_env, slurm_env  # noqa: E402
from nightly_month import gate_config  # noqa: E402
from pgcluster import Cluster, pg_missing  # noqa: E402
from test_mfs import TARGET as MFS_TARGET  # noqa: E402

BASELINE = 'pre'
#: The one case of every cluster: one dd stream on one node (E6), one dd
#: run per job (the nightly's repeats are the gate's samples).
CASE = 'dd_stream_per_node'
FIGURE = 'write_bw'
TWIN = 'twin'
REPORTS = ('gate.md', 'gate.xml', 'gate.html', 'gate.json')

#: ``(name in the store, --system, give --cluster?)``.  ``local`` goes in
#: under its default name (the ReFrame system): the nightly names it
#: to the gate itself.
CLUSTERS = (
    ('localslurm-srun', 'localslurm:srun', True),
    ('localslurm-mfs', 'localslurm:mfs', True),
    ('local', 'local:default', False),
)


def load():
    with open('/proc/loadavg') as fp:
        return ' '.join(fp.read().split()[:3])


def venv(tool):
    return os.path.join(REPO, '.venv', 'bin', tool)


class Site:
    def __init__(self, args, pg, url):
        self.args = args
        self.pg = pg
        self.url = url
        self.work = os.path.abspath(args.work)
        os.makedirs(self.work, exist_ok=True)
        self.gate_config = gate_config(self.work)
        self.clusters = {}
        slurm = slurm_env()
        for name, system, named in CLUSTERS:
            home = os.path.join(self.work, name)
            runs = os.path.join(home, 'runs')
            target = MFS_TARGET if system == 'localslurm:mfs' else \
                os.path.join(home, 'target')
            os.makedirs(runs, exist_ok=True)
            os.makedirs(target, exist_ok=True)
            env = reframe_env(runs, slurm if system.startswith('localslurm')
                              else None)
            env['PGPASSFILE'] = pg.passfile
            env['PATH'] = os.path.dirname(venv('pfsbench')) + os.pathsep + \
                env['PATH']
            env.pop('PFSBENCH_STORE', None)
            selection = ['-n', CASE, '-P', 'nodes=1', '-S', 'repeats=1',
                         '-S', f'count={args.count}']
            if system.startswith('local:'):
                # The client-CPU probe marks a local case contended when
                # others use the host's CPUs (here: the other clusters, the
                # other helpers); what this run tests is the store.
                selection += ['-S', 'client_cpu_share=1']
            self.clusters[name] = {'name': name, 'system': system,
                                   'named': named, 'home': home,
                                   'runs': runs, 'target': target,
                                   'env': env, 'selection': selection}
        self.nights = []
        self.twin = None

    def run(self, argv, cluster, log, timeout=900):
        with open(log, 'w') as out:
            proc = subprocess.run(argv, cwd=REPO, env=cluster['env'],
                                  stdout=out, stderr=subprocess.STDOUT,
                                  timeout=timeout)
        with open(log) as fp:
            return proc.returncode, fp.read()

    def baseline(self, cluster, attempts=3):
        """A baseline night (ReFrame alone), recorded as ``pre``, and the
        runs directory's history imported into the store.  A night whose
        every sample the probes marked contended (another job on the node,
        foreign I/O on the disk: this host is shared) records no baseline:
        it is run again, up to ``attempts`` nights."""
        started = time.time()
        for attempt in range(1, attempts + 1):
            proc = self._baseline_night(cluster)
            cluster['baseline_nights'] = attempt
            if proc.returncode == 0 or 'contended' not in proc.stdout or \
                    attempt == attempts:
                break
            print(f'{cluster["name"]}: baseline night {attempt} contended, '
                  f'again: {proc.stdout.strip()}', flush=True)
        if proc.returncode != 0:
            raise SystemExit(f'store_clusters: {cluster["name"]}: pfsbench '
                             f'baseline record: {proc.stdout.strip()}')
        argv = [venv('pfsbench'), 'ingest', '--from-runs', cluster['runs'],
                '--store', self.url]
        if cluster['named']:
            argv += ['--system', cluster['name']]
        proc = subprocess.run(argv, env=cluster['env'],
                              stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT,
                              universal_newlines=True)
        if proc.returncode != 0:
            raise SystemExit(f'store_clusters: {cluster["name"]}: pfsbench '
                             f'ingest --from-runs: {proc.stdout.strip()}')
        wall = round(time.time() - started)
        print(f'{cluster["name"]}: baseline night and import in {wall} s '
              f'(load {load()})', flush=True)
        return wall

    def _baseline_night(self, cluster):
        since = time.strftime('%Y-%m-%dT%H:%M:%S')
        proc = subprocess.run(
            [venv('pfsbench'), 'session-extras', '--target',
             cluster['target'], '--system', cluster['system']],
            env=cluster['env'], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, universal_newlines=True)
        if proc.returncode != 0:
            raise SystemExit(f'store_clusters: {cluster["name"]}: pfsbench '
                             f'session-extras: {proc.stdout.strip()}')
        extras = proc.stdout.strip()
        code, text = self.run(
            [venv('reframe'), '-C', 'config/settings.py', '--system',
             cluster['system'], '-c', 'reframe-checks/dd', '-r',
             '--repeat', str(self.args.repeat), '--session-extras', extras,
             *cluster['selection']], cluster,
            os.path.join(cluster['home'], 'baseline.log'))
        if code != 0:
            raise SystemExit(f'store_clusters: {cluster["name"]}: the '
                             f'baseline night failed (reframe exit {code}):'
                             f'\n{text[-3000:]}')
        return subprocess.run(
            [venv('pfsbench'), 'baseline', 'record', BASELINE, '--since',
             since], env=cluster['env'], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, universal_newlines=True)

    def night(self, n, cluster, down):
        """Night ``n`` of ``cluster`` through scripts/nightly.sh; with
        ``down`` the store is stopped for it (by the caller when the
        clusters run at once)."""
        stop = down and not self.args.parallel
        out = os.path.join(cluster['home'], 'nights', f'{n:02d}')
        os.makedirs(out, exist_ok=True)
        argv = ['bash', 'scripts/nightly.sh', '--system', cluster['system'],
                '--baseline', BASELINE, '--target', cluster['target'],
                '--tags', 'dd', '--repeat', str(self.args.repeat), '--out',
                out, '--gate-config', self.gate_config, '--store', self.url,
                # The night's cases are named after --: no night window.
                '--budget', '0']
        if cluster['named']:
            argv += ['--cluster', cluster['name']]
        argv += ['--', *cluster['selection']]
        spool = os.path.join(cluster['runs'], 'store-spool')
        spooled_before = _spooled(spool)
        if stop:
            self.pg.stop()
        started = time.time()
        try:
            code, text = self.run(argv, cluster,
                                  os.path.join(out, 'nightly.log'))
        finally:
            if stop:
                self.pg.start()
        try:
            with open(os.path.join(out, 'gate.json')) as fp:
                record = json.load(fp)
        except (OSError, ValueError):
            record = {}
        night = {
            'night': n, 'cluster': cluster['name'], 'store_down': down,
            'exit': code, 'wall_s': round(time.time() - started, 1),
            'load': load(),
            'tagged': 'fs_type=' in text,
            'said_down': 'nightly: the results store did not answer' in text,
            'stored': "nightly: tonight's sessions are in the results "
                      'store' in text,
            'spooled_before': spooled_before,
            'spooled_after': _spooled(spool),
            'gate_source': record.get('source', ''),
            'summary': record.get('summary', {}),
            'sessions': sorted(_sessions_named(record)),
            'current': [s['uuid'] for s in record.get('current_sessions',
                                                      [])],
            'cases': sorted({r['case'] for r in record.get('results', [])}),
            'reports': all(os.path.exists(os.path.join(out, f)) and
                           os.path.getsize(os.path.join(out, f)) > 0
                           for f in REPORTS),
            'log': os.path.join(out, 'nightly.log'),
        }
        self.nights.append(night)
        print(row(night), flush=True)
        return night

    def nights_of(self, name):
        """How many nights cluster ``name`` runs after its baseline."""
        if name == self.args.down_cluster or self.args.others_nights is None:
            return self.args.nights
        return self.args.others_nights

    def add_twin(self):
        """The newest session of ``--down-cluster`` (it runs the last
        night) again, under a new uuid, as the cluster ``twin``."""
        from pfsbench.store import runs
        cluster = self.clusters[self.args.down_cluster]
        report = list(runs.reports(cluster['runs']))[-1][0]
        report['session_info']['uuid'] = str(uuidlib.uuid4())
        path = os.path.join(self.work, 'twin-report.json')
        with open(path, 'w') as fp:
            json.dump(report, fp)
        proc = subprocess.run(
            [venv('pfsbench'), 'ingest', path, '--store', self.url,
             '--system', TWIN], env=cluster['env'], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, universal_newlines=True)
        if proc.returncode != 0:
            raise SystemExit(f'store_clusters: the twin: {proc.stdout}')
        self.twin = report['session_info']['uuid']

    def history(self):
        cluster = self.clusters['local']
        out = {}
        for fmt in ('json', 'text'):
            proc = subprocess.run(
                [venv('pfsbench'), 'history', FIGURE, '--store', self.url,
                 '--format', fmt], env=cluster['env'],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                universal_newlines=True)
            out[fmt] = (proc.returncode, proc.stdout)
        rows = json.loads(out['json'][1])['rows'] if out['json'][0] == 0 \
            else []
        nights = {}
        for r in rows:
            nights.setdefault(r['system'], set()).add(r['session'])
        return {'exit': out['json'][0], 'text_exit': out['text'][0],
                'text_head': out['text'][1].splitlines()[:1],
                'nights': {s: len(u) for s, u in sorted(nights.items())}}

    def store_facts(self):
        """Per cluster: its sessions, rows and ReFrame partitions in the
        store, beside what its runs directory holds."""
        from pfsbench import store
        from pfsbench.gate.history.results import records_of_report
        from pfsbench.store import runs

        facts = {}
        with store.open_store(self.url, create=False, migrate=False) as db:
            for name, cluster in self.clusters.items():
                own, figures = set(), 0
                for report, source in runs.reports(cluster['runs']):
                    session, records = records_of_report(report, source)
                    own.add(session.uuid)
                    figures += sum(len(r.perf) for r in records)
                stored = {u for u, in db.execute(
                    'SELECT uuid FROM pfsbench_sessions WHERE system = ?',
                    (name,))}
                rows = db.execute(
                    'SELECT COUNT(*), COUNT(DISTINCT session) FROM '
                    'pfsbench_figures WHERE system = ?', (name,)).fetchone()
                parts = sorted(f'{s}:{p}' for s, p in db.execute(
                    'SELECT DISTINCT rf_system, partition FROM '
                    'pfsbench_figures WHERE system = ?', (name,)))
                facts[name] = {
                    'runs_sessions': len(own), 'store_sessions': len(stored),
                    'missing': sorted(own - stored),
                    'foreign': sorted(stored - own),
                    'figure_rows': rows[0], 'report_figures': figures,
                    'partitions': parts, 'own': sorted(own),
                    'spooled': _spooled(os.path.join(cluster['runs'],
                                                     'store-spool'))}
            facts['_sessions_total'] = db.execute(
                'SELECT COUNT(*) FROM pfsbench_sessions').fetchone()[0]
            facts['_duplicate_rows'] = db.execute(
                'SELECT COUNT(*) FROM (SELECT session, seq, pos FROM '
                'pfsbench_figures GROUP BY session, seq, pos HAVING '
                'COUNT(*) > 1) AS d').fetchone()[0]
        return facts


def _spooled(directory):
    try:
        return len([f for f in os.listdir(directory) if f.endswith('.json')])
    except FileNotFoundError:
        return 0


def _sessions_named(record):
    """Every session uuid a gate's JSON report names: tonight's, the
    history's points and change points, the baseline's."""
    found = {s['uuid'] for s in record.get('current_sessions', [])}
    found.update(record.get('baseline', {}).get('sessions', []))
    for hist in record.get('history', []):
        found.update(p['session'] for p in hist.get('points', []))
        for change in hist.get('changepoints', []):
            found.update(change[k] for k in ('session', 'previous_session')
                         if change.get(k))
    return found


def row(night):
    s = night['summary']
    verdicts = '/'.join(str(s.get(k, 0)) for k in ('regression',
                                                   'inconclusive', 'pass'))
    store = ('DOWN, spooled' if night['said_down'] else
             'stored' if night['stored'] else 'not stored')
    return (f"| {night['night']} | {night['cluster']} | {store} | "
            f"{night['spooled_before']} -> {night['spooled_after']} | "
            f"{verdicts} | {night['exit']} | {night['wall_s']:.0f} |")


HEADER = ('| night | cluster | store | spool files before -> after | '
          'verdicts (reg/inc/pass) | gate exit | wall s |\n'
          '|---|---|---|---|---|---|---|')


def assertions(site, facts, history):
    out = []
    for n in site.nights:
        label = f"night {n['night']} of {n['cluster']}"
        out.append((n['exit'] in (0, 1) and n['reports'] and n['tagged'],
                    f"{label}: a verdict (gate exit {n['exit']}), its four "
                    'reports, the session tagged' + (' with the store down' if
                                      n['store_down'] else '')))
        cluster = site.clusters[n['cluster']]
        own = set(facts[n['cluster']]['own'])
        foreign = set(n['sessions']) - own
        out.append((not foreign and bool(n['current']),
                    f'{label}: the gate read its own sessions only '
                    f"({len(n['sessions'])} named"
                    + (f", foreign: {sorted(foreign)}" if foreign else '')
                    + ')'))
        if n['store_down']:
            out.append((n['said_down'] and n['spooled_after'] ==
                        n['spooled_before'] + 1 and
                        n['gate_source'].endswith('results.db'),
                        f'{label}: the store down: said so, the night '
                        f"spooled ({n['spooled_before']} -> "
                        f"{n['spooled_after']} files), judged from "
                        f"{n['gate_source']}"))
        else:
            out.append((n['stored'] and n['spooled_after'] == 0 and
                        f"(cluster {n['cluster']})" in n['gate_source'],
                        f"{label}: stored (spool {n['spooled_before']} -> "
                        f"{n['spooled_after']}), judged from "
                        f"{n['gate_source']}"))
        wrong = [c for c in n['cases']
                 if not c.endswith(f"@{cluster['system']}+builtin")]
        out.append((not wrong, f"{label}: its own cases only"
                    + (f' (not: {wrong})' if wrong else '')))
    for name, system, _ in CLUSTERS:
        f = facts[name]
        out.append((not f['missing'] and not f['foreign'] and
                    f['store_sessions'] == site.clusters[name][
                        'baseline_nights'] + site.nights_of(name),
                    f"{name}: {f['store_sessions']} sessions stored, "
                    f"{f['runs_sessions']} in its runs directory "
                    f"(missing {f['missing']}, foreign {f['foreign']})"))
        out.append((f['figure_rows'] == f['report_figures'],
                    f"{name}: {f['figure_rows']} figure rows, the reports "
                    f"hold {f['report_figures']}"))
        out.append((f['partitions'] == [system],
                    f"{name}: ReFrame partitions stored {f['partitions']}"))
        out.append((f['spooled'] == 0, f"{name}: {f['spooled']} report(s) "
                    'left in the spool'))
    out.append((facts['_duplicate_rows'] == 0,
                f"{facts['_duplicate_rows']} duplicated figure rows"))
    want = {name: site.clusters[name]['baseline_nights'] +
            site.nights_of(name) for name, _, _ in CLUSTERS}
    want[TWIN] = 1
    out.append((history['exit'] == 0 and history['text_exit'] == 0 and
                history['nights'] == want,
                f"pfsbench history {FIGURE}: nights per cluster "
                f"{history['nights']} (expected {want})"))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--work', required=True,
                        help='directory for the runs directories, targets '
                             'and reports (kept)')
    parser.add_argument('--nights', type=int, default=2,
                        help='nights after the baseline night (default: '
                             '%(default)s)')
    parser.add_argument('--repeat', type=int, default=2)
    parser.add_argument('--count', type=int, default=16,
                        help='dd blocks of 1024000 bytes per stream '
                             '(default: %(default)s)')
    parser.add_argument('--down-night', type=int, default=1)
    parser.add_argument('--down-cluster', default='localslurm-mfs',
                        choices=[c[0] for c in CLUSTERS])
    parser.add_argument('--others-nights', type=int, default=None,
                        help='nights of the clusters other than '
                             '--down-cluster (default: --nights)')
    parser.add_argument('--parallel', action='store_true',
                        help='the three clusters at once: their baseline '
                             'nights, then each night (the store then '
                             'stopped for every cluster\'s night '
                             '--down-night); default: one after another')
    parser.add_argument('--json', default=None,
                        help='also write the nights, the store and the '
                             'assertions here')
    args = parser.parse_args(argv)
    if not 1 <= args.down_night < args.nights:
        parser.error(f'--down-night: {args.down_night}: expected 1..'
                     f'{args.nights - 1} (a later night loads the spool)')
    if args.others_nights is not None and \
            not 1 <= args.others_nights <= args.nights:
        parser.error(f'--others-nights: {args.others_nights}: expected 1..'
                     f'{args.nights}')
    if os.geteuid() != 0:
        sys.exit('store_clusters: needs root (MooseFS, the Slurm test '
                 'cluster, PostgreSQL as the postgres user)')
    why = pg_missing()
    if why:
        sys.exit(f'store_clusters: {why}')
    for script in ('localslurm/localslurm.sh', 'mfs/mfs.sh'):
        if subprocess.run(['bash', os.path.join(REPO, 'tests', script),
                           'status'], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0:
            sys.exit(f'store_clusters: tests/{script} is not up')

    down = 'every cluster (at once)' if args.parallel else \
        args.down_cluster
    started = time.time()
    pg = Cluster()
    # libpq's password file, as a site keeps it (never in a URL).
    os.environ['PGPASSFILE'] = pg.passfile
    try:
        with pg.connect() as conn:
            conn.execute('CREATE DATABASE pfsbench')
        url = pg.url.rsplit('/', 1)[0] + '/pfsbench'
        site = Site(args, pg, url)
        print(f'store_clusters: {len(CLUSTERS)} clusters into {url}, '
              f'{args.nights} nights after a baseline night, repeat '
              f'{args.repeat}, {CASE} count={args.count}; PostgreSQL down '
              f'for night {args.down_night} of '
              f'{down}; load {load()}', flush=True)
        clusters = list(site.clusters.values())
        workers = len(clusters) if args.parallel else 1
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            baselines = dict(zip(site.clusters, pool.map(site.baseline,
                                                         clusters)))
            print(HEADER, flush=True)
            for n in range(1, args.nights + 1):
                if n == args.nights:
                    site.add_twin()
                clusters = [c for c in site.clusters.values()
                            if site.nights_of(c['name']) >= n]
                downs = [n == args.down_night and (
                    args.parallel or c['name'] == args.down_cluster)
                    for c in clusters]
                if args.parallel and any(downs):
                    pg.stop()
                try:
                    list(pool.map(site.night, [n] * len(clusters), clusters,
                                  downs))
                finally:
                    if args.parallel and any(downs):
                        pg.start()
        facts = site.store_facts()
        history = site.history()
    finally:
        pg.remove()
    held = assertions(site, facts, history)
    wall = round(time.time() - started)
    print(f'\nstore_clusters: {len(site.nights)} nights in {wall} s, load '
          f'{load()}; history nights per cluster {history["nights"]}')
    for name, _, _ in CLUSTERS:
        f = facts[name]
        print(f"{name}: {f['store_sessions']} sessions, {f['figure_rows']} "
              f"figure rows, partitions {f['partitions']}")
    for ok, text in held:
        print(f"{'held' if ok else 'FAILED'}: {text}")
    if args.json:
        with open(args.json, 'w') as fp:
            json.dump({'nights': site.nights, 'baseline_s': baselines,
                       'baseline_nights': {
                           n: c['baseline_nights']
                           for n, c in site.clusters.items()},
                       'store': facts, 'history': history, 'wall_s': wall,
                       'twin': site.twin, 'assertions': [
                           {'held': ok, 'text': text} for ok, text in held]},
                      fp, indent=1)
    return 0 if all(ok for ok, _ in held) else 1


if __name__ == '__main__':
    sys.exit(main())
