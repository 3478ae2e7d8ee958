# SPDX-License-Identifier: BSD-3-Clause
"""The scaling sweeps of a report record (:mod:`pfsbench.gate.judge.sweeps`):
a compact table in text and Markdown, the rate-vs-processes curve with its
saturation point marked in HTML (:mod:`pfsbench.gate.report.svg`)."""

import html

from pfsbench.gate.judge.sweeps import title
from pfsbench.gate.report import svg

#: What the tables and the plots say the figures are.
LEGEND = ('Scaling sweeps of the current session: the mean rate at each '
          'process count, its scaling efficiency (speedup over the '
          'smallest count / the process ratio; 100 % is linear) and, '
          'marked *, the saturation point: no larger count beats its rate '
          'by 5 % or more.')


def _sweeps(record):
    # A record written before sweeps were recorded has none.
    return record.get('sweeps') or []


def compact(value):
    """``237378.41`` as ``'237k'``: three digits fit a table cell."""
    for scale, suffix in ((1e9, 'G'), (1e6, 'M'), (1e3, 'k')):
        if abs(value) >= scale:
            return f'{value / scale:.3g}{suffix}'

    return f'{value:.3g}'


def _cell(step, sweep):
    mark = '*' if step['processes'] == sweep['saturation']['processes'] \
        else ''
    cpu = step.get('cpu_util_pct')
    cpu = f', cpu {cpu:.0f}%' if cpu is not None else ''
    return f'{compact(step["rate"])} ({step["efficiency"]:.0%}{cpu}){mark}'


def peak_text(sweep):
    """``'peak 5.7e+03 MB/s at nodes=32'`` (a record written before the
    peak was kept has none: ``''``)."""
    peak = sweep.get('peak')
    if not peak:
        return ''

    return (f'peak {compact(peak["rate"])} {sweep["unit"]} at '
            f'{sweep["swept"]}={peak["value"]}')


def verdict(sweep):
    """``'saturates at 4 processes (2.1e+04 ops/s, efficiency 61 %)'``,
    then where the sweep peaks (:func:`peak_text`)."""
    peak = peak_text(sweep)
    return _saturation(sweep) + (f'; {peak}' if peak else '')


def _saturation(sweep):
    sat = sweep['saturation']
    if not sweep['saturated']:
        # Each step still gained 5 % or more; how much, the efficiency
        # says.
        return (f'no saturation up to {sat["processes"]} processes '
                f'(efficiency {sat["efficiency"]:.0%})')

    return (f'saturates at {sat["processes"]} processes '
            f'({compact(sat["rate"])} {sweep["unit"]}, efficiency '
            f'{sat["efficiency"]:.0%})')


def _grouped(record):
    """``[(title, [sweep, ...])]``: the variables of one sweep together."""
    out = {}
    for sweep in _sweeps(record):
        out.setdefault(title(sweep), []).append(sweep)

    return list(out.items())


def _table(sweeps):
    """``(header, rows)`` of one sweep: a row per variable, a column per
    process count, then where it saturates."""
    counts = sorted({s['processes'] for sw in sweeps for s in sw['steps']})
    header = ['figure'] + [f'{p} procs' for p in counts] + ['saturation']
    rows = []
    for sw in sweeps:
        by_count = {s['processes']: s for s in sw['steps']}
        rows.append([f'{sw["var"]} [{sw["unit"]}]'] +
                    [_cell(by_count[p], sw) if p in by_count else '-'
                     for p in counts] + [verdict(sw)])

    return header, rows


def text_lines(record):
    """The sweeps as aligned text tables (nothing without sweeps)."""
    groups = _grouped(record)
    if not groups:
        return []

    out = ['', 'scaling sweeps (* = saturation point; efficiency in '
           'parentheses):']
    for name, sweeps in groups:
        out.append(f'  {name}:')
        header, rows = _table(sweeps)
        table = [header] + rows
        widths = [max(len(row[i]) for row in table)
                  for i in range(len(header))]
        out += ['    ' + '  '.join(c.ljust(w) for c, w in
                                   zip(row, widths)).rstrip()
                for row in table]

    return out


