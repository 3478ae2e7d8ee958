# SPDX-License-Identifier: BSD-3-Clause
"""Foreign load seen during a measurement.

A figure measured while something else used the target is not the target's
figure.  :mod:`pfsbench.site.exclusive` keeps pfsbench's own cases apart; this
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
- **The whole file system's counters**, where the partition declares
  ``extras.fs_counters_command`` (a site's command printing cumulative
  bytes read, written and metadata operations of every client: Lustre's
  server stats, ``mmpmon``, ``beegfs-ctl --serverstats``, MooseFS's servers):
  sampled before and after the case; what exceeds the case's own bytes and
  operations beyond a slack is other users' load, wherever their jobs run
  (:mod:`pfsbench.load.own_share`: the own share learned from the case's
  quiet runs, a fixed bound before it has any).  The probes above stay:
  they see what a local target does.
- **Busy client CPUs**, for cases whose job runs on the host that runs
  ReFrame (the ``local`` scheduler): the host's busy CPU time over the
  case (``/proc/stat``, all CPUs) minus the case's own (the ReFrame
  process's CPU time plus its reaped children's, :func:`os.times`: the
  job script, and through it dd or mpirun and theirs), as an average
  number of CPUs; above :data:`FOREIGN_CPU_SHARE` of them others' work shared
  the client's CPUs with the benchmark.  A site's measured nodes are
  exclusive Slurm nodes, which this host's counters do not see: the probe
  does not apply there.
"""

import os
import subprocess
import time
from dataclasses import dataclass

from pfsbench.parsers import diskstats, text
from pfsbench.parsers.text import decode
from pfsbench.site.mounts import mount_of, read_mounts

DISKSTATS = '/proc/diskstats'
SECTOR_BYTES = diskstats.SECTOR_BYTES
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
    """``/proc/diskstats`` as ``{'major:minor': DeviceCounters}`` (its
    parser: :func:`pfsbench.parsers.diskstats.parse_proc`)."""
    return {key: DeviceCounters(c.name, c.read_bytes, c.write_bytes)
            for key, c in diskstats.parse_proc(text).items()}


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


PROC_STAT = '/proc/stat'
CPU_PRESSURE = '/proc/pressure/cpu'
#: Columns of /proc/stat's ``cpu`` line that are work (user, nice, system,
#: irq, softirq, steal: steal is another guest's work on this VM's CPUs);
#: idle and iowait are not, guest and guest_nice are already in user and
#: nice.
_BUSY_COLUMNS = (0, 1, 2, 5, 6, 7)
#: Others' work on the client host above this share of its CPUs, on
#: average over the case, marks it contended: the case's own processes
#: then no longer have the CPUs they need.  Half the CPUs lies between the
#: quiet runs and the ones others' busy loops slowed (the measurements:
#: docs/checks-machinery.md#foreign-load-contended, the client host's
#: CPUs).
FOREIGN_CPU_SHARE = 0.5

#: Processes whose CPU serves the case's own I/O on the client host, counted
#: as the case's own, never as foreign: file-system clients that are user
#: processes (a FUSE client moves every byte of the case through its own
#: CPU, by itself above half of a small host's: the measurement in
#: docs/checks-machinery.md#foreign-load-contended).  Kernel threads (a
#: kernel client's: Lustre's ptlrpcd, NFS's rpciod; a loop device's
#: worker; writeback) count as its own too.  A partition adds names with
#: ``extras.client_serving_processes`` (servers that run on the client
#: host, as tests/mfs's do).
SERVING_PROCESSES = ('mfsmount', 'mmfsd', 'ceph-fuse', 'glusterfs')

#: ``PF_KTHREAD`` in /proc/<pid>/stat's flags: the task is a kernel thread.
_PF_KTHREAD = 0x00200000


@dataclass(frozen=True)
class CpuSample:
    """The client host's CPU counters at one moment."""

    when: float             #: time.monotonic(), seconds
    busy_s: float           #: all CPUs' busy time since boot, seconds
    cpus: int               #: CPUs counted in /proc/stat
    own_s: float            #: this process's and its reaped children's
    pressure_us: int = None  #: /proc/pressure/cpu ``some`` total, or None
    #: ``((pid, start ticks), CPU seconds so far)`` of each serving process
    #: and kernel thread (:func:`serving_tasks`).  Kept task by task, not
    #: summed: a kernel worker that exits between two samples takes its
    #: whole past with it (a kworker here had 41 s), and a sum that fell
    #: hid a busy mfsmount.
    serving_tasks: tuple = ()


def parse_proc_stat(text):
    """``(busy clock ticks, CPUs)`` from ``/proc/stat``.

    Raises:
        ValueError: no ``cpu`` line with numbers.
    """
    busy = cpus = None
    for line in text.splitlines():
        fields = line.split()
        if not fields:
            continue
        if fields[0] == 'cpu':
            ticks = [int(v) for v in fields[1:]]
            busy = sum(ticks[i] for i in _BUSY_COLUMNS if i < len(ticks))
        elif fields[0].startswith('cpu') and fields[0][3:].isdigit():
            cpus = (cpus or 0) + 1
    if busy is None or not cpus:
        raise ValueError('no cpu lines')

    return busy, cpus


