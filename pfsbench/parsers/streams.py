# SPDX-License-Identifier: BSD-3-Clause
"""Parser for :mod:`pfsbench.runner` output: synchronised streams of any
tool.

The runner labels each stream's tool output per phase; a tool adapter (the
tool's own parser module) turns one stream-phase's output into
:class:`Measure` records, and this module turns the runner's records and
those measures into the figures of seed 001 and the cross-cutting
requirements of EXPERIMENTS.md, per phase (per measure):

- ``aggregate_mb_s``: all bytes over the wall time from the first stream's
  start to the last stream's end (stragglers lower it);
- ``sum_of_streams_mb_s``: the sum of every stream's own rate, which is how
  seed 001 aggregated ("the speeds reported by ALL nodes");
- ``conservative_mb_s``: the slowest stream times the number of streams,
  seed 001's correction for unsynchronised scatter;
- ``trimmed_mb_s``: seed 001's trimming of questionable bonnie points
  (:func:`pfsbench.core.aggregate.trimmed`), beside the others;
- per-node sums (min, mean, max, the slowest node named), the spread between
  streams and the measured start skew.

Repeats: a phase named ``<phase>_r<N>`` (N >= 2) is the N-th repeat of
``<phase>`` (the source averaged 3 runs); its tool output is read as the
phase's, and every figure of a measure is the mean over its repeats
(:func:`pfsbench.core.aggregate.mean_over_repeats`; the conservative aggregate
is so seed 001's: the lowest stream of each repeat, averaged, times the
streams), with the spread of the sum between repeats and the largest start
skew of any repeat.

A tool adapter is a module with ``stream_measures(text, source, phase)``
returning a tuple of :class:`Measure` (dd and fio: one, named after the
phase; a tool that reports several figures in one run, as bonnie++, returns
one each).  A measure's rate is in MB/s unless it names another unit
(bonnie++'s seeks: ``/s``); the ``*_mb_s`` figures of its summary are then
in that unit.  A rate the tool could not measure (bonnie++'s ``+++++``) is
``None``: every figure that needs it is ``None`` too (never 0), and the
slowest node is named among the nodes with figures.
"""

import importlib
import os
import re
from dataclasses import dataclass, field
from typing import Optional

from pfsbench.core import aggregate, tools
from pfsbench.core.errors import ParseError
# The runner writes what this module reads: one vocabulary, in the runner.
from pfsbench.runner import (LABELLED_LINE, PREFIX, stream_label,
                             tool_error_line)

_KV = re.compile(r'(\w+)=(\S+)')
_SECONDS = r'\d+(?:\.\d+)?'
#: What the runner writes in each line of a kind, checked before use: a line
#: of a dying job, or another rank's text in it, is a ParseError quoting it.
_FIELDS = {
    'begin': {'streams': r'\d+', 'tasks': r'\d+', 'fan_out': r'\d+'},
    'record': {'stream': r'\d+', 'node': r'\S+', 'phase': r'\S+',
               'start': _SECONDS, 'end': _SECONDS, 'exit': r'-?\d+'},
    'drop_caches': {'node': r'\S+', 'exit': r'-?\d+'},
}
#: ``<phase>_r<N>``: the N-th repeat of a phase.
_REPEAT = re.compile(r'^(?P<phase>[a-z][a-z0-9_]*?)_r(?P<repeat>[2-9]|'
                     r'[1-9]\d+)$')


@dataclass(frozen=True)
class Measure:
    """One figure a tool reported for one stream's phase.

    ``name`` is the phase's (``write``), or the tool's own part of a phase
    that reports several; ``bytes`` and ``seconds`` are ``None`` where the
    tool reports only a rate (then no aggregate over wall time exists);
    ``bw_mb_s`` is ``None`` where the tool could not measure the rate, and
    in ``unit`` where that is not MB/s.
    """

    name: str
    bytes: Optional[int]
    seconds: Optional[float]
    bw_mb_s: Optional[float]
    unit: str = 'MB/s'


@dataclass(frozen=True)
class StreamSample:
    """One stream's measure in one phase, with the runner's timing."""

    stream: int
    node: str
    phase: str
    name: str
    start: float
    end: float
    bytes: Optional[int]
    seconds: Optional[float]
    bw_mb_s: Optional[float]
    #: 1, or N for a ``<phase>_r<N>`` phase.
    repeat: int = 1


