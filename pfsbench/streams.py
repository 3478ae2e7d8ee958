# SPDX-License-Identifier: BSD-3-Clause
"""Synchronised parallel streams: what every task of a dd experiment runs.

Seed 001 trusted dd "as we could ensure all clients started the test at the
same time" and blamed its bonnie/iozone scatter on unsynchronised starts.  So
every stream here waits at a barrier before each phase, and records when it
really started, so that the start skew is measured, not assumed::

    ready -> write -> written -> [drop caches] -> defeated -> read -> done

The barrier is a directory of marker files on the target file system itself
(every client of a parallel file system sees it; no MPI needed, so dd runs
unmodified).  One launcher task may run several streams (``--fan-out``), which
is how the ``local`` launcher, which starts one process, gets P streams.

Output, one line each, parsed by :mod:`pfsbench.parsers.streams`::

    pfsbench-stream: begin streams=4 tasks=2 fan_out=2 cache_defeat=direct
    s0001/n1/write: 268435456 bytes (268 MB, 256 MiB) copied, 1.12 s, 240 MB/s
    pfsbench-stream: stream=1 node=n1 phase=write start=... end=... exit=0
    pfsbench-stream: end task=0 status=ok

Run ``python -m pfsbench.streams --help`` for the options.  Only the standard
library is used: compute nodes need nothing but the Python that runs ReFrame.
"""

import argparse
import os
import shlex
import shutil
import socket
import subprocess
import sys
import threading
import time

PREFIX = 'pfsbench-stream:'
PHASES = ('write', 'read')
#: How the page cache is defeated between write and read: dropped on every
#: node, bypassed by O_DIRECT reads, or not at all (reads may come from
#: client memory).
CACHE_DEFEAT_MODES = ('drop_caches', 'direct', 'none')
#: Drops a node's page cache; needs root (sites configure a sudo helper as
#: the partition's ``drop_caches_command``).
DEFAULT_DROP_CACHES = 'sync && echo 3 > /proc/sys/vm/drop_caches'


class BarrierTimeout(Exception):
    pass


def stream_label(stream, node, phase):
    """The prefix of a stream's tool output lines: ``s0001/n1/write``."""
    return f's{stream:04d}/{node}/{phase}'


def _env_int(names, default):
    for name in names:
        value = os.environ.get(name)
        if value is not None and value.strip().isdigit():
            return int(value)

    return default


def task_identity():
    """(rank, number of tasks, local rank on the node, node name) of this
    process, from whichever launcher started it.

    MPI launchers' variables come first: ``mpirun`` inside a Slurm job
    inherits the batch step's ``SLURM_PROCID=0``, which would make every
    rank think it is rank 0.
    """
    rank = _env_int(['OMPI_COMM_WORLD_RANK', 'PMIX_RANK', 'PMI_RANK',
                     'SLURM_PROCID'], 0)
    ntasks = _env_int(['OMPI_COMM_WORLD_SIZE', 'PMI_SIZE', 'SLURM_NTASKS'],
                      1)
    local = _env_int(['OMPI_COMM_WORLD_LOCAL_RANK', 'MPI_LOCALRANKID',
                      'SLURM_LOCALID'], 0)
    node = os.environ.get('SLURMD_NODENAME') or socket.gethostname()
    return rank, ntasks, local, node.split('.')[0]


class FileBarrier:
    """A barrier of ``total`` members made of marker files in ``root``.

    Each member creates ``root/<name>/<member>``; whoever sees all markers
    creates ``root/<name>.go``; everybody else waits for that file.  Waiting
    costs one stat per ``poll`` seconds per member.
    """

    def __init__(self, root, total, timeout, poll):
        self.root = root
        self.total = total
        self.timeout = timeout
        self.poll = poll

    def wait(self, name, member):
        members = os.path.join(self.root, name)
        go = members + '.go'
        os.makedirs(members, exist_ok=True)
        with open(os.path.join(members, str(member)), 'w'):
            pass

        deadline = time.monotonic() + self.timeout
        polls = 0
        while not os.path.exists(go):
            # Counting is a readdir: do it less often than the cheap stat.
            if polls % 10 == 0 and len(os.listdir(members)) >= self.total:
                with open(go, 'w'):
                    pass
                break

            if time.monotonic() > deadline:
                arrived = len(os.listdir(members))
                raise BarrierTimeout(
                    f'barrier {name!r}: {arrived} of {self.total} streams '
                    f'arrived within {self.timeout:g} s')

            polls += 1
            time.sleep(self.poll)


