# SPDX-License-Identifier: BSD-3-Clause
"""An index of the figures the gate reads, kept beside ReFrame's results
database so that a year of nightlies loads in a second or two.

ReFrame stores each session as one JSON run report (~4 kB per test case);
decoding them all is most of a gate's time.  The index keeps, per session,
what :mod:`pfsbench.gate.store.results` takes from the report, in one SQLite
file, ``<runs>/pfsbench-index/index.sqlite`` (table ``sessions``): the
:class:`~pfsbench.gate.store.results.Session` and its figures grouped per case
(:func:`pfsbench.gate.store.results.session_figures`: all the history needs),
and its records as rows, read only for the sessions whose records are
needed (the current run, the baseline's, those around a change point);
table ``series`` keeps every case's nights as columns
(:mod:`pfsbench.gate.store.series`).

Nothing in it can run code: a runs directory is often shared by a group,
and what one writer puts there another loads.  Values are JSON whose
objects are tagged (tuple, dict as pairs, ``array`` as base64,
``Session``, ``CaseKey``, ``CaseColumns``, ``Series``), decoded into
those types only; an object of any other shape is a damaged entry.  A
file that is not SQLite, or not this index (no ``meta`` row naming
:data:`FORMAT_NAME`), is ignored with a one-line message on stderr and
built again from ReFrame's database.

The list of sessions always comes from ReFrame's database (its small
columns only): a session not yet indexed is decoded from its JSON and
indexed; the entry of a session no longer in the database is removed; an
entry written by another index format or a report reader of another
version is ignored and rewritten.  ReFrame's own file is never written.

The index is a cache: where it cannot be written (a read-only runs
directory, a writer holding its lock), the gate reads the JSON as before;
set ``PFSBENCH_NO_INDEX=1`` to neither read nor write it.
"""

import array
import base64
import contextlib
import json
import os
import sqlite3
import sys

#: Bumped whenever what a session's entry holds changes.
INDEX_FORMAT = 5

#: The index directory's name, beside ``results.db``.
INDEX_DIR = 'pfsbench-index'

#: The SQLite file in it.
INDEX_FILE = 'index.sqlite'

#: The ``meta`` row that says a file is this index.
FORMAT_NAME = 'pfsbench-index'

_SCHEMA = (
    'CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)',
    'CREATE TABLE IF NOT EXISTS sessions(uuid TEXT PRIMARY KEY, '
    'stamp TEXT, head TEXT, records TEXT)',
    'CREATE TABLE IF NOT EXISTS series(id INTEGER PRIMARY KEY, '
    'stamp TEXT, body TEXT)',
)

#: Files already reported as not an index (one message per process).
_reported = set()


class Damaged(ValueError):
    """An entry that does not decode into the index's types."""


def index_dir(db_path):
    """``<dir of db_path>/pfsbench-index``, or ``None`` when the index is
    switched off (``PFSBENCH_NO_INDEX``)."""
    if os.environ.get('PFSBENCH_NO_INDEX', '') not in ('', '0'):
        return None

    return os.path.join(os.path.dirname(os.path.abspath(db_path)),
                        INDEX_DIR)


# -- the codec: JSON of tagged objects, decoded into known types only --

def _encode(obj):
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj

    if isinstance(obj, list):
        return [_encode(v) for v in obj]

    if isinstance(obj, tuple):
        return {'\0t': [_encode(v) for v in obj]}

    if isinstance(obj, dict):
        return {'\0d': [[_encode(k), _encode(v)] for k, v in obj.items()]}

    if isinstance(obj, array.array):
        return {'\0a': [obj.typecode,
                        base64.b64encode(obj.tobytes()).decode('ascii',
                                                              'replace')]}

    from pfsbench.gate.store.keys import CaseKey, Session
    from pfsbench.gate.store.series import CaseColumns, Series
    if isinstance(obj, CaseKey):
        return {'\0K': [obj.name, obj.system, obj.partition, obj.environ]}

    if isinstance(obj, Session):
        return {'\0S': _encode({f: getattr(obj, f)
                                for f in Session.__dataclass_fields__})}

    if isinstance(obj, CaseColumns):
        return {'\0C': _encode({f: getattr(obj, f)
                                for f in CaseColumns.__dataclass_fields__})}

    if isinstance(obj, Series):
        return {'\0Z': _encode({'uuids': obj.uuids,
                                'sessions': obj.sessions,
                                'cases': obj.cases})}

    raise TypeError(f'the index does not keep {type(obj).__name__}')


