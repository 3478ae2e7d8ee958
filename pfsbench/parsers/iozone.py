# SPDX-License-Identifier: BSD-3-Clause
"""Parse iozone output (3.4xx) into typed results.

Understood:

* the banner (``Version $Revision: 3.487 $``, ``Build:``) and the settings
  iozone echoes (``Command line used:``, ``File size set to``, ``Record
  Size``, ``O_DIRECT feature enabled`` for ``-I``, ``SYNC Mode.`` for
  ``-o``, ``Include close``/``fsync in write timing`` for ``-c``/``-e``,
  ``Min process``/``Max process`` for ``-l``/``-u``);
* auto mode (``-a``) and single-file mode (``-s``/``-r``): the table of
  one row per file size and record size, read by header name (a column is
  right-aligned under its name; a test that did not run is blank);
* the Excel reports ``-R`` prints after the table (``"Writer report"``...);
* throughput mode (``-t``, ``-l``/``-u``): every sub-test block
  (``Children see throughput for N initial writers``, ``Parent sees``,
  ``Min``/``Max``/``Avg throughput per process``, ``Min xfer``, and the
  ``Child[i]`` lines of ``-C``), and the ``"Throughput report"`` of ``-R``.

Units: iozone's "kB" is 1024 bytes (``-s 64m`` echoes ``65536 kB``), so
sizes are ``_kib`` and rates ``kib_s``; in ``-O`` mode the figures are
operations (``ops_per_s``).  ``-N`` (microseconds per operation) is refused.

iozone stonewalls throughput tests by default: when the first process
finishes, the others stop and report what they did, so a process may report
0 kB and 0 kB/s (``Min xfer = 0.00``).  Those zeros are iozone's measured
figures and are kept; ``-x`` turns stonewalling off.  iozone's own minimum
takes 0 for "none yet": a 0 of the first process is skipped (the minimum
may then exceed the average), a later one is reported.  Figures are kept
as iozone printed them.

A run must end with ``iozone test complete.``; otherwise the parser raises
quoting iozone's own error line (``Can not open temp file: ...``,
``Error writing block ...``), else the last line.
"""

import re
from dataclasses import dataclass

from pfsbench.core.errors import ParseError
from pfsbench.parsers.common import last_line

#: Columns of the auto / single-file table, as the header names them.
TABLE_TESTS = ('write', 'rewrite', 'read', 'reread', 'random read',
               'random write', 'bkwd read', 'record rewrite', 'stride read',
               'fwrite', 'frewrite', 'fread', 'freread')

_END = 'iozone test complete.'
_FAILURE = re.compile(r'^\s*(Can not |Cannot |Error |Unable to |'
                      r'Invalid options|invalid options)')
# A figure: '[\d.]+' would take '1.2.3' (a flipped byte) to float().
_VALUE = r'(\d+(?:\.\d+)?) (kB|ops)'
# The test's name is everything up to '=' (blanks after it stripped by the
# caller): a lazy '(.+?)\s*=' is quadratic in a line of blanks.
_CHILDREN = re.compile(r'^\s*Children see throughput for\s+(\d+)\s+(\S[^=]*)='
                       r'\s*' + _VALUE + r'/sec\s*$')
_PARENT = re.compile(r'^\s*Parent sees throughput for\s+(\d+)\s+(\S[^=]*)='
                     r'\s*' + _VALUE + r'/sec\s*$')
_PER_PROCESS = re.compile(r'^\s*(Min|Max|Avg) throughput per '
                          r'(?:process|thread)\s*=\s*' + _VALUE + r'/sec\s*$')
_MIN_XFER = re.compile(r'^\s*Min xfer\s*=\s*' + _VALUE + r'\s*$')
_CHILD = re.compile(r'^\s*Child\[(\d+)\] xfer count =\s*' + _VALUE +
                    r', Throughput =\s*' + _VALUE + r'/sec')
_EACH = re.compile(r'^\s*Each (?:process|thread) writes a (\d+) kByte file '
                   r'in (\d+) kByte records')
