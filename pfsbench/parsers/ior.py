# SPDX-License-Identifier: BSD-3-Clause
"""Parse IOR output into one typed result.

Supported outputs (see ``docs/parsers-ior.md``):

* IOR 3.x / 4.x text: the ``Options:`` block, the per-iteration ``Results:``
  table and the ``Summary of all tests:`` table (``-v`` adds ``remove`` rows
  and ``Max Write:`` lines, both understood).
* IOR 3.x / 4.x JSON (``-O summaryFormat=JSON``), alone on stdout or
  surrounded by text (``-O summaryFile=...; cat``).
* IOR 4.x CSV (``-O summaryFormat=CSV``): per-iteration rows only; IOR
  prints no summary, so the summary is computed here and marked ``derived``.
* IOR 2.10 text (``Summary:`` block, ``Operation  Max (MiB)`` table,
  ``Max Write: X MiB/sec (Y MB/sec)``, ``Run finished:``), as written by
  ``src/C/IOR.c`` of IOR-2.10.3 (hpc/ior commit a56d39e) and as published
  in seed 002.

A run that failed raises :class:`~pfsbench.core.errors.ParseError` quoting
IOR's own ``ERROR`` line, else its assertion failure, else the MPI or launcher
abort line; a run without end marker or summary raises quoting the last line.
"""

import json
import math
import re
from dataclasses import dataclass, replace

from pfsbench.core.errors import ParseError
from pfsbench.parsers.common import (failure_markers, last_line,
                                     raise_on_failure)

OPERATIONS = ('write', 'read')

_UNITS = {'bytes': 1, 'KiB': 2**10, 'MiB': 2**20, 'GiB': 2**30,
          'TiB': 2**40, 'PiB': 2**50}


@dataclass(frozen=True)
class Parameters:
    """The test parameters IOR echoes back (``None`` where it did not)."""

    api: str | None
    tasks: int | None
    tasks_per_node: int | None
    nodes: int | None
    transfer_size_bytes: int | None
    block_size_bytes: int | None
    segments: int | None
    file_per_process: bool | None
    iterations: int | None
    stonewall_deadline_s: int | None
    stonewall_wear_out: bool | None
    test_file: str | None
    command_line: str | None


@dataclass(frozen=True)
class Iteration:
    """One row of IOR's per-iteration ``Results:`` table (or JSON/CSV)."""

    operation: str
    iteration: int
    bw_mib_s: float | None
    #: IOR's per-iteration IOPS column: transfers / (wr/rd time), which is
    #: not the summary's OPs (bandwidth / transfer size).
    iops: float | None
    latency_s: float | None
    open_s: float | None
    wrrd_s: float | None
    close_s: float | None
    total_s: float | None
    #: ``stonewalling pairs accessed min: X max: Y`` printed before the row.
    stonewall_pairs_min: int | None = None
    stonewall_pairs_max: int | None = None


@dataclass(frozen=True)
class OperationSummary:
    """One row of ``Summary of all tests`` (write or read)."""

    operation: str
    bw_max_mib_s: float | None
    bw_min_mib_s: float | None
    bw_mean_mib_s: float | None
    bw_stddev_mib_s: float | None
    ops_max_per_s: float | None
    ops_min_per_s: float | None
    ops_mean_per_s: float | None
    ops_stddev_per_s: float | None
    mean_time_s: float | None
    stonewall_time_s: float | None = None
    stonewall_bw_mib_s: float | None = None
    #: ``Max Write: X MiB/sec (Y MB/sec)``: the decimal-MB figure, only
    #: where IOR printed that line (2.10, 3.x, ``-v``); never converted.
    bw_max_mb_s: float | None = None
    #: True if IOR printed no summary (CSV) and it was computed here.
    derived: bool = False


