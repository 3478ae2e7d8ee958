# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench history --format html``: one figure across clusters and
targets over time, as the gate's HTML report draws its histories (inline
SVG written here, no script, no image library): one plot per test case,
one line per cluster, partition and target, the mean of each night's
repeats."""

import datetime
import html

from pfsbench.gate.report.html import _CSS
from pfsbench.gate.report.plots import COLOURS, _fmt, _svg_head

#: Lines drawn in one plot (one colour each); more are listed, not drawn.
MAX_LINES = len(COLOURS)

#: Above this many nights a line is drawn without a dot per night.
MAX_DOTS = 60


def _day(t):
    return datetime.datetime.fromtimestamp(
        t, datetime.timezone.utc).strftime('%Y-%m-%d')


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


def trend_svg(title, unit, lines, width=720, height=260):
    """Figure vs night as inline SVG: one coloured line per cluster and
    target (the mean of each night's repeats; a dot per night, with its
    min..max, where there are few), the legend above the plot.

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
    ys = [v for r in points for v in (r['min'], r['max'])]
    lo, hi = min(ys), max(ys)
    pad = (hi - lo) * 0.08 or abs(hi) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad
    t0 = min(r['time'] for r in points)
    t1 = max(r['time'] for r in points)
    span = (t1 - t0) or 1.0
    left, right, top, bottom = 58, 10, 22 + 12 * len(shown), 24

    def x(t):
        return left + (t - t0) / span * (width - left - right)

    def y(v):
        return top + (hi - v) / (hi - lo) * (height - top - bottom)

    middle = (top + height - bottom) / 2
    out = _svg_head(width, height, f'trend {title}', title, left)
    out += [f'<text x="12" y="{middle:.1f}" '
            f'transform="rotate(-90 12 {middle:.1f})" '
            f'text-anchor="middle">{esc(unit)}</text>',
            f'<rect x="{left}" y="{top}" width="{width - left - right}" '
            f'height="{height - top - bottom}" fill="none" stroke="#ccc"/>']
    for value in (lo + pad, hi - pad):
        out.append(f'<text x="{left - 4}" y="{y(value) + 3:.1f}" '
                   f'text-anchor="end">{_fmt(value)}</text>')
    for t, anchor in ((t0, 'start'), (t1, 'end')):
        out.append(f'<text x="{x(t):.1f}" y="{height - 6}" '
                   f'text-anchor="{anchor}">{_day(t)}</text>')

    for i, (label, found) in enumerate(shown):
        colour = COLOURS[i % len(COLOURS)]
        line = ' '.join(f'{x(r["time"]):.1f},{y(r["mean"]):.1f}'
                        for r in found)
        out.append(f'<polyline points="{line}" fill="none" '
                   f'stroke="{colour}" stroke-width="1.5">'
                   f'<title>{esc(label)}</title></polyline>')
        if len(found) <= MAX_DOTS:
            for r in found:
                px = x(r['time'])
                out.append(
                    f'<line x1="{px:.1f}" x2="{px:.1f}" '
                    f'y1="{y(r["min"]):.1f}" y2="{y(r["max"]):.1f}" '
                    f'stroke="{colour}" stroke-opacity="0.5"/>'
                    f'<circle cx="{px:.1f}" cy="{y(r["mean"]):.1f}" r="2.5" '
                    f'fill="{colour}"><title>{esc(label)} {r["night"]} '
                    f'({esc(r["session"][:8])}): {_fmt(r["mean"])} '
                    f'({_fmt(r["min"])}..{_fmt(r["max"])}, n={r["n"]})'
                    '</title></circle>')
        out.append(f'<text x="{width - right}" y="{24 + 12 * i}" '
                   f'text-anchor="end" fill="{colour}">{esc(label)}: '
                   f'{len(found)} night(s)</text>')

    out.append('</svg>')
    return ''.join(out)


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
