# SPDX-License-Identifier: BSD-3-Clause
"""The night's false-alarm budget (pfsbench.gate.judge.budget) through its
public functions, one test per mutant that bench/mutation.py found the
rest of the fast lane letting through (docs/mutation.md)."""

import pytest

from pfsbench.gate.judge import budget, pooled


def _row(var='write_bw', p=0.001, verdict='regression', case='c1',
         base=(1.0, 1.1), cur=(0.5, 0.6), unit='MiB/s', **more):
    row = {'case': case, 'var': var, 'unit': unit, 'verdict': verdict,
           'reason': 'why', 'lookback': {'p': p},
           'base': {'values': list(base)}, 'cur': {'values': list(cur)}}
    row.update(more)
    return row


def test_holm_rejects_at_its_bound_and_steps_down():
    # m = 3 at alpha 0.75: bounds 0.25, 0.375, 0.75 (exact in binary); a
    # p equal to its bound is rejected (not above it).
    assert budget.holm([0.25, 0.375, 0.75], 0.75) == [True, True, True]
    assert budget.holm([0.75, 0.25, 0.375], 0.75) == [True, True, True]
    # The first p over its bound stops every larger one.
    assert budget.holm([0.26, 0.3, 0.4], 0.75) == [False, False, False]
    assert budget.holm([0.3, 0.001, 0.002], 0.75) == [True, True, True]
    assert budget.holm([0.5, 0.0001], 0.75) == [True, True]
    assert budget.holm([0.8, 0.0001], 0.75) == [False, True]
    assert budget.holm([0.9, 0.0001, 0.38], 0.75) == [False, True, False]
    assert budget.holm([], 0.01) == []


def test_family_of_joins_a_phases_rate_twins_only():
    twins = ['write_bw', 'write_bw_sum', 'write_bw_trimmed',
             'write_bw_conservative', 'write_node_bw_min',
             'write_node_bw_mean', 'write_node_bw_max']
    assert {budget.family_of({'case': 'c', 'var': v}) for v in twins} == \
        {('c', 'write_bw*')}
    for alone in ('write_bw_median', 'write_ops', 'bw', 'write_bw_node_min'):
        assert budget.family_of({'case': 'c', 'var': alone}) == ('c', alone)


def test_families_count_what_can_page_and_join_equal_samples():
    rows = [_row('write_bw', base=(1, 2), cur=(3, 4)),
            _row('write_bw_sum', base=(9, 9), cur=(8, 8)),
            # The same samples as write_bw: the same family.
            _row('read_bw', base=(1, 2), cur=(3, 4)),
            # Same samples in another unit: its own family.
            _row('file_create', unit='ops/s', base=(1, 2), cur=(3, 4)),
            # All-zero samples join nothing.
            _row('a_ops', unit='ops/s', base=(0, 0), cur=(0, 0)),
            _row('b_ops', unit='ops/s', base=(0, 0), cur=(0, 0)),
            # None of these is judged with a p-value that can page.
            _row('no_p', p=None),
            _row('ignored', verdict='ignored'),
            {**_row('x'), 'lookback': None}]
    fams = budget.families(rows)
    assert {k: [r['var'] for r in v] for k, v in fams.items()} == {
        ('c1', 'write_bw*'): ['write_bw', 'write_bw_sum', 'read_bw'],
        ('c1', 'file_create'): ['file_create'],
        ('c1', 'a_ops'): ['a_ops'],
        ('c1', 'b_ops'): ['b_ops']}


def test_hold_diagnostics_marks_roles_and_holds_only_regressions():
    rows = [_row('write_node_bw_min'), _row('write_bw'),
            _row('write_node_bw_max', verdict='pass')]
    assert budget.hold_diagnostics(rows) == 1
    assert [r['role'] for r in rows] == ['diagnostic', 'headline',
                                         'diagnostic']
    assert [r['verdict'] for r in rows] == ['inconclusive', 'regression',
                                            'pass']
    assert rows[0]['reason'] == budget.DIAGNOSTIC_NOTE + 'why'
    assert rows[2]['reason'] == 'why'