def parse_cpu_pressure(text):
    """The ``some ... total=`` microseconds of ``/proc/pressure/cpu``, or
    None."""
    for line in text.splitlines():
        if line.startswith('some '):
            for word in line.split():
                if word.startswith('total=') and word[6:].isdigit():
                    return int(word[6:])
    return None


def _read(path):
    try:
        with open(path) as fp:
            return fp.read()
    except OSError:
        return None


def parse_pid_stat(text):
    """``(name, flags, CPU clock ticks, start ticks)`` of one
    ``/proc/<pid>/stat``, or None when it is not one (the name may hold
    spaces and parentheses; start is 0 when the line ends early)."""
    try:
        name = text[text.index('(') + 1:text.rindex(')')]
        fields = text[text.rindex(')') + 2:].split()
        start = int(fields[19]) if len(fields) > 19 else 0
        return name, int(fields[6]), int(fields[11]) + int(fields[12]), start
    except (ValueError, IndexError):
        return None


def serving_tasks(names, proc='/proc'):
    """``{(pid, start ticks): CPU clock ticks so far}`` of the live
    processes named ``names`` and of every kernel thread: the work that
    serves the case's own I/O.  The start time tells a reused pid apart."""
    names = frozenset(names)
    tasks = {}
    try:
        pids = [p for p in os.listdir(proc) if p.isdigit()]
    except OSError:
        return tasks

    for pid in pids:
        task = parse_pid_stat(_read(os.path.join(proc, pid, 'stat')) or '')
        if task is not None and (task[0] in names or task[1] & _PF_KTHREAD):
            tasks[(int(pid), task[3])] = task[2]
    return tasks


def serving_names(extras):
    """:data:`SERVING_PROCESSES` and a partition's
    ``extras.client_serving_processes``."""
    return SERVING_PROCESSES + tuple(
        extras.get('client_serving_processes') or ())


def sample_cpu(stat_path=PROC_STAT, pressure_path=CPU_PRESSURE,
               serving=SERVING_PROCESSES, proc='/proc'):
    """The client host's :class:`CpuSample` now, or None when
    ``/proc/stat`` cannot be read or understood (no verdict then).
    ``serving``: the names of the processes that serve the case's I/O
    (:data:`SERVING_PROCESSES` and a partition's own)."""
    text = _read(stat_path)
    try:
        busy, cpus = parse_proc_stat(text or '')
    except ValueError:
        return None

    own = os.times()
    pressure = _read(pressure_path)
    tick = os.sysconf('SC_CLK_TCK')
    tasks = serving_tasks(serving, proc)
    return CpuSample(
        when=time.monotonic(),
        busy_s=busy / tick, cpus=cpus,
        own_s=own.user + own.system + own.children_user +
        own.children_system,
        pressure_us=None if pressure is None else
        parse_cpu_pressure(pressure),
        serving_tasks=tuple((key, ticks / tick)
                            for key, ticks in sorted(tasks.items())))


def client_cpu(before, after):
    """Others' CPU use on the client host between two samples, as a
    dict (``foreign_cpus``: average CPUs of work not this process's or its
    reaped children's, nor the serving processes' (:func:`serving_tasks`);
    ``serving_cpus``: theirs; ``cpus``; ``seconds``; ``pressure``: the
    share of the time some task waited for a CPU, None without PSI), or
    None when either sample is missing."""
    if before is None or after is None:
        return None

    seconds = after.when - before.when
    if seconds <= 0:
        return None

    host = after.busy_s - before.busy_s
    own = after.own_s - before.own_s
    serving = _serving_seconds(before, after)
    pressure = None
    if before.pressure_us is not None and after.pressure_us is not None:
        pressure = (after.pressure_us - before.pressure_us) / 1e6 / seconds
    return {'foreign_cpus': max(0.0, host - own - serving) / seconds,
            'serving_cpus': serving / seconds,
            'cpus': after.cpus, 'seconds': seconds, 'pressure': pressure}


def _serving_seconds(before, after):
    """The serving tasks' CPU seconds between two samples, task by task: a
    task new since ``before`` counts whole, one gone by ``after`` counts
    nothing (what it did in between is not known)."""
    was = dict(before.serving_tasks)
    return sum(max(0.0, seconds - was.get(key, 0.0))
               for key, seconds in after.serving_tasks)


def describe_client_cpu(figures):
    """``'foreign_cpus=0.04 cpus=2 seconds=3.1 pressure=0.02'``, or
    ``''`` (logged with every case the probe watched)."""
    if figures is None:
        return ''

    pressure = figures['pressure']
    serving = figures.get('serving_cpus')
    return (f"foreign_cpus={figures['foreign_cpus']:.2f} " +
            ('' if serving is None else f'serving_cpus={serving:.2f} ') +
            f"cpus={figures['cpus']} seconds={figures['seconds']:.1f}" +
            ('' if pressure is None else f' pressure={pressure:.2f}'))


