# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench paper``: the figures a seed published for one experiment,
and the site's beside them."""

import html
import json

from pfsbench import papers
from pfsbench.cli import common, sessions

HELP = "print a seed's published figures of an experiment, the site's beside"
DESCRIPTION = (
    'Print every figure a seed published for one experiment (E6, E7, E8, '
    'E9, E11, E13, E15, E16, E17, E19), as its tables (one per Lustre '
    'version and client mode, or configuration), each figure with its '
    'source line (pfsbench/papers/seedNNN.yaml). With --site (or --db, '
    '--report, --session, --since) it reads the results as the gate does '
    "and puts the site's figure beside the paper's for every point both "
    "have (a published peak beside the peak of the site's sweep, and "
    'where it fell).')
EXAMPLES = (
    'pfsbench paper E16',
    'pfsbench paper E17 --site --since 12h --format html -o e17.html',
    'pfsbench paper E11 --format json',
)

FORMATS = ('text', 'json', 'html')


def add_arguments(parser):
    parser.add_argument('experiment', metavar='EXPERIMENT',
                        help='the experiment id, e.g. E16 (required)')
    common.add_format_and_output(parser, FORMATS)
    parser.add_argument(
        '--site', action='store_true',
        help="put the site's figures beside the paper's (default: only "
             'when a results option below is given)')
    sessions.add_source_options(parser)
    sessions.add_selection_options(parser, "the site's run")


def _wants_site(args):
    return bool(args.site or args.db or args.report or args.session or
                args.since or args.name)


def run(args):
    experiment = args.experiment.upper()
    paper, figures = papers.figures_of(experiment)
    site = []
    if _wants_site(args):
        sessions.require_source(args)
        results = sessions.load(args)
        uuids = sessions.select_sessions(args, results)
        site = papers.site_figures(experiment, figures, results, uuids,
                                   sessions.compile_name(args))

    render = {'text': render_text, 'json': render_json,
              'html': render_html}[args.format]
    common.write_output(args.output, render(experiment, paper, figures,
                                            site, _wants_site(args)))
    return 0


def _number(value):
    """A figure as the source printed it: 237378.41, 1972, 5.7."""
    text = repr(float(value))
    return text[:-2] if text.endswith('.0') else text


#: Record keys that are a table's columns, in preference order.
COLUMN_KEYS = ('np', 'nodes', 'processes', 'tasks', 'file_system')


def tables(figures):
    """``[(title, column key, columns, {operation: {column: Figure}})]``:
    the figures as the source's tables, one per configuration."""
    out = {}
    for fig in figures:
        point = dict(fig.point)
        column = next((k for k in COLUMN_KEYS if k in point), None)
        config = tuple((k, v) for k, v in fig.point
                       if k != column and k != 'workers')
        if fig.get('statistic'):
            config += (('statistic',
                        f'{fig.get("statistic")} over {fig.get("over")}'),)
        table = out.setdefault((fig.tool, config), (column, {}))[1]
        table.setdefault(fig.operation, {})[
            point.get(column, '-')] = fig
    result = []
    for (tool, config), (column, rows) in out.items():
        columns = sorted({c for row in rows.values() for c in row},
                         key=lambda c: (isinstance(c, str), c))
        title = f'{tool}: ' + ', '.join(f'{k} {v}' for k, v in config)
        workers = {c: f.get('workers') for row in rows.values()
                   for c, f in row.items() if f.get('workers') is not None}
        if workers:
            # metabench heads its columns with its workers (a rank is its
            # master): shown, the columns being total processes.
            title += ', workers ' + ' '.join(
                f'{c}:{workers[c]}' for c in sorted(workers))
        result.append((title, column, columns, rows))
    return result


def _aligned(rows):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ['  ' + '  '.join(c.rjust(w) if i else c.ljust(w)
                             for i, (c, w) in enumerate(zip(row, widths)))
            .rstrip() for row in rows]


def render_text(experiment, paper, figures, site, asked):
    out = [f'{experiment}: figures published by seed {paper.seed} '
           f'({paper.title}), {paper.source}', '']
    for title, column, columns, rows in tables(figures):
        unit = next(iter(next(iter(rows.values())).values())).unit
        out.append(f'{title} [{unit}]')
        head = [f'operation \\ {column}' if column else 'operation'] + [
            str(c) for c in columns] + ['source lines']
        body = [[op] + [_number(row[c].value) if c in row else ''
                        for c in columns] +
                [','.join(sorted({str(f.lineno) for f in row.values()}))]
                for op, row in rows.items()]
        out += _aligned([head] + body) + ['']
    if asked:
        out += site_text(site)
    return '\n'.join(out) + '\n'