_SETTINGS = (
    ('version', re.compile(r'Version \$Revision: (\S+) \$'), str),
    ('build', re.compile(r'^\s*Build: (\S+)'), str),
    ('command_line', re.compile(r'^\s*Command line used: (.*)'), str.strip),
    ('file_size_kib', re.compile(r'^\s*File size set to (\d+) kB'), int),
    ('record_size_kib', re.compile(r'^\s*Record Size (\d+) kB'), int),
    ('min_file_size_kib',
     re.compile(r'^\s*Using minimum file size of (\d+) kilobytes'), int),
    ('max_file_size_kib',
     re.compile(r'^\s*Using maximum file size of (\d+) kilobytes'), int),
    ('processes_min', re.compile(r'^\s*Min process = (\d+)'), int),
    ('processes_max', re.compile(r'^\s*Max process = (\d+)'), int),
)
_FLAGS = (
    ('auto_mode', 'Auto Mode'),
    ('o_direct', 'O_DIRECT feature enabled'),
    ('sync_mode', 'SYNC Mode.'),
    ('include_close', 'Include close in write timing'),
    ('include_fsync', 'Include fsync in write timing'),
    ('ops_mode', 'OPS Mode. Output is in operations per second.'),
    ('excel', 'Excel chart generation enabled'),
)


@dataclass(frozen=True)
class Settings:
    """What iozone echoed about the run (None / False where it did not)."""

    version: str | None
    build: str | None
    command_line: str | None
    file_size_kib: int | None
    record_size_kib: int | None
    min_file_size_kib: int | None
    max_file_size_kib: int | None
    processes_min: int | None
    processes_max: int | None
    auto_mode: bool
    o_direct: bool
    sync_mode: bool
    include_close: bool
    include_fsync: bool
    ops_mode: bool
    excel: bool


@dataclass(frozen=True)
class TableRow:
    """One row of the auto / single-file table: test name -> figure, for
    the tests that ran (``kib_s``, or ``ops_per_s`` in ``-O`` mode)."""

    file_size_kib: int
    record_size_kib: int
    kib_s: dict | None
    ops_per_s: dict | None


@dataclass(frozen=True)
class Figures:
    """One throughput sub-test's figures, in one unit."""

    #: ``Children see throughput``: the sum of every process's own rate.
    children: float
    #: ``Parent sees throughput``: all data over the parent's wall time
    #: (iozone prints none in cluster mode, ``-+m``).
    parent: float | None
    min_per_process: float
    max_per_process: float
    avg_per_process: float
    #: What the slowest process had moved (KiB, or operations) when the
    #: first one finished.
    min_xfer: float
    #: ``-C``: (moved, rate) of each process, in process order.
    per_process: tuple = ()


@dataclass(frozen=True)
class ThroughputTest:
    """One sub-test block of throughput mode."""

    #: As iozone names it: ``initial writers``, ``rewriters``, ``readers``,
    #: ``re-readers``, ``random readers``, ``random writers``...
    test: str
    processes: int
    file_size_kib: int | None
    record_size_kib: int | None
    kib_s: Figures | None
    ops_per_s: Figures | None

    @property
    def figures(self):
        """The block's :class:`Figures`, whichever the unit."""
        return self.kib_s or self.ops_per_s


@dataclass(frozen=True)
class Result:
    """Everything one iozone run printed."""

    settings: Settings
    #: ``auto``, ``single`` or ``throughput``.
    mode: str
    table: tuple
    throughput: tuple
    #: ``-R`` reports: name (``Writer report``) -> {(file KiB, record KiB):
    #: figure}; throughput mode: test (``Initial write``) -> figures by
    #: process count, in run order.
    excel: dict

    def row(self, file_size_kib, record_size_kib):
        """The table row of one file and record size (KeyError if none)."""
        for row in self.table:
            if (row.file_size_kib, row.record_size_kib) == (
                    file_size_kib, record_size_kib):
                return row

        raise KeyError((file_size_kib, record_size_kib))

    def tests(self, test, processes=None):
        """The throughput blocks of one sub-test (all process counts, or
        one)."""
        return tuple(t for t in self.throughput if t.test == test and (
            processes is None or t.processes == processes))


