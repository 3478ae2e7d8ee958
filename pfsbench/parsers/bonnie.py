# SPDX-License-Identifier: BSD-3-Clause
"""Parse bonnie++ output (1.9x and 2.x) into typed results.

Understood:

* the CSV line bonnie++ always prints on stdout (one per run; ``-x N``
  prints N of them under a header line).  The format version in the first
  field tells the layouts apart: ``1.97`` (bonnie++ 1.97; 1.96 is read the
  same way) has 48 fields, ``1.98`` (bonnie++ 1.98 to 2.00a) adds the
  number of seeks and of seeker processes after the chunk size (50 fields);
* the human-readable tables: bonnie++'s own (``K/sec`` integers in 1.9x;
  ``1364k``/``993m``/``1.4g`` in 2.x) and those ``bon_csv2txt`` prints.

Where both are present the CSV wins: it is exact, the 2.x table rounds.

Units: bonnie++ reports bulk I/O in K/sec, and its manual says "K" is KiB
(1024 bytes), so those figures are ``kib_s``; seeks and file operations are
per second.  A test that ran for less than 0.5 s is printed ``+++++`` ("too
fast to measure"): its figure is ``None`` with ``too_fast`` set, never 0.
A test that did not run (``-f``, ``-n 0``, ``-s 0``) is ``None`` as a whole.
Latencies (``254us``, ``41ms``, ``3s``) are given in microseconds.

Quirks of the real tool this parser allows for (recorded in the fixtures):

* bonnie++ 2.00a's ``-x`` header line still names the 48 fields of format
  1.97, while its rows have 50: rows are read by their format version,
  never by that header.
* The CSV fields bonnie++ (1.97 and 2.00a) writes after ``min_size`` are an
  always-empty one (the ``-n`` chunk size never reaches the output) and then
  the number of directories, while the header calls them ``num_dirs`` and
  ``file_chunk_size``.  2.00a never writes the ``-s`` chunk size either.
* bonnie++ 2.00a's own text table prints every file-creation rate that ran
  as the number of files (``printf("%5d")`` of a double): those figures are
  ``None`` when only that table is available; the CSV has the real ones.
* ``bon_csv2txt`` prints a ``+++++`` block read as ``0k``; a figure whose CPU
  column is ``+++`` is read as too fast, whatever the figure says.
"""

import re
from dataclasses import dataclass

from pfsbench.core.errors import ParseError
from pfsbench.parsers.common import last_line

#: The bulk I/O tests, in bonnie++'s column order.
IO_TESTS = ('putc', 'put_block', 'rewrite', 'getc', 'get_block')
#: The small-file tests, in bonnie++'s column order.
FILE_TESTS = ('seq_create', 'seq_stat', 'seq_del',
              'ran_create', 'ran_stat', 'ran_del')

#: CSV format version -> whether its rows carry the seek count and seeker
#: processes (50 fields) or not (48).
CSV_FORMATS = {'1.96': False, '1.97': False, '1.98': True}

_CSV_ROW = re.compile(r'^(\d+\.\d+[a-z]?),')
_CSV_HEADER = 'format_version,bonnie_version,'
_LATENCY = re.compile(r'^(\d+)(us|ms|s)$')
_LATENCY_US = {'us': 1, 'ms': 1e3, 's': 1e6}
#: 2.x text figures: KiB/s with a k, m or g suffix.
_TEXT_KIB = {'k': 1, 'm': 2**10, 'g': 2**20}

# bonnie++'s own error messages (bonnie++.cpp, bon_io.cpp, bon_file.cpp).
_FAILURE = re.compile(
    r"^(Can't |Bonnie: drastic I/O error|File size should be double RAM"
    r'|You must use the "-u" switch|Exceeded CPU usage'
    r'|exceeded file storage limits|When testing \d+K of files'
    r'|Not enough ram|Large File Support not present)')


@dataclass(frozen=True)
class Figure:
    """What every bonnie++ test reports besides its rate."""

    #: %CPU bonnie++ used; None when the test was too fast to measure.
    cpu_pct: int | None
    #: The slowest single operation, in microseconds (None if not shown).
    latency_us: float | None
    #: bonnie++ printed ``+++++``: the test took less than 0.5 s.
    too_fast: bool


@dataclass(frozen=True)
class Throughput(Figure):
    """A bulk I/O test (per-char or block write, rewrite, read)."""

    kib_s: float | None

    @property
    def mib_s(self):
        """The rate in MiB/s (None where bonnie++ gave none)."""
        return None if self.kib_s is None else self.kib_s / 1024


