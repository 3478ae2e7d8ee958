# SPDX-License-Identifier: BSD-3-Clause
"""Read ReFrame's results: the results database and run report files.

ReFrame 4.10 stores every session's run report (JSON, data version 4.x) in
an SQLite database (``storage`` in the configuration; table ``sessions``
with the report in ``json_blob``, table ``metadata`` with
``schema_version`` 1.0).  ReFrame's own storage class creates the file,
its indexes and its lock when it opens it, so this module does not use it:
it opens the database read-only (``mode=ro``), takes a *shared* lock on
ReFrame's ``.db.lock`` beside it when that file exists (ReFrame holds it
exclusively while it stores a session), and never writes anything.

A test case's identity is its ReFrame name (check name plus its
parameters, ``dd_streaming %nodes=2 %streams_per_node=4``), its
``system:partition`` and its environment.  ``--repeat N`` makes N cases
that differ only in the hidden ``.repeat_no`` parameter; they share the
``name`` and so are samples of the same case.  Re-runs (``--reruns``) add
runs to the report; their cases are samples too.
"""

import contextlib
import errno
import fcntl
import json
import os
import re
import sqlite3
import statistics
import sys
import time
from dataclasses import dataclass

from pfsbench.core import fields
from pfsbench.core.errors import ConfigError, MissingData, ResultsError
from pfsbench.gate.statistics.values import time_problem, value_problem
from pfsbench.gate.store import runreport, index
# CaseKey and Session live in keys (index decodes into them): imported
# here, where the gate has always found them.
from pfsbench.gate.store.keys import (  # noqa: F401
    CaseKey, Session, parse_params, parse_setvars)
from pfsbench.gate.store.series import SERIES_FORMAT, Series

#: Results-database schema this module understands (ReFrame 4.x storage).
DB_SCHEMA_VERSIONS = ('1.0',)

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


def _records_of_report(report, source):
    """Split one decoded run report into a :class:`Session` and
    :class:`Record` list."""
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

    def number(where, value, check):
        # Any number JSON spells (1e308, NaN, 10**400) is read, or
        # refused in one line naming it: never an OverflowError later.
        why = check(value)
        if why:
            raise ResultsError(f'{source}: {where}: {str(value)[:40]}: '
                               f'{why}')
        return value

    session = Session(
        uuid=uuid,
        time_start=float(number('session_info.time_start_unix',
                                info.get('time_start_unix') or 0.0,
                                time_problem)),
        time_end=float(number('session_info.time_end_unix',
                              info.get('time_end_unix') or 0.0,
                              time_problem)),
        reframe_version=str(info.get('version', '')),
        data_version=data_version,
        hostname=str(info.get('hostname', '')),
        cmdline=str(info.get('cmdline', '')),
        **{f: int(number(f'session_info.{f}', info.get(f) or 0,
                         _count_problem))
           for f in ('num_cases', 'num_failures', 'num_aborted',
                     'num_skipped')},
        extras={k: v for k, v in info.items()
                if k not in RESERVED_SESSION_KEYS},
        source=source,
    )
    setvars = {f'-S {k}': v for k, v in session.setvars.items()}
    # A year of nightlies holds ~10^6 records: share equal keys and
    # configuration dicts instead of keeping a copy in each.
    keys, configs, nodelists, tag_sets = {}, {}, {}, {}
    records = []
    for run in report.get('runs') or []:
        for tc in run.get('testcases') or []:
            if tc.get('fixture'):
                continue

            ident = (tc['name'], tc['system'], tc['partition'],
                     tc['environ'])
            key = keys.get(ident)
            if key is None:
                key = keys[ident] = CaseKey(*ident)

            perf = {sys.intern(pkey.rsplit(':', 1)[-1]): (ref[0], ref[4])
                    for pkey, ref in (tc.get('perfvalues') or {}).items()}
            tags = tuple((f, str(tc[f])) for f in fields.TAG_FIELDS
                         if tc.get(f) not in (None, '', '<undefined>'))
            tags = tag_sets.setdefault(tags, tags)
            nodes = tuple(tc.get('job_nodelist') or ())
            nodelist = nodelists.get(nodes)
            if nodelist is None:
                nodelist = nodelists[nodes] = nodes

            cfg = tuple(tc.get(f) for f in fields.CONFIG_FIELDS)
            config = configs.get(cfg)
            if config is None:
                config = {f: tc.get(f) for f in fields.CONFIG_FIELDS
                          if f in tc}
                config.update(setvars)
                configs[cfg] = config

            records.append(Record(
                key=key, session=uuid,
                run_index=int(number('run_index', tc.get('run_index') or 0,
                                     _count_problem)),
                repeat=_repeat_no(tc), result=str(tc.get('result')),
                fail_phase=tc.get('fail_phase') or '',
                fail_reason=tc.get('fail_reason') or '',
                time=float(number(
                    f'{key}: job_completion_time_unix',
                    tc.get('job_completion_time_unix') or session.time_start,
                    time_problem)),
                jobid=str(tc.get('jobid') or ''),
                nodelist=nodelist,
                perf=perf, config=config, tags=tags,
                iterations=_iterations(tc),
                contended=tc.get(fields.CONTENDED) is True,
                contention=str(tc.get(fields.CONTENTION) or ''),
                untimed=untimed_of(tc.get(fields.UNTIMED)),
            ))

    return session, records


