# SPDX-License-Identifier: BSD-3-Clause
"""A case's own share of the whole file system's counters, learned from its
own quiet history.

Where a partition declares only ``extras.fs_counters_command`` (every
client's bytes and metadata operations together), the probe must subtract
what the case itself did before it can call the rest foreign.  A fixed
bound (mdtest: 8 server operations per item and phase; a streams case: every
byte it moves) is several times the real work on some file systems (MooseFS
sends about 2 per item and phase; its chunkservers see the writes, not the
reads the client cache serves), so foreign work of the case's own size hid
under it.  Instead:

- every case logs its **work** in units (:class:`OwnWork`, the loggable
  ``own_work``: ``bytes=N items=N tasks=N``: the bytes it moves, its
  metadata items times phases, its tasks) beside what the counters saw
  (``fs_counters``);
- before judging, the probe reads the case's earlier runs from its perflog
  (:func:`quiet_history`): same case, same target, file system and builds
  (:data:`pfsbench.core.fields.CASE_TAG_FIELDS`), not contended, newest
  :data:`QUIET_RUNS_USED`;
- the counters' bytes per unit and operations per unit (per byte the case
  moves, else per item and phase, else per task) of those runs, their
  median times this run's units, is the case's own share
  (:func:`learn`);
- what exceeds it by more than the slack is foreign: a fraction of the
  own share, :data:`MIN_FRACTION` or :data:`SPREAD_FACTOR` times the quiet
  runs' relative spread (median absolute deviation) where that is larger;
  at least :data:`MIN_BYTES` and :data:`MIN_OPS` (:func:`judge`).

With fewer than :data:`MIN_QUIET_RUNS` such runs (the first runs of a case,
a new server version, a new build), the fixed bound judges, and the verdict
says so.  Pure: no ReFrame import (the perflog's place comes from
:mod:`pfsbench.checks.fs_probe`).
"""

import os
import statistics
from dataclasses import dataclass

from pfsbench.core.fields import CASE_TAG_FIELDS, CONTENDED, same_case
from pfsbench.load import contention

#: Quiet runs needed before the history judges (fewer: the fixed bound):
#: the median of three is not moved by one odd run.
MIN_QUIET_RUNS = 3
#: The newest quiet runs used: a file system whose own work per item drifts
#: (a new client, a changed layout) is relearned within this many.
QUIET_RUNS_USED = 20
#: The slack is at least this share of the case's own learned work ...
MIN_FRACTION = 0.10
#: ... or this many times its quiet runs' relative median absolute
#: deviation, where that is more (5 MADs: about 3.4 standard deviations of
#: a normal spread).
SPREAD_FACTOR = 5.0
#: ... and at least these, whatever the case did.  Bytes: MooseFS's
#: chunkservers wrote 32-64 MiB more than the case in 4 of 18 quiet dd runs
#: whose clients had all been idle (server-side chunk work, its chunk is
#: 64 MiB; docs/test-filesystem.md).  Operations: idle mounts' housekeeping,
#: as for the per-client counters (:data:`pfsbench.load.attribution.
#: SLACK_MIN_OPS`).
MIN_BYTES = 64 * 2**20
MIN_OPS = 500

#: The loggable variable holding a case's :class:`OwnWork`.
OWN_WORK = 'own_work'
#: The loggable variable holding what the whole file system did.
FS_COUNTERS = 'fs_counters'


@dataclass(frozen=True)
class OwnWork:
    """A case's work in the units its own share is learned per."""

    #: Bytes it writes plus reads (``bytes_moved()``), None: unknown.
    bytes: int = None
    #: Metadata items times phases (times iterations), None: none counted.
    items: int = None
    #: Its tasks (processes, streams).
    tasks: int = 1

    def describe(self):
        """``'bytes=268435456 items=8000 tasks=4'`` (unknowns left out)."""
        return ' '.join(f'{k}={v}' for k, v in (
            ('bytes', self.bytes), ('items', self.items),
            ('tasks', self.tasks)) if v is not None)

    @classmethod
    def parse(cls, text):
        """The :meth:`describe` text as an OwnWork, or None where it is
        not one (a run before the field existed)."""
        words = dict(w.partition('=')[::2] for w in (text or '').split())
        if not words or any(k not in ('bytes', 'items', 'tasks') or
                            not v.isdigit() for k, v in words.items()):
            return None
        if 'tasks' not in words:
            return None
        return cls(**{k: int(v) for k, v in words.items()})

    def unit(self, measure):
        """``(count, name)`` of the unit a measure (``bytes`` or ``ops``)
        is learned per: bytes per byte moved, else per item and phase,
        else per task; operations per item and phase, else per task."""
        if measure == 'bytes' and self.bytes:
            return self.bytes, 'byte moved'
        if self.items:
            return self.items, 'item and phase'
        return max(self.tasks, 1), 'task'


def measured(delta, measure):
    """Bytes (read plus written) or metadata operations of a
    :func:`pfsbench.load.contention.fs_counters_delta`."""
    if measure == 'bytes':
        return delta['read_bytes'] + delta['write_bytes']
    return delta['metadata_ops']


