# SPDX-License-Identifier: BSD-3-Clause
"""What ``pfsbench gate`` and ``pfsbench baseline`` share: where the results
are (database, run reports, baselines) and which sessions count, as
options, and the loading and selection those options ask for."""

import datetime
import os
import re
import time

from pfsbench.core.errors import ConfigError, MissingData
from pfsbench.gate.history.results import default_db_path, read_reports
from pfsbench.gate.judge import baseline
from pfsbench.store.reframe_db import require_database
from pfsbench.store.runs import read_database


def add_source_options(parser):
    group = parser.add_argument_group('results')
    group.add_argument(
        '--db', metavar='FILE', default=None,
        help='ReFrame results database, opened read-only: its sessions '
             'are read from the results store beside it, which gets the '
             'sessions it lacks first (default: $PFSBENCH_RUNS/results.db, '
             'else <repo>/runs/results.db)')
    group.add_argument(
        '--report', metavar='FILE', action='append', default=[],
        help='read these ReFrame run report files instead of the database; '
             'repeatable (default: none)')
    group.add_argument(
        '--lock-timeout', metavar='SECONDS', type=float, default=30.0,
        help='wait this long for a ReFrame session that is writing the '
             'database (default: %(default)s)')
    group.add_argument(
        '--baseline-dir', metavar='DIR', default=None,
        help='where baselines live (default: baselines/ beside the '
             'database)')
    return group


def add_selection_options(parser, what):
    group = parser.add_argument_group('session selection')
    group.add_argument(
        '--session', metavar='UUID', action='append', default=[],
        help=f'{what}: a session uuid, a unique prefix, "latest" or '
             '"latest~N"; repeatable (default: latest)')
    group.add_argument(
        '--since', metavar='AGE', default=None,
        help=f'{what}: every session started within AGE (30m, 12h, 7d) or '
             'since a date (2026-11-01 or 2026-11-01T18:00, local time '
             'unless a zone is given); for each case '
             'the latest of them counts; use it for nightlies: ReFrame '
             'stores no session when zero tests ran, so "latest" would be '
             'an old run (default: off)')
    group.add_argument(
        '-n', '--name', metavar='REGEX', default=None,
        help='only test cases whose name matches REGEX (re.search; '
             'default: all)')
    return group


def db_path(args):
    return args.db or default_db_path()


def baseline_dir(args):
    return args.baseline_dir or baseline.baseline_dir(db_path(args))


def parse_since(text, now=None):
    """Unix time from ``30m``/``12h``/``7d`` or an ISO date/time (local
    time if it names no zone, as ``date +%Y-%m-%dT%H:%M:%S`` prints)."""
    now = time.time() if now is None else now
    match = re.fullmatch(r'(\d+(?:\.\d+)?)([smhd])', text or '')
    if match:
        scale = {'s': 1, 'm': 60, 'h': 3600, 'd': 86400}[match.group(2)]
        return now - float(match.group(1)) * scale

    try:
        when = datetime.datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise ConfigError('<command line>', '--since', text,
                          'expected 30m, 12h, 7d or an ISO date') from None

    # A naive datetime's timestamp() is taken in local time.
    return when.timestamp()


def compile_name(args):
    if args.name is None:
        return None

    try:
        return re.compile(args.name)
    except re.error as err:
        raise ConfigError('<command line>', '--name', args.name,
                          f'not a regular expression: {err}') from None


def require_source(args):
    """Raise MissingData naming the database (or report) that is absent."""
    for path in args.report:
        if not os.path.exists(path):
            raise MissingData(f'{path}: run report not found')

    if not args.report:
        require_database(db_path(args))


def window_of(args, window=None):
    """``(newest, newest_since)``: with ``window``, only the sessions the
    gate can use: the newest ``window`` plus those ``latest~N`` reaches
    back to or ``--since`` selects (all of them if a session is named by
    uuid)."""
    newest = newest_since = None
    specs = getattr(args, 'session', None) or ['latest']
    since = getattr(args, 'since', None)
    if window is not None and since:
        newest, newest_since = window + 1, parse_since(since)
    elif window is not None:
        backs = [re.fullmatch(r'latest(?:~(\d+))?', s) for s in specs]
        if all(backs):
            newest = window + 1 + max(int(m.group(1) or 0) for m in backs)

    return newest, newest_since


def load(args, window=None):
    """Load the results: the run report files given, else the runs
    directory's sessions from the results store beside it (what it lacks
    ingested first); with ``window``, only the sessions the gate can use
    (:func:`window_of`)."""
    if args.report:
        return read_reports(args.report)

    newest, newest_since = window_of(args, window)
    return read_database(db_path(args), timeout=args.lock_timeout,
                         newest=newest, newest_since=newest_since)


def select_sessions(args, results):
    """Session uuids chosen by ``--session``/``--since`` (default latest).

    Raises:
        ConfigError: both options given.
        MissingData: nothing selected.
    """
    if args.session and args.since:
        raise ConfigError('<command line>', '--since', args.since,
                          'give --session or --since, not both')

    if args.since:
        since = parse_since(args.since)
        uuids = [s.uuid for s in results.ordered_sessions()
                 if s.time_start >= since]
        if not uuids:
            raise MissingData(f'{results.source}: no session started since '
                              f'{args.since}')

        return uuids

    specs = args.session or ['latest']
    uuids = []
    for spec in specs:
        uuid = results.resolve_session(spec)
        if uuid not in uuids:
            uuids.append(uuid)

    return uuids
