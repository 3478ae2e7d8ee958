# SPDX-License-Identifier: BSD-3-Clause
"""Every case's nights as columns: what the history, the night noise
and the lookback rule read, kept in one file beside ReFrame's database.

Per session the index (pfsbench.gate.store.index) keeps a case's figures; the
history wants the transpose, per case and variable over every session.
Transposing a year of 500 cases from 365 files cost more than the rest
of the gate, so :class:`Series` keeps the transpose itself, as
``array`` columns (one per case and variable: night means, variances,
sample counts) that load in milliseconds, with the sessions' own
:class:`~pfsbench.gate.store.results.Session` objects.  A new session is
appended; a session deleted from the database is dropped; anything
else (an older session added late, another index format) rebuilds it.
"""

import array
from dataclasses import dataclass, field

from pfsbench.gate.statistics.stats import Moments, night_moments

NAN = float('nan')

#: Bumped whenever :class:`Series` or :class:`CaseColumns` change what they
#: hold (the index then builds the file again).
SERIES_FORMAT = 3


@dataclass
class CaseColumns:
    """One case's nights, in session order (a session may appear once
    per configuration the case ran with)."""

    #: Position of each entry's session in :attr:`Series.uuids`.
    pos: array.array = field(default_factory=lambda: array.array('i'))
    #: Index into :attr:`configs` and :attr:`likes` of each entry.
    config_ids: array.array = field(
        default_factory=lambda: array.array('i'))
    like_ids: array.array = field(default_factory=lambda: array.array('i'))
    configs: list = field(default_factory=list)
    likes: list = field(default_factory=list)
    #: ``{var: (means, variances, counts)}``, NaN and 0 where an entry
    #: lacks the variable.
    columns: dict = field(default_factory=dict)
    #: ``{var: {entry: Moments.left_out}}``: the repeats each night left
    #: out as wild (pfsbench.gate.statistics.stats.night_moments), only
    #: for nights that left some out.
    wild: dict = field(default_factory=dict)

    def _index(self, table, value):
        for i, known in enumerate(table):
            if known == value:
                return i

        table.append(value)
        return len(table) - 1

    def append(self, position, config, per_var, like):
        """Add one night: ``per_var`` is ``{var: (mean, values)}``."""
        n = len(self.pos)
        self.pos.append(position)
        self.config_ids.append(self._index(self.configs, config))
        self.like_ids.append(self._index(self.likes, like))
        for var, (mean, values) in per_var.items():
            cols = self.columns.get(var)
            if cols is None:
                cols = self.columns[var] = (
                    array.array('d', [NAN] * n), array.array('d', [NAN] * n),
                    array.array('i', [0] * n))

            # The night as the lookback rule sees it: its wild repeats
            # left out (a mean of all of them where none is wild).
            night = night_moments(values) if values else None
            if night is None:
                cols[0].append(mean)
                cols[1].append(NAN)
                cols[2].append(0)
                continue

            cols[0].append(night.mean)
            cols[1].append(NAN if night.variance is None
                           else night.variance)
            cols[2].append(night.n)
            if night.left_out:
                self.wild.setdefault(var, {})[n] = night.left_out

        for var, cols in self.columns.items():
            if var not in per_var:
                cols[0].append(NAN)
                cols[1].append(NAN)
                cols[2].append(0)

    def moments(self, var, i):
        """:class:`~pfsbench.gate.statistics.stats.Moments` of entry ``i``, or
        ``None`` where it lacks ``var``."""
        cols = self.columns.get(var)
        if cols is None or not cols[2][i]:
            return None

        variance = cols[1][i]
        return Moments(cols[0][i], None if variance != variance else
                       variance, cols[2][i],
                       self.wild.get(var, {}).get(i, ()))


class Series:
    """Every case's :class:`CaseColumns` over sessions in time order."""

    def __init__(self):
        #: Session uuids, oldest first (by start time, then uuid).
        self.uuids = []
        #: ``{uuid: Session}``.
        self.sessions = {}
        #: ``{CaseKey: CaseColumns}``.
        self.cases = {}

    def newest_key(self):
        if not self.uuids:
            return None

        s = self.sessions[self.uuids[-1]]
        return (s.time_start, s.uuid)

    def add(self, session, figures):
        """Append a session newer than every other (see
        :meth:`newest_key`) with its
        :func:`~pfsbench.gate.store.results.session_figures`."""
        position = len(self.uuids)
        self.uuids.append(session.uuid)
        self.sessions[session.uuid] = session
        for key, groups in figures.items():
            cols = self.cases.get(key)
            if cols is None:
                cols = self.cases[key] = CaseColumns()

            for config, per_var, like in groups:
                cols.append(position, config, per_var, like)

    def drop(self, keep):
        """A copy without the sessions not in ``keep``."""
        out = Series()
        positions = {}
        for i, uuid in enumerate(self.uuids):
            if uuid in keep:
                positions[i] = len(out.uuids)
                out.uuids.append(uuid)
                out.sessions[uuid] = self.sessions[uuid]

        for key, cols in self.cases.items():
            new = CaseColumns(configs=list(cols.configs),
                              likes=list(cols.likes))
            kept = [j for j, p in enumerate(cols.pos) if p in positions]
            new.pos = array.array('i', (positions[cols.pos[j]]
                                        for j in kept))
            new.config_ids = array.array('i', (cols.config_ids[j]
                                               for j in kept))
            new.like_ids = array.array('i', (cols.like_ids[j] for j in kept))
            for var, (m, v, n) in cols.columns.items():
                new.columns[var] = (
                    array.array('d', (m[j] for j in kept)),
                    array.array('d', (v[j] for j in kept)),
                    array.array('i', (n[j] for j in kept)))

            at = {j: k for k, j in enumerate(kept)}
            for var, nights in cols.wild.items():
                moved = {at[j]: left for j, left in nights.items()
                         if j in at}
                if moved:
                    new.wild[var] = moved

            if kept:
                out.cases[key] = new

        return out
