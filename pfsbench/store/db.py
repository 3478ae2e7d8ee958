# SPDX-License-Identifier: BSD-3-Clause
"""The results store's connection: one schema, two backends.

SQLite (the default: a file under the runs directory, nothing to set up)
and PostgreSQL (a site's shared store, ``postgresql://user@host/db``).
The password of a PostgreSQL store comes from where libpq looks for it
(``PGPASSFILE`` or ``~/.pgpass``, a service file, ``PGPASSWORD``), never
from a file of this repository: a URL given to pfsbench should not hold
one, and where it does, messages show it as ``***``.

Every statement is written once with ``?`` placeholders and every value
goes as a parameter: case names and provenance come from users and
configuration files.  For psycopg the ``?`` become ``%s`` (no statement
holds a literal ``?`` or ``%``).
"""

import os
import re
import sqlite3
import urllib.parse

from pfsbench.core.errors import ConfigError, PfsbenchError

#: The SQLite file's name under the runs directory.
SQLITE_FILE = 'pfsbench-store.sqlite'


class StoreDown(PfsbenchError):
    """The store does not answer (connection refused, timed out, the
    file cannot be opened); exit 3, missing data."""

    exit_code = 3


def is_postgres(url):
    return bool(url) and re.match(r'postgres(ql)?://', url) is not None


def default_url(runs_dir):
    """The embedded default: ``<runs>/pfsbench-store.sqlite``."""
    return os.path.join(runs_dir, SQLITE_FILE)


def redact(url):
    """``url`` without a password, for messages and reports."""
    if not is_postgres(url):
        return url

    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url

    host = parts.hostname or ''
    if parts.port:
        host += f':{parts.port}'
    user = parts.username or ''
    return urllib.parse.urlunsplit(parts._replace(
        netloc=f'{user}:***@{host}'))


def _sqlite_path(url):
    if url.startswith('sqlite:///'):
        return url[len('sqlite://'):]
    if url.startswith('sqlite:'):
        raise ConfigError('<command line>', '--store', url,
                          'expected sqlite:///ABSOLUTE/PATH, a file path or '
                          'postgresql://...')
    return url


class Connection:
    """A DB-API connection with the store's paramstyle and dialect."""

    def __init__(self, url, *, create=True, timeout=10.0):
        self.url = url
        self.timeout = timeout
        self.where = redact(url)
        self.postgres = is_postgres(url)
        if self.postgres:
            try:
                import psycopg
            except ImportError:
                raise ConfigError('<command line>', '--store', self.where,
                                  'PostgreSQL needs psycopg 3 (pip install '
                                  "'psycopg[binary]')") from None
            self.errors = (psycopg.Error,)
            try:
                self.conn = psycopg.connect(
                    url, connect_timeout=max(1, int(timeout)),
                    application_name='pfsbench')
            except psycopg.Error as err:
                raise StoreDown(f'{self.where}: the results store does not '
                                f'answer: {_first_line(err)}') from None
        else:
            path = _sqlite_path(url)
            self.errors = (sqlite3.Error,)
            if not create and not os.path.exists(path):
                raise StoreDown(f'{path}: results store not found (pfsbench '
                                'ingest creates it)')
            try:
                directory = os.path.dirname(os.path.abspath(path))
                if create:
                    os.makedirs(directory, exist_ok=True)
                self.conn = sqlite3.connect(path, timeout=timeout)
                self.conn.execute('PRAGMA foreign_keys = ON')
            except (OSError, sqlite3.Error) as err:
                raise StoreDown(f'{path}: the results store cannot be '
                                f'opened: {err}') from None

    def is_down(self, err):
        """Whether ``err`` says the store stopped answering (a lost
        connection, a locked or vanished file), not that a statement was
        refused (a missing privilege)."""
        if self.postgres:
            import psycopg
            return isinstance(err, psycopg.OperationalError) and not \
                isinstance(err, psycopg.errors.InsufficientPrivilege)
        text = str(err)
        return isinstance(err, sqlite3.OperationalError) and any(
            word in text for word in ('locked', 'unable to open', 'disk I/O',
                                      'readonly'))

    def sql(self, statement):
        return statement.replace('?', '%s') if self.postgres else statement

    def execute(self, statement, params=()):
        cur = self.conn.cursor()
        cur.execute(self.sql(statement), params)
        return cur

    def executemany(self, statement, rows):
        cur = self.conn.cursor()
        cur.executemany(self.sql(statement), rows)
        return cur

    def insert_rows(self, table, rows):
        """Insert ``rows`` (tuples in the table's column order) into
        ``table`` (a name of the schema, never user input): PostgreSQL's
        COPY (a night's thousands of rows in one stream; INSERT privilege
        is all it needs), SQLite's executemany."""
        if not rows:
            return
        if self.postgres:
            with self.conn.cursor() as cur:
                with cur.copy(f'COPY {table} FROM STDIN') as copy:
                    for row in rows:
                        copy.write_row(row)
        else:
            marks = ','.join('?' * len(rows[0]))
            self.executemany(f'INSERT INTO {table} VALUES({marks})', rows)

    def commit(self):
        self.conn.commit()

    def rollback(self):
        self.conn.rollback()

    def close(self):
        try:
            self.conn.close()
        except self.errors:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[0] is not None:
            try:
                self.rollback()
            except self.errors:
                pass
        self.close()


def _first_line(err):
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0]


def named_url(explicit, configured=None):
    """The store named: ``--store``, else ``$PFSBENCH_STORE``, else the
    one the gate's settings name; None when none is."""
    return explicit or os.environ.get('PFSBENCH_STORE') or configured or None


def resolve_url(explicit, runs_dir, configured=None):
    """The store to use: :func:`named_url`, else the SQLite file under the
    runs directory."""
    return named_url(explicit, configured) or default_url(runs_dir)
