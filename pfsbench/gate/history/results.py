# SPDX-License-Identifier: BSD-3-Clause
"""ReFrame's run reports read into the gate's model: a :class:`Session`
and its :class:`Record` list per report, and :class:`Results`, the
sessions the gate judges (from the results store, pfsbench.store.read,
or from run report files, :func:`read_reports`).

A test case's identity is its ReFrame name (check name plus its
parameters, ``dd_streaming %nodes=2 %streams_per_node=4``), its
``system:partition`` and its environment.  ``--repeat N`` makes N cases
that differ only in the hidden ``.repeat_no`` parameter; they share the
``name`` and so are samples of the same case.  Re-runs (``--reruns``) add
runs to the report; their cases are samples too.
"""

import os
import re
import statistics
import sys
from dataclasses import dataclass
from typing import NamedTuple

from pfsbench.core import fields
from pfsbench.core.errors import ConfigError, MissingData, ResultsError
from pfsbench.gate.history import runreport
from pfsbench.gate.statistics.values import time_problem, value_problem
# CaseKey and Session live in keys (the store's codec decodes into them):
# imported here, where the gate has always found them.
from pfsbench.gate.history.keys import (  # noqa: F401
    CaseKey, Session, parse_params, parse_setvars)
from pfsbench.gate.history.series import Series

#: Major run-report data version this module understands.
REPORT_DATA_MAJOR = '4'

#: ``session_info`` keys that ReFrame itself writes (runreport.json, data
#: version 4.2); every other key is a session extra (``--session-extras``).
RESERVED_SESSION_KEYS = frozenset({
    'cmdline', 'config_files', 'data_version', 'hostname', 'log_files',
    'num_aborted', 'num_cases', 'num_failures', 'num_skipped',
    'prefix_output', 'prefix_stage', 'session_uuid', 'time_elapsed',
    'time_end', 'time_end_unix', 'time_start', 'time_start_unix', 'user',
    'uuid', 'version', 'workdir',
})


def default_runs_dir():
    """The directory that holds ``results.db`` (``$PFSBENCH_RUNS`` or
    ``<repo>/runs``, as in config/common.py)."""
    env = os.environ.get('PFSBENCH_RUNS')
    if env:
        return env

    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    return os.path.join(repo, 'runs')


def default_db_path():
    """``<runs>/results.db``."""
    return os.path.join(default_runs_dir(), 'results.db')


class CaseSummary(NamedTuple):
    """What one session's records of a case say besides their figures:
    whether a repeat was left out as contended, the nodes and the tags
    (:attr:`Record.tags`) of all of them (a tuple: a session's summary
    makes one per case, a frozen dataclass took twice as long)."""
    contended: bool
    nodes: frozenset
    tags: frozenset


@dataclass(slots=True)
class Record:
    """One executed test case (one repeat of one case in one session)."""

    key: CaseKey
    session: str
    run_index: int
    repeat: int
    result: str
    fail_phase: str
    fail_reason: str
    time: float
    jobid: str
    nodelist: tuple
    #: ``{var: (value or None, unit)}``.
    perf: dict
    #: Fields that describe how the case was configured (for mismatches).
    config: dict
    #: ``((field, value), ...)`` of
    #: :data:`pfsbench.core.fields.TAG_FIELDS` present.
    tags: tuple = ()
    #: The tool's iteration count in this case, if the check logs one.
    iterations: int = None
    #: Foreign load was seen during the measurement
    #: (:data:`pfsbench.core.fields.CONTENDED`); the gate leaves it out.
    contended: bool = False
    #: What foreign load was seen, or ``''``.
    contention: str = ''
    #: The figures the tool could not time (:data:`pfsbench.core.fields.
    #: UNTIMED`), sorted.
    untimed: tuple = ()


def untimed_of(value):
    """The sorted figure names of a case's ``untimed_figures`` (any other
    type than text: none)."""
    return tuple(sorted(set(value.split()))) if isinstance(value, str) \
        else ()


def _repeat_no(tc):
    display = tc.get('display_name') or ''
    if '%.repeat_no=' not in display:
        return 0

    match = re.search(r'%\.repeat_no=(\d+)', display)
    return int(match.group(1)) if match else 0


def _iterations(tc):
    for name in fields.ITERATION_COUNT_FIELDS:
        value = tc.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and \
                value >= 1:
            return value

    return None


