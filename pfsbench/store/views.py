# SPDX-License-Identifier: BSD-3-Clause
"""The store's SQL face for dashboards: views whose columns stay the same
across schema migrations (docs/dashboards.md).

``pfsbench_v_nights``
    one row per cluster, night, test case, target and figure: the night's
    mean over its repeats, their count, min and max, and how many of them
    ran in a case that did not pass.
``pfsbench_v_sessions``
    one row per ReFrame session: when, where, its case counts and its
    Spack lock's hash.
``pfsbench_v_provenance``
    one row per session and key of its extras (``--session-extras``: the
    server version, a mount option): the marks a dashboard draws.
``pfsbench_v_pages``
    one row per page the gate gave (a case that paged or was held,
    :mod:`pfsbench.store.triage`) with its newest mark.

:func:`ensure` creates them after every migration and wherever one is
missing; a migration that drops or retypes a column a view reads first
drops the views (:data:`DROP`).  Only the time columns and the JSON of the
extras differ by dialect: ``time`` is a ``timestamptz`` on PostgreSQL and
ISO 8601 text (``YYYY-MM-DDTHH:MM:SSZ``, ordered as the time) on SQLite;
``epoch`` is the same number on both.
"""

#: The views' names, in creation order.
NAMES = ('pfsbench_v_nights', 'pfsbench_v_sessions', 'pfsbench_v_provenance',
         'pfsbench_v_pages')

#: The time of an epoch-seconds expression, per dialect.
_TIME = {
    True: 'to_timestamp({})',
    False: "strftime('%Y-%m-%dT%H:%M:%SZ', {}, 'unixepoch')",
}

#: One row per extras key of a session, per dialect: (FROM clause, key
#: column, value column).
_EXTRAS = {
    True: ('pfsbench_sessions s CROSS JOIN LATERAL '
           'jsonb_each_text(s.extras::jsonb) e', 'e.key', 'e.value'),
    False: ('pfsbench_sessions s, json_each(s.extras) e', 'e.key',
            'CAST(e.value AS TEXT)'),
}


def _nights(postgres):
    first = 'MIN(f.time_start)'
    return (
        'SELECT ' + _TIME[postgres].format(first) + ' AS "time",'
        f' {first} AS epoch,'
        ' f.night AS night,'
        ' f.system AS cluster,'
        ' f.partition AS partition,'
        ' f.target AS target,'
        ' f.filesystem AS filesystem,'
        ' f.name AS test,'
        ' f.rf_system AS rf_system,'
        ' f.environ AS environ,'
        ' f.figure AS figure,'
        ' f.unit AS unit,'
        ' AVG(f.value) AS mean,'
        ' COUNT(f.value) AS n,'
        ' MIN(f.value) AS min,'
        ' MAX(f.value) AS max,'
        " SUM(CASE WHEN c.result = 'pass' THEN 0 ELSE 1 END) AS failed,"
        ' COUNT(DISTINCT f.session) AS sessions'
        ' FROM pfsbench_figures f'
        ' JOIN pfsbench_cases c ON c.session = f.session AND c.seq = f.seq'
        ' GROUP BY f.system, f.night, f.partition, f.target, f.filesystem,'
        ' f.name, f.rf_system, f.environ, f.figure, f.unit')


def _session_columns(postgres):
    """The columns every row of a session starts with."""
    return (
        'SELECT ' + _TIME[postgres].format('s.time_start') + ' AS "time",'
        ' s.time_start AS epoch,'
        ' s.night AS night,'
        ' s.system AS cluster,'
        ' s.uuid AS session,')


def _sessions(postgres):
    return (
        _session_columns(postgres) +
        ' s.hostname AS hostname,'
        ' s.reframe_version AS reframe_version,'
        ' s.num_cases AS cases,'
        ' s.num_failures AS failures,'
        ' s.num_aborted AS aborted,'
        ' s.num_skipped AS skipped,'
        ' s.spack_lock AS spack_lock'
        ' FROM pfsbench_sessions s')


def _provenance(postgres):
    source, key, value = _EXTRAS[postgres]
    return (
        _session_columns(postgres) +
        f' {key} AS key,'
        f' {value} AS value'
        f' FROM {source}')


#: A night's date as the time of its midnight, per dialect.
_MIDNIGHT = {
    True: "CAST(p.night || 'T00:00:00Z' AS timestamptz)",
    False: "p.night || 'T00:00:00Z'",
}

#: The marks that name page ``p`` (a mark without case or figure names
#: every page of its session).
_NAMES_PAGE = ("{m}.session = p.session AND {m}.name IN ('', p.name) "
               "AND {m}.figure IN ('', p.figure)")


def _pages(postgres):
    return (
        f'SELECT {_MIDNIGHT[postgres]} AS "time",'
        ' p.night AS night,'
        ' p.system AS cluster,'
        ' p.session AS session,'
        ' p.name AS "case",'
        ' p.figure AS figure,'
        ' p.kind AS kind,'
        ' p.change AS change,'
        ' m.mark AS mark,'
        ' m.who AS who,'
        ' m.why AS why'
        ' FROM pfsbench_pages p LEFT JOIN pfsbench_marks m ON '
        + _NAMES_PAGE.format(m='m') +
        ' AND m.marked = (SELECT MAX(n.marked) FROM pfsbench_marks n WHERE '
        + _NAMES_PAGE.format(m='n') + ')')


_BODIES = {
    'pfsbench_v_nights': _nights,
    'pfsbench_v_sessions': _sessions,
    'pfsbench_v_provenance': _provenance,
    'pfsbench_v_pages': _pages,
}

#: What a migration that drops or retypes a column the views read runs
#: first (its own statements re-create nothing: :func:`ensure` does).
DROP = tuple(f'DROP VIEW IF EXISTS {name}' for name in reversed(NAMES))


def statements(postgres):
    """The statements that create (or replace) every view."""
    if postgres:
        # CREATE OR REPLACE keeps the grants a site gave on the views.
        return tuple(f'CREATE OR REPLACE VIEW {name} AS {_BODIES[name](True)}'
                     for name in NAMES)
    out = []
    for name in NAMES:
        out += [f'DROP VIEW IF EXISTS {name}',
                f'CREATE VIEW {name} AS {_BODIES[name](False)}']
    return tuple(out)


def missing(conn):
    """The views ``conn``'s store lacks."""
    if conn.postgres:
        query = ("SELECT table_name FROM information_schema.views "
                 "WHERE table_schema = current_schema()")
    else:
        query = "SELECT name FROM sqlite_master WHERE type = 'view'"
    have = {name for name, in conn.execute(query)}
    return [name for name in NAMES if name not in have]


def ensure(conn, migrated):
    """Create or replace the views, in one transaction, where migrations
    were applied just now (``migrated``) or one is missing; return whether
    they were written.  A role that may not create them (the ingest and
    read roles, docs/results-store.md) leaves them to the owner; a
    statement refused otherwise raises."""
    try:
        if not migrated and not missing(conn):
            conn.rollback()         # end the read's transaction
            return False
        for statement in statements(conn.postgres):
            conn.execute(statement)
        conn.commit()
    except conn.errors as err:
        conn.rollback()
        # Two ingests migrating at once: the other one made them.
        if not _refused(conn, err) and missing(conn):
            raise
        return False
    return True


def _refused(conn, err):
    """Whether ``err`` is a role's missing privilege or a read-only file."""
    if conn.postgres:
        import psycopg
        return isinstance(err, psycopg.errors.InsufficientPrivilege)
    return 'readonly' in str(err)
