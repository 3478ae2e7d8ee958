# SPDX-License-Identifier: BSD-3-Clause
"""tests/lanes.py: a test's lanes follow from the code it reaches."""

import textwrap

import lanes


def _module(tmp_path, name, source):
    path = tmp_path / f'{name}.py'
    path.write_text(textwrap.dedent(source))
    return lanes._module(str(path))


def test_a_helper_that_runs_reframe_puts_its_caller_in_the_reframe_lane(
        tmp_path):
    module = _module(tmp_path, 'test_a', '''
        def _run(args):
            return run_reframe(args, 'runs')

        def _case():
            return _run(['-r'])

        def test_case():
            assert _case()

        def test_pure():
            assert 1 + 1 == 2
    ''')
    assert lanes.lanes_of(module.reach('test_case')) == {'reframe'}
    assert lanes.lanes_of(module.reach('test_pure')) == set()


def test_a_constant_naming_a_real_build_is_the_tool_lane(tmp_path):
    module = _module(tmp_path, 'test_b', '''
        IOR_BINARY = _find('/opt/ior/bin/ior')

        def test_runs_ior():
            run(IOR_BINARY)
    ''')
    assert lanes.lanes_of(module.reach('test_runs_ior')) == {'tool'}


def test_a_test_reused_from_a_sibling_module_keeps_its_lanes(tmp_path):
    _module(tmp_path, 'test_checks_x', '''
        def test_on_slurm(localslurm):
            run_reframe(['-r'], 'runs', env=slurm_env())
    ''')
    module = _module(tmp_path, 'test_matrix', '''
        import test_checks_x as x_tests
        from test_checks_x import test_on_slurm

        def test_reused(tmp_path):
            x_tests.test_on_slurm(tmp_path)

        def test_imported(tmp_path):
            test_on_slurm(tmp_path)
    ''')
    for name in ('test_reused', 'test_imported'):
        assert lanes.lanes_of(module.reach(name)) == {'reframe', 'slurm'}


def test_skip_reasons_and_root_checks_name_their_lanes():
    assert lanes.lanes_of(set(), ['no IOR binary (/opt/ior/bin/ior or ior '
                                  'on PATH)']) == {'tool'}
    assert lanes.lanes_of(set(), ['needs root (loop mounts)']) == {'root'}
    assert lanes.lanes_of({'geteuid'}) == {'root'}
    assert lanes.lanes_of(set(), ['the answer is a rootless one']) == set()


def test_the_real_modules_land_where_they_belong():
    here = lanes.Path(__file__).parent
    dd_checks = lanes._module(str(here / 'test_checks_dd.py'))
    assert lanes.lanes_of(
        dd_checks.reach('test_two_nodes_two_streams_through_slurm')
        | {'localslurm'}) >= {'reframe', 'slurm'}
    dd_parser = lanes._module(str(here / 'test_parser_dd.py'))
    assert lanes.lanes_of(dd_parser.reach('test_successful_run')) == set()
