# SPDX-License-Identifier: BSD-3-Clause
"""Every case's nights as columns: what the history, the night noise
and the lookback rule read, kept in the results store
(pfsbench.store.series).

Per session the store keeps a case's figures; the history wants the
transpose, per case and variable over every session.
Transposing a year of 500 cases from 365 files cost more than the rest
of the gate, so :class:`Series` keeps the transpose itself, as
``array`` columns (one per case and variable: night means, variances,
sample counts) that load in milliseconds, with the sessions' own
:class:`~pfsbench.gate.history.results.Session` objects.  A new session is
appended; a session deleted from the store is dropped; anything else
(an older session added late, another format) rebuilds it.

A night of 3 or 4 repeats leaves out its wild repeats by the scale of
the case's nights before it (same configuration, the newest
:data:`~pfsbench.gate.statistics.stats.POOL_NIGHTS`), fixed when it is
appended: dropping a session leaves the later nights as they were.
"""

import array
from dataclasses import dataclass, field

from pfsbench.gate.statistics.stats import (MIN_REPEATS_FOR_POOLED,
                                            MIN_REPEATS_FOR_WILD,
                                            POOL_NIGHTS, Moments,
                                            night_moments, night_spread,
                                            pooled_scale)

NAN = float('nan')

#: Bumped whenever :class:`Series` or :class:`CaseColumns` change what they
#: hold (the store then builds its kept series again).
SERIES_FORMAT = 4

#: How far back (entries of any configuration) a night looks for the
#: :data:`POOL_NIGHTS` nights of its own configuration behind its pooled
#: scale.
POOL_LOOKBACK = 10 * POOL_NIGHTS


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
    #: for nights that left some out, with the scale they were measured
    #: by: ``(left_out, wild_scale)``.
    wild: dict = field(default_factory=dict)
    #: ``{var: spreads}``: each entry's robust within-night scale of its
    #: repeats' logs (pfsbench.gate.statistics.stats.night_spread; NaN
    #: where it has none), what later nights pool.
    spreads: dict = field(default_factory=dict)

    def _index(self, table, value):
        for i, known in enumerate(table):
            if known == value:
                return i

        table.append(value)
        return len(table) - 1

    def pooled_scale(self, var, config_id, before):
        """:func:`~pfsbench.gate.statistics.stats.pooled_scale` of the
        entries before ``before`` of configuration ``config_id`` (the
        newest :data:`POOL_NIGHTS` of them among the
        :data:`POOL_LOOKBACK` entries before it), or ``None``."""
        spreads = self.spreads.get(var)
        if spreads is None:
            return None

        found = []
        for j in range(before - 1, max(-1, before - 1 - POOL_LOOKBACK), -1):
            if self.config_ids[j] == config_id and spreads[j] == spreads[j]:
                found.append(spreads[j])
                if len(found) == POOL_NIGHTS:
                    break

        found.reverse()
        return pooled_scale(found)

    def append(self, position, config, per_var, like):
        """Add one night: ``per_var`` is ``{var: (mean, values)}``."""
        n = len(self.pos)
        self.pos.append(position)
        config_id = self._index(self.configs, config)
        self.config_ids.append(config_id)
        self.like_ids.append(self._index(self.likes, like))
        for var, (mean, values) in per_var.items():
            cols = self.columns.get(var)
            if cols is None:
                cols = self.columns[var] = (
                    array.array('d', [NAN] * n), array.array('d', [NAN] * n),
                    array.array('i', [0] * n))

            spreads = self.spreads.get(var)
            if spreads is None:
                spreads = self.spreads[var] = array.array('d', [NAN] * n)

            # The night as the lookback rule sees it: its wild repeats
            # left out (a mean of all of them where none is wild); a
            # short night's measured by the scale of the nights before.
            short = MIN_REPEATS_FOR_POOLED <= len(values) < \
                MIN_REPEATS_FOR_WILD
            night = night_moments(
                values, self.pooled_scale(var, config_id, n)
                if short else None) if values else None
            spread = night_spread(values) if values else None
            spreads.append(NAN if spread is None else spread)
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
                self.wild.setdefault(var, {})[n] = (night.left_out,
                                                    night.wild_scale)

        for var, cols in self.columns.items():
            if var not in per_var:
                cols[0].append(NAN)
                cols[1].append(NAN)
                cols[2].append(0)
                self.spreads[var].append(NAN)

    def has(self, var, i):
        """Whether entry ``i`` has ``var`` (its :meth:`moments` are not
        ``None``)."""
        cols = self.columns.get(var)
        return cols is not None and bool(cols[2][i])

    def moments(self, var, i):
        """:class:`~pfsbench.gate.statistics.stats.Moments` of entry ``i``, or
        ``None`` where it lacks ``var``."""
        if not self.has(var, i):
            return None
        cols = self.columns[var]

        variance = cols[1][i]
        left_out, scale = self.wild.get(var, {}).get(i, ((), ''))
        return Moments(cols[0][i], None if variance != variance else
                       variance, cols[2][i], left_out, scale)

    def spread(self, var, i):
        """The :func:`~pfsbench.gate.statistics.stats.night_spread` of
        entry ``i``, or ``None``."""
        found = self.spreads.get(var)
        if found is None or found[i] != found[i]:
            return None

        return found[i]


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
        :func:`~pfsbench.gate.history.results.session_figures`."""
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

            for var, spreads in cols.spreads.items():
                new.spreads[var] = array.array('d', (spreads[j]
                                                     for j in kept))

            at = {j: k for k, j in enumerate(kept)}
            for var, nights in cols.wild.items():
                moved = {at[j]: left for j, left in nights.items()
                         if j in at}
                if moved:
                    new.wild[var] = moved

            if kept:
                out.cases[key] = new

        return out
