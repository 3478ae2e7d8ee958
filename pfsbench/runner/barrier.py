# SPDX-License-Identifier: BSD-3-Clause
"""The streams' barrier: a socket rendezvous that never touches the target.

A barrier of marker files on the target itself (this runner's first form)
made every waiting stream stat a marker every 2 ms and list a directory
every 20 ms: at E10's scale (768 streams) about 380,000 stats and 38,000
readdirs per second on the metadata server it measures.  Here the launcher's
task 0 runs a :class:`Coordinator` on an ephemeral port and publishes its
addresses once, in :data:`RENDEZVOUS_FILE` in the run directory; the other
tasks poll for that file with a backoff only while they start, connect
(:class:`Member`), and from then on every barrier is messages only.

Protocol: one ASCII line per message, words separated by spaces::

    member -> coordinator   hello TOKEN TASK NODE | arrive NAME
                            | abort REASON | bye
    coordinator -> member   welcome | go NAME | abort REASON

Every stream sends ``arrive NAME``; once all of them have, the coordinator
sends ``go NAME`` to every task.  ``abort`` from any task (its tool failed),
a task's lost connection or a barrier timeout makes the coordinator send
``abort REASON`` to every task, which stops its tools at once.

Emulated nodes (``localslurm``) share one network namespace but their names
do not resolve, so every candidate address is published (this host's
resolvable and routed addresses, then 127.0.0.1) and members try them in
order; the token keeps them from joining anything else listening there.
"""

import os
import selectors
import socket
import threading
import time

#: The file in the run directory that holds the coordinator's addresses.
RENDEZVOUS_FILE = '.pfsbench-rendezvous'
#: First line of that file (its format version).
_MAGIC = 'pfsbench-rendezvous 1'
#: Seconds to connect to one candidate address and get ``welcome``.
CONNECT_TIMEOUT = 10.0
#: Seconds the coordinator keeps serving after an abort, so that every task
#: hears it, before it closes.
ABORT_GRACE = 10.0


class Aborted(Exception):
    """The run is being stopped; the message says why (the first failure)."""


def encode(*words):
    """One protocol message: ``words`` joined by spaces, newline-ended."""
    text = ' '.join(str(w) for w in words)
    return (text.replace('\n', ' ') + '\n').encode('ascii', 'replace')


def split_lines(buffer):
    """Complete messages at the head of ``buffer`` (a bytearray), removed
    from it; a partial last line stays."""
    lines = []
    while True:
        end = buffer.find(b'\n')
        if end < 0:
            return lines
        lines.append(buffer[:end].decode('ascii', 'replace'))
        del buffer[:end + 1]


def raise_open_file_limit():
    """Raise the soft limit on open files to the hard limit: a coordinator
    holds one socket per task, thousands at full scale.

    Returns:
        the soft limit now in force.
    """
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass

    return soft


def candidate_addresses():
    """IPv4 addresses other tasks may reach this host at, best first.

    Returns:
        the addresses this host's name resolves to and the one it routes
        out of (names of emulated nodes do not resolve), then 127.0.0.1
        (emulated nodes on one host, and the local launcher).
    """
    found = []
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None,
                                       socket.AF_INET, socket.SOCK_STREAM):
            found.append(info[4][0])
    except OSError:
        pass

    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        # Connecting a UDP socket sends nothing; it only picks the route
        # (192.0.2.1 is TEST-NET-1, never a real peer).
        probe.connect(('192.0.2.1', 9))
        found.append(probe.getsockname()[0])
    except OSError:
        pass
    finally:
        probe.close()

    remote = [a for a in found if not a.startswith('127.')]
    ordered = []
    for address in remote + ['127.0.0.1']:
        if address not in ordered:
            ordered.append(address)

    return ordered


def publish(run_dir, token, port, addresses):
    """Write the rendezvous file (atomically: no member reads half of it).

    Returns:
        its path.
    """
    path = os.path.join(run_dir, RENDEZVOUS_FILE)
    partial = f'{path}.{os.getpid()}.tmp'
    with open(partial, 'w') as fp:
        fp.write(f'{_MAGIC}\ntoken {token}\n')
        for address in addresses:
            fp.write(f'address {address} {port}\n')

    os.rename(partial, path)
    return path


