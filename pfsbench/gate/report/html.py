# SPDX-License-Identifier: BSD-3-Clause
"""Self-contained HTML report: tables, scaling and history plots as
inline SVG."""

import html

from pfsbench.gate.judge.rows import case_rows
from pfsbench.gate.report import plots, sweeps, triaged
from pfsbench.gate.report.tables import (DIAGNOSTIC_STEPS, attention,
                                         baseline_text, budget_text,
                                         case_notes, change_lines,
                                         changepoint_lines, contended_lines,
                                         describe_sessions, diagnostic_note,
                                         headline, pooled_note,
                                         shown_figures, shown_rows,
                                         table_rows, tolerance_text,
                                         wild_lines)

_CSS = '''
body{font-family:sans-serif;margin:1.5em;max-width:1200px}
table{border-collapse:collapse;font-size:90%}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
tr.regression td:first-child{background:#f8b4b4;font-weight:bold}
tr.inconclusive td:first-child{background:#fde68a}
tr.improvement td:first-child{background:#bbf7d0}
tr.pass td:first-child{background:#e5e7eb}
tr.diagnostic td{color:#555;font-style:italic}
img{max-width:100%;display:block;margin:0.5em 0}
.small{font-size:85%;color:#444}
'''


_INTERVAL = (
    '(Welch t on the log of the ratio of means) <i>regression</i>: the '
    'whole interval is worse than the tolerance; <i>inconclusive</i>: the '
    'interval contains the tolerance, so the noise is larger than the '
    'effect that matters; <i>pass</i>: a loss beyond the tolerance is '
    'ruled out. ')

_LOOKBACK = (
    '(the lookback rule: tonight against the level of the baseline\'s '
    'nights, with the night-to-night noise of the like-for-like history; '
    'each reason says which rule judged) <i>regression</i>: the whole '
    'interval is a loss and the change is beyond the tolerance; '
    '<i>inconclusive</i>: the night can neither rule out a loss of twice '
    'the tolerance (lookback.detect) nor show one; <i>pass</i>: such a '
    'loss is ruled out. ')


def _histories(record):
    return {(h['case'], h['var']): h for h in record['history']
            if h['points']}


def _notes_html(c):
    esc = html.escape
    first, *rest = case_notes(c)
    return (f'<p><b>{esc(first)}</b></p><ul class="small">' +
            ''.join(f'<li>{esc(line.strip())}</li>' for line in rest) +
            '</ul>')


def _triage_html(triage, cases):
    """The site's triage record and the marks of the cases shown, or
    nothing without a record."""
    esc = html.escape
    marks = triaged.lines(triage, cases)
    if not marks:
        return []

    return [f'<h2>Triage</h2><p class="triage">{esc(marks[0])}</p>',
            '<ul class="marks">', *(f'<li>{esc(line)}</li>'
                                    for line in marks[1:]), '</ul>']


def _section(title, items):
    """An ``<h2>`` and a list of ``items`` (HTML), or nothing without
    items."""
    if not items:
        return []

    return [f'<h2>{title}</h2><ul>', *(f'<li>{i}</li>' for i in items),
            '</ul>']


def _lists_html(record):
    """The report's lists after the table: missing data, new cases,
    contended samples, wild repeats, change points (each where it has
    items)."""
    esc = html.escape
    return [
        *_section('Missing data', [
            f'<code>{esc(m["case"])}</code>: {esc(m["reason"])}'
            for m in record['missing']]),
        *_section('Not in the baseline (not gated)', [
            f'<code>{esc(n)}</code>' for n in record['new_cases']]),
        *_section('Contended samples (not gated)', [
            esc(line) for line in contended_lines(record)]),
        *_section('Wild repeats (left out)', [
            esc(line.strip()) for line in wild_lines(record)]),
        *_section('Change points', [
            esc(line) for line in changepoint_lines(record)]),
        *_section(esc(DIAGNOSTIC_STEPS.capitalize()), [
            esc(line) for line in changepoint_lines(record, 'diagnostic')]),
    ]


def _plotted(cases, histories, max_plots):
    """``(needing attention, the others with a history, the plotted)``
    of ``cases``: at most ``max_plots`` plotted, those needing attention
    first (each case its worst figure's history, most severe first)."""
    notes = attention(cases)
    noted = {id(c) for c in notes}
    rest = [c for c in cases if id(c) not in noted and
            (c.case, c.primary.var) in histories]
    chosen = [c for c in notes if (c.case, c.primary.var) in histories]
    return notes, rest, (chosen + rest)[:max(0, max_plots)]


def drawn_plots(record, max_plots=60, all_figures=False, triage=None):
    """The SVGs of the HTML report's history plots, in its order
    (:func:`fill` puts them in :func:`html_parts`' places)."""
    histories = _histories(record)
    return [plots.history_svg(histories[(c.case, c.primary.var)], c.primary)
            for c in _plotted(case_rows(record), histories, max_plots)[2]]


