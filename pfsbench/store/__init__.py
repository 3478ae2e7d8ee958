# SPDX-License-Identifier: BSD-3-Clause
"""The results store: every cluster's nights in one database.

ReFrame keeps each runs directory's history to itself (its SQLite file,
one JSON blob per session).  The store holds the same sessions as rows,
one per figure per repeat, for many clusters: SQLite by default (a file
under the runs directory), PostgreSQL for a site
(:mod:`pfsbench.store.db`; schema in :mod:`pfsbench.store.schema`).

- :func:`ingest_report` loads one ReFrame run report; a session already
  there is left as it is (loading twice is one session).
- :func:`read_results` gives one cluster's sessions as the
  :class:`~pfsbench.gate.store.results.Results` the gate reads from a
  runs directory: the same sessions and records, so the same verdicts.
- :func:`figure_history` is one figure across clusters over time.
- :mod:`pfsbench.store.spool` keeps a night's report while the store
  does not answer.
"""

import contextlib
import datetime
import json
import math

from pfsbench.core import fields
from pfsbench.core.errors import ConfigError, MissingData
from pfsbench.gate.store import index
from pfsbench.gate.store.results import (INDEX_STAMP, SERIES_STAMP,
                                         CaseKey, Record, Results, Session,
                                         records_of_report, session_figures,
                                         untimed_of)
from pfsbench.gate.store.series import Series
from pfsbench.store import schema
from pfsbench.store.db import Connection, StoreDown, StoreRefused  # noqa: F401


def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(
        timespec='seconds')


def night_of(time_start):
    """The UTC date of a session's start, ``YYYY-MM-DD``."""
    try:
        return datetime.datetime.fromtimestamp(
            time_start, datetime.timezone.utc).date().isoformat()
    except (OverflowError, OSError, ValueError):
        return '0000-00-00'


def open_store(url, *, create=True, migrate=True, timeout=10.0):
    """A :class:`~pfsbench.store.db.Connection` to the store at ``url``
    (a path, ``sqlite:///PATH`` or ``postgresql://...``), its schema
    brought up to date when ``migrate``.

    Raises:
        StoreDown: the store does not answer.
        StoreRefused: it refuses the login or the migration (exit 2).
    """
    conn = Connection(url, create=create, timeout=timeout)
    try:
        if migrate:
            schema.migrate(conn, _now())
        elif schema.applied_version(conn) is None:
            raise MissingData(f'{conn.where}: no pfsbench results store '
                              'there yet (pfsbench ingest creates it)')
    except conn.errors as err:
        conn.close()
        raise conn.error(err) from None
    except BaseException:
        conn.close()
        raise
    return conn


def _json(value):
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
    return number, _json(value)


