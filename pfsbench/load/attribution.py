# SPDX-License-Identifier: BSD-3-Clause
"""Who else is on the file system: foreign load attributed to its job or
client.

The whole file system's counters (:mod:`pfsbench.load.contention`) can only
subtract an estimate of the case's own work; foreign work of the same size
hides under an estimate that is too high.  A parallel file system's servers
count per job or per client, and so does MooseFS's master per mount
session.  This module reads such counters before and after a case, splits
what changed into the case's own clients or job and everybody else, and
names the others.

Two formats, one per kind of site command (docs/test-filesystem.md):

- ``extras.fs_job_stats_command``: Lustre's own output of ``lctl get_param
  mdt.*.job_stats obdfilter.*.job_stats`` (on every MDS and OSS: pdsh or
  clush in front), parsed by :func:`parse_job_stats`; a job's metadata
  operations are its MDTs' request samples, its bytes its OSTs' (and
  Data-on-MDT) ``read``/``write``/``read_bytes``/``write_bytes`` sums.
  Jobs are the case's own when their job id is the case's Slurm job id
  (``jobid_var=SLURM_JOB_ID``) or starts with it and a ``:``, ``.`` or
  ``@`` (``jobid_name=%j:%u:%H``).
- ``extras.fs_clients_command``: one line per client, session or job,
  cumulative counters as ``key=value`` words (:func:`parse_client_lines`)::

      source=4 mount=/mnt/m2 host=n1 job=812 bytes=1048576 metadata_ops=355

  ``source`` names the client in verdicts; ``bytes`` is what it read plus
  wrote (or ``read_bytes`` and ``write_bytes``); ``mount``, ``host`` and
  ``job`` say whose it is: a line with ``job`` is the case's own when it is
  the case's job; else one with ``mount`` when that is the target's mount
  (and, with ``host``, on one of the case's nodes); else one with ``host``
  alone when that is one of its nodes.  MooseFS (``tests/mfs/mfs.sh
  clients``), GPFS (``mmpmon`` per node) and BeeGFS (``beegfs-ctl
  --clientstats``) print this through a site's small script.

A source whose counters went backwards (a server restart, a cleared
job_stats, MooseFS's hourly reset) makes the sample give no verdict; a
source seen only after the case counts from zero; one seen only before
it (expired job stats) is not counted.
"""

import re
from dataclasses import dataclass, field

# The reader of verdict()'s names lives below the gate: core.fields.
from pfsbench.core.fields import sources_named  # noqa: F401
from pfsbench.load.contention import CommandFailed, run_site_command

#: Foreign work above this share of the case's own marks it ...
SLACK_FRACTION = 0.10
#: ... and above these, whatever the case did: the other mounts' own
#: housekeeping (a MooseFS mount's idle session makes a few operations a
#: minute; measured: bench/attribution_quiet.py).
SLACK_MIN_BYTES = 16 * 2**20
SLACK_MIN_OPS = 500

#: Lustre job_stats entries that count data, not metadata.
_DATA_ENTRIES = ('read', 'write', 'read_bytes', 'write_bytes')
#: Entries of a job that are facts about it, not counters.
_JOB_FACTS = ('job_id', 'snapshot_time', 'start_time', 'elapsed_time')


@dataclass(frozen=True)
class SourceCounters:
    """One client's, session's or job's cumulative counters."""

    source: str
    bytes: int
    metadata_ops: int
    mount: str = ''
    host: str = ''
    job: str = ''


def parse_client_lines(text, command):
    """The ``key=value`` lines of an ``fs_clients_command`` as
    ``{source: SourceCounters}``; blank lines and ``#`` comments skipped.

    Raises:
        CommandFailed: a line without ``source``, a counter that is not a
            non-negative integer, a source printed twice, nothing printed.
    """
    found = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        words = dict(w.partition('=')[::2] for w in line.split())
        where = f'{command!r}: {line.strip()!r}'
        if not words.get('source'):
            raise CommandFailed(f'{where}: expected source=<name>')
        counts = {}
        for key in ('bytes', 'read_bytes', 'write_bytes', 'metadata_ops'):
            if key in words:
                if not words[key].isdigit():
                    raise CommandFailed(f'{where}: {key}={words[key]!r}: '
                                        f'expected a non-negative integer')
                counts[key] = int(words[key])
        if 'bytes' not in counts:
            counts['bytes'] = (counts.get('read_bytes', 0) +
                               counts.get('write_bytes', 0))
        if words['source'] in found:
            raise CommandFailed(f'{command!r}: source={words["source"]} '
                                f'printed twice')
        found[words['source']] = SourceCounters(
            source=words['source'], bytes=counts['bytes'],
            metadata_ops=counts.get('metadata_ops', 0),
            mount=words.get('mount', ''), host=words.get('host', ''),
            job=words.get('job', ''))
    if not found:
        raise CommandFailed(f'{command!r}: printed no client line')
    return found