@dataclass(frozen=True)
class PhaseSummary:
    """All streams of one measure (a phase, for dd and fio).

    The rates are in ``unit``; each is None where a stream's rate it needs
    was not measured.
    """

    phase: str
    streams: int
    bytes: Optional[int]
    wall_seconds: float
    aggregate_mb_s: Optional[float]
    sum_of_streams_mb_s: Optional[float]
    conservative_mb_s: Optional[float]
    stream_min_mb_s: Optional[float]
    stream_mean_mb_s: Optional[float]
    stream_max_mb_s: Optional[float]
    #: (max - min) / mean of the stream rates, in percent.
    stream_spread_pct: Optional[float]
    #: node -> sum of that node's stream rates.
    node_mb_s: dict
    node_min_mb_s: Optional[float]
    node_mean_mb_s: Optional[float]
    node_max_mb_s: Optional[float]
    #: the node with the lowest rate ('' when no node has one).
    slowest_node: str
    start_skew_s: float
    #: seed 001's trimmed aggregate (:func:`pfsbench.core.aggregate.trimmed`).
    trimmed_mb_s: Optional[float] = None
    unit: str = 'MB/s'
    #: Repeats averaged, and (max - min) / mean of the sum of streams
    #: between them, in percent (None with one repeat).
    repeats: int = 1
    repeat_spread_pct: Optional[float] = None


@dataclass(frozen=True)
class StreamsResult:
    """A whole streams run; ``result.write`` is ``summaries['write']``."""

    streams: int
    tasks: int
    fan_out: int
    cache_defeat: str
    nodes: tuple
    #: phase names, in the order they ran.
    phases: tuple
    #: measure name -> :class:`PhaseSummary`, in the order they ran.
    summaries: dict
    samples: tuple = field(repr=False)
    drop_caches: tuple = ()
    #: the coordinator's counters (``rounds``, ``messages_in``, ...).
    barrier: dict = field(default_factory=dict)

    def __getattr__(self, name):
        summaries = self.__dict__.get('summaries') or {}
        if name in summaries:
            return summaries[name]

        raise AttributeError(name)


def summarise(name, samples, unit):
    """The figures of one measure over its streams (one run).

    Args:
        name: the measure's name.
        samples: its :class:`StreamSample` of every stream.
        unit: the rates' unit.

    Returns:
        a :class:`PhaseSummary`.
    """
    rates = [s.bw_mb_s for s in samples]
    sizes = [s.bytes for s in samples]
    nbytes = None if None in sizes else sum(sizes)
    starts = [s.start for s in samples]
    wall = max(s.end for s in samples) - min(starts)
    by_node = {}
    for s in samples:
        by_node.setdefault(s.node, []).append(s.bw_mb_s)

    per_node = {node: aggregate.plain_sum(node_rates)
                for node, node_rates in by_node.items()}
    node_rates = list(per_node.values())
    aggregate_mb_s = None
    if nbytes is not None:
        aggregate_mb_s = nbytes / wall / 1e6 if wall > 0 else float('inf')
    return PhaseSummary(
        phase=name, streams=len(samples), bytes=nbytes,
        wall_seconds=wall, aggregate_mb_s=aggregate_mb_s,
        sum_of_streams_mb_s=aggregate.plain_sum(rates),
        conservative_mb_s=aggregate.conservative([rates]),
        trimmed_mb_s=aggregate.trimmed(rates),
        stream_min_mb_s=_known(min, rates),
        stream_mean_mb_s=aggregate.mean(rates),
        stream_max_mb_s=_known(max, rates),
        stream_spread_pct=aggregate.spread_pct(rates),
        node_mb_s=per_node,
        node_min_mb_s=_known(min, node_rates),
        node_mean_mb_s=aggregate.mean(node_rates),
        node_max_mb_s=_known(max, node_rates),
        slowest_node=aggregate.slowest(per_node) or '',
        start_skew_s=max(starts) - min(starts),
        unit=unit,
    )


#: The figures of a summary that are averaged over repeats.
_MEAN_FIELDS = ('bytes', 'wall_seconds', 'aggregate_mb_s',
                'sum_of_streams_mb_s', 'conservative_mb_s', 'trimmed_mb_s',
                'stream_min_mb_s', 'stream_mean_mb_s', 'stream_max_mb_s',
                'stream_spread_pct', 'node_min_mb_s', 'node_mean_mb_s',
                'node_max_mb_s')


