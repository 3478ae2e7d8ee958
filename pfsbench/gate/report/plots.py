# SPDX-License-Identifier: BSD-3-Clause
"""Plots of the HTML report, drawn with :mod:`pfsbench.gate.report.svg`:
scaling curves and histories (one per case, many per report)."""

import html
from collections import defaultdict

from pfsbench.gate.judge.rows import var_rows
from pfsbench.gate.report import svg
from pfsbench.gate.report.svg import COLOURS
from pfsbench.gate.statistics.values import number_or_none

#: Parameters tried, in order, as the x axis of a scaling curve.
SCALING_PARAMS = ('nodes', 'num_nodes', 'num_procs', 'procs', 'processes',
                  'np', 'num_tasks', 'tasks', 'streams_per_node',
                  'procs_per_node', 'threads', 'clients_per_node')


#: Series drawn in one scaling plot; more would hide each other.
MAX_LINES = 8


def scaling_axis(rows):
    """The parameter to put on the x axis for these rows, or ``None``."""
    params = defaultdict(set)
    for r in rows:
        for k, v in r.params.items():
            params[k].add(v)

    numeric = [k for k, vals in params.items()
               if len(vals) > 1 and all(number_or_none(v) is not None
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
        rows = sorted(rows, key=lambda r: number_or_none(r.params[xparam]))
        series.append((label, [(
            number_or_none(r.params[xparam]), r.cur['mean'],
            min(r.cur['values']), max(r.cur['values']), r.base['mean'])
            for r in rows]))

    unit = lines[next(iter(sorted(lines)))][0].unit
    xs = sorted({p[0] for _, pts in series for p in pts})
    plot = svg.Plot(
        f'scaling {title}', title,
        svg.Axis(xs, label=xparam, pad=0.04,
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


#: How a night the gate judged is marked: ``{kind: (shape, colour,
#: legend)}`` (:func:`night_kind`); docs/history-pictures.md.
NIGHT_MARKS = {
    'paged': ('triangle-down', '#d62728', 'paged (regression)'),
    'held': ('square', '#9467bd', 'held (not paged)'),
    'inconclusive': ('diamond', '#e0a000', 'inconclusive'),
    'improvement': ('triangle-up', '#1f77b4', 'improvement'),
    'pass': ('circle', '#2ca02c', 'pass'),
    'ignored': ('cross', '#7f7f7f', 'ignored'),
}


def night_kind(verdict, reason=''):
    """The mark of a night's verdict: a regression pages; a loss the gate
    held back as inconclusive (foreign load seen and no cause named, or
    the night's false-alarm budget) is ``held``: a part of its reason
    begins ``held`` (the record has no field for it)."""
    if verdict == 'regression':
        return 'paged'
    if verdict == 'inconclusive' and any(
            part.strip().startswith('held') for part in reason.split(';')):
        return 'held'
    return verdict if verdict in NIGHT_MARKS else 'inconclusive'


def history_svg(hist, row=None, width=640, height=230):
    """A variable's per-session means as inline SVG, with what the gate
    judged (docs/history-pictures.md): the level tonight was judged
    against and its night-to-night noise band (the baseline's min..max
    where the rule had no level), the change points (dotted, with the
    step), the night the pooled nights say the shift began and their
    window, the provenance that changed at a step (a labelled flag on
    the time axis) and tonight's mean marked by its verdict (``row``, a
    :class:`~pfsbench.gate.judge.rows.VarRow`).  Each mark has a class
    and ``data-`` attributes a page's reader (or test) can find.

    Returns:
        An ``<svg>`` element as text.
    """
    pts = hist['points']
    band = hist['baseline']
    level = _level(band, row)
    now = row.cur['mean'] if row is not None else None
    ys = [p['mean'] for p in pts] + [now] + (
        [level[0] * (1 - level[1]), level[0] * (1 + level[1])]
        if level[1] is not None else [band['min'], band['max']])
    kind = night_kind(row.verdict, row.reason) if row is not None and \
        now is not None and pts else None
    keys = [('circle', '#1f77b4', 'night mean')]
    if kind is not None:
        keys.append(NIGHT_MARKS[kind][:2] + (
            f'tonight: {NIGHT_MARKS[kind][2]}',))
    plot = svg.Plot(f'history {hist["case"]} {hist["var"]}',
                    f'{hist["case"]}  {hist["var"]} [{hist["unit"]}]',
                    svg.Axis([p['time'] for p in pts], kind='time'),
                    svg.Axis(ys, label=hist['unit']), width, height,
                    keys=keys)
    _level_marks(plot, band, level)
    _pooled_marks(plot, pts, row)
    for c in hist['changepoints']:
        cx = plot.x(c['time'])
        plot.add(f'<g class="changepoint" data-night="{svg.day(c["time"])}"'
                 f' data-change="{c["change"]:.4f}"><line x1="{cx:.1f}" '
                 f'x2="{cx:.1f}" y1="{plot.top}" y2="{plot.floor}" '
                 'stroke="#d62728" stroke-dasharray="2 2"/>'
                 f'<text x="{cx + 3:.1f}" y="{plot.y(c["after"]) - 3:.1f}" '
                 f'fill="#d62728" {svg.HALO}>{c["change"]:+.0%}</text></g>')
        _provenance_mark(plot, pts, c)
    if pts:
        line = ' '.join(f'{plot.x(p["time"]):.1f},{plot.y(p["mean"]):.1f}'
                        for p in pts)
        plot.add(f'<polyline points="{line}" fill="none" '
                 'stroke="#1f77b4" stroke-width="1"/>')
        if len(pts) <= MAX_DOTS:
            plot.add(*(svg.marker(
                'circle', plot.x(p['time']), plot.y(p['mean']), '#1f77b4',
                1.8, f' class="night" data-night="{svg.day(p["time"])}"',
                f'{svg.day(p["time"])}: {_fmt(p["mean"])} (n={p["n"]})')
                for p in pts[:-1]))
    if kind is not None:
        plot.add(night_mark(
            kind, plot.x(pts[-1]['time']), plot.y(now),
            svg.day(pts[-1]['time']),
            f'tonight: {NIGHT_MARKS[kind][2]}: {_fmt(now)} {hist["unit"]}'))
    return plot.render()


def night_mark(kind, x, y, night, title, attrs=''):
    """A night the gate judged, marked by its verdict's shape and colour
    (:data:`NIGHT_MARKS`): class ``verdict`` and ``kind``, ``data-verdict``
    and ``data-night``; ``attrs`` (text) is added to it."""
    shape, colour, _ = NIGHT_MARKS[kind]
    return svg.marker(shape, x, y, colour, 5.0,
                      f' class="night verdict {kind}" data-verdict="{kind}"'
                      f' data-night="{night}"{attrs}', title)


#: Above this many nights a history is drawn without a dot per night.
MAX_DOTS = 90


def _level(band, row):
    """``(level, night cv or None)`` the gate judged tonight against:
    the lookback rule's level and night-to-night noise, else the
    baseline's mean (and the night noise floor's cv, if one was used)."""
    if row is None:
        return band['mean'], None
    noise = (row.lookback or {}).get('night_cv')
    if noise is None:
        noise = (row.night_noise or {}).get('cv')
    return row.base.get('level', band['mean']), noise


def _level_marks(plot, band, level):
    """The level (dashed) and its noise band (level x (1 +- cv)), or the
    baseline's min..max where no noise is known."""
    value, cv = level
    left, right = plot.left, plot.width - plot.right
    if cv is not None:
        lo, hi, what = value * (1 - cv), value * (1 + cv), \
            f'level {_fmt(value)} \u00b1 {cv:.1%} night noise'
    else:
        lo, hi, what = band['min'], band['max'], \
            f'baseline {_fmt(value)} (band: its min..max)'
    top, bottom = plot.y(hi), plot.y(lo)
    plot.add(f'<g class="level" data-level="{value:.6g}" data-noise='
             f'"{"" if cv is None else f"{cv:.4f}"}"><rect class="noise-band" '
             f'x="{left}" y="{top:.1f}" width="{right - left}" '
             f'height="{max(bottom - top, 1):.1f}" fill="#2ca02c" '
             f'fill-opacity="0.18"><title>{html.escape(what)}</title></rect>'
             f'<line x1="{left}" x2="{right}" y1="{plot.y(value):.1f}" '
             f'y2="{plot.y(value):.1f}" stroke="#2ca02c" '
             'stroke-dasharray="4 3"/>'
             f'<text x="{left + 3}" y="{top - 2:.1f}" fill="#2a7a2a" '
             f'{svg.HALO}>'
             f'{html.escape(what)}</text></g>')


def _pooled_marks(plot, pts, row):
    """The pooled nights' window (shaded, from its first night to
    tonight) and, where they found a lasting loss, the night the shift
    began (a solid line)."""
    pooled = (row.pooled if row is not None else None) or {}
    first = _time_of_day(pts, pooled.get('first'))
    if first is None or not pts:
        return
    x0, x1 = plot.x(first), plot.x(pts[-1]['time'])
    count = html.escape(str(pooled.get('count', '?')))
    plot.add(f'<rect class="pooled-window" data-first="{pooled["first"]}" '
             f'data-nights="{count}" x="{x0 - 3:.1f}" '
             f'y="{plot.top}" width="{x1 - x0 + 6:.1f}" '
             f'height="{plot.floor - plot.top}" fill="#ff7f0e" '
             f'fill-opacity="0.08"><title>pooled window: the '
             f'{count} nights since {pooled["first"]} '
             'judged together</title></rect>')
    since = _time_of_day(pts, pooled.get('since'))
    if since is not None and pooled.get('regression'):
        sx = plot.x(since)
        plot.add(f'<g class="shift-start" data-night="{pooled["since"]}">'
                 f'<line x1="{sx:.1f}" x2="{sx:.1f}" y1="{plot.top}" '
                 f'y2="{plot.floor}" stroke="#ff7f0e" stroke-width="2"/>'
                 f'<text x="{sx - 3:.1f}" y="{plot.floor - 4}" '
                 f'text-anchor="end" fill="#b35900" {svg.HALO}>shift began '
                 f'{pooled["since"]}</text></g>')


def _time_of_day(pts, day):
    """The time of the newest of ``pts`` on the UTC ``day`` (None: no
    such point, or no day); sought from the newest back, as the pooled
    window's nights are the newest (a plot's points are a year)."""
    if day is None:
        return None
    return next((p['time'] for p in reversed(pts)
                 if svg.day(p['time']) == day), None)


def _provenance_mark(plot, pts, change):
    """A flag on the time axis where the provenance changed near a step:
    ``fs_version 1.8 -> 2.0``."""
    diff = change.get('tags_changed') or {}
    if not diff:
        return
    when = {p['session']: p['time'] for p in pts}.get(
        change.get('tags_changed_at'), change['time'])
    plot.add(svg.provenance_flag(plot, when, diff))
