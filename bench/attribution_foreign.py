#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Foreign load on the MooseFS of tests/mfs, attributed per mount session.

For a dd (E6, 2 nodes), an IOR (2x2 file per process, POSIX, 1 MiB
transfers, 32 MiB per task, one repetition) and an
mdtest case (files, 1 node x 2 tasks, 2000 items) on ``localslurm:mfs``:
``--quiet N`` runs of each alone, then one run beside each foreign load
through the second mount (``m2``), started once the case's run directory
appears and sized to the case's own work as its first quiet run measured:

- ``write``: random data, 64 MiB per file, each file removed after the next;
- ``read``: files written through m2 before the run, read during it (their
  pages dropped first with ``posix_fadvise(DONTNEED)``, so each byte
  crosses the client);
- ``metadata``: small files created, stat'ed and unlinked (at least 3000
  server operations for the dd and IOR cases, whose own are few).

Prints one row per run: case, load, foreign and own bytes and operations as
the per-client counters saw them (``fs_clients``), marked or not, and the
verdict; then the number of quiet runs marked per case.

Needs root, ``tests/localslurm/localslurm.sh up``, ``tests/mfs/mfs.sh up``,
IOR/mdtest in /opt/ior/bin.  Removes what it wrote.

Usage: python3 bench/attribution_foreign.py [--quiet 20] [--cases dd,ior,mdtest]
       [--loads write,read,metadata]
"""

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, 'tests'))

from conftest import perflog_dicts, slurm_env  # noqa: E402

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
    run directory appears until its budget is spent or it is stopped."""

    def __init__(self, kind, budget_bytes, budget_ops, tag, test):
        super().__init__(daemon=True)
        self.kind, self.tag, self.test = kind, tag, test
        self.budget_bytes, self.budget_ops = budget_bytes, budget_ops
        self.stop = threading.Event()
        self.pid = None
        self.done_bytes = self.done_items = 0
        self.dir = os.path.join(SECOND, f'h35-foreign-{os.getpid()}-{tag}')
        os.makedirs(self.dir)
        self.read_files = []
        if kind == 'read':
            # Written before the case (outside its window), read during it.
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

    def wait_for_case(self):
        # The case's own run directory (made after its counters were
        # sampled): other users' cases on the same target (waiting for
        # its lock) make theirs too.
        known = set(os.listdir(TARGET))
        while not self.stop.is_set():
            if any(n.startswith(f'pfsbench-{self.test}') and
                   n.endswith(f'-{self.pid}') for n in
                   set(os.listdir(TARGET)) - known):
                return True
            time.sleep(0.05)
        return False

    def run(self):
        if not self.wait_for_case():
            return
        getattr(self, f'_{self.kind}')()

    def _write(self):
        block = random.randbytes(MIB)
        n, last = 0, None
        while not self.stop.is_set() and self.done_bytes < self.budget_bytes:
            path = os.path.join(self.dir, f'w{n}')
            with open(path, 'wb') as fp:
                for _ in range(64):
                    if self.done_bytes >= self.budget_bytes:
                        break
                    fp.write(block)
                    self.done_bytes += MIB
                fp.flush()
                os.fsync(fp.fileno())
            if last:
                os.unlink(last)
            last, n = path, n + 1

    def _read(self):
        while not self.stop.is_set() and self.done_bytes < self.budget_bytes:
            for path in self.read_files:
                fd = os.open(path, os.O_RDONLY)
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    while True:
                        chunk = os.read(fd, MIB)
                        if not chunk:
                            break
                        self.done_bytes += len(chunk)
                finally:
                    os.close(fd)
                if self.done_bytes >= self.budget_bytes:
                    return

    def _metadata(self):
        # About 6 server operations per item (lookup, create, getattr,
        # open/release, unlink: mfscli -SMO on this MooseFS).
        while not self.stop.is_set() and \
                6 * self.done_items < self.budget_ops:
            path = os.path.join(self.dir, f'm{self.done_items}')
            with open(path, 'wb'):
                pass
            os.stat(path)
            os.unlink(path)
            self.done_items += 1

    def finish(self):
        self.stop.set()
        self.join()
        shutil.rmtree(self.dir, ignore_errors=True)