@dataclass(frozen=True)
class Result:
    """Everything one IOR run reported."""

    version: str | None
    output_format: str
    params: Parameters
    write: OperationSummary | None
    read: OperationSummary | None
    iterations: tuple
    #: ``Pairs deadlineForStonewallingaccessed: N`` (wear-out runs).
    stonewall_pairs: int | None = None

    def iterations_of(self, operation):
        """Per-iteration rows of one operation, in iteration order."""
        return tuple(i for i in self.iterations if i.operation == operation)

    def summary(self, operation):
        """The :class:`OperationSummary` of ``'write'`` or ``'read'``."""
        return {'write': self.write, 'read': self.read}[operation]


#: The line rank 0 prints first (the text output only).
_BANNER_RE = re.compile(r'IOR-(\S+): MPI Coordinated Test of Parallel I/O')


def starts(text):
    """How many IOR runs printed their banner in ``text``: one per MPI
    job; N where a launcher started N singletons, each its own rank 0."""
    return sum(1 for line in text.splitlines() if _BANNER_RE.match(line))


def parse(text, source='<text>'):
    """Parse one IOR run's stdout (and stderr).

    Args:
        text: the tool's output, as one string.
        source: the name quoted in error messages.

    Returns:
        A :class:`Result`.

    Raises:
        ParseError: IOR or its launcher failed, the output is truncated,
            or it is in no format this module knows.
    """
    lines = text.splitlines()
    raise_on_failure(lines, source, 'IOR', _FAILURES,
                     cause=_last_failed_warning)
    for lineno, line in enumerate(lines):
        if line.rstrip() == '{':
            return _parse_json(text, lines, lineno, source)
        if line.startswith('access,bw(MiB/s),'):
            return _parse_csv(lines, lineno, source)
        m = _BANNER_RE.match(line)
        if m:
            if m.group(1).startswith('2.'):
                return _parse_text_210(lines, lineno, m.group(1), source)
            return _parse_text(lines, lineno, m.group(1), source)
    lineno, line = last_line(lines)
    if lines and _CSV_330_RE.match(lines[0]):
        # IOR 3.3.0 with -O summaryFormat=CSV prints its header values
        # run together, no separators, no newline and no result rows.
        raise ParseError(source, 1, lines[0],
                         'expected a CSV header, but IOR 3.3.0 writes no '
                         'CSV summary (its header values run together, no '
                         'rows): run it with the text or JSON summary')
    raise ParseError(source, lineno, line,
                     "expected an 'IOR-<version>: MPI Coordinated Test' "
                     "banner, a JSON summary or a CSV header")


#: The start of IOR 3.3.0's broken CSV output: the version, then the date.
_CSV_330_RE = re.compile(r'^\d+\.\d+\.\d+\S*(Mon|Tue|Wed|Thu|Fri|Sat|Sun) ')


# Failure detection ----------------------------------------------------------

_FAILURES = failure_markers('IOR')


def _last_failed_warning(lines):
    for line in reversed(lines):
        if line.startswith('WARNING:') and 'failed' in line:
            return line.strip()
    return None


# Small helpers ---------------------------------------------------------------

def _number(word):
    """IOR's numbers: 'NA' and '-' (not measured) become None, never 0.0."""
    if word in ('NA', '-', None):
        return None
    return float(word)


def _int(word):
    return None if word in ('NA', '-', None) else int(word)


def _from_line(build, source, lineno, line, what):
    """``build()``, reading what line ``lineno`` says: a column its header
    lacks (``KeyError``) or a word that is no number (``ValueError``)
    becomes that line's ParseError, not a traceback."""
    try:
        return build()
    except KeyError as err:
        raise ParseError(source, lineno, line,
                         f'expected a {err.args[0]!r} column in '
                         f'{what}') from None
    except (ValueError, ZeroDivisionError, OverflowError):
        raise ParseError(source, lineno, line,
                         f'expected figures in {what}') from None


