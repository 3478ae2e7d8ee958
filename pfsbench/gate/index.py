# SPDX-License-Identifier: BSD-3-Clause
"""An index of the figures the gate reads, kept beside ReFrame's results
database so that a year of nightlies loads in a second or two.

ReFrame stores each session as one JSON run report (~4 kB per test case);
decoding them all is most of a gate's time.  The index keeps, per session,
what :mod:`pfsbench.gate.results` takes from the report, in
``<runs>/pfsbench-index/<uuid>.pickle``: first the
:class:`~pfsbench.gate.results.Session` and its figures grouped per case
(:func:`pfsbench.gate.results.session_figures`: all the history needs),
then its records as tuples, read only for the sessions whose records are
needed (the current run, the baseline's, those around a change point).
The list of sessions always comes from ReFrame's database (its small
columns only):
a session not yet indexed is decoded from its JSON and indexed; the file of
a session no longer in the database is removed; a file written by another
index format or a report reader of another version is ignored and
rewritten.  ReFrame's own file is never written.

The index is a cache: where it cannot be written (a read-only runs
directory), the gate reads the JSON as before; set ``PFSBENCH_NO_INDEX=1``
to neither read nor write it.
"""

import contextlib
import os
import pickle
import tempfile

#: Bumped whenever what a session's file holds changes.
INDEX_FORMAT = 3

#: The index directory's name, beside ``results.db``.
INDEX_DIR = 'pfsbench-index'

_SUFFIX = '.pickle'


def index_dir(db_path):
    """``<dir of db_path>/pfsbench-index``, or ``None`` when the index is
    switched off (``PFSBENCH_NO_INDEX``)."""
    if os.environ.get('PFSBENCH_NO_INDEX', '') not in ('', '0'):
        return None

    return os.path.join(os.path.dirname(os.path.abspath(db_path)),
                        INDEX_DIR)


def _path(directory, uuid):
    return os.path.join(directory, uuid + _SUFFIX)


def _read(directory, uuid, stamp, with_records):
    if directory is None:
        return None

    try:
        with open(_path(directory, uuid), 'rb') as fp:
            found_stamp, session, figures = pickle.load(fp)
            if found_stamp != stamp or session.uuid != uuid:
                return None

            if with_records:
                return pickle.load(fp)
    except (OSError, EOFError, ValueError, TypeError, AttributeError,
            ImportError, IndexError, pickle.UnpicklingError):
        return None

    return session, figures


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
    return _read(directory, uuid, stamp, False)


def load_records(directory, uuid, stamp):
    """A session's record tuples from the index, or ``None``."""
    return _read(directory, uuid, stamp, True)


def save(directory, session, figures, rows, stamp):
    """Index one session: its figures, then its records, each pickled
    on its own so that the history reads only the first (atomically: a
    reader never sees half a file); nothing happens where the directory
    cannot be written."""
    _dump(directory, session.uuid + _SUFFIX, (stamp, session, figures),
          rows)


def _dump(directory, name, *objects):
    """Pickle ``objects`` one after the other into ``directory/name``,
    atomically; nothing happens where the directory cannot be
    written."""
    if directory is None:
        return

    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, suffix='.tmp')
    except OSError:
        return

    try:
        with os.fdopen(fd, 'wb') as fp:
            for obj in objects:
                pickle.dump(obj, fp, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, os.path.join(directory, name))
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def prune(directory, keep):
    """Remove the entries of sessions not in ``keep`` (deleted from the
    database with ``reframe --delete-stored-sessions``)."""
    if directory is None:
        return

    try:
        names = os.listdir(directory)
    except OSError:
        return

    for name in names:
        if name.endswith(_SUFFIX) and name[:-len(_SUFFIX)] not in keep:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(directory, name))


#: The transposed figures of every indexed session
#: (:class:`pfsbench.gate.series.Series`), in the index directory.
SERIES_FILE = 'series' + _SUFFIX + '.all'


def load_series(directory, stamp):
    """The :class:`~pfsbench.gate.series.Series` kept in the index, or
    ``None`` (none yet, written otherwise, unreadable)."""
    if directory is None:
        return None

    try:
        with open(os.path.join(directory, SERIES_FILE), 'rb') as fp:
            found_stamp, series = pickle.load(fp)
    except (OSError, EOFError, ValueError, TypeError, AttributeError,
            ImportError, IndexError, pickle.UnpicklingError):
        return None

    return series if found_stamp == stamp else None


def save_series(directory, series, stamp):
    """Keep ``series`` in the index (atomically; nothing happens where
    the directory cannot be written)."""
    _dump(directory, SERIES_FILE, (stamp, series))