def figures(record):
    """(own bytes, own ops, foreign bytes, foreign ops) from fs_clients."""
    text = record.get('fs_clients', '')
    own = re.search(r'own bytes=(\d+) metadata_ops=(\d+)', text)
    foreign = re.findall(r'; \S+(?: \([^)]*\))? bytes=(\d+) '
                         r'metadata_ops=(\d+)', text)
    if not own:
        return None
    return (int(own.group(1)), int(own.group(2)),
            sum(int(b) for b, _ in foreign), sum(int(o) for _, o in foreign))


def run_case(case, env, load=None):
    test, args = CASES[case]
    runs = tempfile.mkdtemp(prefix='h35-attr-')
    try:
        full = dict(os.environ, PFSBENCH_RUNS=runs, **env)
        full['PATH'] = f'/opt/ior/bin:{full["PATH"]}'
        for name in ('PFSBENCH_SCRATCH', 'SPACK_ENV'):
            full.pop(name, None)
        proc = subprocess.Popen(
            [os.path.join(REPO, '.venv', 'bin', 'reframe'), '-C',
             os.path.join(REPO, 'config', 'settings.py'), '--system',
             'localslurm:mfs', *args, '-r'], cwd=REPO, env=full,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if load:
            # The run directory ends with the ReFrame process's pid.
            load.pid = proc.pid
            load.start()
        proc.stdout_text, _ = proc.communicate(timeout=1200)
        if load:
            load.finish()
        records = perflog_dicts(runs, 'localslurm', 'mfs', test)
        if proc.returncode != 0 or not records:
            tail = '\n'.join(proc.stdout_text.splitlines()[-15:])
            return None, f'reframe exit {proc.returncode}: {tail}'
        return records[-1], ''
    finally:
        shutil.rmtree(runs, ignore_errors=True)


def row(case, kind, record, load):
    got = figures(record)
    # Marked by the per-client counters (other probes, e.g. another
    # user's Slurm job on the nodes, are listed but not counted here).
    marked = 'per-client counters' in record.get('contention', '')
    done = ''
    if load is not None:
        done = (f'{load.done_bytes / MIB:.0f} MiB' if kind != 'metadata'
                else f'{load.done_items} items')
    if got is None:
        print(f'{case:7} {kind:9} {"no fs_clients":>40} '
              f'{record.get("fs_clients", "")!r}', flush=True)
        return marked
    ob, oo, fb, fo = got
    print(f'{case:7} {kind:9} {done:>11} foreign {fb / MIB:7.0f} MiB '
          f'{fo:7d} ops | own {ob / MIB:6.0f} MiB {oo:7d} ops | '
          f'{"MARKED" if marked else "quiet ":6} | {record["contention"]}',
          flush=True)
    return marked


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--quiet', type=int, default=3)
    ap.add_argument('--cases', default='dd,ior,mdtest')
    ap.add_argument('--loads', default='write,read,metadata')
    args = ap.parse_args()
    env = slurm_env()
    print(f'load average {open("/proc/loadavg").read().split()[:3]}')
    for case in args.cases.split(','):
        own = None
        marks = 0
        for i in range(max(args.quiet, 1)):
            record, why = run_case(case, env)
            if record is None:
                print(f'{case}: quiet run {i}: {why}')
                continue
            marks += row(case, 'quiet', record, None)
            if own is None:
                own = figures(record)
        print(f'{case}: {marks} of {args.quiet} quiet runs marked by the '
              f'per-client counters')
        if own is None:
            continue
        for kind in [k for k in args.loads.split(',') if k]:
            budget_bytes = max(own[0], 64 * MIB)
            budget_ops = max(own[1], 3000)
            load = Load(kind, budget_bytes, budget_ops, f'{case}-{kind}',
                        CASES[case][0])
            record, why = run_case(case, env, load)
            if record is None:
                load.finish()
                print(f'{case}: {kind}: {why}')
                continue
            row(case, kind, record, load)
    print(f'load average {open("/proc/loadavg").read().split()[:3]}')


if __name__ == '__main__':
    main()
