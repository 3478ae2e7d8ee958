# SPDX-License-Identifier: BSD-3-Clause
"""Plots of the HTML report, as inline SVG written here: scaling curves
and histories (one per case, many per report)."""

import datetime
import html
from collections import defaultdict

from pfsbench.gate.judge.rows import var_rows

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


#: Colours of the series of one scaling plot (matplotlib's tab10).
COLOURS = ('#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd',
           '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf')


def scaling_svg(title, xparam, lines, width=640, height=300):
    """Figure vs parameter as inline SVG: current mean (with the min..max
    of its samples as error bars) and the baseline mean (dashed), one
    colour per series (written here like the histories: matplotlib cost
    more than the rest of a year-long report).

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
    ys = [v for _, pts in series for p in pts for v in p[1:]
          if v is not None]
    lo, hi = min(ys), max(ys)
    pad = (hi - lo) * 0.08 or abs(hi) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad
    left, right, top, bottom = 58, 10, 22 + 12 * len(series), 34
    x0, x1 = xs[0], xs[-1] if xs[-1] != xs[0] else xs[0] + 1.0

    def x(v):
        return left + (v - x0) / (x1 - x0) * (width - left - right)

    def y(v):
        return top + (hi - v) / (hi - lo) * (height - top - bottom)

    middle = (top + height - bottom) / 2
    out = _svg_head(width, height, f'scaling {title}', title, left)
    out += [f'<text x="{(left + width - right) / 2:.1f}" y="{height - 4}" '
            f'text-anchor="middle">{esc(xparam)}</text>',
            f'<text x="12" y="{middle:.1f}" '
            f'transform="rotate(-90 12 {middle:.1f})" '
            f'text-anchor="middle">{esc(unit)}</text>']
    out.append(f'<rect x="{left}" y="{top}" width="{width - left - right}" '
               f'height="{height - top - bottom}" fill="none" '
               'stroke="#ccc"/>')
    for value in xs:
        out.append(f'<text x="{x(value):.1f}" y="{height - 18}" '
                   f'text-anchor="middle">{_fmt(value)}</text>')

    for value in (lo + pad, hi - pad):
        out.append(f'<text x="{left - 4}" y="{y(value) + 3:.1f}" '
                   f'text-anchor="end">{_fmt(value)}</text>')

    for i, (label, pts) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        now = ' '.join(f'{x(p[0]):.1f},{y(p[1]):.1f}' for p in pts)
        out.append(f'<polyline points="{now}" fill="none" '
                   f'stroke="{colour}" stroke-width="1.5"/>')
        base = [p for p in pts if p[4] is not None]
        if base:
            line = ' '.join(f'{x(p[0]):.1f},{y(p[4]):.1f}' for p in base)
            out.append(f'<polyline points="{line}" fill="none" '
                       f'stroke="{colour}" stroke-dasharray="4 3" '
                       'stroke-opacity="0.7"/>')
            # A cross per baseline mean (a single point draws no line).
            out += [f'<path d="M{x(p[0]) - 3:.1f},{y(p[4]) - 3:.1f}l6,6'
                    f'm0,-6l-6,6" stroke="{colour}"><title>baseline '
                    f'{esc(xparam)}={_fmt(p[0])}: {_fmt(p[4])}</title>'
                    '</path>' for p in base]

        for px, mean, low, high, _ in pts:
            out.append(f'<line x1="{x(px):.1f}" x2="{x(px):.1f}" '
                       f'y1="{y(low):.1f}" y2="{y(high):.1f}" '
                       f'stroke="{colour}"/><circle cx="{x(px):.1f}" '
                       f'cy="{y(mean):.1f}" r="3" fill="{colour}"><title>'
                       f'{esc(xparam)}={_fmt(px)}: {_fmt(mean)} '
                       f'({_fmt(low)}..{_fmt(high)})</title></circle>')

        out.append(f'<text x="{width - right}" y="{24 + 12 * i}" '
                   f'text-anchor="end" fill="{colour}">{esc(label)}: now '
                   '(dots, solid), baseline (x, dashed)</text>')

    out.append('</svg>')
    return ''.join(out)


def _svg_head(width, height, title, heading, left):
    """The opening of an inline SVG plot: the element, its title (for
    tooltips and tests) and the heading written above the plot."""
    esc = html.escape
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
            f'height="{height}" role="img" font-family="sans-serif" '
            'font-size="10">', f'<title>{esc(title)}</title>',
            f'<text x="{left}" y="12" font-size="11">{esc(heading)}</text>']


def _fmt(value):
    return f'{value:.4g}'


def history_svg(hist, row=None, width=640, height=220):
    """A variable's per-session means as inline SVG (no image library:
    one plot costs microseconds, so the report can hold one per case):
    the baseline band (min..max of the baseline samples, mean dashed),
    the means, the change points (dotted, with the step) and ``row``'s
    current mean with its verdict (a
    :class:`~pfsbench.gate.judge.rows.VarRow`).

    Returns:
        An ``<svg>`` element as text.
    """
    esc = html.escape
    pts = hist['points']
    band = hist['baseline']
    left, right, top, bottom = 58, 10, 22, 24
    ys = [p['mean'] for p in pts] + [band['min'], band['max']]
    if row is not None and row.cur['mean'] is not None:
        ys.append(row.cur['mean'])

    lo, hi = min(ys), max(ys)
    pad = (hi - lo) * 0.08 or abs(hi) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad
    t0 = pts[0]['time'] if pts else 0.0
    t1 = pts[-1]['time'] if pts else 1.0
    span = (t1 - t0) or 1.0

    def x(t):
        return left + (t - t0) / span * (width - left - right)

    def y(v):
        return top + (hi - v) / (hi - lo) * (height - top - bottom)

    out = _svg_head(width, height,
                    f'history {hist["case"]} {hist["var"]}',
                    f'{hist["case"]}  {hist["var"]} [{hist["unit"]}]',
                    left)
    out += [f'<rect x="{left}" y="{y(band["max"]):.1f}" '
            f'width="{width - left - right}" '
            f'height="{max(y(band["min"]) - y(band["max"]), 1):.1f}" '
            'fill="#2ca02c" fill-opacity="0.2"><title>baseline min..max'
            '</title></rect>',
            f'<line x1="{left}" x2="{width - right}" '
            f'y1="{y(band["mean"]):.1f}" y2="{y(band["mean"]):.1f}" '
            'stroke="#2ca02c" stroke-dasharray="4 3"/>']
    for value in (lo + pad, hi - pad):
        out.append(f'<text x="{left - 4}" y="{y(value) + 3:.1f}" '
                   f'text-anchor="end">{_fmt(value)}</text>')

    for t, anchor in ((t0, 'start'), (t1, 'end')):
        day = datetime.datetime.fromtimestamp(
            t, datetime.timezone.utc).strftime('%Y-%m-%d')
        out.append(f'<text x="{x(t):.1f}" y="{height - 6}" '
                   f'text-anchor="{anchor}">{day}</text>')

    if pts:
        line = ' '.join(f'{x(p["time"]):.1f},{y(p["mean"]):.1f}'
                        for p in pts)
        out.append(f'<polyline points="{line}" fill="none" '
                   'stroke="#1f77b4" stroke-width="1"/>')

    for c in hist['changepoints']:
        cx = x(c['time'])
        out.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{top}" '
                   f'y2="{height - bottom}" stroke="#d62728" '
                   'stroke-dasharray="2 2"/>'
                   f'<text x="{cx + 3:.1f}" y="{y(c["after"]) - 3:.1f}" '
                   f'fill="#d62728">{c["change"]:+.0%}</text>')

    if row is not None and row.cur['mean'] is not None and pts:
        out.append(f'<circle cx="{x(t1):.1f}" cy="{y(row.cur["mean"]):.1f}" '
                   f'r="4" fill="#ff7f0e"><title>now: {esc(row.verdict)}'
                   '</title></circle>')

    out.append('</svg>')
    return ''.join(out)