def _count_problem(value):
    """Why a logged count is not one (``num_cases``, ``run_index``)."""
    if isinstance(value, bool) or not isinstance(value, int) or \
            not 0 <= value <= 10 ** 9:
        return 'not a count (an integer from 0 to 10^9)'

    return ''


def _number(source, where, value, check):
    """``value``, or a one-line error naming it: any number JSON spells
    (1e308, NaN, 10**400) is read or refused here, never an
    OverflowError later."""
    why = check(value)
    if why:
        raise ResultsError(f'{source}: {where}: {str(value)[:40]}: {why}')
    return value


def _session_of_report(report, source):
    """The :class:`Session` of one decoded run report."""
    info = report.get('session_info') or {}
    try:
        data_version = str(info['data_version'])
        uuid = info['uuid']
    except KeyError as err:
        raise ResultsError(
            f'{source}: session_info.{err.args[0]}: missing: not a ReFrame '
            'run report'
        ) from None

    if data_version.split('.')[0] != REPORT_DATA_MAJOR:
        raise ResultsError(
            f'{source}: session_info.data_version: {data_version!r}: '
            f'incompatible run report (pfsbench reads {REPORT_DATA_MAJOR}.x, '
            'written by ReFrame 4)'
        )

    def time_of(name):
        return float(_number(source, f'session_info.{name}',
                             info.get(name) or 0.0, time_problem))

    return Session(
        uuid=uuid,
        time_start=time_of('time_start_unix'),
        time_end=time_of('time_end_unix'),
        reframe_version=str(info.get('version', '')),
        data_version=data_version,
        hostname=str(info.get('hostname', '')),
        cmdline=str(info.get('cmdline', '')),
        **{f: int(_number(source, f'session_info.{f}', info.get(f) or 0,
                          _count_problem))
           for f in ('num_cases', 'num_failures', 'num_aborted',
                     'num_skipped')},
        extras={k: v for k, v in info.items()
                if k not in RESERVED_SESSION_KEYS},
        source=source,
    )


class _Shared:
    """Equal keys, node lists, tags and configurations of one report,
    shared instead of copied into each record (a year of nightlies holds
    ~10^6 records)."""

    def __init__(self, session):
        self.setvars = {f'-S {k}': v for k, v in session.setvars.items()}
        self.keys, self.configs, self.nodelists, self.tags = {}, {}, {}, {}

    def key(self, tc):
        ident = (tc['name'], tc['system'], tc['partition'], tc['environ'])
        found = self.keys.get(ident)
        if found is None:
            found = self.keys[ident] = CaseKey(*ident)
        return found

    def nodelist(self, tc):
        nodes = tuple(tc.get('job_nodelist') or ())
        return self.nodelists.setdefault(nodes, nodes)

    def tagged(self, tc):
        tags = tuple((f, str(tc[f])) for f in fields.TAG_FIELDS
                     if tc.get(f) not in (None, '', '<undefined>'))
        return self.tags.setdefault(tags, tags)

    def config(self, tc):
        cfg = tuple(tc.get(f) for f in fields.CONFIG_FIELDS)
        found = self.configs.get(cfg)
        if found is None:
            found = {f: tc.get(f) for f in fields.CONFIG_FIELDS if f in tc}
            found.update(self.setvars)
            self.configs[cfg] = found
        return found


def _record_of_case(tc, session, shared, source):
    """The :class:`Record` of one test case of a run report."""
    key = shared.key(tc)
    return Record(
        key=key, session=session.uuid,
        run_index=int(_number(source, 'run_index', tc.get('run_index') or 0,
                              _count_problem)),
        repeat=_repeat_no(tc), result=str(tc.get('result')),
        fail_phase=tc.get('fail_phase') or '',
        fail_reason=tc.get('fail_reason') or '',
        time=float(_number(
            source, f'{key}: job_completion_time_unix',
            tc.get('job_completion_time_unix') or session.time_start,
            time_problem)),
        jobid=str(tc.get('jobid') or ''),
        nodelist=shared.nodelist(tc),
        perf={sys.intern(pkey.rsplit(':', 1)[-1]): (ref[0], ref[4])
              for pkey, ref in (tc.get('perfvalues') or {}).items()},
        config=shared.config(tc), tags=shared.tagged(tc),
        iterations=_iterations(tc),
        contended=tc.get(fields.CONTENDED) is True,
        contention=str(tc.get(fields.CONTENTION) or ''),
        untimed=untimed_of(tc.get(fields.UNTIMED)),
    )


