# SPDX-License-Identifier: BSD-3-Clause
"""One measurement at a time per target: a benchmark that measures
contention measures nothing.

Three layers, from the widest:

1. **Suite runs.**  A run claims a scratch root with a lock file,
   ``<root>/.pfsbench-lock``, created with ``O_EXCL`` (atomic on local and
   parallel file systems, unlike ``flock`` on Lustre without ``-o flock``)
   and holding who owns it.  A second run on the same root waits for it,
   saying so once, and gives up after the partition's
   ``target_lock_timeout`` (default one hour) with a message naming the
   owner.  The owner touches the file every :data:`HEARTBEAT_S` seconds; a
   lock whose owner process is gone (same host) or whose heartbeat stopped
   (any host: killed with SIGKILL, node lost) is stale and taken over.
2. **Partitions.**  The site configuration gives every partition
   ``max_jobs: 1`` unless its ``extras.independent_targets`` says that its
   targets can be measured at once (:mod:`pfsbench.site.config`).
3. **Cases of one run on several partitions** that share a target: before
   a case submits its job it waits for the job of any other case of this
   run on the same root (:func:`claim`).

The lock is held by the ``reframe`` process, not by the jobs, so the job
scripts are unchanged and a job that waits in a Slurm queue holds nothing.
"""

import atexit
import json
import os
import socket
import sys
import threading
import time

from pfsbench.core.errors import PfsbenchError
from pfsbench.site import rundir
from pfsbench.site.rundir import pid_alive

LOCK_NAME = '.pfsbench-lock'
#: Seconds between the owner's touches of its lock file.
HEARTBEAT_S = 30
#: A lock untouched for this long belongs to a run that died.
STALE_AFTER_S = 4 * HEARTBEAT_S
#: Seconds between two looks at a busy lock (one stat: no load to speak of).
POLL_S = 2.0
#: Default wait (the partition's ``extras.target_lock_timeout`` is the
#: configured one).
DEFAULT_TIMEOUT_S = 3600


class TargetBusy(PfsbenchError):
    """Another suite run held the scratch root for longer than allowed."""


def _describe(owner):
    return (f"pid {owner.get('pid')} on {owner.get('host')} (started "
            f"{owner.get('started', '?')}: {owner.get('command', '?')})")


class ScratchLock:
    """This process's claim on one scratch root (see the module docstring).

    Args:
        root: the scratch root (a target's path, or the stage prefix).
        timeout: seconds to wait for another run before giving up.
        say: how to tell the user that we wait (one line).
    """

    def __init__(self, root, timeout=DEFAULT_TIMEOUT_S, say=print):
        self.root = root
        self.path = os.path.join(root, LOCK_NAME)
        self.timeout = timeout
        self.say = say
        self.owner = {
            'host': socket.gethostname(), 'pid': os.getpid(),
            'started': time.strftime('%Y-%m-%dT%H:%M:%S'),
            'command': ' '.join(sys.argv)[:200],
            'token': f'{socket.gethostname()}:{os.getpid()}:{time.time()}',
        }
        self._stop = threading.Event()
        self._beat = None

    def read_owner(self):
        """The lock file's owner record, or None (no lock, or unreadable
        because it is being written: both mean 'look again')."""
        try:
            with open(self.path) as fp:
                return json.load(fp)
        except (OSError, ValueError):
            return None

    def _stale(self, owner):
        try:
            age = time.time() - os.stat(self.path).st_mtime
        except OSError:
            return False        # gone already: just try again

        if age > STALE_AFTER_S:
            return True

        return (owner is not None and
                owner.get('host') == self.owner['host'] and
                isinstance(owner.get('pid'), int) and
                not pid_alive(owner['pid']))

    def _try_create(self):
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL,
                         0o644)
        except FileExistsError:
            return False

        with os.fdopen(fd, 'w') as fp:
            json.dump(self.owner, fp)
        return True

    def acquire(self):
        """Take the lock, waiting for another run if needed.

        Raises:
            TargetBusy: still held by another live run after the timeout.
        """
        deadline = time.monotonic() + self.timeout
        told = False
        while not self._try_create():
            owner = self.read_owner()
            if self._stale(owner):
                self.say(f'pfsbench: {self.path}: taking over the lock of a '
                         f'run that is gone ({_describe(owner or {})})')
                try:
                    os.unlink(self.path)
                except FileNotFoundError:
                    pass
                continue

            if time.monotonic() >= deadline:
                raise TargetBusy(
                    f'{self.root}: another pfsbench run is measuring this '
                    f'target ({_describe(owner or {})}) and did not finish '
                    f'within {self.timeout:g} s; not measuring under '
                    f'contention (extras.target_lock_timeout sets the wait)')

            if not told:
                self.say(f'pfsbench: {self.root} is in use by another '
                         f'pfsbench run ({_describe(owner or {})}); waiting '
                         f'up to {self.timeout:g} s for it to finish')
                told = True
            time.sleep(min(POLL_S, max(0.0, deadline - time.monotonic())))

        self._beat = threading.Thread(target=self._heartbeat, daemon=True,
                                      name=f'pfsbench-lock {self.root}')
        self._beat.start()

    def _heartbeat(self):
        while not self._stop.wait(HEARTBEAT_S):
            try:
                os.utime(self.path)
            except OSError:
                return

    def release(self):
        """Remove the lock file if it is still ours."""
        self._stop.set()
        owner = self.read_owner()
        if owner and owner.get('token') == self.owner['token']:
            try:
                os.unlink(self.path)
            except OSError:
                pass


