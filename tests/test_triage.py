# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench triage`` (pfsbench.store.triage): the nights' pages kept in
the store from the gate's own records, marked by a person, counted over
the last nights; on SQLite and PostgreSQL 15 (docs/triage.md)."""

import html
import json

import pytest

from pfsbench import store
from test_store import (DAY, nightly, runs_dir_with_nights,  # noqa: F401
                        store_url, write_report)
from test_notify import CASE, gate_record, run


def triage(argv, store_url, capsys):
    return run(['triage', *argv, '--store', store_url, '--system', 'local'],
               capsys)


def test_a_page_marked_invalid_shows_in_the_record(tmp_path, capsys,
                                                   store_url):
    lost = gate_record(tmp_path / 'lost', capsys, 0.8)
    same = gate_record(tmp_path / 'same', capsys, 1.001)
    uuid = json.loads(lost.read_text())['current_sessions'][0]['uuid']
    code, out, err = triage(['pages', '--record', str(lost)], store_url,
                            capsys)
    assert (code, err) == (0, '')
    assert out.startswith('triage: 1 page(s) of ')
    code, out, err = triage(['pages', '--record', str(lost)], store_url,
                            capsys)
    assert '0 page(s)' in out and '(1 kept already)' in out
    assert triage(['pages', '--record', str(same)], store_url,
                  capsys)[1].startswith('triage: 0 page(s)')
    code, out, _ = triage(['record'], store_url, capsys)
    assert code == 0
    assert ': 1 page(s), 0 marked invalid, 0 acknowledged, 1 not triaged; ' \
        '0 held' in out.splitlines()[0]

    code, out, err = triage(['mark', uuid[:8], '--invalid', '--by', 'alice',
                             '--why', 'OST 3 rebuilding'], store_url, capsys)
    assert code == 0, err
    assert out == f'triage: 1 page(s) of session {uuid[:8]} marked invalid ' \
        'by alice\n'
    code, out, _ = triage(['record'], store_url, capsys)
    lines = out.splitlines()
    assert ': 1 page(s), 1 marked invalid, 0 acknowledged, 0 not triaged' \
        in lines[0]
    assert lines[1].startswith(f'1970-01-03 paged {CASE} @local:default+'
                               'builtin write_bw -20.1% (session ')
    assert lines[1].endswith(': invalid by alice: OST 3 rebuilding')
    # A later mark wins; the JSON has the counts.
    assert triage(['mark', uuid, '--ack', '--figure', 'write_bw', '--by',
                   'bob', '--why', 'known'], store_url, capsys)[0] == 0
    code, out, _ = triage(['record', '--format', 'json'], store_url, capsys)
    got = json.loads(out)
    assert got['counts'] == {'paged': 1, 'held': 0, 'invalid': 0, 'ack': 1,
                             'open': 0}
    assert got['pages'][0]['who'] == 'bob'


def test_a_mark_that_names_no_page_is_refused(tmp_path, capsys, store_url):
    lost = gate_record(tmp_path, capsys, 0.8)
    uuid = json.loads(lost.read_text())['current_sessions'][0]['uuid']
    triage(['pages', '--record', str(lost)], store_url, capsys)
    code, out, err = triage(['mark', uuid[:8], '--invalid', '--by', 'a',
                             '--why', 'b', '--figure', 'read_bw'],
                            store_url, capsys)
    assert code == 3 and 'no page of case' in err
    code, out, err = triage(['mark', 'ffffffff', '--ack', '--by', 'a',
                             '--why', 'b'], store_url, capsys)
    assert code == 3
    assert "0 paged sessions begin with 'ffffffff'" in err
    code, out, err = triage(['mark', 'abc', '--ack', '--by', 'a', '--why',
                             'b'], store_url, capsys)
    assert code == 2 and 'give 8 or more characters' in err
    code, out, err = triage(['record', '--nights', '0'], store_url, capsys)
    assert (code, out) == (2, '')
    assert err == ("pfsbench: error: <command line>:--nights: 0: expected a "
                   'whole number of at least 1\n')
    with store.open_store(store_url) as conn:
        assert conn.execute('SELECT COUNT(*) FROM pfsbench_marks'
                            ).fetchone()[0] == 0


def test_a_held_loss_is_counted_held_not_paged(tmp_path, capsys, store_url):
    """A loss held back as inconclusive (as the false-alarm budget holds
    one, its reason's first part beginning 'held')."""
    record = json.loads(gate_record(tmp_path, capsys, 0.8).read_text())
    for row in record['results']:
        row['verdict'] = 'inconclusive'
        row['reason'] = 'held by the night\'s false-alarm budget; ' + \
            row['reason']
    held = tmp_path / 'held.json'
    held.write_text(json.dumps(record))
    assert triage(['pages', '--record', str(held)], store_url,
                  capsys)[0] == 0
    code, out, _ = triage(['record', '--format', 'json'], store_url, capsys)
    got = json.loads(out)
    assert got['counts'] == {'paged': 0, 'held': 1, 'invalid': 0, 'ack': 0,
                             'open': 0}
    assert got['pages'][0]['kind'] == 'held'


def test_a_page_marked_invalid_shows_in_the_next_nights_report(
        tmp_path, capsys, store_url):
    """A night pages; a person marks it invalid; the next night's gate,
    reading the store, shows the site's record and the mark (text,
    Markdown, HTML)."""
    runs, _ = runs_dir_with_nights(tmp_path, capsys, 3, regress_from=2)
    assert run(['ingest', '--from-runs', str(runs), '--store', store_url,
                '--system', 'local'], capsys)[0] == 0
    from pfsbench.gate.judge import config as gate_config
    config = tmp_path / 'gate.yaml'
    config.write_text(open(gate_config.DEFAULT_PATH).read().replace(
        'assumed_night_cv: 0.10\n', 'assumed_night_cv: 0\n'))
    gate = ['gate', '-b', 'pre', '--store', store_url, '--system', 'local',
            '--config', str(config)]
    paged = tmp_path / 'paged.json'
    code, out, err = run(gate + ['--json', str(paged)], capsys)
    assert code == 1, out + err
    assert 'triage record of local: 3 night(s) 1970-01-01 .. 1970-01-03: ' \
        '0 page(s), 0 marked invalid' in out
    record = json.loads(paged.read_text())
    uuid = record['current_sessions'][0]['uuid']
    cases = sorted({r['case'] for r in record['results']
                    if r['verdict'] == 'regression'})
    assert len(cases) == 2
    assert triage(['pages', '--record', str(paged)], store_url,
                  capsys)[0] == 0
    assert triage(['mark', uuid[:8], '--invalid', '--by', 'alice', '--why',
                   'OST 3 rebuilding'], store_url, capsys)[0] == 0

    night = write_report(tmp_path / 'night4.json',
                         nightly(3 * DAY, scale=0.8,
                                 extras={'fs_version': '2.0'}))
    assert run(['ingest', night, '--store', store_url, '--system', 'local'],
               capsys)[0] == 0
    page = tmp_path / 'gate.html'
    code, out, err = run(gate + ['--html', str(page)], capsys)
    assert err == '', err
    line = ('triage record of local: 4 night(s) 1970-01-01 .. 1970-01-04: '
            '2 page(s), 2 marked invalid, 0 acknowledged, 0 not triaged; '
            '0 held (not paged)')
    marks = [f'{case} write_bw: paged on 1970-01-03 (session {uuid[:8]}), '
             'marked invalid (noise) by alice: OST 3 rebuilding'
             for case in cases]
    assert f'{line}\n  {marks[0]}\n  {marks[1]}\n' in out
    text = page.read_text()
    assert f'<p class="triage">{html.escape(line)}</p>' in text
    for mark in marks:
        assert f'<li>{html.escape(mark)}</li>' in text
    code, out, _ = run(gate + ['--format', 'markdown'], capsys)
    assert f'## Triage: {line}' in out and f'- {marks[1]}' in out
    # The JSON record stays the gate's own: the store's record is not in it.
    code, out, _ = run(gate + ['--format', 'json'], capsys)
    assert 'triage' not in json.loads(out)


def test_a_store_without_pages_gates_without_a_record(tmp_path, capsys):
    """A store from before the pages' migration: the same verdict, no
    triage record (the gate does not migrate a store it reads)."""
    runs, _ = runs_dir_with_nights(tmp_path, capsys, 3, regress_from=2)
    url = str(tmp_path / 'store.sqlite')
    assert run(['ingest', '--from-runs', str(runs), '--store', url,
                '--system', 'local'], capsys)[0] == 0
    with store.open_store(url) as conn:
        conn.execute('DROP TABLE pfsbench_pages')
        conn.commit()
    code, out, err = run(['gate', '-b', 'pre', '--store', url], capsys)
    assert (code, err) == (0, ''), err
    assert out.startswith('pfsbench gate: ')
    assert 'triage record' not in out
