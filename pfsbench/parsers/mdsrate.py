# SPDX-License-Identifier: BSD-3-Clause
"""Parse Lustre's ``mdsrate`` output (E16, seed 004).

mdsrate (lustre-release ``lustre/tests/mpi/mdsrate.c``) runs one operation
(``--create``, ``--stat``, ``--unlink``, ...) per run and rank 0 prints, in
this order (the source's printf formats, commit
``b8afd0dcd3834a88b0ceead18c71d37052a00a8d``)::

    "%d: %s starting at %s"             rank, host name, ctime()
    "Rate: %.2f eff %.2f aggr %.2f avg client %ss/sec "
    "(total: %d threads %d %ss %d dirs %d threads/dir %.2f secs)\\n"
    "%d: %s finished at %s"

``eff`` is all ranks' operations over rank 0's wall time, ``aggr`` the sum
of the ranks' own rates, ``avg client`` all operations over the sum of the
ranks' times.  ``--unlink`` without ``--recreate``/``--ignore`` adds
``Warning: only unlinked %d files instead of %d`` when it removed fewer
files than asked; ``--verbose`` adds per-rank progress lines
(``Rank %d: %.2f %ss/sec %.2f secs (total: %d %ss %.2f secs)``).  A fatal
error prints ``rank %d: <why>`` on stderr and aborts through MPI.

No published mdsrate output was found (tests/data/mdsrate/SOURCES.md): the
patterns follow those formats.  A rate mdsrate could not compute (a zero
interval prints ``inf`` or ``nan``) is None.
"""

import math
import re
from dataclasses import dataclass

from pfsbench.core.errors import ParseError
from pfsbench.parsers.common import (failure_markers, last_line,
                                     raise_on_failure)

_NUM = r'(-?(?:\d+(?:\.\d*)?|inf|nan))'
_RATE_RE = re.compile(
    rf'^Rate: {_NUM} eff {_NUM} aggr {_NUM} avg client (\w+)s/sec '
    rf'\(total: (\d+) threads (\d+) (\w+)s (\d+) dirs (\d+) threads/dir '
    rf'{_NUM} secs\)$')
_STAMP_RE = re.compile(r'^(\d+): (\S+) (starting|finished) at (.+)$')
_WARNING_RE = re.compile(r'^Warning: only unlinked (\d+) files instead of '
                         r'(\d+)$')
_PROGRESS_RE = re.compile(
    rf'^Rank (\d+): {_NUM} (\w+)s/sec {_NUM} secs \(total: (\d+) \w+s '
    rf'{_NUM} secs\)$')
#: mdsrate's fatal(): ``rank N: <why>`` (stderr, if the job merged it).
_FATAL = (re.compile(r'^rank \d+: '), 'mdsrate stopped on a fatal error')
_MARKERS = failure_markers('mdsrate', own=(_FATAL,))


@dataclass(frozen=True)
class Progress:
    """One ``--verbose`` progress line of one rank."""

    rank: int
    ops_per_s: float | None
    interval_s: float | None
    total_ops: int
    elapsed_s: float | None


@dataclass(frozen=True)
class Result:
    """One mdsrate run."""

    #: ``create``, ``stat``, ``unlink``, ``lookup``, ``mknod``, ``open``
    #: or ``setxattr`` (the long option mdsrate ran).
    operation: str
    #: all operations / rank 0's wall time (``eff``).
    effective_ops_per_s: float | None
    #: the sum of every rank's own rate (``aggr``).
    aggregate_ops_per_s: float | None
    #: all operations / the sum of the ranks' times (``avg client``).
    avg_client_ops_per_s: float | None
    #: MPI ranks (mdsrate's "threads").
    threads: int
    #: operations of all ranks.
    total_ops: int
    dirs: int
    threads_per_dir: int
    elapsed_s: float | None
    #: rank 0's host name and its ctime() stamps (None if not printed).
    host: str | None
    started: str | None
    finished: str | None
    #: ``(unlinked, asked)`` when an unlink removed fewer files than asked.
    short_unlink: tuple | None
    progress: tuple


def _number(text):
    value = float(text)
    return value if math.isfinite(value) else None


def parse(text, source='<text>'):
    """Parse one mdsrate run's output.

    Args:
        text: the output (stdout, stderr merged or not).
        source: the name quoted in errors.

    Returns:
        a :class:`Result`.

    Raises:
        ParseError: mdsrate or MPI reported a failure (its line quoted), a
            ``Rate:`` line is malformed or repeated, or the output ends
            before the rate or the ``finished at`` line.
    """
    lines = text.splitlines()
    raise_on_failure(lines, source, 'mdsrate', _MARKERS)

    rate = None
    stamps = {}
    short_unlink = None
    progress = []
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()
        if line.startswith('Rate:'):
            m = _RATE_RE.match(line)
            if not m:
                raise ParseError(source, lineno, line,
                                 "expected mdsrate's 'Rate: R eff R aggr R "
                                 "avg client OPs/sec (total: ...)' line")
            if rate is not None:
                raise ParseError(source, lineno, line,
                                 f'expected one mdsrate run, but a second '
                                 f"'Rate:' line follows line {rate[0]}")
            rate = (lineno, m)
        elif m := _STAMP_RE.match(line):
            stamps.setdefault(m.group(3), (lineno, m))
        elif m := _WARNING_RE.match(line):
            short_unlink = (int(m.group(1)), int(m.group(2)))
        elif m := _PROGRESS_RE.match(line):
            progress.append(Progress(
                int(m.group(1)), _number(m.group(2)), _number(m.group(4)),
                int(m.group(5)), _number(m.group(6))))

    if rate is None:
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line,
                         "expected mdsrate's 'Rate:' line; the output ends "
                         "before it")
    rate_lineno, m = rate
    if m.group(4) != m.group(8):
        raise ParseError(source, rate_lineno, m.group(0),
                         f'expected one operation in the Rate line, got '
                         f'{m.group(4)!r} and {m.group(8)!r}')
    if 'finished' not in stamps or stamps['finished'][0] < rate_lineno:
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line,
                         "expected rank 0's 'N: HOST finished at DATE' line "
                         "after the Rate line; the output ends before it")

    started = stamps.get('starting')
    finished = stamps['finished'][1]
    return Result(
        operation=m.group(4),
        effective_ops_per_s=_number(m.group(1)),
        aggregate_ops_per_s=_number(m.group(2)),
        avg_client_ops_per_s=_number(m.group(3)),
        threads=int(m.group(5)),
        total_ops=int(m.group(6)),
        dirs=int(m.group(9)),
        threads_per_dir=int(m.group(10)),
        elapsed_s=_number(m.group(11)),
        host=finished.group(2),
        started=started[1].group(4) if started else None,
        finished=finished.group(4),
        short_unlink=short_unlink,
        progress=tuple(progress))
