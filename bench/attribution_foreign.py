#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Foreign load on the MooseFS of tests/mfs, per method: attributed per mount
session, or judged from the whole file system's counters with the case's
own share learned from its quiet runs.

For a dd (E6, 2 nodes), an IOR (2x2 file per process, POSIX, 1 MiB
transfers, 32 MiB per task, one repetition) and an
mdtest case (files, 1 node x 2 tasks, 2000 items) on ``localslurm:mfs``:
``--quiet N`` runs of each alone (one ``reframe --repeat N``), then one run
beside each foreign load through the second mount (``m2``), started once
the case's run directory appears, stopped when it is gone, and sized
(``--sizes``, fractions) to the case's own work as its quiet runs measured:

- ``write``: random data, 64 MiB per file, each file removed after the next;
- ``read``: files written through m2 before the run, read during it (their
  pages dropped first with ``posix_fadvise(DONTNEED)``, so each byte
  crosses the client);
- ``metadata``: small files created, stat'ed and unlinked (at least 3000
  server operations for the dd and IOR cases, whose own are few; bytes at
  least 96 MiB, above both methods' byte floors, beside mdtest).

``--method per-client`` runs the partition as declared (``mfs.sh clients``
judges); ``--method whole-fs`` runs it without ``fs_clients_command`` (a
settings file beside the runs directory drops it), so the whole file
system's counters judge, the case's own share learned from the quiet runs
before (the same runs directory for all runs of a case: its perflog is the
history; the first 3 quiet runs are judged by the fixed bound).

