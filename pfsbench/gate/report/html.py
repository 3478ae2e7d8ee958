# SPDX-License-Identifier: BSD-3-Clause
"""Self-contained HTML report: tables plus plots embedded as base64 PNG."""

import base64
import html

from pfsbench.gate.report import plots
from pfsbench.gate.report.tables import (ORDER, changepoint_lines,
                                         contended_lines, describe_sessions,
                                         figure, headline, interval, pct,
                                         sorted_rows)

_CSS = '''
body{font-family:sans-serif;margin:1.5em;max-width:1200px}
table{border-collapse:collapse;font-size:90%}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
tr.regression td:first-child{background:#f8b4b4;font-weight:bold}
tr.inconclusive td:first-child{background:#fde68a}
tr.improvement td:first-child{background:#bbf7d0}
tr.pass td:first-child{background:#e5e7eb}
img{max-width:100%;display:block;margin:0.5em 0}
.small{font-size:85%;color:#444}
'''


def _img(png, alt):
    data = base64.b64encode(png).decode('ascii')
    return (f'<img alt="{html.escape(alt)}" '
            f'src="data:image/png;base64,{data}">')


def _choose_histories(record, max_plots):
    rows = {(r['case'], r['var']): r for r in record['results']}

    def rank(h):
        row = rows.get((h['case'], h['var']))
        verdict = row['verdict'] if row else 'pass'
        return (ORDER.get(verdict, 9), not h['changepoints'], h['case'],
                h['var'])

    chosen = sorted((h for h in record['history'] if h['points']),
                    key=rank)
    return [(h, rows.get((h['case'], h['var'])))
            for h in chosen[:max_plots]]


def render_html(record, max_plots=60):
    esc = html.escape
    verdict, counts = headline(record)
    st = record['settings']
    out = [
        '<!DOCTYPE html><html><head><meta charset="utf-8">',
        f'<title>pfsbench gate: {esc(verdict)}</title>',
        f'<style>{_CSS}</style></head><body>',
        f'<h1>pfsbench gate: {esc(verdict)}</h1>',
        f'<p><b>{esc(counts)}.</b> Baseline <code>'
        f'{esc(record["baseline"]["name"])}</code> '
        f'({len(record["baseline"]["sessions"])} session(s)) against '
        f'{esc(describe_sessions(record))}.</p>',
        f'<p class="small">Each row: relative change of the mean '
        f'(now / baseline - 1) with its {st["confidence"]:.0%} confidence '
        'interval (Welch t on the log of the ratio of means). '
        '<i>regression</i>: the whole interval is worse than the tolerance; '
        '<i>inconclusive</i>: the interval contains the tolerance, so the '
        'noise is larger than the effect that matters; <i>pass</i>: a loss '
        'beyond the tolerance is ruled out. '
        + ('Each interval is at least as wide as the night-to-night noise '
           'of the variable\'s own history (5 or more earlier sessions). '
           if st.get('night_noise') else '')
        + f'Default tolerance {st["tolerance"]:.0%}; settings: '
        f'<code>{esc(str(st["config"]))}</code>.</p>',
    ]
    rows = sorted_rows(record)
    out.append('<h2>Verdicts</h2><table><tr><th>verdict</th><th>change</th>'
               '<th>interval</th><th>tolerance</th><th>baseline</th>'
               '<th>now</th><th>variable</th><th>case</th><th>why</th></tr>')
    for r in rows:
        out.append(
            f'<tr class="{esc(r["verdict"])}"><td>{esc(r["verdict"])}</td>'
            f'<td>{pct(r["change"])}</td><td>{interval(r)}</td>'
            f'<td>{r["tolerance"]:.0%}</td>'
            f'<td>{esc(figure(r["base"], r["unit"]))}</td>'
            f'<td>{esc(figure(r["cur"], r["unit"]))}</td>'
            f'<td><code>{esc(r["var"])}</code></td>'
            f'<td><code>{esc(r["case"])}</code></td>'
            f'<td class="small">{esc(r["reason"])}</td></tr>'
        )

    out.append('</table>')
    if record['missing']:
        out.append('<h2>Missing data</h2><ul>')
        out += [f'<li><code>{esc(m["case"])}</code>: {esc(m["reason"])}</li>'
                for m in record['missing']]
        out.append('</ul>')

    if record['new_cases']:
        out.append('<h2>Not in the baseline (not gated)</h2><ul>')
        out += [f'<li><code>{esc(n)}</code></li>'
                for n in record['new_cases']]
        out.append('</ul>')

    contended = contended_lines(record)
    if contended:
        out.append('<h2>Contended samples (not gated)</h2><ul>')
        out += [f'<li>{esc(line)}</li>' for line in contended]
        out.append('</ul>')

    cps = changepoint_lines(record)
    if cps:
        out.append('<h2>Change points</h2><ul>')
        out += [f'<li>{esc(line)}</li>' for line in cps]
        out.append('</ul>')

    groups = plots.scaling_groups(record)
    if groups:
        out.append('<h2>Scaling</h2><p class="small">Mean now (bars: '
                   'min..max of the samples) and baseline mean (dashed) '
                   'against the test parameter.</p>')
        for title, xparam, lines in groups[:max_plots]:
            out.append(_img(plots.scaling_plot(title, xparam, lines),
                            f'scaling {title}'))

    chosen = _choose_histories(record, max_plots)
    if chosen:
        out.append('<h2>History</h2><p class="small">Per-session mean, '
                   'baseline band (min..max of the baseline samples) and '
                   'change points (dotted, with the step size).')
        if len(record['history']) > len(chosen):
            out.append(f' {len(chosen)} of {len(record["history"])} '
                       'variables shown, those that need attention first.')

        out.append('</p>')
        for hist, row in chosen:
            out.append(_img(plots.history_plot(hist, row),
                            f'history {hist["case"]} {hist["var"]}'))

    out.append(f'<p class="small">pfsbench {esc(record["pfsbench_version"])}'
               f', created {esc(record["created"])}, source '
               f'<code>{esc(str(record["source"]))}</code></p>')
    out.append('</body></html>')
    return '\n'.join(out) + '\n'