def _over_repeats(name, samples, unit):
    """One measure's summary: of its one run, or the mean over its
    repeats (each repeat summarised alone first)."""
    by_repeat = {}
    for s in samples:
        by_repeat.setdefault(s.repeat, []).append(s)

    runs = [summarise(name, group, unit)
            for _, group in sorted(by_repeat.items())]
    if len(runs) == 1:
        return runs[0]

    nodes = runs[0].node_mb_s
    per_node = {node: aggregate.mean_over_repeats(
        [r.node_mb_s.get(node) for r in runs]) for node in nodes}
    means = {f: aggregate.mean_over_repeats([getattr(r, f) for r in runs])
             for f in _MEAN_FIELDS}
    if means['bytes'] is not None:
        means['bytes'] = round(means['bytes'])
    return PhaseSummary(
        phase=name, streams=runs[0].streams, node_mb_s=per_node,
        slowest_node=aggregate.slowest(per_node) or '',
        start_skew_s=max(r.start_skew_s for r in runs), unit=unit,
        repeats=len(runs),
        repeat_spread_pct=aggregate.spread_pct(
            [r.sum_of_streams_mb_s for r in runs]),
        **means)


def _known(function, values):
    """``function(values)``, or None if a value is missing."""
    return None if None in values else function(values)


class _Output:
    """The runner's output, sorted into its kinds of line."""

    def __init__(self, text):
        self.lines = text.splitlines()
        self.header = None
        self.commands = {}
        self.records = []
        self.stream_ends = []
        self.task_ends = []
        self.drops = []
        self.failed_drops = []
        self.errors = []
        self.aborts = []
        self.malformed = []
        self.barrier = {}
        #: label -> [(lineno, tool line), ...]
        self.tool_lines = {}
        for lineno, line in enumerate(self.lines, 1):
            self._add(lineno, line)

    def _add(self, lineno, line):
        m = LABELLED_LINE.match(line)
        if m:
            self.tool_lines.setdefault(m.group(1), []).append(
                (lineno, line[m.end():]))
            return

        if not line.startswith(PREFIX):
            return

        body = line[len(PREFIX):].strip()
        kind = body.split(' ', 1)[0]
        kv = dict(_KV.findall(body))
        wrong = _wrong_fields(kind, kv)
        if wrong:
            self.malformed.append((lineno, ', '.join(f'{k}=' for k in wrong)))
            return
        if kind == 'begin':
            self.header = (lineno, kv)
        elif kind == 'phase':
            self.commands[kv.get('name')] = body.partition('command=')[2]
        elif kind == 'barrier':
            self.barrier = {k: int(v) for k, v in kv.items()
                            if v.isdigit()}
        elif kind == 'end':
            self.task_ends.append((lineno, kv))
        elif kind == 'abort':
            self.aborts.append(lineno)
        elif kind == 'error':
            self.errors.append(lineno)
        elif kind == 'drop_caches' and 'exit' in kv:
            if kv['exit'] != '0':
                self.failed_drops.append(lineno)
            self.drops.append(kv['node'])
        elif 'phase' in kv:
            self.records.append((lineno, kv))
        elif 'status' in kv:
            self.stream_ends.append((lineno, kv))

    def tool_output(self, kv):
        label = stream_label(int(kv['stream']), kv['node'], kv['phase'])
        return label, self.tool_lines.get(label, [])

    def program(self, phase):
        words = self.commands.get(phase, '').split()
        return os.path.basename(words[0]) if words else ''


def _wrong_fields(kind, kv):
    """The fields of a runner line that are missing or not in the runner's
    form.  A begin line's missing ones are named later, one by one; a
    drop_caches line without ``exit=`` is its output, not its record."""
    if kind == 'drop_caches' and 'exit' not in kv:
        return []
    if kind not in _FIELDS and 'phase' in kv:
        kind = 'record'
    return [k for k, form in _FIELDS.get(kind, {}).items()
            if (k in kv or kind != 'begin') and not (
                kv.get(k, '').isascii() and re.fullmatch(form, kv.get(k, '')))]


def _first_failure(out, source):
    """The ParseError of the run's first failure, or None.

    The failing stream's own tool line is quoted, never a stopped peer's or
    the abort that followed.
    """
    failures = []
    for lineno in out.errors:
        failures.append((lineno, ParseError(source, lineno,
                                            out.lines[lineno - 1],
                                            'a stream failed')))
    for lineno in out.failed_drops:
        failures.append((lineno, ParseError(
            source, lineno, out.lines[lineno - 1],
            'dropping the page cache failed')))
    for lineno, kv in out.records:
        if kv['exit'] == '0' or kv.get('stopped') == '1':
            continue

        _, output = out.tool_output(kv)
        quoted = tool_error_line(out.program(kv['phase']),
                                 [text for _, text in output])
        bad = next(((n, t.strip()) for n, t in output
                    if t.strip() == quoted), (lineno, out.lines[lineno - 1]))
        failures.append((lineno, ParseError(
            source, bad[0], bad[1], f'stream {kv["stream"]} {kv["phase"]} '
                                    f'exited with {kv["exit"]}')))
    if failures:
        return min(failures, key=lambda f: f[0])[1]

    if out.aborts:
        lineno = out.aborts[0]
        return ParseError(source, lineno, out.lines[lineno - 1],
                          'the streams were stopped')

    return None


