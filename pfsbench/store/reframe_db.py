# SPDX-License-Identifier: BSD-3-Clause
"""ReFrame's results database, a source the store ingests: read-only.

ReFrame 4.10 stores every session's run report (JSON, data version 4.x) in
an SQLite database (``storage`` in the configuration; table ``sessions``
with the report in ``json_blob``, table ``metadata`` with
``schema_version`` 1.0).  ReFrame's own storage class creates the file,
its indexes and its lock when it opens it, so this module does not use it:
it opens the database read-only (``mode=ro``), takes a *shared* lock on
ReFrame's ``.db.lock`` beside it when that file exists (ReFrame holds it
exclusively while it stores a session), and never writes anything.
"""

import contextlib
import errno
import fcntl
import json
import os
import sqlite3
import time
from urllib.parse import quote

from pfsbench.core.errors import MissingData, ResultsError

#: Results-database schema this module understands (ReFrame 4.x storage).
DB_SCHEMA_VERSIONS = ('1.0',)


def require_database(path):
    """Raise MissingData if the results database ``path`` does not exist."""
    if not os.path.exists(path):
        raise MissingData(f'{path}: results database not found (set '
                          '--db or PFSBENCH_RUNS; has ReFrame run with '
                          'storage enabled?)')


@contextlib.contextmanager
def _read_lock(db_path, timeout):
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


def _why(err):
    msg = str(err)
    if 'locked' in msg:
        return f'{msg} (another process is writing it; retry later)'
    return msg


@contextlib.contextmanager
def opened(path, timeout=30.0):
    """A read-only connection to the results database ``path``, under
    ReFrame's shared lock, its schema version checked.

    Raises:
        MissingData: the file does not exist.
        ResultsError: the file is locked, not a ReFrame results database,
            or of an incompatible schema.
    """
    require_database(path)
    uri = 'file:' + quote(os.path.abspath(path), safe='/') + '?mode=ro'
    with _read_lock(path, timeout):
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=timeout)
        except sqlite3.Error as err:
            raise ResultsError(f'{path}: cannot open: {err}') from None
        try:
            _check_schema(conn, path)
            yield conn
        except sqlite3.OperationalError as err:
            raise ResultsError(f'{path}: {_why(err)}') from None
        finally:
            conn.close()


def _check_schema(conn, path):
    try:
        rows = conn.execute('SELECT schema_version FROM metadata').fetchall()
    except sqlite3.DatabaseError as err:
        raise ResultsError(f'{path}: metadata.schema_version: {_why(err)}: '
                           'not a ReFrame results database') from None
    found = rows[0][0] if rows else None
    if found not in DB_SCHEMA_VERSIONS:
        raise ResultsError(
            f'{path}: metadata.schema_version: {found!r}: incompatible '
            f'results database (pfsbench reads '
            f'{", ".join(DB_SCHEMA_VERSIONS)}, ReFrame 4.x)')


def listed(conn, since=None):
    """``[(uuid, start)]`` of the database's sessions, oldest first (its
    small columns only, never the blobs); with ``since`` (Unix time)
    only those started at or after it."""
    query, args = 'SELECT uuid, session_start_unix FROM sessions', ()
    if since is not None:
        query, args = query + ' WHERE session_start_unix >= ?', (since,)
    return [(u, t) for u, t in conn.execute(
        query + ' ORDER BY session_start_unix, uuid', args)]


def reports(conn, path, uuids):
    """Yield ``(report, source)`` of the sessions ``uuids``, in that
    order (one gone meanwhile is skipped).

    Raises:
        ResultsError: a blob is not JSON.
    """
    for uuid in uuids:
        row = conn.execute('SELECT json_blob FROM sessions WHERE uuid = ?',
                           (uuid,)).fetchone()
        if row is None:
            continue
        try:
            report = json.loads(row[0])
        except (TypeError, ValueError) as err:
            raise ResultsError(f'{path}: sessions[{uuid}].json_blob: not '
                               f'JSON: {err}') from None
        yield report, f'{path}[{uuid}]'
