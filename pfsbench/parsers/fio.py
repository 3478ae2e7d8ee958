# SPDX-License-Identifier: BSD-3-Clause
"""Parser for fio's results (fio 3.x): JSON, normal and terse output.

pfsbench runs fio with ``--output-format=json`` (:mod:`pfsbench.commands.fio`)
and parses that; the normal (human) and terse (``;``-separated, version 3)
forms parse too, because every recorded fixture has to.  With
``--output-format=normal,json`` both are in one output; the JSON is used.

Each job record (one per job, or one per group with ``--group_reporting``)
gives, per direction that moved data, the bytes, fio's runtime, its bandwidth
(``bw_bytes``: bytes per second) and IOPS.  A failed fio prints
``fio: <what>`` lines (and, in JSON, a job ``error`` code): the parser raises
on them quoting fio's first such line, even when some bytes were moved,
because a short run is not a bandwidth figure.
"""

import json
import re
from dataclasses import dataclass
from typing import Optional

from pfsbench.core.errors import ParseError

_DIRECTIONS = ('read', 'write', 'trim')
_FIO_SAYS = re.compile(r'^fio: ')
#: Binary and SI multipliers of fio's normal output.
_UNITS = {'B': 1, 'KiB': 2**10, 'MiB': 2**20, 'GiB': 2**30, 'TiB': 2**40,
          'kB': 1e3, 'MB': 1e6, 'GB': 1e9, 'TB': 1e12}
_TIME_US = {'nsec': 1e-3, 'usec': 1.0, 'msec': 1e3}
_COUNT = {'': 1, 'k': 1e3, 'M': 1e6}
_JOB_HEADER = re.compile(r'^(?P<name>\S+): \(groupid=(?P<group>\d+), '
                         r'jobs=(?P<jobs>\d+)\): err=\s*(?P<err>-?\d+)')
_IO_LINE = re.compile(
    r'^\s+(?P<dir>read|write|trim)\s*: IOPS=(?P<iops>[\d.]+)(?P<k>[kM]?), '
    r'BW=[\d.]+\w+/s \((?P<bw>[\d.]+)(?P<bw_unit>[kMGT]?B)/s\)'
    r'\((?P<io>[\d.]+)(?P<io_unit>[KMGT]?i?B)/(?P<ms>\d+)msec\)')
_LAT_LINE = re.compile(r'^\s+lat \((?P<unit>[num]sec)\):.*\bavg=\s*'
                       r'(?P<avg>[\d.]+)')
#: Terse version 3: fields of one direction, in fio's documented order
#: (HOWTO, "Terse output"); latencies in microseconds.
_TERSE_IO = (
    ['io_kbytes', 'bw_kib_s', 'iops', 'runtime_ms'] +
    [f'slat_{s}' for s in ('min', 'max', 'mean', 'dev')] +
    [f'clat_{s}' for s in ('min', 'max', 'mean', 'dev')] +
    [f'clat_pct{i}' for i in range(20)] +
    [f'lat_{s}' for s in ('min', 'max', 'mean', 'dev')] +
    [f'bw_{s}' for s in ('min', 'max', 'agg_pct', 'mean', 'dev')])
_TERSE_HEAD = ('terse_version', 'fio_version', 'jobname', 'groupid',
               'error')


@dataclass(frozen=True)
class FioIO:
    """One direction (read, write or trim) of one job record, or of all.

    ``bw_mb_s`` is fio's own ``bw_bytes`` in 10^6 bytes per second (the
    normal output's rounded ``(NNNMB/s)`` figure there).
    """

    io_bytes: int
    runtime_s: float
    bw_mb_s: float
    bw_mib_s: float
    iops: float
    #: Mean total latency (submission + completion) per I/O; None where
    #: the output does not say.
    lat_mean_us: Optional[float]


@dataclass(frozen=True)
class FioJob:
    """One job record: a job, or a whole group with ``--group_reporting``."""

    name: str
    groupid: int
    error: int
    #: Processes summed in this record (``jobs=`` of the normal output;
    #: None where the output does not say).
    jobs: Optional[int]
    read: Optional[FioIO]
    write: Optional[FioIO]
    trim: Optional[FioIO]


@dataclass(frozen=True)
class FioResult:
    """A whole fio run: every job record, and each direction summed."""

    version: Optional[str]
    #: ``json``, ``normal`` or ``terse``: the form that was parsed.
    output_format: str
    jobs: tuple
    read: Optional[FioIO]
    write: Optional[FioIO]
    trim: Optional[FioIO]