_HEADER = re.compile(r'^(?:\S+:\s+)?(\w[\w-]*)\.([\w.-]+)\.job_stats=(.*)$')
_ENTRY = re.compile(r'^\s*(\w+):\s*\{(.*)\}\s*$')
_PDSH_PREFIX = re.compile(r'^[\w.-]+:\s(?=job_stats:|-\s|\s)')
_FACT = re.compile(r'^\s*(?:-\s+)?(\w+):\s*(.*?)\s*$')


def _stat_fields(body, where):
    """``samples: 2, unit: reqs, ...`` as a dict of strings."""
    fields = {}
    # 'hist: {  }' (Lustre 2.15) holds a nested brace: dropped first.
    body = re.sub(r'hist:\s*\{[^}]*\}', '', body)
    for part in body.split(','):
        if not part.strip():
            continue
        key, sep, value = part.partition(':')
        if not sep:
            raise CommandFailed(f'{where}: {part.strip()!r}: expected '
                                f"'name: value'")
        fields[key.strip()] = value.strip()
    return fields


def _count_entry(job, name, fields, where):
    """Count one ``name: { samples: N, ... }`` line into a ``job`` entry:
    the bytes of a data entry (:data:`_DATA_ENTRIES`, unit ``bytes``),
    else its samples as operations."""
    samples = fields.get('samples', '')
    if not samples.isdigit():
        raise CommandFailed(f'{where}: {name}: samples {samples!r}: '
                            f'expected a non-negative integer')
    if name not in _DATA_ENTRIES:
        job['ops'] += int(samples)
    elif fields.get('unit') == 'bytes':
        total = fields.get('sum', '')
        if not total.isdigit():
            raise CommandFailed(f'{where}: {name}: sum {total!r}: expected '
                                f'a non-negative integer')
        job['bytes'] += int(total)
        job['has_bytes'] = True


def _close(jobs, entry, command):
    """Add a finished job ``entry`` (None: none) to ``jobs``: its bytes,
    and its operations where they are namespace ones (an MDT's section, or
    a section without a header that counts no bytes)."""
    if entry is None:
        return
    if entry['id'] is None:
        raise CommandFailed(f'{command!r}: a job_stats entry without '
                            f'job_id')
    ops = entry['ops'] if (entry['kind'] == 'mdt' or (
        entry['kind'] is None and not entry['has_bytes'])) else 0
    old = jobs.get(entry['id'])
    jobs[entry['id']] = SourceCounters(
        source=entry['id'], job=entry['id'],
        bytes=entry['bytes'] + (old.bytes if old else 0),
        metadata_ops=ops + (old.metadata_ops if old else 0))


