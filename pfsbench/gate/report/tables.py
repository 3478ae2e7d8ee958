# SPDX-License-Identifier: BSD-3-Clause
"""Text and Markdown renderings of a gate report record."""

import datetime

from pfsbench.core.fields import figure_role
from pfsbench.gate.history.provenance import Change, detail_of, rank_of
from pfsbench.gate.judge.baseline import contended_note
from pfsbench.gate.judge.rows import case_rows, common_changes
from pfsbench.gate.judge.sensitivity import short_label
from pfsbench.gate.report import sweeps, triaged
from pfsbench.gate.statistics.stats import WILD_REASON


def pct(value):
    return 'n/a' if value is None else f'{value:+.1%}'


def interval(row):
    """``'[-12.0%, -3.1%]'`` of a :class:`~pfsbench.gate.judge.rows.VarRow`."""
    if row.low is None:
        return 'n/a'

    return f'[{row.low:+.1%}, {row.high:+.1%}]'


def change_cells(row):
    """``(change, interval)`` of a row as its verdict read them: tonight's
    (``'-11.1%'``, ``'[-30.2%, +13.4%]'``), or, where the nights since the
    level began together made the verdict (lookback.pooled), theirs and
    the night the shift began (``'-24.1% (4 nights)'``, ``'[-36.3%,
    -9.5%] since 2026-11-20'``)."""
    if not row.pooled_decided:
        return pct(row.change), interval(row)

    found = row.pooled
    since = f' since {found["since"]}' if found.get('since') else ''
    return (f'{pct(found["change"])} ({found["nights"]} nights)',
            f'[{found["low"]:+.1%}, {found["high"]:+.1%}]{since}')


def pooled_note(rows):
    """The line that says what a change over nights is, or ``''`` where
    every row shows tonight's own."""
    if not any(r.pooled_decided for r in rows):
        return ''

    return ('A change "(N nights)" is the mean change of the N nights since '
            'the shift began (the date), judged together against the level '
            '(lookback.pooled), with its interval corrected over the windows '
            'of nights tried; tonight alone was no regression.')


def budget_text(settings):
    """``'; a page spends at most 1% a night, Holm over 4 headline
    figure families'``, or ``''`` (no budget counted, or an older
    record)."""
    if not settings.get('families'):
        return ''

    return (f'; a page spends at most {settings["night_false_alarms"]:.0%}'
            f' a night, Holm over {settings["families"]} headline figure '
            'families')


def diagnostic_note(rows):
    """The note under a table that shows a diagnostic figure, or ``''``."""
    if not any(r.role == 'diagnostic' for r in rows):
        return ''

    return ('[diagnostic]: a figure that explains the headline ones '
            '(spread, per node, utilisation, counts): shown and trended, '
            'never pages, not in the night\'s false-alarm budget')


def figure(side, unit, nights=None):
    """``'497.4 MB/s'`` of a side: the level (with its nights where they
    are not the ``nights`` the report's header states) or the samples'
    mean (``(n=3)``)."""
    if side['mean'] is None:
        return 'n/a'

    if side.get('level') is not None:
        own = '' if side['nights'] == nights else f' ({side["nights"]} nights)'
        return f'{side["level"]:.4g} {unit}{own}'

    return f'{side["mean"]:.4g} {unit} (n={side["n"]})'


def level_nights(record):
    """The nights of the level every figure judged by it shares, or
    ``None`` (none judged so, or their counts differ: each cell says its
    own)."""
    found = {r['base'].get('nights') for r in record['results']
             if r['base'].get('level') is not None}
    return found.pop() if len(found) == 1 else None


def baseline_text(record, word='baseline'):
    """The baseline's name (after ``word``) and size, stated once in
    nights: ``"baseline 'base' (8 nights)"``, or where the level's
    nights are not the baseline's sessions, both: ``"baseline 'base' (1
    session; its level: 8 nights)"``."""
    name = record['baseline']['name']
    sessions = len(record['baseline']['sessions'])
    nights = level_nights(record)
    if nights is None and any(r['base'].get('level') is not None
                              for r in record['results']):
        return (f'{word} {name!r} ({plural(sessions, "session")}; its '
                'level: the nights in each row)')
    if nights is None:
        return f'{word} {name!r} ({plural(sessions, "session")})'
    if nights == sessions:
        return f'{word} {name!r} ({plural(nights, "night")})'

    return (f'{word} {name!r} ({plural(sessions, "session")}; its level: '
            f'{plural(nights, "night")})')