@dataclass(frozen=True)
class Rate(Figure):
    """Random seeks or a small-file operation."""

    per_s: float | None


@dataclass(frozen=True)
class Run:
    """One bonnie++ run: one CSV row, or one row of the text tables."""

    machine: str
    version: str
    #: The CSV format version (``1.97``, ``1.98``); None if read from text.
    csv_format: str | None
    #: ``-c``; from text only where bonnie++ 1.9x printed 'Concurrency'.
    concurrency: int | None
    seed: str | None
    #: ``-s``: MiB of bulk I/O (None if the bulk tests did not run).
    file_size_mib: int | None
    #: ``-s size:chunk``; None where bonnie++ did not print it (its default
    #: is 8192; 2.00a never prints it in CSV).
    io_chunk_bytes: int | None
    #: Seeks done and seeker processes (CSV format 1.98 only).
    seeks_requested: int | None
    seek_procs: int | None
    putc: Throughput | None
    put_block: Throughput | None
    rewrite: Throughput | None
    getc: Throughput | None
    get_block: Throughput | None
    seeks: Rate | None
    #: ``-n``: files created (bonnie++'s figure is in units of 1024 files).
    num_files: int | None
    max_file_size_bytes: int | None
    min_file_size_bytes: int | None
    num_dirs: int | None
    seq_create: Rate | None
    seq_stat: Rate | None
    seq_del: Rate | None
    ran_create: Rate | None
    ran_stat: Rate | None
    ran_del: Rate | None


@dataclass(frozen=True)
class Result:
    """Every run one bonnie++ output holds (``-x N``: N runs)."""

    version: str
    #: ``csv`` or ``text``: where the figures were read.
    output_format: str
    runs: tuple


def parse(text, source='<text>'):
    """Parse bonnie++'s output (stdout and stderr, in any order).

    Args:
        text: the tool's output.
        source: the name quoted in error messages.

    Returns:
        a :class:`Result`.

    Raises:
        ParseError: bonnie++ reported an error (its line is quoted), a CSV
            row has the wrong number of fields, or the output ends early.
    """
    lines = text.splitlines()
    _raise_on_failure(lines, source)
    runs = parse_csv_rows(lines, source)
    if runs:
        return Result(version=runs[0].version, output_format='csv',
                      runs=runs)

    runs = _parse_text(lines, source)
    if any(line.startswith(("start 'em", 'Writing ', 'Reading '))
           for line in lines):
        # bonnie++ ran and printed its progress: its CSV line must follow.
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line, "expected bonnie++'s CSV "
                                               'line after its text table '
                                               '(truncated output)')

    return Result(version=runs[0].version, output_format='text', runs=runs)


def _raise_on_failure(lines, source):
    for lineno, line in enumerate(lines, 1):
        if _FAILURE.match(line):
            raise ParseError(source, lineno, line.strip(),
                             'expected a completed bonnie++ run, but it '
                             'reported an error')

    for lineno, line in enumerate(lines, 1):
        if line.strip() == 'usage:':
            # bonnie++ printed its usage: the line before says why.
            cause_lineno, cause = last_line(lines[:lineno - 1])
            if cause_lineno:
                lineno, line = cause_lineno, cause
            raise ParseError(source, lineno, line.strip(),
                             'expected a completed bonnie++ run, but it '
                             'refused its arguments')


# CSV -------------------------------------------------------------------------

def parse_csv_rows(lines, source='<text>'):
    """The runs of every bonnie++ CSV row among ``lines``.

    Args:
        lines: output lines; lines that are not CSV rows are skipped.
        source: the name quoted in error messages.

    Returns:
        a tuple of :class:`Run` (empty if there is no CSV row).

    Raises:
        ParseError: a row of an unknown format version or with the wrong
            number of fields for its version.
    """
    runs = []
    for lineno, line in enumerate(lines, 1):
        m = _CSV_ROW.match(line)
        if not m or line.startswith(_CSV_HEADER):
            continue

        fmt = m.group(1)
        if fmt not in CSV_FORMATS:
            raise ParseError(source, lineno, line, f'expected a bonnie++ '
                             f'CSV format version in {sorted(CSV_FORMATS)}')

        fields = line.strip().split(',')
        seek_fields = CSV_FORMATS[fmt]
        expected = 50 if seek_fields else 48
        if len(fields) != expected:
            raise ParseError(source, lineno, line,
                             f'expected {expected} fields in a format {fmt} '
                             f'CSV row, got {len(fields)} (truncated?)')

        try:
            runs.append(_run_from_csv(fields, seek_fields))
        except ValueError as err:
            raise ParseError(source, lineno, line,
                             f'expected bonnie++ CSV values ({err})') \
                from None

    return tuple(runs)