#: The public name: pfsbench.store ingests reports with it.
records_of_report = _records_of_report


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
    (:meth:`by_session`, :attr:`records`): the history reads each
    session's :meth:`figures`, which the index keeps beside them.

    Attributes:
        sessions: ``{uuid: Session}``.
        records: every :class:`Record`, in session start order.
        source: the database path or the report files, for messages.
    """

    def __init__(self, source):
        self.source = source
        self.sessions = {}
        self._loaded = {}
        self._loaders = {}
        self._figures = {}
        self._records = None
        self._case_records = {}
        self._series = None
        self._inside = None

    def add_report(self, report, source):
        self.add_session(*_records_of_report(report, source))

    def add_session(self, session, records=None, figures=None,
                    loader=None):
        """Add one session.

        Args:
            session: its :class:`Session`.
            records: its records, or ``None`` with ``loader``.
            figures: its :func:`session_figures`, if known.
            loader: a callable returning its records, called when first
                needed.
        """
        if session.uuid in self.sessions:
            return

        self.sessions[session.uuid] = session
        if records is not None:
            self._loaded[session.uuid] = self._in_order(records)
        else:
            self._loaders[session.uuid] = loader

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

    def series(self):
        """``(Series, inside)``: every case's nights as columns
        (:class:`~pfsbench.gate.store.series.Series`, from the index where it
        keeps them) and, per position of its sessions, whether the
        session is one of these results' (the index may hold more)."""
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


@contextlib.contextmanager
def _reframe_read_lock(db_path, timeout):
    """Hold a shared lock on ReFrame's ``.db.lock`` if it exists.

    ReFrame (fasteners) takes ``lockf`` locks on that file: exclusive while
    it writes a session, shared while it reads.  The file is opened
    read-only and never created.
    """
    lock_path = os.path.join(os.path.dirname(db_path), '.db.lock')
    try:
        fp = open(lock_path, 'r')
    except OSError:
        yield
        return

    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                fcntl.lockf(fp, fcntl.LOCK_SH | fcntl.LOCK_NB)
                break
            except OSError as err:
                if err.errno not in (errno.EACCES, errno.EAGAIN):
                    break

                if time.monotonic() > deadline:
                    raise ResultsError(
                        f'{db_path}: locked: another process (a ReFrame '
                        f'session storing its report?) holds {lock_path} '
                        f'for more than {timeout:g} s; retry later'
                    ) from None

                time.sleep(0.1)

        yield
    finally:
        fp.close()


def require_database(path):
    """Raise MissingData if the results database ``path`` does not exist."""
    if not os.path.exists(path):
        raise MissingData(f'{path}: results database not found (set '
                          '--db or PFSBENCH_RUNS; has ReFrame run with '
                          'storage enabled?)')


