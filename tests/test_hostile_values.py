# SPDX-License-Identifier: BSD-3-Clause
"""Hostile values (issue 12, item 1): every value that reaches a job script
is one inert word or is refused, naming the field and the value, in
``pfsbench render`` and in the ReFrame checks' job scripts alike.

Each case is one row of the fault matrix: the option, the hostile value,
and the message a user sees.
"""

import shutil

import pytest

from conftest import CHECKS, REPO, run_reframe
from pfsbench.core.errors import ConfigError
from pfsbench.render import JobSite, render
from pfsbench.site import validate
from test_render import _cli

TARGET = '/lustre/scratch/pfsbench'

#: (id, render options, the injected text, what the message says).
RENDER_REFUSED = [
    ('target-command-substitution',
     ['--target', '/lustre/scratch/$(id)'], '$(id)',
     "--target: '/lustre/scratch/$(id)': contains command substitution"),
    ('target-backtick', ['--target', '/lustre/`id`'], '`id`',
     "--target: '/lustre/`id`': contains command substitution"),
    ('target-semicolon', ['--target', '/lustre/x;id'], ';id',
     "--target: '/lustre/x;id': contains ';'"),
    ('target-newline', ['--target', '/lustre/x\nid'], '\nid',
     "--target: '/lustre/x\\nid': contains a newline"),
    ('target-quote', ['--target', '/x"y'], 'x"y',
     "--target: '/x\"y': contains '\"'"),
    ('target-default-expansion', ['--target', '/x/${U:-$(id)}'], '$(id)',
     "'$' not followed by NAME or {NAME}"),
    ('sbatch-option-newline',
     ['--target', TARGET, '--sbatch-option=--qos=io\necho pwned'],
     'echo pwned', "--sbatch-option: '--qos=io\\necho pwned': contains a "
                   "newline"),
    ('sbatch-option-not-an-option',
     ['--target', TARGET, '--sbatch-option=qos=io'], 'qos=io',
     "--sbatch-option: 'qos=io': expected one option"),
    ('sbatch-option-second-option',
     ['--target', TARGET, '--sbatch-option=--qos=io --nodes=1000'],
     '--nodes=1000', "--sbatch-option: '--qos=io --nodes=1000': contains a "
                     "space"),
    ('sbatch-option-dollar',
     ['--target', TARGET, '--sbatch-option=--comment=$(id)'], '$(id)',
     "--sbatch-option: '--comment=$(id)': contains '$'"),
    ('nodes-zero', ['--target', TARGET, '--nodes', '0'], '--nodes=0',
     "--nodes: 0: must be at least 1"),
    ('nodes-negative', ['--target', TARGET, '--nodes', '-4'], '--nodes=-4',
     "--nodes: -4: must be at least 1"),
    ('tasks-per-node-zero', ['--target', TARGET, '--tasks-per-node', '0'],
     '--ntasks-per-node=0', "--tasks-per-node: 0: must be at least 1"),
    ('count-negative', ['--target', TARGET, '--count', '-5'], 'count=-5',
     "--count: -5: must be at least 1"),
    ('block-size-negative', ['--target', TARGET, '--block-size', '-1'],
     'bs=-1', "--block-size: -1: must be at least 1"),
    ('repeats-zero', ['--target', TARGET, '--repeats', '0'], '--repeats 0',
     "--repeats: 0: must be at least 1"),
    ('time-banana', ['--target', TARGET, '--time', 'banana'], 'banana',
     "--time: 'banana': expected a Slurm time: MM, MM:SS, HH:MM:SS, D-HH, "
     "D-HH:MM or D-HH:MM:SS"),
    ('time-zero', ['--target', TARGET, '--time', '0'], '--time=0',
     "--time: '0': must be more than zero"),
    ('time-out-of-range', ['--target', TARGET, '--time', '1:75:00'],
     '1:75:00', "--time: '1:75:00': a Slurm time"),
    ('python-newline', ['--target', TARGET, '--python', 'python3\nid'],
     '\nid', "--python: 'python3\\nid': contains a newline"),
]


@pytest.mark.parametrize('options,injected,message',
                         [c[1:] for c in RENDER_REFUSED],
                         ids=[c[0] for c in RENDER_REFUSED])
