# SPDX-License-Identifier: BSD-3-Clause
"""Site validation (pfsbench.site.validate) through its public functions:
the checks' own hooks (check_variables, check_job_shape, check_tasks_fit)
that only ReFrame-running tests reached, and the numbers of the planner's
options; the mutants bench/mutation.py found no fast-lane test reaching
(docs/mutation.md)."""

from types import SimpleNamespace as NS

import pytest

from pfsbench.core.errors import ConfigError
from pfsbench.site import validate


def _refused(call, *args, **kwargs):
    with pytest.raises(ConfigError) as err:
        call(*args, **kwargs)
    return str(err.value)


def test_budget_hours():
    for fine in (0, 2, 0.5):
        assert validate.budget_hours(fine, 's', '--budget') == fine
    assert _refused(validate.budget_hours, True, 's', '--budget') == \
        's:--budget: True: expected a number of hours'
    assert _refused(validate.budget_hours, '2', 's', '--budget') == \
        "s:--budget: '2': expected a number of hours"
    for bad in (-1, float('nan'), float('inf')):
        assert _refused(validate.budget_hours, bad, 's', '--budget') == (
            f's:--budget: {bad!r}: expected hours, 0 or more, e.g. 2 (0: '
            'no budget, the whole selection)')


def test_non_negative_int():
    assert validate.non_negative_int(0, 's', 'f') == 0
    assert validate.non_negative_int(3, 's', 'f') == 3
    assert _refused(validate.non_negative_int, -1, 's', 'f') == \
        's:f: -1: must be at least 0'
    assert _refused(validate.non_negative_int, 1.5, 's', 'f') == \
        's:f: 1.5: expected a whole number'


def _case(**given):
    shape = dict(num_tasks=2, unique_name='case1', time_limit=60, job=None)
    return NS(**{**shape, **given})


def test_check_job_shape_passes_a_sound_job():
    validate.check_job_shape(_case())
    validate.check_job_shape(_case(time_limit=None, num_tasks_per_node=1,
                                   num_cpus_per_task=2,
                                   job=NS(options=['--exclusive'],
                                          cli_options=['#DW jobdw'])))


@pytest.mark.parametrize('given, refused', [
    (dict(num_tasks=0), 'case1:num_tasks: 0: must be at least 1'),
    (dict(num_tasks_per_node=0),
     'case1:num_tasks_per_node: 0: must be at least 1'),
    (dict(num_cpus_per_task=0),
     'case1:num_cpus_per_task: 0: must be at least 1'),
    (dict(time_limit=0), 'case1:time_limit: 0: must be more than 0'),
    (dict(job=NS(options=['--exclusive'], cli_options=['--a b;c'])),
     "case1:job option: '--a b;c': contains ';'; refused in #SBATCH "
     "options: quotes, backslash, $, backtick and ;"),
    (dict(job=NS(options=['#DW a\nb'], cli_options=[])),
     "case1:job option: '#DW a\\nb': contains a newline"),
])
def test_check_job_shape_refuses_naming_the_case(given, refused):
    assert _refused(validate.check_job_shape, _case(**given)) == refused


def _with_variables(framework, **values):
    class Check:
        var_space = NS(vars={'block': 0, 'num_tasks': 0})
        param_space = NS(params={'target': 0})

    test = Check()
    for name, value in dict(dict(block='1m', num_tasks=-1, target='/x',
                                 tags={'ok'}, unique_name='case1'),
                            **values).items():
        setattr(test, name, value)
    validate.check_variables(test, framework)
    return test


def test_check_variables_leaves_reframes_own_and_checks_the_rest():
    _with_variables(('num_tasks',))
    assert _refused(_with_variables, ()) == \
        'case1:num_tasks: -1: must be at least 0'
    assert _refused(_with_variables, ('num_tasks',), target='/x;y') == (
        "case1:target: '/x;y': contains ';'; allowed: letters, digits and "
        "_@%+=:,./~-")
    assert _refused(_with_variables, ('num_tasks',),
                    tags={'ok', 'b d'}) == (
        "case1:tags: 'b d': contains a space; allowed: letters, digits "
        "and _@%+=:,./~-")


