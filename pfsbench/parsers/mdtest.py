# SPDX-License-Identifier: BSD-3-Clause
"""Parse mdtest output into one typed result.

Supported outputs (mdtest 3.3, 4.0 and 4.1 from hpc/ior; see
``docs/parsers-mdtest.md``):

* the ``SUMMARY rate`` table: ``SUMMARY rate:`` (3.3, 4.0) or ``SUMMARY rate
  (in ops/sec):`` (4.1); 3.3 puts a colon after each operation name; 4.x
  adds the ``Directory rename`` row; ``--showRankStatistics`` (4.x) adds
  per-rank Max, Min and Mean columns before the per-iteration ones;
* the ``SUMMARY time`` table that ``-P`` prints after it (and ``-Z``
  instead of it);
* the per-iteration lines that ``-v`` prints from rank 0, which are checked
  against the summary (:func:`disagreements`): the summary has been seen
  to disagree with them (hpc/ior issues 183 and 300);
* the banner (version, tasks, nodes), the echoed command line, the
  ``N tasks, M files/directories`` line, the stonewall lines of ``-W``.

mdtest prints ``0.000`` for a phase it did not run; such a phase has no
summary (``None``) and is listed in :attr:`Result.not_run`.

A failed run raises :class:`~pfsbench.core.errors.ParseError` quoting mdtest's
own ``ERROR`` or ``FAILED`` line, else its assertion failure, else the MPI
or launcher abort; then a run whose phases printed ``WARNING`` lines for
items they could not create, stat, read or remove (mdtest 4.x exits 0
after them); then a run without items, without summary or without its
``-- finished at`` line (truncated output).
"""

import re
import shlex
from dataclasses import dataclass

from pfsbench.core.errors import ParseError
from pfsbench.parsers.common import (failure_markers, last_line,
                                     raise_on_failure)

#: mdtest's phase names -> the names used here, in mdtest's order.
PHASE_NAMES = {
    'Directory creation': 'dir_create',
    'Directory stat': 'dir_stat',
    'Directory rename': 'dir_rename',
    'Directory removal': 'dir_remove',
    'File creation': 'file_create',
    'File stat': 'file_stat',
    'File read': 'file_read',
    'File removal': 'file_remove',
    'Tree creation': 'tree_create',
    'Tree removal': 'tree_remove',
}
PHASES = tuple(PHASE_NAMES.values())
#: Phases that rank 0 runs alone, so its per-iteration lines are the
#: summary's samples in every version.
RANK0_PHASES = ('tree_create', 'tree_remove')


@dataclass(frozen=True)
class PhaseSummary:
    """One phase's rows of the ``SUMMARY rate`` and ``SUMMARY time`` tables.

    Rates are over iterations (4.x) or over tasks and iterations (3.x,
    where each task's rate counts all tasks' items); ``None`` where the
    table or column was not printed.
    """

    phase: str
    max_ops_per_s: float | None
    min_ops_per_s: float | None
    mean_ops_per_s: float | None
    stddev_ops_per_s: float | None
    #: ``--showRankStatistics`` (4.x): each task's own rate, before the
    #: closing barrier.
    rank_max_ops_per_s: float | None = None
    rank_min_ops_per_s: float | None = None
    rank_mean_ops_per_s: float | None = None
    #: ``-P`` / ``-Z``: the phase's duration.  mdtest 4.1 titles the table
    #: ``(in ms/op)``, but prints the phase's elapsed seconds (the ``time``
    #: that its rate divides the items by).
    max_time_s: float | None = None
    min_time_s: float | None = None
    mean_time_s: float | None = None
    stddev_time_s: float | None = None


@dataclass(frozen=True)
class IterationSample:
    """One ``-v`` line: a phase's duration and rate in one iteration, as
    rank 0 printed them.

    mdtest 3.x divides all tasks' items by rank 0's time; 4.x divides rank
    0's own items (one task's rate).  Tree phases are rank 0's alone.
    """

    phase: str
    iteration: int
    duration_s: float
    #: ``None`` where mdtest printed 0 (the phase did not run).
    ops_per_s: float | None


@dataclass(frozen=True)
class StonewallHit:
    """``Continue stonewall hit min: X max: Y avg: Z`` (``-W``): items that
    the tasks had created when the stonewall stopped them."""

    items_min: int
    items_max: int
    items_mean: float