def test_render_refuses_hostile_value(tmp_path, options, injected, message):
    script = tmp_path / 'e6.sbatch'
    code, out, err = _cli(['render', 'E6', *options, '-o', str(script)])
    assert code == 2, out
    assert err.startswith('pfsbench: error: <command line>:')
    assert message in err and err.count('\n') == 1
    assert 'Traceback' not in err
    assert not script.exists() and injected not in out


def test_render_expands_plain_variables_on_the_cluster():
    # $USER and ${SCRATCH} stay: the job's shell expands them, inside the
    # double quotes of RUN_DIR.
    text = render('E6', '/lustre/${SCRATCH}/$USER/pfsbench', nodes=1)
    assert 'RUN_DIR="/lustre/${SCRATCH}/$USER/pfsbench/pfsbench-E6-' in text


def test_render_keeps_constraint_syntax_in_sbatch_options():
    # '&' and brackets are Slurm's --constraint syntax; #SBATCH lines are
    # read by sbatch, not run by a shell.
    text = render('E6', TARGET, nodes=2, time='1-12',
                  sbatch_options=['--constraint=[ib&haswell]', '-A proj'])
    assert '#SBATCH --constraint=[ib&haswell]\n#SBATCH -A proj\n' in text
    assert '#SBATCH --time=1-12\n' in text


@pytest.mark.parametrize('field,site,message', [
    ('access', JobSite(name='x:y', access=('--qos=io\nid',)),
     "x:y:access.0: '--qos=io\\nid': contains a newline"),
    ('modules', JobSite(name='x:y', modules=('gcc;id',)),
     "x:y:modules.0: 'gcc;id': contains ';'"),
    ('env_vars', JobSite(name='x:y', env_vars=(('A', '$(id)'),)),
     "x:y:env_vars.A: '$(id)': contains command substitution"),
])
def test_render_refuses_hostile_site_value(field, site, message):
    # A JobSite comes from a validated config; render checks it again, so
    # no caller can put an unchecked value into a script.
    with pytest.raises(ConfigError) as err:
        render('E6', TARGET, site=site)
    assert message in str(err.value)


@pytest.mark.parametrize('value', [
    '90', '30:00', '02:00:00', '2-12', '2-12:30', '2-12:30:59'])
def test_slurm_time_formats_accepted(value):
    assert validate.slurm_time(value, 'x', 'time') == value


@pytest.mark.parametrize('value', ['1:2:3:4', '25:00:00x', '1-24', '-1',
                                   '1.5', '', '00:00:00'])
def test_slurm_time_refused(value):
    with pytest.raises(ConfigError, match="x:time: "):
        validate.slurm_time(value, 'x', 'time')


# Through ReFrame: the same values as -S/-P ------------------------------

DD = str(CHECKS / 'dd' / 'dd_streaming.py')
IOR = str(CHECKS / 'ior' / 'ior_posix_n_to_n.py')
MDS = str(CHECKS / 'mdtest' / 'mds_survey_e13.py')
#: How each case is selected: (system:partition, check file, -n, more).
ON = {
    'dd': ('local:default', DD, 'dd_streams_one_node',
           ['-P', 'streams_per_node=1']),
    'dd-nodes': ('local:default', DD, 'dd_stream_per_node',
                 ['-P', 'nodes=1']),
    'ior': ('localslurm:srun', IOR, 'ior_posix_n_to_n_bandwidth',
            ['-P', 'transfer_size=1m', '-P', 'tasks_per_node=1']),
    'mds': ('example_seed000:mds', MDS, 'mds_survey_rates', []),
}