def records_of_report(report, source):
    """Split one decoded run report into a :class:`Session` and
    :class:`Record` list (fixtures left out)."""
    session = _session_of_report(report, source)
    shared = _Shared(session)
    records = [_record_of_case(tc, session, shared, source)
               for run in report.get('runs') or []
               for tc in run.get('testcases') or []
               if not tc.get('fixture')]
    return session, records



#: Fail phases after which the performance values are still real numbers
#: (a reference check failed, the measurement itself is fine).
USABLE_FAIL_PHASES = ('', 'performance')


def like_tags(records):
    """What the like-for-like history of a case compares (the lookback
    rule, pfsbench.gate.judge.lookback): ``((field, value), ...)`` of its
    records, ``job_nodelist`` the sorted union of their nodes and each
    case tag (:data:`pfsbench.core.fields.TAG_FIELDS`) its values joined
    by ``;``.

    Args:
        records: the case's :class:`Record` list in one session.
    """
    nodes = sorted({n for rec in records for n in rec.nodelist})
    values = {}
    for rec in records:
        for name, value in rec.tags:
            values.setdefault(name, set()).add(value)

    return (('job_nodelist', ','.join(nodes)),) + tuple(
        (name, ';'.join(sorted(values[name]))) for name in sorted(values))


def session_figures(records):
    """The figures of one session's usable, uncontended records, grouped
    for the history: ``{CaseKey: [(config, {var: (mean, values)}, like),
    ...]}`` (one entry per configuration the case ran with, usually one;
    ``like`` is :func:`like_tags` of its records).

    Args:
        records: the session's :class:`Record` list.
    """
    grouped = {}
    for rec in records:
        if rec.fail_phase not in USABLE_FAIL_PHASES or rec.contended:
            continue

        groups = grouped.setdefault(rec.key, [])
        for config, values, recs in groups:
            if config == rec.config:
                break
        else:
            config, values, recs = rec.config, {}, []
            groups.append((config, values, recs))

        recs.append(rec)
        for var, (value, _) in rec.perf.items():
            # NaN or infinity is no measurement: left out of the history
            # (the current run and a baseline refuse it, naming it).
            # So is a value beyond the magnitude of a measurement (1e308).
            if not value_problem(value):
                values.setdefault(var, []).append(float(value))

    return {key: [(config, {var: (statistics.fmean(vals), tuple(vals))
                            for var, vals in values.items()},
                   like_tags(recs))
                  for config, values, recs in groups]
            for key, groups in grouped.items()}