def _io(io_bytes, runtime_s, bw_bytes_s, iops, lat_mean_us):
    if not io_bytes:
        return None     # this direction moved nothing

    return FioIO(io_bytes=io_bytes, runtime_s=runtime_s,
                 bw_mb_s=bw_bytes_s / 1e6, bw_mib_s=bw_bytes_s / 2**20,
                 iops=iops, lat_mean_us=lat_mean_us)


def _total(records):
    """Every job's records of one direction summed: bytes, bandwidth and
    IOPS add up, the runtime is the longest."""
    records = [r for r in records if r is not None]
    if not records:
        return None

    lats = [r.lat_mean_us for r in records]
    return FioIO(
        io_bytes=sum(r.io_bytes for r in records),
        runtime_s=max(r.runtime_s for r in records),
        bw_mb_s=sum(r.bw_mb_s for r in records),
        bw_mib_s=sum(r.bw_mib_s for r in records),
        iops=sum(r.iops for r in records),
        lat_mean_us=(None if None in lats else
                     sum(lats) / len(lats)))


def _result(version, form, jobs):
    return FioResult(version=version, output_format=form, jobs=tuple(jobs),
                     **{d: _total([getattr(j, d) for j in jobs])
                        for d in _DIRECTIONS})


def _fio_error(lines, source):
    """ParseError quoting fio's first ``fio: ...`` line, or None."""
    for lineno, line in enumerate(lines, 1):
        if _FIO_SAYS.match(line.strip()):
            return ParseError(source, lineno, line.strip(), 'fio failed')
    return None


def parse(text, source='<text>'):
    """Parse fio's output in whichever form it has.

    Args:
        text: fio's stdout (stderr mixed in or appended is fine).
        source: the name used in error messages.

    Returns:
        a :class:`FioResult`.

    Raises:
        ParseError: fio reported an error (its own ``fio:`` line quoted),
            a job's error code is not 0, or no result is found.
    """
    lines = text.splitlines()
    error = _fio_error(lines, source)
    if error is not None:
        raise error

    start = next((n for n, ln in enumerate(lines) if ln.rstrip() == '{'),
                 None)
    if start is not None:
        return _parse_json(lines, start, source)
    if any(_JOB_HEADER.match(ln) for ln in lines):
        return _parse_normal(lines, source)
    if any(ln.startswith('3;fio-') for ln in lines):
        return _parse_terse(lines, source)

    last = next((ln for ln in reversed(lines) if ln.strip()), '')
    raise ParseError(source, len(lines), last.strip(),
                     "expected fio's JSON, normal or terse results")


def _parse_json(lines, start, source):
    text = '\n'.join(lines[start:])
    try:
        doc, _ = json.JSONDecoder().raw_decode(text)
    except ValueError as err:
        lineno = start + text.count('\n', 0, err.pos) + 1
        raise ParseError(source, lineno, lines[lineno - 1].strip(),
                         f'expected fio JSON ({err.msg})') from None

    if not isinstance(doc, dict) or not isinstance(doc.get('jobs'), list) \
            or not doc['jobs'] or \
            not all(isinstance(job, dict) for job in doc['jobs']):
        raise ParseError(source, start + 1, lines[start],
                         "expected a 'jobs' list of objects in fio's JSON")

    jobs = []
    for job in doc['jobs']:
        name = job.get('jobname', '')
        if job.get('error', 0) != 0:
            lineno = _line_of(lines, f'"jobname" : "{name}"', start)
            raise ParseError(source, lineno, lines[lineno - 1].strip(),
                             f'fio job {name!r} ended with error '
                             f'{job["error"]}')
        records = {}
        for direction in _DIRECTIONS:
            try:
                io = job.get(direction) or {}
                lat = io.get('lat_ns') or {}
                records[direction] = _io(
                    int(io.get('io_bytes', 0)),
                    float(io.get('runtime', 0)) / 1e3,
                    float(io.get('bw_bytes', 0)), float(io.get('iops', 0.0)),
                    float(lat['mean']) / 1e3 if lat.get('N') else None)
            except (KeyError, TypeError, ValueError, AttributeError) as err:
                # A damaged document: a field gone ('mean' beside 'N'),
                # or a number that is a string or a list.
                lineno = _line_of(lines, f'"jobname" : "{name}"', start)
                raise ParseError(source, lineno, lines[lineno - 1].strip(),
                                 f'fio job {name!r}: {direction} results '
                                 f'damaged ({type(err).__name__}: {err})'
                                 ) from None
        jobs.append(FioJob(name=name, groupid=job.get('groupid', 0),
                           error=0, jobs=None, **records))

    return _result(doc.get('fio version'), 'json', jobs)