def foreign_cpu_load(figures, share=FOREIGN_CPU_SHARE):
    """The client host's CPUs busy with others' work, as a sentence, or
    ``''`` at or below ``share`` of its CPUs (or without figures)."""
    if figures is None or figures['foreign_cpus'] <= share * figures['cpus']:
        return ''

    return (f"client host: others used {figures['foreign_cpus']:.1f} of "
            f"its {figures['cpus']} CPUs during the case")


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


#: The counters a partition's ``extras.fs_counters_command`` prints, one
#: ``name value`` line each (cumulative, whole file system; docs/
#: test-filesystem.md has the MooseFS, Lustre, GPFS and BeeGFS recipes).
FS_COUNTER_NAMES = ('read_bytes', 'write_bytes', 'metadata_ops')
#: Metadata operations beyond the case's own fixed bound below this share
#: of them, or this many, are noise (the suite's own lookups, statfs, the
#: job's shell; :mod:`pfsbench.load.own_share` learns these once the case
#: has quiet history, and has slacks of its own).
OPS_SLACK_FRACTION = 0.10
OPS_SLACK = 2000
#: Seconds a site's counters or provenance command may take.
COMMAND_TIMEOUT_S = 60


class CommandFailed(Exception):
    """A site's server-side command failed or printed what it must not;
    the message names the command and the line."""


@dataclass(frozen=True)
class FsCounters:
    """One sample of a whole file system's cumulative counters."""

    read_bytes: int
    write_bytes: int
    metadata_ops: int


def parse_fs_counters(text, command):
    """The ``name value`` lines of a counters command as
    :class:`FsCounters`; lines naming other counters are ignored.

    Raises:
        CommandFailed: a counter is missing, repeated or not a
            non-negative integer.
    """
    seen = {}
    for line in text.splitlines():
        words = line.split()
        if not words or words[0] not in FS_COUNTER_NAMES:
            continue

        name = words[0]
        if len(words) != 2 or not words[1].isdigit():
            raise CommandFailed(f'{command!r}: {line.strip()!r}: expected '
                                f"'{name} <non-negative integer>'")
        if name in seen:
            raise CommandFailed(f'{command!r}: {name} printed twice')
        seen[name] = int(words[1])

    missing = [n for n in FS_COUNTER_NAMES if n not in seen]
    if missing:
        raise CommandFailed(f'{command!r}: no {", ".join(missing)} line in '
                            f'its output')

    return FsCounters(**seen)


def run_site_command(command, timeout=COMMAND_TIMEOUT_S):
    """Runs a site's shell command; its standard output.

    Raises:
        CommandFailed: it could not start, timed out or exited non-zero
            (with the last line it wrote to standard error).
    """
    try:
        proc = subprocess.run(command, shell=True, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CommandFailed(f'{command!r}: no answer in {timeout} s') \
            from None
    except OSError as err:
        raise CommandFailed(f'{command!r}: {err.strerror}') from None

    if proc.returncode != 0:
        last = (decode(proc.stderr).strip().splitlines() or [''])[-1]
        raise CommandFailed(f'{command!r}: exit status {proc.returncode}'
                            + (f': {last}' if last else ''))

    return decode(proc.stdout)


def sample_fs_counters(command):
    """``(FsCounters, '')``, or ``(None, why)`` when the command failed:
    a case without a verdict is better than a case that fails because a
    monitoring command did."""
    try:
        return parse_fs_counters(run_site_command(command), command), ''
    except CommandFailed as err:
        return None, str(err)


def fs_counters_delta(before, after):
    """What the file system did between two samples, as a dict, or None
    when a counter went backwards (a server restart, MooseFS's hourly
    reset): no verdict can be drawn then."""
    if before is None or after is None:
        return None

    delta = {n: getattr(after, n) - getattr(before, n)
             for n in FS_COUNTER_NAMES}
    if any(v < 0 for v in delta.values()):
        return None

    return delta


def describe_delta(delta):
    """``'read_bytes=0 write_bytes=268435456 metadata_ops=31'``, or ``''``
    (logged with every case whose partition declares counters)."""
    if delta is None:
        return ''

    return ' '.join(f'{n}={delta[n]}' for n in FS_COUNTER_NAMES)


def parse_provenance(text, command):
    """The ``key value`` lines of a provenance command as an ordered dict
    (value: the rest of the line).

    Raises:
        CommandFailed: a key is not a word, or nothing was printed.
    """
    facts = {}
    for line in text.splitlines():
        if not line.strip():
            continue

        key, _, value = line.strip().partition(' ')
        if not key.replace('_', '').replace('.', '').isalnum():
            raise CommandFailed(f'{command!r}: {line.strip()!r}: expected '
                                f"'<key> <value>' with a word as key")
        facts[key] = value.strip()

    if not facts:
        raise CommandFailed(f'{command!r}: printed nothing')

    return facts
