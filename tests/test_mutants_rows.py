# SPDX-License-Identifier: BSD-3-Clause
"""The typed rows of a gate record (pfsbench.gate.judge.rows) through its
public functions, one test per mutant that bench/mutation.py found the
rest of the fast lane letting through (docs/mutation.md)."""

from pfsbench.gate.history.provenance import Change
from pfsbench.gate.judge import rows


def _row(case='a', var='write_bw', verdict='pass', base=(1.0, 2.0),
         cur=(1.5, 2.5), unit='MB/s', **more):
    row = {'case': case, 'name': case, 'check': case, 'params': {},
           'system': 's', 'partition': 'p', 'environ': 'e',
           'session': 'u1', 'var': var, 'unit': unit,
           'direction': 'higher', 'tolerance': 0.05,
           'base': {'values': list(base)}, 'cur': {'values': list(cur)},
           'verdict': verdict}
    row.update(more)
    return row


def test_a_change_without_label_or_detail_reads_as_empty():
    record = {'results': [_row('a'), _row('b', cur=(9.0, 9.5))],
              'changes': {'a': [{'key': 'kernel', 'before': ['5.4'],
                                 'after': '6.1'}]}}
    by_case = {c.case: c for c in rows.case_rows(record)}
    assert by_case['a'].changes == (Change('kernel', '', ('5.4',), '6.1',
                                           ''),)
    assert by_case['a'].changes_text() == "kernel: '5.4' -> '6.1'"
    assert by_case['b'].changes == ()


def test_common_changes_are_in_every_case():
    one, two = ({'key': 'k1', 'after': 1}, {'key': 'k2', 'after': 2})
    record = {'results': [_row('a'), _row('b'), _row('c')],
              'changes': {'a': [one, two], 'b': [two], 'c': [one, two]}}
    cases = rows.case_rows(record)
    assert [c.key for c in rows.common_changes(cases)] == ['k2']
    assert rows.common_changes([]) == ()


def test_an_ignored_figure_is_never_an_alias():
    record = {'results': [_row(var='write_bw'),
                          _row(var='write_bw_sum', verdict='ignored')]}
    (case,) = rows.case_rows(record)
    assert sorted(f.var for f in case.figures) == ['write_bw',
                                                   'write_bw_sum']
    assert all(f.aliases == () for f in case.figures)


def test_var_rows_list_by_verdict_then_case_and_an_unknown_verdict_last():
    record = {'results': [_row('a', verdict='pass'),
                          _row('z', verdict='error'),
                          _row('b', verdict='regression')]}
    assert [(r.case, r.verdict) for r in rows.var_rows(record)] == \
        [('b', 'regression'), ('a', 'pass'), ('z', 'error')]


def test_figures_of_orders_by_verdict_hardness_and_loss():
    found = rows.figures_of([
        _row(var='a_pass', verdict='pass', cur=(1.0, 1.0)),
        _row(var='b_unknown', verdict='error', cur=(1.1, 1.0)),
        _row(var='c_reg_small', verdict='regression', change=-0.1,
             cur=(1.2, 1.0)),
        _row(var='d_reg_large', verdict='regression', change=-0.3,
             cur=(1.3, 1.0)),
        _row(var='e_inc_100', verdict='inconclusive', repeats_needed=100,
             cur=(1.4, 1.0)),
        _row(var='f_inc_never', verdict='inconclusive', cur=(1.5, 1.0)),
    ])
    assert [f.var for f in found] == ['d_reg_large', 'c_reg_small',
                                      'f_inc_never', 'e_inc_100', 'a_pass',
                                      'b_unknown']


def test_cases_tie_on_their_primary_and_sort_by_name():
    record = {'results': [_row('a', var='z_bw'), _row('b', var='y_bw')]}
    assert [c.case for c in rows.case_rows(record)] == ['a', 'b']


def test_changes_text_names_four_and_counts_the_rest():
    def case(n):
        record = {'results': [_row()],
                  'changes': {'a': [{'key': f'k{i}', 'label': 'L',
                                     'before': [], 'after': i,
                                     'detail': ''} for i in range(n)]}}
        return rows.case_rows(record)[0]

    assert case(4).changes_text() == \
        'k0: None -> 0 (L); k1: None -> 1 (L); k2: None -> 2 (L); ' \
        'k3: None -> 3 (L)'
    assert case(6).changes_text().endswith('k3: None -> 3 (L); (+2 more)')
    assert case(0).changes_text() == ''