def _run_from_csv(fields, seek_fields):
    fmt, version, name, concurrency, seed, size, chunk = fields[:7]
    rest = fields[7:]
    seeks_requested = seek_procs = None
    if seek_fields:
        seeks_requested, seek_procs = _int(rest[0]), _int(rest[1])
        rest = rest[2:]
    io, files, latencies = rest[:12], rest[12:29], rest[29:]
    figures = {}
    for i, test in enumerate(IO_TESTS + ('seeks',)):
        figures[test] = _figure(io[2 * i], io[2 * i + 1], latencies[i],
                                kib=(test != 'seeks'))
    for i, test in enumerate(FILE_TESTS):
        figures[test] = _figure(files[5 + 2 * i], files[6 + 2 * i],
                                latencies[6 + i], kib=False)
    num_files, max_size, min_size, _, num_dirs = files[:5]
    return Run(
        machine=name, version=version, csv_format=fmt,
        concurrency=_int(concurrency), seed=seed or None,
        file_size_mib=_size_mib(size), io_chunk_bytes=_chunk_bytes(chunk),
        seeks_requested=seeks_requested, seek_procs=seek_procs,
        num_files=None if not num_files else int(num_files) * 1024,
        max_file_size_bytes=_size_field(max_size),
        min_file_size_bytes=_size_field(min_size),
        num_dirs=(None if not num_files else _int(num_dirs) or 1),
        **figures)


# Text tables -----------------------------------------------------------------

def _parse_text(lines, source):
    version = None
    concurrency = machine = None
    sections = {'io': [], 'file': []}
    rows = None
    trusted = True
    for lineno, line in enumerate(lines, 1):
        if '------Sequential Output------' in line:
            version = _text_version(line, lineno, source) or version
            rows = sections['io']
        elif '------Sequential Create------' in line:
            version = _text_version(line, lineno, source) or version
            # bonnie++'s own 2.x table opens with 'Version' and garbles its
            # rates; bon_csv2txt's (no 'Version') and 1.9x's are right.
            trusted = not (line.startswith('Version') and version >= '1.98')
            rows = sections['file']
        elif rows is None:
            continue
        elif line.startswith('Latency'):
            if not rows or rows[-1]['latency'] is not None:
                raise ParseError(source, lineno, line,
                                 'expected a result row before this '
                                 'Latency line')
            rows[-1]['latency'] = line
        elif line.startswith('Concurrency'):
            words = line.split()
            if len(words) < 2 or not (words[1].isascii()
                                      and words[1].isdigit()):
                raise ParseError(source, lineno, line,
                                 "expected 'Concurrency N'")
            concurrency = int(words[1])
        elif '-Create--' in line and not line[0].isspace():
            # bonnie++ names the machine here, not on its file-test rows.
            machine = line.split()[0]
        elif _is_header(line):
            continue
        elif line.strip() and not _CSV_ROW.match(line):
            if rows and rows[-1]['latency'] is None:
                raise ParseError(source, lineno, line,
                                 "expected a 'Latency' line before this row")
            rows.append(dict(lineno=lineno, line=line, latency=None,
                             trusted=trusted))
        else:
            rows = None

    io_rows, file_rows = sections['io'], sections['file']
    if not io_rows and not file_rows:
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line,
                         'expected a bonnie++ CSV row or result table')

    if any(r and r[-1]['latency'] is None for r in sections.values()):
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line,
                         "expected a 'Latency' line after the last result "
                         'row (truncated output)')

    if io_rows and file_rows and len(io_rows) != len(file_rows):
        raise ParseError(source, file_rows[0]['lineno'],
                         file_rows[0]['line'],
                         f'expected as many file-test rows as bulk I/O rows '
                         f'({len(io_rows)}), got {len(file_rows)}')

    runs = []
    for i in range(max(len(io_rows), len(file_rows))):
        io = _io_row(io_rows[i], source) if io_rows else {}
        files = _file_row(file_rows[i], source) if file_rows else {}
        files.setdefault('machine', machine)
        runs.append(_run_from_text(version, concurrency, io, files))
    return tuple(runs)