def _human_size(text):
    """'1 MiB', '65536 bytes', '4 GiB' -> bytes; None if not exact."""
    m = re.fullmatch(r'\s*(\d+(?:\.\d+)?)\s*(bytes|[KMGTP]iB)\s*', text or '')
    if not m:
        return None
    value = float(m.group(1)) * _UNITS[m.group(2)]
    return int(value) if value == int(value) else None


def _header_index(header):
    """Map column names to positions; a repeated name gets '#2', '#3'."""
    index = {}
    for pos, name in enumerate(header.split()):
        key, n = name, 1
        while key in index:
            n += 1
            key = f'{name}#{n}'
        index[key] = pos
    return index


#: The columns read from IOR 3.x/4.x's text tables.
_RESULTS_COLUMNS = ('access', 'iter', 'bw(MiB/s)', 'IOPS', 'Latency(s)',
                    'open(s)', 'wr/rd(s)', 'close(s)', 'total(s)')
_SUMMARY_COLUMNS = ('Operation', 'Max(MiB)', 'Min(MiB)', 'Mean(MiB)',
                    'StdDev', 'Max(OPs)', 'Min(OPs)', 'Mean(OPs)', 'StdDev#2',
                    'Mean(s)', 'Stonewall(s)', 'Stonewall(MiB)', 'Test#',
                    '#Tasks', 'tPN', 'reps', 'fPP', 'segcnt', 'blksiz',
                    'xsize', 'API')


def _header(line, columns, source, lineno, what):
    """:func:`_header_index` of a table's header that has ``columns``."""
    index = _header_index(line)
    missing = [c.split('#')[0] for c in columns if c not in index]
    if missing:
        raise ParseError(source, lineno, line.strip(),
                         f'expected the columns {", ".join(missing)} in '
                         f'the header of {what}')
    return index


def _table_row(index, line, lineno, source, what):
    words = line.split()
    if len(words) != len(index):
        raise ParseError(source, lineno, line.strip(),
                         f'expected {len(index)} columns in {what}')
    return {name: words[pos] for name, pos in index.items()}


def _stats(values):
    """Max, min, mean and population stddev, as IOR computes them."""
    values = [v for v in values if v is not None]
    if not values:
        return (None,) * 4
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / len(values)
    return max(values), min(values), mean, math.sqrt(var)


# IOR 3.x / 4.x text ----------------------------------------------------------

# 'api                 : POSIX': the blanks before ':' are the key's (stripped
# by the caller); a lazy key before '\s+:' is quadratic in a line of blanks.
_OPTION_RE = re.compile(r'^([A-Za-z][\w /-]*\s):(.*)$')
_PAIRS_RE = re.compile(r'^stonewalling pairs accessed min: (\d+) max: (\d+)')
# 'Max Write: X MiB/sec (Y MB/sec)': IOR 2.10, 3.x and -v print it alike.
_MAX_RE = re.compile(r'^Max (Write|Read):\s+(\d+(?:\.\d+)?) MiB/sec '
                     r'\((\d+(?:\.\d+)?) MB/sec\)')


