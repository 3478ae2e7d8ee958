# SPDX-License-Identifier: BSD-3-Clause
"""Independent work split over the machine's cores: the items cut into
contiguous parts, every part after the first computed in a forked child
and handed back pickled, the results in the parts' order, so the caller
sees what one process would have computed (docs/gate-evidence.md,
"Speed: a year of nightlies").

A child shares the parent's memory until it writes to it; it opens no
connection it inherited (the results store's loaders open their own).  A
part whose child failed in any way is computed again in this process,
where its error, if any, is raised as one process would raise it.
Pickles cross only the pipe this process made to its own fork, never a
file: nothing another user could write is ever unpickled.
"""

import gc
import os
import pickle
import signal
import sys


def default_jobs():
    """The cores this process may run on (1 where that is unknown)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def parts_of(items, jobs, first=None):
    """``items`` cut into ``min(jobs, len(items))`` contiguous parts of
    near-equal length, the longer ones last (the first, this process's,
    has the least besides; none when no items); ``first``: the share of
    the items in the first part (at least one item, and one for each
    other part)."""
    count = max(1, min(int(jobs), len(items))) if items else 0
    if first is not None and count > 1:
        head = min(len(items) - count + 1,
                   max(1, round(len(items) * first)))
        return [items[:head]] + parts_of(items[head:], count - 1)
    size, extra = divmod(len(items), count) if count else (0, 0)
    parts, start = [], 0
    for i in range(count):
        end = start + size + (1 if i >= count - extra else 0)
        parts.append(items[start:end])
        start = end
    return parts


def ordered_map(fn, items, jobs, first=None, meanwhile=None):
    """``[fn(part) for part in parts_of(items, jobs, first)]``, the parts
    after the first each in a forked child while this process computes
    the first.  ``fn``'s results must pickle; ``jobs`` 1 (or a system
    without ``fork``) computes every part here.  ``meanwhile(part,
    result)``, if given, runs in this process on the first part and its
    result before the children's are collected (work of this process's
    that needs the first part's result: it runs while they still
    compute)."""
    parts = parts_of(list(items), jobs, first)
    if len(parts) <= 1 or not hasattr(os, 'fork'):
        done = [fn(part) for part in parts]
        if meanwhile is not None and parts:
            meanwhile(parts[0], done[0])
        return done

    # The collector leaves the objects of now alone: a child that
    # traversed them would copy every page they are on.
    gc.freeze()
    try:
        children = [_start(fn, part) for part in parts[1:]]
    finally:
        gc.unfreeze()
    try:
        first = fn(parts[0])
        if meanwhile is not None:
            meanwhile(parts[0], first)
    except BaseException:
        # This part's error ends the map: the children's parts are moot.
        for pid, _ in children:
            os.kill(pid, signal.SIGTERM)
        raise
    finally:
        outs = [_collect(*child) for child in children]
    return [first] + [fn(part) if out is _FAILED else out
                      for part, out in zip(parts[1:], outs)]


#: A child's answer when it failed (its part is computed again here).
_FAILED = object()


def _start(fn, part):
    """Fork a child computing ``fn(part)``: ``(pid, read end of its
    pipe)``."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    read, write = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write)
        return pid, read

    try:
        os.close(read)
        try:
            data = pickle.dumps(fn(part), pickle.HIGHEST_PROTOCOL)
        except BaseException:                       # noqa: B036
            data = b''
        with os.fdopen(write, 'wb') as out:
            out.write(data)
    finally:
        # No atexit handlers, no buffers of the parent's flushed twice.
        os._exit(0)


def _collect(pid, read):
    """The result of the child ``pid``, or :data:`_FAILED`."""
    with os.fdopen(read, 'rb') as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if not data or status != 0:
        return _FAILED
    try:
        return pickle.loads(data)
    except Exception:                               # noqa: BLE001
        return _FAILED
