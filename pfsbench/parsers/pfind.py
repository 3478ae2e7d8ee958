# SPDX-License-Identifier: BSD-3-Clause
"""Parse pfind's ``-D rates`` line (IO500's find phase).

pfind (VI4IO/pfind src/pfind-main.c) with ``-D rates`` ends with::

    "[DONE] rate: %.3f kiops time: %.1fs found: N (scanned M files, ..."

where the rate is pfind's total files scanned / its runtime / 1000, the
figure io500 scores for find (IO500/io500 src/phase_find.c ``run_find``).
"""

import re
from dataclasses import dataclass

from pfsbench.core.errors import ParseError

_DONE_RE = re.compile(
    r'^\[DONE\] rate: ([0-9.]+) kiops time: ([0-9.]+)s found: (\d+) '
    r'\(scanned (\d+) files')


@dataclass(frozen=True)
class Result:
    """pfind's ``[DONE]`` line (``-D rates``)."""

    #: total files scanned / pfind's runtime / 1000: IO500's find score.
    kiops: float
    time_s: float
    found: int
    scanned: int


def parse(text, source='<text>'):
    """pfind's rate.

    Raises:
        ParseError: no ``[DONE] rate:`` line (pfind failed, or ran without
            ``-D rates``).
    """
    for line in text.splitlines():
        if m := _DONE_RE.match(line.strip()):
            rate, time_s, found, scanned = m.groups()
            return Result(float(rate), float(time_s), int(found),
                          int(scanned))
    lines = [ln for ln in text.splitlines() if ln.strip()]
    raise ParseError(source, len(text.splitlines()),
                     lines[-1] if lines else '',
                     "expected pfind's '[DONE] rate: X kiops' line (pfind "
                     'runs with -D rates)')
