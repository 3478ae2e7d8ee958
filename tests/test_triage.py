# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench triage`` (pfsbench.store.triage): the nights' pages kept in
the store from the gate's own records, marked by a person, counted over
the last nights; on SQLite and PostgreSQL 15 (docs/triage.md)."""

import json

import pytest

from pfsbench import store
from pgcluster import pg_cluster, pg_url  # noqa: F401
from test_store import store_url  # noqa: F401
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