def plural(n, word):
    return f'{n} {word}{"" if n == 1 else "s"}'


def tolerance_text(record):
    """The tolerance and the loss a night must rule out, each once:
    ``'tolerance 5% (a smaller change does not count), a night must rule
    out a loss of 10% (lookback.detect)'``; a figure gate.yaml gives its
    own tolerance says so in its reason."""
    st = record['settings']
    text = (f'tolerance {st["tolerance"]:.0%} (a smaller change does not '
            'count)')
    targets = {(r.get('sensitivity') or {}).get('target')
               for r in record['results']} - {None}
    if len(targets) == 1:
        text += (f', a night must rule out a loss of {targets.pop():.0%} '
                 '(lookback.detect)')
    return text


def when(ts):
    return datetime.datetime.fromtimestamp(
        ts, datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')


def headline(record):
    """``(verdict, counts)``: ``'REGRESSION'``, ``'8 regression, 2 pass
    figures in 4 cases'``."""
    s = record['summary']
    parts = [f'{s.get(v, 0)} {v}' for v in
             ('regression', 'inconclusive', 'improvement', 'pass',
              'ignored', 'missing') if s.get(v)]
    ncases = len({r['case'] for r in record['results']})
    if ncases and parts:
        parts[-1] += f' figures in {ncases} case{"s" if ncases > 1 else ""}'

    # A record written before the gate reported its sensitivity has none.
    blind = record.get('sensitivity', {}).get('blind')
    if blind:
        parts.append(f'{blind} cannot detect the loss they must find')

    # A record written before the gate counted them has none.
    repeats = record.get('repeats') or {}
    for why, n in sorted((repeats.get('left_out') or {}).items()):
        if n:
            parts.append(f'{n} of {repeats.get("current", n)} repeats left '
                         f'out ({why})')

    wild = wild_count(record)
    if wild:
        parts.append(f'{wild} wild repeat{"s" if wild > 1 else ""} left out')

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


def wild_count(record):
    """How many repeats the verdicts' nights left out as wild (a repeat
    that two figures share by construction, an alias, counted once)."""
    return len({(r['case'], w['session'], w['repeat'], w['value'])
                for r in record['results']
                for w in r.get('wild_repeats') or ()})


def wild_lines(record):
    """Every repeat left out as wild, one line per figure after a line
    that counts them and says why (a record written before the gate left
    repeats out has none)."""
    rows = [r for r in record['results'] if r.get('wild_repeats')]
    if not rows:
        return []

    n = wild_count(record)
    lines = [f'{n} wild repeat{"s" if n > 1 else ""} left out of the '
             f'nights judged, each {WILD_REASON}:']
    for r in rows:
        lines.append(f'  {r["case"]} {r["var"]}: ' + ', '.join(
            f'{w["night"]} {str(w["session"])[:8]} repeat {w["repeat"]}: '
            f'{w["value"]:.4g} {r["unit"]} (z {w["robust_z"]:g})'
            for w in r['wild_repeats']))

    return lines


def shown_figures(record):
    """``{(case, var)}`` of every figure a report shows (aliases left
    out: their history is the same)."""
    return {(c.case, f.var) for c in case_rows(record) for f in c.figures}


def describe_tags(tags_changed):
    """A change point's ``tags_changed`` as text, option lists, Spack
    builds and server facts compared item by item."""
    return '; '.join(
        Change(k, rank_of(k)[1], (a,), b, detail_of(k, (a,), b)).describe()
        for k, (a, b) in tags_changed.items())


def changepoint_lines(record, role='headline'):
    """One line per case and session where a step of a figure of
    ``role`` began (``'headline'`` or ``'diagnostic'``: a diagnostic's
    steps explain the headline ones and are listed apart, after them):
    the figures that stepped there and the provenance that changed."""
    shown = shown_figures(record)
    steps = {}
    for h in record['history']:
        if (h['case'], h['var']) not in shown or \
                figure_role(h['var'], h['unit']) != role:
            continue

        for c in h['changepoints']:
            steps.setdefault((h['case'], c['session']), []).append((h, c))

    lines = []
    for (case, session), found in steps.items():
        h, c = found[0]
        tags = describe_tags(c['tags_changed'])
        at = c.get('tags_changed_at')
        if not tags:
            tags = 'no tag differs within 2 sessions of the step'
        elif at and at != c['session']:
            tags += f' (from session {at[:8]}, next to the step)'

        figs = ', '.join(f'{h["var"]} {c["change"]:+.1%} ({c["before"]:.4g}'
                         f' -> {c["after"]:.4g} {h["unit"]})'
                         for h, c in found)
        lines.append(f'{case}: {figs} from session {session[:8]} '
                     f'({when(c["time"])}); {tags}')

    return lines


#: The title of the diagnostic figures' change points.
DIAGNOSTIC_STEPS = ('change points of diagnostic figures (they explain the '
                    'headline ones, never page)')


def figure_cells(fig, nights=None):
    """Change, interval, baseline and now of a figure, as text (the
    change and interval the verdict read: :func:`change_cells`;
    ``nights``: the level's nights the header states)."""
    return (*change_cells(fig), figure(fig.base, fig.unit, nights),
            'too fast to time' if fig.untimed else figure(fig.cur, fig.unit))


def shown_interval(fig):
    """``(low, high)`` of the interval the row shows (the pooled nights'
    where they made the verdict), or ``None``."""
    if fig.pooled_decided:
        return fig.pooled['low'], fig.pooled['high']
    if fig.low is None:
        return None

    return fig.low, fig.high


def shows_a_loss(fig):
    """Whether the row's interval lies wholly on the figure's worse side
    of zero."""
    found = shown_interval(fig)
    if found is None or fig.direction not in ('higher', 'lower'):
        return False

    return found[1] < 0 if fig.direction == 'higher' else found[0] > 0


def not_paged(fig, settings):
    """Why a row whose interval shows a loss does not page, in a few
    words (``'held by the budget: p 0.00505 > 0.005 (Holm, 2
    families)'``), or ``''`` (it
    pages, or its interval shows none)."""
    if fig.verdict == 'regression' or not shows_a_loss(fig):
        return ''

    judged = fig.lookback or {}
    if fig.role == 'diagnostic':
        return 'not paged: diagnostic'
    if judged.get('disturbed'):
        return f'held: foreign load on {judged["disturbed"]} repeat(s)'
    if judged.get('held'):
        # Holm stops at a family above its bound: every family it holds
        # is above the first, alpha / m.
        alpha = settings.get('night_false_alarms')
        m = judged.get('families') or settings.get('families')
        bound = (f' > {alpha / m:.3g} (Holm, {m} families)' if alpha and m
                 else '')
        return f'held by the budget: p {judged["p"]:.3g}{bound}'
    if 'current sample(s), the gate needs' in fig.reason:
        return f'held: too few samples (n={fig.cur["n"]})'
    change = fig.pooled['change'] if fig.pooled_decided else fig.change
    if change is not None and abs(change) <= fig.tolerance:
        return f'not paged: change within {fig.tolerance:.0%}'

    worse = '-' if fig.direction == 'higher' else '+'
    return f'not paged: not wholly beyond {worse}{fig.tolerance:.0%}'


def detects_cell(fig, settings):
    """The DETECTS cell: what the night can find (``'>=68%'``,
    ``'>=68% blind'``).  Where the row's interval shows a loss, never
    ``blind`` (the interval shows the night saw it), and where that loss
    does not page, why."""
    if not shows_a_loss(fig):
        return short_label(fig.sensitivity)

    cell = short_label(dict(fig.sensitivity, blind=False)) \
        if fig.sensitivity else ''
    return ', '.join(c for c in (cell, not_paged(fig, settings)) if c) or '-'


def short_names(fig):
    """``'write_bw (+4 equal)'``: the figure's name and how many
    variables equal it by construction; a diagnostic figure (never
    pages) is marked ``[diagnostic]``."""
    name = fig.var
    if fig.aliases:
        name += f' (+{len(fig.aliases)} equal)'

    return name + (' [diagnostic]' if fig.role == 'diagnostic' else '')


def table_rows(record, all_figures=False):
    """``(header, rows)`` of the one-screen table: one row per case (its
    primary figure), with ``all_figures`` one more row per other figure
    (case column ``"``)."""
    header = ('VERDICT', 'DETECTS', 'CHANGE', 'INTERVAL', 'BASELINE', 'NOW',
              'FIGURE', 'OTHER FIGURES', 'CASE')
    rows = []
    st = record['settings']
    nights = level_nights(record)
    for c in case_rows(record):
        rows.append((c.verdict, detects_cell(c.primary, st),
                     *figure_cells(c.primary, nights),
                     short_names(c.primary), c.others_summary() or '-',
                     c.case))
        if all_figures:
            rows += [(f'  {f.verdict}', detects_cell(f, st),
                      *figure_cells(f, nights), short_names(f), '', '"')
                     for f in c.others]

    return header, rows


def shown_rows(cases, all_figures=False):
    """The figures the table shows (each case's primary, with
    ``all_figures`` all)."""
    return [f for c in cases
            for f in (c.figures if all_figures else (c.primary,))]


def attention(cases):
    """The cases whose verdict needs a look, with their notes."""
    return [c for c in cases if c.verdict in ('regression', 'inconclusive')]


def case_notes(c):
    """Lines explaining one case: why its verdict, which variables its
    primary figure stands for, and what changed since the baseline."""
    fig = c.primary
    lines = [f'{c.verdict}: {c.case} {fig.var}: {fig.reason}']
    if fig.aliases:
        lines.append(f'  equal by construction: {", ".join(fig.aliases)}')

    more = [f for f in c.others if f.verdict == c.verdict]
    if more:
        lines.append(f'  also {c.verdict}: ' + ', '.join(
            f'{f.var}{" [diagnostic]" * (f.role == "diagnostic")} '
            f'{change_cells(f)[0]}' for f in more))

    changes = c.changes_text()
    lines.append('  changed since the baseline: ' +
                 (changes or 'nothing recorded (see pfsbench '
                  'session-extras)'))
    return lines


def change_lines(cases):
    """What changed since the baseline for cases not explained in the
    notes: once for what every case shares, then per case."""
    shared = common_changes(cases)
    noted = set(id(c) for c in attention(cases))
    lines = []
    if shared and len(cases) > len(noted) and len(cases) > 1:
        lines.append('changed since the baseline, every case: ' +
                     '; '.join(c.describe() for c in shared))

    for c in cases:
        if id(c) in noted:
            continue

        own = [ch for ch in c.changes if ch not in shared or len(cases) == 1]
        if own:
            lines.append(f'changed since the baseline, {c.case}: ' +
                         '; '.join(ch.describe() for ch in own))

    return lines


def render_text(record, all_figures=False, triage=None):
    verdict, counts = headline(record)
    st = record['settings']
    out = [
        f'pfsbench gate: {verdict}: {counts}',
        f'{baseline_text(record)} vs {describe_sessions(record)}; '
        f'{st["confidence"]:.0%} intervals, {tolerance_text(record)}'
        + budget_text(st),
        '',
    ]
    header, rows = table_rows(record, all_figures)
    if rows:
        table = [header] + rows
        widths = [max(len(row[i]) for row in table)
                  for i in range(len(header) - 1)]
        for row in table:
            out.append('  '.join(c.ljust(w) for c, w in
                                 zip(row[:-1], widths)) + '  ' + row[-1])

        out.append('')
        cases = case_rows(record)
        for note in (pooled_note(shown_rows(cases, all_figures)),
                     diagnostic_note(shown_rows(cases, all_figures))):
            if note:
                out += [note, '']
        for c in attention(cases):
            out.extend(case_notes(c))

        out.extend(change_lines(cases))
        if out[-1]:
            out.append('')

    marks = triaged.lines(triage, case_rows(record))
    if marks:
        out += [marks[0], *(f'  {line}' for line in marks[1:]), '']

    for m in record['missing']:
        out.append(f'missing: {m["case"]}: {m["reason"]}')

    for name in record['new_cases']:
        out.append(f'not in baseline (not gated): {name}')

    out.extend(contended_lines(record))
    out.extend(wild_lines(record))

    for title, role in (('change points', 'headline'),
                        (DIAGNOSTIC_STEPS, 'diagnostic')):
        cps = changepoint_lines(record, role)
        if cps:
            if out[-1]:
                out.append('')

            out.append(f'{title}:')
            out.extend(f'  {line}' for line in cps)

    out.extend(sweeps.text_lines(record))
    return '\n'.join(out).rstrip() + '\n'


def _md_escape(text):
    return str(text).replace('|', '\\|')


def _md_section(title, items):
    """A Markdown section listing ``items``, or nothing without items."""
    if not items:
        return []

    return [f'## {title}', ''] + [f'- {item}' for item in items] + ['']


def render_markdown(record, all_figures=False, triage=None):
    verdict, counts = headline(record)
    st = record['settings']
    out = [
        f'# pfsbench gate: {verdict}',
        '',
        f'**{counts}.** {_md_escape(baseline_text(record, "Baseline"))} '
        'against '
        f'{describe_sessions(record)}. Relative change of the mean with its '
        f'{st["confidence"]:.0%} interval (Welch, log-ratio); '
        f'{tolerance_text(record)}{budget_text(st)}. One row per '
        'case: its worst headline figure.',
        '',
    ]
    header, rows = table_rows(record, all_figures)
    if rows:
        out += ['| ' + ' | '.join(h.lower() for h in header) + ' |',
                '|---|---|---:|---|---:|---:|---|---|---|']
        for row in rows:
            verdict = row[0]
            if verdict.strip() == 'regression':
                verdict = verdict.replace('regression', '**regression**')

            out.append(f'| {verdict} | ' + ' | '.join(
                f'`{_md_escape(c)}`' if i in (5, 7) else _md_escape(c)
                for i, c in enumerate(row[1:])) + ' |')

        out.append('')
        cases = case_rows(record)
        for note in (pooled_note(shown_rows(cases, all_figures)),
                     diagnostic_note(shown_rows(cases, all_figures))):
            if note:
                out += [_md_escape(note), '']
        notes = attention(cases)
        if notes:
            out += ['## Why, and what changed since the baseline', '']
            for c in notes:
                first, *rest = case_notes(c)
                out.append(f'- {_md_escape(first)}')
                out += [f'  - {_md_escape(line.strip())}' for line in rest]

            out.append('')

        out += _md_section('Changed since the baseline',
                           [_md_escape(line) for line in change_lines(cases)])

    marks = triaged.lines(triage, case_rows(record))
    if marks:
        out += [f'## Triage: {_md_escape(marks[0])}', '']
        out += _md_section('Marked pages of the cases above',
                           [_md_escape(line) for line in marks[1:]])

    out += _md_section('Missing data', [
        f'`{_md_escape(m["case"])}`: {m["reason"]}'
        for m in record['missing']])
    out += _md_section('Not in the baseline (not gated)', [
        f'`{_md_escape(n)}`' for n in record['new_cases']])
    out += _md_section('Contended samples (not gated)', [
        _md_escape(line) for line in contended_lines(record)])
    out += _md_section('Wild repeats (left out)', [
        _md_escape(line.strip()) for line in wild_lines(record)])
    out += _md_section('Change points', [
        _md_escape(line) for line in changepoint_lines(record)])
    out += _md_section(DIAGNOSTIC_STEPS.capitalize(), [
        _md_escape(line) for line in changepoint_lines(record, 'diagnostic')])
    out += sweeps.markdown_lines(record)
    return '\n'.join(out)
