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


# What a test uses decides, not the words in its text (issue 38) ------------

def test_a_word_in_a_string_is_not_a_use(tmp_path):
    # test_spack_tools.test_environment_order passes {'SPACK_ENV': ...}:
    # a word that reads like a Spack constant, in a pure test.
    module = _module(tmp_path, 'test_c', '''
        def test_environment_order(tmp_path):
            assert spack.environment({}, {'SPACK_ENV': str(tmp_path)})

        def test_names_in_text():
            assert 'run_reframe' in 'localslurm run_reframe geteuid IOR'
    ''')
    for name in ('test_environment_order', 'test_names_in_text'):
        assert lanes.lanes_of(module.reach(name)) == set(), name


def test_a_string_is_not_followed_as_a_name(tmp_path):
    # The string 'localslurm' (a help text, a parametrize id) used to be
    # followed into a function of that name.
    module = _module(tmp_path, 'test_d', '''
        def localslurm():
            return slurm_env()

        def test_mentions_it():
            assert 'localslurm' in USAGE

        def test_uses_it():
            localslurm()
    ''')
    assert lanes.lanes_of(module.reach('test_mentions_it')) == set()
    assert lanes.lanes_of(module.reach('test_uses_it')) == {'slurm'}


def test_a_command_that_starts_reframe_is_a_use(tmp_path):
    module = _module(tmp_path, 'test_e', '''
        def test_plan(capsys):
            main(['nightly-plan', '--system', 'local'])
    ''')
    assert lanes.lanes_of(module.reach('test_plan')) == {'reframe'}


def test_looking_up_a_build_is_the_tool_lane(tmp_path):
    module = _module(tmp_path, 'test_f', '''
        FIO = shutil.which('fio')

        def test_runs_fio():
            subprocess.run([FIO, '--version'])

        def test_skips_without_iozone():
            if not os.path.exists(BUILT):
                pytest.skip(f'no iozone at {BUILT}: build iozone 3.487')

        def test_fio_words_only():
            assert parse('fio-3.33')
    ''')
    assert lanes.lanes_of(module.reach('test_runs_fio')) == {'tool'}
    assert lanes.lanes_of(module.reach('test_skips_without_iozone')) == \
        {'tool'}
    assert lanes.lanes_of(module.reach('test_fio_words_only')) == set()


def test_the_lanes_module_itself_is_not_followed(tmp_path):
    (tmp_path / 'lanes.py').write_text(
        "NAMES = {'run_reframe', 'localslurm', '/opt/ior'}\n"
        "def lanes_of(m):\n    return run_reframe(slurm_env())\n")
    module = _module(tmp_path, 'test_g', '''
        import lanes

        def test_lanes():
            assert lanes.lanes_of({'x'}) == set()
    ''')
    assert lanes.lanes_of(module.reach('test_lanes')) == set()


def test_pure_tests_of_this_repository_are_in_no_lane():
    here = lanes.Path(__file__).parent
    for path, name in [('test_spack_tools.py', 'test_environment_order'),
                       ('test_parser_mdsrate.py',
                        'test_an_aborted_run_quotes_its_error_line'),
                       ('test_gate_sweeps.py',
                        'test_a_sweep_reports_its_peak_and_where'),
                       ('test_lanes.py', 'test_a_word_in_a_string_is_not_a_use'),
                       ('test_localslurm_script.py', 'test_script_parses')]:
        module = lanes._module(str(here / path))
        assert lanes.lanes_of(module.reach(name)) == set(), (path, name)
    iozone = lanes._module(str(here / 'test_parser_iozone.py'))
    assert lanes.lanes_of(iozone.reach('test_real_iozone_auto')) == {'tool'}


def test_the_package_functions_that_start_reframe_are_uses(tmp_path):
    module = _module(tmp_path, 'test_h', '''
        from pfsbench.plan import cases

        def test_listing():
            assert cases.describe(SETTINGS, 'site:part', CHECKS, ['E6'])
    ''')
    assert lanes.lanes_of(module.reach('test_listing')) == {'reframe'}
    here = lanes.Path(__file__).parent
    plan = lanes._module(str(here / 'test_nightly_plan.py'))
    assert 'reframe' in lanes.lanes_of(plan.reach(
        'test_the_nightly_is_one_case_per_family_and_regime'))
