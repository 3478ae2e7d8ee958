# SPDX-License-Identifier: BSD-3-Clause
"""Ingest: one ReFrame run report into the store's rows, in one
transaction; a session already there is left as it is (loading twice is
one session)."""

import json
import math

from pfsbench.core import fields
from pfsbench.core.clock import utc_day
from pfsbench.gate.history.results import (Record, records_of_report,
                                         session_figures)
from pfsbench.store import codec, columns
from pfsbench.store.connect import now

#: Bumped whenever what the store keeps of a session's figures changes.
FIGURES_FORMAT = 5

#: What a session's kept figures were computed with: their format, the
#: record's fields and the fields read from a test case.
FIGURES = (FIGURES_FORMAT, tuple(Record.__dataclass_fields__),
           fields.TAG_FIELDS, fields.CONFIG_FIELDS,
           fields.ITERATION_COUNT_FIELDS, fields.CONTENDED,
           fields.CONTENTION, fields.UNTIMED)
FIGURES_STAMP = json.dumps(FIGURES)


def night_of(time_start):
    """The UTC date of a session's start, ``YYYY-MM-DD``."""
    try:
        return utc_day(time_start)
    except (OverflowError, OSError, ValueError):
        return '0000-00-00'


def to_json(value):
    """``value`` as the store's JSON text (compact, keys as given)."""
    return json.dumps(value, ensure_ascii=False, separators=(',', ':'),
                      sort_keys=False)


def _value_columns(value):
    """``(value, raw)``: a float column gives back a finite float
    unchanged (SQLite keeps -0.0 as 0.0); anything else also goes as
    JSON."""
    if isinstance(value, float) and math.isfinite(value) and \
            math.copysign(1.0, value) > 0:
        return value, None
    number = (float(value) if isinstance(value, (int, float)) and
              not isinstance(value, bool) and math.isfinite(value) else None)
    return number, to_json(value)


def _figures_blob(figures):
    return codec.dumps({tuple(k.as_dict().values()): v
                        for k, v in figures.items()})


def ingest_report(conn, report, source, system=None, commit=True):
    """Load one decoded run report into the store, in one transaction.

    Args:
        conn: :func:`~pfsbench.store.connect.open_store`.
        report: the run report (a dict).
        source: where it came from, for messages.
        system: the cluster's name in the store (default: the ReFrame
            system of its test cases).
        commit: commit the session (default); False leaves it to the
            caller (a bulk load commits many nights at once).

    Returns:
        ``(uuid, cluster, added)``: ``added`` is False when the session
        was there already.

    Raises:
        ResultsError: not a ReFrame 4 run report.
    """
    session, records = records_of_report(report, source)
    cluster = system or next((r.key.system for r in records), '') or \
        session.hostname or 'unknown'
    night = night_of(session.time_start)
    try:
        cur = conn.execute(
            columns.insert('pfsbench_sessions', columns.SESSIONS) +
            ' ON CONFLICT (uuid) DO NOTHING',
            _session_row(session, records, cluster, night, source))
        if cur.rowcount == 0:
            if commit:
                conn.rollback()
            return session.uuid, cluster, False

        cases, figures = _case_rows(session, records, cluster, night)
        conn.insert_rows('pfsbench_cases', columns.CASES, cases)
        conn.insert_rows('pfsbench_figures', columns.FIGURES, figures)
        if commit:
            conn.commit()
    except conn.errors:
        conn.rollback()
        raise

    return session.uuid, cluster, True


def _session_row(session, records, cluster, night, source):
    extras = session.extras
    return columns.row(columns.SESSIONS, dict(
        uuid=session.uuid, system=cluster, night=night,
        time_start=session.time_start, time_end=session.time_end,
        reframe_version=session.reframe_version,
        data_version=session.data_version, hostname=session.hostname,
        cmdline=session.cmdline, num_cases=session.num_cases,
        num_failures=session.num_failures,
        num_aborted=session.num_aborted, num_skipped=session.num_skipped,
        extras=to_json(extras),
        spack_lock=str(extras.get('spack_lock') or ''), source=source,
        ingested=now(), figures=_figures_blob(session_figures(records)),
        figures_stamp=FIGURES_STAMP))


def _case_rows(session, records, cluster, night):
    """``(cases, figures)``: the rows of ``records`` for both tables."""
    cases, figures = [], []
    for seq, rec in enumerate(records):
        tags = dict(rec.tags)
        where = dict(session=session.uuid, seq=seq, name=rec.key.name,
                     rf_system=rec.key.system, partition=rec.key.partition,
                     environ=rec.key.environ,
                     target=str(tags.get(fields.TARGET_PATH, '')),
                     filesystem=str(tags.get(fields.TARGET_FSTYPE, '')),
                     repeat=rec.repeat)
        cases.append(columns.row(columns.CASES, dict(
            where, run_index=rec.run_index, result=rec.result,
            fail_phase=rec.fail_phase, fail_reason=rec.fail_reason,
            time=rec.time, jobid=rec.jobid,
            nodelist=to_json(list(rec.nodelist)), config=to_json(rec.config),
            tags=to_json([list(t) for t in rec.tags]),
            iterations=rec.iterations, contended=int(rec.contended),
            contention=rec.contention, untimed=' '.join(rec.untimed))))
        for pos, (var, (value, unit)) in enumerate(rec.perf.items()):
            number, raw = _value_columns(value)
            figures.append(columns.row(columns.FIGURES, dict(
                where, pos=pos, system=cluster, figure=var, unit=unit,
                value=number, raw=raw, night=night,
                time_start=session.time_start)))
    return cases, figures