def _text_version(line, lineno, source):
    m = re.match(r'^Version\s+(\S+)', line)
    if not m:
        return None

    version = m.group(1)
    if version < '1.9':
        raise ParseError(source, lineno, line, f'expected bonnie++ 1.9x or '
                                               f'2.x, not {version}')
    return version


def _is_header(line):
    stripped = line.strip()
    return (stripped.startswith(('Machine', 'Name:Size', 'files',
                                 '-Per Chr-'))
            or '/sec %CP' in line or '-Create--' in line)


def _cells(line, start, per_cell):
    """A table line's label and its six cells, each a tuple of words.

    bonnie++ prints each cell in 10 columns (blank where a test did not
    run), but a figure wider than its field pushes the rest right; so cells
    are read word by word, and a cell is blank only where 10 blank columns
    follow the previous cell.

    Args:
        line: the table line.
        start: where the label field ends (19; 17 for 'Latency' lines); a
            word that runs past it belongs to the label.
        per_cell: words in a filled cell (2: figure and %CP; 1: latency).
    """
    words = [(m.start(), m.end(), m.group()) for m in
             re.finditer(r'\S+', line)]
    label = [w for w in words if w[0] < start]
    pos = max([start] + [w[1] for w in label])
    rest = [w for w in words if w[0] >= pos]
    cells = []
    for _ in range(6):
        if not rest or rest[0][0] >= pos + 10:
            cells.append(())
            pos += 10
            continue
        cell, rest = rest[:per_cell], rest[per_cell:]
        if len(cell) < per_cell:
            raise ValueError(f'{len(cells) + 1}th column incomplete')
        cells.append(tuple(w[2] for w in cell))
        pos = cell[-1][1]
    if rest:
        raise ValueError(f'more than six columns ({rest[0][2]!r})')
    return [w[2] for w in label], cells


def _row_figures(row, tests, source, scale_kib):
    try:
        label, cells = _cells(row['line'], 19, 2)
        latencies = _cells(row['latency'], 17, 1)[1]
        figures = {}
        for test, cell, latency in zip(tests, cells, latencies):
            value, cpu = cell or ('', '')
            if scale_kib and value[-1:] in _TEXT_KIB and test != 'seeks':
                value = float(value[:-1]) * _TEXT_KIB[value[-1]]
            figures[test] = _figure(value, cpu, ''.join(latency),
                                    kib=(test in IO_TESTS),
                                    trusted=row['trusted'])
    except ValueError as err:
        raise ParseError(source, row['lineno'], row['line'],
                         f'expected bonnie++ figures ({err})') from None
    return label, figures


def _io_row(row, source):
    label, figures = _row_figures(row, IO_TESTS + ('seeks',), source, True)
    if len(label) != 2:
        raise ParseError(source, row['lineno'], row['line'],
                         "expected 'machine size' before the figures")
    # Only size and chunk are read from 'size:chunk:...': what follows is
    # concurrency:seeks:seekers in bonnie++ 2.x (defaults left out) but
    # seeks:seekers in bon_csv2txt, and cannot be told apart.
    parts = label[1].split(':') + ['']
    try:
        return dict(machine=label[0], file_size_mib=_size_mib(parts[0]),
                    io_chunk_bytes=_chunk_bytes(parts[1]), **figures)
    except ValueError as err:
        raise ParseError(source, row['lineno'], row['line'],
                         f"expected 'machine size[:chunk...]' ({err})") \
            from None


def _file_row(row, source):
    label, figures = _row_figures(row, FILE_TESTS, source, False)
    m = re.fullmatch(r'(\d+)(?::(\w+)(?::(\d+))?)?(?:/(\d+))?',
                     label[-1] if label else '')
    if not m:
        raise ParseError(source, row['lineno'], row['line'],
                         "expected 'files[:max[:min]][/dirs]' before the "
                         'figures')
    return dict(**({'machine': label[0]} if len(label) == 2 else {}),
                num_files=int(m.group(1)) * 1024,
                max_file_size_bytes=_size_field(m.group(2)),
                min_file_size_bytes=_size_field(m.group(3)),
                num_dirs=_int(m.group(4)) or 1, **figures)


