# SPDX-License-Identifier: BSD-3-Clause
"""A throw-away PostgreSQL cluster for the results store's tests.

Debian's PostgreSQL 15 (``postgresql``; scripts/test.sh installs it as
root): ``initdb`` into a temporary directory, ``pg_ctl`` starts it on
127.0.0.1 on a free port with its own socket directory, and it is
stopped and removed afterwards, also when a test fails.  ``initdb``
refuses to run as root: as root the cluster runs as the ``postgres``
user (Debian's package makes it) through ``runuser``.

Password authentication over TCP (scram): the superuser's password is in
a ``PGPASSFILE`` the fixture writes in its own directory, as a site keeps
it, never in a URL or a file of the repository.
"""

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time

import pytest

#: Where Debian installs PostgreSQL 15's server programs.
PG_BIN = os.environ.get('PFSBENCH_PG_BIN', '/usr/lib/postgresql/15/bin')

#: The superuser the cluster is made with.
SUPERUSER = 'pfsbench_admin'


def pg_missing():
    """Why the cluster cannot start here, or ``''``."""
    for tool in ('initdb', 'pg_ctl', 'postgres'):
        if not os.access(os.path.join(PG_BIN, tool), os.X_OK):
            return (f'PostgreSQL server programs not found in {PG_BIN} '
                    "(Debian package 'postgresql'; scripts/test.sh installs "
                    'it as root)')
    if os.geteuid() == 0:
        try:
            pwd.getpwnam('postgres')
        except KeyError:
            return 'running as root and no postgres user to run initdb as'
        if not shutil.which('runuser'):
            return 'running as root and no runuser to run initdb as postgres'
    return ''


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class Cluster:
    """A running throw-away cluster: :attr:`url` (no password in it),
    :attr:`passfile`, :meth:`psql`-like :meth:`admin` connections,
    :meth:`stop` and :meth:`start` (a test of a store that went down)."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix='pfsbench-pg-')
        self.data = os.path.join(self.root, 'data')
        self.sockets = os.path.join(self.root, 'sockets')
        self.log = os.path.join(self.root, 'server.log')
        self.port = _free_port()
        self.password = os.urandom(12).hex()
        self.passfile = os.path.join(self.root, 'pgpass')
        self.prefix = []
        os.mkdir(self.sockets)
        if os.geteuid() == 0:
            user = pwd.getpwnam('postgres')
            for path in (self.root, self.sockets):
                os.chown(path, user.pw_uid, user.pw_gid)
            self.prefix = ['runuser', '-u', 'postgres', '--']

        pwfile = os.path.join(self.root, 'pw')
        with open(pwfile, 'w') as fp:
            fp.write(self.password + '\n')
        if self.prefix:
            os.chown(pwfile, pwd.getpwnam('postgres').pw_uid, -1)
        os.chmod(pwfile, 0o600)
        self._run('initdb', '-D', self.data, '-U', SUPERUSER,
                  '--pwfile', pwfile, '--auth-local=scram-sha-256',
                  '--auth-host=scram-sha-256', '-E', 'UTF8',
                  '--locale=C.UTF-8')
        os.unlink(pwfile)
        with open(self.passfile, 'w') as fp:
            fp.write(f'127.0.0.1:{self.port}:*:{SUPERUSER}:{self.password}\n')
        os.chmod(self.passfile, 0o600)
        self.url = f'postgresql://{SUPERUSER}@127.0.0.1:{self.port}/postgres'
        self.start()

    def _run(self, tool, *args):
        cmd = self.prefix + [os.path.join(PG_BIN, tool), *args]
        done = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=120)
        if done.returncode:
            raise RuntimeError(f'{" ".join(cmd)}: exit {done.returncode}: '
                               f'{done.stderr.strip()[-2000:]}')
        return done

    def start(self):
        self._run('pg_ctl', '-D', self.data, '-l', self.log, '-w', '-t',
                  '60', '-o', f'-c listen_addresses=127.0.0.1 -p {self.port} '
                  f'-c unix_socket_directories={self.sockets} '
                  '-c fsync=off -c full_page_writes=off', 'start')

    def stop(self):
        self._run('pg_ctl', '-D', self.data, '-m', 'fast', '-w', 'stop')

    def running(self):
        return os.path.exists(os.path.join(self.data, 'postmaster.pid'))

    def connect(self, url=None, **kwargs):
        import psycopg
        return psycopg.connect(url or self.url, autocommit=True, **kwargs)

    def role_url(self, role, password):
        """A URL for ``role``, its password added to the passfile."""
        with open(self.passfile, 'a') as fp:
            fp.write(f'127.0.0.1:{self.port}:*:{role}:{password}\n')
        return f'postgresql://{role}@127.0.0.1:{self.port}/postgres'

    def remove(self):
        with contextlib.suppress(Exception):
            if self.running():
                self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope='session')
def pg_cluster():
    """A throw-away PostgreSQL 15 on 127.0.0.1 (skips, saying why, where
    the server programs are absent); ``PGPASSFILE`` points at its
    passfile while it runs."""
    why = pg_missing()
    if why:
        pytest.skip(why)
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg 3 not installed (pip install 'psycopg[binary]')")

    cluster = Cluster()
    old = os.environ.get('PGPASSFILE')
    os.environ['PGPASSFILE'] = cluster.passfile
    try:
        yield cluster
    finally:
        if old is None:
            os.environ.pop('PGPASSFILE', None)
        else:
            os.environ['PGPASSFILE'] = old
        cluster.remove()


@pytest.fixture
def pg_url(pg_cluster):
    """A fresh, empty database in the throw-away cluster, dropped after
    the test."""
    name = f'pfsbench_{os.getpid()}_{int(time.monotonic() * 1e6)}'
    if not pg_cluster.running():
        pg_cluster.start()
    with pg_cluster.connect() as conn:
        conn.execute(f'CREATE DATABASE {name}')
    url = pg_cluster.url.rsplit('/', 1)[0] + '/' + name
    try:
        yield url
    finally:
        if not pg_cluster.running():
            pg_cluster.start()
        with contextlib.suppress(Exception), pg_cluster.connect() as conn:
            conn.execute(f'DROP DATABASE {name} WITH (FORCE)')