def test_others_summary_counts_each_verdict():
    record = {'results': [
        _row(var='r', verdict='regression', cur=(1.0, 1.0)),
        _row(var='p1', verdict='pass', cur=(1.1, 1.0)),
        _row(var='p2', verdict='pass', cur=(1.2, 1.0)),
        _row(var='i', verdict='inconclusive', cur=(1.3, 1.0))]}
    (case,) = rows.case_rows(record)
    assert case.others_summary() == '1 inconclusive, 2 pass'


def test_as_dict_names_untimed_only_when_true():
    row = rows.VarRow.from_dict(_row())
    assert 'untimed' not in row.as_dict()
    untimed = rows.VarRow.from_dict(_row(untimed=True))
    assert untimed.as_dict()['untimed'] is True


def test_from_dict_takes_the_role_from_name_and_unit():
    assert rows.VarRow.from_dict(_row(var='x', unit='%')).role == \
        'diagnostic'
    assert rows.VarRow.from_dict(_row(var='write_bw')).role == 'headline'
    assert rows.VarRow.from_dict(_row(var='x', unit='%',
                                      role='headline')).role == 'headline'


def test_rendering_takes_a_records_rows_once_and_only_its_own():
    record = {'results': [_row('a'), _row('b', verdict='regression')]}
    other = {'results': [_row('c')]}
    with rows.rendering(record):
        once = rows.case_rows(record)
        assert [c.case for c in once] == ['b', 'a']
        assert rows.case_rows(record) is once
        assert [c.case for c in rows.case_rows(other)] == ['c']
    again = rows.case_rows(record)
    assert again == once and again is not once
    try:
        with rows.rendering(record):
            raise KeyError('stop')
    except KeyError:
        pass
    assert rows.case_rows(record) is not rows.case_rows(record)


def test_a_changes_detail_is_what_it_describes():
    record = {'results': [_row()],
              'changes': {'a': [{'key': 'fs_super_opts', 'label': 'opts',
                                 'before': ['a'], 'after': 'b',
                                 'detail': '+data=journal'}]}}
    (case,) = rows.case_rows(record)
    assert case.changes_text() == 'fs_super_opts: +data=journal (opts)'


def test_common_changes_are_those_of_the_first_case_all_share():
    one, two = ({'key': 'k1', 'after': 1}, {'key': 'k2', 'after': 2})
    record = {'results': [_row('a'), _row('b'), _row('c')],
              'changes': {'a': [one], 'b': [one, two], 'c': [two, one]}}
    cases = rows.case_rows(record)
    assert [c.case for c in cases] == ['a', 'b', 'c']
    assert [c.key for c in rows.common_changes(cases)] == ['k1']


def test_figures_of_names_equal_samples_by_the_shortest_name():
    same = dict(base=(1.0, 2.0), cur=(3.0, 4.0))
    found = rows.figures_of([_row(var='a_long', **same),
                             _row(var='ccc', **same),
                             _row(var='bb', **same),
                             _row(var='other', cur=(3.0, 4.5))])
    assert [(f.var, f.aliases) for f in found] == [
        ('bb', ('ccc', 'a_long')), ('other', ())]
    assert found[0].names == 'bb (= ccc, a_long)'


def test_figures_of_never_joins_zero_or_ignored_samples():
    zeros = dict(base=(0.0, 0.0), cur=(0.0, 0.0))
    found = rows.figures_of([_row(var='x_spread', **zeros),
                             _row(var='y_spread', **zeros),
                             _row(var='p', verdict='ignored'),
                             _row(var='q', verdict='ignored')])
    assert sorted((f.var, f.aliases) for f in found) == [
        ('p', ()), ('q', ()), ('x_spread', ()), ('y_spread', ())]


def test_a_diagnostic_figure_comes_after_every_headline_one():
    found = rows.figures_of([
        _row(var='write_repeat_spread', verdict='regression', change=-0.5,
             cur=(1.0, 1.0)),
        _row(var='write_bw', verdict='pass', cur=(1.1, 1.0))])
    assert [(f.var, f.role) for f in found] == [
        ('write_bw', 'headline'), ('write_repeat_spread', 'diagnostic')]


def test_as_dict_keeps_only_the_optional_parts_given():
    plain = rows.VarRow.from_dict(_row()).as_dict()
    assert not {'night_noise', 'lookback', 'spread_change', 'sensitivity',
                'wild_repeats', 'pooled'} & set(plain)
    full = rows.VarRow.from_dict(_row(lookback={'p': 0.1},
                                      spread_change=0.2)).as_dict()
    assert full['lookback'] == {'p': 0.1} and full['spread_change'] == 0.2
    assert 'pooled' not in full
