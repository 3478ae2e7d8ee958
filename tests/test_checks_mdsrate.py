# SPDX-License-Identifier: BSD-3-Clause
"""E16 with the real mdsrate (``mdsrate_e16``) and its command builder.

mdsrate cannot run here (Lustre's test program, in no registry): the dry
run on ``example_seed004``, whose partition declares ``extras.mdsrate``,
must show seed 004's three mdsrate runs and layout, and on ``local``,
which declares none, the case must skip naming the missing declaration.
"""

import json
import re
import shlex

import pytest

from conftest import run_reframe
from pfsbench.commands import mdsrate
from pfsbench.core.errors import ConfigError
from pfsbench.site.config import validate_extras
from test_checks_mdtest import MDTEST_CHECKS, _sbatch
from test_checks_ior import _job_scripts, _launched

#: example_seed004's declared binary (config/systems/example_seed004.py).
DECLARED = '/usr/lib64/lustre/tests/mpi/mdsrate'


def test_argv_uses_the_source_flags():
    argv = mdsrate.mdsrate_argv('stat', '/scratch/run/mdsrate', 304000,
                                executable=DECLARED)
    assert argv == [DECLARED, '--stat', '--nfiles', '304000', '--dirfmt',
                    '/scratch/run/mdsrate', '--filefmt', 'f%%d']


def test_job_runs_create_stat_unlink_in_order():
    phases = [phase for phase, _ in mdsrate.job_argvs('/d', 10)]
    assert phases == ['create', 'stat', 'unlink']


@pytest.mark.parametrize('operation, files', [('remove', 10), ('create', 0)])
def test_argv_refuses_what_mdsrate_refuses(operation, files):
    with pytest.raises(ValueError):
        mdsrate.mdsrate_argv(operation, '/d', files)


def _dry_run(tmp_path, system, *options):
    proc = run_reframe(['--system', system, '-c', MDTEST_CHECKS, '-n',
                        'mdsrate_e16', *options, '--dry-run'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    return proc.stdout


def test_seed004_dry_run_shows_the_three_mdsrate_runs(tmp_path):
    out = _dry_run(tmp_path, 'example_seed004:clients', '-P',
                   'clients=multi', '-P', 'np=16')
    (script,) = _job_scripts(tmp_path, 'example_seed004', 'clients',
                             'mdsrate_e16')
    # NP 16 in all, one on each of 16 clients, 304,000 files shared.
    assert (_sbatch(script, 'nodes'), _sbatch(script, 'ntasks'),
            _sbatch(script, 'ntasks-per-node')) == ('16', '16', '1')
    steps = re.findall(r"^echo 'pfsbench-step: begin (.+)'$", script, re.M)
    # The clients' CPU sampled around each run (the unlink's as the
    # stand-in's remove).
    assert steps == [f'{when} {cpu}' if when else phase
                     for phase, cpu in (('create', 'create'),
                                        ('stat', 'stat'),
                                        ('unlink', 'remove'))
                     for when in ('cpu before', '', 'cpu after')]
    launched = [shlex.split(line) for line in _launched(script)
                if 'mdsrate' in line]
    test_dir = launched[0][launched[0].index('--dirfmt') + 1]
    assert [words[1:] for words in launched] == [
        argv for _, argv in mdsrate.job_argvs(test_dir, 304000,
                                              executable=DECLARED)]
    assert test_dir.startswith('/mnt/lustre/pfsbench/')
    # The source's mdsrate tables are the references (NP 16, multi).
    assert 'file_stat: None ops/s (r:237378.41' in out


def test_figures_are_the_stand_ins_with_the_clients_cpu(tmp_path):
    proc = run_reframe(['--system', 'example_seed004:clients', '-c',
                        MDTEST_CHECKS, '-n', 'mdsrate_e16', '-P',
                        'clients=multi', '-P', 'np=16', '--describe'],
                       tmp_path)
    assert proc.returncode == 0, proc.stdout
    (case,) = json.loads(proc.stdout[proc.stdout.index('['):])
    assert sorted(case['perf_variables']) == sorted(
        [f'file_{p}' for p in ('create', 'stat', 'remove')] +
        [f'{p}_cpu_util{m}' for p in ('create', 'stat', 'remove')
         for m in ('', '_max')])


def test_skips_where_no_partition_declares_mdsrate(tmp_path):
    out = _dry_run(tmp_path, 'local', '-P', 'clients=single', '-P', 'np=1')
    assert '1 skipped' in out
    assert "declares no mdsrate: set the partition's extras.mdsrate" in out


@pytest.mark.parametrize('value, why', [
    ('mdsrate', "'mdsrate': expected an absolute path"),
    ('', "'': must not be empty"),
    (5, '5: expected a string'),
])
def test_the_declaration_is_validated(value, why):
    with pytest.raises(ConfigError) as err:
        validate_extras({'mdsrate': value}, 'sys.py', 'extras')
    assert str(err.value).startswith(f'sys.py:extras.mdsrate: {why}')


def test_an_absolute_declaration_is_accepted():
    validate_extras({'mdsrate': DECLARED}, 'sys.py', 'extras')