def parse(text, source='<text>'):
    """Parse one iozone run's output.

    Args:
        text: iozone's stdout and stderr.
        source: the name quoted in error messages.

    Returns:
        a :class:`Result`.

    Raises:
        ParseError: iozone failed (its error line is quoted), the output is
            truncated (the last line is quoted) or malformed.
    """
    lines = text.splitlines()
    if not any(line.strip() == _END for line in lines):
        for lineno, line in enumerate(lines, 1):
            if _FAILURE.match(line):
                raise ParseError(source, lineno, line.strip(),
                                 'expected a completed iozone run, but it '
                                 'reported an error')
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line,
                         f"expected iozone's '{_END}' line (truncated "
                         f'output)')

    settings = _settings(lines, source)
    table = _table(lines, settings, source)
    blocks = _throughput(lines, settings, source)
    excel = _excel(lines, source)
    if blocks:
        mode = 'throughput'
    elif table:
        mode = 'auto' if settings.auto_mode else 'single'
    else:
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line,
                         'expected a result table or throughput blocks')

    return Result(settings=settings, mode=mode, table=table,
                  throughput=blocks, excel=excel)


def _settings(lines, source):
    found = {}
    for lineno, line in enumerate(lines, 1):
        if 'Microseconds/op Mode' in line:
            raise ParseError(source, lineno, line.strip(),
                             'expected kB/s or ops/s figures (-N, '
                             'microseconds per operation, is not '
                             'supported)')
        for name, pattern, convert in _SETTINGS:
            m = pattern.search(line)
            if m and name not in found:
                found[name] = convert(m.group(1))
    stripped = {line.strip() for line in lines}
    return Settings(**{name: found.get(name) for name, _, _ in _SETTINGS},
                    **{name: text in stripped for name, text in _FLAGS})


# Auto / single-file table ----------------------------------------------------

def _table(lines, settings, source):
    for lineno, line in enumerate(lines, 1):
        if line.split()[:2] == ['kB', 'reclen']:
            columns = _columns(lines[lineno - 2], line)
            break
    else:
        return ()

    unit = 'ops_per_s' if settings.ops_mode else 'kib_s'
    rows = []
    for lineno, line in enumerate(lines[lineno:], lineno + 1):
        words = [(m.end(), m.group()) for m in re.finditer(r'\S+', line)]
        if not words or not all(w.isascii() and w.isdigit() for _, w in words):
            break
        cells = {}
        for end, word in words:
            # iozone right-aligns a figure at its name's end, or one past.
            name = min(columns, key=lambda c: abs(c - end))
            if abs(name - end) > 2 or columns[name] in cells:
                raise ParseError(source, lineno, line.rstrip(),
                                 f'expected {word!r} under a column of the '
                                 f'header')
            cells[columns[name]] = int(word)
        if 'kB' not in cells or 'reclen' not in cells:
            raise ParseError(source, lineno, line.rstrip(),
                             'expected the file size and record size')
        figures = {k: float(v) for k, v in cells.items()
                   if k not in ('kB', 'reclen')}
        if not figures:
            raise ParseError(source, lineno, line.rstrip(),
                             'expected figures after the file and record '
                             'size (the run stopped in this row)')
        rows.append(TableRow(file_size_kib=cells['kB'],
                             record_size_kib=cells['reclen'],
                             **{'kib_s': None, 'ops_per_s': None,
                                unit: figures}))
    return tuple(rows)


def _columns(upper, lower):
    """Column end position -> name, from the two header lines (``random``
    over ``read``: a name is right-aligned like its figures)."""
    above = {m.end(): m.group() for m in re.finditer(r'\S+', upper)}
    columns = {}
    for m in re.finditer(r'\S+', lower):
        name = m.group()
        if m.end() in above:
            name = f'{above[m.end()]} {name}'
        columns[m.end()] = name
    return columns


# Throughput mode -------------------------------------------------------------