def _parse_text(lines, start, version, source):
    options = {}
    option_lines = {}
    command_line = None
    iterations = []
    summaries = {}
    max_mb = {}
    pairs_total = None
    finished = False
    section = 'head'
    results_index = summary_index = None
    pending_pairs = None
    seen_tests = set()
    for lineno, line in enumerate(lines[start + 1:], start + 2):
        stripped = line.strip()
        if line.startswith('Command line') and command_line is None:
            command_line = line.partition(':')[2].strip()
        elif stripped == 'Options:':
            section = 'options'
        elif stripped == 'Results:':
            section = 'results'
        elif stripped == 'Summary of all tests:':
            section = 'summary'
        elif line.startswith('Finished'):
            finished = True
            section = 'done'
        elif section == 'options' and _OPTION_RE.match(line):
            key, value = _OPTION_RE.match(line).groups()
            options.setdefault(key.strip(), value.strip())
            option_lines.setdefault(key.strip(), (lineno, stripped))
        elif section == 'results' and line.startswith('access '):
            results_index = _header(line, _RESULTS_COLUMNS, source, lineno,
                                    "the 'Results:' table")
        elif section == 'summary' and line.startswith('Operation '):
            summary_index = _header(line, _SUMMARY_COLUMNS, source, lineno,
                                    "the 'Summary of all tests' table")
        elif _PAIRS_RE.match(line):
            pending_pairs = tuple(
                int(g) for g in _PAIRS_RE.match(line).groups())
        elif line.startswith('Pairs deadlineForStonewallingaccessed:'):
            pairs_total = _from_line(lambda: int(line.split(':', 1)[1]),
                                     source, lineno, stripped,
                                     'the stonewalling pairs line')
        elif m := _MAX_RE.match(line):
            max_mb[m.group(1).lower()] = float(m.group(3))
        elif (section == 'results' and results_index
              and line.split()[:1] and line.split()[0] in OPERATIONS):
            row = _table_row(results_index, line, lineno, source,
                             "the 'Results:' table")
            iterations.append(_from_line(
                lambda: _iteration_from_text(row, pending_pairs), source,
                lineno, stripped, "the 'Results:' table"))
            pending_pairs = None
        elif (section == 'summary' and summary_index
              and line.split()[:1] and line.split()[0] in OPERATIONS):
            row = _table_row(summary_index, line, lineno, source,
                             "the 'Summary of all tests' table")
            for column in ('Operation', 'Test#'):
                _from_line(lambda: row[column], source, lineno, stripped,
                           "the 'Summary of all tests' table")
            if row['Operation'] in summaries or (
                    seen_tests and row['Test#'] not in seen_tests):
                raise ParseError(source, lineno, stripped,
                                 'expected one test per run (IOR scripts '
                                 'with several tests are not supported)')
            seen_tests.add(row['Test#'])
            summaries[row['Operation']] = (row, lineno, stripped)
    if not finished:
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line,
                         "expected IOR's 'Finished' line (truncated output)")
    if not summaries:
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line,
                         "expected a 'write' or 'read' row under "
                         "'Summary of all tests'")
    summary_table = "the 'Summary of all tests' table"
    ops = {op: _from_line(lambda: _summary_from_text(row, max_mb.get(op)),
                          source, lineno, line, summary_table)
           for op, (row, lineno, line) in summaries.items()}
    for name in ('nodes', 'stonewallingTime'):
        _from_line(lambda: _int(options.get(name)), source,
                   *option_lines.get(name, (0, '')), 'the options')
    any_row, lineno, line = next(iter(summaries.values()))
    return _from_line(lambda: _text_result(any_row, options, command_line,
                                           version, ops, iterations,
                                           pairs_total),
                      source, lineno, line, summary_table)


def _text_result(any_row, options, command_line, version, ops, iterations,
                 pairs_total):
    params = Parameters(
        api=any_row['API'],
        tasks=int(any_row['#Tasks']),
        tasks_per_node=int(any_row['tPN']),
        nodes=_int(options.get('nodes')),
        transfer_size_bytes=int(any_row['xsize']),
        block_size_bytes=int(any_row['blksiz']),
        segments=int(any_row['segcnt']),
        file_per_process=any_row['fPP'] == '1',
        iterations=int(any_row['reps']),
        stonewall_deadline_s=_int(options.get('stonewallingTime')),
        stonewall_wear_out=(None if 'stoneWallingWearOut' not in options
                            else options['stoneWallingWearOut'] == '1'),
        test_file=options.get('test filename'),
        command_line=command_line,
    )
    return Result(version=version, output_format='text', params=params,
                  write=ops.get('write'), read=ops.get('read'),
                  iterations=tuple(iterations),
                  stonewall_pairs=pairs_total)


