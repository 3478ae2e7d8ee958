#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What the streams runner's barrier costs at E10's scale and beyond.

For each member count (default 768, E10's 64 nodes x 12 streams, and 6,144),
one task per member as under ``srun``:

- runs the real :class:`pfsbench.runner.barrier.Coordinator` in its own
  process, and the members in ``--procs`` processes on this host: a few
  real :class:`~pfsbench.runner.barrier.Member` objects (one thread per
  stream, as the runner waits) and the rest simulated, many sockets per
  process, speaking the same protocol;
- prints the time to connect every member, the time per barrier round
  (from the first arrival of the round to the last release, over
  ``--rounds`` rounds), the messages per round (the coordinator's counters),
  and the file-system calls the coordinator and the real members made while
  members connected and waited (``strace -c -e trace=%file,getdents64``
  attached after start-up; "not measured" without strace);
- prints, for comparison, the file-system load the former file barrier put
  on the target while its members waited, from its poll intervals: every
  member stat'ed a marker every 2 ms and listed the marker directory (up to
  one entry per member) every tenth poll.

Run: ``.venv/bin/python bench/barrier_cost.py [--members 768,6144]
[--rounds 20] [--procs 4]``.  On a loaded 2-core host the round times are
upper bounds: the members' own Python work shares the cores with the
coordinator.
"""

import argparse
import os
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from pfsbench.runner.barrier import (Coordinator, Member,  # noqa: E402
                                     encode, raise_open_file_limit,
                                     split_lines)

#: The former file barrier: seconds between a waiting member's stats of the
#: release marker, and polls per listing of the arrivals directory.
FILE_BARRIER_POLL_S = 0.002
FILE_BARRIER_READDIR_EVERY = 10
#: Real Member objects in every run (their waiting is strace'd).
REAL_MEMBERS = 16


def serve(members, token):
    """Child: the coordinator, until every member said bye."""
    coordinator = Coordinator(members, members, token, timeout=600)
    print(f'port {coordinator.port}', flush=True)
    coordinator.serve()
    print(f'summary {coordinator.summary()}', flush=True)
    sys.stdin.readline()        # stay until the parent detached strace


def simulate(port, token, first, count, rounds):
    """Child: ``count`` members on non-blocking sockets, one process."""
    raise_open_file_limit()
    selector = selectors.DefaultSelector()
    socks = []
    for rank in range(first, first + count):
        sock = socket.create_connection(('127.0.0.1', port))
        sock.sendall(encode('hello', token, rank, 'sim'))
        socks.append(sock)

    for sock in socks:
        reply = b''
        while not reply.endswith(b'\n'):
            reply += sock.recv(100)
        assert reply == b'welcome\n', reply
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ, bytearray())
    print('connected', flush=True)
    sys.stdin.readline()        # every member is connected

    for number in range(rounds):
        name = f'r{number}'
        message = encode('arrive', name)
        first_sent = time.time()
        for sock in socks:
            sock.sendall(message)
        last_sent = time.time()
        waiting = len(socks)
        while waiting:
            for key, _ in selector.select():
                key.data.extend(key.fileobj.recv(4096))
                waiting -= split_lines(key.data).count(f'go {name}')
        print(f'round {number} {first_sent:.6f} {last_sent:.6f} '
              f'{time.time():.6f}', flush=True)

    for sock in socks:
        sock.setblocking(True)
        sock.sendall(encode('bye'))
        sock.close()


def real_members(port, token, first, count, rounds):
    """Child: ``count`` real Members, each waiting in its own thread."""
    members = [Member(token, [('127.0.0.1', port)], rank, 'real', 600,
                      lambda reason: print(f'abort {reason}', flush=True))
               for rank in range(first, first + count)]
    for member in members:
        member.connect()
    print('connected', flush=True)
    sys.stdin.readline()        # the parent attaches strace meanwhile

    for number in range(rounds):
        name = f'r{number}'
        threads = [threading.Thread(target=m.wait, args=(name,))
                   for m in members]
        started = time.time()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(f'round {number} {started:.6f} {started:.6f} '
              f'{time.time():.6f}', flush=True)

    for member in members:
        member.close()
    print('done', flush=True)
    sys.stdin.readline()        # stay until the parent detached strace


def _child(*words):
    argv = [sys.executable, os.path.abspath(__file__)]
    argv += [str(w) for w in words]
    return subprocess.Popen(argv, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, universal_newlines=True)


def _attach_strace(pid, out, traced):
    if not traced:
        return None
    proc = subprocess.Popen(['strace', '-f', '-c', '-e',
                             'trace=%file,getdents64', '-o', out,
                             '-p', str(pid)], stderr=subprocess.DEVNULL)
    time.sleep(0.5)             # attached
    return proc


def _strace_works():
    try:
        return subprocess.run(['strace', '-o', os.devnull, 'true'],
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


def _calls(path):
    """Traced calls in an ``strace -c`` summary (no table: none)."""
    with open(path) as fp:
        for line in fp:
            words = line.split()
            if words and words[-1] == 'total':
                return int(words[3])
    return 0


def measure(members, rounds, procs, traced):
    """One run of ``rounds`` barriers of ``members`` members.

    Returns:
        (seconds to connect, [seconds per round], [seconds from the last
        arrival to the last release per round], the coordinator's counters,
        (coordinator's, real members' file-system calls) or None).
    """
    token = os.urandom(16).hex()
    tmp = tempfile.mkdtemp(prefix='pfsbench-barrier-cost-')
    coordinator = _child('--serve', members, token)
    port = int(coordinator.stdout.readline().split()[1])
    traces = [os.path.join(tmp, 'coordinator.strace'),
              os.path.join(tmp, 'members.strace')]
    straces = [_attach_strace(coordinator.pid, traces[0], traced)]

    started = time.time()
    simulated = members - REAL_MEMBERS
    share = -(-simulated // procs)
    children = []
    for first in range(0, simulated, share):
        children.append(_child('--simulate', port, token, first,
                               min(share, simulated - first), rounds))
    real = _child('--real', port, token, simulated, REAL_MEMBERS, rounds)
    children.append(real)
    for child in children:
        assert child.stdout.readline().strip() == 'connected'
    connected = time.time() - started
    straces.append(_attach_strace(real.pid, traces[1], traced))
    for child in children:
        child.stdin.write('go\n')
        child.stdin.flush()

    rows = {}
    for child in children:
        for number in range(rounds):
            words = child.stdout.readline().split()
            assert words[0] == 'round', words
            stamps = [float(w) for w in words[2:]]
            rows.setdefault(number, []).append(stamps)
    assert real.stdout.readline().strip() == 'done'
    summary = coordinator.stdout.readline().split(' ', 1)[1].strip()
    for proc in straces:
        if proc is not None:
            proc.send_signal(signal.SIGINT)
            proc.wait()
    for child in (coordinator, real):
        child.stdin.write('exit\n')
        child.stdin.flush()
    for child in children + [coordinator]:
        child.wait()

    # A round: from its first arrival to its last release; the release
    # alone: from the last arrival sent to the last 'go' received.
    rounds_s = [max(r[2] for r in row) - min(r[0] for r in row)
                for row in rows.values()]
    release_s = [max(r[2] for r in row) - max(r[1] for r in row)
                 for row in rows.values()]
    counters = dict(word.split('=') for word in summary.split())
    calls = (_calls(traces[0]), _calls(traces[1])) if traced else None
    return connected, rounds_s, release_s, counters, calls


def report(members, rounds, procs):
    """Print the figures of ``members`` members (a timed run, then a run
    under strace, which slows every system call down)."""
    connected, rounds_s, release_s, counters, _ = measure(
        members, rounds, procs, traced=False)
    if _strace_works():
        calls = measure(members, 3, procs, traced=True)[4]
        fs_calls = (f'{calls[0]} by the coordinator, {calls[1]} by '
                    f'{REAL_MEMBERS} real members (strace, 3 rounds)')
    else:
        fs_calls = 'not measured (strace unavailable)'

    ms = [1e3 * s for s in rounds_s]
    print(f'socket barrier, {members} members ({members} tasks; '
          f'{procs} processes simulate members, {REAL_MEMBERS} are real):')
    print(f'  connect all: {connected:.2f} s')
    print(f'  per round: median {statistics.median(ms):.1f} ms (min '
          f'{min(ms):.1f}, max {max(ms):.1f}) over {rounds} rounds; '
          f'release after the last arrival: median '
          f'{1e3 * statistics.median(release_s):.1f} ms')
    print(f'  messages: {counters["messages_in"]} in, '
          f'{counters["messages_out"]} out for {counters["rounds"]} rounds '
          f'(per round: {members} arrivals in, {members} releases out)')
    print(f'  file-system calls while connecting and waiting: {fs_calls}')
    stats = members / FILE_BARRIER_POLL_S
    readdirs = stats / FILE_BARRIER_READDIR_EVERY
    print(f'file barrier (former), {members} members waiting: '
          f'{stats:,.0f} stats/s and {readdirs:,.0f} readdirs/s of up to '
          f'{members:,} entries (up to {readdirs * members:,.0f} entries/s) '
          f'on the target, for as long as the last stream is late')


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--serve':
        return serve(int(sys.argv[2]), sys.argv[3])
    if len(sys.argv) > 1 and sys.argv[1] in ('--simulate', '--real'):
        child = simulate if sys.argv[1] == '--simulate' else real_members
        return child(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]),
                     int(sys.argv[5]), int(sys.argv[6]))

    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--members', default='768,6144',
                        help='comma-separated member counts '
                             '(default: %(default)s)')
    parser.add_argument('--rounds', type=int, default=20,
                        help='barrier rounds (default: %(default)s)')
    parser.add_argument('--procs', type=int, default=4,
                        help='processes simulating members (default: '
                             '%(default)s)')
    args = parser.parse_args()
    raise_open_file_limit()
    print(f'+ {sys.executable} bench/barrier_cost.py --members '
          f'{args.members} --rounds {args.rounds} --procs {args.procs}')
    for members in args.members.split(','):
        report(int(members), args.rounds, args.procs)


if __name__ == '__main__':
    main()