def _fitting(tasks, cpus, options=()):
    return NS(num_tasks_per_node=tasks, unique_name='case1',
              current_partition=NS(processor=NS(num_cpus=cpus),
                                   fullname='sys:p'),
              job=NS(options=list(options), cli_options=[]))


def test_check_tasks_fit_the_partitions_cpus():
    for fine in (_fitting(4, 4), _fitting(None, 4), _fitting(8, None),
                 _fitting(8, 4, ['--overcommit'])):
        validate.check_tasks_fit(fine)
    assert _refused(validate.check_tasks_fit, _fitting(8, 4)) == (
        "case1:num_tasks_per_node: 8: more tasks per node than sys:p's "
        "processor.num_cpus (4): Slurm refuses the job; at most 4")


PLUGINS = ("(srun --mpi=list lists a cluster's: none, pmi2, pmix, pmix_v2, "
           "pmix_v3, pmix_v4, pmix_v5, cray_shasta are Slurm's own)")


def test_slurm_mpi_type_takes_plugins_and_refuses_near_misses():
    for fine in ('pmix', 'pmix_v4', 'pmix_v17', 'pmi2', 'none', '$MPI',
                 'openmpi', 'cray_shasta'):
        assert validate.slurm_mpi_type(fine, 's', 'f') == fine
    assert validate.slurm_mpi_type(3, 's', 'f') == '3'
    for near, meant in (('PMI2', 'pmi2'), ('pmx', 'pmix'),
                        ('nonee', 'none'), ('pmix_vx', 'pmix_v5')):
        assert _refused(validate.slurm_mpi_type, near, 's', 'f') == (
            f"s:f: '{near}': not a Slurm MPI plugin; did you mean "
            f"'{meant}'? {PLUGINS}")


ALLOWED = ('allowed: letters, digits, _@%+=:,./~- and $NAME or ${NAME} '
           '(expanded on the cluster)')


def test_path_is_absolute_or_a_variables_and_one_word():
    for fine in ('/a/b', '~/x', '$SCRATCH/p', '${SCRATCH}/p'):
        assert validate.path(fine, 's', 'f') == fine
    assert _refused(validate.path, 'rel/p', 's', 'f') == (
        "s:f: 'rel/p': is a relative path, which no job could use; give an "
        "absolute path (or one starting with $VARIABLE, e.g. "
        "$SCRATCH/pfsbench)")
    assert _refused(validate.path, '', 's', 'f') == "s:f: '': empty path"
    assert _refused(validate.path, 5, 's', 'f') == 's:f: 5: expected a string'
    assert _refused(validate.path, '/a b', 's', 'f') == \
        f"s:f: '/a b': contains a space; {ALLOWED}"
    assert _refused(validate.path, '/a;b', 's', 'f') == \
        f"s:f: '/a;b': contains ';'; {ALLOWED}"
    assert _refused(validate.path, '$(x)', 's', 'f') == \
        f"s:f: '$(x)': contains command substitution; {ALLOWED}"


REFUSED = 'refused in #SBATCH options: quotes, backslash, $, backtick and ;'