def _iteration_from_text(row, pairs):
    return Iteration(
        operation=row['access'], iteration=int(row['iter']),
        bw_mib_s=_number(row['bw(MiB/s)']), iops=_number(row['IOPS']),
        latency_s=_number(row['Latency(s)']), open_s=_number(row['open(s)']),
        wrrd_s=_number(row['wr/rd(s)']), close_s=_number(row['close(s)']),
        total_s=_number(row['total(s)']),
        stonewall_pairs_min=pairs[0] if pairs else None,
        stonewall_pairs_max=pairs[1] if pairs else None)


def _summary_from_text(row, max_mb):
    return OperationSummary(
        operation=row['Operation'],
        bw_max_mib_s=_number(row['Max(MiB)']),
        bw_min_mib_s=_number(row['Min(MiB)']),
        bw_mean_mib_s=_number(row['Mean(MiB)']),
        bw_stddev_mib_s=_number(row['StdDev']),
        ops_max_per_s=_number(row['Max(OPs)']),
        ops_min_per_s=_number(row['Min(OPs)']),
        ops_mean_per_s=_number(row['Mean(OPs)']),
        ops_stddev_per_s=_number(row['StdDev#2']),
        mean_time_s=_number(row['Mean(s)']),
        stonewall_time_s=_number(row['Stonewall(s)']),
        stonewall_bw_mib_s=_number(row['Stonewall(MiB)']),
        bw_max_mb_s=max_mb)


# IOR 3.x / 4.x JSON ----------------------------------------------------------

# Text IOR prints to stdout in the middle of its JSON: stonewalled runs,
# and -v.  IOR 3.3.0 writes some JSON without its newline first, so the
# text may start inside a line, after a JSON bracket, comma or quote
# ('      [ stonewalling pairs accessed min: ...', '"Machine": "Linux
# n1"Start time skew across all tasks: 0.00 sec'): the line is JSON up to
# there.
_JSON_NOISE = re.compile(
    r'(?:^\s*|(?<=[\[{,"])\s?)'
    r'(?:(?:\d+: )?stonewalling pairs accessed|Pairs deadlineFor|WARNING:'
    r'|Start time skew across all tasks:|Participating tasks ?:'
    r'|Using reorderTasks|Commencing (?:write|read) performance test:)')


def _decode_json(body):
    """The JSON document of ``body`` (its lines, noise cut; repaired in
    place), and what follows it ignored.

    IOR 4.0.0 with ``-v`` closes a test's ``Results`` list twice (after
    the ``remove`` entry it lists then): a ``]`` line right after another
    is dropped, at most once per test, as IOR 4.1 no longer prints it.

    Raises:
        json.JSONDecodeError: anything else.
    """
    while True:
        try:
            return json.JSONDecoder().raw_decode('\n'.join(body))[0]
        except json.JSONDecodeError as err:
            at = err.lineno - 1
            before = [b for b in body[:at] if b.strip()]
            if (err.msg != "Expecting ',' delimiter" or
                    body[at].strip() != ']' or not before or
                    before[-1].strip() != ']'):
                raise
            body[at] = ''


def _parse_json(text, lines, start, source):
    pairs = []
    pairs_total = None
    body = []
    for line in lines[start:]:
        noise = _JSON_NOISE.search(line)
        if noise is None:
            body.append(line)
            continue

        said = line[noise.start():].strip()
        if m := _PAIRS_RE.match(said):
            pairs.append((int(m.group(1)), int(m.group(2))))
        elif said.startswith('Pairs deadlineForStonewallingaccessed:'):
            pairs_total = _from_line(lambda: int(said.split(':', 1)[1]),
                                     source, len(body) + start + 1,
                                     line.strip(),
                                     'the stonewalling pairs line')
        # Cut, not drop, so that error line numbers still match the text.
        body.append(line[:noise.start()])
    try:
        doc = _decode_json(body)
    except json.JSONDecodeError as err:
        body = '\n'.join(body)
        lineno = start + err.lineno
        bad = lines[lineno - 1].strip() if lineno <= len(lines) else ''
        if err.pos >= len(body.rstrip()):
            lineno, bad = last_line(lines)
            why = 'expected the end of the JSON summary (truncated output)'
        else:
            why = f'expected valid JSON ({err.msg})'
        raise ParseError(source, lineno, bad, why) from None
    try:
        return _json_result(doc, pairs, pairs_total, lines, start, source)
    except _JsonLayout as err:
        raise ParseError(source, start + 1, lines[start].strip(),
                         f'expected {err} in the JSON summary') from None


