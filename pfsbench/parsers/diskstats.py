# SPDX-License-Identifier: BSD-3-Clause
"""Block-device counters: ``/proc/diskstats``, the device samples of a job
(:mod:`pfsbench.commands.diskstats`), and what a device did between two
samples, as ``iostat -x`` reports it.

``/proc/diskstats`` (the kernel's Documentation/admin-guide/iostats.rst):
``major minor name`` and then, since Linux 2.6, 11 counters (reads
completed, reads merged, sectors read, ms reading, writes completed, writes
merged, sectors written, ms writing, I/Os in flight, ms with I/O in flight,
weighted ms), 4 more for discards since 4.18 and 2 for flushes since 5.5.
Sectors are 512 bytes whatever the device's own size.  The millisecond
counters are printed as 32-bit ``unsigned int`` even on 64-bit kernels:
they wrap after 49.7 days of I/O time; the others are ``unsigned long``
(32 bits on a 32-bit kernel).  A device removed and added again (a disk
unplugged, a device-mapper volume made anew) starts again from 0; a loop
device keeps its counters when detached and attached to another image.

Between two samples (:func:`usage`), as iostat's ``-x`` columns:

- ``util_pct``: the share of the wall time with at least one I/O in flight
  (iostat's ``%util``: ms with I/O in flight over elapsed ms; capped at 100,
  as sampling granularity can push it a little above);
- ``read_mib_s``, ``write_mib_s``: sectors x 512 over the time, in MiB/s
  (iostat ``-m``'s ``rMB/s``, ``wMB/s``, which are MiB);
- ``iops``: reads and writes completed per second (``r/s`` + ``w/s``);
- ``await_ms``: the mean time a completed read or write took, queue
  included (iostat's ``r_await`` and ``w_await`` together: ms reading plus
  ms writing over reads plus writes); None when none completed.

Pure: no ReFrame, no file access.
"""

import os
from dataclasses import dataclass

from pfsbench.commands.diskstats import EXIT_PREFIX, SAMPLE_PREFIX
from pfsbench.core.errors import ParseError
from pfsbench.parsers.common import last_line

#: /proc/diskstats counts 512-byte sectors whatever the device's own size.
SECTOR_BYTES = 512
#: Counters per line before the discard and flush ones (Linux >= 2.6).
_COUNTERS = 11
#: The 32-bit counters' modulus (ms counters always, all on 32-bit kernels).
_WRAP = 2 ** 32


@dataclass(frozen=True)
class DiskCounters:
    """One device's counters since it appeared (``/proc/diskstats``)."""

    name: str
    reads: int
    read_sectors: int
    read_ms: int
    writes: int
    write_sectors: int
    write_ms: int
    in_flight: int
    io_ms: int          #: ms with at least one I/O in flight (io_ticks)
    queue_ms: int       #: weighted ms (time_in_queue)

    @property
    def read_bytes(self):
        return self.read_sectors * SECTOR_BYTES

    @property
    def write_bytes(self):
        return self.write_sectors * SECTOR_BYTES


def counters_of(words):
    """``('major:minor', DiskCounters)`` of one ``/proc/diskstats`` line
    split into words, or None when it is not one with the 11 counters
    (old kernels' partition lines have 4; any other text)."""
    if len(words) < 3 + _COUNTERS or not _is_count(words[0]) or \
            not _is_count(words[1]):
        return None
    values = words[3:3 + _COUNTERS]
    if not all(_is_count(v) for v in values):
        return None
    (reads, _, read_sectors, read_ms, writes, _, write_sectors, write_ms,
     in_flight, io_ms, queue_ms) = (int(v) for v in values)
    return f'{words[0]}:{words[1]}', DiskCounters(
        words[2], reads, read_sectors, read_ms, writes, write_sectors,
        write_ms, in_flight, io_ms, queue_ms)


def _is_count(word):
    # ASCII digits only: str.isdigit() also takes '²', which int() refuses.
    return word.isascii() and word.isdigit()


def parse_proc(text):
    """``/proc/diskstats`` as ``{'major:minor': DiskCounters}``; lines
    without the 11 counters are left out."""
    counters = {}
    for line in text.splitlines():
        found = counters_of(line.split())
        if found is not None:
            counters[found[0]] = found[1]
    return counters


@dataclass(frozen=True)
class Sample:
    """One device sample of a job step."""

    host: str               #: the client's host name, or ``server``
    uptime_s: float         #: the client's /proc/uptime: the time base
    #: ``major:minor`` of the target's device (client samples); None for
    #: a server sample or where the target has none.
    device: str
    #: why ``device`` is None on a client sample ('' otherwise).
    no_device: str
    #: ``{key: DiskCounters}``; a server's lines ``mds1: 8 16 sdb ...``
    #: are keyed ``mds1:8:16``.
    counters: dict
    #: why the server's command gave nothing ('' when it ran).
    failed: str = ''


def device_of(st_dev):
    """``(major:minor, why not)`` of a ``stat -c %d`` device number: a
    network, FUSE or memory file system has major 0 and no block device."""
    if not _is_count(st_dev) or int(st_dev) >= 2 ** 64:
        return None, 'the target directory could not be stat()ed'
    major, minor = os.major(int(st_dev)), os.minor(int(st_dev))
    if major == 0:
        return None, (f'the target is on no block device (st_dev {major}:'
                      f'{minor}: a network, parallel, FUSE or memory file '
                      f'system)')
    return f'{major}:{minor}', ''


