# SPDX-License-Identifier: BSD-3-Clause
"""Typed rows of a gate report record, shared by every renderer.

The record (pfsbench.gate.judge.record.run_gate) keeps one dict per compared
variable in ``results``; :func:`case_rows` turns them into one
:class:`CaseRow` per test case: variables whose samples are equal on both
sides (``write_bw``, ``write_bw_sum``, ``write_node_bw_min`` of one
stream, equal by construction) collapse into one :class:`Figure`, the
worst figure is the case's *primary* one, and the cases come most severe
first.
"""

import contextlib
from dataclasses import dataclass, fields

from pfsbench.core.fields import figure_role
from pfsbench.gate.history import provenance

#: Order in which verdicts are listed: what needs attention first.
ORDER = {'regression': 0, 'inconclusive': 1, 'improvement': 2, 'pass': 3,
         'ignored': 4}

#: Provenance changes named next to a case before "(+N more)".
MAX_CHANGES = 4


@dataclass(frozen=True)
class CaseIdentity:
    """Which test case, and the session its current figures come from."""

    #: ``'name @system:partition+environ'``.
    case: str
    name: str
    check: str
    params: dict
    system: str
    partition: str
    environ: str
    session: str


@dataclass(frozen=True)
class VarRow(CaseIdentity):
    """One compared variable of one case: its samples on both sides and
    its verdict.  :func:`pfsbench.gate.judge.record.compare` makes them; the
    record keeps them as dicts (:meth:`as_dict`)."""

    var: str
    unit: str
    direction: str
    tolerance: float
    #: ``{'n', 'mean', 'values'}`` and, where used, ``iterations`` or
    #: ``session_means`` of the baseline and of the current run.
    base: dict
    cur: dict
    verdict: str = 'inconclusive'
    reason: str = ''
    change: float = None
    low: float = None
    high: float = None
    df: float = None
    repeats_needed: int = None
    #: What a plain ReFrame-style reference at the tolerance would say.
    fixed_tolerance_verdict: str = None
    #: ``{'cv', 'df', 'sessions'}`` of the night-to-night noise, if used.
    night_noise: dict = None
    #: What the lookback rule weighed (pfsbench.gate.judge.rule.judge_nights):
    #: ``{'level_nights', 'history_nights', 'outliers', 'night_cv', 'df',
    #: 'detect'}``, if it judged the variable.
    lookback: dict = None
    #: Tonight's relative spread over the level nights' where an F test
    #: says it grew (lookback rule), else ``None``.
    spread_change: float = None
    #: What the verdict could detect tonight
    #: (:func:`pfsbench.gate.judge.sensitivity.sensitivity`): ``{'detects',
    #: 'target', 'power', 'alpha', 'blind', 'repeats',
    #: 'repeats_needed'}``, ``None`` without an interval.
    sensitivity: dict = None
    #: The repeats the nights this verdict read left out as wild
    #: (:func:`pfsbench.gate.judge.samples.wild_entries`): ``[{'night',
    #: 'session', 'repeat', 'value', 'robust_z', 'why'}, ...]``, or
    #: ``None`` where none was.
    wild_repeats: list = None
    #: What the nights since the level began found together
    #: (:mod:`pfsbench.gate.judge.pooled`): ``{'rule', 'p', 'nights',
    #: 'since', 'change', 'low', 'high', 'regression', 'detects', 'count',
    #: 'first', 'decided'}``, or ``None`` where tonight was judged alone;
    #: ``decided``: the pooled nights made the verdict (tonight alone was
    #: no regression), so the report shows their change and interval.
    pooled: dict = None
    #: The tool could not time the figure on any repeat tonight
    #: (bonnie++'s ``+++++``): it passes unjudged, no change to show.
    untimed: bool = False
    #: ``'headline'`` (a site is paged on it) or ``'diagnostic'`` (shown,
    #: never paging: :func:`pfsbench.core.fields.figure_role`).
    role: str = 'headline'

    @property
    def pooled_decided(self):
        """Whether the nights since the level began, together, made the
        verdict (a record written before the gate said so: no)."""
        return bool(self.pooled and self.pooled.get('decided'))

    def as_dict(self):
        out = {f.name: getattr(self, f.name) for f in fields(VarRow)}
        for name in ('night_noise', 'lookback', 'spread_change',
                     'sensitivity', 'wild_repeats', 'pooled'):
            if out[name] is None:
                del out[name]
        if not out['untimed']:
            del out['untimed']

        return out

    @classmethod
    def from_dict(cls, data, **extra):
        found = {f.name: data[f.name] for f in fields(VarRow)
                 if f.name in data}
        # A record written before the gate named the roles: by the rule.
        found.setdefault('role', figure_role(data['var'], data['unit']))
        return cls(**found, **extra)