class _JsonLayout(Exception):
    """A JSON value is not what IOR writes there."""


def _member(obj, key, kind, default=None):
    """``obj[key]`` if ``obj`` is an object and the value a ``kind`` (or
    absent: ``default``); raises :class:`_JsonLayout` naming the key."""
    if not isinstance(obj, dict):
        raise _JsonLayout(f'an object holding {key!r}')
    value = obj.get(key, default)
    # JSON's true and false are Python ints too: never a figure.
    if value is not None and (not isinstance(value, kind) or
                              isinstance(value, bool)):
        raise _JsonLayout(f'{key!r} to be {_KINDS.get(kind, "a value")}, '
                          f'not {value!r}'[:200])
    return value


def _figures(obj, keys):
    """Field -> the figure of ``obj`` under its JSON key in ``keys``."""
    return {field: _member(obj, key, _FIGURE) for field, key in keys.items()}


#: Iteration field -> its key in an entry of IOR's JSON 'Results'.
_JSON_ITERATION = {
    'bw_mib_s': 'bwMiB', 'iops': 'iops', 'latency_s': 'latency',
    'open_s': 'openTime', 'wrrd_s': 'wrRdTime', 'close_s': 'closeTime',
    'total_s': 'totalTime'}
#: OperationSummary field -> its key in an entry of IOR's JSON 'summary'.
_JSON_SUMMARY = {
    'bw_max_mib_s': 'bwMaxMIB', 'bw_min_mib_s': 'bwMinMIB',
    'bw_mean_mib_s': 'bwMeanMIB', 'bw_stddev_mib_s': 'bwStdMIB',
    'ops_max_per_s': 'OPsMax', 'ops_min_per_s': 'OPsMin',
    'ops_mean_per_s': 'OPsMean', 'ops_stddev_per_s': 'OPsSD',
    'mean_time_s': 'MeanTime', 'stonewall_time_s': 'StoneWallTime',
    'stonewall_bw_mib_s': 'StoneWallbwMeanMIB'}
_KINDS = {(int, float): 'a number', int: 'an integer', str: 'a string',
          list: 'a list', dict: 'an object'}
_FIGURE = (int, float)


