# SPDX-License-Identifier: BSD-3-Clause
"""``python -m pfsbench.runner``: the streams of one launcher task.

Every task of the job runs this; task 0 also runs the barrier's coordinator
(:mod:`pfsbench.runner.barrier`).  See :mod:`pfsbench.runner` for the phases
and the output.
"""

import argparse
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

from pfsbench.runner import (CACHE_DEFEAT_MODES, DEFAULT_DROP_CACHES,
                             PHASE_NAME, PREFIX, RENDEZVOUS_ENV,
                             stream_label, tool_error_line)
from pfsbench.runner.barrier import (RENDEZVOUS_FILE, Aborted, Coordinator,
                                     Member, candidate_addresses, publish,
                                     read_rendezvous)

#: Seconds between asking a stopped tool to end (SIGTERM) and killing it.
KILL_GRACE = 3.0


class StreamFailed(Exception):
    """A stream's tool (or its drop-caches command) failed; the message
    names the stream and quotes the tool's own error line."""


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


def _one_line(text):
    return ' '.join(text.split())


class Streams:
    """The streams of one launcher task.

    Args:
        args: the parsed command line.
    """

    def __init__(self, args):
        self.args = args
        self.rank, self.ntasks, self.local_rank, self.node = task_identity()
        self.total = self.ntasks * args.fan_out
        self.lock = threading.Lock()
        #: stream -> its running tool (a Popen, leader of its own group).
        self.running = {}
        #: streams whose tool this task stopped.
        self.stopped = set()
        self.stop_reason = None
        self.status = {}
        self.member = None

    def emit(self, lines):
        with self.lock:
            for line in lines:
                print(line)

            sys.stdout.flush()

    def stop(self, reason):
        """Stop every tool of this task (the run was aborted).

        Args:
            reason: the first failure, quoted in this task's abort line.
        """
        with self.lock:
            if self.stop_reason is not None:
                return
            self.stop_reason = reason
            procs = dict(self.running)
            self.stopped.update(procs)

        self.emit([f'{PREFIX} abort task={self.rank} node={self.node} '
                   f'time={time.time():.6f}: {reason}'])
        self._signal(procs.values(), signal.SIGTERM)
        if procs:
            timer = threading.Timer(KILL_GRACE, self._kill_remaining)
            timer.daemon = True
            timer.start()

    def _kill_remaining(self):
        with self.lock:
            procs = list(self.running.values())
        self._signal(procs, signal.SIGKILL)

    @staticmethod
    def _signal(procs, signum):
        for proc in procs:
            try:
                os.killpg(proc.pid, signum)
            except OSError:
                pass    # already gone

    def run_phase(self, stream, phase, template, stream_dir):
        """Run one phase's tool for one stream and print its labelled output
        and record.

        Raises:
            Aborted: the run was stopped before or while the tool ran.
            StreamFailed: the tool exited non-zero (or could not start).
        """
        argv = [w.replace('{stream_dir}', stream_dir)
                for w in shlex.split(template)]
        label = stream_label(stream, self.node, phase)
        program = os.path.basename(argv[0])
        with self.lock:
            if self.stop_reason is not None:
                raise Aborted(self.stop_reason)
            start = time.time()
            try:
                # Its own process group: stopping it stops its children.
                proc = subprocess.Popen(
                    argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    start_new_session=True, universal_newlines=True,
                    encoding='utf-8', errors='replace')
                self.running[stream] = proc
            except OSError as err:
                proc = None
                output, code = f'{program}: {err}', 127

        if proc is not None:
            out, err = proc.communicate()
            # stderr first: a tool's own error lines lead (fio prints its
            # first on stderr, a later one on stdout), and a JSON report on
            # stdout stays whole.
            output, code = err + '\n' + out, proc.returncode

        end = time.time()
        with self.lock:
            self.running.pop(stream, None)
            stopped = stream in self.stopped

        lines = [ln for ln in output.splitlines() if ln.strip()]
        self.emit([f'{label}: {ln}' for ln in lines] + [
            f'{PREFIX} stream={stream} node={self.node} phase={phase} '
            f'start={start:.6f} end={end:.6f} exit={code}' +
            (' stopped=1' if stopped else '')])
        if stopped:
            raise Aborted(self.stop_reason)
        if code != 0:
            raise StreamFailed(f'stream {stream} on {self.node} failed in '
                               f'{phase} (exit {code}): ' +
                               tool_error_line(program, lines))

    def drop_caches(self):
        """Drop this node's page cache (one stream per node does).

        Raises:
            StreamFailed: the command failed.
        """
        cmd = self.args.drop_caches_command
        proc = subprocess.run(cmd, shell=True, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT,
                              universal_newlines=True, encoding='utf-8',
                              errors='replace')
        lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
        self.emit([f'{PREFIX} drop_caches node={self.node} '
                   f'exit={proc.returncode} command={cmd!r}'] +
                  [f'{PREFIX} drop_caches output: {ln}' for ln in lines])
        if proc.returncode != 0:
            raise StreamFailed(
                f'drop_caches on {self.node} exited {proc.returncode}: ' +
                (lines[0] if lines else cmd))

    def one_stream(self, index):
        args = self.args
        stream = self.rank * args.fan_out + index
        local_index = self.local_rank * args.fan_out + index
        stream_dir = os.path.join(args.run_dir, f'stream-{stream:05d}')
        status = 'ok'
        try:
            os.makedirs(stream_dir, exist_ok=True)
            self.member.wait('start')
            for number, (phase, template) in enumerate(args.phase):
                if number > 0 and args.cache_defeat == 'drop_caches':
                    if local_index == 0:
                        self.drop_caches()
                    self.member.wait(f'{phase}.ready')

                self.run_phase(stream, phase, template, stream_dir)
                self.member.wait(f'{phase}.done')
        except Aborted:
            status = 'stopped'
        except StreamFailed as err:
            status = 'failed'
            self.member.abort(_one_line(str(err)))
        except OSError as err:
            status = 'failed'
            reason = _one_line(f'stream {stream} on {self.node}: {err}')
            self.emit([f'{PREFIX} error stream={stream} node={self.node}: '
                       f'{err}'])
            self.member.abort(reason)
        finally:
            if not args.keep:
                shutil.rmtree(stream_dir, ignore_errors=True)

        self.status[stream] = status
        self.emit([f'{PREFIX} stream={stream} node={self.node} '
                   f'end={time.time():.6f} status={status}'])

    def run(self):
        """Run this task's streams.

        Returns:
            the exit status: 0 when every stream of the job succeeded.
        """
        args = self.args
        coordinator = None
        serving = None
        try:
            if self.rank == 0:
                coordinator, serving, addresses = self._coordinate()
            else:
                token, addresses = read_rendezvous(args.rendezvous_dir,
                                                   args.start_timeout)
            self.member = Member(
                coordinator.token if coordinator else token, addresses,
                self.rank, self.node, args.barrier_timeout, self.stop)
            self.member.connect()
        except (Aborted, OSError) as err:
            self.emit([f'{PREFIX} error task={self.rank} node={self.node}: '
                       f'{err}'])
            if coordinator is not None:
                coordinator.abort(_one_line(f'task 0: {err}'))
                coordinator.stop()
            return self._end('failed')

        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            # The tools run in sessions of their own, out of reach of the
            # launcher's signals: stop them here, and tell the other tasks.
            signal.signal(signum, self._on_signal)

        threads = [threading.Thread(target=self.one_stream, args=(i,))
                   for i in range(args.fan_out)]
        for t in threads:
            t.start()

        for t in threads:
            t.join()

        self.member.close()
        if serving is not None:
            serving.join()
            self.emit([f'{PREFIX} barrier {coordinator.summary()}'])

        statuses = set(self.status.values())
        status = ('ok' if statuses == {'ok'} else
                  'failed' if 'failed' in statuses else 'stopped')
        return self._end(status)

    def _on_signal(self, signum, frame):
        self.member.abort(f'task {self.rank} on {self.node} received '
                          f'signal {signum}')

    def _coordinate(self):
        """Start the coordinator (task 0) and publish its addresses.

        Returns:
            (coordinator, its thread, addresses for this task's member).
        """
        args = self.args
        token = os.urandom(16).hex()
        path = os.path.join(args.rendezvous_dir, RENDEZVOUS_FILE)

        def unpublish():
            # Every task has connected: nobody reads the file any more.
            try:
                os.remove(path)
            except OSError:
                pass

        coordinator = Coordinator(self.total, self.ntasks, token,
                                  args.barrier_timeout, unpublish)
        serving = threading.Thread(target=coordinator.serve, daemon=True)
        serving.start()
        published = candidate_addresses()
        self.emit([
            f'{PREFIX} begin streams={self.total} tasks={self.ntasks} '
            f'fan_out={args.fan_out} cache_defeat={args.cache_defeat} '
            f'phases={",".join(p for p, _ in args.phase)}'] + [
            f'{PREFIX} phase name={p} command={c}' for p, c in args.phase] + [
            f'{PREFIX} coordinator ' + ' '.join(
                f'{a}:{coordinator.port}' for a in published)])
        if self.ntasks > 1:
            publish(args.rendezvous_dir, token, coordinator.port, published)
        return coordinator, serving, [('127.0.0.1', coordinator.port)]

    def _end(self, status):
        self.emit([f'{PREFIX} end task={self.rank} node={self.node} '
                   f'status={status}'])
        return 0 if status == 'ok' else 1