@pytest.mark.parametrize('option, refused', [
    ('-N2', "'-N2': expected one option: -x or --name, then =value or a "
            "space and the value"),
    ('qos=io', "'qos=io': expected one option: -x or --name, then =value "
               "or a space and the value"),
    ('--mpi=pmix', "'--mpi=pmix': an srun option, not an #SBATCH one; the "
                   "MPI plugin belongs in the partition's env_vars: "
                   "['SLURM_MPI_TYPE', 'pmix'] (srun reads it)"),
    ('--mpi pmi2', "'--mpi pmi2': an srun option, not an #SBATCH one; the "
                   "MPI plugin belongs in the partition's env_vars: "
                   "['SLURM_MPI_TYPE', 'pmi2'] (srun reads it)"),
    ('--mpi', "'--mpi': an srun option, not an #SBATCH one; the MPI plugin "
              "belongs in the partition's env_vars: ['SLURM_MPI_TYPE', "
              "'VALUE'] (srun reads it)"),
    ('--cpu-bind=cores', "'--cpu-bind=cores': an srun option, not an "
                         "#SBATCH one; srun's binding belongs in env_vars: "
                         "['SLURM_CPU_BIND', 'cores']"),
    ('--qos=a b', "'--qos=a b': contains a space in its value: sbatch would "
                  "read a second option; give one option each"),
    ('--qos=a"b', f"'--qos=a\"b': contains '\"'; {REFUSED}"),
    ("--qos=a'b", f"\"--qos=a'b\": contains \"'\"; {REFUSED}"),
    ('--qos=$X', f"'--qos=$X': contains '$'; {REFUSED}"),
    ('--qos=a`b', f"'--qos=a`b': contains '`'; {REFUSED}"),
    ('--qos=a\\b', f"'--qos=a\\\\b': contains '\\\\'; {REFUSED}"),
    ('--comment=a;b', f"'--comment=a;b': contains ';'; {REFUSED}"),
    ('--qos=\x7f', "'--qos=\\x7f': contains the control character '\\x7f'"),
    ('--qos=\tx', "'--qos=\\tx': contains a tab"),
    (7, '7: expected a string'),
])
def test_sbatch_option_refuses_naming_why(option, refused):
    assert _refused(validate.sbatch_option, option, 's', 'f') == \
        f's:f: {refused}'


def test_sbatch_option_takes_one_option():
    for fine in ('--qos=io', '-A proj', '--exclusive', '--time=01:00:00'):
        assert validate.sbatch_option(fine, 's', 'f') == fine


K = 'systems[h].partitions[c]'
MPI = ("'--mpi=pmix': an srun option, not an #SBATCH one; the MPI plugin "
       "belongs in the partition's env_vars: ['SLURM_MPI_TYPE', 'pmix'] "
       "(srun reads it)")


@pytest.mark.parametrize('partition, key, refused', [
    ({'access': ['--qos=io', '--mpi=pmix']}, K, f'{K}.access.1: {MPI}'),
    ({'access': ['--mpi=pmix']}, '', f'access.0: {MPI}'),
    ({'env_vars': [['A', '1'], ['B']]}, K,
     f"{K}.env_vars.1: ['B']: expected [name, value]"),
    ({'env_vars': [['A', '1'], ['A B', '1']]}, K,
     f"{K}.env_vars: 'A B': not an environment variable name "
     "([A-Za-z_][A-Za-z0-9_]*)"),
    ({'env_vars': [['SLURM_MPI_TYPE', 'pmx']]}, K,
     f"{K}.env_vars.SLURM_MPI_TYPE: 'pmx': not a Slurm MPI plugin; did you "
     f"mean 'pmix'? {PLUGINS}"),
    ({'modules': ['gcc/12', 'a b']}, K,
     f"{K}.modules.1: 'a b': contains a space; allowed: letters, digits "
     "and _@%+=:,./~-"),
    ({'extras': {'targets': [{'name': 't1', 'path': 'rel'}]}}, K,
     f"{K}.extras.targets[t1].path: 'rel': is a relative path, which no "
     "job could use; give an absolute path (or one starting with "
     "$VARIABLE, e.g. $SCRATCH/pfsbench)"),
    ({'extras': {'targets': [{'path': '/ok'}, {'path': 'rel'}]}}, K,
     f"{K}.extras.targets[1].path: 'rel': is a relative path, which no "
     "job could use; give an absolute path (or one starting with "
     "$VARIABLE, e.g. $SCRATCH/pfsbench)"),
    ({'extras': {'targets': [{'name': 't1', 'path': '/x',
                              'remount': 'mount\n/x'}]}}, K,
     f"{K}.extras.targets[t1].remount: 'mount\\n/x': contains a newline"),
    ({'extras': {'targets': [{'path': '/x'}, {'remount': 'a\tb'}]}}, K,
     f"{K}.extras.targets[1].remount: 'a\\tb': contains a tab"),
    ({'extras': {'drop_caches_command': 'sync\n'}}, K,
     f"{K}.extras.drop_caches_command: 'sync\\n': contains a newline"),
])
def test_site_partition_names_the_key_of_what_it_refuses(partition, key,
                                                         refused):
    assert _refused(validate.site_partition, partition, 'site.py', key) == \
        f'site.py:{refused}'


