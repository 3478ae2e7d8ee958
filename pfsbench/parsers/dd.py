# SPDX-License-Identifier: BSD-3-Clause
"""Parser for GNU dd's closing statistics (coreutils 8.x / 9.x).

dd prints three lines on stderr when it ends::

    1024+0 records in
    1024+0 records out
    1073741824 bytes (1.1 GB, 1.0 GiB) copied, 2.72126 s, 395 MB/s

With ``status=progress`` the progress updates come first, separated by
carriage returns.  A failed dd prints ``dd: <what>: <why>`` before (or
instead of) the statistics; the parser raises on that line even when some
bytes were copied, because a short file is not a bandwidth figure.
"""

import re
from dataclasses import dataclass

from pfsbench.core.errors import ParseError

_RECORDS = re.compile(r'^(\d+)\+(\d+) records (in|out)$')
_COPIED = re.compile(
    r'^(?P<bytes>\d+) bytes?(?: \([^)]*\))? copied, '
    # Numbers, not runs of their characters ('2.7212+6' is none; dd prints
    # '9.6804e-05 s' for a short copy).
    r'(?P<seconds>\d+(?:\.\d+)?(?:e[+-]?\d+)?) s, '
    r'(?P<rate>\d+(?:\.\d+)?|Infinity) '
    r'(?P<unit>[kMGTPE]?B)/s$'
)
_ERROR = re.compile(r'^dd: ')

#: dd reports rates in SI units (its default ``B`` suffixes are powers of 10).
_SI = {'B': 1, 'kB': 1e3, 'MB': 1e6, 'GB': 1e9, 'TB': 1e12, 'PB': 1e15,
       'EB': 1e18}


@dataclass(frozen=True)
class DdResult:
    """One dd run's statistics.

    ``bw_mb_s`` is computed from bytes and seconds (10^6 bytes per MB, as dd
    itself counts); ``reported_bw_mb_s`` is dd's own rounded figure.
    """

    full_records_in: int
    partial_records_in: int
    full_records_out: int
    partial_records_out: int
    bytes: int
    seconds: float
    bw_mb_s: float
    bw_mib_s: float
    reported_bw_mb_s: float


def parse(text, source='<text>'):
    """Parse dd's closing statistics.

    Args:
        text: dd's stderr (stdout mixed in is fine).
        source: the name used in error messages.

    Returns:
        a :class:`DdResult`.

    Raises:
        ParseError: dd reported an error, or the statistics are missing.
    """
    records = {}
    copied = None
    lines = text.splitlines()   # also splits status=progress's '\r' updates
    for lineno, line in enumerate(lines, 1):
        line = line.strip()
        if _ERROR.match(line):
            raise ParseError(source, lineno, line, 'dd failed')

        m = _RECORDS.match(line)
        if m:
            records[m.group(3)] = (int(m.group(1)), int(m.group(2)))
            continue

        m = _COPIED.match(line)
        if m and 'out' in records:
            # Progress lines also say 'copied'; the summary follows 'out'.
            copied = (lineno, m)

    if copied is None:
        last = next((ln for ln in reversed(lines) if ln.strip()), '')
        raise ParseError(source, len(lines), last.strip(),
                         "expected dd's 'N bytes ... copied, T s, R MB/s' "
                         'summary')

    lineno, m = copied
    nbytes = int(m.group('bytes'))
    seconds = float(m.group('seconds'))
    if seconds <= 0:
        raise ParseError(source, lineno, m.group(0),
                         'expected a positive elapsed time')

    rate = m.group('rate')
    reported = (float('inf') if rate == 'Infinity'
                else float(rate) * _SI[m.group('unit')] / 1e6)
    rec_in = records.get('in', (0, 0))
    rec_out = records['out']
    return DdResult(
        full_records_in=rec_in[0], partial_records_in=rec_in[1],
        full_records_out=rec_out[0], partial_records_out=rec_out[1],
        bytes=nbytes, seconds=seconds,
        bw_mb_s=nbytes / seconds / 1e6,
        bw_mib_s=nbytes / seconds / 2**20,
        reported_bw_mb_s=reported,
    )


def stream_measures(text, source, phase):
    """dd as a tool of the streams runner (:mod:`pfsbench.parsers.streams`):
    one stream's write or read.

    Args:
        text: that stream-phase's dd output.
        source: the name used in error messages.
        phase: the runner's phase name, which names the measure.

    Returns:
        a one-element tuple of :class:`~pfsbench.parsers.streams.Measure`.
    """
    from pfsbench.parsers.streams import Measure
    result = parse(text, source)
    return (Measure(phase, result.bytes, result.seconds, result.bw_mb_s),)


_LABELLED = re.compile(r'^(?P<label>[^\s:]+): (?P<rest>.*)$')


def parse_labelled(text, source='<text>'):
    """Parse the output of several dd runs whose lines carry a label.

    Parallel launches tag each line with where it came from, as in
    ``srun bash -c 'dd ... 2>&1 | sed "s/^/$SLURMD_NODENAME: /"'``::

        n1: 268435456 bytes (268 MB, 256 MiB) copied, 1.1206 s, 240 MB/s

    Lines without a label are ignored (job-script noise).

    Args:
        text: the mixed output.
        source: the name used in error messages.

    Returns:
        a dict label -> :class:`DdResult`, in first-seen order.

    Raises:
        ParseError: one of the runs failed or lacks its statistics; the
            message quotes that run's line.
    """
    groups = {}
    for line in text.splitlines():
        m = _LABELLED.match(line.strip())
        if m and m.group('label') != 'dd':
            groups.setdefault(m.group('label'), []).append(m.group('rest'))

    if not groups:
        raise ParseError(source, 0, '', 'expected dd output lines with a '
                                        "'label: ' prefix")

    results = {}
    for label, lines in groups.items():
        results[label] = parse('\n'.join(lines), f'{source}[{label}]')

    return results