def _run_from_text(version, concurrency, io, files):
    tests = dict.fromkeys(IO_TESTS + ('seeks',) + FILE_TESTS)
    tests.update((k, v) for k, v in {**io, **files}.items() if k in tests)
    return Run(machine=io.get('machine') or files.get('machine'),
               version=version, csv_format=None,
               concurrency=concurrency, seed=None,
               file_size_mib=io.get('file_size_mib'),
               io_chunk_bytes=io.get('io_chunk_bytes'),
               seeks_requested=None, seek_procs=None,
               num_files=files.get('num_files'),
               max_file_size_bytes=files.get('max_file_size_bytes'),
               min_file_size_bytes=files.get('min_file_size_bytes'),
               num_dirs=files.get('num_dirs'), **tests)


# Values ----------------------------------------------------------------------

def _figure(rate, cpu, latency, kib, trusted=True):
    """One test's figure, None if the test did not run.

    Args:
        rate: the rate as printed (``'1297'``, ``'+++++'``, ``''``) or a
            number already scaled to KiB/s.
        cpu: the %CP column.
        latency: the latency column (``'254us'``).
        kib: a bulk I/O test (KiB/s) rather than a rate per second.
        trusted: False where bonnie++ printed a wrong figure.
    """
    if rate == '' and not cpu:
        return None

    too_fast = rate == '+++++' or cpu == '+++'
    common = dict(cpu_pct=None if cpu in ('', '+++') else int(cpu),
                  latency_us=_latency_us(latency), too_fast=too_fast)
    value = None if too_fast or not trusted else float(rate)
    if kib:
        return Throughput(kib_s=value, **common)
    return Rate(per_s=value, **common)


def _latency_us(text):
    if not text:
        return None
    m = _LATENCY.match(text)
    if not m:
        raise ValueError(f'latency {text!r}')
    return int(m.group(1)) * _LATENCY_US[m.group(2)]


def _int(text):
    return int(text) if text else None


def _size_field(text):
    """``-n`` file sizes: bytes, or None for ``link``/``symlink`` runs."""
    return int(text) if text and text.lstrip('-').isdigit() else None


def _size_mib(text):
    """bonnie++'s file size (``1G``, ``512M``, ``32000M``) in MiB."""
    return _scaled(text, {'': 1, 'M': 1, 'G': 2**10, 'T': 2**20},
                   'file size')


def _chunk_bytes(text):
    """bonnie++'s chunk size (``8192``, ``32k``, ``1m``) in bytes."""
    return _scaled(text, {'': 1, 'k': 2**10, 'm': 2**20}, 'chunk size')


def _scaled(text, units, what):
    if not text:
        return None
    m = re.fullmatch(r'(\d+)([a-zA-Z]?)', text)
    if not m or m.group(2) not in units:
        raise ValueError(f'{what} {text!r}')
    return int(m.group(1)) * units[m.group(2)]


#: The streams runner's measure names of bonnie++'s tests (one bonnie++
#: run reports them all).
STREAM_MEASURES = (('putc', 'char_write'), ('put_block', 'block_write'),
                   ('rewrite', 'rewrite'), ('getc', 'char_read'),
                   ('get_block', 'block_read'), ('seeks', 'seeks'))


def stream_measures(text, source, phase):
    """bonnie++ as a tool of the streams runner
    (:mod:`pfsbench.parsers.streams`): one instance's run, every test.

    Args:
        text: that instance's bonnie++ output (one run).
        source: the name used in error messages.
        phase: the runner's phase name (unused: bonnie++ names its tests).

    Returns:
        one :class:`~pfsbench.parsers.streams.Measure` per test that ran,
        named as in :data:`STREAM_MEASURES`: bulk rates in MB/s (10^6
        bytes), seeks in ``/s``; a ``+++++`` test has a ``None`` rate.

    Raises:
        ParseError: as :func:`parse`, or the output holds several runs.
    """
    from pfsbench.parsers.streams import Measure
    result = parse(text, source)
    if len(result.runs) != 1:
        lineno, line = last_line(text.splitlines())
        raise ParseError(source, lineno, line, f'expected one bonnie++ run '
                                               f'per stream, got '
                                               f'{len(result.runs)}')
    (run,) = result.runs
    measures = []
    for test, name in STREAM_MEASURES:
        figure = getattr(run, test)
        if figure is None:
            continue    # not run (-f0, -s 0)
        if test == 'seeks':
            measures.append(Measure(name, None, None, figure.per_s, '/s'))
        else:
            rate = None if figure.kib_s is None else figure.kib_s * 1024 / 1e6
            measures.append(Measure(name, None, None, rate))
    return tuple(measures)
