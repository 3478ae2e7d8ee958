# SPDX-License-Identifier: BSD-3-Clause
"""A store's password is never shown: planted in every place a store URL
or its password can come from, it is found in no output, traceback,
report or file of the runs directory; on SQLite (the PostgreSQL URL does
not answer, the night is judged from the runs directory) and on a
throw-away PostgreSQL with scram passwords (tests/pgcluster.py).  And the
exit codes of a store's failures: a refused login is a configuration
error (2), only a store that does not answer is missing data (3), with
or without ``--debug``."""

import json
import os
import pathlib
import socket
import urllib.parse

import pytest

from pfsbench import store
from pfsbench.core import secrets
import synth
from test_store_roles import night, run

DAY = 86400.0

#: The planted password: a / and an @ that would spill into the host, a
#: % and a ? that URL readers take apart, letters beyond ASCII.
PLANTED = 'Zq/Xe@cr%t?Kälte-9'
#: A wrong one, as planted.
WRONG = 'Wr/ong@pw%?Ölbaum-7'


def forms(secret):
    """Every spelling of ``secret`` a leak could take: as written,
    percent-encoded, and the pieces a URL reader would split it into."""
    quoted = urllib.parse.quote(secret, safe='')
    found = {secret, quoted, quoted.lower(),
             urllib.parse.quote_plus(secret), json.dumps(secret)[1:-1]}
    for sep in ('/', '@', '?', '%'):
        found.update(p for p in secret.split(sep) if len(p) >= 4)
    return found


def leaks(texts, secret):
    """The forms of ``secret`` found in any of ``texts``."""
    assert texts, 'nothing collected to search'
    return sorted({f for f in forms(secret) for t in texts if f in t})


def tree_texts(root):
    """The text of every file under ``root`` (also the binary ones,
    read as Latin-1 and as UTF-8)."""
    texts = []
    for path in pathlib.Path(root).rglob('*'):
        if path.is_file():
            data = path.read_bytes()
            texts += [data.decode('utf-8', 'replace'),
                      data.decode('latin-1')]
    assert texts, f'{root}: no files'
    return texts


def runs_dir(root, capsys, nights=4):
    """A runs directory of ``nights`` nights, a baseline ``pre`` of the
    first two."""
    runs = root / 'runs'
    runs.mkdir(parents=True)
    db = runs / 'results.db'
    reports = [night(n * DAY, 1.0 + 0.002 * (n % 3)) for n in range(nights)]
    synth.write_database(str(db), reports[:2])
    code, _, err = run(['baseline', 'record', 'pre', '--since', '1970-01-01',
                        '--db', str(db)], capsys)
    assert code == 0, err
    synth.write_database(str(db), reports[2:])
    return runs


