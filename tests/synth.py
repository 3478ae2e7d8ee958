# SPDX-License-Identifier: BSD-3-Clause
"""Synthetic ReFrame results, for tests and the gate's own benchmark.

:func:`make_report` builds a run report with the fields the gate reads,
in ReFrame 4.10's layout (data version 4.2); :func:`write_database` stores
reports in an SQLite file with the schema of ReFrame's storage backend
(``reframe/frontend/reporting/storage.py``, schema 1.0).  Real reports
carry many more fields per test case; the gate ignores them.
"""

import json
import random
import sqlite3
import uuid as uuidlib

SCHEMA_VERSION = '1.0'


def make_testcase(session_uuid, run_index, index, name, perf, *,
                  system='local', partition='default', environ='builtin',
                  repeat=None, result='pass', fail_phase=None,
                  fail_reason=None, time=0.0, nodelist=('n1',),
                  num_tasks=1, pad=0, loggable=None):
    """One test-case entry of a run report.

    Args:
        perf: ``{var: (value, unit)}``; a value may be ``None``.
        repeat: ``--repeat`` index, shown in ``display_name``.
        pad: bytes of filler (a real test case holds ~4 kB of fields the
            gate does not read).
        loggable: more loggable variables of the case, ``{name: value}``.
    """
    display = name if repeat is None else f'{name} %.repeat_no={repeat}'
    return {
        'descr': 'x' * pad,
        'name': name, 'display_name': display, 'system': system,
        'partition': partition, 'environ': environ, 'fixture': False,
        'result': result, 'fail_phase': fail_phase,
        'fail_reason': fail_reason, 'run_index': run_index,
        'job_completion_time_unix': time, 'jobid': str(1000 + index),
        'job_nodelist': list(nodelist), 'num_tasks': num_tasks,
        'session_uuid': session_uuid,
        'uuid': f'{session_uuid}:{run_index}:{index}',
        'perfvalues': {f'{system}:{partition}:{var}':
                       [val, 0, None, None, unit, 'pass']
                       for var, (val, unit) in perf.items()},
        **(loggable or {}),
    }


def make_report(cases, *, time_start=0.0, extras=None, cmdline='reframe -r',
                session_uuid=None, num_aborted=0, version='4.10.4'):
    """A run report from a list of test-case entries (one run).

    Args:
        cases: entries from :func:`make_testcase` (their ``session_uuid``
            must be ``session_uuid``).
        extras: session extras (``--session-extras``).
    """
    session_uuid = session_uuid or str(uuidlib.uuid4())
    failures = sum(c['result'] == 'fail' for c in cases)
    info = {
        'data_version': '4.2', 'hostname': 'vm', 'uuid': session_uuid,
        'time_start_unix': time_start, 'time_end_unix': time_start + 60,
        'time_elapsed': 60.0, 'cmdline': cmdline, 'version': version,
        'num_cases': len(cases), 'num_failures': failures,
        'num_aborted': num_aborted, 'num_skipped': 0,
    }
    info.update(extras or {})
    return {'session_info': info, 'restored_cases': [],
            'runs': [{'num_cases': len(cases), 'num_failures': failures,
                      'num_aborted': num_aborted, 'num_skipped': 0,
                      'run_index': 0, 'testcases': cases}]}


def session(name_values, *, time_start, repeats=3, extras=None,
            session_uuid=None, cmdline='reframe -r', unit='MB/s',
            var='write_bw', **kwargs):
    """A report in which every case ran ``repeats`` times.

    Args:
        name_values: ``{case name: [value per repeat]}`` or
            ``{case name: value}`` (then repeated).
    """
    session_uuid = session_uuid or str(uuidlib.uuid4())
    cases = []
    for name, values in name_values.items():
        if not isinstance(values, (list, tuple)):
            values = [values] * repeats

        for rep, val in enumerate(values):
            cases.append(make_testcase(
                session_uuid, 0, len(cases), name, {var: (val, unit)},
                repeat=rep if len(values) > 1 else None,
                time=time_start + 1 + len(cases), **kwargs))

    return make_report(cases, time_start=time_start, extras=extras,
                       cmdline=cmdline, session_uuid=session_uuid)


def write_database(path, reports, schema_version=SCHEMA_VERSION):
    """Store reports the way ReFrame's SQLite backend does."""
    conn = sqlite3.connect(path)
    with conn:
        conn.execute('CREATE TABLE IF NOT EXISTS sessions('
                     'uuid TEXT PRIMARY KEY, session_start_unix REAL, '
                     'session_end_unix REAL, json_blob TEXT, '
                     'report_file TEXT)')
        conn.execute('CREATE TABLE IF NOT EXISTS testcases(name TEXT,'
                     'system TEXT, partition TEXT, environ TEXT, '
                     'job_completion_time_unix REAL, session_uuid TEXT, '
                     'uuid TEXT, FOREIGN KEY(session_uuid) '
                     'REFERENCES sessions(uuid) ON DELETE CASCADE)')
        conn.execute('CREATE TABLE IF NOT EXISTS metadata('
                     'schema_version TEXT)')
        conn.execute('CREATE INDEX IF NOT EXISTS index_testcases_time '
                     'on testcases(job_completion_time_unix)')
        conn.execute('CREATE INDEX IF NOT EXISTS index_sessions_time '
                     'on sessions(session_start_unix)')
        if not conn.execute('SELECT * FROM metadata').fetchall():
            conn.execute('INSERT INTO metadata VALUES(?)', (schema_version,))

        for rep in reports:
            info = rep['session_info']
            conn.execute('INSERT INTO sessions VALUES(?,?,?,?,?)',
                         (info['uuid'], info['time_start_unix'],
                          info['time_end_unix'], json.dumps(rep), None))
            conn.executemany(
                'INSERT INTO testcases VALUES(?,?,?,?,?,?,?)',
                [(tc['name'], tc['system'], tc['partition'], tc['environ'],
                  tc['job_completion_time_unix'], info['uuid'], tc['uuid'])
                 for run in rep['runs'] for tc in run['testcases']])

    conn.close()


def nightly_history(nights, cases, *, repeats=3, noise=0.05, step_night=None,
                    step=0.0, seed=0, day=86400.0, start=1.7e9,
                    variables=('write_bw',), pad=0):
    """Reports of ``nights`` nightly sessions of ``cases`` test cases.

    Every case's figures are ``100 * (1 + noise * N(0, 1))`` MB/s, times
    ``1 + step`` from ``step_night`` on (then the session extras say
    ``fs_version=2.0`` instead of ``1.8``).

    Yields:
        One run report per night.
    """
    rng = random.Random(seed)
    names = [f'synthetic_check %nodes={1 + i % 8} %case={i}'
             for i in range(cases)]
    for night in range(nights):
        after = step_night is not None and night >= step_night
        scale = 1.0 + step if after else 1.0
        sid = str(uuidlib.UUID(int=rng.getrandbits(128)))
        t0 = start + night * day
        entries = []
        for name in names:
            for rep in range(repeats):
                perf = {var: (100.0 * scale * (1.0 + noise * rng.gauss(0, 1)),
                              'MB/s') for var in variables}
                entries.append(make_testcase(sid, 0, len(entries), name, perf,
                                             repeat=rep, time=t0 + 1,
                                             pad=pad))

        yield make_report(entries, time_start=t0, session_uuid=sid, extras={
            'fs_type': 'lustre', 'fs_version': '2.0' if after else '1.8'})
