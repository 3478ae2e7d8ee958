# SPDX-License-Identifier: BSD-3-Clause
"""What changed since the baseline, and one row per case: provenance
differences ranked likeliest cause first, variables equal by construction
collapsed into one figure, one repeats estimate per case."""

import synth
from pfsbench.gate.history import provenance
from pfsbench.gate.judge import baseline, config as gate_config
from pfsbench.gate.judge.record import run_gate
from pfsbench.gate.judge.rows import case_rows
from pfsbench.gate.report import render
from pfsbench.store.runs import read_database

ORDERED = {'fs_type': 'ext4', 'fs_super_opts': 'rw;data=ordered',
           'kernel': '6.1', 'slurm_job_id': '11', 'node': 'n1'}


def test_option_change_lists_added_then_removed_options():
    assert provenance.option_change(['rw;data=ordered'],
                                    'rw;nodelalloc;data=journal') == \
        '+data=journal +nodelalloc -data=ordered'
    # An option some baseline session had is not new.
    assert provenance.option_change(['rw', 'rw;noatime'], 'rw;noatime') == ''


def test_differences_likeliest_first_and_job_ids_ignored():
    after = dict(ORDERED, fs_super_opts='rw;data=journal', kernel='6.18',
                 slurm_job_id='12', node='n2', site_flag='b')
    changes = provenance.differences([dict(ORDERED, site_flag='a')], after)
    assert [c.key for c in changes] == ['fs_super_opts', 'kernel',
                                        'site_flag', 'node']
    assert changes[0].describe() == \
        'fs_super_opts: +data=journal -data=ordered (superblock options)'
    assert changes[1].describe() == "kernel: '6.1' -> '6.18' (kernel)"
    assert provenance.differences([ORDERED, ORDERED], dict(ORDERED)) == []


def _gate(tmp_path, reports, base_sessions=2):
    db = str(tmp_path / 'results.db')
    synth.write_database(db, reports)
    results = read_database(db)
    uuids = [r['session_info']['uuid'] for r in reports]
    base = baseline.build(results, uuids[:base_sessions], 'pre')
    # The repeats alone decide (no assumed night noise): these tests are
    # about what the gate names and how it groups figures, on synthetic
    # nights that differ by their repeats only.
    return run_gate(base, results, [uuids[-1]],
                    gate_config.GateConfig(assumed_night_cv=0.0)), base


def test_regression_names_changed_options_and_its_own_nodes(tmp_path):
    reports = [synth.session({'c %nodes=1': [100.0, 101.0, 99.0],
                              'd %nodes=1': [50.0, 50.5, 49.5]},
                             time_start=t * 86400.0, extras=ORDERED)
               for t in range(2)]
    night = synth.session({'c %nodes=1': [60.0, 61.0, 59.0]},
                          time_start=3 * 86400.0, nodelist=('n7',),
                          extras=dict(ORDERED,
                                      fs_super_opts='rw;data=journal'))
    night['runs'][0]['testcases'] += synth.session(
        {'d %nodes=1': [50.0, 50.5, 49.5]}, time_start=3 * 86400.0,
        session_uuid=night['session_info']['uuid'])['runs'][0]['testcases']
    record, base = _gate(tmp_path, reports + [night])
    # The baseline keeps each case's nodes beside the session extras.
    assert base['cases'][0]['provenance'] == [
        {'session_index': 0, 'tags': {'job_nodelist': 'n1'}},
        {'session_index': 1, 'tags': {'job_nodelist': 'n1'}}]
    assert [c['key'] for c in record['changes']['c %nodes=1 '
                                                '@local:default+builtin']] \
        == ['fs_super_opts', 'job_nodelist']
    assert [c['key'] for c in record['changes']['d %nodes=1 '
                                                '@local:default+builtin']] \
        == ['fs_super_opts']
    text = render(record, 'text')
    lines = text.splitlines()
    at = lines.index(next(line for line in lines
                          if line.startswith('regression: c %nodes=1')))
    assert lines[at + 1] == (
        '  changed since the baseline: fs_super_opts: +data=journal '
        "-data=ordered (superblock options); job_nodelist: 'n1' -> 'n7' "
        '(nodes)')
    # The passing case shares the options' change, said once for all.
    assert 'changed since the baseline, every case: fs_super_opts: ' \
        '+data=journal -data=ordered' in text
    assert '+data=journal' in render(record, 'junit')
    assert '+data=journal' in render(record, 'markdown')


