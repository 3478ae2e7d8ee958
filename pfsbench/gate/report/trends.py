# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench history --format html``: one figure across clusters and
targets over time, as the gate's HTML report draws its histories (inline
SVG from pfsbench.gate.report.svg, no script): one plot per test case,
one line per cluster, partition and target, the mean of each night's
repeats."""

import html

from pfsbench.gate.report import svg
from pfsbench.gate.report.html import _CSS
from pfsbench.gate.report.svg import COLOURS, fmt as _fmt

#: Lines drawn in one plot (one colour each); more are listed, not drawn.
MAX_LINES = len(COLOURS)

#: Above this many nights a line is drawn without a dot per night.
MAX_DOTS = 60


_day = svg.day


def line_label(row):
    """What one line of a plot is: ``system:partition target (fs)``."""
    return (f'{row["system"]}:{row["partition"]} {row["target"] or "-"} '
            f'({row["filesystem"] or "?"})')


def plots_of(rows):
    """``{(case, unit): {label: [row, ...]}}``, each line oldest night
    first (the rows of pfsbench.store.figure_history)."""
    out = {}
    for row in rows:
        out.setdefault((row['name'], row['unit'] or ''), {}).setdefault(
            line_label(row), []).append(row)
    for lines in out.values():
        for found in lines.values():
            found.sort(key=lambda r: (r['time'], r['session']))
    return out


def trend_svg(title, unit, lines, width=720, height=248):
    """Figure vs night as inline SVG (:class:`~pfsbench.gate.report.svg.
    Plot`): one coloured line per cluster and target (the mean of each
    night's repeats; a dot per night, with its min..max, where there are
    few), the legend above the plot.

    Args:
        lines: ``{label: [row, ...]}`` (:func:`plots_of`).

    Returns:
        An ``<svg>`` element as text.
    """
    esc = html.escape
    shown = sorted(lines.items())[:MAX_LINES]
    if len(lines) > MAX_LINES:
        title += f' (first {MAX_LINES} of {len(lines)} lines)'

    points = [r for _, found in shown for r in found]
    plot = svg.Plot(
        f'trend {title}', title,
        svg.Axis([r['time'] for r in points], kind='time'),
        svg.Axis([v for r in points for v in (r['min'], r['max'])],
                 label=unit), width, height,
        legend=[(COLOURS[i % len(COLOURS)],
                 f'{label}: {len(found)} night(s)')
                for i, (label, found) in enumerate(shown)])
    x, y = plot.x, plot.y
    for i, (label, found) in enumerate(shown):
        colour = COLOURS[i % len(COLOURS)]
        line = ' '.join(f'{x(r["time"]):.1f},{y(r["mean"]):.1f}'
                        for r in found)
        plot.add(f'<polyline points="{line}" fill="none" '
                 f'stroke="{colour}" stroke-width="1.5">'
                 f'<title>{esc(label)}</title></polyline>')
        if len(found) > MAX_DOTS:
            continue
        for r in found:
            px = x(r['time'])
            plot.add(f'<line x1="{px:.1f}" x2="{px:.1f}" '
                     f'y1="{y(r["min"]):.1f}" y2="{y(r["max"]):.1f}" '
                     f'stroke="{colour}" stroke-opacity="0.5"/>'
                     f'<circle cx="{px:.1f}" cy="{y(r["mean"]):.1f}" '
                     f'r="2.5" fill="{colour}"><title>{esc(label)} '
                     f'{r["night"]} ({esc(r["session"][:8])}): '
                     f'{_fmt(r["mean"])} ({_fmt(r["min"])}..'
                     f'{_fmt(r["max"])}, n={r["n"]})</title></circle>')

    return plot.render()


def render_html(figure, rows, source, max_plots=60):
    """A self-contained HTML page: one :func:`trend_svg` per test case
    (at most ``max_plots``, the cases with the most lines first) and a
    table of each line's newest night.

    Args:
        figure: the figure's name.
        rows: pfsbench.store.figure_history's rows (with ``time``).
        source: the store, as messages name it.
    """
    esc = html.escape
    groups = plots_of(rows)
    systems = sorted({r['system'] for r in rows})
    nights = sorted({r['night'] for r in rows})
    order = sorted(groups, key=lambda k: (-len(groups[k]), k))
    out = [
        '<!DOCTYPE html><html><head><meta charset="utf-8">',
        f'<title>pfsbench history: {esc(figure)}</title>',
        f'<style>{_CSS}</style></head><body>',
        f'<h1>pfsbench history: {esc(figure)}</h1>',
        f'<p>{len(groups)} test case(s) on {len(systems)} cluster(s) '
        f'({esc(", ".join(systems))}), {len(nights)} night(s) from '
        f'{esc(nights[0])} to {esc(nights[-1])}, from <code>{esc(source)}'
        '</code>. Each line is one cluster, partition and target: the mean '
        'of the night\'s repeats.</p>',
    ]
    if len(order) > max_plots:
        out.append(f'<p class="small">Plots of the first {max_plots} of '
                   f'{len(order)} cases (those on the most clusters and '
                   'targets first); every line is in the table below '
                   '(--max-plots N, --name TEXT).</p>')
    for case, unit in order[:max_plots]:
        out.append(f'<h2>{esc(case)}</h2>')
        out.append(trend_svg(f'{case} {figure}', unit, groups[(case, unit)]))

    out.append('<h2>Newest night of each line</h2><table><tr><th>test case'
               '</th><th>cluster:partition target (file system)</th>'
               '<th>nights</th><th>newest</th><th>mean</th><th>min..max'
               '</th><th>n</th></tr>')
    for case, unit in sorted(groups):
        for label, found in sorted(groups[(case, unit)].items()):
            last = found[-1]
            out.append(
                f'<tr><td>{esc(case)}</td><td>{esc(label)}</td>'
                f'<td>{len(found)}</td><td>{esc(last["night"])}</td>'
                f'<td>{_fmt(last["mean"])} {esc(unit)}</td>'
                f'<td>{_fmt(last["min"])}..{_fmt(last["max"])}</td>'
                f'<td>{last["n"]}</td></tr>')
    out.append('</table></body></html>\n')
    return '\n'.join(out)
