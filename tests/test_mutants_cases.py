# SPDX-License-Identifier: BSD-3-Clause
"""The cases a run would select (pfsbench.plan.cases) through its public
functions, ReFrame's process stood in for by its recorded shape: the
mutants bench/mutation.py found the planner's tests letting through
(docs/mutation.md).  Pure and fast: ``describe``, ``dry_run_skips`` and
``reframe_command`` are imported by name, as tests/lanes.py puts a test
naming ``cases.describe`` in the ``reframe`` lane, outside the fast lane
bench/mutation.py gives a module; here no ReFrame runs."""

import os
import subprocess
import sys

import pytest

from pfsbench.core.errors import ConfigError
from pfsbench.plan import cases
from pfsbench.plan.cases import describe, dry_run_skips
from pfsbench.plan.cases import reframe_command as this_reframe

SKIPS = ('[     SKIP ] ( 7/46) ior_check %nodes=2 /0123abcd '
         '@hawk:cpu+gnu [needs 2 nodes, the partition has 1]\n'
         '[ RUN      ] ( 8/46) dd /fedcba98 @hawk:cpu+gnu\n'
         '[SKIP] (1/2) fio %size=1 /aaaaaaaa @h:p+e [no fio]\n')


@pytest.fixture
def reframe(monkeypatch):
    """``cases.text.run`` answering as a recorded process; the commands
    and environments it was given."""
    calls = []

    def answer(stdout='', stderr='', returncode=0):
        def run(cmd, env):
            calls.append((cmd, env))
            return subprocess.CompletedProcess(cmd, returncode, stdout,
                                               stderr)
        monkeypatch.setattr(cases.text, 'run', run)
        return calls
    return answer


def test_the_reframe_of_this_python():
    assert this_reframe() == os.path.join(
        os.path.dirname(sys.executable), 'reframe')


def test_describe_runs_reframe_on_the_selection(reframe, monkeypatch):
    monkeypatch.delenv('PFSBENCH_RUNS', raising=False)
    calls = reframe('[{"display_name": "dd"}]')
    assert describe('s.py', 'hawk:cpu', 'checks', ('E1', 'io|md'),
                          {'X': '1'}, ('-P', 'target=a,b')) == [
        {'display_name': 'dd'}]
    (cmd, env), = calls
    assert cmd == [this_reframe(), '-C', 's.py', '--system',
                   'hawk:cpu', '-c', 'checks', '-R', '--describe', '-P',
                   'target=a,b', '-t', '^E1$', '-t', 'io|md']
    assert (env['RFM_RESOLVE_MODULE_CONFLICTS'], env['RFM_COLORIZE'],
            env['X']) == ('0', 'n', '1')
    assert os.path.basename(env['PFSBENCH_RUNS']).startswith(
        'pfsbench-describe-')
    assert not os.path.exists(env['PFSBENCH_RUNS'])       # removed


@pytest.mark.parametrize('out, err, code, why', [
    ('not json', 'ERROR: bad config\nmore', 0, 'ERROR: bad config'),
    ('{"a": 1}', '', 0, '{"a": 1}'),
    ('[]', 'line one\nlast line\n', 1, '[]'),
    ('', 'line one\nlast line\n', 1, 'last line'),
    ('', '', 2, 'exit 2'),
])
def test_describe_refused_says_why(reframe, out, err, code, why):
    reframe(out, err, code)
    with pytest.raises(ConfigError) as error:
        describe('s.py', 'hawk:cpu', 'checks')
    assert str(error.value) == (f"s.py:--system: 'hawk:cpu': reframe cannot "
                                f"list the cases: {why}")


def test_the_skipped_cases_and_why():
    assert cases.skipped_cases(SKIPS) == {
        'ior_check %nodes=2': 'needs 2 nodes, the partition has 1',
        'fio %size=1': 'no fio'}
    assert cases.skipped_cases('') == {}