def _decoder():
    from pfsbench.gate.store.keys import CaseKey, Session
    from pfsbench.gate.store.series import CaseColumns, Series

    def series(fields):
        out = Series()
        out.uuids, out.sessions, out.cases = (
            fields['uuids'], fields['sessions'], fields['cases'])
        return out

    def arr(value):
        code, data = value
        if code not in ('d', 'i'):
            raise Damaged(f'array of type {code!r}')

        return array.array(code, base64.b64decode(data, validate=True))

    tags = {
        '\0t': tuple,
        '\0d': dict,
        '\0a': arr,
        '\0K': lambda v: CaseKey(*v),
        '\0S': lambda v: Session(**v),
        '\0C': lambda v: CaseColumns(**v),
        '\0Z': series,
    }

    def hook(obj):
        if len(obj) != 1:
            raise Damaged('an untagged object')

        (tag, value), = obj.items()
        make = tags.get(tag)
        if make is None:
            raise Damaged(f'unknown tag {tag!r}')

        return make(value)

    return hook


def _dumps(obj):
    return json.dumps(_encode(obj), separators=(',', ':'))


def _loads(text):
    """Decode an entry; :class:`Damaged` for anything that does not
    decode into the index's types."""
    try:
        return json.loads(text, object_hook=_decoder())
    except (ValueError, TypeError, KeyError, AttributeError) as err:
        raise Damaged(str(err)) from None


#: The codec, for the results store (pfsbench.store keeps each session's
#: figures as the index does).
dumps = _dumps
loads = _loads


# -- the file --

def _path(directory):
    return os.path.join(directory, INDEX_FILE)


def _not_an_index(path, why):
    """Report a file that is not this index, once per process."""
    if path not in _reported:
        _reported.add(path)
        print(f'pfsbench: {path}: {why}: not a pfsbench index; ignored, '
              "rebuilt from ReFrame's database", file=sys.stderr)