@dataclass(frozen=True)
class Disagreement:
    """A summary figure that mdtest's own per-iteration lines contradict."""

    phase: str
    #: the summary column: ``'max'``, ``'min'`` or ``'mean'``.
    statistic: str
    summary_ops_per_s: float | None
    #: what the per-iteration lines imply for that column (a bound or the
    #: value itself, see ``why``).
    iterations_ops_per_s: float | None
    why: str


@dataclass(frozen=True)
class Result:
    """Everything one mdtest run reported."""

    version: str
    tasks: int
    nodes: int
    command_line: str | None
    #: the command line split into words (mdtest quotes each one).
    command_argv: tuple | None
    #: all tasks' items (files and/or directories), per iteration.
    items: int
    #: ``'files'``, ``'directories'`` or ``'files/directories'``.
    item_kind: str
    iterations: int
    #: the :class:`PhaseSummary` of each phase that ran, in mdtest's order.
    phases: tuple
    #: phases whose summary rows mdtest printed as zeros: not run.
    not_run: tuple
    #: ``-v`` per-iteration lines (:class:`IterationSample`).
    samples: tuple = ()
    #: ``-W``: one :class:`StonewallHit` per iteration.
    stonewall_hits: tuple = ()
    #: ``File create (stonewall)`` row (3.3): the rate over the stonewalled
    #: part only.
    stonewall_create_ops_per_s: float | None = None
    #: summary figures the ``-v`` lines contradict (:class:`Disagreement`).
    disagreements: tuple = ()

    @property
    def items_per_task(self):
        """Items each task handled (mdtest ``-n``, or what ``-I`` makes)."""
        return self.items // self.tasks

    def summary(self, phase):
        """The :class:`PhaseSummary` of ``phase``, or None if not run."""
        if phase not in PHASES:
            raise KeyError(f'mdtest phase {phase!r}: expected one of '
                           f'{PHASES}')
        return next((p for p in self.phases if p.phase == phase), None)

    def samples_of(self, phase):
        """The ``-v`` samples of ``phase``, in iteration order."""
        return tuple(s for s in self.samples if s.phase == phase)


def parse(text, source='<text>'):
    """Parse one mdtest run's stdout (and stderr).

    Args:
        text: the tool's output, as one string.
        source: the name quoted in error messages.

    Returns:
        A :class:`Result`.

    Raises:
        ParseError: mdtest or its launcher failed, an item operation failed,
            no item was run, or the output is truncated or not mdtest's.
    """
    lines = text.splitlines()
    raise_on_failure(lines, source, 'mdtest', _FAILURES,
                     cause=_first_failed_warning)
    _raise_on_failed_items(lines, source)
    for lineno, line in enumerate(lines):
        if m := _BANNER_RE.match(line):
            return _parse_text(lines, lineno, m, source)
    lineno, line = last_line(lines)
    raise ParseError(source, lineno, line,
                     "expected an 'mdtest-<version> was launched with' "
                     "banner")


# Failure detection ----------------------------------------------------------

_FAILURES = failure_markers('mdtest', own=(
    # mdtest 3.3's FAIL(): '<date>: Process N: FAILED in f, message'.
    (re.compile(r'Process \d+: FAILED in '), 'mdtest reported a failure'),
))

# WARNING lines that do not mean an item operation failed (hpc/ior
# src/mdtest.c): the read phase of a run without -e, a file system without
# realpath() (only the 'Path' line suffers), a back-end without rename
# (mdtest then skips that phase).  Every other WARNING fails the run, so an
# unknown one is seen rather than averaged into a rate.
_HARMLESS_WARNINGS = re.compile(
    r'^(?:ior )?WARNING: (?:Read bytes is 0, thus|unable to use realpath\(\)'
    r"|Backend doesn't support rename)")
_WARNING_RE = re.compile(r'^(?:ior )?WARNING:')


def _failed_warnings(lines):
    for lineno, line in enumerate(lines, 1):
        if _WARNING_RE.match(line) and not _HARMLESS_WARNINGS.match(line):
            yield lineno, line.strip()


def _first_failed_warning(lines):
    return next((line for _, line in _failed_warnings(lines)), None)


