# SPDX-License-Identifier: BSD-3-Clause
"""The store's schema, versioned: each migration is a list of statements
applied once, in order, and noted in ``pfsbench_migrations``.

Tables (the same on SQLite and PostgreSQL):

``pfsbench_sessions``
    one row per ReFrame session: the cluster (``system``: the name the
    site gives at ingest, the ReFrame system by default), the night (UTC
    date of its start), ReFrame's session fields, its extras (JSON), the
    Spack lock's hash (``extras.spack_lock``), and its figures as the
    gate's history reads them (a digest of its rows, so that a year
    reads in seconds).
``pfsbench_cases``
    one row per executed test case (a repeat of a case in a session):
    what the gate reads of it besides its figures (result, fail phase,
    nodes, configuration, case tags, contention; from version 3 the
    figures the tool could not time).
``pfsbench_figures``
    one row per figure per repeat: system, partition, target, file
    system, the gate's case key (name, ReFrame system, partition,
    environment), figure, unit, value, repeat, night, session.
``pfsbench_baselines``
    the baselines a gate judges against, per cluster (the JSON of
    ``pfsbench baseline record``).
``pfsbench_series`` (version 2)
    a cache: each cluster's history as the gate reads it (every case's
    nights as columns), per target, kept current by ``pfsbench ingest``
    and by a gate whose role may write it; rebuilt from the rows where
    it does not fit.
``pfsbench_pages``, ``pfsbench_marks`` (version 4)
    the nights' pages and the marks people gave them
    (:mod:`pfsbench.store.triage`).

Indexes answer the gate's questions: one cluster's sessions in time
order, and one case's figure over a year of nights (``pfsbench
history``).
"""

from pfsbench.store import triage

#: ``(version, name, statements)``; append, never edit one that shipped.
MIGRATIONS = (
    (1, 'sessions, cases, figures, baselines', (
        'CREATE TABLE pfsbench_sessions('
        ' uuid TEXT PRIMARY KEY,'
        ' system TEXT NOT NULL,'
        ' night TEXT NOT NULL,'
        ' time_start DOUBLE PRECISION NOT NULL,'
        ' time_end DOUBLE PRECISION NOT NULL,'
        ' reframe_version TEXT NOT NULL,'
        ' data_version TEXT NOT NULL,'
        ' hostname TEXT NOT NULL,'
        ' cmdline TEXT NOT NULL,'
        ' num_cases INTEGER NOT NULL,'
        ' num_failures INTEGER NOT NULL,'
        ' num_aborted INTEGER NOT NULL,'
        ' num_skipped INTEGER NOT NULL,'
        ' extras TEXT NOT NULL,'
        ' spack_lock TEXT NOT NULL,'
        ' source TEXT NOT NULL,'
        ' ingested TEXT NOT NULL,'
        # What the gate's history reads of the session
        # (pfsbench.gate.history.results.session_figures, in
        # pfsbench.store.codec), and what it was computed with: the rows below
        # are the data; this is their digest, recomputed where the stamp
        # differs.
        ' figures TEXT NOT NULL,'
        ' figures_stamp TEXT NOT NULL)',
        'CREATE INDEX pfsbench_sessions_system'
        ' ON pfsbench_sessions(system, time_start)',
        'CREATE TABLE pfsbench_cases('
        ' session TEXT NOT NULL REFERENCES pfsbench_sessions(uuid),'
        ' seq INTEGER NOT NULL,'
        ' name TEXT NOT NULL,'
        ' rf_system TEXT NOT NULL,'
        ' partition TEXT NOT NULL,'
        ' environ TEXT NOT NULL,'
        ' target TEXT NOT NULL,'
        ' filesystem TEXT NOT NULL,'
        ' run_index INTEGER NOT NULL,'
        ' repeat INTEGER NOT NULL,'
        ' result TEXT NOT NULL,'
        ' fail_phase TEXT NOT NULL,'
        ' fail_reason TEXT NOT NULL,'
        ' time DOUBLE PRECISION NOT NULL,'
        ' jobid TEXT NOT NULL,'
        ' nodelist TEXT NOT NULL,'
        ' config TEXT NOT NULL,'
        ' tags TEXT NOT NULL,'
        ' iterations INTEGER,'
        ' contended INTEGER NOT NULL,'
        ' contention TEXT NOT NULL,'
        ' PRIMARY KEY(session, seq))',
        'CREATE TABLE pfsbench_figures('
        ' session TEXT NOT NULL REFERENCES pfsbench_sessions(uuid),'
        ' seq INTEGER NOT NULL,'
        ' pos INTEGER NOT NULL,'
        ' system TEXT NOT NULL,'
        ' partition TEXT NOT NULL,'
        ' target TEXT NOT NULL,'
        ' filesystem TEXT NOT NULL,'
        ' name TEXT NOT NULL,'
        ' rf_system TEXT NOT NULL,'
        ' environ TEXT NOT NULL,'
        ' figure TEXT NOT NULL,'
        ' unit TEXT,'
        ' value DOUBLE PRECISION,'
        # The value as JSON where a float column would not give it back
        # unchanged (an integer, NaN, infinity, None, text).
        ' raw TEXT,'
        ' repeat INTEGER NOT NULL,'
        ' night TEXT NOT NULL,'
        ' time_start DOUBLE PRECISION NOT NULL,'
        ' PRIMARY KEY(session, seq, pos))',
        'CREATE INDEX pfsbench_figures_case ON pfsbench_figures('
        'figure, name, system, night)',
        'CREATE INDEX pfsbench_figures_system ON pfsbench_figures('
        'system, night)',
        'CREATE TABLE pfsbench_baselines('
        ' system TEXT NOT NULL,'
        ' name TEXT NOT NULL,'
        ' body TEXT NOT NULL,'
        ' ingested TEXT NOT NULL,'
        ' PRIMARY KEY(system, name))',
    )),
    (2, 'series: the history as columns, per cluster and target', (
        # A cache of what the gate computes from the rows above (the
        # pfsbench.gate.history.series.Series of one cluster's sessions,
        # every target or one, in pfsbench.store.codec): the gate reads a
        # year of nights from it in a second instead of building it
        # again from every session (half a minute).  ``scope`` is the
        # target as JSON (null: every target); ``sessions`` and
        # ``newest`` say which sessions it holds, ``stamp`` what it was
        # computed with.  Rebuilt from the rows wherever it does not
        # fit; a role that may not write it reads without it.
        'CREATE TABLE pfsbench_series('
        ' system TEXT NOT NULL,'
        ' scope TEXT NOT NULL,'
        ' stamp TEXT NOT NULL,'
        ' sessions INTEGER NOT NULL,'
        ' newest TEXT NOT NULL,'
        ' body TEXT NOT NULL,'
        ' written TEXT NOT NULL,'
        ' PRIMARY KEY(system, scope))',
    )),
    (3, 'cases: the figures the tool could not time', (
        # bonnie++'s +++++ (pfsbench.core.fields.UNTIMED): the gate reads
        # such a figure as too fast to time, not as missing data.
        "ALTER TABLE pfsbench_cases ADD COLUMN untimed TEXT NOT NULL "
        "DEFAULT ''",
    )),
    (4, 'pages and their triage marks', triage.MIGRATION),
)