def parse_job_stats(text, command=''):
    """Lustre's ``lctl get_param mdt.*.job_stats obdfilter.*.job_stats``
    output (several servers' concatenated; ``pdsh``'s ``host:`` prefixes
    allowed) as ``{job_id: SourceCounters}``, summed over every target.

    A section headed ``mdt.<target>.job_stats=`` counts each entry's
    ``samples`` as metadata operations (its ``read``/``write`` bytes are
    Data-on-MDT's); ``obdfilter.*`` sections count bytes only (their
    ``punch``, ``setattr``, ``statfs``... are object, not namespace,
    operations); output without headers (``lctl get_param -n``) is an MDT's
    when no entry counts bytes.  Bytes are the ``sum`` of the entries in
    :data:`_DATA_ENTRIES` whose unit is ``bytes`` (Lustre >= 2.12 prints
    ``read_bytes`` in bytes and ``read`` in usecs; the manual's older
    samples ``read`` in bytes).

    Raises:
        CommandFailed: a counter line that is not ``name: { samples: N,
            unit: U, ... }``, a job entry without ``job_id``, or no
            ``job_stats`` section at all.
    """
    jobs = {}
    kind = None            # 'mdt', 'obdfilter', or None (no header)
    sections = 0
    job = None

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        # pdsh -N drops the host; pdsh without it prefixes 'host: '.
        header = _HEADER.match(line)
        if header:
            _close(jobs, job, command)
            job = None
            kind = header.group(1)
            sections += 1
            rest = header.group(3).strip()
            if rest not in ('', 'job_stats:'):
                raise CommandFailed(f'{command!r}: line {number}: '
                                    f'{line.strip()!r}: expected '
                                    f"'job_stats:' after '='")
            continue
        prefix = _PDSH_PREFIX.match(line)
        if prefix:
            line = line[prefix.end():]
        if not line.strip():
            continue
        if line.strip() == 'job_stats:':
            if kind is None or sections == 0:
                sections += 1
            continue
        if line.lstrip().startswith('- '):
            _close(jobs, job, command)
            job = {'id': None, 'kind': kind, 'bytes': 0, 'ops': 0,
                   'has_bytes': False}
        entry = _ENTRY.match(line.lstrip('- ').rstrip())
        if entry and job is not None:
            name, body = entry.groups()
            where = f'{command!r}: line {number}'
            _count_entry(job, name, _stat_fields(body, where), where)
            continue
        fact = _FACT.match(line)
        if fact and job is not None and fact.group(1) in _JOB_FACTS:
            if fact.group(1) == 'job_id':
                job['id'] = fact.group(2)
            continue
        if job is not None or sections:
            raise CommandFailed(f'{command!r}: line {number}: '
                                f'{line.strip()!r}: not job_stats output')
    _close(jobs, job, command)
    if not sections:
        raise CommandFailed(f'{command!r}: no job_stats section in its '
                            f'output')
    return jobs


#: extras key -> (method's name in verdicts, parser).
METHODS = {
    'fs_job_stats_command': ('per-job counters', parse_job_stats),
    'fs_clients_command': ('per-client counters', parse_client_lines),
}


def method_of(extras):
    """The extras key of the attribution command a partition declares
    (job stats first), or None."""
    return next((k for k in METHODS if extras.get(k)), None)


def sample(extras):
    """``(counters, '')`` from the partition's attribution command, or
    ``(None, why)`` when it failed: no verdict rather than a failed case."""
    key = method_of(extras)
    command = extras[key]
    try:
        return METHODS[key][1](run_site_command(command), command), ''
    except CommandFailed as err:
        return None, str(err)


def lustre_job_stats_command(mds, oss, remote='pdsh -N -w'):
    """The ``fs_job_stats_command`` of a Lustre site: every MDT's job
    stats from the metadata servers ``mds``, every OST's from the object
    servers ``oss`` (host lists as ``remote`` takes them)."""
    return (f"{remote} {mds} 'lctl get_param mdt.*.job_stats'; "
            f"{remote} {oss} 'lctl get_param obdfilter.*.job_stats'")


@dataclass(frozen=True)
class Own:
    """What identifies the case's own clients."""

    jobs: frozenset = frozenset()
    mounts: frozenset = frozenset()
    hosts: frozenset = frozenset()

    def claims(self, counters):
        if counters.job:
            return any(counters.job == j or
                       re.match(rf'{re.escape(j)}[:.@]', counters.job)
                       for j in self.jobs)
        if counters.mount:
            return (counters.mount in self.mounts and
                    (not counters.host or not self.hosts or
                     counters.host in self.hosts))
        return bool(counters.host) and counters.host in self.hosts


@dataclass
class Attribution:
    """What the case's own clients and every other source did."""

    own_bytes: int = 0
    own_ops: int = 0
    #: source -> (bytes, metadata operations, its counters)
    foreign: dict = field(default_factory=dict)

    def foreign_bytes(self):
        return sum(b for b, _, _ in self.foreign.values())

    def foreign_ops(self):
        return sum(o for _, o, _ in self.foreign.values())


def attribute(before, after, own):
    """Split what changed between two samples into the case's own and
    each foreign source's; None when a counter went backwards."""
    if before is None or after is None:
        return None
    result = Attribution()
    for name, now in after.items():
        then = before.get(name)
        moved = now.bytes - (then.bytes if then else 0)
        ops = now.metadata_ops - (then.metadata_ops if then else 0)
        if moved < 0 or ops < 0:
            return None
        if own.claims(now):
            result.own_bytes += moved
            result.own_ops += ops
        elif moved or ops:
            result.foreign[name] = (moved, ops, now)
    return result