def _raise_on_failed_items(lines, source):
    """mdtest 4.x warns about each item it could not create, stat, read or
    remove, then prints a summary and exits 0: such rates count failures."""
    failed = list(_failed_warnings(lines))
    if failed:
        lineno, line = failed[0]
        raise ParseError(source, lineno, line,
                         f'expected a completed mdtest run, but mdtest '
                         f'warned of {len(failed)} failed operation(s) '
                         f'(it exits 0 regardless)')


# The text output -----------------------------------------------------------

_BANNER_RE = re.compile(r'^mdtest-(\S+) was launched with (\d+) total '
                        r'task\(s\) on (\d+) node\(s\)')


def starts(text):
    """How many mdtest runs printed their banner in ``text``: one per MPI
    job; N where a launcher started N singletons, each its own rank 0."""
    return sum(1 for line in text.splitlines() if _BANNER_RE.match(line))


_ITEMS_RE = re.compile(r'^(\d+) tasks, (\d+) '
                       r'(files/directories|files|directories)\s*$')
# 'SUMMARY rate:', 'SUMMARY rate (in ops/sec):', 'SUMMARY time:', and the
# untitled 'SUMMARY:' of mdtest 1.9 (a rate).
_SUMMARY_RE = re.compile(r'^SUMMARY(?: (rate|time))?(?: \([^)]*\))?: '
                         r'\(of (\d+) iterations\)')
# A summary row: '   File creation   :   1.0   NA ...'.  Read word by word
# (:func:`_row`), not by one pattern: a pattern with a repeated group of
# numbers backtracks exponentially when a row ends in anything else (text of
# another rank appended to it), and the nightly hangs in its sanity function.
_FIGURE_RE = re.compile(r'NA|-?\d+(?:\.\d+)?')
# '-v': '[V-1: Rank 0 Line n ][V-1: main: ]File stat : 0.001 sec, 5.0
# ops/sec'.
_SAMPLE_RE = re.compile(r'^V-\d.*?\b(?P<name>(?:Directory|File|Tree) '
                        r'[a-z]+)\s*:\s*(?P<sec>\d+(?:\.\d+)?) sec,\s*'
                        r'(?P<rate>\d+(?:\.\d+)?) ops/sec\s*$')
_STONEWALL_RE = re.compile(r'^Continue stonewall hit min: (\d+) max: (\d+) '
                           r'avg: ([\d.]+)')
_STONEWALL_ROW = 'File create (stonewall)'


def _columns(header):
    """Column names of a summary header: 'Max', 'Min', 'Mean', 'Std Dev',
    prefixed 'rank ' after 'per Rank:'."""
    names = []
    prefix = ''
    for word in re.findall(r'per Rank:|per Iteration:|Std Dev|\S+',
                           header.split('Operation', 1)[1]):
        if word in ('per Rank:', 'per Iteration:'):
            prefix = 'rank ' if word == 'per Rank:' else ''
        else:
            names.append(prefix + word)
    return names


def _number(word):
    """'NA' (not measured) stays None, never 0.0."""
    return None if word == 'NA' else float(word)