def render_html(record, max_plots=60, all_figures=False, triage=None):
    return fill(html_parts(record, max_plots, all_figures, triage),
                drawn_plots(record, max_plots))


def fill(parts, svgs):
    """The HTML of :func:`html_parts`' ``parts`` with the history plots'
    ``svgs`` (:func:`drawn_plots`, perhaps drawn in another process
    meanwhile) in their places."""
    svgs = iter(svgs)
    return '\n'.join(next(svgs) if part is None else part
                     for part in parts) + '\n'


def html_parts(record, max_plots=60, all_figures=False, triage=None):
    """The lines of :func:`render_html`, ``None`` where a history plot
    goes (:func:`history_plots`' in their order; :func:`fill`)."""
    esc = html.escape
    verdict, counts = headline(record)
    st = record['settings']
    cases = case_rows(record)
    notes, rest, chosen = _plotted(cases, _histories(record), max_plots)
    plotted = {id(c) for c in chosen}
    out = [
        '<!DOCTYPE html><html><head><meta charset="utf-8">',
        f'<title>pfsbench gate: {esc(verdict)}</title>',
        f'<style>{_CSS}</style></head><body>',
        f'<h1>pfsbench gate: {esc(verdict)}</h1>',
        f'<p><b>{esc(counts)}.</b> '
        f'{esc(baseline_text(record, "Baseline"))} against '
        f'{esc(describe_sessions(record))}; {esc(tolerance_text(record))}'
        f'{esc(budget_text(st))}.</p>',
    ]
    note = pooled_note(shown_rows(cases, all_figures))
    if notes:
        out.append('<h2>Needs attention</h2><p class="small">Most severe '
                   'first: why, what changed since the baseline, and the '
                   'history of the case\'s worst figure.</p>')
        for c in notes:
            out.append(f'<div class="{esc(c.verdict)}">' + _notes_html(c))
            if id(c) in plotted:
                out.append(None)

            out.append('</div>')

    out.append(
        f'<h2>Verdicts</h2><p class="small">One row per case: its worst '
        f'figure (variables equal by construction are one figure), the '
        f'relative change of the mean (now / baseline - 1) with its '
        f'{st["confidence"]:.0%} confidence interval. '
        + (_LOOKBACK if st.get('rule') == 'lookback' else _INTERVAL)
        + ('Each interval is at least as wide as the night-to-night noise '
           'of the variable\'s own history (5 or more earlier sessions). '
           if st.get('night_noise') else '')
        + (esc(note) + ' ' if note else '')
        + f'Settings: <code>{esc(str(st["config"]))}</code>.</p>')
    header, rows = table_rows(record, all_figures)
    out.append('<table><tr>' + ''.join(f'<th>{esc(h.lower())}</th>'
                                       for h in header) + '</tr>')
    for row, fig in zip(rows, shown_rows(cases, all_figures)):
        # A diagnostic row never pages: marked as the text marks it.
        role = ' diagnostic' if fig.role == 'diagnostic' else ''
        out.append(f'<tr class="{esc(row[0].strip())}{role}">' + ''.join(
            f'<td><code>{esc(c)}</code></td>' if i in (6, 8)
            else f'<td>{esc(c)}</td>' for i, c in enumerate(row)) + '</tr>')

    out.append('</table>')
    note = diagnostic_note(shown_rows(cases, all_figures))
    if note:
        out.append(f'<p class="small">{esc(note)}</p>')

    out += _triage_html(triage, cases)
    changed = change_lines(cases)
    if changed:
        out.append('<h2>Changed since the baseline</h2><ul>')
        out += [f'<li>{esc(line)}</li>' for line in changed]
        out.append('</ul>')

    out += _lists_html(record)
    groups = plots.scaling_groups(record, shown_figures(record))
    if groups:
        out.append('<h2>Scaling</h2><p class="small">Mean now (bars: '
                   'min..max of the samples) and baseline mean (dashed) '
                   'against the test parameter.</p>')
        for title, xparam, lines in groups[:max_plots]:
            out.append(plots.scaling_svg(title, xparam, lines))

    out += sweeps.html_parts(record, max_plots)
    shown = [c for c in rest if id(c) in plotted]
    if shown:
        out.append('<h2>History</h2><p class="small">One plot per case, '
                   'its worst figure: per-session mean, baseline band '
                   '(min..max of the baseline samples) and change points '
                   '(dotted, with the step size).')
        if len(rest) > len(shown):
            out.append(f' {len(shown)} of {len(rest)} cases shown, the '
                       'most severe first.')

        out.append('</p>')
        out += [None] * len(shown)

    out.append(f'<p class="small">pfsbench {esc(record["pfsbench_version"])}'
               f', created {esc(record["created"])}, source '
               f'<code>{esc(str(record["source"]))}</code></p>')
    out.append('</body></html>')
    return out