def _json_result(doc, pairs, pairs_total, lines, start, source):
    if not isinstance(doc, dict):
        raise _JsonLayout('an object')
    if 'Finished' not in doc:
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line,
                         "expected a 'Finished' key in the JSON summary")
    tests = _member(doc, 'tests', list) or []
    if len(tests) != 1:
        raise ParseError(source, start + 1, lines[start].strip(),
                         f'expected one test in the JSON summary, '
                         f'found {len(tests)}')
    test = tests[0]
    iterations = []
    results = _member(test, 'Results', list, [])
    # 3.x nests one list per iteration; 4.x keeps a flat list.
    flat = [(i, r) for i, group in enumerate(results) for r in group] \
        if results and all(isinstance(g, list) for g in results) else \
        [(None, r) for r in results]
    counts = {}
    for rep, r in flat:
        op = _member(r, 'access', str)
        if op not in OPERATIONS:
            continue
        rep = counts.get(op, 0) if rep is None else rep
        counts[op] = rep + 1
        iterations.append(Iteration(operation=op, iteration=rep,
                                    **_figures(r, _JSON_ITERATION)))
    if pairs and len(pairs) == len(iterations):
        iterations = [replace(i, stonewall_pairs_min=lo,
                              stonewall_pairs_max=hi)
                      for i, (lo, hi) in zip(iterations, pairs)]
    max_mb = _member(test, 'max', dict, {})
    ops = {}
    summary = _member(doc, 'summary', list) or []
    for entry in summary:
        op = _member(entry, 'operation', str)
        if op in ops:
            raise ParseError(source, start + 1, lines[start].strip(),
                             f"expected one '{op}' entry in 'summary'")
        ops[op] = OperationSummary(
            operation=op, **_figures(entry, _JSON_SUMMARY),
            bw_max_mb_s=_member(max_mb, f'{op}MB', _FIGURE))
    if not ops:
        raise ParseError(source, start + 1, lines[start].strip(),
                         "expected a 'write' or 'read' entry in 'summary'")
    first = summary[0]
    p = _member(test, 'Parameters', dict, {})
    o = _member(test, 'Options', dict, {})
    params = Parameters(
        api=_member(first, 'API', str),
        tasks=_member(first, 'numTasks', int),
        tasks_per_node=_member(first, 'tasksPerNode', int),
        nodes=_member(o, 'nodes', int, _member(p, 'nodes', int)),
        transfer_size_bytes=_member(first, 'transferSize', int),
        block_size_bytes=_member(first, 'blockSize', int),
        segments=_member(first, 'segmentCount', int),
        file_per_process=bool(first.get('filePerProc')),
        iterations=_member(first, 'repetitions', int),
        stonewall_deadline_s=_member(p, 'deadlineForStonewall', int),
        stonewall_wear_out=(None if 'stoneWallingWearOut' not in p
                            else bool(p['stoneWallingWearOut'])),
        test_file=_member(p, 'testFileName', str),
        command_line=_member(doc, 'Command line', str),
    )
    return Result(version=_member(doc, 'Version', str), output_format='json',
                  params=params, write=ops.get('write'), read=ops.get('read'),
                  iterations=tuple(iterations), stonewall_pairs=pairs_total)


# IOR 4.x CSV -----------------------------------------------------------------

def _parse_csv(lines, start, source):
    names = lines[start].strip().split(',')
    iterations = []
    row = None
    for lineno, line in enumerate(lines[start + 1:], start + 2):
        words = line.strip().split(',')
        if words[0] not in OPERATIONS:
            continue
        if len(words) != len(names):
            raise ParseError(source, lineno, line.strip(),
                             f'expected {len(names)} CSV fields '
                             f'(truncated output?)')
        row = dict(zip(names, words))
        row_line = (lineno, line.strip())
        iterations.append(_from_line(lambda: _iteration_from_csv(row),
                                     source, *row_line, 'the CSV rows'))
    if row is None:
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line,
                         'expected a write or read row under the CSV header')
    return _from_line(lambda: _csv_result(row, iterations), source,
                      *row_line, 'the CSV rows')


def _iteration_from_csv(row):
    return Iteration(
        operation=row['access'], iteration=int(row['iter']),
        bw_mib_s=_number(row['bw(MiB/s)']), iops=_number(row['IOPS']),
        latency_s=_number(row['Latency']), open_s=_number(row['open(s)']),
        wrrd_s=_number(row['wr/rd(s)']), close_s=_number(row['close(s)']),
        total_s=_number(row['total(s)']))