#: (id, family, -S/-P option, injected text, what the message says).
REFRAME_REFUSED = [
    ('nodes-zero-flexible', 'dd', ['-P', 'nodes=0'], None,
     "nodes: 0: must be at least 1"),
    ('nodes-negative', 'ior', ['-S', 'nodes=-4'], '--nodes=-4',
     "nodes: -4: must be at least 1"),
    ('streams-zero', 'dd-nodes', ['-S', 'streams_per_node=0'], None,
     "streams_per_node: 0: must be at least 1"),
    ('count-negative', 'dd', ['-S', 'count=-5'], 'count=-5',
     "count: -5: must be at least 1"),
    ('block-size-negative', 'dd', ['-S', 'block_size=-1'], 'bs=-1',
     "block_size: -1: must be at least 1"),
    ('ior-block-size-command', 'ior', ['-S', 'block_size=1g;id'], ';id',
     "block_size: '1g;id': expected a size above 0"),
    ('ior-segments-zero', 'ior', ['-S', 'segments=0'], '-s 0',
     "segments: 0: must be at least 1"),
    ('target-command-substitution', 'ior', ['-S', 'target=$(id)'], '$(id)',
     "target: '$(id)': contains command substitution"),
    ('tool-binary-semicolon', 'ior', ['-S', 'tool_binary=/opt/ior;id'],
     ';id', "tool_binary: '/opt/ior;id': contains ';'"),
    ('test-file-newline', 'ior', ['-S', 'test_file_name=f\nid'], '\nid',
     "test_file_name: 'f\\nid': contains a newline"),
    ('mdt-targets-quote', 'mds', ['-S', 'mdt_targets=x";id;"'], 'id;',
     "mdt_targets: 'x\";id;\"': contains '\"'"),
    ('flexible-num-tasks', 'mds', ['-S', 'num_tasks=0'], None,
     "num_tasks: 0: must be at least 1"),
    ('time-limit-zero', 'dd', ['-S', 'time_limit=0s'], None,
     "time_limit: 0"),
    ('job-option-newline', 'ior', ['-J', 'qos=io\necho pwned'],
     'echo pwned', "job option: '--qos=io\\necho pwned': contains a "
                   "newline"),
    ('job-option-second-option', 'ior', ['-J', 'qos=io --nodes=999'],
     '--nodes=999', "job option: '--qos=io --nodes=999': contains a "
                    "space"),
]


@pytest.mark.parametrize('family,option,injected,message',
                         [c[1:] for c in REFRAME_REFUSED],
                         ids=[c[0] for c in REFRAME_REFUSED])
def test_reframe_refuses_hostile_value(tmp_path, family, option, injected,
                                       message):
    system, checks, name, select = ON[family]
    proc = run_reframe(['--system', system, '-c', checks, '-n', name,
                        *select, *option, '--dry-run'], tmp_path)
    assert proc.returncode != 0, proc.stdout
    assert message in proc.stdout
    assert 'Traceback' not in proc.stdout
    # The case failed before ReFrame wrote its job script.
    assert not list(tmp_path.glob('**/rfm_job.sh')), proc.stdout
    if injected is not None:
        for path in tmp_path.glob('**/*.sh'):
            assert injected not in path.read_text(), path


@pytest.mark.parametrize('name,value,message', [
    ('survey_tests', ['create', '`id`'],
     "case:survey_tests: '`id`': contains command substitution"),
    ('mdt_targets', 'lustre-MDT0000 lustre-MDT0001', None),
    ('mdt_targets', 'a  b', "case:mdt_targets: 'a  b': contains an empty"),
    ('stripe_count', -1, None),
    ('stripe_count', -2, "case:stripe_count: -2: must be at least -1"),
    ('stonewall_s', 0, None),
    ('barrier_timeout', 0.0, "case:barrier_timeout: 0.0: must be more"),
    ('hold_s', 0.0, None),
    ('hold_s', -1.5, "case:hold_s: -1.5: must be a finite number, 0 or"),
    ('hold_s', float('nan'), "case:hold_s: nan: must be a finite number"),
    ('transfer_size', '47008', None),
    ('stripe_size', '0', None),
    ('stripe_size', '0k', "case:stripe_size: '0k': expected a size of 0 or"),
    ('transfer_size', '0', "case:transfer_size: '0': expected a size above"),
    ('easy_block_size', '9920000m', None),
])
def test_check_value_rules(name, value, message):
    # Lists are checked item by item; words in spaced lists one by one;
    # Lustre's -1 stripe count stays possible.
    if message is None:
        validate.check_value(name, value, 'case')
        return

    with pytest.raises(ConfigError) as err:
        validate.check_value(name, value, 'case')
    assert message in str(err.value)


