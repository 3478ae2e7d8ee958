# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench history``: one figure across clusters and targets over
time, from the results store."""

import json

from pfsbench import store
from pfsbench.cli import common
from pfsbench.core.errors import MissingData
from pfsbench.gate.history.results import default_runs_dir
from pfsbench.store import db, triage

HELP = 'one figure across clusters and targets over time, from the store'
DESCRIPTION = (
    'Print one figure (a performance variable, e.g. write_bw) of every '
    'cluster, target and test case in the results store, night by night: '
    'the mean, min and max of its repeats. --name keeps the cases whose '
    'name holds the text; --system keeps some clusters. Reads only '
    '(a role with SELECT on the store is enough). --format html draws one '
    'plot per test case, one line per cluster and target, with each '
    'line\'s levels and steps as the gate\'s change-point detector finds '
    'them, a flag where a line\'s provenance changed and the nights the '
    'gate paged or held, with their triage (docs/history-pictures.md).')
EXAMPLES = (
    'pfsbench history write_bw --store postgresql://pfsbench_read@db/'
    'pfsbench',
    "pfsbench history write_bw --name 'dd_stream_per_node %nodes=1' "
    '--format json',
    'pfsbench history create_rate --system hawk --system vulcan --since '
    '2026-01-01 --format html -o history.html',
)

FORMATS = ('text', 'json', 'html')


def add_arguments(parser):
    parser.add_argument('figure', metavar='FIGURE',
                        help='the performance variable (e.g. write_bw)')
    parser.add_argument(
        '--store', metavar='URL', default=None,
        help='the results store (default: $PFSBENCH_STORE, else '
             f'<runs>/{db.SQLITE_FILE})')
    parser.add_argument(
        '-n', '--name', metavar='TEXT', default=None,
        help='only test cases whose name holds TEXT (default: all)')
    parser.add_argument(
        '--system', metavar='NAME', action='append', default=[],
        help='only this cluster; repeatable (default: all)')
    parser.add_argument(
        '--since', metavar='YYYY-MM-DD', default=None,
        help='only nights on or after this date (default: all)')
    parser.add_argument(
        '--max-plots', metavar='N', type=int, default=60,
        help='with --format html: plots, one per test case, those on the '
             'most clusters and targets first (default: %(default)s)')
    common.add_format_and_output(parser, FORMATS)


def run(args):
    url = db.resolve_url(args.store, default_runs_dir())
    with store.open_store(url, create=False, migrate=False) as conn:
        rows = store.figure_history(conn, args.figure, name=args.name,
                                    systems_=args.system, since=args.since)
        where = conn.where
        if rows and args.format == 'html':
            from pfsbench.gate.report import trends
            provenance = store.provenance_history(
                conn, args.figure, name=args.name, systems_=args.system,
                since=args.since)
            pages = triage.figure_pages(conn, args.figure,
                                        sorted({r["system"] for r in rows}))
    if not rows:
        raise MissingData(f'{where}: figure {args.figure!r}: no values '
                          'stored' + (f' for cases holding {args.name!r}'
                                      if args.name else ''))

    if args.format == 'html':
        text = trends.render_html(args.figure, rows, where,
                                  max_plots=args.max_plots,
                                  provenance=provenance, pages=pages)
    elif args.format == 'json':
        text = json.dumps({'figure': args.figure, 'store': where,
                           'rows': rows}, indent=1, ensure_ascii=False) + '\n'
    else:
        text = render_text(args.figure, rows)
    common.write_output(args.output, text)
    return 0


def render_text(figure, rows):
    """One line per cluster, target, case and night, grouped by cluster
    and case, oldest night first."""
    # Nights are sessions: a night has a row per case and target.
    lines = [f'{figure}: {len({r["session"] for r in rows})} night(s) of '
             f'{len({r["system"] for r in rows})} cluster(s)']
    groups = {}
    for row in rows:
        groups.setdefault((row['system'], row['partition'], row['target'],
                           row['filesystem'], row['name']), []).append(row)
    for (system, partition, target, fstype, name), found in sorted(
            groups.items()):
        unit = found[0]['unit'] or ''
        lines.append('')
        lines.append(f'{system}:{partition} {target or "-"} '
                     f'({fstype or "?"})  {name}')
        for row in found:
            lines.append(f'  {row["night"]}  {row["session"][:8]}  '
                         f'{row["mean"]:12.6g} {unit}  '
                         f'[{row["min"]:.6g} .. {row["max"]:.6g}]  '
                         f'n={row["n"]}')
    return '\n'.join(lines) + '\n'