def test_site_partition_passes_what_a_site_writes_on_purpose():
    validate.site_partition({
        'access': ['--qos=io', '-A proj'],
        'env_vars': [['OTHER', 'pmx'], ['SLURM_MPI_TYPE', 'pmix']],
        'modules': ['gcc/12'],
        'extras': {'targets': ['not a dict', {'name': 't', 'path': '/x',
                                              'remount': 'mount -o rw /x'}],
                   'drop_caches_command':
                       'sync; echo 3 > /proc/sys/vm/drop_caches'}},
        'site.py', K)


def test_positive_number():
    for fine in (0.5, 1, 2.5):
        assert validate.positive_number(fine, 's', 'f') == fine
    for bad, why in ((True, 'expected a number'), ('x', 'expected a number'),
                     (0, 'must be more than 0'), (-1, 'must be more than 0')):
        assert _refused(validate.positive_number, bad, 's', 'f') == \
            f's:f: {bad!r}: {why}'


@pytest.mark.parametrize('name, value, refused', [
    ('nodes', 0, 'nodes: 0: must be at least 1'),
    ('nodes', [1, 0], 'nodes: 0: must be at least 1'),
    ('ratio', float('inf'), 'ratio: inf: must be a finite number, 0 or more'),
    ('ratio', -0.5, 'ratio: -0.5: must be a finite number, 0 or more'),
    ('barrier_timeout', 0.0, 'barrier_timeout: 0.0: must be more than 0'),
    ('stripe_count', -2, 'stripe_count: -2: must be at least -1'),
    ('other', -1, 'other: -1: must be at least 0'),
])
def test_check_value_refuses_naming_the_case(name, value, refused):
    assert _refused(validate.check_value, name, value, 'case1') == \
        f'case1:{refused}'


def test_check_value_leaves_unset_and_booleans_and_takes_the_rest():
    for name, value in (('nodes', None), ('nodes', True), ('ratio', 0.0),
                        ('stripe_count', -1), ('nodes', (1, 2))):
        validate.check_value(name, value, 'case1')


def test_module_name_of_a_dict_is_its_name():
    assert validate.module_name({'name': 'gcc/12'}, 's', 'f') == 'gcc/12'
    assert validate.module_name({'other': 1}, 's', 'f') == ''
    assert validate.module_name('ior@3.3.0', 's', 'f') == 'ior@3.3.0'
    assert _refused(validate.module_name, {'name': 'a b'}, 's', 'f') == (
        "s:f: 'a b': contains a space; allowed: letters, digits and "
        "_@%+=:,./~-")


def test_an_srun_option_is_named_by_what_comes_before_its_value():
    assert _refused(validate.sbatch_option, '--mpi=a=b', 's', 'f').endswith(
        "['SLURM_MPI_TYPE', 'a=b'] (srun reads it)")
    assert _refused(validate.sbatch_option, '--mpi a b', 's', 'f').endswith(
        "['SLURM_MPI_TYPE', 'a b'] (srun reads it)")


def test_env_var_values_are_one_word_or_variables():
    assert _refused(validate.env_var, 'A', 'x;y', 's', 'f') == (
        "s:f.A: 'x;y': contains ';'; allowed: letters, digits, "
        "_@%+=:,./~- and $NAME or ${NAME}")


def test_a_case_without_a_job_has_no_job_options():
    validate.check_job_shape(NS(num_tasks=2, unique_name='case1',
                                time_limit=60))


def test_slurm_clock():
    assert validate.slurm_clock(119) == '00:01:59'
    assert validate.slurm_clock(120) == '00:02:00'
    assert validate.slurm_clock(3600) == '01:00:00'
    assert validate.slurm_clock(360000) == '100:00:00'


SLURM_TIME = ('a Slurm time (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or '
              'D-HH:MM:SS) with a field out of range')