def read_rendezvous(run_dir, timeout):
    """Wait for the rendezvous file and read it.

    Polls with a backoff (10 ms doubling to 1 s): only tasks that start
    before task 0 has published wait here, once per run.

    Args:
        run_dir: the run directory.
        timeout: seconds to wait for the file.

    Returns:
        (token, [(address, port), ...]).

    Raises:
        Aborted: the run directory is gone, or no file within ``timeout``.
    """
    path = os.path.join(run_dir, RENDEZVOUS_FILE)
    deadline = time.monotonic() + timeout
    pause = 0.01
    while True:
        try:
            with open(path) as fp:
                lines = fp.read().splitlines()
            break
        except FileNotFoundError:
            if not os.path.isdir(run_dir):
                raise Aborted(f'{run_dir}: the run directory is gone')
            if time.monotonic() > deadline:
                raise Aborted(f'{path}: task 0 published no coordinator '
                              f'address within {timeout:g} s')
            time.sleep(pause)
            pause = min(pause * 2, 1.0)

    if not lines or lines[0] != _MAGIC:
        raise Aborted(f'{path}: not a rendezvous file (first line: '
                      f'{lines[0] if lines else ""!r})')

    token = None
    addresses = []
    for line in lines[1:]:
        words = line.split()
        if len(words) == 2 and words[0] == 'token':
            token = words[1]
        elif len(words) == 3 and words[0] == 'address':
            addresses.append((words[1], int(words[2])))

    if token is None or not addresses:
        raise Aborted(f'{path}: no token or no address in it')

    return token, addresses


class _Connection:
    """The coordinator's side of one task's connection."""

    def __init__(self, sock):
        self.sock = sock
        self.inbox = bytearray()
        self.outbox = bytearray()
        self.task = None
        self.node = None
        self.said_bye = False
        self.events = selectors.EVENT_READ