class Streams:
    """The streams of one launcher task."""

    def __init__(self, args):
        self.args = args
        self.rank, self.ntasks, self.local_rank, self.node = task_identity()
        self.total = self.ntasks * args.fan_out
        self.barrier = FileBarrier(os.path.join(args.run_dir, '.barrier'),
                                   self.total, args.barrier_timeout,
                                   args.poll)
        self.lock = threading.Lock()
        self.failed = False

    def emit(self, lines):
        with self.lock:
            for line in lines:
                print(line)

            sys.stdout.flush()

    def run_phase(self, stream, phase, template, stream_dir):
        argv = [w.replace('{stream_dir}', stream_dir)
                for w in shlex.split(template)]
        label = stream_label(stream, self.node, phase)
        start = time.time()
        try:
            proc = subprocess.run(argv, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT,
                                  universal_newlines=True)
            output, code = proc.stdout, proc.returncode
        except OSError as err:
            output, code = f'{argv[0]}: {err}', 127

        end = time.time()
        lines = [f'{label}: {ln}' for ln in output.splitlines() if ln.strip()]
        lines.append(f'{PREFIX} stream={stream} node={self.node} '
                     f'phase={phase} start={start:.6f} end={end:.6f} '
                     f'exit={code}')
        self.emit(lines)
        return code == 0

    def drop_caches(self):
        cmd = self.args.drop_caches_command
        proc = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT,
                              universal_newlines=True)
        self.emit([f'{PREFIX} drop_caches node={self.node} '
                   f'exit={proc.returncode} command={cmd!r}'] +
                  [f'{PREFIX} drop_caches output: {ln}'
                   for ln in proc.stdout.splitlines()])
        return proc.returncode == 0

    def one_stream(self, index):
        args = self.args
        stream = self.rank * args.fan_out + index
        local_index = self.local_rank * args.fan_out + index
        stream_dir = os.path.join(args.run_dir, f'stream-{stream:05d}')
        ok = True
        try:
            os.makedirs(stream_dir, exist_ok=True)
            self.barrier.wait('ready', stream)
            ok = self.run_phase(stream, 'write', args.write, stream_dir)
            self.barrier.wait('written', stream)
            if args.cache_defeat == 'drop_caches' and local_index == 0:
                # One stream per node drops that node's page cache.
                ok = self.drop_caches() and ok

            self.barrier.wait('defeated', stream)
            if ok:
                ok = self.run_phase(stream, 'read', args.read, stream_dir)

            self.barrier.wait('done', stream)
        except (BarrierTimeout, OSError) as err:
            self.emit([f'{PREFIX} error stream={stream} node={self.node}: '
                       f'{err}'])
            ok = False
        finally:
            if not args.keep:
                shutil.rmtree(stream_dir, ignore_errors=True)

        if not ok:
            self.failed = True

    def run(self):
        if self.rank == 0:
            self.emit([f'{PREFIX} begin streams={self.total} '
                       f'tasks={self.ntasks} fan_out={self.args.fan_out} '
                       f'cache_defeat={self.args.cache_defeat}'])

        threads = [threading.Thread(target=self.one_stream, args=(i,))
                   for i in range(self.args.fan_out)]
        for t in threads:
            t.start()

        for t in threads:
            t.join()

        status = 'failed' if self.failed else 'ok'
        self.emit([f'{PREFIX} end task={self.rank} node={self.node} '
                   f'status={status}'])
        return 1 if self.failed else 0


def build_parser():
    parser = argparse.ArgumentParser(
        prog='python -m pfsbench.streams',
        description='Run synchronised write/read streams (one per task, or '
                    '--fan-out per task) with barriers between phases.')
    parser.add_argument('--run-dir', required=True, metavar='DIR',
                        help='directory on the target file system that this '
                             'run owns (barrier markers and stream dirs)')
    parser.add_argument('--write', required=True, metavar='COMMAND',
                        help='write command; {stream_dir} is replaced by the '
                             "stream's own directory")
    parser.add_argument('--read', required=True, metavar='COMMAND',
                        help='read command, same placeholder')
    parser.add_argument('--fan-out', type=int, default=1, metavar='K',
                        help='streams run by each launcher task '
                             '(default: %(default)s)')
    parser.add_argument('--cache-defeat', default='none',
                        choices=CACHE_DEFEAT_MODES,
                        help='how the page cache is defeated between write '
                             'and read (default: %(default)s)')
    parser.add_argument('--drop-caches-command', metavar='COMMAND',
                        default=DEFAULT_DROP_CACHES,
                        help='run once per node with --cache-defeat '
                             'drop_caches (default: %(default)s)')
    parser.add_argument('--barrier-timeout', type=float, default=3600,
                        metavar='SECONDS',
                        help='give up waiting for the other streams after '
                             'this long (default: %(default)s)')
    parser.add_argument('--poll', type=float, default=0.002,
                        metavar='SECONDS',
                        help='barrier polling interval (default: '
                             '%(default)s)')
    parser.add_argument('--keep', action='store_true',
                        help='keep the stream files (default: remove them)')
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.fan_out < 1:
        print(f'{PREFIX} error: --fan-out must be >= 1, got {args.fan_out}',
              file=sys.stderr)
        return 2

    return Streams(args).run()


if __name__ == '__main__':
    sys.exit(main())
