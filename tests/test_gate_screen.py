# SPDX-License-Identifier: BSD-3-Clause
"""One screen that agrees with itself (docs/gate.md, "Reading the
report"): a lasting -30 % loss at about 14 % night noise (the history of
tests/test_gate_lasting_loss.py), its 6th night judged with a night's
budget so small that Holm's correction holds the loss the pooled nights
show.  The text, Markdown and HTML reports then say in the row why the
loss does not page, state the baseline's size and the tolerance once,
and list the headline figures' change points before the diagnostics'."""

import contextlib
import io
import json
import re

import pytest

from pfsbench import cli
from pfsbench.gate.judge.rows import Figure
from pfsbench.gate.report import tables
from test_gate_lasting_loss import month
import synth

FORMATS = ('text', 'markdown', 'html')


@pytest.fixture(scope='module')
def screens(tmp_path_factory):
    """``{format: report}`` and the JSON record of the loss's 6th night
    (seed 16: both phases' interval wholly below zero), gated at
    ``night_false_alarms: 1e-6``."""
    work = tmp_path_factory.mktemp('screen')
    reports = month(16, 6, 0.30)
    db = work / 'results.db'
    synth.write_database(str(db), reports)
    config = work / 'gate.yaml'
    config.write_text('night_false_alarms: 0.000001\n')
    out = {}
    with contextlib.redirect_stderr(io.StringIO()):
        with contextlib.redirect_stdout(io.StringIO()):
            assert cli.main(['baseline', 'record', 'base', '--db', str(db),
                             '--session', f'latest~{len(reports) - 8}']) == 0
        for fmt in FORMATS + ('json',):
            text = io.StringIO()
            with contextlib.redirect_stdout(text):
                code = cli.main(['gate', '-b', 'base', '--db', str(db),
                                 '--config', str(config), '--format', fmt])
            assert code == 0, text.getvalue()
            out[fmt] = text.getvalue()

    return out, json.loads(out['json'])


def _held(record):
    """The headline rows the budget held, each with its shown interval
    wholly below zero (the precondition of what the tests read)."""
    rows = [r for r in record['results'] if r['role'] == 'headline' and
            (r.get('lookback') or {}).get('held')]
    assert rows, [(r['var'], r['verdict']) for r in record['results']]
    for r in rows:
        shown = r['pooled'] if (r.get('pooled') or {}).get('decided') else r
        assert shown['high'] < 0, (r['var'], shown)
    return rows


def _row_of(report, fmt):
    """The table's first row (the case's worst headline figure)."""
    if fmt == 'text':
        return next(line for line in report.splitlines()
                    if line.startswith('inconclusive'))
    if fmt == 'markdown':
        return next(line for line in report.splitlines()
                    if line.startswith('| inconclusive'))
    return re.search(r'<tr class="inconclusive">.*?</tr>', report).group(0)


@pytest.mark.parametrize('fmt', FORMATS)
def test_a_held_loss_says_in_its_row_why_it_does_not_page(screens, fmt):
    # Today's row read ">=61% blind" beside an interval wholly below 0.
    out, record = screens
    held = _held(record)
    row = _row_of(out[fmt], fmt)
    assert 'blind' not in row, row
    m = record['settings']['families']
    found = re.search(r'held by the budget: p ([0-9.e-]+) (?:>|&gt;) '
                      rf'([0-9.e-]+) \(Holm, {m} families\)', row)
    assert found, row
    assert found.group(1) in {f'{r["lookback"]["p"]:.3g}' for r in held}
    assert float(found.group(2)) == pytest.approx(1e-6 / m, rel=1e-2)
    # What the night can find is still said.
    assert re.search(r'&gt;=\d+%|>=\d+%', row), row


def test_a_row_without_a_loss_keeps_its_blind_label(screens):
    # The same row with an interval that holds 0: nothing to explain,
    # the label stays what it means.
    record = screens[1]
    row = dict(_held(record)[0], low=-0.2, high=0.1, lookback={},
               pooled=None)
    row['sensitivity'] = dict(row['sensitivity'], blind=True)
    fig = Figure.from_dict(row)
    cell = tables.detects_cell(fig, record['settings'])
    assert cell.endswith(' blind') and 'held' not in cell, cell
    held = Figure.from_dict(dict(row, low=-0.3, high=-0.1,
                                 lookback={'held': True, 'p': 0.004,
                                           'families': 2}))
    cell = tables.detects_cell(held, record['settings'])
    assert 'blind' not in cell and 'held by the budget: p 0.004' in cell
    # A loss that pages is no blind one either, and needs no why.
    paged = Figure.from_dict(dict(row, low=-0.3, high=-0.1,
                                  verdict='regression'))
    assert tables.detects_cell(paged, record['settings']) == \
        tables.short_label(dict(row['sensitivity'], blind=False))


