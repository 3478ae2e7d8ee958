# SPDX-License-Identifier: BSD-3-Clause
"""Reports: one record rendered to text, Markdown, JUnit and HTML; history
with change points named by session and by the tags that changed."""

import json
import os
import re
import xml.etree.ElementTree as ET

import pytest

from pfsbench import cli
from pfsbench.gate.judge import (baseline as judge_baseline,
                                 config as gate_config)
import synth
from pfsbench.gate.judge.record import run_gate
from pfsbench.gate.report import render
from pfsbench.store.runs import read_database

NIGHTS, STEP_AT = 30, 20


def gate_last_night(directory, reports, baseline='pre'):
    """Store ``reports``, record a baseline of the first 3 sessions and
    gate the last one.

    Returns:
        ``(gate record, session uuids in report order)``.
    """
    db = str(directory / 'results.db')
    synth.write_database(db, reports)
    results = read_database(db)
    uuids = [r['session_info']['uuid'] for r in reports]
    base = judge_baseline.build(results, uuids[:3], baseline)
    return (run_gate(base, results, [uuids[-1]], gate_config.GateConfig()),
            uuids)


@pytest.fixture(scope='module')
def record(tmp_path_factory):
    """30 nights of 4 cases; from night 20 on, -20 % and fs_version 2.0;
    the baseline is nights 0-2."""
    reports = list(synth.nightly_history(NIGHTS, 4, repeats=3, noise=0.02,
                                         step_night=STEP_AT, step=-0.2,
                                         variables=('write_bw', 'read_bw')))
    rec, uuids = gate_last_night(tmp_path_factory.mktemp('runs'), reports,
                                 'pre-upgrade')
    rec['_uuids'] = uuids
    return rec


def test_record_verdicts(record):
    assert record['exit_code'] == 1
    assert record['summary']['regression'] == 8      # 4 cases x 2 variables
    assert all(-0.25 < r['change'] < -0.15 for r in record['results'])


def test_change_point_names_session_and_tags(record):
    uuids = record['_uuids']
    # One history per figure that regressed (4 cases x 2 variables): an
    # empty list would check nothing below.
    assert len(record['history']) == 8, record['history']
    for hist in record['history']:
        assert len(hist['points']) == NIGHTS
        [cp] = hist['changepoints']
        assert cp['session'] == uuids[STEP_AT]
        assert cp['previous_session'] == uuids[STEP_AT - 1]
        assert cp['tags_changed'] == {'fs_version': ['1.8', '2.0']}
        assert cp['change'] == pytest.approx(-0.2, abs=0.03)


def test_text_and_markdown(record):
    text = render(record, 'text')
    assert text.startswith('pfsbench gate: REGRESSION: 8 regression')
    assert "fs_version: '1.8' -> '2.0'" in text
    md = render(record, 'markdown')
    assert md.startswith('# pfsbench gate: REGRESSION')
    # One row per case (its worst figure); every figure behind the flag.
    assert md.count('| **regression** |') == 4
    md = render(record, 'markdown', all_figures=True)
    assert md.count('| **regression** |') == 4
    assert md.count('|   **regression** |') == 4


def test_junit_parses(record):
    xml = render(record, 'junit')
    root = ET.fromstring(xml.split('\n', 1)[1])
    # Valid against the JUnit schema ReFrame ships (lxml comes with
    # ReFrame).
    import lxml.etree
    import reframe
    schema = lxml.etree.XMLSchema(lxml.etree.parse(os.path.join(
        reframe.INSTALL_PREFIX, 'reframe', 'schemas', 'junit.xsd')))
    doc = lxml.etree.fromstring(xml.encode())
    assert schema.validate(doc), schema.error_log
    suite = root.find('testsuite')
    assert suite.get('tests') == '8' and suite.get('failures') == '8'
    cases = suite.findall('testcase')
    assert len(cases) == 8
    assert all(c.find('failure') is not None for c in cases)
    # One test case per (case, variable), named '<case name> <variable>'.
    assert sorted(c.get('name').rsplit(' ', 1)[1] for c in cases) == \
        ['read_bw'] * 4 + ['write_bw'] * 4


def test_html_embeds_nonempty_images(record):
    html = render(record, 'html')
    ns = '{http://www.w3.org/2000/svg}'
    svgs = [ET.fromstring(svg)
            for svg in re.findall(r'<svg .*?</svg>', html)]
    scaling = [s for s in svgs
               if s.find(f'{ns}title').text.startswith('scaling ')]
    # 2 scaling plots (read_bw, write_bw vs nodes), a series per case
    # (they differ in %case too): now (solid) and baseline (dashed), a
    # point with its min..max bar each.
    assert len(scaling) == 2
    for root in scaling:
        lines = list(root.iter(f'{ns}polyline'))
        assert len(lines) == 8
        assert sum(bool(line.get('stroke-dasharray')) for line in lines) == 4
        assert len(list(root.iter(f'{ns}circle'))) == 4
        assert len(list(root.iter(f'{ns}line'))) == 4
        crosses = [p for p in root.iter(f'{ns}path')
                   if p.get('class') != 'grid']
        assert len(crosses) == 4                        # baseline crosses

    # One history per case (4), inline SVG, the regressions' under "Needs
    # attention", before the table; each is well-formed XML with the
    # 30 session means and the step at night 20.
    svgs = re.findall(r'<svg .*?</svg>', html)
    svgs = [s for s in svgs if '<title>history ' in s]
    assert len(svgs) == 4
    for svg in svgs:
        root = ET.fromstring(svg)
        ns = '{http://www.w3.org/2000/svg}'
        [line] = root.iter(f'{ns}polyline')
        assert len(line.get('points').split()) == NIGHTS
        [step] = [t.text for t in root.iter(f'{ns}text')
                  if t.get('fill') == '#d62728']
        assert step in ('-19%', '-20%', '-21%')

    assert '<h2>Scaling</h2>' in html
    attention = html.index('<h2>Needs attention</h2>')
    assert attention < html.index('<svg ') < html.index('<h2>Verdicts</h2>')
    assert 'http' not in html.split('<body>')[1].replace(
        'http://www.w3.org', '')     # self-contained: nothing fetched


