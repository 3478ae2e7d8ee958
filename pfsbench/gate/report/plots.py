# SPDX-License-Identifier: BSD-3-Clause
"""Plots of the HTML report, drawn with :mod:`pfsbench.gate.report.svg`:
scaling curves and histories (one per case, many per report)."""

import html
from collections import defaultdict

from pfsbench.gate.judge.rows import var_rows
from pfsbench.gate.report import svg
from pfsbench.gate.report.svg import COLOURS

#: Parameters tried, in order, as the x axis of a scaling curve.
SCALING_PARAMS = ('nodes', 'num_nodes', 'num_procs', 'procs', 'processes',
                  'np', 'num_tasks', 'tasks', 'streams_per_node',
                  'procs_per_node', 'threads', 'clients_per_node')


#: Series drawn in one scaling plot; more would hide each other.
MAX_LINES = 8


def _numeric(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def scaling_axis(rows):
    """The parameter to put on the x axis for these rows, or ``None``."""
    params = defaultdict(set)
    for r in rows:
        for k, v in r.params.items():
            params[k].add(v)

    numeric = [k for k, vals in params.items()
               if len(vals) > 1 and all(_numeric(v) is not None
                                        for v in vals)]
    for name in SCALING_PARAMS:
        if name in numeric:
            return name

    return numeric[0] if numeric else None


def scaling_groups(record, shown=None):
    """``[(title, xparam, {label: [row, ...]})]`` for every check/variable
    whose cases differ in a numeric parameter.

    Args:
        record: the gate report record.
        shown: ``{(case, var)}`` to plot (the figures a report shows), or
            ``None`` for every variable.
    """
    by_var = defaultdict(list)
    for r in var_rows(record):
        if r.cur['mean'] is None or \
                (shown is not None and (r.case, r.var) not in shown):
            continue

        by_var[(r.check, r.var, r.system, r.partition,
                r.environ)].append(r)

    out = []
    for (check, var, system, part, env), rows in sorted(by_var.items()):
        xparam = scaling_axis(rows)
        if xparam is None:
            continue

        lines = defaultdict(list)
        for r in rows:
            rest = ' '.join(f'{k}={v}' for k, v in r.params.items()
                            if k != xparam)
            lines[rest or var].append(r)

        out.append((f'{check} {var} @{system}:{part}+{env}', xparam,
                    dict(lines)))

    return out


def scaling_svg(title, xparam, lines, width=640, height=264):
    """Figure vs parameter as inline SVG (:class:`~pfsbench.gate.report.
    svg.Plot`): current mean (with the min..max of its samples as error
    bars) and the baseline mean (dashed), one colour per series.

    Returns:
        An ``<svg>`` element as text.
    """
    esc = html.escape
    if len(lines) > MAX_LINES:
        title += f' (first {MAX_LINES} of {len(lines)} series)'

    series = []
    for label, rows in sorted(lines.items())[:MAX_LINES]:
        rows = sorted(rows, key=lambda r: _numeric(r.params[xparam]))
        series.append((label, [(
            _numeric(r.params[xparam]), r.cur['mean'],
            min(r.cur['values']), max(r.cur['values']), r.base['mean'])
            for r in rows]))

    unit = lines[next(iter(sorted(lines)))][0].unit
    xs = sorted({p[0] for _, pts in series for p in pts})
    plot = svg.Plot(
        f'scaling {title}', title,
        svg.Axis(xs, label=xparam, pad=0.0,
                 ticks=[(v, svg.fmt(v)) for v in xs]),
        svg.Axis([v for _, pts in series for p in pts for v in p[1:]],
                 label=unit),
        width, height,
        legend=[(COLOURS[i % len(COLOURS)], f'{label}: now (dots, solid), '
                 'baseline (x, dashed)')
                for i, (label, _) in enumerate(series)])
    x, y = plot.x, plot.y
    for i, (label, pts) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        now = ' '.join(f'{x(p[0]):.1f},{y(p[1]):.1f}' for p in pts)
        plot.add(f'<polyline points="{now}" fill="none" '
                 f'stroke="{colour}" stroke-width="1.5"/>')
        base = [p for p in pts if p[4] is not None]
        if base:
            line = ' '.join(f'{x(p[0]):.1f},{y(p[4]):.1f}' for p in base)
            plot.add(f'<polyline points="{line}" fill="none" '
                     f'stroke="{colour}" stroke-dasharray="4 3" '
                     'stroke-opacity="0.7"/>')
            # A cross per baseline mean (a single point draws no line).
            plot.add(*(f'<path d="M{x(p[0]) - 3:.1f},{y(p[4]) - 3:.1f}l6,6'
                       f'm0,-6l-6,6" stroke="{colour}"><title>baseline '
                       f'{esc(xparam)}={_fmt(p[0])}: {_fmt(p[4])}</title>'
                       '</path>' for p in base))

        for px, mean, low, high, _ in pts:
            plot.add(f'<line x1="{x(px):.1f}" x2="{x(px):.1f}" '
                     f'y1="{y(low):.1f}" y2="{y(high):.1f}" '
                     f'stroke="{colour}"/><circle cx="{x(px):.1f}" '
                     f'cy="{y(mean):.1f}" r="3" fill="{colour}"><title>'
                     f'{esc(xparam)}={_fmt(px)}: {_fmt(mean)} '
                     f'({_fmt(low)}..{_fmt(high)})</title></circle>')

    return plot.render()


_fmt = svg.fmt


def history_svg(hist, row=None, width=640, height=220):
    """A variable's per-session means as inline SVG: the baseline band
    (min..max of the baseline samples, mean dashed), the means, the
    change points (dotted, with the step) and ``row``'s current mean with
    its verdict (a :class:`~pfsbench.gate.judge.rows.VarRow`).

    Returns:
        An ``<svg>`` element as text.
    """
    esc = html.escape
    pts = hist['points']
    band = hist['baseline']
    ys = [p['mean'] for p in pts] + [band['min'], band['max']]
    if row is not None and row.cur['mean'] is not None:
        ys.append(row.cur['mean'])
    plot = svg.Plot(f'history {hist["case"]} {hist["var"]}',
                    f'{hist["case"]}  {hist["var"]} [{hist["unit"]}]',
                    svg.Axis([p['time'] for p in pts], kind='time'),
                    svg.Axis(ys, label=hist['unit']), width, height)
    x, y = plot.x, plot.y
    left, right = plot.left, width - plot.right
    plot.add(f'<rect x="{left}" y="{y(band["max"]):.1f}" '
             f'width="{right - left}" '
             f'height="{max(y(band["min"]) - y(band["max"]), 1):.1f}" '
             'fill="#2ca02c" fill-opacity="0.2"><title>baseline min..max'
             '</title></rect>',
             f'<line x1="{left}" x2="{right}" '
             f'y1="{y(band["mean"]):.1f}" y2="{y(band["mean"]):.1f}" '
             'stroke="#2ca02c" stroke-dasharray="4 3"/>')
    if pts:
        line = ' '.join(f'{x(p["time"]):.1f},{y(p["mean"]):.1f}'
                        for p in pts)
        plot.add(f'<polyline points="{line}" fill="none" '
                 'stroke="#1f77b4" stroke-width="1"/>')

    for c in hist['changepoints']:
        cx = x(c['time'])
        plot.add(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{plot.top}" '
                 f'y2="{plot.floor}" stroke="#d62728" '
                 'stroke-dasharray="2 2"/>'
                 f'<text x="{cx + 3:.1f}" y="{y(c["after"]) - 3:.1f}" '
                 f'fill="#d62728">{c["change"]:+.0%}</text>')

    if row is not None and row.cur['mean'] is not None and pts:
        plot.add(f'<circle cx="{x(pts[-1]["time"]):.1f}" '
                 f'cy="{y(row.cur["mean"]):.1f}" r="4" fill="#ff7f0e">'
                 f'<title>now: {esc(row.verdict)}</title></circle>')

    return plot.render()