@pytest.mark.parametrize('fmt', FORMATS)
def test_the_baseline_size_is_stated_once_in_nights(screens, fmt):
    # Today: "baseline 'base' (1 session(s))" beside "127.5 MB/s (8
    # nights)" in every row.
    out, record = screens
    report = out[fmt]
    assert 'session(s)' not in report
    assert "(1 session; its level: 8 nights)" in report.replace(
        '&#x27;', "'")
    assert report.count('8 nights') == 1, report
    assert record['results'] and all(
        r['base'].get('nights') == 8 for r in record['results']
        if r['base'].get('level') is not None)


@pytest.mark.parametrize('fmt', FORMATS)
def test_the_tolerance_is_stated_once(screens, fmt):
    # Today: "default tolerance 5%" in the header (and again in the
    # HTML's table note) beside "the loss it must find (10%, ...)".
    report = screens[0][fmt]
    assert 'default tolerance' not in report.lower()
    assert len(re.findall(r'tolerance 5%', report)) == 1, report
    assert 'a night must rule out a loss of 10% (lookback.detect)' in report


def _change_point_lines(report, fmt):
    """The change point lines in order, each with whether it lies in
    the diagnostic figures' list."""
    lines, diagnostic, inside = [], False, False
    for line in report.splitlines():
        low = line.lower()
        if 'change points' in low and ('##' in line or '<h2>' in line or
                                       line.endswith(':')):
            inside, diagnostic = True, 'diagnostic' in low
        elif inside and ('from session' in line):
            lines.append((diagnostic, line))
        elif inside and line.startswith('#'):
            inside = False
    return lines


@pytest.mark.parametrize('fmt', FORMATS)
def test_headline_change_points_come_first_diagnostics_after_marked(
        screens, fmt):
    # Today: read_repeat_spread +300% shared a line with read_bw, and a
    # step only the spreads took could be listed above the read loss.
    report = screens[0][fmt]
    if fmt == 'html':
        report = report.replace('<li>', '\n').replace('<h2>', '\n<h2>')
    found = _change_point_lines(report, fmt)
    assert [d for d, _ in found] == sorted(d for d, _ in found), found
    headline = [line for d, line in found if not d]
    diagnostic = [line for d, line in found if d]
    assert headline and diagnostic, found
    assert all('_bw' in line and 'spread' not in line for line in headline)
    assert all('spread' in line and '_bw ' not in line
               for line in diagnostic)


@pytest.mark.parametrize('sessions, nights, said', [
    (3, [None, None], "baseline 'b' (3 sessions)"),
    (8, [8, 8], "baseline 'b' (8 nights)"),
    (1, [8, 8], "baseline 'b' (1 session; its level: 8 nights)"),
    (1, [8, 5], "baseline 'b' (1 session; its level: the nights in each "
                "row)"),
])
def test_the_baseline_size_names_nights_and_sessions_apart(sessions, nights,
                                                           said):
    rows = [{'base': {'mean': 1.0, 'n': 3} if n is None else
             {'mean': 1.0, 'n': 3, 'level': 1.0, 'nights': n}}
            for n in nights]
    record = {'baseline': {'name': 'b', 'sessions': ['s'] * sessions},
              'results': rows}
    assert tables.baseline_text(record) == said
    shared = tables.level_nights(record)
    cells = [tables.figure(r['base'], 'MB/s', shared) for r in rows]
    # A row says its level's nights only where the header does not.
    assert [c.endswith('nights)') for c in cells] == \
        [n is not None and shared is None for n in nights], cells


@pytest.mark.parametrize('change, said', [
    ({'role': 'diagnostic', 'verdict': 'inconclusive'},
     'not paged: diagnostic'),
    ({'lookback': {'disturbed': 2, 'held': True, 'p': 0.001}},
     'held: foreign load on 2 repeat(s)'),
    ({'reason': '1 current sample(s), the gate needs 2; ...'},
     'held: too few samples (n=3)'),
    ({'verdict': 'pass', 'low': -0.04, 'high': -0.01, 'change': -0.03},
     'not paged: change within 5%'),
    ({'change': -0.04}, 'not paged: change within 5%'),
    ({}, 'not paged: not wholly beyond -5%'),
    ({'direction': 'lower', 'low': 0.02, 'high': 0.3},
     'not paged: not wholly beyond +5%'),
    ({'direction': 'lower'}, ''),
    ({'verdict': 'regression'}, ''),
])
def test_each_reason_a_loss_does_not_page_is_named(screens, change, said):
    # The row of a loss (interval [-30%, -2%]) that neither the budget
    # nor anything else held, changed one way at a time.
    base = dict(_held(screens[1])[0], verdict='inconclusive', low=-0.3,
                high=-0.02, pooled=None, lookback={}, reason='',
                tolerance=0.05)
    fig = Figure.from_dict(dict(base, **change))
    assert tables.not_paged(fig, screens[1]['settings']) == said