def _parse_text(lines, start, banner, source):
    tables = {}
    table = None
    columns = None
    command_line = None
    items_line = None
    samples = []
    hits = []
    stonewall_rate = None
    finished = False
    for lineno, line in enumerate(lines[start + 1:], start + 2):
        stripped = line.strip()
        if line.startswith('Command line used:') and command_line is None:
            command_line = line.split(':', 1)[1].strip()
        elif m := _ITEMS_RE.match(line):
            if items_line is not None:
                raise ParseError(source, lineno, stripped,
                                 'expected one test per run (mdtest task '
                                 'sweeps, -f/-l/-s, are not supported)')
            items_line = (lineno, stripped, m)
        elif m := _SUMMARY_RE.match(line):
            kind = m.group(1) or 'rate'
            if kind in tables:
                raise ParseError(source, lineno, stripped,
                                 f'expected one SUMMARY {kind} table')
            table = tables[kind] = {'iterations': int(m.group(2)),
                                    'rows': {}}
            columns = None
        elif line.startswith('-- finished at'):
            finished = True
            table = None
        elif table is not None and not stripped:
            table = None
        elif table is not None and stripped.startswith('Operation'):
            columns = _columns(stripped)
        elif table is not None and columns and (found := _row(line)):
            name, values = found
            row = _table_row(name, values, columns, lineno, stripped, source)
            if name == _STONEWALL_ROW:
                # 3.3 only; its one figure is in the Mean column.
                stonewall_rate = row.get('Mean')
            else:
                table['rows'][PHASE_NAMES[name]] = row
        elif m := _SAMPLE_RE.match(line):
            if m.group('name') in PHASE_NAMES:
                samples.append(m)
        elif m := _STONEWALL_RE.match(line):
            hits.append(StonewallHit(int(m.group(1)), int(m.group(2)),
                                     float(m.group(3))))
    if not finished:
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line,
                         "expected mdtest's '-- finished at' line "
                         "(truncated output)")
    if items_line is None:
        raise ParseError(source, start + 1, lines[start].strip(),
                         "expected a 'N tasks, M files/directories' line")
    lineno, items_text, items_m = items_line
    tasks, items = int(items_m.group(1)), int(items_m.group(2))
    if items == 0:
        raise ParseError(source, lineno, items_text,
                         'expected at least one item (mdtest -n or -I): '
                         'without, mdtest runs no file or directory phase')
    if not any(t['rows'] for t in tables.values()):
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line,
                         "expected a 'SUMMARY rate' table with at least "
                         "one operation row")
    iterations = next(iter(tables.values()))['iterations']
    phases, not_run = _phase_summaries(tables)
    version = banner.group(1)
    result_samples = _samples(samples)
    return Result(
        version=version,
        tasks=tasks,
        nodes=int(banner.group(3)),
        command_line=command_line,
        command_argv=_split(command_line),
        items=items,
        item_kind=items_m.group(3),
        iterations=iterations,
        phases=phases,
        not_run=not_run,
        samples=result_samples,
        stonewall_hits=tuple(hits),
        stonewall_create_ops_per_s=stonewall_rate,
        disagreements=disagreements(version, tasks, iterations, phases,
                                    result_samples))


def _row(line):
    """``(name, figures)`` of a line of a summary table, None for a line
    that is not indented (another program's) or only dashes.

    The name is the words before the first figure (or the ':' of 3.3), the
    figures every word after it, whatever they are: a row with text
    appended, or cut short, is refused by :func:`_table_row`, not skipped.
    """
    if not line[:1].isspace() or not line.strip(' -\t'):
        return None
    words = line.split()
    names = []
    for word in words:
        if word == ':' or _FIGURE_RE.fullmatch(word):
            break
        names.append(word)
    values = words[len(names):]
    if values[:1] == [':']:
        values = values[1:]
    return ' '.join(names), values


def _table_row(name, values, columns, lineno, line, source):
    expected = f'{len(columns)} figures ({", ".join(columns)})'
    if name not in PHASE_NAMES and name != _STONEWALL_ROW:
        if values and all(_FIGURE_RE.fullmatch(v) for v in values):
            raise ParseError(source, lineno, line,
                             f'expected an mdtest operation '
                             f'({", ".join(PHASE_NAMES)})')
        raise ParseError(source, lineno, line,
                         f'expected a summary row: an mdtest operation '
                         f'and {expected}')
    if len(values) != len(columns) or not all(_FIGURE_RE.fullmatch(v)
                                              for v in values):
        raise ParseError(source, lineno, line,
                         f'expected {expected} after {name!r}')
    return {column: _number(v) for column, v in zip(columns, values)}


def _phase_summaries(tables):
    rates = tables.get('rate', {'rows': {}})['rows']
    times = tables.get('time', {'rows': {}})['rows']
    phases = []
    not_run = []
    for phase in PHASES:
        rate = rates.get(phase, {})
        time = times.get(phase, {})
        if not (rate or time):
            continue
        if not any(rate.values()) and not any(time.values()):
            not_run.append(phase)
            continue
        phases.append(PhaseSummary(
            phase,
            rate.get('Max'), rate.get('Min'), rate.get('Mean'),
            rate.get('Std Dev'),
            rank_max_ops_per_s=rate.get('rank Max'),
            rank_min_ops_per_s=rate.get('rank Min'),
            rank_mean_ops_per_s=rate.get('rank Mean'),
            max_time_s=time.get('Max'), min_time_s=time.get('Min'),
            mean_time_s=time.get('Mean'),
            stddev_time_s=time.get('Std Dev')))
    return tuple(phases), tuple(not_run)