def read_database(path, timeout=30.0, since=None, newest=None,
                  newest_since=None):
    """Load every session of a ReFrame results database, read-only.

    Args:
        path: the ``results.db`` file.
        timeout: seconds to wait for a writer to finish.
        since: if set, only sessions that started at or after this Unix
            time.
        newest: if set, only the newest this many sessions (a long
            history then costs no more than its window).
        newest_since: add the number of sessions started at or after this
            Unix time to ``newest`` (the window before a ``--since``).

    Returns:
        A :class:`Results`.

    Raises:
        MissingData: the file does not exist.
        ResultsError: the file is locked, not a ReFrame results database,
            or of an incompatible schema or report version.
    """
    require_database(path)
    uri = 'file:' + _uri_quote(os.path.abspath(path)) + '?mode=ro'
    results = Results(path)
    with _reframe_read_lock(path, timeout):
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=timeout)
        except sqlite3.Error as err:
            raise ResultsError(f'{path}: cannot open: {err}') from None

        try:
            try:
                rows = conn.execute(
                    'SELECT schema_version FROM metadata').fetchall()
            except sqlite3.DatabaseError as err:
                raise ResultsError(
                    f'{path}: metadata.schema_version: {_why(err)}: not a '
                    'ReFrame results database'
                ) from None

            found = rows[0][0] if rows else None
            if found not in DB_SCHEMA_VERSIONS:
                raise ResultsError(
                    f'{path}: metadata.schema_version: {found!r}: '
                    'incompatible results database (pfsbench reads '
                    f'{", ".join(DB_SCHEMA_VERSIONS)}, ReFrame 4.x)'
                )

            query = 'SELECT uuid FROM sessions WHERE 1'
            args = ()
            if since is not None:
                query += ' AND session_start_unix >= ?'
                args += (since,)

            if newest_since is not None:
                newest = (newest or 0) + conn.execute(
                    'SELECT COUNT(*) FROM sessions WHERE '
                    'session_start_unix >= ?', (newest_since,)).fetchone()[0]

            if newest is not None:
                # The sort touches the small columns only, never the blobs.
                query += (' AND uuid IN (SELECT uuid FROM sessions ORDER BY '
                          'session_start_unix DESC LIMIT ?)')
                args += (int(newest),)

            try:
                wanted = [u for u, in conn.execute(query, args)]
                stored = {u for u, in conn.execute(
                    'SELECT uuid FROM sessions')}
                _read_sessions(conn, path, wanted, results, stored)
            except sqlite3.OperationalError as err:
                raise ResultsError(f'{path}: {_why(err)}') from None

            index.prune(index.index_dir(path), stored)
        finally:
            conn.close()

    return results.finish()


#: Record fields in the order :func:`_record_row` keeps them.
_RECORD_FIELDS = tuple(Record.__dataclass_fields__)

#: What an index entry must have been written with: the index format,
#: the record layout and the fields read from a test case.
INDEX_STAMP = (index.INDEX_FORMAT, _RECORD_FIELDS, fields.TAG_FIELDS,
               fields.CONFIG_FIELDS, fields.ITERATION_COUNT_FIELDS,
               fields.CONTENDED, fields.CONTENTION, fields.UNTIMED)


#: What the index's series file must have been written with: the index
#: stamp, the series layout and the session's fields.
SERIES_STAMP = INDEX_STAMP + (SERIES_FORMAT, tuple(
    Session.__dataclass_fields__))


def _record_row(rec):
    """A :class:`Record` as a list of JSON values (its key, node list,
    figures and tags as lists; :func:`_record_of_row` rebuilds it), so
    that the index encodes a year of records with the C encoder."""
    row = [getattr(rec, f) for f in _RECORD_FIELDS]
    row[0] = list(row[0].as_dict().values())
    return row


#: Positions of the fields :func:`_record_row` turns into lists.
_NODES, _PERF, _TAGS, _UNTIMED = (_RECORD_FIELDS.index(f)
                                  for f in ('nodelist', 'perf', 'tags',
                                            'untimed'))


def _record_of_row(row, key):
    """The :class:`Record` of one :func:`_record_row` read back."""
    row = list(row)
    row[_NODES] = tuple(row[_NODES])
    row[_PERF] = {var: (value, unit)
                  for var, (value, unit) in row[_PERF].items()}
    row[_TAGS] = tuple((name, value) for name, value in row[_TAGS])
    row[_UNTIMED] = tuple(row[_UNTIMED])
    return Record(key, *row[1:])