def _phase(text):
    name, sep, command = text.partition('=')
    if not sep or not PHASE_NAME.match(name) or not command.strip():
        raise argparse.ArgumentTypeError(
            f'{text!r}: expected NAME=COMMAND with NAME a lower-case word')
    return name, command


def build_parser():
    parser = argparse.ArgumentParser(
        prog='python -m pfsbench.runner',
        description='Run synchronised streams (one per task, or --fan-out '
                    'per task) through named phases, with a barrier before '
                    'each phase; a failing stream stops all the others.')
    parser.add_argument('--run-dir', required=True, metavar='DIR',
                        help='directory on the target file system that this '
                             'run owns (stream directories, rendezvous file)')
    parser.add_argument('--rendezvous-dir', metavar='DIR',
                        default=os.environ.get(RENDEZVOUS_ENV),
                        help='directory every task sees, where task 0 '
                             'publishes the barrier address (default: '
                             f'${RENDEZVOUS_ENV}, else --run-dir; a node '
                             "target's run directory is not shared)")
    parser.add_argument('--phase', required=True, action='append',
                        type=_phase, metavar='NAME=COMMAND',
                        help='a phase, in order (repeat); {stream_dir} in '
                             "COMMAND is replaced by the stream's own "
                             'directory')
    parser.add_argument('--fan-out', type=int, default=1, metavar='K',
                        help='streams run by each launcher task '
                             '(default: %(default)s)')
    parser.add_argument('--cache-defeat', default='none',
                        choices=CACHE_DEFEAT_MODES,
                        help='how the page cache is defeated between '
                             'phases (default: %(default)s)')
    parser.add_argument('--drop-caches-command', metavar='COMMAND',
                        default=DEFAULT_DROP_CACHES,
                        help='run once per node between phases with '
                             '--cache-defeat drop_caches (default: '
                             '%(default)s)')
    parser.add_argument('--barrier-timeout', type=float, default=3600,
                        metavar='SECONDS',
                        help='stop every stream when a barrier waited this '
                             'long for its last stream (default: '
                             '%(default)s)')
    parser.add_argument('--start-timeout', type=float, default=600,
                        metavar='SECONDS',
                        help='give up when task 0 has published no '
                             'coordinator address after this long '
                             '(default: %(default)s)')
    parser.add_argument('--keep', action='store_true',
                        help='keep the stream files (default: remove them)')
    return parser