def _throughput(lines, settings, source):
    blocks = []
    current = None
    sizes = (settings.file_size_kib, settings.record_size_kib)
    for lineno, line in enumerate(lines, 1):
        if m := _EACH.match(line):
            sizes = (int(m.group(1)), int(m.group(2)))
        elif m := _CHILDREN.match(line):
            _close(current, blocks, source, lineno, line)
            current = dict(lineno=lineno, line=line, test=m.group(2).rstrip(),
                           processes=int(m.group(1)), sizes=sizes,
                           unit=m.group(4), children=float(m.group(3)),
                           parent=None, per_process=[])
        elif current is None:
            continue
        elif m := _PARENT.match(line):
            _same_block(current, m, source, lineno, line)
            current['parent'] = float(m.group(3))
        elif m := _PER_PROCESS.match(line):
            _same_unit(current, m.group(3), source, lineno, line)
            current[m.group(1).lower()] = float(m.group(2))
        elif m := _MIN_XFER.match(line):
            _same_unit(current, m.group(2), source, lineno, line)
            current['min_xfer'] = float(m.group(1))
        elif m := _CHILD.match(line):
            if int(m.group(1)) != len(current['per_process']):
                expected = len(current['per_process'])
                raise ParseError(source, lineno, line.strip(),
                                 f'expected Child[{expected}]')
            current['per_process'].append((float(m.group(2)),
                                           float(m.group(4))))
        elif line.strip() == _END or line.startswith('"'):
            _close(current, blocks, source, lineno, line)
            current = None
    return tuple(blocks)


def _same_block(current, m, source, lineno, line):
    if (int(m.group(1)), m.group(2).rstrip()) != (current['processes'],
                                         current['test']):
        raise ParseError(source, lineno, line.strip(),
                         f"expected the 'Parent sees' line of "
                         f"{current['processes']} {current['test']}")
    _same_unit(current, m.group(4), source, lineno, line)


def _same_unit(current, unit, source, lineno, line):
    if unit != current['unit']:
        raise ParseError(source, lineno, line.strip(),
                         f"expected {current['unit']} like the 'Children "
                         f"see' line")


def _close(current, blocks, source, lineno, line):
    """Finish the open block; it must have every figure iozone prints."""
    if current is None:
        return
    missing = [k for k in ('min', 'max', 'avg', 'min_xfer')
               if k not in current]
    if missing:
        raise ParseError(source, lineno, line.strip(),
                         f"expected {', '.join(missing)} of the "
                         f"{current['test']} block before this line")
    if current['per_process'] and len(current['per_process']) != \
            current['processes']:
        raise ParseError(source, lineno, line.strip(),
                         f"expected {current['processes']} Child[] lines")
    figures = Figures(children=current['children'], parent=current['parent'],
                      min_per_process=current['min'],
                      max_per_process=current['max'],
                      avg_per_process=current['avg'],
                      min_xfer=current['min_xfer'],
                      per_process=tuple(current['per_process']))
    unit = 'kib_s' if current['unit'] == 'kB' else 'ops_per_s'
    blocks.append(ThroughputTest(
        test=current['test'], processes=current['processes'],
        file_size_kib=current['sizes'][0],
        record_size_kib=current['sizes'][1],
        **{'kib_s': None, 'ops_per_s': None, unit: figures}))


# Excel reports (-R) ----------------------------------------------------------

def _excel(lines, source):
    reports = {}
    name = None
    header = None
    for lineno, line in enumerate(lines, 1):
        stripped = line.strip()
        words = re.findall(r'"[^"]*"|\S+', stripped)
        if re.fullmatch(r'"[^"]+ report"', stripped):
            name, header = stripped.strip('"'), None
            reports[name] = {}
        elif stripped.startswith('"Throughput report'):
            name, header = 'Throughput report', ()
            reports[name] = {}
        elif name is None or not stripped:
            continue
        elif name == 'Throughput report':
            if len(words) > 1 and words[0].startswith('"') and \
                    not stripped.startswith(('"Record size', '"Output is')):
                reports[name][words[0].strip('" ')] = tuple(
                    _excel_number(w, source, lineno, line)
                    for w in words[1:])
        elif header is None:
            header = [_excel_size(w, source, lineno, line) for w in words]
        elif words[0].startswith('"'):
            file_kib = _excel_size(words[0], source, lineno, line)
            for rec_kib, word in zip(header, words[1:]):
                reports[name][(file_kib, rec_kib)] = _excel_number(
                    word, source, lineno, line)
        else:
            name = None
    return reports


def _excel_size(word, source, lineno, line):
    size = word.strip('"')
    if not (size.isascii() and size.isdigit()):
        raise ParseError(source, lineno, line.strip(),
                         f'expected a size in kB in the Excel report, got '
                         f'{word!r}')
    return int(size)


def _excel_number(word, source, lineno, line):
    try:
        return float(word)
    except ValueError:
        raise ParseError(source, lineno, line.strip(),
                         f'expected a number in the Excel report, got '
                         f'{word!r}') from None


