# SPDX-License-Identifier: BSD-3-Clause
"""Least privilege on a PostgreSQL results store: the roles and grants
docs/results-store.md gives, run as written on a throw-away PostgreSQL 15
(tests/pgcluster.py); each verb works with the role that matches its job,
and the ingest role cannot drop or alter a table."""

import json
import pathlib
import re

import pytest

from pfsbench import cli
import synth

DOC = pathlib.Path(__file__).resolve().parent.parent / 'docs' / \
    'results-store.md'
DAY = 86400.0
CASE = 'dd_stream_per_node %nodes=1'


def doc_sql(marker):
    """The statements of the docs' ``<!-- marker -->`` block."""
    text = DOC.read_text()
    block = re.search(rf'<!-- {marker} -->\n```sql\n(.*?)```\n<!-- /{marker} -->',
                      text, re.S)
    assert block, f'{DOC}: no {marker} block'
    return [s.strip() for s in block.group(1).split(';') if s.strip()]


def run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def night(t, scale=1.0):
    return synth.session({CASE: [scale * v for v in (500.0, 505.0, 495.0)]},
                         time_start=t, extras={'fs_version': '1.8'},
                         system='hawk')


@pytest.fixture
def roles(pg_cluster):  # noqa: F811
    """``{role: url}`` after the docs' statements, the schema made by the
    owner's first ingest in between."""
    import psycopg
    with pg_cluster.connect() as conn:
        for statement in doc_sql('roles'):
            conn.execute(statement)
        urls = {}
        for role in ('pfsbench_owner', 'pfsbench_ingest', 'pfsbench_read'):
            secret = f'{role}-pw'
            conn.execute(psycopg.sql.SQL('ALTER ROLE {} PASSWORD {}').format(
                psycopg.sql.Identifier(role), psycopg.sql.Literal(secret)))
            urls[role] = pg_cluster.role_url(role, secret).rsplit('/', 1)[0] \
                + '/pfsbench'
    try:
        yield urls
    finally:
        with pg_cluster.connect() as conn:
            conn.execute('DROP DATABASE IF EXISTS pfsbench WITH (FORCE)')
            for role in urls:
                conn.execute(f'DROP ROLE IF EXISTS {role}')


def test_each_verb_works_with_the_role_of_its_job(roles, pg_cluster,  # noqa: F811
                                                 tmp_path, capsys,
                                                 monkeypatch):
    import psycopg

    from pfsbench import store
    # The series rewritten at every night's ingest (by default once it
    # lags store.SERIES_LAG nights): the ingest role must be able to.
    monkeypatch.setattr(store, 'SERIES_LAG', 0)
    runs = tmp_path / 'runs'
    runs.mkdir()
    db = runs / 'results.db'
    synth.write_database(str(db), [night(0), night(DAY)])
    assert run(['baseline', 'record', 'pre', '--since', '1970-01-01',
                '--db', str(db)], capsys)[0] == 0
    # The owner's first ingest makes the schema; then the grants.
    code, _, err = run(['ingest', '--from-runs', str(runs), '--store',
                        roles['pfsbench_owner']], capsys)
    assert code == 0, err
    with psycopg.connect(roles['pfsbench_owner'], autocommit=True) as conn:
        for statement in doc_sql('grants'):
            conn.execute(statement)

    report = tmp_path / 'night.json'
    report.write_text(json.dumps(night(2 * DAY, scale=0.99)))
    for _ in range(2):              # the second is the same session
        code, out, err = run(['ingest', str(report), '--store',
                              roles['pfsbench_ingest'], '--spool',
                              str(tmp_path / 'spool')], capsys)
        assert code == 0, err
    assert '0 session(s) stored, 1 already there' in out
    # The ingest role keeps the gate's history current (UPDATE on the
    # series, the one table it may change).
    with psycopg.connect(roles['pfsbench_owner']) as conn:
        assert conn.execute('SELECT sessions FROM pfsbench_series'
                            ).fetchall() == [(3,)]
        conn.execute('DELETE FROM pfsbench_series')

    code, out, err = run(['gate', '-b', 'pre', '--store',
                          roles['pfsbench_read']], capsys)
    assert code == 0, err
    assert out.startswith('pfsbench gate: ') and CASE in out
    # ... a read role's gate builds it and may not write it: no error.
    with psycopg.connect(roles['pfsbench_owner']) as conn:
        assert conn.execute('SELECT COUNT(*) FROM pfsbench_series'
                            ).fetchone()[0] == 0
    code, out, err = run(['history', 'write_bw', '--store',
                          roles['pfsbench_read']], capsys)
    assert code == 0 and 'n=3' in out, err

    # The read role cannot ingest: a refused statement, not a store that
    # is down (nothing spooled, exit 2, the privilege named).
    report.write_text(json.dumps(night(3 * DAY)))
    code, _, err = run(['ingest', str(report), '--store',
                        roles['pfsbench_read'], '--spool',
                        str(tmp_path / 'spool')], capsys)
    assert code == 2 and 'permission denied' in err, err
    assert not list((tmp_path / 'spool').glob('*.json'))


#: What the ingest role must not do.
REFUSED = [
    'DROP TABLE pfsbench_figures',
    'ALTER TABLE pfsbench_figures ADD COLUMN x TEXT',
    'ALTER TABLE pfsbench_sessions RENAME TO gone',
    'TRUNCATE pfsbench_cases',
    "UPDATE pfsbench_figures SET value = 0",
    'DELETE FROM pfsbench_sessions',
    'CREATE TABLE pfsbench_extra(x TEXT)',
    'DROP TABLE pfsbench_migrations',
    'DROP TABLE pfsbench_series',
    'DELETE FROM pfsbench_series',
]


def test_the_ingest_role_cannot_drop_or_alter(roles, pg_cluster,  # noqa: F811
                                             tmp_path, capsys):
    import psycopg
    report = tmp_path / 'night.json'
    report.write_text(json.dumps(night(0)))
    assert run(['ingest', str(report), '--store', roles['pfsbench_owner']],
               capsys)[0] == 0
    with psycopg.connect(roles['pfsbench_owner'], autocommit=True) as conn:
        for grant in doc_sql('grants'):
            conn.execute(grant)
    with psycopg.connect(roles['pfsbench_ingest'], autocommit=True) as conn:
        for statement in REFUSED:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        # ... and the store is whole afterwards.
        assert conn.execute('SELECT COUNT(*) FROM pfsbench_figures'
                            ).fetchone()[0] == 3
