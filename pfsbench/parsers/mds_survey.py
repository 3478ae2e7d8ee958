# SPDX-License-Identifier: BSD-3-Clause
"""Parse lustre-iokit ``mds-survey`` output (E13, seed 003).

The script (lustre-release ``lustre-iokit/mds-survey/mds-survey``) prints
to stdout and to ``${rslt}.summary`` one row per thread count of its sweep:
``printf 'mdt %1d file %7d dir %4d thr %4d '``, then for each test
``<test> %7.2f [%7.2f,%7.2f]`` (the aggregate rate over all MDTs, then the
lowest and highest instantaneous rate seen on any one MDT), or
``<test>`` followed by ``ERROR`` right-aligned in 17 columns where the test
failed.  The first test is always ``create`` and the last ``destroy`` (the
script refuses other orders), so a row that does not end in ``destroy`` was
cut short.

``file`` is the total over all threads: the script gives each thread
``file_count / thr`` files, although its README and the Lustre manual call
it a per-thread count.

Failures of the script itself (no MDT found, directory creation failed)
raise :class:`~pfsbench.core.errors.ParseError` quoting its line; a failed test
is kept as a rate of ``None`` (:attr:`SurveyRate.failed`) so that the other
tests of the sweep still count.
"""

import re
from dataclasses import dataclass

from pfsbench.core.errors import ParseError
from pfsbench.parsers.common import last_line
from pfsbench.commands.mds_survey import DEFAULT_TESTS  # noqa: F401


@dataclass(frozen=True)
class SurveyRate:
    """One test of one row."""

    test: str
    #: total operations over all MDTs / elapsed time; None if ERROR.
    ops_per_s: float | None
    #: lowest and highest instantaneous rate on any one MDT.
    min_ops_per_s: float | None
    max_ops_per_s: float | None

    @property
    def failed(self):
        """The script printed ERROR for this test."""
        return self.ops_per_s is None


@dataclass(frozen=True)
class Row:
    """One thread count of the sweep."""

    mdts: int
    #: files over all threads (see the module docstring).
    files: int
    dirs: int
    threads: int
    #: :class:`SurveyRate` per test, in the order the script ran them.
    rates: tuple

    def rate(self, test):
        """The :class:`SurveyRate` of ``test``, or None if not run."""
        return next((r for r in self.rates if r.test == test), None)


@dataclass(frozen=True)
class Result:
    """One mds-survey sweep."""

    #: :class:`Row` per thread count, in the order printed.
    rows: tuple

    @property
    def tests(self):
        """The tests run, in order."""
        return tuple(r.test for r in self.rows[0].rates)

    @property
    def failed(self):
        """``(threads, test)`` of every test that printed ERROR."""
        return tuple((row.threads, r.test) for row in self.rows
                     for r in row.rates if r.failed)

    def rate(self, test, threads):
        """The :class:`SurveyRate` of ``test`` at ``threads``, or None."""
        row = next((r for r in self.rows if r.threads == threads), None)
        return row.rate(test) if row else None


@dataclass(frozen=True)
class Change:
    """One test's rate in two surveys of the same shape (seed 003's
    'hdd to nvme (%)' table)."""

    test: str
    threads: int
    before_ops_per_s: float
    after_ops_per_s: float
    #: (after - before) / before, in %; None where ``before`` is 0.
    percent: float | None


_ROW_RE = re.compile(r'^mdt\s+(\d+)\s+file\s+(\d+)\s+dir\s+(\d+)\s+'
                     r'thr\s+(\d+)\b(.*)$')
_CELL_RE = re.compile(r'\s*([a-z_]+)\s+(?:(\d+\.\d+)\s*\[\s*(\d+\.\d+),'
                      r'\s*(\d+\.\d+)\]|(ERROR))')
# The script's own failures (its echo lines and its stderr).
_FAILURE_RE = re.compile(r"^(?:Can't find any MDT|Need obdfilter|First test "
                         r"must be|no devices or hosts|ERROR:)"
                         r"|^created directories on .* failed$")


def parse(text, source='<text>'):
    """Parse mds-survey's stdout (or its ``.summary`` file).

    Args:
        text: the script's output, as one string.
        source: the name quoted in error messages.

    Returns:
        A :class:`Result`.

    Raises:
        ParseError: the script failed, a row is cut short or malformed, or
            no row was printed.
    """
    lines = text.splitlines()
    rows = []
    for lineno, line in enumerate(lines, 1):
        stripped = line.strip()
        if _FAILURE_RE.search(stripped):
            raise ParseError(source, lineno, stripped,
                             'expected a completed mds-survey run, but the '
                             'script failed')
        if m := _ROW_RE.match(stripped):
            rows.append(_row(m, lineno, stripped, source))
    if not rows:
        lineno, line = last_line(lines)
        raise ParseError(source, lineno, line,
                         "expected an 'mdt N file N dir N thr N' row")
    return Result(rows=tuple(rows))


def _row(m, lineno, line, source):
    rest = m.group(5)
    rates = []
    pos = 0
    while rest[pos:].strip():
        cell = _CELL_RE.match(rest, pos)
        if not cell:
            raise ParseError(source, lineno, line,
                             f"expected '<test> RATE [MIN,MAX]' or '<test> "
                             f"ERROR' at {rest[pos:].strip()!r}")
        name, *figures, _ = cell.groups()
        rates.append(SurveyRate(name, *(None if v is None else float(v)
                                        for v in figures)))
        pos = cell.end()
    if not rates or rates[-1].test != 'destroy':
        raise ParseError(source, lineno, line,
                         "expected the row to end with the 'destroy' test "
                         "(truncated output)")
    return Row(int(m.group(1)), int(m.group(2)), int(m.group(3)),
               int(m.group(4)), tuple(rates))


def percent_change(before, after):
    """Each test's change in rate from one survey to another.

    Rows are paired by MDT, file, directory and thread counts (a survey of
    another shape measures something else); tests that failed in either
    are left out.

    Args:
        before: the stored :class:`Result`.
        after: the new :class:`Result`.

    Returns:
        a tuple of :class:`Change`, in ``after``'s row and test order.
    """
    shape = {(r.mdts, r.files, r.dirs, r.threads): r for r in before.rows}
    changes = []
    for row in after.rows:
        old_row = shape.get((row.mdts, row.files, row.dirs, row.threads))
        if old_row is None:
            continue
        for new in row.rates:
            old = old_row.rate(new.test)
            if old is None or old.failed or new.failed:
                continue
            percent = (None if old.ops_per_s == 0 else
                       (new.ops_per_s - old.ops_per_s) / old.ops_per_s * 100)
            changes.append(Change(new.test, row.threads, old.ops_per_s,
                                  new.ops_per_s, percent))
    return tuple(changes)