def _count(n):
    return f'{n / 1000:.0f}k' if n >= 10000 else f'{n}'


def _mib(n):
    return f'{n / 2**20:.0f} MiB'


#: A foreign source is named when it carries at least this share of the
#: foreign work (idle mounts' housekeeping is counted, not named).
NAMED_SHARE = 0.05


def _who(names, sources, size):
    total = sum(size(sources[n]) for n in names) or 1
    minor = [n for n in names if size(sources[n]) < NAMED_SHARE * total]
    names = [n for n in names if n not in minor]
    named = []
    for name in names:
        counters = sources[name][2]
        what = [f'job {counters.job}'] if counters.job and \
            counters.job != name else []
        what += [f'mount {counters.mount}'] if counters.mount else []
        what += [f'host {counters.host}'] if counters.host else []
        label = name if counters.job == name else f'session {name}' \
            if name.isdigit() else name
        named.append(', '.join([label] + what))
    kind = 'job' if all(sources[n][2].job for n in names) else 'client'
    plural = '' if len(names) == 1 else 's'
    rest = (f' and {len(minor)} more with less than '
            f'{NAMED_SHARE:.0%} of it' if minor else '')
    return (f'{len(names)} other {kind}{plural} ({"; ".join(named)})'
            f'{rest}')


def slack(own, fraction=SLACK_FRACTION, floor=0):
    """The foreign work a case tolerates: ``fraction`` of its own, at
    least ``floor``."""
    return max(floor, fraction * own)


def _marked(att, fraction):
    """{0: bytes slack, 1: operations slack} for what exceeded its slack."""
    marked = {}
    ops_slack = slack(att.own_ops, fraction, SLACK_MIN_OPS)
    if att.foreign_ops() > ops_slack:
        marked[1] = ops_slack
    bytes_slack = slack(att.own_bytes, fraction, SLACK_MIN_BYTES)
    if att.foreign_bytes() > bytes_slack:
        marked[0] = bytes_slack
    return marked


def _names(att, index):
    return sorted((n for n, f in att.foreign.items() if f[index]),
                  key=lambda n: -att.foreign[n][index])


def verdict(att, method, fraction=SLACK_FRACTION):
    """The sentence naming foreign load beyond the slack, or ``''``.

    ``foreign metadata: 117k operations from 1 other client (session 4,
    mount /mnt/m2) during the case; its own 80k (slack 8000)``.
    """
    if att is None:
        return ''
    found = []
    marked = _marked(att, fraction)
    if 1 in marked:
        who = _who(_names(att, 1), att.foreign, lambda f: f[1])
        found.append(f'foreign metadata: {_count(att.foreign_ops())} '
                     f'operations from {who} during the case; its own '
                     f'{_count(att.own_ops)} (slack {marked[1]:.0f})')
    if 0 in marked:
        who = _who(_names(att, 0), att.foreign, lambda f: f[0])
        found.append(f'foreign I/O: {_mib(att.foreign_bytes())} from '
                     f'{who} during the case; its own '
                     f'{_mib(att.own_bytes)} (slack {_mib(marked[0])})')
    if not found:
        return ''
    return f'{method}: ' + '; '.join(found)


def marking_sources(att, fraction=SLACK_FRACTION):
    """The foreign sources of a marked case, biggest first (for the
    night's summary: which source contended how many repeats)."""
    if att is None:
        return []
    named = set()
    for index in _marked(att, fraction):
        total = sum(f[index] for f in att.foreign.values())
        named.update(n for n, f in att.foreign.items()
                     if f[index] >= NAMED_SHARE * total)
    return sorted(named, key=lambda n: (-att.foreign[n][0],
                                        -att.foreign[n][1], n))


def describe(att):
    """``own bytes=N metadata_ops=N; 4 (/mnt/m2) bytes=N metadata_ops=N``
    (logged with every case as ``fs_clients``)."""
    if att is None:
        return ''
    parts = [f'own bytes={att.own_bytes} metadata_ops={att.own_ops}']
    for name, (moved, ops, counters) in sorted(att.foreign.items()):
        where = f' ({counters.mount})' if counters.mount else ''
        parts.append(f'{name}{where} bytes={moved} metadata_ops={ops}')
    return '; '.join(parts)