def _read_sessions(conn, path, uuids, results, stored):
    """Add the sessions ``uuids`` to ``results``: from the index beside
    the database (pfsbench.gate.store.index) where it holds them, their records
    loaded when first needed; decoding ReFrame's JSON (and indexing it)
    where not.  The index's :class:`~pfsbench.gate.store.series.Series` gives
    the sessions it holds without opening their files, and gets the new
    ones (``stored``: every session the database holds)."""
    directory = index.index_dir(path)
    series = index.load_series(directory, SERIES_STAMP)
    changed = False
    if series is not None and not stored.issuperset(series.uuids):
        series = series.drop(stored)
        changed = True

    keys = {}

    def records_of(rows):
        out = []
        for row in rows:
            ident = tuple(row[0])
            key = keys.get(ident)
            if key is None:
                key = keys[ident] = CaseKey(*ident)

            out.append(_record_of_row(row, key))

        return out

    def loader(uuid):
        def load():
            found = index.load_records(directory, uuid, INDEX_STAMP)
            if found is not None:
                try:
                    return records_of(found)
                except (TypeError, ValueError, AttributeError):
                    pass  # damaged: decoded again below

            # Gone, written otherwise or damaged since: decode it again.
            return _decode_again(path, uuid)

        return load

    todo = []
    for uuid in uuids:
        if series is not None and uuid in series.sessions:
            results.add_session(series.sessions[uuid], loader=loader(uuid))
            continue

        found = index.load(directory, uuid, INDEX_STAMP)
        if found is None:
            todo.append(uuid)
            continue

        session, figures = found
        figures = {keys.get(k) or keys.setdefault(k, CaseKey(*k)): v
                   for k, v in figures.items()}
        results.add_session(session, figures=figures, loader=loader(uuid))

    _decode(conn, path, todo, results, directory)
    if directory is None:
        return

    new = [s for s in results.ordered_sessions()
           if series is None or s.uuid not in series.sessions]
    if new:
        newest = series.newest_key() if series is not None else None
        if newest is None or (new[0].time_start, new[0].uuid) < newest:
            # A session older than the newest kept one: start again.
            series = Series()
            new = results.ordered_sessions()

        for session in new:
            series.add(session, results.figures(session.uuid))

        changed = True

    if changed:
        index.save_series(directory, series, SERIES_STAMP)

    results._series = series


def _decode(conn, path, uuids, results, directory):
    """Decode the sessions ``uuids`` from ReFrame's JSON into
    ``results`` and index them."""
    for start in range(0, len(uuids), 100):
        chunk = uuids[start:start + 100]
        # No ORDER BY: without ReFrame's index SQLite would sort the
        # blobs in memory; the records are ordered per session.
        cursor = conn.execute(
            'SELECT uuid, json_blob FROM sessions WHERE uuid IN '
            f'({",".join("?" * len(chunk))})', chunk)
        for uuid, blob in cursor:
            try:
                report = json.loads(blob)
            except (TypeError, ValueError) as err:
                raise ResultsError(
                    f'{path}: sessions[{uuid}].json_blob: not JSON: {err}'
                ) from None

            session, records = _records_of_report(report,
                                                  f'{path}[{uuid}]')
            figures = session_figures(records)
            results.add_session(session, records, figures)
            index.save(directory, session,
                       {tuple(k.as_dict().values()): v
                        for k, v in figures.items()},
                       [_record_row(r) for r in records], INDEX_STAMP)


def _decode_again(path, uuid, timeout=30.0):
    """One session's records decoded from the database's JSON (and
    indexed again), for a session whose index entry went missing."""
    uri = 'file:' + _uri_quote(os.path.abspath(path)) + '?mode=ro'
    with _reframe_read_lock(path, timeout):
        conn = sqlite3.connect(uri, uri=True, timeout=timeout)
        try:
            found = Results(path)
            _decode(conn, path, [uuid], found, index.index_dir(path))
        finally:
            conn.close()

    if uuid not in found.sessions:
        raise ResultsError(f'{path}: session {uuid}: deleted while '
                           'reading; run again')

    return found.by_session(uuid)


def _why(err):
    msg = str(err)
    if 'locked' in msg:
        return (f'{msg} (another process is writing it; retry later)')

    return msg


def _uri_quote(path):
    from urllib.parse import quote
    return quote(path, safe='/')


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


def load_results(db=None, reports=None, timeout=30.0, newest=None,
                 newest_since=None):
    """Load results from report files if given, else from the database."""
    if reports:
        return read_reports(reports)

    return read_database(db or default_db_path(), timeout=timeout,
                         newest=newest, newest_since=newest_since)
