# SPDX-License-Identifier: BSD-3-Clause
"""The results store's connection: one schema, two backends.

SQLite (the default: a file under the runs directory, nothing to set up)
and PostgreSQL (a site's shared store, ``postgresql://user@host/db``).
The password of a PostgreSQL store comes from where libpq looks for it
(``PGPASSFILE`` or ``~/.pgpass``, a service file), never from a file of
this repository: a URL given to pfsbench should not hold one (a warning
says so), and where it does, messages show it as ``***``.

Every statement is written once with ``?`` placeholders and every value
goes as a parameter: case names and provenance come from users and
configuration files.  For psycopg the ``?`` become ``%s`` (no statement
holds a literal ``?`` or ``%``).

Errors, by what the user must do (docs/results-store.md, "Exit codes"):
the store does not answer (connection refused, timed out, host down) is
:class:`StoreDown`, exit 3, and the night waits in the spool; a login or
a statement the store refuses (wrong or missing password, an unknown
role or database, a missing grant) is :class:`StoreRefused`, exit 2:
waiting would not help.  No message quotes a password
(:mod:`pfsbench.core.secrets`): libpq's own messages are rewritten first.
"""

import getpass
import os
import re
import sqlite3
import sys

from pfsbench.core import secrets
from pfsbench.core.errors import ConfigError, PfsbenchError, ResultsError
from pfsbench.store.columns import insert, names

#: The SQLite file's name under the runs directory.
SQLITE_FILE = 'pfsbench-store.sqlite'


class StoreDown(PfsbenchError):
    """The store does not answer (connection refused, timed out, the
    file cannot be opened); exit 3, missing data."""

    exit_code = 3


class StoreRefused(PfsbenchError):
    """The store answered and refused: the login (password, role,
    database) or a statement (a missing grant); exit 2, a configuration
    to fix."""


#: Words of libpq's and the server's messages for a refused login.
_REFUSALS = ('authentication', 'password', 'pg_hba.conf', 'does not exist',
             'permission denied', 'not permitted to log in', 'certificate',
             'invalid connection option')


def is_postgres(url):
    return secrets.is_postgres(url)


def default_url(runs_dir):
    """The embedded default: ``<runs>/pfsbench-store.sqlite``."""
    return os.path.join(runs_dir, SQLITE_FILE)


def redact(url):
    """``url`` without a password, for messages and reports."""
    return secrets.redact(url)


def conninfo(url):
    """libpq's connection string of a ``postgresql://`` URL, made by
    psycopg from the URL's parts (a password with ``/`` or ``@`` stays
    the password).

    Raises:
        ConfigError: the URL cannot be read (shown redacted).
    """
    from psycopg.conninfo import make_conninfo

    parsed = secrets.parse(url)
    if parsed is None:
        raise ConfigError('<store URL>', 'store', redact(url),
                          'expected postgresql://USER@HOST[:PORT]/DB[?KEY='
                          'VALUE&...] (docs/results-store.md)')
    return make_conninfo('', **parsed.conninfo_args())


def role_of(url):
    """The role a URL logs in as: its user, else libpq's (``PGUSER``,
    else the login name)."""
    parsed = secrets.parse(url)
    user = parsed.user if parsed is not None else None
    return user or os.environ.get('PGUSER') or getpass.getuser()