def test_a_dry_run_gives_its_skips_or_says_why(reframe):
    calls = reframe(SKIPS, '', 1)
    assert dry_run_skips('s.py', 'h:p', 'c', ['t']) == \
        cases.skipped_cases(SKIPS)
    assert calls[0][0][8:] == ['--dry-run', '-t', '^t$']
    reframe('', '', 0)
    assert dry_run_skips('s.py', 'h:p', 'c') == {}
    reframe('', 'an Error here', 1)
    with pytest.raises(ConfigError) as err:
        dry_run_skips('s.py', 'h:p', 'c')
    assert str(err.value) == ("s.py:--system: 'h:p': reframe cannot dry-run "
                              "the cases: an Error here")


def test_every_target_only_with_two_or_more():
    def part(*names):
        return {'extras': {'targets': [{'name': n} for n in names]}}
    assert cases.every_target(part('a', 'b')) == ['-P', 'target=a,b']
    assert cases.every_target(part('a')) == []
    assert cases.every_target({}) == []


def test_a_plain_tag_is_matched_exactly():
    assert cases.reframe_tag('E1') == '^E1$'
    assert cases.reframe_tag('a_b.c-9') == '^a_b.c-9$'
    assert cases.reframe_tag('E1|E2') == 'E1|E2'
    assert cases.reframe_tag('') == ''


def _case(cls, family=''):
    return {'display_name': f'{cls} %x=1',
            '@file': f'/r/reframe-checks/{family}/c.py' if family else ''}


LUSTRE = {'features': ['lustre'], 'extras': {}}


@pytest.mark.parametrize('case, part, tools', [
    (_case('mdtest_io500_phases'), {}, {'pfind'}),
    (dict(_case('x'), **{'@class': 'io500_suite_run'}), {}, {'pfind'}),
    (_case('ior_lustre_stripe_bandwidth'), LUSTRE, {'lfs'}),
    (_case('bonnie_lustre_stripe'), LUSTRE, {'lfs'}),
    (_case('ior_lustre_stripe_bandwidth'), {}, set()),
    (_case('dd_stream', 'dd'), LUSTRE, {'lfs'}),
    (_case('b', 'bonnie'), LUSTRE, {'lfs'}),
    (_case('i', 'iozone'), LUSTRE, {'lfs'}),
    (_case('f', 'fio'), LUSTRE, set()),
    (_case('dd_stream', 'dd'), {'features': ['lustre'], 'extras': {
        'lustre_stripe_count': 0}}, set()),
    (_case('dd_stream', 'dd'), {'features': ['lustre'], 'extras': {
        'targets': [{'name': 'a', 'fstype': 'xfs'},
                    {'name': 'b', 'fstype': 'lustre'}]}}, {'lfs'}),
    (_case('dd_stream', 'dd'), {'features': ['lustre'], 'extras': {
        'targets': [{'name': 'a', 'fstype': 'xfs'}]}}, set()),
])
def test_the_helper_tools_of_a_case(case, part, tools):
    assert cases.helper_tools(case, part) == tools


def test_the_tool_of_a_case():
    assert cases.case_tool({'tool': 'ior'}) == 'ior'
    assert cases.case_tool({'tool': ''}) is None
    assert cases.case_tool({}) is None


def test_a_dry_run_runs_reframe_on_the_selection(reframe, monkeypatch):
    monkeypatch.setenv('PFSBENCH_TEST_KEPT', 'yes')
    calls = reframe('', '', 0)
    assert dry_run_skips('s.py', 'hawk:cpu', 'checks', ['E1'],
                         {'PFSBENCH_DRY_RUN_TOOLS': 'check'},
                         ['-P', 'target=a,b']) == {}
    (cmd, env), = calls
    assert cmd == [this_reframe(), '-C', 's.py', '--system', 'hawk:cpu',
                   '-c', 'checks', '-R', '--dry-run', '-P', 'target=a,b',
                   '-t', '^E1$']
    # the caller's environment, and the listing's own settings on top
    assert (env['PFSBENCH_DRY_RUN_TOOLS'], env['PFSBENCH_TEST_KEPT'],
            env['RFM_COLORIZE']) == ('check', 'yes', 'n')


def test_a_case_without_its_file_is_named_by_its_class():
    assert cases.helper_tools({'display_name': 'mdtest_io500_phases %x=1'},
                              LUSTRE) == {'pfind'}
    assert cases.helper_tools({'display_name': 'ior_lustre_stripe_bandwidth'},
                              LUSTRE) == {'lfs'}