def ingest_report(conn, report, source, system=None, commit=True):
    """Load one decoded run report into the store, in one transaction.

    Args:
        conn: :func:`open_store`.
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
    figures = session_figures(records)
    cluster = system or next((r.key.system for r in records), '') or \
        session.hostname or 'unknown'
    night = night_of(session.time_start)
    extras = session.extras
    try:
        cur = conn.execute(
            'INSERT INTO pfsbench_sessions VALUES('
            '?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) '
            'ON CONFLICT (uuid) DO NOTHING',
            (session.uuid, cluster, night, session.time_start,
             session.time_end, session.reframe_version,
             session.data_version, session.hostname, session.cmdline,
             session.num_cases, session.num_failures, session.num_aborted,
             session.num_skipped, _json(extras),
             str(extras.get('spack_lock') or ''), source, _now(),
             _figures_blob(figures), _STAMP))
        if cur.rowcount == 0:
            if commit:
                conn.rollback()
            return session.uuid, cluster, False

        cases, figures = [], []
        for seq, rec in enumerate(records):
            tags = dict(rec.tags)
            target = str(tags.get(fields.TARGET_PATH, ''))
            fstype = str(tags.get(fields.TARGET_FSTYPE, ''))
            cases.append((
                session.uuid, seq, rec.key.name, rec.key.system,
                rec.key.partition, rec.key.environ, target, fstype,
                rec.run_index, rec.repeat, rec.result, rec.fail_phase,
                rec.fail_reason, rec.time, rec.jobid,
                _json(list(rec.nodelist)), _json(rec.config),
                _json([list(t) for t in rec.tags]), rec.iterations,
                int(rec.contended), rec.contention, ' '.join(rec.untimed)))
            for pos, (var, (value, unit)) in enumerate(rec.perf.items()):
                number, raw = _value_columns(value)
                figures.append((
                    session.uuid, seq, pos, cluster, rec.key.partition,
                    target, fstype, rec.key.name, rec.key.system,
                    rec.key.environ, var, unit, number, raw, rec.repeat,
                    night, session.time_start))

        conn.insert_rows('pfsbench_cases', cases)
        conn.insert_rows('pfsbench_figures', figures)
        if commit:
            conn.commit()
    except conn.errors:
        conn.rollback()
        raise

    return session.uuid, cluster, True


#: What a session's figures were computed with (the index's stamp: bumped
#: whenever what the history reads of a session changes).
_STAMP = json.dumps(INDEX_STAMP)


def _figures_blob(figures):
    return index.dumps({tuple(k.as_dict().values()): v
                        for k, v in figures.items()})


def systems(conn):
    """The clusters in the store, sorted."""
    return [s for s, in conn.execute(
        'SELECT DISTINCT system FROM pfsbench_sessions ORDER BY system')]


def choose_system(conn, system):
    """``system``, or the store's only cluster when None.

    Raises:
        ConfigError: no such cluster, or several and none named.
    """
    known = systems(conn)
    if system is None:
        if len(known) == 1:
            return known[0]
        raise ConfigError('<command line>', '--system', None,
                          f'{conn.where} holds {len(known)} clusters '
                          f'({", ".join(known) or "none"}): name one')
    if system not in known:
        raise MissingData(f'{conn.where}: cluster {system!r}: no sessions '
                          f'stored (known: {", ".join(known) or "none"})')
    return system


def _decode_value(number, raw):
    return json.loads(raw) if raw is not None else number


_SESSION_COLUMNS = ('uuid, time_start, time_end, reframe_version, '
                    'data_version, hostname, cmdline, num_cases, '
                    'num_failures, num_aborted, num_skipped, extras, source')


#: Nights a kept series may lag its cluster's sessions before a writer
#: rewrites it (``pfsbench ingest`` and ``pfsbench gate``): a reader adds
#: those nights in memory (about 0.03 s each for 500 cases), while the
#: rewrite of a year's series is about 2.5 s (bench/store_speed.py), so
#: a night's ingest stays a write of its own rows (0.5-0.75 s) on six
#: nights of seven.
SERIES_LAG = 6


def read_results(conn, system, *, newest=None, newest_since=None,
                 target=None, chunk=100, keep=True, lag=0):
    """One cluster's sessions as :class:`Results`, as the gate reads them
    from a runs directory: the sessions of the window, their records
    loaded from the store when first needed (the current night's, the
    baseline's, those around a change point), and the history's
    :class:`~pfsbench.gate.store.series.Series` of every session of the
    cluster (as the index beside a runs directory keeps it for every
    session of its database).

    The series is kept in the store (``pfsbench_series``, one per
    cluster and target): read, brought up to date with the sessions
    stored since (their figures kept at ingest), and written back when
    it changed and ``keep`` and the store lets this role write it.

    Args:
        conn: :func:`open_store`.
        system: the cluster.
        newest: only the newest this many sessions.
        newest_since: add the sessions started at or after this Unix
            time to ``newest``.
        target: only the test cases that wrote to this target path.
        keep: write the series back when it changed (best effort).
        lag: leave the kept series as it is while it only misses at most
            this many new nights (:data:`SERIES_LAG`).
    """
    sessions, stamps = _sessions_of(conn, system)
    series = _synced_series(conn, system, target, sessions, stamps, chunk,
                            keep, lag)

    order = list(sessions)
    if newest_since is not None:
        newest = (newest or 0) + sum(
            1 for s in sessions.values() if s.time_start >= newest_since)
    if newest is not None:
        order = order[max(0, len(order) - int(newest)):] if newest > 0 \
            else []

    results = Results(f'{conn.where} (cluster {system})')
    url = conn.url
    for uuid in order:
        results.add_session(sessions[uuid],
                            loader=_loader(url, uuid, target))
    results.use_series(series)
    return results.finish()


def _sessions_of(conn, system):
    """``({uuid: Session}, {uuid: figures stamp})`` of one cluster,
    oldest first (by start time, then uuid, as Results orders them)."""
    sessions, stamps = {}, {}
    rows = conn.execute(f'SELECT {_SESSION_COLUMNS}, figures_stamp FROM '
                        'pfsbench_sessions WHERE system = ?',
                        (system,)).fetchall()
    # Sorted here, not in SQL: a PostgreSQL collation may order the
    # uuids of sessions started in the same second otherwise.
    rows.sort(key=lambda r: (r[1], r[0]))
    for row in rows:
        (uuid, start, end, rf_version, data_version, host, cmdline, ncases,
         nfail, nabort, nskip, extras, source, stamp) = row
        sessions[uuid] = Session(
            uuid=uuid, time_start=start, time_end=end,
            reframe_version=rf_version, data_version=data_version,
            hostname=host, cmdline=cmdline, num_cases=ncases,
            num_failures=nfail, num_aborted=nabort, num_skipped=nskip,
            extras=json.loads(extras), source=source)
        stamps[uuid] = stamp
    return sessions, stamps


#: What a kept series was computed with (the index's series stamp).
_SERIES_STAMP = json.dumps(SERIES_STAMP)


def _scope(target):
    return json.dumps(target, ensure_ascii=False)


def _synced_series(conn, system, target, sessions, stamps, chunk, keep,
                   lag=0):
    """The cluster's kept series brought up to date with ``sessions``
    (as pfsbench.gate.store.results does with the index's): a session
    gone is dropped, new ones are appended, a session older than the
    newest kept one starts it again; written back when it changed (only
    appended: when more than ``lag`` nights were)."""
    scope = _scope(target)
    series = _load_series(conn, system, scope)
    changed = False
    if series is not None and not sessions.keys() >= set(series.uuids):
        series = series.drop(sessions)
        changed = True

    new = [u for u in sessions if series is None or u not in series.sessions]
    if new:
        newest = series.newest_key() if series is not None else None
        first = sessions[new[0]]
        if newest is None or (first.time_start, first.uuid) < newest:
            series = Series()
            new = list(sessions)
            changed = True
        elif len(new) > lag:
            changed = True
        # A chunk at a time: a year's figures need not be held at once.
        for start in range(0, len(new), chunk):
            part = new[start:start + chunk]
            figures = _figures_of(conn, part, stamps, target)
            for uuid in part:
                series.add(sessions[uuid], figures[uuid])
    elif series is None:
        series = Series()

    if changed and keep:
        _save_series(conn, system, scope, series)
    return series


def _figures_of(conn, uuids, stamps, target):
    """``{uuid: session_figures}``: as kept at ingest where they were
    kept by this pfsbench for every target, else from the rows."""
    out, keys = {}, {}
    kept = [u for u in uuids if stamps[u] == _STAMP] if target is None \
        else []
    if kept:
        marks = ','.join('?' * len(kept))
        for uuid, blob in conn.execute(
                f'SELECT uuid, figures FROM pfsbench_sessions WHERE uuid '
                f'IN ({marks})', kept):
            try:
                found = index.loads(blob)
            except index.Damaged:
                continue
            out[uuid] = {keys.get(k) or keys.setdefault(k, CaseKey(*k)): v
                         for k, v in found.items()}
    todo = [u for u in uuids if u not in out]
    if todo:
        for uuid, records in _records(conn, todo, target).items():
            out[uuid] = session_figures(records)
    return out


def _load_series(conn, system, scope):
    """The kept series of ``system`` and ``scope``, or None (none kept,
    kept by another pfsbench, damaged, a store of schema 1)."""
    try:
        row = conn.execute('SELECT stamp, body FROM pfsbench_series WHERE '
                           'system = ? AND scope = ?',
                           (system, scope)).fetchone()
    except conn.errors:
        conn.rollback()
        return None
    if row is None or row[0] != _SERIES_STAMP:
        return None
    try:
        series = index.loads(row[1])
    except index.Damaged:
        return None
    return series if isinstance(series, Series) else None


#: How long writing the series may wait for another writer of the same
#: row (or, on SQLite, of the file) before it gives up: the series is a
#: cache, a gate must not wait for it.
SERIES_LOCK_WAIT = 0.5


def _save_series(conn, system, scope, series):
    """Keep ``series`` in the store; True if it was written.  Nothing
    happens where this role may not write it (a read role), another
    writer holds it, or the store is of schema 1."""
    try:
        if conn.postgres:
            row = conn.execute(
                "SELECT has_table_privilege('pfsbench_series', 'INSERT') "
                "AND has_table_privilege('pfsbench_series', 'UPDATE')"
            ).fetchone()
            if not row[0]:
                conn.rollback()
                return False
            conn.execute(f"SET LOCAL lock_timeout = "
                         f"'{int(SERIES_LOCK_WAIT * 1000)}ms'")
        else:
            conn.execute(f'PRAGMA busy_timeout = '
                         f'{int(SERIES_LOCK_WAIT * 1000)}')
        body = index.dumps(series)
        newest = series.uuids[-1] if series.uuids else ''
        conn.execute(
            'INSERT INTO pfsbench_series VALUES(?, ?, ?, ?, ?, ?, ?) '
            'ON CONFLICT (system, scope) DO UPDATE SET stamp = '
            'excluded.stamp, sessions = excluded.sessions, newest = '
            'excluded.newest, body = excluded.body, written = '
            'excluded.written',
            (system, scope, _SERIES_STAMP, len(series.uuids), newest, body,
             _now()))
        conn.commit()
        return True
    except conn.errors:
        conn.rollback()
        return False
    except TypeError:               # a value the codec does not keep
        conn.rollback()
        return False
    finally:
        if not conn.postgres:
            with contextlib.suppress(*conn.errors):
                conn.execute('PRAGMA busy_timeout = '
                             f'{int(conn.timeout * 1000)}')


def refresh_series(conn, system, lag=0):
    """Bring every series kept for ``system`` (and the one of all its
    targets) up to date with its sessions, as ``pfsbench ingest`` does
    after a night: the gate then reads them as they are (``lag``: left
    as they are while they miss at most that many new nights).  Returns
    the number of sessions of the cluster's series."""
    scopes = {_scope(None)}
    try:
        scopes.update(s for s, in conn.execute(
            'SELECT scope FROM pfsbench_series WHERE system = ?', (system,)))
    except conn.errors:
        conn.rollback()
        return 0
    sessions, stamps = _sessions_of(conn, system)
    for scope in sorted(scopes):
        try:
            target = json.loads(scope)
        except ValueError:
            continue
        _synced_series(conn, system, target, sessions, stamps, 100, True,
                       lag)
    return len(sessions)


def _loader(url, uuid, target):
    def load():
        with open_store(url, create=False, migrate=False) as conn:
            return _records(conn, [uuid], target)[uuid]
    return load


def _records(conn, uuids, target=None, chunk=200):
    """``{uuid: [Record, ...]}`` of these sessions, as the report reader
    makes them."""
    keys, configs, nodelists, tag_sets = {}, {}, {}, {}
    records = {u: [] for u in uuids}
    # A store read as it is (a reader's role does not migrate) may predate
    # the column: its cases timed every figure they logged.
    untimed_column = ('untimed' if (schema.applied_version(conn) or 0) >=
                      schema.UNTIMED_COLUMN else "''")
    for start in range(0, len(uuids), chunk):
        part = uuids[start:start + chunk]
        marks = ','.join('?' * len(part))
        perf = {}
        for (uuid, seq, var, unit, number, raw) in conn.execute(
                'SELECT session, seq, figure, unit, value, raw FROM '
                f'pfsbench_figures WHERE session IN ({marks}) '
                'ORDER BY session, seq, pos', part):
            perf.setdefault((uuid, seq), {})[var] = (
                _decode_value(number, raw), unit)

        for row in conn.execute(
                'SELECT session, seq, name, rf_system, partition, environ, '
                'target, run_index, repeat, result, fail_phase, '
                'fail_reason, time, jobid, nodelist, config, tags, '
                f'iterations, contended, contention, {untimed_column} '
                f'FROM pfsbench_cases WHERE session IN ({marks}) '
                'ORDER BY session, seq', part):
            (uuid, seq, name, rf_system, partition, environ, case_target,
             run_index, repeat, result, fail_phase, fail_reason, when,
             jobid, nodelist, config, tags, iterations, contended,
             contention, untimed) = row
            if target is not None and case_target != target:
                continue
            ident = (name, rf_system, partition, environ)
            key = keys.get(ident) or keys.setdefault(ident, CaseKey(*ident))
            # Shared, as the report reader shares them (a year of nights).
            nodes = nodelists.setdefault(nodelist,
                                         tuple(json.loads(nodelist)))
            cfg = configs.setdefault(config, json.loads(config))
            tagged = tag_sets.setdefault(
                tags, tuple(tuple(t) for t in json.loads(tags)))
            records[uuid].append(Record(
                key=key, session=uuid, run_index=run_index, repeat=repeat,
                result=result, fail_phase=fail_phase,
                fail_reason=fail_reason, time=when, jobid=jobid,
                nodelist=nodes, perf=perf.get((uuid, seq), {}),
                config=cfg, tags=tagged, iterations=iterations,
                contended=bool(contended), contention=contention,
                untimed=untimed_of(untimed)))
    return records


def save_baseline(conn, system, baseline):
    """Keep a baseline (the dict ``pfsbench baseline record`` writes) for
    ``system``.  Insert only (an ingest role has INSERT and SELECT, no
    UPDATE or DELETE): a baseline of that name kept already stays.

    Returns:
        ``'stored'``, ``'already stored'`` or ``'differs'`` (another
        baseline of that name is kept; record the new one under a new
        name).
    """
    name = baseline['name']
    body = _json(baseline)
    row = conn.execute('SELECT body FROM pfsbench_baselines WHERE '
                       'system = ? AND name = ?', (system, name)).fetchone()
    if row is not None:
        return 'already stored' if row[0] == body else 'differs'
    conn.execute('INSERT INTO pfsbench_baselines VALUES(?, ?, ?, ?) '
                 'ON CONFLICT (system, name) DO NOTHING',
                 (system, name, body, _now()))
    conn.commit()
    return 'stored'


def load_baseline(conn, system, name):
    """``(baseline, where)`` of a baseline kept for ``system`` (decoded,
    not validated: the gate validates it as it does a file).

    Raises:
        MissingData: none of that name (the message lists those kept).
        ConfigError: it is not JSON.
    """
    where = f'{conn.where}#baselines/{system}/{name}'
    row = conn.execute('SELECT body FROM pfsbench_baselines WHERE '
                       'system = ? AND name = ?', (system, name)).fetchone()
    if row is None:
        kept = [n for n, in conn.execute(
            'SELECT name FROM pfsbench_baselines WHERE system = ? '
            'ORDER BY name', (system,))]
        raise MissingData(f'{where}: baseline not found (kept for '
                          f'{system}: {", ".join(kept) or "none"}; pfsbench '
                          'ingest --from-runs DIR loads a runs directory\'s '
                          'baselines)')
    try:
        data = json.loads(row[0])
    except ValueError as err:
        raise ConfigError(where, '<json>', None, f'not JSON: {err}') from None
    return data, where


def figure_history(conn, figure, *, name=None, systems_=None, since=None):
    """One figure over time, across clusters and targets: ``[{system,
    partition, target, filesystem, name, night, session, n, mean, min,
    max, unit}]`` per session and case, oldest first.

    Args:
        figure: the figure (``write_bw``).
        name: only cases whose name holds this text (a substring).
        systems_: only these clusters.
        since: only nights on or after this ``YYYY-MM-DD``.
    """
    query = ('SELECT system, partition, target, filesystem, name, night, '
             'session, time_start, unit, value FROM pfsbench_figures '
             'WHERE figure = ? AND value IS NOT NULL')
    args = [figure]
    if name:
        # instr / strpos: a substring, no LIKE wildcards to escape.
        query += (' AND strpos(name, ?) > 0' if conn.postgres
                  else ' AND instr(name, ?) > 0')
        args.append(name)
    if systems_:
        query += f' AND system IN ({",".join("?" * len(systems_))})'
        args += list(systems_)
    if since:
        query += ' AND night >= ?'
        args.append(since)
    query += ' ORDER BY time_start, session, system, target, name'

    out = {}
    for (system, partition, target, fstype, case, night, session, start,
         unit, value) in conn.execute(query, args):
        key = (start, session, system, partition, target, case)
        entry = out.get(key)
        if entry is None:
            entry = out[key] = {
                'system': system, 'partition': partition, 'target': target,
                'filesystem': fstype, 'name': case, 'night': night,
                'time': start, 'session': session, 'unit': unit,
                'values': []}
        entry['values'].append(value)

    rows = []
    for entry in out.values():
        values = entry.pop('values')
        entry.update(n=len(values), mean=sum(values) / len(values),
                     min=min(values), max=max(values))
        rows.append(entry)
    return rows