def _adapter(out, source):
    programs = {out.program(phase) for phase in out.commands}
    # The tool adapters by program name (pfsbench.core.tools), for output
    # parsed without a ``tool``.
    adapters = tools.stream_adapters()
    if len(programs) == 1 and next(iter(programs)) in adapters:
        return importlib.import_module(adapters[programs.pop()])

    raise ParseError(source, out.header[0], out.lines[out.header[0] - 1],
                     f'no parser for the phase commands '
                     f'({", ".join(sorted(programs))}); pass tool=')


def parse(text, source='<text>', tool=None):
    """Parse the runner's output.

    Args:
        text: the job's standard output.
        source: the name used in error messages.
        tool: the tool adapter (a parser module with ``stream_measures``);
            default: the one for the phases' program (dd, fio).

    Returns:
        a :class:`StreamsResult`.

    Raises:
        ParseError: a stream failed (quoting its tool's own error line),
            the run was stopped, a record is missing, or the output ends
            early.
    """
    out = _Output(text)
    failure = _first_failure(out, source)
    if failure is not None:
        raise failure
    if out.malformed:
        lineno, fields = out.malformed[0]
        raise ParseError(source, lineno, out.lines[lineno - 1],
                         f"expected the runner's {fields} in this line")

    lines = out.lines
    if out.header is None:
        raise ParseError(source, 1, lines[0] if lines else '',
                         f"expected a '{PREFIX} begin' line")

    header = out.header[1]
    for key in ('streams', 'tasks', 'fan_out', 'cache_defeat', 'phases'):
        if key not in header:
            raise ParseError(source, out.header[0], lines[out.header[0] - 1],
                             f'expected {key}= in the begin line')

    tool = tool or _adapter(out, source)
    nstreams = int(header['streams'])
    phases = tuple(header['phases'].split(','))
    measured = {}
    units = {}
    for lineno, kv in out.records:
        label, output = out.tool_output(kv)
        repeat = _REPEAT.match(kv['phase'])
        for measure in tool.stream_measures(
                '\n'.join(text for _, text in output), f'{source}[{label}]',
                repeat.group('phase') if repeat else kv['phase']):
            units[measure.name] = measure.unit
            measured.setdefault(measure.name, []).append(StreamSample(
                stream=int(kv['stream']), node=kv['node'], phase=kv['phase'],
                name=measure.name, start=float(kv['start']),
                end=float(kv['end']), bytes=measure.bytes,
                seconds=measure.seconds, bw_mb_s=measure.bw_mb_s,
                repeat=int(repeat.group('repeat')) if repeat else 1))

    last = lines[-1] if lines else ''
    for phase in phases:
        got = sum(1 for _, kv in out.records if kv['phase'] == phase)
        if got != nstreams:
            raise ParseError(source, len(lines), last,
                             f'expected {nstreams} {phase} records, found '
                             f'{got} (the run ended early?)')

    ntasks = int(header['tasks'])
    failed = [(ln, kv) for ln, kv in out.task_ends
              if kv.get('status') != 'ok']
    if failed:
        ln, _ = failed[0]
        raise ParseError(source, ln, lines[ln - 1], 'a task failed')

    if len(out.task_ends) != ntasks:
        raise ParseError(source, len(lines), last,
                         f'expected {ntasks} end lines, found '
                         f'{len(out.task_ends)}')

    samples = tuple(s for group in measured.values() for s in group)
    return StreamsResult(
        streams=nstreams, tasks=ntasks, fan_out=int(header['fan_out']),
        cache_defeat=header['cache_defeat'],
        nodes=tuple(sorted({s.node for s in samples})),
        phases=phases,
        summaries={name: _over_repeats(name, group, units[name])
                   for name, group in measured.items()},
        samples=samples, drop_caches=tuple(out.drops), barrier=out.barrier)


def for_tool(tool):
    """A parser object for one tool's streams (``parse(text, source)``),
    as checks and the CLI call parsers.

    Args:
        tool: the tool adapter module.

    Returns:
        an object with ``parse(text, source)`` and a ``__name__``.
    """
    return _ToolStreams(tool)


class _ToolStreams:
    def __init__(self, tool):
        self.tool = tool
        self.__name__ = f'{__name__}[{tool.__name__}]'

    def parse(self, text, source='<text>'):
        return parse(text, source, tool=self.tool)