def _check(conn):
    """``''`` if ``conn`` is this index (or an empty file, then made
    one), else why not."""
    tables = {name for name, in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        with conn:
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.execute('INSERT INTO meta VALUES(?, ?)',
                         ('format', FORMAT_NAME))
        return ''

    if 'meta' not in tables:
        return 'no table meta'

    row = conn.execute(
        "SELECT value FROM meta WHERE key = 'format'").fetchone()
    if row is None or row[0] != FORMAT_NAME:
        return f'meta.format: {row[0] if row else None!r}'

    if not {'sessions', 'series'} <= tables:
        return 'tables sessions and series missing'

    return ''


def _connect(directory, write):
    """A connection to the index in ``directory``, or ``None`` (switched
    off, absent and not to be written, or unusable).  A file that is not
    this index is reported and, for a writer, replaced."""
    if directory is None:
        return None

    path = _path(directory)
    if not write and not os.path.exists(path):
        return None

    try:
        if write:
            os.makedirs(directory, exist_ok=True)
        conn = sqlite3.connect(path, timeout=5.0)
    except (OSError, sqlite3.Error):
        return None

    try:
        why = _check(conn)
    except sqlite3.OperationalError as err:
        if 'locked' in str(err) or 'readonly' in str(err):
            conn.close()
            return None
        why = str(err)
    except sqlite3.DatabaseError as err:
        why = str(err)

    if not why:
        return conn

    conn.close()
    _not_an_index(path, why)
    if not write:
        return None

    # The file at the index's own path is not the index: build it anew.
    try:
        os.unlink(path)
        conn = sqlite3.connect(path, timeout=5.0)
        if _check(conn):
            conn.close()
            return None
    except (OSError, sqlite3.Error):
        return None

    return conn


@contextlib.contextmanager
def _opened(directory, write=False):
    conn = _connect(directory, write)
    try:
        yield conn
    finally:
        if conn is not None:
            conn.close()


def _stamp(stamp):
    return _dumps(stamp)


def _read(directory, uuid, stamp, column, decode=None):
    with _opened(directory) as conn:
        if conn is None:
            return None

        try:
            row = conn.execute(
                f'SELECT stamp, {column} FROM sessions WHERE uuid = ?',
                (uuid,)).fetchone()
        except sqlite3.Error:
            return None

    if row is None or row[0] != _stamp(stamp) or row[1] is None:
        return None

    try:
        return (decode or _loads)(row[1])
    except (Damaged, ValueError):
        return None


def load(directory, uuid, stamp):
    """A session's ``(Session, figures)`` from the index (its records
    stay on disk: :func:`load_records`), or ``None`` if it is not there
    or was written otherwise.

    Args:
        directory: :func:`index_dir`.
        uuid: the session.
        stamp: what the entry must have been written with (the index
            format and the reader's layout), see :func:`save`.
    """
    found = _read(directory, uuid, stamp, 'head')
    if not (isinstance(found, tuple) and len(found) == 2 and
            getattr(found[0], 'uuid', None) == uuid):
        return None

    return found


def load_records(directory, uuid, stamp):
    """A session's record rows from the index (plain JSON lists: the
    caller rebuilds them and decodes the session again if they do not
    fit), or ``None``."""
    found = _read(directory, uuid, stamp, 'records', json.loads)
    return found if isinstance(found, list) else None


def save(directory, session, figures, rows, stamp):
    """Index one session: its figures and its records (rows of plain
    JSON values), each in a column of its own so that the history reads
    only the first; nothing happens where the index cannot be
    written."""
    _write(directory, 'INSERT OR REPLACE INTO sessions VALUES(?,?,?,?)',
           lambda: (session.uuid, _stamp(stamp), _dumps((session, figures)),
                    json.dumps(rows, separators=(',', ':'))))


def _write(directory, statement, values):
    """Run ``statement`` with ``values()`` on the index; nothing happens
    where a value cannot be kept or the index cannot be written."""
    try:
        values = values()
    except TypeError:
        return

    with _opened(directory, write=True) as conn:
        if conn is None:
            return

        with contextlib.suppress(sqlite3.Error), conn:
            conn.execute(statement, values)


def prune(directory, keep):
    """Remove the entries of sessions not in ``keep`` (deleted from the
    database with ``reframe --delete-stored-sessions``)."""
    with _opened(directory) as conn:
        if conn is None:
            return

        try:
            gone = [u for u, in conn.execute('SELECT uuid FROM sessions')
                    if u not in keep]
            if gone:
                with conn:
                    conn.executemany('DELETE FROM sessions WHERE uuid = ?',
                                     [(u,) for u in gone])
        except sqlite3.Error:
            return


def load_series(directory, stamp):
    """The :class:`~pfsbench.gate.store.series.Series` kept in the index, or
    ``None`` (none yet, written otherwise, unreadable)."""
    from pfsbench.gate.store.series import Series

    with _opened(directory) as conn:
        if conn is None:
            return None

        try:
            row = conn.execute(
                'SELECT stamp, body FROM series WHERE id = 0').fetchone()
        except sqlite3.Error:
            return None

    if row is None or row[0] != _stamp(stamp):
        return None

    try:
        series = _loads(row[1])
    except Damaged:
        return None

    return series if isinstance(series, Series) else None


def save_series(directory, series, stamp):
    """Keep ``series`` in the index; nothing happens where it cannot be
    written."""
    _write(directory, 'INSERT OR REPLACE INTO series VALUES(0, ?, ?)',
           lambda: (_stamp(stamp), _dumps(series)))
