# SPDX-License-Identifier: BSD-3-Clause
"""Decoding the store's rows into what the gate reads of a runs
directory: :class:`~pfsbench.gate.history.results.Session` and
:class:`~pfsbench.gate.history.results.Record`, as the report reader makes
them."""

import dataclasses
import json
import sys

from pfsbench.gate.history.results import CaseKey, Record, Session, untimed_of
from pfsbench.store import columns, schema
from pfsbench.store.connect import open_store

#: What a session row gives the gate: the Session's fields (columns of
#: the same names).  Not the stamp of its kept figures: that column
#: follows the figures in the row, so reading it reads every session's
#: figures (a year: 76 MB, 28 ms against 1 ms; docs/gate-evidence.md,
#: "Speed: a year of nightlies").
_SESSION_READ = tuple(f.name for f in dataclasses.fields(Session))
_SessionRow = columns.reader('SessionRow', _SESSION_READ)
_CaseRow = columns.reader('CaseRow', columns.CASES)


def sessions_of(conn, system):
    """``{uuid: Session}`` of one cluster (None: of every cluster), oldest
    first (by start time, then uuid, as Results orders them)."""
    sessions = {}
    query = f'SELECT {columns.names(_SESSION_READ)} FROM pfsbench_sessions'
    rows = [_SessionRow._make(r) for r in (
        conn.execute(query) if system is None else
        conn.execute(query + ' WHERE system = ?', (system,)))]
    # Sorted here, not in SQL: a PostgreSQL collation may order the
    # uuids of sessions started in the same second otherwise.
    rows.sort(key=lambda r: (r.time_start, r.uuid))
    for row in rows:
        kept = row._asdict()
        kept['extras'] = json.loads(row.extras)
        sessions[row.uuid] = Session(**kept)
    return sessions


def loader(url, uuid, target):
    """A function that reads the records of session ``uuid`` from the
    store at ``url`` when first called (a connection of its own)."""
    def load():
        with open_store(url, create=False, migrate=False) as conn:
            return records_of(conn, [uuid], target)[uuid]
    return load


def summary_loader(url, uuid, target):
    """A function that reads, when first called, what the gate asks of
    session ``uuid``'s cases (of ``target`` only, if given) without their
    figures: ``[(CaseKey, contended, nodelist, tags), ...]``, each
    distinct one of its records once, from one query (a connection of
    its own).  Its ``contended`` attribute reads only the keys of the
    cases with a repeat left out as contended (the night's view of the
    nights before it asks no more)."""
    where = ' WHERE session = ?' + (
        '' if target is None else ' AND target = ?')
    args = [uuid] + ([] if target is None else [target])

    def load():
        # A case's repeats mostly say the same: each distinct row once
        # (the summary merges them by key, in no particular order).
        query = ('SELECT DISTINCT name, rf_system, partition, environ, '
                 'contended, nodelist, tags FROM pfsbench_cases' + where)
        with open_store(url, create=False, migrate=False) as conn:
            rows = conn.execute(query, args).fetchall()
        # Each key, node list and tag text decoded once (a session's
        # repeats share them).
        keys, nodes, tags = {}, {}, {}
        for ident in {row[:4] for row in rows}:
            keys[ident] = CaseKey(*ident)
        for text in {row[5] for row in rows}:
            nodes[text] = tuple(json.loads(text))
        for text in {row[6] for row in rows}:
            tags[text] = tuple(tuple(t) for t in json.loads(text))
        return [(keys[row[:4]], bool(row[4]), nodes[row[5]], tags[row[6]])
                for row in rows]

    def contended():
        query = ('SELECT DISTINCT name, rf_system, partition, environ FROM '
                 'pfsbench_cases' + where + ' AND contended <> 0')
        with open_store(url, create=False, migrate=False) as conn:
            return [CaseKey(*row) for row in conn.execute(query, args)]

    load.contended = contended
    return load


def _figures_of(conn, part):
    """``{(uuid, seq): {figure: (value, unit)}}`` of these sessions."""
    perf = {}
    marks = ','.join('?' * len(part))
    last, found = None, None
    for (uuid, seq, var, unit, number, raw) in conn.execute(
            'SELECT session, seq, figure, unit, value, raw FROM '
            f'pfsbench_figures WHERE session IN ({marks}) '
            'ORDER BY session, seq, pos', part):
        if (uuid, seq) != last:
            last = (uuid, seq)
            found = perf[last] = {}
        found[sys.intern(var)] = (number if raw is None else json.loads(raw),
                                  sys.intern(unit))
    return perf


def records_of(conn, uuids, target=None, chunk=200):
    """``{uuid: [Record, ...]}`` of these sessions, as the report reader
    makes them (``target``: only the cases that wrote there)."""
    keys, configs, nodelists, tag_sets, untimed = {}, {}, {}, {}, {}
    texts = {}
    records = {u: [] for u in uuids}
    # A store read as it is (a reader's role does not migrate) may predate
    # the column: its cases timed every figure they logged.
    older = ({} if (schema.applied_version(conn) or 0) >=
             schema.UNTIMED_COLUMN else {'untimed': "''"})
    select = columns.names(columns.CASES, older)
    for start in range(0, len(uuids), chunk):
        part = uuids[start:start + chunk]
        perf = _figures_of(conn, part)
        for row in conn.execute(
                f'SELECT {select} FROM pfsbench_cases WHERE session IN '
                f'({",".join("?" * len(part))}) ORDER BY session, seq',
                part):
            case = _CaseRow._make(row)
            if target is not None and case.target != target:
                continue
            ident = (case.name, case.rf_system, case.partition, case.environ)
            key = keys.get(ident) or keys.setdefault(ident, CaseKey(*ident))
            # Shared, as the report reader shares them (a year of nights),
            # and each text decoded once.
            nodes = nodelists.get(case.nodelist)
            if nodes is None:
                nodes = nodelists[case.nodelist] = tuple(
                    json.loads(case.nodelist))
            cfg = configs.get(case.config)
            if cfg is None:
                cfg = configs[case.config] = json.loads(case.config)
            if case.untimed not in untimed:
                untimed[case.untimed] = untimed_of(case.untimed)
            tagged = tag_sets.get(case.tags)
            if tagged is None:
                tagged = tag_sets[case.tags] = tuple(
                    tuple(t) for t in json.loads(case.tags))
            share = texts.setdefault
            records[case.session].append(Record(
                key=key, session=share(case.session, case.session),
                run_index=case.run_index, repeat=case.repeat,
                result=share(case.result, case.result),
                fail_phase=share(case.fail_phase, case.fail_phase),
                fail_reason=share(case.fail_reason, case.fail_reason),
                time=case.time, jobid=case.jobid, nodelist=nodes,
                perf=perf.get((case.session, case.seq), {}), config=cfg,
                tags=tagged, iterations=case.iterations,
                contended=bool(case.contended),
                contention=share(case.contention, case.contention),
                untimed=untimed[case.untimed]))
    return records
