# SPDX-License-Identifier: BSD-3-Clause
"""The results store: every cluster's nights in one database.

ReFrame keeps each runs directory's history to itself (its SQLite file,
one JSON blob per session).  The store holds the same sessions as rows,
one per figure per repeat, for many clusters: SQLite by default (a file
under the runs directory), PostgreSQL for a site
(:mod:`pfsbench.store.db`; schema in :mod:`pfsbench.store.schema`, its
columns named in :mod:`pfsbench.store.columns`).

- :func:`ingest_report` (:mod:`~pfsbench.store.ingest`) loads one ReFrame
  run report; a session already there is left as it is.
- :func:`read_results` (:mod:`~pfsbench.store.read`) gives one cluster's
  sessions as the :class:`~pfsbench.gate.history.results.Results` the gate
  judges, the same sessions and records as their run reports give;
  :mod:`~pfsbench.store.series` keeps its history.
- :mod:`~pfsbench.store.runs` reads a runs directory: what the store
  beside it lacks of ReFrame's database (:mod:`~pfsbench.store.reframe_db`)
  goes in first, then its sessions are read from the store.
- :func:`figure_history` (:mod:`~pfsbench.store.history`) is one figure
  across clusters over time; :func:`provenance_history` the provenance of
  its sessions.
- :mod:`~pfsbench.store.baselines` keeps the baselines a gate judges
  against; :mod:`pfsbench.store.spool` keeps a night's report while the
  store does not answer.
"""

from pfsbench.store.baselines import load_baseline, save_baseline
from pfsbench.store.connect import open_store
from pfsbench.store.db import StoreDown, StoreRefused
from pfsbench.store.history import figure_history, provenance_history
from pfsbench.store.ingest import ingest_report, night_of
from pfsbench.store.read import choose_system, read_results, systems
from pfsbench.store.series import SERIES_LAG, refresh_series

__all__ = ['SERIES_LAG', 'StoreDown', 'StoreRefused', 'choose_system',
           'figure_history', 'ingest_report', 'load_baseline', 'night_of',
           'open_store', 'provenance_history', 'read_results',
           'refresh_series', 'save_baseline', 'systems']