def parse(text, source='<text>'):
    """Parse one sample step's output.

    Args:
        text: the step's output.
        source: the name quoted in error messages.

    Returns:
        A :class:`Sample`.

    Raises:
        ParseError: no header line, a header without its fields, or (after
            a server header) a line that is not a ``/proc/diskstats`` line.
    """
    header = None
    counters = {}
    failed = ''
    for lineno, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words:
            continue
        if words[0] == SAMPLE_PREFIX:
            if len(words) != 4 or not _is_number(words[2]):
                raise ParseError(source, lineno, line.strip(),
                                 f"expected '{SAMPLE_PREFIX} <host> <uptime "
                                 f"s> <st_dev or ->'")
            header = words
            continue
        if header is None:
            continue
        if words[0] == EXIT_PREFIX:
            if words[1:] != ['0']:
                failed = f'its command exited with {" ".join(words[1:])}'
            continue
        server = header[1] == 'server'
        prefix = ''
        if server and words[0].endswith(':') and len(words) > 1:
            prefix, words = words[0], words[1:]
        found = counters_of(words)
        if found is None:
            if not server:
                continue
            raise ParseError(source, lineno, line.strip(),
                             "expected a /proc/diskstats line ('[<server>:] "
                             "<major> <minor> <name> <11 or more counters>')")
        counters[prefix + found[0]] = found[1]
    if header is None:
        lineno, line = last_line(text.splitlines())
        raise ParseError(source, lineno, line,
                         f"expected a '{SAMPLE_PREFIX}' line")
    device, why = (None, '') if header[1] == 'server' else \
        device_of(header[3])
    return Sample(header[1], float(header[2]), device, why, counters, failed)


def _is_number(word):
    try:
        float(word)
    except ValueError:
        return False
    return True


class NoUsage(ValueError):
    """What a device did cannot be told (the message says why)."""


def counter_delta(before, after, name):
    """``after - before`` of one counter, across one 32-bit wrap.

    Raises:
        NoUsage: the counter went back by more than a wrap explains: the
            device was removed and added again, or the host rebooted.
    """
    delta = after - before
    if delta >= 0:
        return delta
    wrapped = delta + _WRAP
    if before < _WRAP and wrapped < _WRAP // 2:
        return wrapped
    raise NoUsage(f'its {name} counter went back from {before} to {after} '
                  f'(the device was reset or replaced)')


@dataclass(frozen=True)
class Usage:
    """What a device (or the busiest of several) did between two samples."""

    devices: tuple          #: the device names, in key order
    seconds: float
    util_pct: float         #: the busiest device's
    read_mib_s: float       #: all devices together
    write_mib_s: float
    iops: float
    await_ms: float         #: over all completed I/Os; None: none completed


_DELTAS = ('reads', 'read_sectors', 'read_ms', 'writes', 'write_sectors',
           'write_ms', 'io_ms')


def usage(before, after, keys=None):
    """What the devices did between two :class:`Sample`\\ s.

    Args:
        before, after: the samples around the phase.
        keys: the devices (``major:minor`` keys) to account; None: every
            device of a server sample, the target's of a client sample.

    Returns:
        a :class:`Usage`.

    Raises:
        NoUsage: no device, a device missing from a sample (it vanished),
            counters that went back, or no time between the samples.
    """
    for sample in (before, after):
        if sample.failed:
            raise NoUsage(sample.failed)
    if keys is None:
        if after.host == 'server':
            keys = sorted(after.counters)
        else:
            if after.device is None:
                raise NoUsage(after.no_device or before.no_device)
            keys = [after.device]
    if not keys:
        raise NoUsage('the samples name no device')
    seconds = after.uptime_s - before.uptime_s
    if seconds <= 0:
        raise NoUsage(f'no time between the samples ({before.uptime_s} s, '
                      f'{after.uptime_s} s of uptime)')

    totals = dict.fromkeys(_DELTAS, 0)
    busiest = 0
    names = []
    for key in keys:
        start, end = before.counters.get(key), after.counters.get(key)
        if start is None or end is None:
            raise NoUsage(f'device {key} is not in the '
                          f'{"first" if start is None else "second"} '
                          f'sample (it vanished or appeared meanwhile)')
        if start.name != end.name:
            raise NoUsage(f'device {key} was {start.name}, then '
                          f'{end.name}')
        names.append(end.name)
        for name in _DELTAS:
            delta = counter_delta(getattr(start, name), getattr(end, name),
                                  name)
            totals[name] += delta
            if name == 'io_ms':
                busiest = max(busiest, delta)
    ios = totals['reads'] + totals['writes']
    mib = SECTOR_BYTES / 2 ** 20 / seconds
    return Usage(
        devices=tuple(names), seconds=seconds,
        util_pct=min(100.0, 100 * busiest / (1000 * seconds)),
        read_mib_s=totals['read_sectors'] * mib,
        write_mib_s=totals['write_sectors'] * mib,
        iops=ios / seconds,
        await_ms=((totals['read_ms'] + totals['write_ms']) / ios
                  if ios else None))


def describe(found):
    """``'vda util=12.3% r=0.0 w=4.1 MiB/s iops=210 await=0.41 ms over
    2.3 s'``: logged with the figures."""
    wait = '-' if found.await_ms is None else f'{found.await_ms:.2f}'
    return (f'{",".join(found.devices)} util={found.util_pct:.1f}% '
            f'r={found.read_mib_s:.1f} w={found.write_mib_s:.1f} MiB/s '
            f'iops={found.iops:.0f} await={wait} ms over '
            f'{found.seconds:.1f} s')