Prints one row per run: case, load, what the method saw (foreign and own
per client; the whole file system's bytes and operations), marked by the
method or not, and the verdict or how it judged; then the number of quiet
runs marked per case.  With ``per-client``, also the whole-fs method's
verdict on the same runs, replayed from what they logged (``fs_counters``,
``own_work``) by the probe's own functions, the history being the runs
before that the per-client counters left uncontended.

Needs root, ``tests/localslurm/localslurm.sh up``, ``tests/mfs/mfs.sh up``,
IOR/mdtest in /opt/ior/bin.  Removes what it wrote.

Usage: python3 bench/attribution_foreign.py [--method per-client|whole-fs]
       [--quiet 20] [--cases dd,ior,mdtest] [--loads write,read,metadata]
       [--sizes 1.0]
"""

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, 'tests'))

from conftest import perflog_dicts, slurm_env  # noqa: E402
from pfsbench.site import exclusive  # noqa: E402

MNT = os.path.join(os.environ.get('PFSBENCH_MFS_DIR', '/var/tmp/pfsbench-mfs'),
                   'mnt')
TARGET = os.path.join(MNT, 'm1', 'scratch')
SECOND = os.path.join(MNT, 'm2', 'scratch')
MIB = 2**20
CHECKS = os.path.join(REPO, 'reframe-checks')

CASES = {
    'dd': ('dd_stream_per_node',
           ['-c', f'{CHECKS}/dd', '-n', 'dd_stream_per_node',
            '-P', 'nodes=2', '-S', 'repeats=1']),
    'ior': ('ior_bandwidth',
            ['-c', f'{CHECKS}/ior', '-n', 'ior_bandwidth', '-P', 'nodes=2',
             '-P', 'api=POSIX', '-P', 'access=fpp', '-P', 'scale=2x2',
             '-P', 'transfer_size=1m', '-S', 'block_size=32m',
             '-S', 'repetitions=1']),
    'mdtest': ('mdtest_metadata_rates',
               ['-c', f'{CHECKS}/mdtest', '-n', 'mdtest_metadata_rates',
                '-P', 'nodes=1', '-P', 'tasks_per_node=2', '-P',
                'kind=files', '-P', 'access=unique', '-S',
                'total_items=2000', '-S', 'iterations=1']),
}


class Load(threading.Thread):
    """A foreign load through the second mount, from the moment the case's
    run directory appears until its budget is spent, the directory is gone
    (the job ended: nobody else's case gets the load) or it is stopped."""

    def __init__(self, kind, budget_bytes, budget_ops, tag, test):
        super().__init__(daemon=True)
        self.kind, self.tag, self.test = kind, tag, test
        self.budget_bytes, self.budget_ops = budget_bytes, budget_ops
        self.stop = threading.Event()
        self.pid = None
        self.case_dir = None
        self._looked = 0.0
        self.done_bytes = self.done_items = 0
        self.dir = os.path.join(SECOND, f'h35-foreign-{os.getpid()}-{tag}-'
                                f'{time.monotonic_ns()}')
        os.makedirs(self.dir)
        self.read_files = []
        if kind == 'read':
            # Written before the case (outside its window), read during it,
            # holding the target's lock as a case does: nobody's case
            # (another session's too) runs beside the writing.
            lock = exclusive.ScratchLock(TARGET)
            lock.acquire()
            try:
                self._prepare_reads(budget_bytes)
            finally:
                lock.release()

    def _prepare_reads(self, budget_bytes):
        block = random.randbytes(MIB)
        left = budget_bytes
        while left > 0:
            path = os.path.join(self.dir, f'r{len(self.read_files)}')
            with open(path, 'wb') as fp:
                for _ in range(min(64, -(-left // MIB))):
                    fp.write(block)
                fp.flush()
                os.fsync(fp.fileno())
            self.read_files.append(path)
            left -= 64 * MIB
        os.sync()

    def wait_for_case(self):
        # The case's own run directory (made after its counters were
        # sampled): other users' cases on the same target (waiting for
        # its lock) make theirs too.
        known = set(os.listdir(TARGET))
        while not self.stop.is_set():
            try:
                now = set(os.listdir(TARGET))
            except OSError:        # a remount of the file system
                now = set()
            for name in now - known:
                if name.startswith(f'pfsbench-{self.test}') and \
                        name.endswith(f'-{self.pid}'):
                    self.case_dir = os.path.join(TARGET, name)
                    return True
            time.sleep(0.05)
        return False

    def going(self):
        """Not stopped, and the case's run directory still there (looked
        at twice a second: a stat through m1 is the case's own mount)."""
        if self.stop.is_set():
            return False
        now = time.monotonic()
        if now - self._looked > 0.5:
            self._looked = now
            if not os.path.exists(self.case_dir):
                self.stop.set()
                return False
        return True

    def run(self):
        if not self.wait_for_case():
            return
        getattr(self, f'_{self.kind}')()

    def _write(self):
        block = random.randbytes(MIB)
        n, last = 0, None
        while self.going() and self.done_bytes < self.budget_bytes:
            path = os.path.join(self.dir, f'w{n}')
            with open(path, 'wb') as fp:
                for _ in range(64):
                    if self.done_bytes >= self.budget_bytes or \
                            not self.going():
                        break
                    fp.write(block)
                    self.done_bytes += MIB
                fp.flush()
                os.fsync(fp.fileno())
            if last:
                os.unlink(last)
            last, n = path, n + 1

    def _read(self):
        while self.going() and self.done_bytes < self.budget_bytes:
            for path in self.read_files:
                fd = os.open(path, os.O_RDONLY)
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    while self.going():
                        chunk = os.read(fd, MIB)
                        if not chunk:
                            break
                        self.done_bytes += len(chunk)
                finally:
                    os.close(fd)
                if self.done_bytes >= self.budget_bytes or not self.going():
                    return

    def _metadata(self):
        # About 6 server operations per item (lookup, create, getattr,
        # open/release, unlink: mfscli -SMO on this MooseFS).
        while self.going() and 6 * self.done_items < self.budget_ops:
            path = os.path.join(self.dir, f'm{self.done_items}')
            with open(path, 'wb'):
                pass
            os.stat(path)
            os.unlink(path)
            self.done_items += 1

    def finish(self):
        self.stop.set()
        if self.is_alive() or self.ident is not None:
            self.join()
        # Again while a remount of the file system hides it.
        for _ in range(60):
            shutil.rmtree(self.dir, ignore_errors=True)
            if not os.path.exists(self.dir) and os.path.isdir(SECOND):
                return
            time.sleep(2)


def client_figures(record):
    """(own bytes, own ops, foreign bytes, foreign ops) from fs_clients."""
    text = record.get('fs_clients', '')
    own = re.search(r'own bytes=(\d+) metadata_ops=(\d+)', text)
    foreign = re.findall(r'; \S+(?: \([^)]*\))? bytes=(\d+) '
                         r'metadata_ops=(\d+)', text)
    if not own:
        return None
    return (int(own.group(1)), int(own.group(2)),
            sum(int(b) for b, _ in foreign), sum(int(o) for _, o in foreign))


def fs_figures(record):
    """(bytes, ops) the whole file system did, from fs_counters."""
    words = dict(w.partition('=')[::2]
                 for w in record.get('fs_counters', '').split())
    try:
        return (int(words['read_bytes']) + int(words['write_bytes']),
                int(words['metadata_ops']))
    except (KeyError, ValueError):
        return None


#: The method's name in its verdicts.
METHOD_WORDS = {'per-client': 'per-client counters',
                'whole-fs': 'whole-fs counters'}


def settings_for(method, runs):
    """The ReFrame settings file of a method: the repository's, or (whole-fs)
    one beside the runs directory that drops fs_clients_command."""
    settings = os.path.join(REPO, 'config', 'settings.py')
    if method == 'per-client':
        return settings
    path = os.path.join(runs, 'whole_fs_settings.py')
    with open(path, 'w') as fp:
        fp.write(f'''import runpy
site_configuration = runpy.run_path({settings!r})['site_configuration']
for _system in site_configuration['systems']:
    for _part in _system['partitions']:
        _part.get('extras', {{}}).pop('fs_clients_command', None)
''')
    return path


def run_case(case, env, runs, settings, load=None, repeat=1):
    """The perflog records of one reframe session of ``case`` (``repeat``
    runs), or ``(None, why)``."""
    test, args = CASES[case]
    before = len(perflog_dicts(runs, 'localslurm', 'mfs', test))
    full = dict(os.environ, PFSBENCH_RUNS=runs, **env)
    full['PATH'] = f'/opt/ior/bin:{full["PATH"]}'
    for name in ('PFSBENCH_SCRATCH', 'SPACK_ENV'):
        full.pop(name, None)
    more = ['--repeat', str(repeat)] if repeat > 1 else []
    proc = subprocess.Popen(
        [os.path.join(REPO, '.venv', 'bin', 'reframe'), '-C', settings,
         '--system', 'localslurm:mfs', *args, *more, '-r'], cwd=REPO,
        env=full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    if load:
        # The run directory ends with the ReFrame process's pid.
        load.pid = proc.pid
        load.start()
    out, _ = proc.communicate(timeout=600 + 300 * repeat)
    if load:
        load.stop.set()
    records = perflog_dicts(runs, 'localslurm', 'mfs', test)[before:]
    if not records:
        tail = '\n'.join(out.splitlines()[-15:])
        return None, f'reframe exit {proc.returncode}: {tail}'
    return records, ''


def row(case, kind, record, load, method):
    """Print one run; whether the method marked it."""
    marked = METHOD_WORDS[method] in record.get('contention', '')
    done = ''
    if load is not None:
        done = (f'{load.done_items} items' if kind.startswith('metadata')
                else f'{load.done_bytes / MIB:.0f} MiB')
        if load.case_dir is None:
            done += ' (never saw the case run)'

    verdict = record.get('contention', '') if marked else \
        record.get('foreign_load_method', '')
    others = '' if marked or not record.get('contention') else \
        f' [other probes: {record["contention"]}]'
    if method == 'per-client':
        got = client_figures(record)
        if got is None:
            print(f'{case:7} {kind:9} {"no fs_clients":>40} '
                  f'{record.get("fs_clients", "")!r}', flush=True)
            return marked
        ob, oo, fb, fo = got
        seen = (f'foreign {fb / MIB:7.0f} MiB {fo:7d} ops | own '
                f'{ob / MIB:6.0f} MiB {oo:7d} ops')
    else:
        got = fs_figures(record)
        if got is None:
            print(f'{case:7} {kind:9} no fs_counters '
                  f'{record.get("fs_counters", "")!r}', flush=True)
            return marked
        seen = f'file system {got[0] / MIB:7.0f} MiB {got[1]:7d} ops'
    copies = re.search(r'copies=\S+', record.get('server_provenance', ''))
    print(f'{case:7} {kind:9} {done:>11} {seen} | '
          f'{"MARKED" if marked else "quiet ":6} | {verdict}{others}'
          f' [{copies.group(0).rstrip(";") if copies else "?"}]',
          flush=True)
    return marked


def own_work(records, method):
    """(bytes, ops) of the case's own work as its quiet runs measured: the
    per-client counters' own, or the whole file system's (median)."""
    got = [client_figures(r) if method == 'per-client' else fs_figures(r)
           for r in records]
    got = [g for g in got if g is not None]
    if not got:
        return None
    return (statistics.median(g[0] for g in got),
            statistics.median(g[1] for g in got))


def replay_whole_fs(records):
    """The whole-fs method's verdict on each run of a per-client session,
    from the counters it logged: the same functions the probe runs, the
    history being the runs before it that the per-client counters left
    uncontended (newest first, as the probe reads its perflog).  Prints a
    row per run; returns the number of quiet runs it marked."""
    from pfsbench.load import own_share
    marks = 0
    for i, record in enumerate(records):
        delta = own_share.parse_fs_counters(record.get('fs_counters'))
        work = own_share.OwnWork.parse(record.get('own_work'))
        if delta is None or work is None:
            print(f'  replay {i}: no fs_counters or own_work', flush=True)
            continue
        name = own_share.same_case(record['display_name'])
        tags = {f: record.get(f, '') for f in own_share.CASE_TAG_FIELDS}
        prior = []
        for old in reversed(records[:i]):
            if (own_share.same_case(old['display_name']) == name and
                    old.get('contended') == 'false' and
                    all(old.get(f, '') == v for f, v in tags.items())):
                d = own_share.parse_fs_counters(old.get('fs_counters'))
                w = own_share.OwnWork.parse(old.get('own_work'))
                if d is not None and w is not None:
                    prior.append(own_share.QuietRun(d, w))
        learned = own_share.learn(prior[:own_share.QUIET_RUNS_USED], work)
        fixed_ops = 8 * work.items if work.items else None
        found, how = own_share.judge(delta, work, learned, work.bytes,
                                     fixed_ops)
        quiet = 'foreign' not in record.get('h35_load', 'quiet')
        marks += bool(found) and quiet
        print(f'  replay {i:2d} {record.get("h35_load", "quiet"):11} '
              f'{"MARKED" if found else "quiet ":6} | {found or how}',
              flush=True)
    return marks


def wait_for_mounts(timeout=300):
    """Wait until the target and the second mount are there (another
    session's month bench remounts the MooseFS between its nights)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if os.path.isdir(TARGET) and os.path.isdir(SECOND):
            return True
        time.sleep(2)
    return False


def quiet_runs(case, env, runs, settings, wanted, attempts=6):
    """``wanted`` quiet runs of ``case`` (one ``--repeat`` session, again
    for what a remount or a restart of the file system failed)."""
    records = []
    for _ in range(attempts):
        if len(records) >= wanted or not wait_for_mounts():
            break
        got, why = run_case(case, env, runs, settings,
                            repeat=wanted - len(records))
        if got is None:
            print(f'{case}: quiet runs: {why.splitlines()[-1]}; again',
                  flush=True)
            time.sleep(10)
            continue
        records += got
    return records


def loaded_run(case, env, runs, settings, kind, budget_bytes, budget_ops,
               attempts=3):
    """One run of ``case`` beside a load: ``(record, load)``, again where
    the run failed, the load never saw it, or the counters were
    unavailable (a remount); ``(None, None)`` after ``attempts``."""
    for _ in range(attempts):
        if not wait_for_mounts():
            break
        load = Load(kind, int(budget_bytes), int(budget_ops),
                    f'{case}-{kind}', CASES[case][0])
        try:
            got, why = run_case(case, env, runs, settings, load)
        finally:
            load.finish()
        if got is None or load.case_dir is None or \
                got[-1].get('fs_counters', '').startswith('unavailable'):
            print(f'{case}: {kind}: '
                  f'{why.splitlines()[-1] if got is None else "no load or counters"}'
                  f'; again', flush=True)
            time.sleep(10)
            continue
        return got[-1], load
    return None, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--method', choices=sorted(METHOD_WORDS),
                    default='per-client')
    ap.add_argument('--quiet', type=int, default=3)
    ap.add_argument('--cases', default='dd,ior,mdtest')
    ap.add_argument('--loads', default='write,read,metadata')
    ap.add_argument('--sizes', default='1.0',
                    help='foreign load sizes, fractions of the case\'s own '
                         'work (comma-separated)')
    args = ap.parse_args()
    env = slurm_env()
    print(f'{time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())} UTC, '
          f'method {args.method}, load average '
          f'{open("/proc/loadavg").read().split()[:3]}', flush=True)
    for case in args.cases.split(','):
        runs = tempfile.mkdtemp(prefix=f'h35-attr-{case}-')
        try:
            settings = settings_for(args.method, runs)
            records = quiet_runs(case, env, runs, settings,
                                 max(args.quiet, 1))
            if not records:
                continue
            every = list(records)
            marks = sum(row(case, 'quiet', r, None, args.method)
                        for r in records)
            print(f'{case}: {marks} of {len(records)} quiet runs marked by '
                  f'the {METHOD_WORDS[args.method]} ({args.quiet} asked)',
                  flush=True)
            if args.method == 'per-client':
                print(f'{case}: the whole-fs method on the same quiet runs, '
                      f'replayed:', flush=True)
                replayed = replay_whole_fs(records)
                print(f'{case}: {replayed} of {len(records)} quiet runs '
                      f'marked by the whole-fs counters (replayed)',
                      flush=True)
            own = own_work(records, args.method)
            if own is None:
                continue
            for size in [float(x) for x in args.sizes.split(',') if x]:
                for kind in [k for k in args.loads.split(',') if k]:
                    # Bytes: at least 96 MiB (times the size), above
                    # both methods' byte floors (16 and 64 MiB) beside
                    # mdtest, whose own bytes are few.
                    record, load = loaded_run(
                        case, env, runs, settings, kind,
                        size * max(own[0], 96 * MIB),
                        size * max(own[1], 3000))
                    if record is None:
                        print(f'{case}: {kind} x{size:g}: no run',
                              flush=True)
                        continue
                    row(case, f'{kind}x{size:g}', record, load, args.method)
                    record['h35_load'] = f'foreign {kind}x{size:g}'
                    every.append(record)
            if args.method == 'per-client':
                print(f'{case}: the whole-fs method on the same runs, '
                      f'replayed:', flush=True)
                replayed = replay_whole_fs(every)
                print(f'{case}: {replayed} of {len(records)} quiet runs '
                      f'marked by the whole-fs counters (replayed)',
                      flush=True)
        finally:
            shutil.rmtree(runs, ignore_errors=True)
    print(f'{time.strftime("%H:%M:%S", time.gmtime())} UTC, load average '
          f'{open("/proc/loadavg").read().split()[:3]}', flush=True)


if __name__ == '__main__':
    main()