def refused(where, role, err):
    """The :class:`StoreRefused` of a login or statement the store at
    ``where`` refused ``role``, saying what to fix."""
    text = _first_line(err)
    # The server names the role it refused (a service file may set it).
    named = re.search(r'(?:user|role) "([^"]+)"', text)
    role = named.group(1) if named else role
    if 'permission denied' in text or 'privilege' in text:
        fix = ('grant it the privileges of its job (docs/results-store.md, '
               '"Roles (PostgreSQL)")')
    elif 'does not exist' in text and 'database' in text:
        fix = 'name a database that exists in the store URL'
    else:
        fix = ("give its password in PGPASSFILE (~/.pgpass) or a service "
               "file's passfile, never in a URL (docs/results-store.md)")
    return StoreRefused(f'{where}: the results store refused role {role!r}: '
                        f'{text}; {fix}')


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
        self.role = None
        self.postgres = is_postgres(url)
        if self.postgres:
            self._connect_postgres(url, timeout)
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

    def _connect_postgres(self, url, timeout):
        try:
            import psycopg
        except ImportError:
            raise ConfigError('<store URL>', 'store', self.where,
                              'PostgreSQL needs psycopg 3 (pip install '
                              "'psycopg[binary]')") from None
        self.errors = (psycopg.Error,)
        self.role = role_of(url)
        try:
            self.conn = psycopg.connect(
                conninfo(url), connect_timeout=max(1, int(timeout)),
                application_name='pfsbench')
        except psycopg.Error as err:
            if any(word in str(err) for word in _REFUSALS):
                raise refused(self.where, self.role, err) from None
            raise StoreDown(f'{self.where}: the results store does not '
                            f'answer: {_first_line(err)}') from None

    def error(self, err):
        """The error to raise for ``err``, a driver's error of a
        statement: :class:`StoreDown`, :class:`StoreRefused` (a missing
        grant) or :class:`ResultsError`, its message redacted."""
        if self.is_down(err):
            return StoreDown(f'{self.where}: the results store stopped '
                             f'answering: {_first_line(err)}')
        if self.postgres:
            import psycopg
            if isinstance(err, psycopg.errors.InsufficientPrivilege):
                return refused(self.where, self.role, err)
        return ResultsError(f'{self.where}: {_first_line(err)}')

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

    def insert_rows(self, table, columns, rows):
        """Insert ``rows`` (tuples in the order of ``columns``, a list of
        :mod:`pfsbench.store.columns`) into ``table`` (a name of the
        schema, never user input): PostgreSQL's COPY (a night's thousands
        of rows in one stream; INSERT privilege is all it needs), SQLite's
        executemany."""
        if not rows:
            return
        if self.postgres:
            with self.conn.cursor() as cur:
                with cur.copy(f'COPY {table} ({names(columns)}) '
                              'FROM STDIN') as copy:
                    for row in rows:
                        copy.write_row(row)
        else:
            self.executemany(insert(table, columns), rows)

    def begin(self):
        """Open a transaction that also holds DDL: Python's sqlite3 (its
        legacy transaction mode) runs ``CREATE`` and ``ALTER`` in
        autocommit unless one is open; psycopg opens one itself."""
        if not self.postgres and not self.conn.in_transaction:
            self.conn.execute('BEGIN')

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

    def __exit__(self, kind, err, tb):
        if kind is not None:
            try:
                self.rollback()
            except self.errors:
                pass
        self.close()
        if isinstance(err, self.errors):
            # A driver's error leaves as one of ours, its text redacted.
            raise self.error(err) from None


def _first_line(err):
    """The first line of a driver's message, no password in it."""
    text = secrets.scrub(str(err).strip()) or type(err).__name__
    return text.splitlines()[0]


def named_url(explicit, configured=None):
    """The store named: ``--store``, else ``$PFSBENCH_STORE``, else the
    one the gate's settings name; None when none is.  A password in the
    first two is warned about (never shown): other users see a command
    line, and the environment goes where the process goes."""
    environ = os.environ.get('PFSBENCH_STORE')
    for origin, url in (('--store', explicit), ('PFSBENCH_STORE', environ)):
        if url:
            if secrets.holds_password(url):
                print(f'pfsbench: warning: {origin} holds a password, which '
                      'other users can see: give it in PGPASSFILE '
                      '(~/.pgpass) or a pg_service.conf service instead '
                      '(docs/results-store.md)', file=sys.stderr)
            return url
    return configured or None


def resolve_url(explicit, runs_dir, configured=None):
    """The store to use: :func:`named_url`, else the SQLite file under the
    runs directory."""
    return named_url(explicit, configured) or default_url(runs_dir)