def _line_of(lines, needle, start):
    return next((n for n, ln in enumerate(lines, 1)
                 if n > start and needle in ln), start + 1)


def _parse_normal(lines, source):
    jobs = []
    current = None
    for lineno, line in enumerate(lines, 1):
        m = _JOB_HEADER.match(line)
        if m:
            if int(m.group('err')) != 0:
                raise ParseError(source, lineno, line.strip(),
                                 f'fio job {m.group("name")!r} ended with '
                                 f'error {m.group("err")}')
            current = {'name': m.group('name'),
                       'groupid': int(m.group('group')),
                       'jobs': int(m.group('jobs')), 'io': {}}
            jobs.append(current)
            last_dir = None
            continue

        if current is None:
            continue
        m = _IO_LINE.match(line)
        if m:
            last_dir = m.group('dir')
            current['io'][last_dir] = [
                round(float(m.group('io')) * _UNITS[m.group('io_unit')]),
                int(m.group('ms')) / 1e3,
                float(m.group('bw')) * _UNITS[m.group('bw_unit')],
                float(m.group('iops')) * _COUNT[m.group('k')], None]
            continue

        m = _LAT_LINE.match(line)
        if m and last_dir is not None:
            current['io'][last_dir][4] = (float(m.group('avg')) *
                                          _TIME_US[m.group('unit')])

    version = next((ln.strip() for ln in lines
                    if re.match(r'^fio-\d', ln.strip())), None)
    return _result(version, 'normal', [
        FioJob(name=j['name'], groupid=j['groupid'], error=0,
               jobs=j['jobs'],
               **{d: _io(*j['io'][d]) if d in j['io'] else None
                  for d in _DIRECTIONS})
        for j in jobs])


def _parse_terse(lines, source):
    jobs = []
    version = None
    width = len(_TERSE_HEAD) + 2 * len(_TERSE_IO)
    for lineno, line in enumerate(lines, 1):
        if not line.startswith('3;fio-'):
            continue

        values = line.strip().split(';')
        if len(values) < width:
            raise ParseError(source, lineno, line.strip()[:80],
                             f'expected at least {width} terse v3 fields, '
                             f'got {len(values)}')
        head = dict(zip(_TERSE_HEAD, values))
        version = head['fio_version']

        def number(fields, name, convert=int):
            try:
                return convert(fields[name])
            except ValueError:
                raise ParseError(source, lineno, line.strip()[:80],
                                 f'expected a number in terse field '
                                 f'{name!r}, got {fields[name]!r}') from None

        if number(head, 'error') != 0:
            raise ParseError(source, lineno, line.strip()[:80],
                             f'fio job {head["jobname"]!r} ended with '
                             f'error {head["error"]}')
        records = {}
        offset = len(_TERSE_HEAD)
        for direction in ('read', 'write'):
            io = dict(zip(_TERSE_IO, values[offset:]))
            offset += len(_TERSE_IO)
            runtime_s = number(io, 'runtime_ms') / 1e3
            records[direction] = _io(
                number(io, 'io_kbytes') * 1024, runtime_s,
                number(io, 'bw_kib_s') * 1024, number(io, 'iops', float),
                number(io, 'lat_mean', float))
        jobs.append(FioJob(name=head['jobname'],
                           groupid=number(head, 'groupid'), error=0,
                           jobs=None,
                           trim=None, **records))

    return _result(version, 'terse', jobs)


def stream_measures(text, source, phase):
    """fio as a tool of the streams runner (:mod:`pfsbench.parsers.streams`):
    one stream's fio run.

    Args:
        text: that stream-phase's fio output.
        source: the name used in error messages.
        phase: the runner's phase name, which names the measure.

    Returns:
        one :class:`~pfsbench.parsers.streams.Measure` per direction that
        moved data: named after the phase when only one did (a write or a
        read), else ``<phase>_read``, ``<phase>_write``.

    Raises:
        ParseError: as :func:`parse`, or no direction moved data.
    """
    from pfsbench.parsers.streams import Measure
    result = parse(text, source)
    moved = [(d, getattr(result, d)) for d in _DIRECTIONS
             if getattr(result, d) is not None]
    if not moved:
        raise ParseError(source, 0, '', 'expected fio to move some bytes')

    return tuple(
        Measure(phase if len(moved) == 1 else f'{phase}_{direction}',
                io.io_bytes, io.runtime_s, io.bw_mb_s)
        for direction, io in moved)