@dataclass(frozen=True)
class Figure(VarRow):
    """One variable, or several equal by construction (its aliases)."""

    #: The other variables with exactly the same samples on both sides.
    aliases: tuple = ()

    @property
    def names(self):
        """``'write_bw'`` or ``'write_bw (= write_bw_sum, ...)'``."""
        if not self.aliases:
            return self.var

        return f'{self.var} (= {", ".join(self.aliases)})'

    @property
    def worse_by(self):
        """The change in the figure's worse direction (positive: worse),
        0 without a change."""
        if self.change is None:
            return 0.0

        return -self.change if self.direction == 'higher' else self.change

    def severity(self):
        """Sort key, most severe first; among inconclusive figures the
        hardest to settle first."""
        hard = 0
        if self.verdict == 'inconclusive':
            hard = -(10**9 if self.repeats_needed is None
                     else self.repeats_needed)

        return (self.role == 'diagnostic', ORDER.get(self.verdict, 9), hard,
                -self.worse_by, self.var)


@dataclass(frozen=True)
class CaseRow(CaseIdentity):
    """One test case: its verdict, its primary figure, the others, and
    what changed in its provenance since the baseline."""

    primary: Figure
    others: tuple
    #: :class:`pfsbench.gate.history.provenance.Change` list, likeliest first.
    changes: tuple

    @property
    def verdict(self):
        return self.primary.verdict

    @property
    def figures(self):
        return (self.primary,) + self.others

    def severity(self):
        return self.primary.severity()[:4] + (self.case,)

    def others_summary(self):
        """``'4 pass, 1 inconclusive'`` of the other figures, or ``''``."""
        counts = {}
        for fig in sorted(self.others, key=Figure.severity):
            counts[fig.verdict] = counts.get(fig.verdict, 0) + 1

        return ', '.join(f'{n} {v}' for v, n in counts.items())

    def changes_text(self, limit=MAX_CHANGES):
        """``'superblock options (fs_super_opts): +data=journal; ...'``,
        or ``''`` when nothing changed."""
        shown = [c.describe() for c in self.changes[:limit]]
        if len(self.changes) > limit:
            shown.append(f'(+{len(self.changes) - limit} more)')

        return '; '.join(shown)


def _same_samples(row):
    values = tuple(row['base']['values']) + (None,) + \
        tuple(row['cur']['values'])
    return row['unit'], values


def figures_of(rows):
    """Collapse one case's variable rows into :class:`Figure` objects.

    Variables with the same unit and exactly the same samples on both
    sides (not all zero) are one figure, named by its shortest name.

    Returns:
        Figures, most severe first.
    """
    groups = {}
    for row in rows:
        key = _same_samples(row)
        if row['verdict'] == 'ignored' or not any(key[1]):
            # Zeros (the spread of one stream) are equal by accident.
            key = ('', row['var'])

        groups.setdefault(key, []).append(row)

    figures = []
    for members in groups.values():
        members.sort(key=lambda r: (len(r['var']), r['var']))
        figures.append(Figure.from_dict(
            members[0], aliases=tuple(r['var'] for r in members[1:])))

    return sorted(figures, key=Figure.severity)


def _change(data):
    return provenance.Change(data['key'], data.get('label', ''),
                       tuple(data.get('before') or ()), data.get('after'),
                       data.get('detail', ''))


def var_rows(record):
    """The record's variable rows, typed, what needs attention first."""
    return sorted((VarRow.from_dict(r) for r in record['results']),
                  key=lambda r: (ORDER.get(r.verdict, 9), r.case, r.var))


#: ``[(record, its case rows)]`` of the records being rendered
#: (:func:`rendering`).
_RENDERING = []


@contextlib.contextmanager
def rendering(record):
    """Within the block, :func:`case_rows` of ``record`` is taken once:
    a report's parts each ask for it, and rendering reads the record
    without changing it (the rows are frozen)."""
    _RENDERING.append((record, case_rows(record)))
    try:
        yield
    finally:
        _RENDERING.pop()


def case_rows(record):
    """One :class:`CaseRow` per compared case, most severe first."""
    for known, cases in _RENDERING:
        if known is record:
            return cases

    by_case = {}
    for row in record['results']:
        by_case.setdefault(row['case'], []).append(row)

    changes = record.get('changes') or {}
    out = []
    for case, rows in by_case.items():
        figures = figures_of(rows)
        out.append(CaseRow(
            **{f.name: rows[0][f.name] for f in fields(CaseIdentity)},
            primary=figures[0],
            others=tuple(figures[1:]),
            changes=tuple(_change(c) for c in changes.get(case, ())),
        ))

    return sorted(out, key=CaseRow.severity)


def common_changes(cases):
    """The changes every case shares (session-level, usually)."""
    if not cases:
        return ()

    first = cases[0].changes
    return tuple(c for c in first if all(c in other.changes
                                         for other in cases[1:]))
