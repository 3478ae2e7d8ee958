# SPDX-License-Identifier: BSD-3-Clause
"""Parse the real ``io500``'s ``result_summary.txt`` (or its stdout, which
holds the same lines).

io500 (IO500/io500 src/main.c, ``dupprintf``) prints one line per phase::

    "[RESULT] %20s %15s %s : time %.3f seconds%s"   name, score, GiB/s or
                                                    kIOPS, runtime, " [INVALID]"

(``[      ]`` instead of ``[RESULT]`` for an unscored phase), then::

    "[SCORE ] Bandwidth %f GiB/s : IOPS %f kiops : TOTAL %f%s"
"""

import re
from dataclasses import dataclass

from pfsbench.core.errors import ParseError

#: A figure as io500 prints it ('%f'); '[0-9.]+' also took '..596', a
#: damaged figure float() refuses (the parser fuzz found it).
_NUM = r'([0-9]+(?:\.[0-9]+)?)'
_PHASE_RE = re.compile(
    rf'^\[(RESULT|      )\]\s+(\S+)\s+{_NUM} (GiB/s|kIOPS) : time '
    rf'{_NUM} seconds( \[INVALID\])?$')
_SCORE_RE = re.compile(
    rf'^\[SCORE \] Bandwidth {_NUM} GiB/s : IOPS {_NUM} kiops : TOTAL '
    rf'{_NUM}( \[INVALID\])?$')


@dataclass(frozen=True)
class PhaseResult:
    name: str
    #: GiB/s for the ior phases, kIOPS for the others.
    value: float
    unit: str
    time_s: float
    scored: bool
    valid: bool


@dataclass(frozen=True)
class Result:
    """One io500 run's summary."""

    #: In the order io500 ran them.
    phases: tuple
    bw_gib_s: float
    md_kiops: float
    total: float
    valid: bool

    def phase(self, name):
        return next((p for p in self.phases if p.name == name), None)


def parse(text, source='<text>'):
    """The phases and score of an io500 summary.

    Raises:
        ParseError: no ``[SCORE ]`` line (io500 stopped before the end), or
            no phase line.
    """
    phases = []
    score = None
    for lineno, line in enumerate(text.splitlines(), 1):
        if m := _PHASE_RE.match(line.strip()):
            kind, name, value, unit, time_s, invalid = m.groups()
            phases.append(PhaseResult(name, float(value), unit,
                                      float(time_s), kind == 'RESULT',
                                      invalid is None))
        elif m := _SCORE_RE.match(line.strip()):
            score = m
        elif line.startswith(('[RESULT]', '[SCORE ]')):
            # A damaged figure: not a phase left out without a word.
            raise ParseError(source, lineno, line.strip(),
                             "expected io500's '[RESULT] <phase> <value> "
                             "GiB/s|kIOPS : time <s> seconds' or '[SCORE ] "
                             "Bandwidth ... TOTAL <score>'")
    if score is None:
        lines = text.splitlines()
        raise ParseError(source, len(lines), lines[-1] if lines else '',
                         "expected io500's '[SCORE ] Bandwidth ... TOTAL' "
                         'line (io500 stopped before its end)')
    if not phases:
        raise ParseError(source, 0, '', "expected io500's '[RESULT]' phase "
                                        'lines')
    bw, md, total, invalid = score.groups()
    return Result(tuple(phases), float(bw), float(md), float(total),
                  invalid is None)