def test_reframe_keeps_good_values(tmp_path):
    # The defaults and plain values pass: the case renders its job.
    system, checks, name, select = ON['ior']
    proc = run_reframe(['--system', system, '-c', checks, '-n', name,
                        *select, '-S', 'block_size=64m', '-S', 'nodes=1',
                        '--dry-run'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    (script,) = tmp_path.glob('**/rfm_job.sh')
    assert '-b 64m' in script.read_text()


def test_reframe_refuses_time_banana(tmp_path):
    # ReFrame refuses it itself, before any case exists.
    system, checks, name, select = ON['dd']
    proc = run_reframe(['--system', system, '-c', checks, '-n', name,
                        *select, '-S', 'time_limit=banana', '--dry-run'],
                       tmp_path)
    assert proc.returncode != 0
    assert 'invalid duration: banana' in proc.stdout
    assert not list(tmp_path.glob('**/rfm_job.sh'))


def test_reframe_refuses_hostile_target_path(tmp_path):
    # PFSBENCH_SCRATCH becomes local's target: refused as the configuration
    # loads, before any case.
    proc = run_reframe(['-c', DD, '-n', 'dd_streams_one_node', '-P',
                        'streams_per_node=1', '--dry-run'], tmp_path,
                       env={'PFSBENCH_SCRATCH': '/var/tmp/x/$(id)'})
    assert proc.returncode != 0
    assert ("pfsbench: error: systems/local.py:systems[local]."
            "partitions[default].extras.targets[scratch].path: '/var/tmp/x/$(id)'"
            ": contains command substitution") in proc.stdout
    assert not list(tmp_path.glob('**/rfm_job.sh'))


# The site configuration: check-config and ReFrame ------------------------

SITE = '''
site_configuration = {{'systems': [{{
    'name': 'site', 'hostnames': ['^never$'], 'modules_system': 'tmod4',
    'partitions': [{{
        'name': 'compute', 'scheduler': 'slurm', 'launcher': 'srun',
        'environs': ['builtin'], 'features': ['pfs', 'mpi'],
        'access': {access!r}, 'env_vars': {env_vars!r},
        'modules': {modules!r},
    }}],
}}]}}
'''

#: (id, the partition's values, what check-config says).
SITE_REFUSED = [
    ('access-newline',
     dict(access=['--partition=compute\n#SBATCH --nodes=999']),
     "systems[site].partitions[compute].access.0: '--partition=compute\\n"
     "#SBATCH --nodes=999': contains a newline"),
    ('account-command',
     dict(access=['--account=$(id)']),
     "access.0: '--account=$(id)': contains '$'"),
    ('qos-two-options',
     dict(access=['--qos=io --nodes=999']),
     "access.0: '--qos=io --nodes=999': contains a space in its value"),
    ('partition-not-an-option', dict(access=['compute']),
     "access.0: 'compute': expected one option"),
    ('env-value-command', dict(env_vars=[['SLURM_MPI_TYPE', 'pmix;id']]),
     "env_vars.SLURM_MPI_TYPE: 'pmix;id': contains ';'"),
    # (ReFrame's own schema refuses it first.)
    ('env-name', dict(env_vars=[['A B', '1']]),
     "env_vars.0.0: 'A B': 'A B' does not match"),
    ('module-backtick', dict(modules=['ior/`id`']),
     "modules.0: 'ior/`id`': contains command substitution"),
]


def _site(tmp_path, access=(), env_vars=(), modules=()):
    config = tmp_path / 'config'
    shutil.copytree(REPO / 'config', config)
    (config / 'systems' / 'site.py').write_text(SITE.format(
        access=list(access), env_vars=list(env_vars), modules=list(modules)))
    return config


@pytest.mark.parametrize('values,message', [c[1:] for c in SITE_REFUSED],
                         ids=[c[0] for c in SITE_REFUSED])
def test_check_config_refuses_hostile_site_value(tmp_path, values, message):
    config = _site(tmp_path, **values)
    code, out, err = _cli(['check-config', '--config-dir', str(config)])
    assert code == 2
    assert message in out + err, out + err
    assert 'Traceback' not in err


def test_reframe_refuses_hostile_site_value(tmp_path):
    # The same site file stops reframe as the configuration loads: no case
    # of any system runs.
    config = _site(tmp_path, access=['--partition=compute\n#SBATCH -N 999'])
    proc = run_reframe(['-c', DD, '-n', 'dd_streams_one_node', '-P',
                        'streams_per_node=1', '--dry-run'], tmp_path / 'runs',
                       config=config / 'settings.py')
    assert proc.returncode != 0
    assert ("access.0: '--partition=compute\\n#SBATCH -N 999': contains a "
            "newline") in proc.stdout
    assert not list(tmp_path.glob('runs/**/rfm_job.sh'))
