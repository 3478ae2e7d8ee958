# SPDX-License-Identifier: BSD-3-Clause
"""Parser for :mod:`pfsbench.streams` output (synchronised dd streams).

Turns the runner's records and each stream's dd statistics into the figures
of seed 001 and the cross-cutting requirements of EXPERIMENTS.md:

- ``aggregate_mb_s``: all bytes over the wall time from the first stream's
  start to the last stream's end (stragglers lower it);
- ``sum_of_streams_mb_s``: the sum of every stream's own rate, which is how
  seed 001 aggregated ("the speeds reported by ALL nodes");
- ``conservative_mb_s``: the slowest stream times the number of streams,
  seed 001's correction for unsynchronised scatter;
- per-node sums, the spread between streams and the measured start skew.
"""

import re
import statistics
from dataclasses import dataclass, field

from pfsbench.errors import ParseError
from pfsbench.parsers import dd
# The runner writes what this module reads: one vocabulary, in the runner.
from pfsbench.streams import PHASES, PREFIX, stream_label

_KV = re.compile(r'(\w+)=(\S+)')
_LABEL = re.compile(r'^(s\d+/[^/\s:]+/(?:write|read)): ')


@dataclass(frozen=True)
class StreamPhase:
    """One stream's write or read."""

    stream: int
    node: str
    phase: str
    start: float
    end: float
    bytes: int
    seconds: float
    bw_mb_s: float


@dataclass(frozen=True)
class PhaseSummary:
    """All streams of one phase (write or read)."""

    phase: str
    streams: int
    bytes: int
    wall_seconds: float
    aggregate_mb_s: float
    sum_of_streams_mb_s: float
    conservative_mb_s: float
    stream_min_mb_s: float
    stream_mean_mb_s: float
    stream_max_mb_s: float
    #: (max - min) / mean of the stream rates, in percent.
    stream_spread_pct: float
    #: node -> sum of that node's stream rates.
    node_mb_s: dict
    node_min_mb_s: float
    node_mean_mb_s: float
    node_max_mb_s: float
    slowest_node: str
    start_skew_s: float


@dataclass(frozen=True)
class StreamsResult:
    streams: int
    tasks: int
    fan_out: int
    cache_defeat: str
    nodes: tuple
    write: PhaseSummary
    read: PhaseSummary
    samples: tuple = field(repr=False)
    drop_caches: tuple = ()


def _summarise(phase, samples):
    rates = [s.bw_mb_s for s in samples]
    nbytes = sum(s.bytes for s in samples)
    starts = [s.start for s in samples]
    wall = max(s.end for s in samples) - min(starts)
    per_node = {}
    for s in samples:
        per_node[s.node] = per_node.get(s.node, 0.0) + s.bw_mb_s

    node_rates = list(per_node.values())
    mean = statistics.fmean(rates)
    return PhaseSummary(
        phase=phase, streams=len(samples), bytes=nbytes,
        wall_seconds=wall,
        aggregate_mb_s=nbytes / wall / 1e6 if wall > 0 else float('inf'),
        sum_of_streams_mb_s=sum(rates),
        conservative_mb_s=min(rates) * len(rates),
        stream_min_mb_s=min(rates), stream_mean_mb_s=mean,
        stream_max_mb_s=max(rates),
        stream_spread_pct=(max(rates) - min(rates)) / mean * 100,
        node_mb_s=per_node,
        node_min_mb_s=min(node_rates),
        node_mean_mb_s=statistics.fmean(node_rates),
        node_max_mb_s=max(node_rates),
        slowest_node=min(per_node, key=per_node.get),
        start_skew_s=max(starts) - min(starts),
    )


def parse(text, source='<text>'):
    """Parse the runner's output.

    Args:
        text: the job's standard output.
        source: the name used in error messages.

    Returns:
        a :class:`StreamsResult`.

    Raises:
        ParseError: a stream failed (quoting dd's own error line), a record
            is missing, or the output ends early.
    """
    header = None
    records = []
    ends = []
    drops = []
    dd_lines = {}
    lines = text.splitlines()
    for lineno, line in enumerate(lines, 1):
        m = _LABEL.match(line)
        if m:
            dd_lines.setdefault(m.group(1), []).append(
                (lineno, line[m.end():]))
            continue

        if not line.startswith(PREFIX):
            continue

        body = line[len(PREFIX):].strip()
        kv = dict(_KV.findall(body))
        if body.startswith('error'):
            raise ParseError(source, lineno, line, 'a stream failed')
        elif body.startswith('begin'):
            header = kv
        elif body.startswith('end'):
            ends.append((lineno, kv))
        elif body.startswith('drop_caches output'):
            continue
        elif body.startswith('drop_caches'):
            if kv.get('exit') != '0':
                raise ParseError(source, lineno, line,
                                 'dropping the page cache failed')
            drops.append(kv['node'])
        elif 'phase' in kv:
            records.append((lineno, kv))

    if header is None:
        raise ParseError(source, 1, lines[0] if lines else '',
                         f"expected a '{PREFIX} begin' line")

    for key in ('streams', 'tasks', 'fan_out', 'cache_defeat'):
        if key not in header:
            raise ParseError(source, 0, f'{PREFIX} begin ...',
                             f'expected {key}= in the begin line')

    nstreams = int(header['streams'])
    samples = {phase: [] for phase in PHASES}
    for lineno, kv in records:
        label = stream_label(int(kv['stream']), kv['node'], kv['phase'])
        output = dd_lines.get(label, [])
        if kv['exit'] != '0':
            # Quote the tool's own error line, not our record.
            bad = next((ln for ln in output if ln[1].startswith('dd: ')),
                       output[-1] if output else (lineno, ''))
            raise ParseError(source, bad[0], bad[1],
                             f'stream {kv["stream"]} {kv["phase"]} exited '
                             f'with {kv["exit"]}')

        stats = dd.parse('\n'.join(ln for _, ln in output),
                         f'{source}[{label}]')
        samples[kv['phase']].append(StreamPhase(
            stream=int(kv['stream']), node=kv['node'], phase=kv['phase'],
            start=float(kv['start']), end=float(kv['end']),
            bytes=stats.bytes, seconds=stats.seconds,
            bw_mb_s=stats.bw_mb_s))

    for phase in PHASES:
        got = len(samples[phase])
        if got != nstreams:
            last = lines[-1] if lines else ''
            raise ParseError(source, len(lines), last,
                             f'expected {nstreams} {phase} records, found '
                             f'{got} (the run ended early?)')

    ntasks = int(header['tasks'])
    failed = [(ln, kv) for ln, kv in ends if kv.get('status') != 'ok']
    if failed:
        ln, _ = failed[0]
        raise ParseError(source, ln, lines[ln - 1], 'a task failed')

    if len(ends) != ntasks:
        raise ParseError(source, len(lines), lines[-1] if lines else '',
                         f'expected {ntasks} end lines, found {len(ends)}')

    every = samples['write'] + samples['read']
    return StreamsResult(
        streams=nstreams, tasks=ntasks, fan_out=int(header['fan_out']),
        cache_defeat=header['cache_defeat'],
        nodes=tuple(sorted({s.node for s in every})),
        write=_summarise('write', samples['write']),
        read=_summarise('read', samples['read']),
        samples=tuple(every), drop_caches=tuple(drops))