def measure_name(test):
    """A sub-test's figure name: ``initial writers`` -> ``initial_writers``.
    """
    return re.sub(r'[^a-z0-9]+', '_', test.lower()).strip('_')


def stream_measures(text, source, phase):
    """iozone as a tool of the streams runner
    (:mod:`pfsbench.parsers.streams`): one node's throughput group, or one
    single-file iozone (seed 001's E19: every sub-test, fread/fwrite too).

    Args:
        text: that group's iozone output (throughput mode).
        source: the name used in error messages.
        phase: the runner's phase name (unused: iozone names its tests).

    Returns:
        one :class:`~pfsbench.parsers.streams.Measure` per sub-test, named
        after iozone's (``initial writers`` -> ``initial_writers``; in a
        single-file run its table's column: ``random read`` ->
        ``random_read``, ``fwrite``), whose rate is the group's ``Children
        see throughput`` (the table's figure) in MB/s (10^6 bytes; ops/s
        in ``-O`` mode).

    Raises:
        ParseError: as :func:`parse`, the run was in auto mode (a table of
            many rows), or it ran several process counts (``-l`` below
            ``-u``).
    """
    from pfsbench.parsers.streams import Measure
    result = parse(text, source)
    lineno, line = last_line(text.splitlines())
    if result.mode == 'single' and len(result.table) == 1:
        (row,) = result.table
        if row.kib_s is not None:
            return tuple(Measure(measure_name(test), None, None,
                                 kib_s * 1024 / 1e6)
                         for test, kib_s in row.kib_s.items())
        return tuple(Measure(measure_name(test), None, None, ops, 'ops/s')
                     for test, ops in row.ops_per_s.items())
    if result.mode != 'throughput':
        raise ParseError(source, lineno, line, f'expected an iozone '
                                               f'throughput test or one '
                                               f'file, got {result.mode} '
                                               f'mode')
    counts = sorted({block.processes for block in result.throughput})
    if len(counts) != 1:
        raise ParseError(source, lineno, line, f'expected one process count '
                                               f'per group (-l N -u N), got '
                                               f'{counts}')
    measures = []
    for block in result.throughput:
        name = measure_name(block.test)
        if block.kib_s is not None:
            measures.append(Measure(name, None, None,
                                    block.kib_s.children * 1024 / 1e6))
        else:
            measures.append(Measure(name, None, None,
                                    block.ops_per_s.children, 'ops/s'))
    return tuple(measures)


def client_samples(result, hosts, source):
    """Each client's figure of every sub-test of a cluster-mode run
    (``-+m`` with ``-C``), as streams of :mod:`pfsbench.parsers.streams`.

    iozone's cluster mode synchronises its clients itself and prints no
    per-client times: the samples carry none (start = end = 0).

    Args:
        result: the run's :class:`Result`.
        hosts: the host of every client, in the ``-+m`` file's order
            (client ``i`` is iozone's ``Child[i]``).
        source: the name used in error messages.

    Returns:
        a tuple of :class:`~pfsbench.parsers.streams.StreamSample`, rates
        in MB/s (10^6 bytes), sub-tests named as :func:`stream_measures`
        names them.

    Raises:
        ParseError: not a throughput run, a block without ``Child[]``
            lines (no ``-C``), or another client count than ``hosts``.
    """
    from pfsbench.parsers.streams import StreamSample
    if result.mode != 'throughput' or not result.throughput:
        raise ParseError(source, 0, '', 'expected an iozone throughput '
                                        'test (cluster mode, -+m)')
    samples = []
    for block in result.throughput:
        figures = block.kib_s
        if figures is None or len(figures.per_process) != len(hosts):
            raise ParseError(source, 0, f'{block.processes} {block.test}',
                             f'expected a kB/sec block with one Child[] '
                             f'line (-C) per client, {len(hosts)}')
        name = measure_name(block.test)
        for i, (host, (_, kib_s)) in enumerate(zip(hosts,
                                                   figures.per_process)):
            samples.append(StreamSample(
                stream=i + 1, node=host, phase=name, name=name, start=0.0,
                end=0.0, bytes=None, seconds=None,
                bw_mb_s=kib_s * 1024 / 1e6))
    return tuple(samples)