def silent_port():
    """A TCP port on 127.0.0.1 nothing listens on."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def gate_yaml(path, url):
    from pfsbench.gate.judge import config as gate_config
    text = pathlib.Path(gate_config.DEFAULT_PATH).read_text()
    path.write_text(text + f'store: "{url}"\n')
    return str(path)


# -- reading a URL -----------------------------------------------------------

@pytest.mark.parametrize('secret', [PLANTED, WRONG, 'p@ss/w?rd%zz', 'a:b@c'])
def test_a_password_as_written_stays_the_password(secret):
    for url in (f'postgresql://ingest:{secret}@db.example.org:5433/pf',
                'postgresql://ingest:' + urllib.parse.quote(secret, safe='')
                + '@db.example.org:5433/pf'):
        parsed = secrets.parse(url)
        assert (parsed.user, parsed.password, parsed.hosts, parsed.dbname) \
            == ('ingest', secret, [('db.example.org', '5433')], 'pf')
        assert secrets.redact(url) == \
            'postgresql://ingest:***@db.example.org:5433/pf'
    url = ('postgresql://ingest@db.example.org/pf?sslmode=require&password='
           + urllib.parse.quote(secret, safe=''))
    assert secrets.parse(url).conninfo_args()['password'] == secret
    assert secrets.redact(url) == ('postgresql://ingest@db.example.org/pf'
                                   '?sslmode=require&password=***')


def test_a_url_that_cannot_be_read_is_refused_and_not_shown(tmp_path,
                                                           capsys):
    url = f'postgresql://u:{PLANTED}@db.example.org:port/pf'
    assert secrets.parse(url) is None
    assert secrets.redact(url) == 'postgresql://***'
    # One that cannot hold a password is shown, to be corrected.
    assert secrets.redact('postgresql://db:port/pf') == \
        'postgresql://db:port/pf'
    config = gate_yaml(tmp_path / 'gate.yaml', url)
    code, _, err = run(['gate', '-b', 'pre', '--config', config], capsys)
    assert code == 2 and ":store: 'postgresql://***': expected " \
        'postgresql://USER@HOST[:PORT]/DB[?KEY=VALUE&...], a file' in err, err
    pytest.importorskip('psycopg')
    code, _, err = run(['history', 'write_bw', '--store', url], capsys)
    assert code == 2 and 'expected postgresql://USER@HOST' in err, err
    assert leaks([err], PLANTED) == []


def test_a_text_quoting_a_url_or_a_password_is_scrubbed():
    secrets.parse(f'postgresql://u:{PLANTED}@h/db')
    text = (f"connection failed: 'postgresql://u:{PLANTED}@h:5/db#x', "
            f"password={PLANTED} and {PLANTED} and "
            + urllib.parse.quote(PLANTED, safe=''))
    scrubbed = secrets.scrub(text)
    assert leaks([scrubbed], PLANTED) == []
    assert "'postgresql://u:***@h:5/db#x'" in scrubbed
    # A URL without a password is left as written.
    assert secrets.scrub('in postgresql://u@h/db: 3 sessions') == \
        'in postgresql://u@h/db: 3 sessions'


def test_store_down_keeps_no_password_even_in_its_repr():
    # An error's args go into repr() and pickles, not only str().
    pytest.importorskip('psycopg')
    url = f'postgresql://ingest:{PLANTED}@127.0.0.1:{silent_port()}/pf'
    with pytest.raises(store.StoreDown) as info:
        store.open_store(url, timeout=2)
    assert leaks([repr(info.value), str(info.value)], PLANTED) == []
    assert 'postgresql://ingest:***@127.0.0.1:' in info.value.args[0]


# -- SQLite: the URL does not answer, the runs directory judges ---------------

def test_a_planted_password_is_shown_nowhere_while_the_store_is_down(
        tmp_path, capsys, monkeypatch):
    pytest.importorskip('psycopg')
    out_dir = tmp_path / 'out'
    runs = runs_dir(out_dir, capsys)
    inputs = tmp_path / 'in'
    inputs.mkdir()
    port = silent_port()
    raw = f'postgresql://pfsbench_ingest:{PLANTED}@127.0.0.1:{port}/pf'
    query = (f'postgresql://pfsbench_ingest@127.0.0.1:{port}/pf?password='
             + urllib.parse.quote(PLANTED, safe=''))
    monkeypatch.setenv('PFSBENCH_RUNS', str(runs))
    texts = []

    def collect(argv, expected, env_url=None):
        for debug in ([], ['--debug']):
            if env_url:
                monkeypatch.setenv('PFSBENCH_STORE', env_url)
            else:
                monkeypatch.delenv('PFSBENCH_STORE', raising=False)
            code, out, err = run(debug + argv, capsys)
            assert code == expected, (argv, debug, err)
            texts.extend((out, err))
            if debug and 'pfsbench: error:' in err:
                assert 'Traceback' in err, err

    for url, env_url in ((raw, None), (query, None), (None, raw),
                         (None, query)):
        given = ['--store', url] if url else []
        for argv in (['ingest', '--from-runs', str(runs), '--since',
                      '1970-01-01'], ['history', 'write_bw'],
                     ['gate', '-b', 'pre']):
            collect(argv + given, 3, env_url)
            origin = '--store' if url else 'PFSBENCH_STORE'
            assert f'pfsbench: warning: {origin} holds a password, which ' \
                'other users can see' in texts[-1], texts[-1]
        # As the nightly does when the store is down: the runs directory.
        collect(['gate', '-b', 'pre', '--db', str(runs / 'results.db'),
                 '--json', str(out_dir / 'gate.json'), '--html',
                 str(out_dir / 'gate.html')], 0, env_url)
    assert os.listdir(runs / 'store-spool')
    config = gate_yaml(inputs / 'gate.yaml', raw)
    for argv in (['ingest', '--from-runs', str(runs), '--config', config],
                 ['gate', '-b', 'pre', '--config', config]):
        collect(argv, 2)
        assert ':store: \'postgresql://pfsbench_ingest:***@127.0.0.1:' \
            in texts[-1]
    assert leaks(texts + tree_texts(out_dir), PLANTED) == []


# -- the exit codes of a store's failures ------------------------------------

def test_debug_keeps_the_exit_code_of_the_error(tmp_path, capsys):
    blocker = tmp_path / 'not-a-dir'
    blocker.write_text('')
    down = str(blocker / 'store.sqlite')
    for argv, expected in ((['history', 'write_bw', '--store', down], 3),
                           (['gate', '-b', 'pre', '--config',
                             str(tmp_path / 'none.yaml')], 2)):
        plain = run(argv, capsys)
        debug = run(['--debug', *argv], capsys)
        assert plain[0] == debug[0] == expected, (plain, debug)
        assert 'Traceback' in debug[2] and 'Traceback' not in plain[2]


def test_a_spooled_file_that_is_not_json_is_named(tmp_path, capsys):
    spool = tmp_path / 'spool'
    spool.mkdir()
    bad = spool / 'damaged.json'
    bad.write_text('{"session_info": ')
    code, _, err = run(['ingest', '--store', str(tmp_path / 's.sqlite'),
                        '--spool', str(spool)], capsys)
    assert code == 2, err
    assert err.startswith(f'pfsbench: error: {bad}: spooled report '
                          'unreadable'), err
    assert 'Traceback' not in err
    assert bad.exists()                 # left for a person to look at


def test_from_runs_waits_in_the_spool_when_the_store_is_down_at_open(
        tmp_path, capsys):
    runs = runs_dir(tmp_path, capsys, nights=3)
    blocker = tmp_path / 'not-a-dir'
    blocker.write_text('')
    code, _, err = run(['ingest', '--from-runs', str(runs), '--store',
                        str(blocker / 's.sqlite')], capsys)
    assert code == 3, err
    spooled = sorted(os.listdir(runs / 'store-spool'))
    assert len(spooled) == 3 and '3 report(s) wait in' in err
    # The next ingest, the store up, takes them all.
    code, out, err = run(['ingest', '--store', str(tmp_path / 's.sqlite'),
                          '--spool', str(runs / 'store-spool')], capsys)
    assert code == 0, err
    assert '3 session(s) stored' in out
    assert os.listdir(runs / 'store-spool') == []


def test_an_overdue_spool_is_said_with_the_verdict(tmp_path, capsys,
                                                   monkeypatch):
    runs = runs_dir(tmp_path, capsys)
    monkeypatch.setenv('PFSBENCH_RUNS', str(runs))
    spool = runs / 'store-spool'
    spool.mkdir()
    waiting = spool / 'abc.json'
    waiting.write_text('{}')
    argv = ['gate', '-b', 'pre', '--db', str(runs / 'results.db')]
    code, _, err = run(argv, capsys)
    assert code == 0 and 'waited in' not in err, err
    three_days = os.path.getmtime(waiting) - 3 * DAY
    os.utime(waiting, (three_days, three_days))
    code, _, err = run(argv, capsys)
    assert code == 0, err
    assert f'pfsbench: warning: 1 report(s) have waited in {spool} since' \
        in err and '(3.0 days)' in err


# -- PostgreSQL with scram passwords ------------------------------------------

@pytest.fixture
def planted_role(pg_cluster, pg_url):  # noqa: F811
    """``(role, database)``: a role whose scram password is
    :data:`PLANTED`, owner of a fresh database; its password nowhere but
    in the server."""
    import psycopg
    from psycopg import sql
    role = 'pfsbench_planted'
    database = pg_url.rsplit('/', 1)[1]
    with pg_cluster.connect() as conn:
        if not conn.execute('SELECT 1 FROM pg_roles WHERE rolname = %s',
                            (role,)).fetchone():
            conn.execute(sql.SQL('CREATE ROLE {} LOGIN').format(
                sql.Identifier(role)))
        conn.execute(sql.SQL('ALTER ROLE {} PASSWORD {}').format(
            sql.Identifier(role), sql.Literal(PLANTED)))
        conn.execute(sql.SQL('ALTER DATABASE {} OWNER TO {}').format(
            sql.Identifier(database), sql.Identifier(role)))
        assert psycopg.__version__
    return role, database


def test_a_planted_password_is_shown_nowhere_on_postgresql(
        pg_cluster, planted_role, tmp_path, capsys, monkeypatch):  # noqa: F811
    role, database = planted_role
    port = pg_cluster.port
    out_dir = tmp_path / 'out'
    runs = runs_dir(out_dir, capsys)
    monkeypatch.setenv('PFSBENCH_RUNS', str(runs))
    inputs = tmp_path / 'in'
    inputs.mkdir()
    passfile = inputs / 'pgpass'
    passfile.write_text(f'127.0.0.1:{port}:*:{role}:{PLANTED}\n')
    passfile.chmod(0o600)
    service = inputs / 'pg_service.conf'
    service.write_text(f'[planted]\nhost=127.0.0.1\nport={port}\nuser={role}'
                       f'\npassword={PLANTED}\ndbname={database}\n')
    bare = f'postgresql://{role}@127.0.0.1:{port}/{database}'
    raw = f'postgresql://{role}:{PLANTED}@127.0.0.1:{port}/{database}'
    query = f'{bare}?password={urllib.parse.quote(PLANTED, safe="")}'
    empty = inputs / 'empty-pgpass'
    empty.write_text('')
    empty.chmod(0o600)
    texts = []
    # (what names the store, the environment it needs)
    sources = (
        (['--store', raw], {'PGPASSFILE': str(empty)}),
        (['--store', query], {'PGPASSFILE': str(empty)}),
        ([], {'PFSBENCH_STORE': raw, 'PGPASSFILE': str(empty)}),
        (['--store', bare], {'PGPASSFILE': str(passfile)}),
        (['--store', 'postgresql://?service=planted'],
         {'PGSERVICEFILE': str(service), 'PGPASSFILE': str(empty)}),
    )
    assert sources
    for given, env in sources:
        for key in ('PFSBENCH_STORE', 'PGSERVICEFILE'):
            monkeypatch.delenv(key, raising=False)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        for debug in ([], ['--debug']):
            for argv, expected in (
                    (['ingest', '--from-runs', str(runs), '--system',
                      'hawk'], 0),
                    (['gate', '-b', 'pre', '--system', 'hawk', '--json',
                      str(out_dir / 'gate.json'), '--html',
                      str(out_dir / 'gate.html')], 0),
                    (['gate', '-b', 'absent', '--system', 'hawk'], 3),
                    (['history', 'write_bw', '--format', 'json'], 0)):
                code, out, err = run(debug + argv + given, capsys)
                assert code == expected, (given, argv, err)
                texts += [out, err]
                if debug and code:
                    assert 'Traceback' in err, err
        gate = json.loads((out_dir / 'gate.json').read_text())
        assert gate['results'], gate
        texts.append((out_dir / 'gate.json').read_text())
    # Settings that name the store with its password: refused, redacted.
    config = gate_yaml(inputs / 'gate.yaml', raw)
    for debug in ([], ['--debug']):
        code, out, err = run(debug + ['ingest', '--from-runs', str(runs),
                                      '--config', config], capsys)
        assert code == 2 and ':store: ' in err, err
        texts += [out, err]
    assert leaks(texts + tree_texts(out_dir), PLANTED) == []


def test_a_refused_login_is_a_configuration_error(
        pg_cluster, planted_role, tmp_path, capsys, monkeypatch):  # noqa: F811
    role, database = planted_role
    runs = runs_dir(tmp_path, capsys, nights=3)
    empty = tmp_path / 'empty-pgpass'
    empty.write_text('')
    empty.chmod(0o600)
    monkeypatch.setenv('PGPASSFILE', str(empty))
    base = f'127.0.0.1:{pg_cluster.port}/{database}'
    spool = runs / 'store-spool'
    # A service file names the role: the message names it too.
    service = tmp_path / 'pg_service.conf'
    service.write_text(f'[wrong]\nhost=127.0.0.1\nport={pg_cluster.port}\n'
                       f'user={role}\npassword={WRONG}\ndbname={database}\n')
    monkeypatch.setenv('PGSERVICEFILE', str(service))
    for url, why in ((f'postgresql://{role}:{WRONG}@{base}',
                      'password authentication failed'),
                     ('postgresql://?service=wrong',
                      'password authentication failed'),
                     (f'postgresql://{role}@{base}', 'no password supplied')):
        for debug in ([], ['--debug']):
            code, out, err = run(debug + ['ingest', '--from-runs', str(runs),
                                          '--store', url], capsys)
            assert code == 2, err
            assert f"the results store refused role '{role}'" in err, err
            assert why in err and 'PGPASSFILE' in err
            assert leaks([out, err], WRONG) == []
            assert not spool.exists() or os.listdir(spool) == []


def test_a_role_without_grants_is_told_so(
        pg_cluster, pg_url, tmp_path, capsys):  # noqa: F811
    from psycopg import sql
    role = 'pfsbench_no_grants'
    with pg_cluster.connect() as conn:
        if not conn.execute('SELECT 1 FROM pg_roles WHERE rolname = %s',
                            (role,)).fetchone():
            conn.execute(sql.SQL('CREATE ROLE {} LOGIN PASSWORD {}').format(
                sql.Identifier(role), sql.Literal('no-grants-pw')))
    url = pg_cluster.role_url(role, 'no-grants-pw').rsplit('/', 1)[0] + \
        '/' + pg_url.rsplit('/', 1)[1]
    runs = runs_dir(tmp_path, capsys, nights=3)
    code, _, err = run(['ingest', '--from-runs', str(runs), '--store', url],
                       capsys)
    assert code == 2, err
    assert f"refused role '{role}': permission denied" in err
    assert 'grant it the privileges of its job' in err
    assert not (runs / 'store-spool').exists()


def test_the_nightly_says_a_refused_login_on_its_first_night(
        pg_cluster, planted_role, tmp_path, capsys):  # noqa: F811
    """scripts/nightly.sh, its pfsbench steps before the ingest and its
    reframe stubbed (they are tested elsewhere), the ingest and the gate
    real: a wrong password in $PFSBENCH_STORE is said as a refused login
    on the first night, on no command line and in no file of the runs
    directory."""
    import shlex
    import subprocess

    from conftest import REPO
    role, database = planted_role
    runs = runs_dir(tmp_path, capsys, nights=3)
    home = tmp_path / 'repo'
    (home / 'scripts').mkdir(parents=True)
    (home / '.venv' / 'bin').mkdir(parents=True)
    (home / 'scripts' / 'nightly.sh').write_text(
        (REPO / 'scripts' / 'nightly.sh').read_text())
    argv_log = tmp_path / 'argv.log'
    real = REPO / '.venv' / 'bin' / 'pfsbench'
    stub = home / '.venv' / 'bin' / 'pfsbench'
    stub.write_text(f'''#!/bin/bash
echo "$*" >> {shlex.quote(str(argv_log))}
case "$1" in
    ingest|gate) exec {shlex.quote(str(real))} "$@" ;;
    session-extras) echo '{{}}' ;;
    nightly-plan) [ "$*" = "${{*%--reframe-tags}}" ] || echo nightly ;;
esac
''')
    reframe = home / '.venv' / 'bin' / 'reframe'
    reframe.write_text('#!/bin/bash\necho "$*" >> '
                       f'{shlex.quote(str(argv_log))}\n')
    for tool in (stub, reframe):
        tool.chmod(0o755)
    empty = tmp_path / 'empty-pgpass'
    empty.write_text('')
    empty.chmod(0o600)
    env = dict(os.environ, PFSBENCH_RUNS=str(runs), PGPASSFILE=str(empty),
               PFSBENCH_STORE=f'postgresql://{role}:{WRONG}@127.0.0.1:'
                              f'{pg_cluster.port}/{database}')
    done = subprocess.run(
        ['bash', str(home / 'scripts' / 'nightly.sh'), '--system',
         'local:default', '--baseline', 'pre', '--target', str(tmp_path),
         '--budget', '0', '--out', str(runs / 'nightly' / 'first')],
        env=env, capture_output=True, text=True, timeout=300, check=False)
    said = [line for line in done.stdout.splitlines()
            if line.startswith('nightly: the results store refused')]
    assert len(said) == 1, done.stdout + done.stderr
    assert f"refused role '{role}'" in said[0] and 'PGPASSFILE' in said[0]
    assert 'do not wait in the spool' in said[0]
    assert not (runs / 'store-spool').exists()
    assert 'ingest --from-runs' in argv_log.read_text()
    assert leaks([done.stdout, done.stderr, argv_log.read_text()]
                 + tree_texts(runs), WRONG) == []