def test_apply_holds_what_holm_does_not_reject_and_says_why():
    rows = [_row('write_bw', p=0.006, case='a', base=(1, 2), cur=(3, 4)),
            _row('read_bw', p=0.001, case='a', base=(5, 6), cur=(7, 8)),
            _row('write_bw', p=0.2, case='b', verdict='pass',
                 base=(9, 10), cur=(11, 12))]
    found = budget.apply(rows, 0.01)
    assert found == {'families': 3, 'figures': 3, 'alpha': 0.01, 'held': 1,
                     'own_level': 0, 'diagnostics': 0}
    held, kept, other = rows
    assert held['verdict'] == 'inconclusive'
    assert held['lookback'] == {'p': 0.006, 'family': 'write_bw*',
                                'families': 3, 'held': True}
    assert held['reason'] == (
        "held by the night's false-alarm budget: p = 0.006 for write_bw* "
        "is not below Holm's bound over 3 independent figure(s) judged "
        "tonight (night_false_alarms 0.01); why")
    assert kept['verdict'] == 'regression' and kept['reason'] == 'why'
    assert kept['lookback'] == {'p': 0.001, 'family': 'read_bw*',
                                'families': 3}
    assert other['verdict'] == 'pass' and 'held' not in other['lookback']


def test_apply_judges_a_named_change_at_its_own_level():
    rows = [_row('write_bw', p=0.004, case='a', base=(1, 2), cur=(3, 4)),
            _row('write_bw', p=0.3, case='b', verdict='pass',
                 base=(5, 6), cur=(7, 8))]
    found = budget.apply(rows, 0.001, causes={'a': '+data=journal'})
    assert found['families'] == 1 and found['own_level'] == 1
    assert found['held'] == 0
    assert rows[0]['verdict'] == 'regression'
    assert rows[0]['lookback'] == {'p': 0.004, 'family': 'write_bw*',
                                   'families': 1, 'own_level': True}
    assert rows[0]['reason'] == (
        "judged at its own level, outside the night's false-alarm budget: "
        "tonight brings +data=journal; why")


def test_budget_level_of_each_kind_of_row():
    found = {'alpha': 0.01, 'families': 4}
    assert budget.budget_level({'role': 'diagnostic'}, found) is None
    assert budget.budget_level({'role': 'headline'}, found) == 0.0025
    assert budget.budget_level({'lookback': {'own_level': True}},
                               found) == 1.0
    assert budget.budget_level({'lookback': None}, found) == 0.0025
    assert budget.budget_level({}, {'alpha': 0.01, 'families': 0}) == 1.0


def test_detects_text_at_the_rules_own_level_keeps_the_sensitivity():
    sens = {'detects': 0.25, 'blind': False, 'alpha': 0.005}
    row = {'sensitivity': sens}
    assert budget.detects_text(row, None) == 'detects >= 25%'
    assert row['sensitivity'] is sens


@pytest.mark.parametrize('first, since', [('2026-11-01', ' since 2026-11-01'),
                                          (None, '')])
def test_detects_text_names_the_pooled_nights(first, since):
    row = {'sensitivity': {'detects': 0.48, 'blind': False, 'alpha': 0.005},
           'pooled': {'detects': 0.22, 'count': 4, 'first': first}}
    assert budget.detects_text(row, None) == (
        f'detects >= 48% tonight, >= 22% over the 4 nights{since}')


def _pooled_row():
    inputs = {'se': 0.05, 'df': None, 'ses': [0.05], 'tolerance': 0.0,
              'direction': 'higher'}
    return {'sensitivity': {'detects': 0.48, 'blind': False, 'alpha': 0.005},
            'pooled': {'detects': 0.9, 'count': 4, 'first': None,
                       'alpha': 0.005, 'detect_inputs': inputs}}


def test_detects_text_at_the_budget_recomputes_the_pooled_loss():
    row = _pooled_row()
    inputs = row['pooled']['detect_inputs']
    tight = pooled.detects_at(inputs, 0.001)
    assert tight != pooled.detects_at(inputs, 0.005)
    text = budget.detects_text(row, 0.001)
    assert row['pooled']['detects'] == tight
    assert text == f'detects >= 48% tonight, >= {tight:.0%} over the 4 nights'
    # Never looser than the pooled test's own level.
    row = _pooled_row()
    budget.detects_text(row, 0.5)
    assert row['pooled']['detects'] == pooled.detects_at(inputs, 0.005)
    # At the rule's own level the pooled figure stands.
    row = _pooled_row()
    budget.detects_text(row, None)
    assert row['pooled']['detects'] == 0.9


def test_detects_text_of_a_blind_figure_keeps_the_remedy_after_the_nights():
    sens = {'detects': 0.48, 'blind': True, 'alpha': 0.005, 'target': 0.1,
            'repeats_needed': 12}
    row = {'sensitivity': sens,
           'pooled': {'detects': 0.22, 'count': 4, 'first': None}}
    assert budget.detects_text(row, None) == (
        'detects >= 48% tonight, >= 22% over the 4 nights: cannot detect '
        'the loss it must find (10%, lookback.detect); about 12 repeats '
        'per night would find it 9 times in 10')