def parse_fs_counters(text):
    """An ``fs_counters`` value (``read_bytes=N write_bytes=N
    metadata_ops=N``) as a delta dict, or None (``unavailable: ...``,
    empty)."""
    words = dict(w.partition('=')[::2] for w in (text or '').split())
    if not all(words.get(n, '').isdigit()
               for n in contention.FS_COUNTER_NAMES):
        return None
    return {n: int(words[n]) for n in contention.FS_COUNTER_NAMES}


# The history: the case's own perflog ---------------------------------------

def perflog_paths(handlers, system_prefix, fields, check_class):
    """The perflog files of a check on this system and partition, newest
    first: each ``filelog`` handler's ``<basedir>/<prefix>/<class>.log``,
    then the files ReFrame moved aside when the header changed
    (``.log.h<N>``, highest N newest).

    Args:
        handlers: the site configuration's ``logging/0/handlers_perflog``.
        system_prefix: ``systems/0/prefix`` (relative basedirs are under
            it, as ReFrame places them).
        fields: the log record's placeholders the prefix may use
            (``check_system``, ``check_partition``...).
        check_class: the check's class name (its perflog's file name).
    """
    paths = []
    for handler in handlers or []:
        if handler.get('type') != 'filelog':
            continue
        basedir = os.path.join(system_prefix or '.', os.path.expandvars(
            handler.get('basedir', './perflogs')))
        try:
            prefix = os.path.expandvars(handler.get(
                'prefix', '%(check_system)s/%(check_partition)s')) % fields
        except (KeyError, TypeError, ValueError):
            continue
        current = os.path.join(os.path.abspath(basedir), prefix,
                               f'{check_class}.log')
        older = []
        folder = os.path.dirname(current)
        if os.path.isdir(folder):
            name = os.path.basename(current) + '.h'
            older = sorted((f for f in os.listdir(folder)
                            if f.startswith(name) and f[len(name):].isdigit()),
                           key=lambda f: -int(f[len(name):]))
        paths += [current] + [os.path.join(folder, f) for f in older]
    return paths


def _newest_lines(path, block=1 << 20):
    """``(header, lines newest first)`` of a perflog, read from its end
    (a nightly's perflog grows by a line per case and night)."""
    with open(path, 'rb') as fp:
        header = fp.readline().decode('utf-8', 'replace').rstrip('\n')
        start = fp.tell()
        fp.seek(0, os.SEEK_END)
        end = fp.tell()

        def lines():
            pos, rest = end, b''
            while pos > start:
                size = min(block, pos - start)
                pos -= size
                fp.seek(pos)
                chunk = fp.read(size) + rest
                parts = chunk.split(b'\n')
                rest = parts[0] if pos > start else b''
                for line in reversed(parts[1:] if pos > start else parts):
                    if line.strip():
                        yield line.decode('utf-8', 'replace')

        yield header
        yield from lines()


@dataclass(frozen=True)
class QuietRun:
    """One earlier uncontended run of the case."""

    delta: dict          #: what the whole file system did
    work: OwnWork        #: the case's work, in units


def quiet_history(paths, display_name, tags, limit=QUIET_RUNS_USED):
    """The case's newest uncontended runs (at most ``limit``), newest
    first, from its perflogs.

    A run counts when its display name (repeats aside) is the case's, it
    was not contended, its ``fs_counters`` and ``own_work`` were logged,
    and every tag in ``tags`` (``{field: value}``: target, file system,
    builds, server provenance) is the same.  Lines whose fields do not
    match the header (a ``|`` inside a value) are skipped.
    """
    name = same_case(display_name)
    found = []
    for path in paths:
        try:
            reader = _newest_lines(path)
            header = next(reader).split('|')
            wanted = ('display_name', CONTENDED, FS_COUNTERS, OWN_WORK,
                      *tags)
            if not all(w in header for w in wanted):
                continue       # a perflog from before these fields
            # By position: a nightly's perflog has ~270 columns a line.
            at = {w: header.index(w) for w in wanted}
            for line in reader:
                values = line.split('|')
                if len(values) != len(header):
                    continue
                if (same_case(values[at['display_name']]) != name or
                        values[at[CONTENDED]].lower() != 'false' or
                        any(values[at[f]] != str(v)
                            for f, v in tags.items())):
                    continue
                delta = parse_fs_counters(values[at[FS_COUNTERS]])
                work = OwnWork.parse(values[at[OWN_WORK]])
                if delta is None or work is None:
                    continue
                found.append(QuietRun(delta, work))
                if len(found) >= limit:
                    return found
        except (OSError, StopIteration):
            continue
    return found


def case_tags(values):
    """The tags of :data:`CASE_TAG_FIELDS` a run must share with the case
    to teach its own share, from the case's ``{field: value}`` (a field the
    case does not have is not compared)."""
    return {f: values[f] or '' for f in CASE_TAG_FIELDS if f in values}


# Learning ------------------------------------------------------------------

