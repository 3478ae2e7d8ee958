# SPDX-License-Identifier: BSD-3-Clause
"""Opening the store: a connection with its schema brought up to date."""

import datetime

from pfsbench.core.errors import MissingData
from pfsbench.store import schema
from pfsbench.store.db import Connection


def now():
    """The time a row is written, UTC ISO 8601 to the second."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(
        timespec='seconds')


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
            schema.migrate(conn, now())
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
