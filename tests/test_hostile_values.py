# SPDX-License-Identifier: BSD-3-Clause
"""Hostile values (issue 12, item 1): every value that reaches a job script
is one inert word or is refused, naming the field and the value, in
``pfsbench render`` and in the ReFrame checks' job scripts alike.

Each case is one row of the fault matrix: the option, the hostile value,
and the message a user sees.
"""

import pytest

from pfsbench import validate
from pfsbench.errors import ConfigError
from pfsbench.render import JobSite, render
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
