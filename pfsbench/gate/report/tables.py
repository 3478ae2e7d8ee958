# SPDX-License-Identifier: BSD-3-Clause
"""Text and Markdown renderings of a gate report record."""

import datetime

from pfsbench.gate.baseline import contended_note

#: Order in which verdicts are listed: what needs attention first.
ORDER = {'regression': 0, 'inconclusive': 1, 'improvement': 2, 'pass': 3,
         'ignored': 4}


def sorted_rows(record):
    return sorted(record['results'],
                  key=lambda r: (ORDER.get(r['verdict'], 9), r['case'],
                                 r['var']))


def pct(value):
    return 'n/a' if value is None else f'{value:+.1%}'


def interval(row):
    if row.get('low') is None:
        return 'n/a'

    return f'[{row["low"]:+.1%}, {row["high"]:+.1%}]'


def figure(side, unit):
    if side['mean'] is None:
        return 'n/a'

    return f'{side["mean"]:.4g} {unit} (n={side["n"]})'


def when(ts):
    return datetime.datetime.fromtimestamp(
        ts, datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')


def headline(record):
    s = record['summary']
    parts = [f'{s.get(v, 0)} {v}' for v in
             ('regression', 'inconclusive', 'improvement', 'pass',
              'ignored', 'missing') if s.get(v)]
    if s.get('regression'):
        verdict = 'REGRESSION'
    elif s.get('missing') or not any(s.values()):
        verdict = 'MISSING DATA'
    elif s.get('inconclusive'):
        verdict = 'INCONCLUSIVE'
    else:
        verdict = 'PASS'

    return verdict, ', '.join(parts) or 'nothing compared'


def describe_sessions(record):
    cur = record['current_sessions']
    if not cur:
        return 'no session'

    return ', '.join(f'{s["uuid"][:8]} ({when(s["time_start"])})'
                     for s in cur)


def contended_lines(record):
    """What the gate left out because foreign load was seen: the current
    run's samples, then the baseline's (a record written before the gate
    knew of contention has neither)."""
    lines = []
    now = contended_note(record.get('contended_samples', []))
    if now:
        lines.append(now)

    base = contended_note(record['baseline'].get('contended_samples', []))
    if base:
        lines.append(f'baseline: {base}')

    return lines


def changepoint_lines(record):
    lines = []
    for h in record['history']:
        for c in h['changepoints']:
            tags = '; '.join(f'{k}: {a!r} -> {b!r}' for k, (a, b) in
                             c['tags_changed'].items())
            at = c.get('tags_changed_at')
            if not tags:
                tags = 'no tag differs within 2 sessions of the step'
            elif at and at != c['session']:
                tags += f' (from session {at[:8]}, next to the step)'

            lines.append(
                f'{h["case"]} {h["var"]}: {c["change"]:+.1%} '
                f'({c["before"]:.4g} -> {c["after"]:.4g} {h["unit"]}) from '
                f'session {c["session"][:8]} ({when(c["time"])}); {tags}'
            )

    return lines


def render_text(record):
    verdict, counts = headline(record)
    st = record['settings']
    out = [
        f'pfsbench gate: {verdict}: {counts}',
        f'baseline {record["baseline"]["name"]!r} '
        f'({len(record["baseline"]["sessions"])} session(s)) vs '
        f'{describe_sessions(record)}; {st["confidence"]:.0%} intervals, '
        f'default tolerance {st["tolerance"]:.0%}',
        '',
    ]
    rows = sorted_rows(record)
    if rows:
        table = [('VERDICT', 'CHANGE', 'INTERVAL', 'BASELINE', 'NOW',
                  'VARIABLE', 'CASE')]
        for r in rows:
            table.append((r['verdict'], pct(r['change']), interval(r),
                          figure(r['base'], r['unit']),
                          figure(r['cur'], r['unit']), r['var'], r['case']))

        widths = [max(len(row[i]) for row in table) for i in range(6)]
        for row in table:
            out.append('  '.join(c.ljust(w) for c, w in
                                 zip(row[:6], widths)) + '  ' + row[6])

        out.append('')
        notes = [r for r in rows if r['verdict'] in ('regression',
                                                     'inconclusive')]
        for r in notes:
            out.append(f'{r["verdict"]}: {r["case"]} {r["var"]}: '
                       f'{r["reason"]}')

        if notes:
            out.append('')

    for m in record['missing']:
        out.append(f'missing: {m["case"]}: {m["reason"]}')

    for name in record['new_cases']:
        out.append(f'not in baseline (not gated): {name}')

    out.extend(contended_lines(record))

    cps = changepoint_lines(record)
    if cps:
        if out[-1]:
            out.append('')

        out.append('change points:')
        out.extend(f'  {line}' for line in cps)

    return '\n'.join(out).rstrip() + '\n'


def _md_escape(text):
    return str(text).replace('|', '\\|')


def render_markdown(record):
    verdict, counts = headline(record)
    st = record['settings']
    out = [
        f'# pfsbench gate: {verdict}',
        '',
        f'**{counts}.** Baseline `{record["baseline"]["name"]}` '
        f'({len(record["baseline"]["sessions"])} session(s)) against '
        f'{describe_sessions(record)}. Relative change of the mean with its '
        f'{st["confidence"]:.0%} interval (Welch, log-ratio); default '
        f'tolerance {st["tolerance"]:.0%}.',
        '',
    ]
    rows = sorted_rows(record)
    if rows:
        out += ['| verdict | change | interval | baseline | now | variable '
                '| case |', '|---|---:|---|---:|---:|---|---|']
        for r in rows:
            verdict = r['verdict']
            if verdict == 'regression':
                verdict = f'**{verdict}**'

            out.append(
                f'| {verdict} '
                f'| {pct(r["change"])} | {interval(r)} '
                f'| {figure(r["base"], r["unit"])} '
                f'| {figure(r["cur"], r["unit"])} | `{r["var"]}` '
                f'| `{_md_escape(r["case"])}` |'
            )

        out.append('')
        notes = [r for r in rows if r['verdict'] in ('regression',
                                                     'inconclusive')]
        if notes:
            out += ['## Why', '']
            out += [f'- `{_md_escape(r["case"])}` `{r["var"]}`: '
                    f'{r["reason"]}' for r in notes]
            out.append('')

    if record['missing']:
        out += ['## Missing data', '']
        out += [f'- `{_md_escape(m["case"])}`: {m["reason"]}'
                for m in record['missing']]
        out.append('')

    if record['new_cases']:
        out += ['## Not in the baseline (not gated)', '']
        out += [f'- `{_md_escape(n)}`' for n in record['new_cases']]
        out.append('')

    contended = contended_lines(record)
    if contended:
        out += ['## Contended samples (not gated)', '']
        out += [f'- {_md_escape(line)}' for line in contended]
        out.append('')

    cps = changepoint_lines(record)
    if cps:
        out += ['## Change points', '']
        out += [f'- {_md_escape(line)}' for line in cps]
        out.append('')

    return '\n'.join(out)