def markdown_lines(record):
    """The sweeps as Markdown tables under one heading."""
    groups = _grouped(record)
    if not groups:
        return []

    out = ['## Scaling sweeps', '', LEGEND, '']
    for name, sweeps in groups:
        header, rows = _table(sweeps)
        out += [f'**{name.replace("|", chr(92) + "|")}**', '',
                '| ' + ' | '.join(header) + ' |',
                '|---|' + '---:|' * (len(header) - 2) + '---|']
        out += ['| ' + ' | '.join(c.replace('|', '\\|') for c in row) + ' |'
                for row in rows]
        out.append('')

    return out


def sweep_svg(sweep, width=640, height=240):
    """Rate vs processes of one sweep as inline SVG (:class:`~pfsbench.
    gate.report.svg.Plot`): the mean at each count (bars: min..max of its
    repeats), each step's efficiency, and the saturation point marked (a
    red ring, a dotted line and its count).

    Returns:
        an ``<svg>`` element as text.
    """
    esc = html.escape
    steps = sweep['steps']
    counts = [s['processes'] for s in steps]
    # Process counts double in most sweeps: a log axis spaces them evenly.
    plot = svg.Plot(
        f'sweep {title(sweep)} {sweep["var"]}',
        f'{sweep["var"]} [{sweep["unit"]}] vs processes: {verdict(sweep)}',
        svg.Axis(counts, kind='log2' if counts[-1] / counts[0] >= 4
                 else 'linear', label=f'processes ({sweep["swept"]} swept)',
                 pad=0.04, ticks=[(c, str(c)) for c in counts]),
        svg.Axis([s['max'] for s in steps], label=sweep['unit'], zero=True,
                 pad=0.12), width, height, css='sweep', right=34)
    x, y = plot.x, plot.y
    for s in steps:
        px = x(s['processes'])
        plot.add(f'<line x1="{px:.1f}" x2="{px:.1f}" '
                 f'y1="{y(s["min"]):.1f}" y2="{y(s["max"]):.1f}" '
                 'stroke="#1f77b4"/>')

    line = ' '.join(f'{x(s["processes"]):.1f},{y(s["rate"]):.1f}'
                    for s in steps)
    plot.add(f'<polyline points="{line}" fill="none" stroke="#1f77b4" '
             'stroke-width="1.5"/>')
    for s in steps:
        plot.add(f'<circle cx="{x(s["processes"]):.1f}" '
                 f'cy="{y(s["rate"]):.1f}" r="3" fill="#1f77b4">'
                 f'<title>{s["processes"]} processes: '
                 f'{svg.fmt(s["rate"])} {esc(sweep["unit"])}, efficiency '
                 f'{s["efficiency"]:.0%}</title></circle>'
                 f'<text x="{x(s["processes"]) + 8:.1f}" '
                 f'y="{y(s["rate"]) + 12:.1f}" fill="#555">'
                 f'{s["efficiency"]:.0%}</text>')

    sat = sweep['saturation']
    sx, sy = x(sat['processes']), y(sat['rate'])
    plot.add(f'<g class="saturation"><line x1="{sx:.1f}" x2="{sx:.1f}" '
             f'y1="{plot.top}" y2="{plot.floor}" stroke="#d62728" '
             'stroke-dasharray="2 2"/>'
             f'<circle cx="{sx:.1f}" cy="{sy:.1f}" r="7" fill="none" '
             f'stroke="#d62728" stroke-width="2"><title>saturation: '
             f'{sat["processes"]} processes</title></circle>'
             f'<text x="{sx + 4:.1f}" y="{plot.top + 10}" fill="#d62728">'
             f'saturation {sat["processes"]}</text></g>')
    return plot.render()


def html_parts(record, max_plots=60):
    """The sweeps' section of the HTML report: per sweep its table and
    one curve per variable (at most ``max_plots`` curves)."""
    groups = _grouped(record)
    if not groups:
        return []

    esc = html.escape
    out = ['<h2>Scaling sweeps</h2>', f'<p class="small">{esc(LEGEND)}</p>']
    plotted = 0
    for name, sweeps in groups:
        header, rows = _table(sweeps)
        out.append(f'<h3>{esc(name)}</h3><table><tr>' +
                   ''.join(f'<th>{esc(h)}</th>' for h in header) + '</tr>')
        out += ['<tr>' + ''.join(f'<td>{esc(c)}</td>' for c in row) +
                '</tr>' for row in rows]
        out.append('</table>')
        for sweep in sweeps:
            if plotted >= max_plots:
                break
            out.append(sweep_svg(sweep))
            plotted += 1

    return out