@dataclass(frozen=True)
class Share:
    """The case's own share of one measure, learned."""

    own: float           #: this run's own share (bytes or operations)
    per_unit: float      #: the quiet runs' median per unit
    unit: str            #: 'byte moved', 'item and phase' or 'task'
    spread: float        #: relative median absolute deviation
    fraction: float      #: slack as a share of ``own``


@dataclass(frozen=True)
class Learned:
    """The case's own share of bytes and operations, from its quiet runs."""

    runs: int
    bytes: Share
    ops: Share


def _share(runs, work, measure):
    count, unit = work.unit(measure)
    ratios = []
    for run in runs:
        n, u = run.work.unit(measure)
        if u == unit and n:
            ratios.append(measured(run.delta, measure) / n)
    median = statistics.median(ratios)
    spread = (statistics.median(abs(r - median) for r in ratios) / median
              if median else 0.0)
    return Share(own=median * count, per_unit=median, unit=unit,
                 spread=spread,
                 fraction=max(MIN_FRACTION, SPREAD_FACTOR * spread))


def learn(history, work, min_runs=MIN_QUIET_RUNS):
    """The case's :class:`Learned` own share from its :func:`quiet_history`
    for this run's ``work``, or None with fewer than ``min_runs`` runs
    whose units are this run's (a run that counted bytes per byte moved
    cannot teach one that moves none)."""
    runs = [r for r in history
            if all(r.work.unit(m)[1] == work.unit(m)[1]
                   for m in ('bytes', 'ops'))]
    if len(runs) < min_runs:
        return None
    return Learned(runs=len(runs), bytes=_share(runs, work, 'bytes'),
                   ops=_share(runs, work, 'ops'))


# Judging -------------------------------------------------------------------

def _mib(n):
    return f'{n / 2**20:.0f} MiB'


def _ops(n):
    return f'{n / 1000:.0f}k' if n >= 10000 else f'{n:.0f}'


def method_name(learned):
    """How the whole file system's counters judge a case: ``whole-fs
    counters, own share from 7 quiet runs`` or ``whole-fs counters, fixed
    bound (no quiet history)``."""
    if learned is None:
        return 'whole-fs counters, fixed bound (no quiet history)'
    return (f'whole-fs counters, own share from {learned.runs} quiet '
            f'run{"s" if learned.runs != 1 else ""}')


def judge(delta, work, learned, fixed_bytes, fixed_ops):
    """``(verdict, how)``: the sentence naming foreign load beyond the slack
    (``''``: none) and what judged with which own share and slack (logged
    with every case).

    Args:
        delta: :func:`pfsbench.load.contention.fs_counters_delta`.
        work: this run's :class:`OwnWork`.
        learned: :func:`learn`'s, or None: the fixed bound judges.
        fixed_bytes: the case's own bytes as it counts them (the fixed
            bound; None: bytes give no verdict without history).
        fixed_ops: its metadata operations, an upper bound (None: a few).
    """
    method = method_name(learned)
    if learned is None:
        own_b, own_o = fixed_bytes, fixed_ops or 0
        slack_b = (None if own_b is None else
                   max(contention.SLACK_BYTES,
                       contention.SLACK_FRACTION * own_b))
        slack_o = max(contention.OPS_SLACK,
                      contention.OPS_SLACK_FRACTION * own_o)
        own_words = 'at most '
    else:
        own_b, own_o = learned.bytes.own, learned.ops.own
        slack_b = max(MIN_BYTES, learned.bytes.fraction * own_b)
        slack_o = max(MIN_OPS, learned.ops.fraction * own_o)
        own_words = ''

    found = []
    if own_b is not None:
        extra = measured(delta, 'bytes') - own_b
        if extra > slack_b:
            found.append(f'{_mib(extra)} of foreign I/O (read '
                         f'{_mib(delta["read_bytes"])}, written '
                         f'{_mib(delta["write_bytes"])}; this case\'s own '
                         f'{own_words}{_mib(own_b)}, slack {_mib(slack_b)})')
    extra_ops = delta['metadata_ops'] - own_o
    if extra_ops > slack_o:
        found.append(f'{_ops(extra_ops)} foreign metadata operations '
                     f'({_ops(delta["metadata_ops"])} in all; this case\'s '
                     f'own {own_words}{_ops(own_o)}, slack {_ops(slack_o)})')

    if learned is None:
        basis = 'the fixed bound'
    else:
        basis = (f'{learned.bytes.per_unit:.3g} bytes per '
                 f'{learned.bytes.unit}, {learned.ops.per_unit:.3g} '
                 f'operations per {learned.ops.unit}')
    own_text = ('unknown bytes' if own_b is None else _mib(own_b)) + \
        (' and a few operations' if learned is None and not fixed_ops else
         f' and {_ops(own_o)} operations')
    slack_text = ('' if slack_b is None else f'{_mib(slack_b)} and ') + \
        f'{_ops(slack_o)} operations'
    how = f'{method} ({basis}; own {own_words}{own_text}; slack {slack_text})'

    return (f'{method}: ' + ', '.join(found) if found else ''), how