def _csv_result(row, iterations):
    xfer_kib = float(row['xfer(KiB)'])
    ops = {}
    for op in OPERATIONS:
        bws = [i.bw_mib_s for i in iterations if i.operation == op]
        if not bws:
            continue
        bw = _stats(bws)
        # IOR's summary OPs are bandwidth / transfer size (ops_values()).
        ops[op] = OperationSummary(
            op, *bw, *(None if v is None else v * 1024 / xfer_kib
                       for v in bw),
            mean_time_s=_stats(i.total_s for i in iterations
                               if i.operation == op)[2],
            derived=True)
    reps = {i.iteration for i in iterations}
    params = Parameters(
        api=None, tasks=int(row['numTasks']), tasks_per_node=None,
        nodes=None, transfer_size_bytes=int(xfer_kib * 1024),
        block_size_bytes=int(float(row['block(KiB)']) * 1024),
        segments=None, file_per_process=None, iterations=len(reps),
        stonewall_deadline_s=None, stonewall_wear_out=None, test_file=None,
        command_line=None)
    return Result(version=None, output_format='csv', params=params,
                  write=ops.get('write'), read=ops.get('read'),
                  iterations=tuple(iterations))


# IOR 2.10 text ---------------------------------------------------------------

# Summary row of IOR-2.10.3 SummarizeResults(): eight '%10.2f' figures, some
# printed without a separator, then the mean time as '%10.5f'.  Matching on
# the decimals rather than on whitespace also reads copies whose spacing was
# collapsed (seed 002).
_ROW_210 = re.compile(r'^(write|read)\s+' + r'(\d+\.\d\d)\s*' * 8
                      + r'(\d+\.\d{5})(?!\d)')


def _parse_text_210(lines, start, version, source):
    summary = {}
    summary_lines = {}
    rows = {}
    max_lines = {}
    finished = False
    for lineno, line in enumerate(lines[start + 1:], start + 2):
        stripped = line.strip()
        # 'key   = value' (a lazy key before '\s*=' is quadratic in blanks).
        if m := re.match(r'^([a-z][a-z ]*)=(.*)$', stripped):
            summary.setdefault(m.group(1).rstrip(), m.group(2).strip())
            summary_lines.setdefault(m.group(1).rstrip(), (lineno, stripped))
        elif m := _ROW_210.match(stripped):
            if m.group(1) in rows:
                raise ParseError(source, lineno, stripped,
                                 'expected one test per run (IOR scripts '
                                 'with several tests are not supported)')
            rows[m.group(1)] = [float(g) for g in m.groups()[1:]]
        elif m := _MAX_RE.match(stripped):
            max_lines[m.group(1).lower()] = (float(m.group(2)),
                                             float(m.group(3)))
        elif stripped.startswith('Run finished'):
            finished = True
    if not finished:
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line,
                         "expected IOR's 'Run finished' line "
                         "(truncated output)")
    if not max_lines:
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line,
                         "expected a 'Max Write:' or 'Max Read:' line")
    ops = {}
    for op, (mib, mb) in max_lines.items():
        row = rows.get(op)
        figures = row[:9] if row else [mib] + [None] * 8
        ops[op] = OperationSummary(op, *figures, bw_max_mb_s=mb)
    m = re.match(r'(\d+) \((\d+) per node\)', summary.get('clients', ''))
    access = summary.get('access', '')
    api = summary.get('api', '').split(' ')[0] or None
    params = Parameters(
        api=api,
        tasks=int(m.group(1)) if m else None,
        tasks_per_node=int(m.group(2)) if m else None,
        nodes=None,
        transfer_size_bytes=_human_size(summary.get('xfersize')),
        block_size_bytes=_human_size(summary.get('blocksize')),
        segments=None,
        file_per_process=(True if access.startswith('file-per-process')
                          else False if access.startswith('single-shared')
                          else None),
        iterations=_from_line(lambda: _int(summary.get('repetitions')),
                              source,
                              *summary_lines.get('repetitions', (0, '')),
                              'the repetition count'),
        stonewall_deadline_s=None, stonewall_wear_out=None,
        test_file=summary.get('test filename'), command_line=None)
    return Result(version=version, output_format='text-2.10', params=params,
                  write=ops.get('write'), read=ops.get('read'),
                  iterations=())