#: Scheduler job ids of every case this run submitted.
_OWN_JOBS = set()
#: root -> the ScratchLock this process holds.
_HELD = {}
#: root -> checks of this run whose jobs may still be running there.
_IN_FLIGHT = {}
_registered = False


def _release_all():
    # Run directories first, while the roots are still ours: a run
    # waiting for a root must not start measuring beside them.
    rundir.remove_created()
    for lock in _HELD.values():
        lock.release()
    _HELD.clear()


def hold(root, timeout=DEFAULT_TIMEOUT_S, say=print):
    """Hold ``root`` for the rest of this process (once per root).

    Once held, run directories that an interrupted earlier run left under
    ``root`` are removed (:func:`pfsbench.site.rundir.sweep`), saying so; at
    exit, those this process created and its jobs did not remove
    (:func:`pfsbench.site.rundir.remove_created`), then the lock.

    Raises:
        TargetBusy: another run kept it past ``timeout``.
    """
    global _registered
    root = os.path.realpath(root)
    if root not in _HELD:
        lock = ScratchLock(root, timeout, say)
        lock.acquire()
        _HELD[root] = lock
        rundir.sweep(root, say)
        if not _registered:
            atexit.register(_release_all)
            _registered = True

    return _HELD[root]


def claim(root, check, independent=False, timeout=DEFAULT_TIMEOUT_S,
          say=print):
    """Claim ``root`` for ``check``'s job, which is about to be submitted.

    Holds the suite-run lock (:func:`hold`); then, unless the partition's
    targets are ``independent``, waits until no other case of this run has
    a job running on ``root`` (cases of other partitions that share it).

    Every earlier case whose job has ended is told so first
    (``measurement_ended()``), before this one can add load: ReFrame may
    start the next job before it reads the last one's results.

    Args:
        root: the scratch root.
        check: the ReFrame test about to run (its ``job`` not yet
            submitted); a :class:`pfsbench.checks.FileSystemCheck`.
        independent: the partition's ``extras.independent_targets``.
        timeout: the partition's ``extras.target_lock_timeout``.
        say: how to tell the user that a case waits.
    """
    root = os.path.realpath(root)
    hold(root, timeout, say)
    running = []
    for other in _IN_FLIGHT.get(root, []):
        job = other.job
        if job is None or job.jobid is None or other is check:
            continue
        if not job.scheduler.finished(job):
            running.append(other)
        else:
            other.measurement_ended()

    if not independent:
        for other in running:
            say(f'pfsbench: {check.unique_name} waits for '
                f'{other.unique_name} to finish on {root} (one case at a '
                f'time per target)')
            try:
                # The scheduler's wait, not Job.wait(): that would consume
                # the other case's pending exception, which its own
                # pipeline must still see.
                other.job.scheduler.wait(other.job)
            except Exception:
                pass    # its own pipeline reports what went wrong
            other.measurement_ended()

        running = []

    _IN_FLIGHT[root] = running + [check]


def own_job_ids():
    """Job ids of this run's cases (not foreign load on their nodes)."""
    for checks in _IN_FLIGHT.values():
        _OWN_JOBS.update(c.job.jobid for c in checks
                         if c.job is not None and c.job.jobid is not None)
    return _OWN_JOBS