def site_text(site):
    if not site:
        return ["site: no figure of the site's results is at a published "
                'point (which checks and parameters match: docs/cli.md, '
                'pfsbench paper)']
    rows = [['site case', 'figure', 'at', 'site', 'paper', 'site/paper',
             'paper point', 'line']]
    for s in sorted(site, key=lambda s: (s['partition'], s['case'],
                                         s['var'], s['paper'].lineno)):
        fig = s['paper']
        point = ' '.join(f'{k}={v}' for k, v in fig.point)
        rows.append([f'{s["system"]}:{s["partition"]} {s["case"]}',
                     f'{s["var"]} [{s["unit"]}] n={s["n"]}' +
                     (f' ({s["contended"]} contended)'
                      if s['contended'] else ''),
                     str(s['at'] or ''), f'{s["value"]:.6g}',
                     _number(fig.value), f'{s["ratio"]:.3g}', point,
                     str(fig.lineno)])
    return ["site beside paper (the site's mean over its repeats, "
            "'contended': measured under foreign load; a published peak "
            "beside the peak of the site's sweep, 'at' where it fell):"] + \
        _aligned(rows)


def render_json(experiment, paper, figures, site, asked):
    record = {
        'experiment': experiment, 'seed': paper.seed,
        'source': paper.source, 'title': paper.title,
        'figures': [f.as_dict() for f in figures],
    }
    if asked:
        record['site'] = [{**{k: v for k, v in s.items() if k != 'paper'},
                           'paper': s['paper'].as_dict()} for s in site]
    return json.dumps(record, indent=2) + '\n'


def render_html(experiment, paper, figures, site, asked):
    esc = html.escape
    parts = [f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>'
             f'{esc(experiment)}: paper and site</title></head><body>',
             f'<h1>{esc(experiment)}: seed {esc(paper.seed)} '
             f'({esc(paper.title)})</h1>']
    for title, column, columns, rows in tables(figures):
        if column is None or len(columns) < 2:
            continue
        for op, row in rows.items():
            ours = [s for s in site if s['paper'] in row.values()]
            parts.append(curve_svg(f'{title}: {op}', column, row, ours))
    parts.append('<pre>' + esc(render_text(experiment, paper, figures,
                                            site, asked)) + '</pre>')
    parts.append('</body></html>')
    return '\n'.join(parts) + '\n'


def curve_svg(title, column, row, site, width=640, height=228):
    """The paper's curve (dashed) and the site's (solid, one per
    partition) of one operation, figure vs ``column``, as inline SVG
    (:class:`pfsbench.gate.report.svg.Plot`; the paper's values of
    ``column`` equally spaced)."""
    from pfsbench.gate.report import svg

    esc = html.escape
    paper = sorted((c, f.value) for c, f in row.items())
    curves = {}
    for s in site:
        curves.setdefault(f'{s["system"]}:{s["partition"]}', []).append(
            (s['paper'].get(column), s['value']))
    xs = sorted({c for c, _ in paper})
    ys = [v for _, v in paper] + [v for pts in curves.values()
                                  for _, v in pts]
    unit = next(iter(row.values())).unit
    plot = svg.Plot(
        title, f'{title} [{unit}]',
        svg.Axis(range(len(xs)), label=column, pad=0.04,
                 ticks=[(i, str(c)) for i, c in enumerate(xs)]),
        svg.Axis(ys, label=unit, zero=True), width, height,
        legend=[('#555', 'paper (dashed)')] + [
            (svg.COLOURS[i % len(svg.COLOURS)], f'site {label} (solid)')
            for i, label in enumerate(sorted(curves))], left=64)

    def x(c):
        return plot.x(xs.index(c))

    y = plot.y
    line = ' '.join(f'{x(c):.1f},{y(v):.1f}' for c, v in paper)
    plot.add(f'<polyline points="{line}" fill="none" stroke="#555" '
             'stroke-dasharray="4 3"/>')
    for i, (label, pts) in enumerate(sorted(curves.items())):
        colour = svg.COLOURS[i % len(svg.COLOURS)]
        pts = sorted((c, v) for c, v in pts if c in xs)
        line = ' '.join(f'{x(c):.1f},{y(v):.1f}' for c, v in pts)
        plot.add(f'<polyline points="{line}" fill="none" '
                 f'stroke="{colour}" stroke-width="1.5"/>')
        plot.add(*(f'<circle cx="{x(c):.1f}" cy="{y(v):.1f}" r="3" '
                   f'fill="{colour}"><title>{esc(label)} {esc(column)}={c}: '
                   f'{v:.6g}</title></circle>' for c, v in pts))
    return plot.render()
