# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench gate``: the latest run against a baseline, with a verdict."""

import contextlib
import gc
import os
import sys

from pfsbench.cli import sessions
from pfsbench.core.errors import ConfigError, MissingData
from pfsbench.gate.history.results import default_runs_dir
from pfsbench.gate.judge import (baseline as judge_baseline,
                                 config as gate_config)
from pfsbench.gate.judge.record import run_gate
from pfsbench.gate.judge.rows import rendering
from pfsbench.gate.report import FORMATS, render_all
from pfsbench.gate.statistics.forked import default_jobs
from pfsbench.store import db as store_db, spool, triage

HELP = ('compare the latest run with a baseline: regression, inconclusive, '
        'improvement or pass per variable')
DESCRIPTION = ('Compare the latest run of every baseline test case and '
               'performance variable with the baseline. Each variable gets '
               'the relative change of its mean with a confidence interval '
               '(Welch t on the log of the ratio of means) and a verdict '
               'against its tolerance (config/gate.yaml). Exit codes: 0 '
               'pass, 1 regression, 2 usage/config/input error, 3 missing '
               'data (nothing selected, a baseline case absent, a failed or '
               'dry run; also inconclusive if gate.yaml says '
               'inconclusive_exit: 3).')
EXAMPLES = (
    'pfsbench gate --baseline pre-upgrade',
    'pfsbench gate --baseline pre-upgrade --since 12h --junit '
    'runs/gate.xml --html runs/gate.html',
    "pfsbench gate --baseline pre-upgrade --name '^dd_streaming' "
    '--format json > gate.json',
)


def add_arguments(parser):
    parser.add_argument(
        '-b', '--baseline', metavar='NAME', required=True,
        help='the baseline to compare with (required; see pfsbench '
             'baseline list)')
    parser.add_argument(
        '--config', metavar='FILE', default=None,
        help='gate settings: tolerances, confidence, change points '
             '(default: config/gate.yaml)')
    sessions.add_source_options(parser)
    source = parser.add_argument_group('results store')
    source.add_argument(
        '--store', metavar='URL', default=None,
        help='judge against the baseline and history in this results store '
             '(a file, sqlite:///PATH or postgresql://USER@HOST/DB; see '
             'pfsbench ingest) instead of the runs directory (default: '
             '$PFSBENCH_STORE, else the store the gate settings name, else '
             'the runs directory; --db names the runs directory)')
    source.add_argument(
        '--system', metavar='NAME', default=None,
        help="with a store: this cluster's sessions and baseline only "
             '(default: the store\'s only cluster)')
    source.add_argument(
        '--target', metavar='PATH', default=None,
        help='with a store: only the test cases that wrote to this target '
             '(default: every target of the cluster)')
    sessions.add_selection_options(parser, 'the current run')
    out = parser.add_argument_group('output')
    out.add_argument(
        '--format', metavar='FMT', choices=FORMATS, default='text',
        help=f'what to print on stdout: {", ".join(FORMATS)} '
             '(default: %(default)s)')
    for fmt in ('json', 'markdown', 'junit', 'html'):
        out.add_argument(
            f'--{fmt}', metavar='FILE', default=None, dest=f'out_{fmt}',
            help=f'also write the {fmt} report to FILE (default: none)')

    out.add_argument(
        '--no-history', action='store_true',
        help='skip the history and change-point analysis (default: off)')
    out.add_argument(
        '--max-plots', metavar='N', type=int, default=60,
        help='history plots in the HTML report, one per case, the most '
             'severe first (default: %(default)s)')
    parser.add_argument(
        '--jobs', metavar='N', type=int, default=None,
        help='processes that judge the cases and seek change points, the '
             'same report (default: the cores this process may use)')
    out.add_argument(
        '--all-figures', action='store_true',
        help='list every figure of a case, not only its worst one; '
             'variables equal by construction stay one figure (default: '
             'off)')


def run(args):
    if args.jobs is not None and args.jobs < 1:
        raise ConfigError('<command line>', '--jobs', args.jobs,
                          'expected a whole number of at least 1')
    jobs = default_jobs() if args.jobs is None else args.jobs
    # The command reads a year of history and keeps nearly all of it to
    # the end: the collector's passes over it were 3 % of its time
    # (docs/gate-evidence.md, "Speed: a year of nightlies").
    with _collector_off():
        return _run(args, jobs)