def test_slurm_time_ranges_and_type():
    for fine in ('25:00:00', '1:59:00', '61:00', '1-23:59:59'):
        assert validate.slurm_time(fine, 's', 'f') == fine
    for bad in ('1:60:00', '1-24:00:00', '1-00:00:60'):
        assert _refused(validate.slurm_time, bad, 's', 'f') == \
            f"s:f: '{bad}': {SLURM_TIME}"
    assert _refused(validate.slurm_time, 5, 's', 'f') == \
        's:f: 5: expected a string'


def test_size_refuses_zero_unless_asked_and_names_the_field():
    assert validate.size('1m', 's', 'f') == '1m'
    assert _refused(validate.size, '0', 's', 'f') == (
        "s:f: '0': expected a size above 0: digits and an optional unit k, "
        "m, g or t (4k, 1m, 47008)")
    assert _refused(validate.size, 5, 's', 'f') == 's:f: 5: expected a string'


def test_a_dollar_in_a_path_must_start_a_variable():
    assert _refused(validate.path, '/x/$1y', 's', 'f') == \
        f"s:f: '/x/$1y': contains '$' not followed by NAME or {{NAME}}; " \
        f"{ALLOWED}"
    assert validate.slurm_mpi_type('$pmix', 's', 'f') == '$pmix'


FORMS = ("ReFrame's 30m, 12h, 1d12h or a number of seconds (43200), or "
         "Slurm's MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS")


def test_time_limit_above_zero_in_any_form():
    assert validate.time_limit(0.5, 's', 'f') == 0.5
    assert validate.time_limit('1h', 's', 'f') == 3600.0
    for bad in ('0', 0, -1, 'x', None, 'inf', '0:00'):
        assert _refused(validate.time_limit, bad, 's', 'f') == \
            f's:f: {bad!r}: expected a time limit above 0: {FORMS}'
    assert _refused(validate.time_limit, float('nan'), 's', 'f') == \
        f's:f: nan: expected a time limit above 0: {FORMS}'


def test_slurm_time_of_zero_and_seconds_out_of_range():
    for zero in ('0', '0:00', '0-0'):
        assert _refused(validate.slurm_time, zero, 's', 'f') == (
            f"s:f: '{zero}': must be more than zero (Slurm reads 0 as no "
            "limit)")
    assert validate.slurm_time('1-0', 's', 'f') == '1-0'
    assert validate.slurm_time('0:59', 's', 'f') == '0:59'
    assert _refused(validate.slurm_time, '1:00:60', 's', 'f') == \
        f"s:f: '1:00:60': {SLURM_TIME}"


def test_time_seconds_of_reframes_units():
    for text, seconds in (('1d', 86400.0), ('2m', 120.0), ('5s', 5.0),
                          ('3h', 10800.0), ('1d1h1m1s', 90061.0)):
        assert validate.time_seconds(text, 's', 'f') == seconds
    assert validate.time_seconds(90, 's', 'f') == 90.0
    assert _refused(validate.time_seconds, True, 's', 'f') == (
        "s:f: 'True': expected a Slurm time: MM, MM:SS, HH:MM:SS, D-HH, "
        "D-HH:MM or D-HH:MM:SS")


def test_time_seconds_in_slurms_forms_only_and_word_names_the_field():
    assert validate.time_seconds('1:00', 's', 'f', slurm=True) == 60.0
    assert _refused(validate.time_seconds, '1d', 's', 'f', slurm=True) == (
        "s:f: '1d': expected a Slurm time: MM, MM:SS, HH:MM:SS, D-HH, "
        "D-HH:MM or D-HH:MM:SS")
    assert _refused(validate.word, 5, 's', 'f') == 's:f: 5: expected a string'


def test_words_are_single_spaced_and_each_one_word():
    assert validate.words('a b', 's', 'f') == 'a b'
    assert validate.words('', 's', 'f') == ''
    for bad in ('a  b', ' a'):
        assert _refused(validate.words, bad, 's', 'f') == (
            f"s:f: '{bad}': contains an empty word (two spaces in a row, or "
            "a space at an end)")
    assert _refused(validate.words, 'a;b c', 's', 'f') == (
        "s:f: 'a;b': contains ';'; allowed: words of letters, digits and "
        "_@%+=:,./~-, separated by single spaces")
    assert _refused(validate.words, 5, 's', 'f') == 's:f: 5: expected a string'