class Coordinator:
    """Counts arrivals at each barrier and releases or stops every task.

    One thread, non-blocking sockets multiplexed by :mod:`selectors`: one
    socket per task, thousands at full scale.

    Args:
        streams: members of every barrier (streams of the whole job).
        tasks: connections to expect (launcher tasks).
        token: the secret a member must present.
        timeout: seconds a barrier may wait for its last member, counted
            from its first arrival.
        on_all_connected: called once, when every task has connected.
    """

    def __init__(self, streams, tasks, token, timeout,
                 on_all_connected=None):
        self.streams = streams
        self.tasks = tasks
        self.token = token
        self.timeout = timeout
        self.on_all_connected = on_all_connected
        self.open_file_limit = raise_open_file_limit()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(('', 0))
        # The kernel caps the backlog (net.core.somaxconn); a burst of
        # thousands of tasks connecting at once must not be refused.
        self.listener.listen(max(tasks, 128))
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ)
        self.connections = []
        self.connected = 0
        self.finished_tasks = 0
        self.arrived = {}
        self.first_arrival = {}
        self.released = set()
        self.abort_reason = None
        self.abort_time = None
        self.rounds = 0
        self.messages_in = 0
        self.messages_out = 0
        self._stop = threading.Event()

    def stop(self):
        """Make :meth:`serve` return (from another thread)."""
        self._stop.set()

    def serve(self):
        """Serve until every task said ``bye`` and closed, or until every
        connection closed (or :data:`ABORT_GRACE` passed) after an abort."""
        while not self._stop.is_set() and not self._finished():
            for key, mask in self.selector.select(self._select_timeout()):
                if key.fileobj is self.listener:
                    self._accept()
                    continue

                conn = key.data
                if mask & selectors.EVENT_READ:
                    self._receive(conn)
                if mask & selectors.EVENT_WRITE and conn.sock is not None:
                    self._flush(conn)

            self._check_timeouts()

        for conn in list(self.connections):
            self._close(conn)
        self.selector.close()
        self.listener.close()

    def summary(self):
        """The coordinator's counters, as ``key=value`` words."""
        return (f'rounds={self.rounds} members={self.streams} '
                f'tasks={self.tasks} messages_in={self.messages_in} '
                f'messages_out={self.messages_out}')

    def _finished(self):
        if self.abort_reason is not None:
            return (not self.connections or
                    time.monotonic() > self.abort_time + ABORT_GRACE)

        return (self.finished_tasks >= self.tasks and
                not self.connections)

    def _select_timeout(self):
        return 1.0 if self.abort_reason is None else 0.2

    def _accept(self):
        while True:
            try:
                sock, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return      # out of descriptors: retried when readable

            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = _Connection(sock)
            self.connections.append(conn)
            self.selector.register(sock, selectors.EVENT_READ, conn)

    def _receive(self, conn):
        try:
            data = conn.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b''

        if not data:
            if conn.task is not None and not conn.said_bye:
                self.abort(f'task {conn.task} on {conn.node} lost its '
                           f'connection to the coordinator')
            self._close(conn)
            return

        conn.inbox += data
        for line in split_lines(conn.inbox):
            self.messages_in += 1
            self._handle(conn, line)
            if conn.sock is None:
                return

    def _handle(self, conn, line):
        verb, _, rest = line.partition(' ')
        if conn.task is None:
            words = rest.split()
            if verb != 'hello' or len(words) != 3 or words[0] != self.token:
                self._close(conn)   # not one of ours
                return
            conn.task, conn.node = words[1], words[2]
            self.connected += 1
            self._send(conn, 'welcome')
            if self.abort_reason is not None:
                self._send(conn, 'abort', self.abort_reason)
            if self.connected == self.tasks and self.on_all_connected:
                self.on_all_connected()
        elif verb == 'arrive':
            self._arrive(conn, rest)
        elif verb == 'abort':
            self.abort(rest)
        elif verb == 'bye':
            conn.said_bye = True
            self.finished_tasks += 1
        else:
            self.abort(f'task {conn.task} on {conn.node} sent an unknown '
                       f'message: {line[:80]!r}')

    def _arrive(self, conn, name):
        if name in self.released:
            self.abort(f'task {conn.task} on {conn.node} arrived at barrier '
                       f'{name!r} after its release')
            return

        count = self.arrived.get(name, 0) + 1
        if count == 1:
            self.first_arrival[name] = time.monotonic()
        if count < self.streams:
            self.arrived[name] = count
            return

        self.arrived.pop(name, None)
        self.first_arrival.pop(name, None)
        self.released.add(name)
        self.rounds += 1
        self._broadcast('go', name)

    def abort(self, reason):
        """Stop every task, telling it why (only the first reason counts).

        Args:
            reason: one line naming the failing stream and its tool's error.
        """
        if self.abort_reason is not None:
            return

        self.abort_reason = reason
        self.abort_time = time.monotonic()
        self._broadcast('abort', reason)

    def _check_timeouts(self):
        if self.abort_reason is not None:
            return

        now = time.monotonic()
        for name, first in list(self.first_arrival.items()):
            if now - first > self.timeout:
                self.abort(f'barrier {name!r}: {self.arrived[name]} of '
                           f'{self.streams} streams arrived within '
                           f'{self.timeout:g} s')
                return

    def _broadcast(self, *words):
        message = encode(*words)
        for conn in list(self.connections):
            if conn.task is not None:
                self._send_bytes(conn, message)

    def _send(self, conn, *words):
        self._send_bytes(conn, encode(*words))

    def _send_bytes(self, conn, message):
        self.messages_out += 1
        conn.outbox += message
        self._flush(conn)

    def _flush(self, conn):
        try:
            sent = conn.sock.send(conn.outbox)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            self._close(conn)
            return

        del conn.outbox[:sent]
        events = selectors.EVENT_READ
        if conn.outbox:
            events |= selectors.EVENT_WRITE
        if events != conn.events:
            # Only on a change: one system call less per message.
            self.selector.modify(conn.sock, events, conn)
            conn.events = events

    def _close(self, conn):
        if conn.sock is None:
            return

        self.selector.unregister(conn.sock)
        conn.sock.close()
        conn.sock = None
        self.connections.remove(conn)