def _two_vars(values, other):
    """Testcases of one case reporting ``bw`` and ``bw_sum`` (equal) and
    ``bw_min`` (``other``)."""
    rep = synth.session({'c %nodes=1': values}, time_start=0.0, var='bw')
    for tc, v, o in zip(rep['runs'][0]['testcases'], values, other):
        pv = tc['perfvalues']
        pv['local:default:bw_sum'] = [v, 0, None, None, 'MB/s', 'pass']
        pv['local:default:bw_min'] = [o, 0, None, None, 'MB/s', 'pass']
        pv['local:default:spread'] = [0.0, 0, None, None, '%', 'pass']
        pv['local:default:skew'] = [0.0, 0, None, None, '%', 'pass']
    return rep


def test_equal_variables_are_one_figure(tmp_path):
    base = _two_vars([100.0, 102.0, 98.0], [90.0, 91.0, 89.0])
    now = _two_vars([70.0, 71.0, 69.0], [89.0, 92.0, 90.0])
    now['session_info']['time_start_unix'] = 86400.0
    record, _ = _gate(tmp_path, [base, now], base_sessions=1)
    [case] = case_rows(record)
    assert case.verdict == 'regression'
    assert (case.primary.var, case.primary.aliases) == ('bw', ('bw_sum',))
    # Zeros on both sides are equal by accident, not by construction.
    assert sorted(f.var for f in case.others) == ['bw_min', 'skew', 'spread']
    text = render(record, 'text')
    assert text.count('@local:default+builtin') == 2     # row + note
    assert '  equal by construction: bw_sum' in text
    assert 'bw (+1 equal)' in text
    full = render(record, 'text', all_figures=True)
    assert '  pass' in full and 'bw_min' in full


def test_one_repeats_estimate_per_case(tmp_path, spread=2.0):
    base = _two_vars([100.0, 100 + spread, 100 - spread],
                     [100.0, 100 + 3 * spread, 100 - 3 * spread])
    now = _two_vars([98.0, 98 + spread, 98 - spread],
                    [98.0, 98 + 3 * spread, 98 - 3 * spread])
    now['session_info']['time_start_unix'] = 86400.0
    record, _ = _gate(tmp_path, [base, now], base_sessions=1)
    needs = {r['var']: r['repeats_needed'] for r in record['results']
             if r['verdict'] == 'inconclusive'}
    assert len(set(needs.values())) == 2, needs
    text = render(record, 'text')
    assert text.count('repeats per side would settle it') == 1
    # The estimate given is the one that settles every figure.
    assert f'about {max(needs.values())} repeats per side' in text


def test_a_server_side_change_is_named_before_the_client_side():
    # extras.server_provenance_command's facts, as a case logs them.
    was = 'filesystem=moosefs; master_version=3.0.117; copies=1'
    now = 'filesystem=moosefs; master_version=3.0.117; copies=2'
    changes = provenance.differences(
        [dict(ORDERED, server_provenance=was)],
        dict(ORDERED, kernel='6.18', server_provenance=now))
    assert [c.key for c in changes] == ['server_provenance', 'kernel']
    # The facts that changed, not two long strings to compare by eye.
    assert changes[0].describe() == (
        'server_provenance: copies 1 -> 2 (server side (versions, '
        'servers, layout))')
    assert changes[0].before == (was,) and changes[0].after == now


def test_server_facts_that_changed_appeared_or_went():
    was = 'filesystem=moosefs; chunkservers=3; copies=1'
    assert provenance.fact_change(
        [was], 'filesystem=moosefs; chunkservers=2; copies=2') == \
        'chunkservers 3 -> 2; copies 1 -> 2'
    assert provenance.fact_change(
        [was], 'filesystem=moosefs; copies=1; layout=raid1') == \
        'chunkservers 3 -> None; layout None -> raid1'
    # A command that failed logs no facts: every one of them went.
    assert provenance.fact_change([was], 'unavailable: exit status 1') == \
        'filesystem moosefs -> None; chunkservers 3 -> None; copies 1 -> None'
    assert provenance.fact_change([was], was) == ''