#: The first version whose pfsbench_cases has the untimed column.
UNTIMED_COLUMN = 3

#: The newest schema version.
VERSION = MIGRATIONS[-1][0]

_CREATE_MIGRATIONS = (
    'CREATE TABLE IF NOT EXISTS pfsbench_migrations('
    ' version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied TEXT NOT NULL)'
)


def applied_version(conn):
    """The newest migration applied to ``conn``'s store, 0 if none, or
    ``None`` where the migrations table does not exist."""
    try:
        row = conn.execute(
            'SELECT MAX(version) FROM pfsbench_migrations').fetchone()
    except conn.errors:
        conn.rollback()
        return None

    return row[0] or 0


def migrate(conn, now):
    """Apply the migrations ``conn``'s store lacks, each in its own
    transaction (one that fails half-way leaves nothing, and the next
    ingest applies it whole); return the version.  Two ingests migrating
    at once: the second finds the row the first wrote and stops
    (PostgreSQL: a unique violation rolled back)."""
    found = applied_version(conn)
    if found is None:
        try:
            conn.execute(_CREATE_MIGRATIONS)
            conn.commit()
        except conn.errors:
            conn.rollback()
        found = applied_version(conn) or 0

    if found > VERSION:
        from pfsbench.core.errors import ResultsError
        raise ResultsError(f'{conn.where}: pfsbench_migrations.version: '
                           f'{found}: written by a newer pfsbench (this one '
                           f'knows schema {VERSION})')

    for version, name, statements in MIGRATIONS:
        if version <= found:
            continue
        try:
            conn.begin()
            for statement in statements:
                conn.execute(statement)
            conn.execute('INSERT INTO pfsbench_migrations VALUES(?, ?, ?)',
                         (version, name, now))
            conn.commit()
        except conn.errors:
            conn.rollback()
            if (applied_version(conn) or 0) < version:
                raise

    from pfsbench.store import views
    views.ensure(conn, found < VERSION)
    return VERSION
