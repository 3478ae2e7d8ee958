# SPDX-License-Identifier: BSD-3-Clause
"""Plots of the HTML report: scaling curves with matplotlib (Agg, PNG
bytes), histories as inline SVG written here (one per case, many per
report)."""

import datetime
import html
import io
from collections import defaultdict

from pfsbench.gate.rows import var_rows

#: Parameters tried, in order, as the x axis of a scaling curve.
SCALING_PARAMS = ('nodes', 'num_nodes', 'num_procs', 'procs', 'processes',
                  'np', 'num_tasks', 'tasks', 'streams_per_node',
                  'procs_per_node', 'threads', 'clients_per_node')


#: Series drawn in one scaling plot; more would hide each other.
MAX_LINES = 8


def _pyplot():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    return plt


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format='png', dpi=80)
    _pyplot().close(fig)
    return buf.getvalue()


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


def scaling_plot(title, xparam, lines):
    """Figure vs parameter: current mean (with the min..max of its samples
    as error bars) and the baseline mean (dashed)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.4), layout='constrained')
    unit = ''
    if len(lines) > MAX_LINES:
        title += f' (first {MAX_LINES} of {len(lines)} series)'

    for i, (label, rows) in enumerate(sorted(lines.items())[:MAX_LINES]):
        rows = sorted(rows, key=lambda r: _numeric(r.params[xparam]))
        xs = [_numeric(r.params[xparam]) for r in rows]
        cur = [r.cur['mean'] for r in rows]
        base = [r.base['mean'] for r in rows]
        lo = [m - min(r.cur['values']) for m, r in zip(cur, rows)]
        hi = [max(r.cur['values']) - m for m, r in zip(cur, rows)]
        color = f'C{i % 10}'
        ax.errorbar(xs, cur, yerr=[lo, hi], marker='o', color=color,
                    capsize=3, label=f'{label} now')
        ax.plot(xs, base, linestyle='--', marker='x', color=color,
                alpha=0.7, label=f'{label} baseline')
        unit = rows[0].unit

    ax.set_xlabel(xparam)
    ax.set_ylabel(unit)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return _png(fig)


def _fmt(value):
    return f'{value:.4g}'


def history_svg(hist, row=None, width=640, height=220):
    """A variable's per-session means as inline SVG (no image library:
    one plot costs microseconds, so the report can hold one per case):
    the baseline band (min..max of the baseline samples, mean dashed),
    the means, the change points (dotted, with the step) and ``row``'s
    current mean with its verdict (a :class:`~pfsbench.gate.rows.VarRow`).

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

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height}" role="img" font-family="sans-serif" '
           'font-size="10">',
           f'<title>history {esc(hist["case"])} {esc(hist["var"])}</title>',
           f'<text x="{left}" y="12" font-size="11">{esc(hist["case"])}  '
           f'{esc(hist["var"])} [{esc(hist["unit"])}]</text>',
           f'<rect x="{left}" y="{y(band["max"]):.1f}" '
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