def test_a_figure_in_a_diagnostic_unit_is_diagnostic():
    rows = [_row('cpu_busy', unit='%'), _row('write_bw')]
    assert budget.hold_diagnostics(rows) == 1
    assert [r['role'] for r in rows] == ['diagnostic', 'headline']
    assert list(budget.families(rows)) == [('c1', 'write_bw*')]


def test_families_read_on_past_a_row_they_skip():
    rows = [_row('skipped', p=None), _row('write_bw')]
    assert list(budget.families(rows)) == [('c1', 'write_bw*')]


@pytest.mark.parametrize('base, cur', [((0, 0), (1, 2)), ((1, 2), (0, 0))])
def test_equal_samples_join_when_either_side_is_not_all_zero(base, cur):
    rows = [_row('a_ops', unit='ops/s', base=base, cur=cur),
            _row('b_ops', unit='ops/s', base=base, cur=cur)]
    assert {k: len(v) for k, v in budget.families(rows).items()} == \
        {('c1', 'a_ops'): 2}


def test_apply_counts_every_row_it_holds():
    rows = [_row('a_ops', unit='ops/s', p=0.2, base=(1, 2), cur=(3, 4)),
            _row('b_ops', unit='ops/s', p=0.3, base=(5, 6), cur=(7, 8))]
    assert budget.apply(rows, 0.01)['held'] == 2


def test_detects_text_at_the_rules_own_level_does_not_rescale():
    # A sensitivity that could be rescaled (it has its inputs) is left as
    # it is when the row is judged at its rule's own level.
    sens = {'detects': 0.25, 'blind': False, 'alpha': 0.005, 'inputs': {}}
    row = {'sensitivity': sens}
    assert budget.detects_text(row, None) == 'detects >= 25%'
    assert row['sensitivity'] is sens


def _blind(verdict, **more):
    sens = {'detects': 0.48, 'blind': True, 'alpha': 0.005, 'target': 0.1,
            'repeats_needed': None}
    return {'verdict': verdict, 'reason': 'why', 'sensitivity': sens,
            **more}


def test_label_detects_puts_a_blind_figures_remedy_first_unless_held():
    blind = ('detects >= 48%: cannot detect the loss it must find (10%, '
             'lookback.detect); no repeat count would find it (the '
             'night-to-night noise)')
    found = {'alpha': 0.01, 'families': 0}
    rows = [{'verdict': 'ignored', 'reason': 'skip', 'sensitivity': {}},
            _blind('ignored'),
            _blind('inconclusive'),
            _blind('inconclusive', role='diagnostic'),
            _blind('inconclusive', lookback={'held': True}),
            _blind('regression'),
            {'verdict': 'pass', 'reason': 'ok', 'sensitivity': None}]
    budget.label_detects(rows, found)
    assert [r['reason'] for r in rows] == [
        'skip', 'why', f'{blind}; why', f'why; {blind}', f'why; {blind}',
        f'why; {blind}', 'ok']


def test_plan_families_count_each_cases_headline_families():
    # The rate twins are one family, a diagnostic figure none.
    assert budget.plan_families({'c1': {
        'write_bw': [1.0], 'write_bw_sum': [1.0], 'read_bw': [1.0],
        'write_repeat_spread': [1.0]}}) == 2
    assert budget.plan_families({'c': {'create_rate': []}}) == 1
    assert budget.plan_families({'c': {'create_rate': [], 'stat_rate': [],
                                        'write_bw': []}}) == 3
    # A case without nights, or with diagnostic figures only, is taken to
    # have a rate's read and write phases.
    assert budget.plan_families({'c': {}}) == 2
    assert budget.plan_families({'c': {'write_repeat_spread': []}}) == 2
    # The same figure on two cases is two families.
    assert budget.plan_families({'a': {'create_rate': []},
                                 'b': {'create_rate': []},
                                 'c': {}}) == 4
    assert budget.plan_families({}) == 0


def test_plan_level_is_holms_first_bound():
    assert budget.plan_level({'a': {'create_rate': []},
                              'b': {'stat_rate': [], 'write_bw': []},
                              'c': {}}, 0.25) == 0.25 / 5
    assert budget.plan_level({'c': {'create_rate': []}}, 0.05) == 0.05
    assert budget.plan_level({}, 0.05) == 0.05