class Results:
    """Sessions and test-case records, from a database or report files.

    A session's records may be loaded only when asked for
    (:meth:`by_session`, :attr:`records`): the history reads the
    :meth:`series`, which the results store keeps.

    Attributes:
        sessions: ``{uuid: Session}``.
        records: every :class:`Record`, in session start order.
        source: the database path, the store or the report files, for
            messages.
    """

    def __init__(self, source):
        self.source = source
        self.sessions = {}
        self._loaded = {}
        self._loaders = {}
        self._summaries = {}
        self._contended = {}
        self._figures = {}
        self._records = None
        self._case_records = {}
        self._series = None
        self._inside = None

    def add_report(self, report, source):
        self.add_session(*records_of_report(report, source))

    def add_session(self, session, records=None, figures=None,
                    loader=None, summary=None):
        """Add one session.

        Args:
            session: its :class:`Session`.
            records: its records, or ``None`` with ``loader``.
            figures: its :func:`session_figures`, if known.
            loader: a callable returning its records, called when first
                needed.
            summary: with ``loader``, a callable returning
                ``[(CaseKey, contended, nodelist, tags), ...]`` of its
                records without loading them (:meth:`case_summary`).
        """
        if session.uuid in self.sessions:
            return

        self.sessions[session.uuid] = session
        if records is not None:
            self._loaded[session.uuid] = self._in_order(records)
        else:
            self._loaders[session.uuid] = loader
            if summary is not None:
                self._summaries[session.uuid] = summary

        if figures is not None:
            self._figures[session.uuid] = figures

        self._records = None

    def finish(self):
        return self

    @staticmethod
    def _in_order(records):
        return sorted(records, key=lambda r: (r.run_index, r.repeat))

    def _session_records(self, uuid):
        found = self._loaded.get(uuid)
        if found is None:
            loader = self._loaders.pop(uuid, None)
            found = self._in_order(loader()) if loader else []
            self._loaded[uuid] = found

        return found

    @property
    def records(self):
        """Every record, in session start order (loads every session)."""
        if self._records is None:
            self._records = [rec for s in self.ordered_sessions()
                             for rec in self._session_records(s.uuid)]

        return self._records

    def ordered_sessions(self):
        """Sessions, oldest first."""
        return sorted(self.sessions.values(),
                      key=lambda s: (s.time_start, s.uuid))

    def by_session(self, uuid):
        """The records of one session."""
        return list(self._session_records(uuid))

    def case_records(self, uuid):
        """``{CaseKey: [Record, ...]}`` of one session (kept)."""
        found = self._case_records.get(uuid)
        if found is None:
            found = self._case_records[uuid] = {}
            for rec in self._session_records(uuid):
                found.setdefault(rec.key, []).append(rec)

        return found

    def case_summary(self, uuid):
        """``{CaseKey: CaseSummary}`` of one session: whether a repeat of
        the case was left out as contended, its nodes and tags (read by
        the session's own query while its records are not loaded)."""
        found = self._summaries.get(uuid)
        if isinstance(found, dict):
            return found
        if found is None or uuid in self._loaded:
            rows = [(r.key, r.contended, r.nodelist, r.tags)
                    for r in self._session_records(uuid)]
        else:
            rows = found()
        found = self._summaries[uuid] = {}
        for key, contended, nodes, tags in rows:
            was = found.get(key)
            found[key] = CaseSummary(
                contended or False, frozenset(nodes), frozenset(tags)
            ) if was is None else CaseSummary(
                contended or was.contended, was.nodes.union(nodes),
                was.tags.union(tags))
        return found

    def contended_cases(self, uuid):
        """``{CaseKey}`` of one session: the cases with a repeat left out
        as contended (taken once: a night judges every case against
        it)."""
        found = self._contended.get(uuid)
        if found is not None:
            return found
        summary = self._summaries.get(uuid)
        query = getattr(summary, 'contended', None)
        if query is not None and uuid not in self._loaded:
            # Not yet read: the store's own query for these keys only.
            found = frozenset(query())
        else:
            found = frozenset(key for key, s in
                              self.case_summary(uuid).items() if s.contended)
        self._contended[uuid] = found
        return found

    def series(self):
        """``(Series, inside)``: every case's nights as columns
        (:class:`~pfsbench.gate.history.series.Series`, from the results
        store where it keeps them) and, per position of its sessions,
        whether the session is one of these results' (the store's may
        hold more)."""
        if self._series is None:
            self._series = Series()
            for session in self.ordered_sessions():
                self._series.add(session, self.figures(session.uuid))

        if self._inside is None:
            self._inside = [u in self.sessions for u in self._series.uuids]

        return self._series, self._inside

    def use_series(self, series):
        """Read the history from ``series`` (every session of the
        source, these results' among them: pfsbench.store keeps it)."""
        self._series, self._inside = series, None

    def figures(self, uuid):
        """:func:`session_figures` of one session (kept)."""
        found = self._figures.get(uuid)
        if found is None:
            found = self._figures[uuid] = session_figures(
                self._session_records(uuid))

        return found

    def resolve_session(self, spec):
        """A session uuid from a full uuid, a unique prefix, ``latest`` or
        ``latest~N`` (N sessions before the latest).

        Raises:
            MissingData: no such session.
            ConfigError: an ambiguous prefix.
        """
        ordered = self.ordered_sessions()
        if not ordered:
            raise MissingData(f'{self.source}: no sessions stored')

        match = re.fullmatch(r'latest(?:~(\d+))?', spec)
        if match:
            back = int(match.group(1) or 0)
            if back >= len(ordered):
                raise MissingData(
                    f'{self.source}: session {spec!r}: only '
                    f'{len(ordered)} sessions stored'
                )

            return ordered[-1 - back].uuid

        found = [u for u in self.sessions if u.startswith(spec)]
        if not found:
            raise MissingData(f'{self.source}: session {spec!r}: not found '
                              '(see pfsbench baseline sessions)')

        if len(found) > 1:
            raise ConfigError(self.source, 'session', spec,
                              f'ambiguous prefix, matches {len(found)} '
                              'sessions')

        return found[0]


def read_reports(paths):
    """Load run report files (``run-report-*.json``).

    Args:
        paths: report file names.

    Returns:
        A :class:`Results`.

    Raises:
        MissingData: a file does not exist.
        ResultsError: a file is not JSON or not a ReFrame 4 run report.
    """
    results = Results(', '.join(paths))
    for path in paths:
        report = runreport.read(path)
        results.add_report(report, path)

    return results.finish()
