# SPDX-License-Identifier: BSD-3-Clause
"""Triage that counts: the nights' pages kept in the store, each marked
invalid (noise) or acknowledged (a known change) by a person, with who
and why, and the site's own record over its last nights
(docs/triage.md).

``pfsbench_pages``
    one row per case that paged or was held on a night (its primary
    figure, as the gate's record names it): cluster, night, session,
    case, figure, kind (``paged``, ``held``), change.
``pfsbench_marks``
    one row per mark, never updated: session, case (``''``: every page of
    the session), figure (``''``: every figure), mark (``invalid``,
    ``ack``), who, why, when.  A page's mark is the newest that names it.
"""

from pfsbench.store import columns

#: The statements of the migration that adds the two tables (IF NOT
#: EXISTS: a store that lost its migrations' rows applies it again).
MIGRATION = (
    'CREATE TABLE IF NOT EXISTS pfsbench_pages('
    ' system TEXT NOT NULL,'
    ' night TEXT NOT NULL,'
    ' session TEXT NOT NULL,'
    ' name TEXT NOT NULL,'
    ' figure TEXT NOT NULL,'
    ' kind TEXT NOT NULL,'
    ' change DOUBLE PRECISION,'
    ' recorded TEXT NOT NULL,'
    ' PRIMARY KEY(session, name, figure))',
    'CREATE INDEX IF NOT EXISTS pfsbench_pages_system'
    ' ON pfsbench_pages(system, night)',
    'CREATE TABLE IF NOT EXISTS pfsbench_marks('
    ' session TEXT NOT NULL,'
    ' name TEXT NOT NULL,'
    ' figure TEXT NOT NULL,'
    ' mark TEXT NOT NULL,'
    ' who TEXT NOT NULL,'
    ' why TEXT NOT NULL,'
    ' marked TEXT NOT NULL)',
)

#: What a person may mark a page.
MARKS = ('invalid', 'ack')

#: The nights the site's record covers by default.
RECORD_NIGHTS = 90


def keep_pages(conn, system, pages, now):
    """Keep tonight's pages (``[(night, session, name, figure, kind,
    change)]``); a page kept already stays as it is.  Returns how many
    were added."""
    added = 0
    try:
        for page in pages:
            cur = conn.execute(
                columns.insert('pfsbench_pages', columns.PAGES) +
                ' ON CONFLICT (session, name, figure) DO NOTHING',
                (system, *page, now))
            added += max(cur.rowcount, 0)
        conn.commit()
    except conn.errors:
        conn.rollback()
        raise
    return added


def sessions_like(conn, prefix):
    """The uuids of the kept pages' sessions that begin with ``prefix``."""
    return sorted({u for u, in conn.execute(
        'SELECT DISTINCT session FROM pfsbench_pages')
        if u.startswith(prefix)})


def mark(conn, session, name, figure, what, who, why, now):
    """Mark the pages of ``session`` (those of case ``name`` and
    ``figure``; ``''``: all) ``what`` (:data:`MARKS`); return how many
    kept pages it names."""
    named = [p for p in _pages_of(conn, session)
             if name in ('', p[0]) and figure in ('', p[1])]
    if named:
        try:
            conn.execute(columns.insert('pfsbench_marks', columns.MARKS),
                         columns.row(columns.MARKS, dict(
                             session=session, name=name, figure=figure,
                             mark=what, who=who, why=why, marked=now)))
            conn.commit()
        except conn.errors:
            conn.rollback()
            raise
    return len(named)


def _pages_of(conn, session):
    return [tuple(r) for r in conn.execute(
        'SELECT name, figure FROM pfsbench_pages WHERE session = ?',
        (session,))]


def record(conn, system, nights=RECORD_NIGHTS):
    """The site's record over ``system``'s last ``nights`` nights with a
    page or a session: ``{'nights': [first, last], 'pages': [...]}``,
    each page ``{'night', 'session', 'name', 'figure', 'kind', 'change',
    'mark', 'who', 'why'}`` with its newest mark (None where none)."""
    last = [n for n, in conn.execute(
        'SELECT night FROM pfsbench_sessions WHERE system = ? UNION '
        'SELECT night FROM pfsbench_pages WHERE system = ? '
        'ORDER BY night DESC', (system, system))][:nights]
    if not last:
        return {'system': system, 'nights': 0, 'first': None, 'last': None,
                'pages': []}
    first = last[-1]
    pages = [dict(zip(('night', 'session', 'name', 'figure', 'kind',
                       'change'), row)) for row in conn.execute(
        'SELECT night, session, name, figure, kind, change FROM '
        'pfsbench_pages WHERE system = ? AND night >= ? '
        'ORDER BY night, name, figure', (system, first))]
    marks = {}
    for session, name, figure, what, who, why, when in conn.execute(
            'SELECT m.* FROM pfsbench_marks m JOIN (SELECT DISTINCT session '
            'FROM pfsbench_pages WHERE system = ? AND night >= ?) p '
            'ON p.session = m.session ORDER BY m.marked',
            (system, first)):
        marks.setdefault(session, []).append((name, figure, what, who, why))
    for page in pages:
        newest = None
        for name, figure, what, who, why in marks.get(page['session'], ()):
            if name in ('', page['name']) and figure in ('', page['figure']):
                newest = (what, who, why)
        page.update(zip(('mark', 'who', 'why'), newest or (None,) * 3))
    return {'system': system, 'nights': len(last), 'first': first,
            'last': last[0], 'pages': pages}


#: The nights of the store :func:`figure_pages` reads the pages of: all.
ALL_NIGHTS = 10 ** 9

def figure_pages(conn, figure, systems_):
    """The pages the store keeps of ``figure`` on these clusters, every
    night's, each with its newest mark (:func:`record`); ``[]`` from a store without the pages' table (before schema
    version 4)."""
    out = []
    try:
        for system in systems_:
            out += [p for p in record(conn, system, ALL_NIGHTS)[
                'pages'] if p['figure'] == figure]
    except conn.errors:
        conn.rollback()
        return []
    return out
