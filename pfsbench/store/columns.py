# SPDX-License-Identifier: BSD-3-Clause
"""The store's columns, named once per table (schema.py's migrations
create them): the inserts name their columns from these lists, and the
readers select and unpack rows by them, so no other code depends on the
order a table was created in."""

import collections

#: ``pfsbench_sessions``: one row per ReFrame session.
SESSIONS = ('uuid', 'system', 'night', 'time_start', 'time_end',
            'reframe_version', 'data_version', 'hostname', 'cmdline',
            'num_cases', 'num_failures', 'num_aborted', 'num_skipped',
            'extras', 'spack_lock', 'source', 'ingested', 'figures',
            'figures_stamp')

#: ``pfsbench_cases``: one row per executed test case.
CASES = ('session', 'seq', 'name', 'rf_system', 'partition', 'environ',
         'target', 'filesystem', 'run_index', 'repeat', 'result',
         'fail_phase', 'fail_reason', 'time', 'jobid', 'nodelist', 'config',
         'tags', 'iterations', 'contended', 'contention', 'untimed')

#: ``pfsbench_figures``: one row per figure per repeat.
FIGURES = ('session', 'seq', 'pos', 'system', 'partition', 'target',
           'filesystem', 'name', 'rf_system', 'environ', 'figure', 'unit',
           'value', 'raw', 'repeat', 'night', 'time_start')

#: ``pfsbench_baselines``: the baselines a gate judges against.
BASELINES = ('system', 'name', 'body', 'ingested')

#: ``pfsbench_series``: the kept history, per cluster and target.
SERIES = ('system', 'scope', 'stamp', 'sessions', 'newest', 'body',
          'written')

#: ``pfsbench_pages``: the nights' pages (pfsbench.store.triage).
PAGES = ('system', 'night', 'session', 'name', 'figure', 'kind', 'change',
         'recorded')

#: ``pfsbench_marks``: the marks people gave the pages.
MARKS = ('session', 'name', 'figure', 'mark', 'who', 'why', 'marked')

#: Every table's columns, by table.
TABLES = {'pfsbench_sessions': SESSIONS, 'pfsbench_cases': CASES,
          'pfsbench_figures': FIGURES, 'pfsbench_baselines': BASELINES,
          'pfsbench_series': SERIES, 'pfsbench_pages': PAGES,
          'pfsbench_marks': MARKS}


def names(columns, instead=None):
    """``columns`` as an SQL list; ``instead`` maps a column to the
    expression read in its place (a column an older schema lacks)."""
    instead = instead or {}
    return ', '.join(instead.get(c, c) for c in columns)


def insert(table, columns):
    """``INSERT INTO table(columns) VALUES(?, ...)`` (``table`` a name of
    the schema, never user input)."""
    return (f'INSERT INTO {table}({names(columns)}) '
            f'VALUES({",".join("?" * len(columns))})')


def row(columns, values):
    """The dict ``values`` as a tuple in the order of ``columns``.

    Raises:
        KeyError: ``values`` misses a column or names one not there.
    """
    extra = values.keys() - set(columns)
    if extra:
        raise KeyError(f'not a column: {", ".join(sorted(extra))}')
    return tuple(values[c] for c in columns)


def reader(name, columns):
    """A named tuple of ``columns``: ``reader(...)._make(row)`` unpacks a
    row selected with :func:`names` of the same columns."""
    return collections.namedtuple(name, columns)