@contextlib.contextmanager
def _collector_off():
    """Python's cyclic garbage collector off within the block; what the
    block made is then frozen (``gc.freeze``): the interpreter's last
    collection as the command exits passes over it no more (it took
    20-35 ms of a year's gate).  A later fork's ``gc.unfreeze``
    (pfsbench.gate.statistics.forked) hands it back to the collector."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was:
            gc.enable()


def _run(args, jobs):
    """:func:`run` with ``--jobs`` checked."""
    config = gate_config.load(args.config)
    # --db names the runs directory: it wins over $PFSBENCH_STORE and a
    # store the settings name (the nightly judges from it when the store
    # does not answer).
    url = (store_db.named_url(args.store, config.store)
           if args.store or not args.db else None)
    kept = None
    if url and not args.report:
        baseline, baseline_path, results, kept = from_store(args, url,
                                                            config)
    else:
        # Name a missing database before a baseline looked for beside it;
        # the baseline is checked before the (slow) database is read.
        sessions.require_source(args)
        directory = sessions.baseline_dir(args)
        baseline = judge_baseline.load(directory, args.baseline)
        baseline_path = judge_baseline.baseline_path(directory, args.baseline)
        results = sessions.load(args, window=config.history_sessions)
    uuids = sessions.select_sessions(args, results)
    if not any(results.case_records(u) for u in uuids):
        raise MissingData(
            f'{results.source}: session(s) {", ".join(u[:8] for u in uuids)}'
            ' ran zero test cases'
        )

    record = run_gate(baseline, results, uuids, config,
                      name_filter=sessions.compile_name(args),
                      with_history=not args.no_history,
                      baseline_path=baseline_path, jobs=jobs, lazy=True)
    if not record['results'] and not record['missing']:
        raise MissingData(
            f'baseline {args.baseline!r}: no test case selected'
            + (f' by --name {args.name!r}' if args.name else '')
        )

    # The reports other than JSON share the record's case rows (taken
    # once).
    formats = {args.format} | {f for f in ('markdown', 'junit', 'html')
                               if getattr(args, f'out_{f}')}
    files = [(fmt, getattr(args, f'out_{fmt}'))
             for fmt in ('json', 'markdown', 'junit', 'html')
             if getattr(args, f'out_{fmt}')]
    with (rendering(record) if formats - {'json'} else
          contextlib.nullcontext()):
        texts = render_all(record, [fmt for fmt, _ in files] + [args.format],
                           jobs, max_plots=args.max_plots,
                           all_figures=args.all_figures, triage=kept)
    for (_, path), text in zip(files, texts):
        write(path, text)
    sys.stdout.write(texts[-1])
    note = spool.overdue(spool.default_dir(
        os.path.dirname(os.path.abspath(args.db)) if args.db
        else default_runs_dir()))
    if note:
        print(f'pfsbench: warning: {note}', file=sys.stderr)
    _left_to_exit(results, record)
    return record['exit_code']


#: The last run's results and record (:func:`_left_to_exit`), after the
#: list itself: it holds itself, so no collection frees it.
_LEFT = []


def _left_to_exit(*objs):
    """Leave ``objs`` to the process's end: Python would free a year of
    results object by object, at the command's return and again at its
    exit, where the system takes back their pages at once; the
    collector leaves them alone at exit (:func:`_collector_off` freezes
    them).  Only the last run's are held: a process that runs the command
    again frees the previous ones (docs/gate-evidence.md, "Speed: a year
    of nightlies")."""
    if not _LEFT:
        _LEFT.append(_LEFT)
    del _LEFT[1:]
    _LEFT.extend(objs)


def from_store(args, url, config):
    """``(baseline, where, results, triage)`` from the results store:
    this cluster's baseline and its sessions, read as from a runs
    directory (pfsbench.store.read_results), so the verdicts are the
    same, and the site's triage record the reports show (None where the
    store keeps no pages yet: docs/triage.md)."""
    from pfsbench import store

    judge_baseline.check_name(args.baseline)
    with store.open_store(url, create=False, migrate=False) as conn:
        system = store.choose_system(conn, args.system)
        baseline, where = store.load_baseline(conn, system, args.baseline)
        judge_baseline.validate(baseline, where)
        newest, newest_since = sessions.window_of(
            args, window=config.history_sessions)
        results = store.read_results(conn, system, newest=newest,
                                     newest_since=newest_since,
                                     target=args.target,
                                     lag=store.SERIES_LAG)
        try:
            kept = triage.record(conn, system)
        except conn.errors:
            # A store before the pages' migration (schema 4) has none.
            conn.rollback()
            kept = None
    return baseline, where, results, kept


def write(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with open(path, 'w') as fp:
        fp.write(text)
