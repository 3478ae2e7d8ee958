# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench history --format html``: one figure across clusters and
targets over time, as the gate's HTML report draws its histories (inline
SVG from pfsbench.gate.report.svg, no script): one plot per test case,
one line per cluster, partition and target, the mean of each night's
repeats, with where a line's provenance changed and the nights the gate
paged or held (docs/history-pictures.md)."""

import html
import math

from pfsbench.gate.history.provenance import differences
from pfsbench.gate.judge.config import GateConfig
from pfsbench.gate.report import svg
from pfsbench.gate.report.html import _CSS
from pfsbench.gate.report.plots import NIGHT_MARKS, night_mark
from pfsbench.gate.report.svg import COLOURS, fmt as _fmt
from pfsbench.gate.report.triaged import MARK_WORDS
from pfsbench.gate.statistics import changepoints as cp
from pfsbench.gate.statistics.stats import diff_sigma

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



def _pages_by_case(pages):
    """``{(session, case, partition): page}``: a page names its case as
    the gate does, ``name @system:partition+environ``."""
    out = {}
    for page in pages:
        name, _, where = page['name'].rpartition(' @')
        partition = where.split(':', 1)[-1].rsplit('+', 1)[0]
        out[(page['session'], name, partition)] = page
    return out


def trend_svg(title, unit, lines, width=720, height=248, provenance=None,
              pages=None):
    """Figure vs night as inline SVG (:class:`~pfsbench.gate.report.svg.
    Plot`): one coloured line per cluster and target (the mean of each
    night's repeats; a dot per night, with its min..max, where there are
    few), the legend above the plot; a flag where a line's provenance
    differs from its previous session's, a night that paged or was held
    marked as the gate's report marks it.

    Args:
        lines: ``{label: [row, ...]}`` (:func:`plots_of`).
        provenance: ``{session: {key: value}}``
            (pfsbench.store.provenance_history).
        pages: ``{(session, case, partition): page}`` (:func:`pfsbench.store.triage.figure_pages`,
            :func:`_pages_by_case`).

    Returns:
        An ``<svg>`` element as text.
    """
    esc = html.escape
    shown = sorted(lines.items())[:MAX_LINES]
    if len(lines) > MAX_LINES:
        title += f' (first {MAX_LINES} of {len(lines)} lines)'

    points = [r for _, found in shown for r in found]
    pages = pages or {}
    kinds = {pages[_case_of(r)]['kind'] for r in points
             if _case_of(r) in pages}
    plot = svg.Plot(
        f'trend {title}', title,
        svg.Axis([r['time'] for r in points], kind='time'),
        svg.Axis([v for r in points for v in (r['min'], r['max'])],
                 label=unit), width, height,
        legend=[(COLOURS[i % len(COLOURS)],
                 f'{label}: {len(found)} night(s)')
                for i, (label, found) in enumerate(shown)],
        keys=[NIGHT_MARKS[k] for k in NIGHT_MARKS if k in kinds])
    x, y = plot.x, plot.y
    for i, (label, found) in enumerate(shown):
        colour = COLOURS[i % len(COLOURS)]
        _level_marks(plot, label, found, colour)
        line = ' '.join(f'{x(r["time"]):.1f},{y(r["mean"]):.1f}'
                        for r in found)
        plot.add(f'<polyline points="{line}" fill="none" '
                 f'stroke="{colour}" stroke-width="1.5">'
                 f'<title>{esc(label)}</title></polyline>')
        for r in found if len(found) <= MAX_DOTS else ():
            px = x(r['time'])
            plot.add(f'<line x1="{px:.1f}" x2="{px:.1f}" '
                     f'y1="{y(r["min"]):.1f}" y2="{y(r["max"]):.1f}" '
                     f'stroke="{colour}" stroke-opacity="0.5"/>'
                     f'<circle cx="{px:.1f}" cy="{y(r["mean"]):.1f}" '
                     f'r="2.5" fill="{colour}"><title>{esc(label)} '
                     f'{r["night"]} ({esc(r["session"][:8])}): '
                     f'{_fmt(r["mean"])} ({_fmt(r["min"])}..'
                     f'{_fmt(r["max"])}, n={r["n"]})</title></circle>')
        _provenance_flags(plot, label, found, provenance or {}, i)
        _page_marks(plot, label, found, pages)

    return plot.render()


def _case_of(row):
    return row['session'], row['name'], row['partition']


def _provenance_flags(plot, label, found, provenance, row):
    """A flag at each session whose provenance differs from the previous
    session's on the line (the keys the gate compares:
    pfsbench.gate.history.provenance.differences)."""
    before = None
    for r in found:
        tags = provenance.get(r['session'])
        if tags is None:
            continue
        diff = {c.key: (c.before[0], c.after)
                for c in differences([before], tags)} \
            if before is not None else {}
        if diff:
            plot.add(svg.provenance_flag(plot, r['time'], diff, label, row))
        before = tags


def _page_marks(plot, label, found, pages):
    """Each night of the line that paged or was held, marked by its kind;
    its tooltip says how a person marked it (invalid, acknowledged)."""
    for r in found:
        page = pages.get(_case_of(r))
        if page is None:
            continue
        kind = page['kind'] if page['kind'] in NIGHT_MARKS else 'paged'
        change = f' {page["change"]:+.1%}' if page['change'] is not None \
            else ''
        marked = (f'marked {MARK_WORDS.get(page["mark"], page["mark"])} '
                  f'by {page["who"]}: {page["why"]}' if page['mark']
                  else 'not triaged')
        plot.add(night_mark(
            kind, plot.x(r['time']), plot.y(r['mean']), r['night'],
            f'{label} {r["night"]}: {NIGHT_MARKS[kind][2]}{change} '
            f'(session {r["session"][:8]}); {marked}',
            f' data-triage="{html.escape(page["mark"] or "")}"'))


def levels(found, config=None):
    """The levels of one line, as the gate's change-point detector finds
    them (its default threshold, shortest segment and smallest step: the
    tolerance): ``[(first, last, level, night cv or None)]`` by index of
    ``found``, oldest first; the level a segment's geometric mean, its
    night-to-night noise the robust one of its log means (3 or more
    nights)."""
    config = config or GateConfig()
    means = [r['mean'] for r in found]
    cuts = []
    if len(means) >= 2 * config.changepoint_min_segment and \
            all(m > 0 for m in means):
        cuts = [c.index for c in cp.detect(
            means, threshold=config.changepoint_threshold,
            min_segment=config.changepoint_min_segment,
            min_change=config.changepoint_min_change or config.tolerance)]
    out = []
    for a, b in zip([0] + cuts, cuts + [len(means)]):
        part = means[a:b]
        if all(m > 0 for m in part):
            logs = [math.log(m) for m in part]
            level = math.exp(sum(logs) / len(logs))
            cv = math.expm1(diff_sigma(logs)) if len(logs) >= 3 else None
        else:
            level, cv = sum(part) / len(part), None
        out.append((a, b - 1, level, cv))
    return out


def _level_marks(plot, label, found, colour):
    """Each level of a line (dashed over its nights), the noise band of
    its newest level (level x (1 +- cv)) and where each step began (a
    line in the line's colour, labelled with the step)."""
    esc = html.escape
    found_levels = levels(found)
    for k, (a, b, level, cv) in enumerate(found_levels):
        x0, x1 = plot.x(found[a]['time']), plot.x(found[b]['time'])
        y = plot.y(level)
        what = f'{label}: level {_fmt(level)} from {found[a]["night"]}'
        if k == len(found_levels) - 1 and cv:
            top, bottom = plot.y(level * (1 + cv)), plot.y(level * (1 - cv))
            what += f' \u00b1 {cv:.1%} night noise'
            plot.add(f'<rect class="noise-band" data-noise="{cv:.4f}" '
                     f'x="{x0:.1f}" y="{top:.1f}" width="{x1 - x0:.1f}" '
                     f'height="{max(bottom - top, 1):.1f}" '
                     f'fill="{colour}" fill-opacity="0.12"/>')
        plot.add(f'<line class="level" data-level="{level:.6g}" '
                 f'x1="{x0:.1f}" x2="{max(x1, x0 + 2):.1f}" y1="{y:.1f}" '
                 f'y2="{y:.1f}" stroke="{colour}" stroke-dasharray="5 3" '
                 f'stroke-opacity="0.8"><title>{esc(what)}</title></line>')
        if k:
            step = level / found_levels[k - 1][2] - 1
            plot.add(f'<g class="changepoint" data-night='
                     f'"{found[a]["night"]}" data-change="{step:.4f}">'
                     f'<line x1="{x0:.1f}" x2="{x0:.1f}" y1="{plot.top}" '
                     f'y2="{plot.floor}" stroke="{colour}" '
                     'stroke-dasharray="2 2"/><text '
                     f'x="{x0 + 3:.1f}" y="{plot.top + 10}" '
                     f'fill="{colour}" {svg.HALO}>{step:+.0%} from '
                     f'{found[a]["night"]}'
                     f'</text><title>{esc(label)}: a step of {step:+.1%} '
                     f'from {found[a]["night"]}</title></g>')


def render_html(figure, rows, source, max_plots=60, provenance=(),
                pages=()):
    """A self-contained HTML page: one :func:`trend_svg` per test case
    (at most ``max_plots``, the cases with the most lines first) and a
    table of each line's newest night.

    Args:
        figure: the figure's name.
        rows: pfsbench.store.figure_history's rows (with ``time``).
        source: the store, as messages name it.
        provenance: pfsbench.store.provenance_history's rows.
        pages: :func:`pfsbench.store.triage.figure_pages` the figure.
    """
    esc = html.escape
    tags = {p['session']: p['provenance'] for p in provenance}
    paged = _pages_by_case(pages)
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
        'of the night\'s repeats; a grey flag on the time axis marks where '
        'its provenance changed, a red triangle a night that paged, a '
        'purple square one the gate held (its tooltip: how it was '
        'triaged).</p>',
    ]
    if len(order) > max_plots:
        out.append(f'<p class="small">Plots of the first {max_plots} of '
                   f'{len(order)} cases (those on the most clusters and '
                   'targets first); every line is in the table below '
                   '(--max-plots N, --name TEXT).</p>')
    for case, unit in order[:max_plots]:
        out.append(f'<h2>{esc(case)}</h2>')
        out.append(trend_svg(f'{case} {figure}', unit, groups[(case, unit)],
                             provenance=tags, pages=paged))

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