class Member:
    """One task's connection to the coordinator, shared by its streams.

    Args:
        token: the coordinator's token (from the rendezvous file).
        addresses: [(address, port), ...] to try in order.
        task: this task's rank.
        node: this task's node name.
        timeout: the barrier timeout (a wait gives up a minute after it,
            should the coordinator itself hang).
        on_abort: called once with the reason when the run is stopped,
            from whichever thread learns it first.
    """

    def __init__(self, token, addresses, task, node, timeout, on_abort):
        self.token = token
        self.addresses = addresses
        self.task = task
        self.node = node
        self.timeout = timeout
        self.on_abort = on_abort
        self.address = None
        self.sock = None
        self.released = set()
        self.abort_reason = None
        self.closing = False
        self.changed = threading.Condition()
        self.send_lock = threading.Lock()

    def connect(self):
        """Connect to the first candidate address that answers ``welcome``.

        Raises:
            Aborted: none did; the message lists what each one said.
        """
        tried = []
        for address in self.addresses:
            try:
                sock = socket.create_connection(address, CONNECT_TIMEOUT)
            except OSError as err:
                tried.append(f'{address[0]}:{address[1]}: {err}')
                continue

            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sock.sendall(encode('hello', self.token, self.task,
                                    self.node))
                reply, inbox = self._read_line(sock)
            except OSError as err:
                reply, inbox = str(err), bytearray()
            if reply == 'welcome':
                sock.settimeout(None)
                self.sock = sock
                self.address = address
                break

            sock.close()
            tried.append(f'{address[0]}:{address[1]}: answered {reply!r}')

        if self.sock is None:
            raise Aborted('cannot reach the coordinator: ' +
                          '; '.join(tried))

        # What followed 'welcome' (an abort already under way) is kept.
        threading.Thread(target=self._listen, args=(inbox,),
                         daemon=True).start()

    def wait(self, name):
        """Wait at barrier ``name`` until every stream of the job arrived.

        Raises:
            Aborted: the run was stopped (by any task) meanwhile.
        """
        try:
            self._send('arrive', name)
        except OSError as err:
            self._stop(f'task {self.task} on {self.node} lost its '
                       f'connection to the coordinator: {err}')
        deadline = time.monotonic() + self.timeout + 60
        with self.changed:
            while name not in self.released and self.abort_reason is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    self._stop(f'barrier {name!r}: the coordinator did not '
                               f'answer within {self.timeout + 60:g} s')
                    break
                self.changed.wait(left)

            if self.abort_reason is not None:
                raise Aborted(self.abort_reason)

    def abort(self, reason):
        """Stop this task's streams now, and every other task's.

        Args:
            reason: one line: which stream failed, and its tool's error.
        """
        self._stop(reason)
        try:
            self._send('abort', reason)
        except OSError:
            pass    # the coordinator is gone: peers see the lost link

    def close(self):
        """Tell the coordinator this task is done, and disconnect."""
        self.closing = True
        if self.sock is None:
            return

        try:
            self._send('bye')
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def _send(self, *words):
        if self.sock is None:
            raise OSError('not connected')

        with self.send_lock:
            self.sock.sendall(encode(*words))

    def _stop(self, reason):
        with self.changed:
            if self.abort_reason is not None:
                return
            self.abort_reason = reason
            self.changed.notify_all()

        self.on_abort(reason)

    def _listen(self, inbox):
        while True:
            for line in split_lines(inbox):
                verb, _, rest = line.partition(' ')
                if verb == 'go':
                    with self.changed:
                        self.released.add(rest)
                        self.changed.notify_all()
                elif verb == 'abort':
                    self._stop(rest)

            try:
                data = self.sock.recv(65536)
            except OSError:
                data = b''

            if not data:
                if not self.closing:
                    self._stop(f'task {self.task} on {self.node} lost its '
                               f'connection to the coordinator at '
                               f'{self.address[0]}:{self.address[1]}')
                self.sock.close()
                return

            inbox += data

    @staticmethod
    def _read_line(sock):
        """(first line, the bytes after it) read from ``sock``."""
        sock.settimeout(CONNECT_TIMEOUT)
        inbox = bytearray()
        while b'\n' not in inbox:
            data = sock.recv(4096)
            if not data:
                return inbox.decode('ascii', 'replace'), bytearray()
            inbox += data

        end = inbox.index(b'\n')
        return inbox[:end].decode('ascii', 'replace'), inbox[end + 1:]
