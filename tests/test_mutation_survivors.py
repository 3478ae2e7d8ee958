# SPDX-License-Identifier: BSD-3-Clause
"""Five hand-made mutations that the whole suite let through (issue 38),
each now failing a pure, fast-lane test here:

1. the wild-repeat limit of a night of 3 or 4 repeats (``WILD_Z_SHORT``,
   16 -> 8): the suite's wild repeats sat at z > 100;
2. the index's format stamp (``meta.format``) not compared (the index is
   gone: the store's kept series and its stamp, tests/test_store_runs.py);
3. an mdtest summary row with an extra figure accepted (``<`` for ``!=``);
4. a tight ``nightly-plan --budget`` dropping the cheapest family instead
   of the dearest;
5. the mdtest case's own metadata operations (the contention probe's
   own-work estimate) not multiplied by its phases.
"""

import math
from types import SimpleNamespace

import pytest

from conftest import FIXTURES
from pfsbench.checks.mdtest import OPS_PER_ITEM_AND_PHASE, mdtest_check_base
from pfsbench.cli.nightly_plan import choose
from pfsbench.core.errors import ParseError
from pfsbench.gate.statistics import stats
from pfsbench.parsers import mdtest


# 1. A night of 3 repeats, judged by its figure's pooled scale -------------

def _night(z_of_third, scale=0.01):
    """Three repeats: two at the night's median, one ``z_of_third``
    pooled scales (on the log scale) above it."""
    return [100.0, 100.0, 100.0 * math.exp(z_of_third * scale)]


@pytest.mark.parametrize('z', [9.0, 12.0, 15.5])
def test_a_short_night_keeps_a_repeat_within_16_pooled_scales(z):
    # Between WILD_Z (8) and 16: a 3-repeat night's median is one of its
    # repeats and its scale is borrowed, so this is ordinary there.
    assert stats.wild_repeats(_night(z), scale=0.01) == []


@pytest.mark.parametrize('z', [16.5, 40.0])
def test_a_short_night_leaves_out_a_repeat_beyond_16_pooled_scales(z):
    wild = stats.wild_repeats(_night(z), scale=0.01)
    assert [(i, round(found, 6)) for i, _, found in wild] == [(2, z)]


# 3. An mdtest summary row with a figure too many ---------------------------

def test_an_mdtest_summary_row_with_an_extra_figure_is_refused():
    name = 'n100-i2-shared-dir.txt'
    lines = (FIXTURES / 'mdtest' / name).read_text().splitlines(
        keepends=True)
    no = next(i for i, line in enumerate(lines)
              if line.lstrip().startswith('File creation'))
    # The real output parses; the same row with a fifth figure (another
    # rank's text run into it) does not.
    assert mdtest.parse(''.join(lines), name).summary('file_create')
    lines[no] = lines[no].rstrip('\n') + '       42.000\n'
    with pytest.raises(ParseError) as info:
        mdtest.parse(''.join(lines), name)
    assert info.value.lineno == no + 1
    assert "after 'File creation'" in str(info.value)


# 4. nightly-plan --budget: families dropped dearest first ------------------

def test_a_tight_budget_drops_the_dearest_family():
    cases = [{'display_name': f'{family}_check %x=1'}
             for family in ('cheap', 'middle', 'dear')]
    seconds = {'cheap_check %x=1': 10.0, 'middle_check %x=1': 100.0,
               'dear_check %x=1': 130.0}
    # 240 s for one of each does not fit 145 s: the dearest goes, the
    # others fit (and the dearest no longer does beside them).  At one
    # repeat (--repeat 1); at the calibrated 5 only the cheapest fits.
    assert choose(cases, seconds, 145.0, 5) == (5, cases[:1])
    repeats, chosen = choose(cases, seconds, 145.0, 1)
    assert repeats == 1
    assert [c['display_name'] for c in chosen] == ['cheap_check %x=1',
                                                   'middle_check %x=1']


# 5. The contention probe's own-work estimate of an mdtest case ------------

@pytest.mark.parametrize('phases', [['create'], ['create', 'stat'],
                                    ['create', 'stat', 'read', 'remove']])
def test_an_mdtest_case_counts_its_metadata_operations_per_phase(phases):
    case = SimpleNamespace(items_run_per_task=100, num_tasks=4,
                           iterations=2, md_phases=phases)
    assert mdtest_check_base.metadata_ops_done(case) == (
        OPS_PER_ITEM_AND_PHASE * 100 * 4 * 2 * len(phases))