def _samples(matches):
    """The k-th line of a phase belongs to iteration k: mdtest prints each
    phase once per iteration (3.3 and 4.0 print no iteration marker)."""
    seen = {}
    samples = []
    for m in matches:
        phase = PHASE_NAMES[m.group('name')]
        iteration = seen.get(phase, 0)
        seen[phase] = iteration + 1
        rate = float(m.group('rate'))
        samples.append(IterationSample(phase, iteration, float(m.group('sec')),
                                       rate or None))
    return tuple(samples)


def _split(command_line):
    if command_line is None:
        return None
    try:
        return tuple(shlex.split(command_line))
    except ValueError:
        return None


# Summary against per-iteration lines -----------------------------------------

def disagreements(version, tasks, iterations, phases, samples):
    """Summary figures that mdtest's own ``-v`` lines contradict.

    What the lines imply differs by version (hpc/ior src/mdtest.c):

    * tree phases (rank 0 alone, every version): the summary's Max, Min
      and Mean are those of the lines;
    * 3.x: every task's rate is a sample of the summary, rank 0's among
      them, so each line lies within [Min, Max];
    * 4.x: an iteration's figure is ``tasks x`` the slowest task's rate,
      so Max and Min are at most ``tasks x`` the highest and lowest rate
      rank 0 printed (equal with one task).

    Args:
        version: mdtest's version (``'3.3.0'``, ``'4.1.0+dev'``).
        tasks: the run's task count.
        iterations: the summary's iteration count.
        phases: the :class:`PhaseSummary` tuple.
        samples: the :class:`IterationSample` tuple (empty without ``-v``).

    Returns:
        a tuple of :class:`Disagreement`, empty where all agree or no
        per-iteration line was printed.
    """
    if not samples:
        return ()
    major = int(re.match(r'\d+', version).group(0))
    found = []
    for summary in phases:
        if summary.max_ops_per_s is None:
            continue
        rates = [s.ops_per_s or 0.0
                 for s in samples if s.phase == summary.phase]
        if not rates:
            continue
        if len(rates) != iterations:
            found.append(Disagreement(
                summary.phase, 'count', None, None,
                f'{len(rates)} per-iteration line(s) for a summary of '
                f'{iterations} iteration(s)'))
        elif summary.phase in RANK0_PHASES:
            found += _equal(summary, rates)
        elif major < 4:
            found += _within(summary, rates)
        else:
            found += _bounded(summary, [r * tasks for r in rates], tasks)
    return tuple(found)


# mdtest prints three decimals: two figures rounded apart may differ by
# 0.001 (scaled by the task count where a figure is multiplied by it).
def _close(a, b, scale=1):
    return abs(a - b) <= 0.001 * scale + 1e-9 * abs(b)


def _equal(summary, rates):
    found = []
    expected = (('max', summary.max_ops_per_s, max(rates)),
                ('min', summary.min_ops_per_s, min(rates)),
                ('mean', summary.mean_ops_per_s, sum(rates) / len(rates)))
    for statistic, value, implied in expected:
        if not _close(value, implied):
            found.append(Disagreement(
                summary.phase, statistic, value, implied,
                f'rank 0 runs this phase alone, so the summary {statistic} '
                f'is that of its per-iteration lines'))
    return found


def _within(summary, rates):
    found = []
    for rate in rates:
        low, high = summary.min_ops_per_s, summary.max_ops_per_s
        if rate < low and not _close(rate, low):
            found.append(Disagreement(
                summary.phase, 'min', low, rate,
                "rank 0's per-iteration rate is below the summary's Min, "
                'which is taken over every task and iteration'))
        if rate > high and not _close(rate, high):
            found.append(Disagreement(
                summary.phase, 'max', high, rate,
                "rank 0's per-iteration rate is above the summary's Max, "
                'which is taken over every task and iteration'))
    return found


def _bounded(summary, bounds, tasks):
    found = []
    for statistic, value, bound in (('max', summary.max_ops_per_s,
                                     max(bounds)),
                                    ('min', summary.min_ops_per_s,
                                     min(bounds))):
        exceeds = value > bound and not _close(value, bound, tasks)
        below_single = (tasks == 1 and value < bound
                        and not _close(value, bound))
        if exceeds or below_single:
            found.append(Disagreement(
                summary.phase, statistic, value, bound,
                f'the summary {statistic} must be at most {tasks} task(s) '
                f"x rank 0's per-iteration rate (the slowest task sets "
                f'it){" and equal with one task" if tasks == 1 else ""}'))
    return found
