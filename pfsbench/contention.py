# SPDX-License-Identifier: BSD-3-Clause
"""Foreign load seen during a measurement.

A figure measured while something else used the target is not the target's
figure.  :mod:`pfsbench.exclusive` keeps pfsbench's own cases apart; this
module looks for everybody else, so that such a result is marked
``contended`` and the gate leaves it out:

- **I/O on the target's block device** that the case did not do: the
  device's sectors read and written (``/proc/diskstats``) from just before
  the job was submitted to just after it ended, minus the bytes the case
  itself moved, beyond a slack for file-system metadata, journal and
  read-ahead (:data:`SLACK_FRACTION`, at least :data:`SLACK_BYTES`).  Only
  for targets on a local block device (a network or parallel file system
  has none here; tmpfs has none at all).
- **Other Slurm jobs running on the job's nodes** when it ended (without
  Slurm accounting, jobs that came and went during the case are not seen).
"""

import os
import subprocess
from dataclasses import dataclass

from pfsbench.mounts import mount_of, read_mounts
from pfsbench.parsers import text

DISKSTATS = '/proc/diskstats'
#: /proc/diskstats counts 512-byte sectors whatever the device's own size.
SECTOR_BYTES = 512
#: Foreign I/O below this share of the case's own bytes is noise
#: (journal, metadata, read-ahead).
SLACK_FRACTION = 0.10
#: ... and below this many bytes whatever the case moved.
SLACK_BYTES = 64 * 2**20


@dataclass(frozen=True)
class DeviceCounters:
    """Bytes read and written on one block device since boot."""

    device: str
    read_bytes: int
    write_bytes: int


def parse_diskstats(text):
    """``/proc/diskstats`` as ``{'major:minor': DeviceCounters}``."""
    counters = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 10:
            continue

        device = f'{fields[0]}:{fields[1]}'
        counters[device] = DeviceCounters(
            device=fields[2],
            read_bytes=int(fields[5]) * SECTOR_BYTES,
            write_bytes=int(fields[9]) * SECTOR_BYTES)

    return counters


def target_device(path, mounts=None):
    """``major:minor`` of the block device holding ``path``, or None
    where there is none (network, parallel and memory file systems have
    major number 0)."""
    mount = mount_of(path, read_mounts() if mounts is None else mounts)
    if mount is None or mount['device'].startswith('0:'):
        return None

    return mount['device']


def sample(device, diskstats_path=DISKSTATS):
    """The device's counters now, or None when they cannot be read."""
    if device is None:
        return None

    try:
        with open(diskstats_path) as fp:
            return parse_diskstats(fp.read()).get(device)
    except OSError:
        return None


def foreign_io(before, after, own_bytes):
    """What the device did beyond the case's own I/O, as a sentence, or
    ``''`` when it stayed within the slack (or cannot be told).

    Args:
        before, after: :class:`DeviceCounters` around the case.
        own_bytes: bytes the case itself wrote plus read (None: unknown).
    """
    if before is None or after is None or own_bytes is None:
        return ''

    moved = ((after.read_bytes - before.read_bytes) +
             (after.write_bytes - before.write_bytes))
    extra = moved - own_bytes
    if extra <= max(SLACK_BYTES, SLACK_FRACTION * own_bytes):
        return ''

    return (f'{after.device}: {extra / 2**20:.0f} MiB of I/O beyond this '
            f"case's own {own_bytes / 2**20:.0f} MiB")


def foreign_jobs(nodelist, own_jobids, squeue='squeue'):
    """Other running Slurm jobs on ``nodelist``, as a sentence, or ``''``.

    Args:
        nodelist: the job's nodes (names).
        own_jobids: the jobs of this suite run, which are not foreign.
    """
    if not nodelist:
        return ''

    try:
        proc = text.run(
            [squeue, '--noheader', '--states=RUNNING', '--format=%i %N',
             '--nodelist=' + ','.join(nodelist)],
            timeout=30, env=dict(os.environ))
    except (OSError, subprocess.TimeoutExpired):
        return ''

    own = {str(j) for j in own_jobids}
    others = [line.split()[0] for line in proc.stdout.splitlines()
              if line.split() and line.split()[0] not in own]
    if not others:
        return ''

    return (f'Slurm job(s) {", ".join(others)} running on '
            f'{",".join(nodelist)}')