def node_run_dir(run_dir, node):
    """``run_dir`` with ``$SLURMD_NODENAME`` (a node target's path names
    the node: docs/targets.md) replaced by this task's ``node``; nothing
    else is expanded."""
    for form in ('${SLURMD_NODENAME}', '$SLURMD_NODENAME'):
        run_dir = run_dir.replace(form, node)
    return run_dir


def main(argv=None):
    args = build_parser().parse_args(argv)
    node = os.environ.get('SLURMD_NODENAME', '')
    if not node and node_run_dir(args.run_dir, '') != args.run_dir:
        # An empty name would put every node's streams in one directory.
        print(f'{PREFIX} error: --run-dir {args.run_dir}: names the node '
              f'($SLURMD_NODENAME), which is not set here (not a Slurm '
              f'step)', file=sys.stderr)
        return 2
    args.run_dir = node_run_dir(args.run_dir, node)
    args.rendezvous_dir = args.rendezvous_dir or args.run_dir
    if args.fan_out < 1:
        print(f'{PREFIX} error: --fan-out must be >= 1, got {args.fan_out}',
              file=sys.stderr)
        return 2

    names = [name for name, _ in args.phase]
    if len(set(names)) != len(names):
        print(f'{PREFIX} error: --phase names must differ, got '
              f'{",".join(names)}', file=sys.stderr)
        return 2

    return Streams(args).run()


if __name__ == '__main__':
    sys.exit(main())