def test_report_verb_renders_saved_record(record, tmp_path, monkeypatch,
                                          capsys):
    monkeypatch.setattr(cli.entry, 'VERBS', ['report'])
    path = tmp_path / 'gate.json'
    path.write_text(json.dumps(record))
    out = tmp_path / 'gate.html'
    code = cli.main(['report', str(path), '--format', 'html', '--output',
                     str(out)])
    assert code == 1           # the record's own exit code
    assert out.read_text().startswith('<!DOCTYPE html>')
    bad = tmp_path / 'bad.json'
    bad.write_text('{"kind": "something else"}')
    code = cli.main(['report', str(bad)])
    assert code == 2
    assert "kind: 'something else'" in capsys.readouterr().err


def test_gate_verbs_are_in_the_registry():
    # The other tests use our verbs alone; here the real registry.
    for verb in ('session-extras', 'baseline', 'gate', 'report'):
        assert verb in cli.VERBS

    args = cli.build_parser().parse_args(['gate', '-b', 'pre-upgrade',
                                          '--since', '12h'])
    assert args.baseline == 'pre-upgrade' and args.since == '12h'


def test_tags_found_next_to_a_step_placed_a_night_late(tmp_path):
    # The step begins at night 10 but night 10 itself is noisy-high, so
    # the detector may place it at 11; the tags still say fs_version.
    reports = []
    for night in range(20):
        level = 100.0 if night < 10 else 70.0
        if night == 10:
            level = 100.0
        reports.append(synth.session(
            {'c %nodes=1': [level, level * 1.01, level * 0.99]},
            time_start=night * 86400.0,
            extras={'fs_version': '1.8' if night < 10 else '2.0'}))

    rec, uuids = gate_last_night(tmp_path, reports)
    [cp] = rec['history'][0]['changepoints']
    assert cp['index'] == 11
    assert cp['tags_changed'] == {'fs_version': ['1.8', '2.0']}
    assert cp['tags_changed_at'] == uuids[10]
    assert '(from session ' in render(rec, 'text')


def test_change_point_names_a_rebuilt_binary(tmp_path):
    # Same session extras, but the check logged another IOR build: the
    # step is attributed to the case's spack_provenance.
    reports = []
    for night in range(12):
        level, build = (100.0, 'ior@4.0.0/abc1234') if night < 6 else \
            (80.0, 'ior@4.0.0/def5678')
        rep = synth.session({'ior_bw %nodes=1': [level, level * 1.01,
                                                 level * 0.99]},
                            time_start=night * 86400.0)
        for tc in rep['runs'][0]['testcases']:
            tc['spack_provenance'] = build
        reports.append(rep)

    rec, _ = gate_last_night(tmp_path, reports)
    [cp] = rec['history'][0]['changepoints']
    assert cp['index'] == 6
    assert cp['tags_changed'] == {'spack_provenance': ['ior@4.0.0/abc1234',
                                                       'ior@4.0.0/def5678']}


def test_html_marks_diagnostic_rows_and_states_the_budget(tmp_path):
    """As the text screen: a diagnostic figure's row is marked (class and
    ``[diagnostic]``, with the note that says why it never pages) and
    the headline states what a page spends, once."""
    reports = list(synth.nightly_history(12, 2, repeats=3, noise=0.02,
                                         step_night=8, step=-0.2,
                                         variables=('write_bw',
                                                    'write_stddev')))
    rec, _ = gate_last_night(tmp_path, reports)
    assert rec['settings']['families'] == 2
    html = render(rec, 'html', all_figures=True)
    rows = re.findall(r'<tr class="([^"]*)">(.*?)</tr>', html)
    assert len(rows) == 4
    for cls, cells in rows:
        diagnostic = '<code>write_stddev [diagnostic]</code>' in cells
        assert diagnostic == ('diagnostic' in cls.split()), (cls, cells)
    assert sum('diagnostic' in cls.split() for cls, _ in rows) == 2
    assert html.count("[diagnostic]: a figure that explains the headline "
                      "ones") == 1
    budget = ('a page spends at most 1% a night, Holm over 2 headline '
              'figure families')
    assert html.count(budget) == 1
    assert budget in render(rec, 'text', all_figures=True)
