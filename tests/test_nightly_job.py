# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench render nightly``: a wrong or missing driver partition is one
line naming file, key and value, exit 2, before anything is planned; the
rendered driver job is accepted by a real Slurm (``sbatch --test-only``
on the localhost cluster).  The worked site's job: test_systems_doc."""

import os
import shutil
import subprocess

import pytest

from conftest import REPO
from pfsbench.cli import main

SITE = '''
site_configuration = {{'systems': [{{
    'name': 'site', 'hostnames': ['^site-login$'], 'modules_system': 'nomod',
    'partitions': [{{
        'name': 'compute', 'scheduler': 'slurm', 'launcher': 'srun',
        'access': ['--partition={measured}', '--account=io'],
        'environs': ['builtin'], 'features': ['pfs', 'mpi'],
        'extras': {{'targets': [{{'name': 'scratch',
                                  'path': '/scratch/$USER'}}],
                    {extra}}},
    }}, {{
        'name': 'service', 'scheduler': {scheduler!r}, 'launcher': 'srun',
        'access': {access!r}, 'environs': ['builtin'],
        'time_limit': {driver_limit!r},
    }}],
}}]}}
'''


def _site(tmp_path, extra="'driver_partition': 'service'",
          scheduler='slurm', access=('--partition=service',),
          measured='compute', driver_limit='1d'):
    config = tmp_path / 'config'
    shutil.copytree(REPO / 'config', config)
    site = config / 'systems' / 'site.py'
    site.write_text(SITE.format(extra=extra, scheduler=scheduler,
                                access=list(access), measured=measured,
                                driver_limit=driver_limit))
    return config, site


def _render(capsys, config, *args):
    code = main(['render', 'nightly', '--config-dir', str(config),
                 '--system', 'site:compute', '--baseline', 'b', *args])
    out = capsys.readouterr()
    return code, out.out, out.err.splitlines()


KEY = 'systems[site].partitions[compute].extras.driver_partition'


@pytest.mark.parametrize('mistake,why', [
    (dict(extra=''), f"{KEY}: None: required by render nightly: the login "
     f"or service partition whose node runs ReFrame and the gate"),
    (dict(extra="'driver_partition': 'compute'"),
     f"{KEY}: 'compute': is the measured partition: the driver would hold "
     f"one of the nodes its cases need"),
    (dict(extra="'driver_partition': 'servce'"),
     f"{KEY}: 'servce': no such partition in site; known: compute, "
     f"service"),
    (dict(scheduler='local'),
     f"{KEY}: 'service': its scheduler is 'local': the driver is a Slurm "
     f"job"),
    (dict(access=('--account=io',)),
     "systems[site].partitions[service].access: ['--account=io']: names no "
     "--partition: the driver would go to Slurm's default partition"),
    (dict(access=('-p batch',), measured='batch'),
     f"{KEY}: 'service': is Slurm partition 'batch', as the measured "
     f"partition: the driver would hold one of the nodes its cases need"),
], ids=['missing', 'itself', 'unknown', 'local-scheduler', 'no-partition',
        'same-slurm-partition'])
def test_a_wrong_driver_partition_is_one_line_and_exit_2(tmp_path, capsys,
                                                         mistake, why):
    config, site = _site(tmp_path, **mistake)
    code, out, err = _render(capsys, config)
    assert (code, out) == (2, '')
    assert len(err) == 1
    assert err[0].startswith(f'pfsbench: error: '
                             f'{os.path.relpath(site)}:{why}') or \
        err[0].startswith(f'pfsbench: error: {site}:{why}'), err


@pytest.mark.parametrize('args,why', [
    (['--repeat', '0'], "<command line>:--repeat: 0:"),
    (['--tags', '$(id)'], "<command line>:--tags: '$(id)':"),
    (['--no-budget', '--nodes', '2'], "<command line>:--nodes: 2: needs a "
     "budget (there is none: --budget 0): --budget HOURS"),
    (['--budget', '-1'], "<command line>:--budget: -1.0: expected hours, "
                         "0 or more"),
    (['--budget', 'nan'], "<command line>:--budget: nan: expected hours, "
                          "0 or more"),
    (['--nodes', '2', '--plan', 'x.plan'],
     "<command line>:--nodes: 2: --plan x.plan sets the cases and repeats"),
    (['--budget', '2', '--plan', 'x.plan'],
     "<command line>:--plan: 'x.plan': give --budget or --plan, not both"),
])
def test_a_wrong_option_is_one_line_and_exit_2(tmp_path, capsys, args, why):
    config, _ = _site(tmp_path)
    code, out, err = _render(capsys, config, *args)
    assert (code, out) == (2, '')
    assert len(err) == 1 and err[0].startswith(f'pfsbench: error: {why}'), \
        err


@pytest.mark.slurm
def test_slurm_accepts_the_rendered_driver_job(tmp_path, capsys, localslurm):
    # localslurm has one Slurm partition, 'debug': the driver goes there,
    # the measured partition names another (never submitted: --test-only
    # asks slurmctld whether and when the job would start, and runs
    # nothing).
    config, _ = _site(tmp_path, access=('--partition=debug',),
                      measured='measured')
    code, out, err = _render(capsys, config, '--tags', 'E6', '--repeat',
                             '1', '-o', str(tmp_path / 'nightly.sbatch'),
                             '--write-plan', str(tmp_path / 'e6.plan'))
    assert code == 0, err
    proc = subprocess.run(['sbatch', '--test-only',
                           str(tmp_path / 'nightly.sbatch')],
                          env=dict(os.environ, **localslurm),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=60)
    assert proc.returncode == 0, proc.stdout
    assert 'to start at' in proc.stdout, proc.stdout
    # A --time shorter than the plan (7 E6 cases: 5.7 h at their
    # first-night estimates, 14 h at their 2 h limits).
    code, out, err = _render(capsys, config, '--tags', 'E6', '--repeat',
                             '1', '--time', '02:00:00', '--no-budget')
    assert (code, out) == (2, '')
    assert err == ["pfsbench: error: <command line>:--time: '02:00:00': "
                   "2.0 h is less than the nightly (7 case(s) x 1 "
                   "repeat(s): about 5.7 h, at most 14.0 h)"]


#: A value for each option of an experiment's job (render E6 ...), which
#: render nightly refuses.
EXPERIMENT_OPTIONS = {
    '--tasks-per-node': '4', '--sbatch-option': '--qos=io',
    '--point': 'nodes=2', '--output-dir': 'out', '--python': 'python3',
    '--block-size': '4096', '--count': '8', '--dd-mode': 'fdatasync',
    '--repeats': '2', '--cache-defeat': 'direct',
    '--drop-caches-command': 'true', '--processes': '2',
}


def test_every_experiment_option_is_listed_here():
    from pfsbench.cli import build_parser
    args = build_parser().parse_args(['render', 'nightly'])
    assert sorted(opt for opt, _, _ in args._experiment_only) == \
        sorted(EXPERIMENT_OPTIONS)


@pytest.mark.parametrize('option', sorted(EXPERIMENT_OPTIONS))
def test_an_experiment_option_is_refused_by_render_nightly(tmp_path, capsys,
                                                           option):
    config, _ = _site(tmp_path)
    value = EXPERIMENT_OPTIONS[option]
    code, out, err = _render(capsys, config, f'{option}={value}')
    assert (code, out) == (2, '')
    shown = [value] if option in ('--sbatch-option', '--point') else value
    if option in ('--tasks-per-node', '--block-size', '--count',
                  '--repeats', '--processes'):
        shown = int(value)
    assert err == [f"pfsbench: error: <command line>:{option}: {shown!r}: "
                   f"not an option of render nightly (the driver job's "
                   f"options come from extras.driver_partition)"]


@pytest.mark.parametrize('option,value', [
    ('--baseline', 'b'), ('--tags', 'E6'), ('--repeat', '2'),
    ('--scrontab', None), ('--runs', 'runs')])
def test_a_nightly_option_is_refused_by_an_experiment(capsys, option,
                                                      value):
    code = main(['render', 'E6', '--target', '/scratch', option,
                 *([value] if value else [])])
    out = capsys.readouterr()
    assert (code, out.out) == (2, '')
    shown = True if value is None else int(value) if option == '--repeat' \
        else value
    assert out.err.splitlines() == [
        f"pfsbench: error: <command line>:{option}: {shown!r}: an option "
        f"of render nightly, not of an experiment (E6)"]


# A render that gets as far as its plan lists the cases through ``reframe
# --describe`` (pfsbench/cli/nightly_plan.py): the reframe lane, by hand,
# as tests/lanes.py cannot see the command behind ``main``.
@pytest.mark.reframe
def test_a_repeat_below_the_calibrated_five_is_noted(tmp_path, capsys):
    # 2 repeats page beyond the budget on quiet nights: the job's header
    # and stderr say so; the default 5 says nothing.
    config, _ = _site(tmp_path)
    runs = str(tmp_path / 'runs')
    note = ('note: --repeat 2: 2 repeat(s) do not keep the page budget on '
            'quiet nights (measured: 5 do; docs/gate-evidence.md'
            '#at-the-nightlys-repeats-2-3-and-5-issue-45)')
    code, out, err = _render(capsys, config, '--repeat', '2', '--runs', runs,
                             '--no-budget')
    assert code == 0, err
    assert f'# {note}' in out.splitlines()
    assert f'pfsbench: {note}' in err
    code, out, err = _render(capsys, config, '--runs', runs, '--no-budget')
    assert code == 0, err
    assert 'page budget' not in out and not any('page budget' in ln
                                                for ln in err)


def test_the_plan_is_nightly_plans(tmp_path, capsys):
    # A node target naming the node: the IO500 and mdtest cases skip it
    # (only the streams families expand it), which a count by max_nodes
    # missed: the nightly's job asked 6 cases' time for 4.
    config, site = _site(tmp_path)
    site.write_text(site.read_text().replace(
        "'path': '/scratch/$USER'",
        "'path': '/local/$SLURMD_NODENAME', 'scope': 'node'"))
    runs = str(tmp_path / 'runs')
    code, out, err = _render(capsys, config, '--repeat', '2', '--runs', runs,
                             '--no-budget')
    assert code == 0, err
    plan = [line for line in out.splitlines()
            if line.startswith('# The plan: ')]
    code = main(['nightly-plan', '--config-dir', str(config), '--system',
                 'site:compute', '--repeat', '2', '--runs', runs,
                 '--no-budget'])
    listed = capsys.readouterr().out.splitlines()
    assert code == 0
    left_out = [line for line in listed if line.startswith('left out: ')]
    assert len(left_out) == 2 and all('names the node' in line
                                      for line in left_out), listed
    total = next(line for line in listed if line.startswith('total: '))
    # total: 4 case(s) x 2 repeat(s) = 8 job(s); ... 1.9 h one case at a
    # time (...; at most 16.0 h at their time limits)
    cases_, about = total.split(' = ')[0][len('total: '):], \
        total.split('node-hours, ')[1].split(' one case')[0]
    at_most = total.rsplit('at most ', 1)[1].split(' at their')[0]
    assert plan == [f'# The plan: {cases_}: about {about}, at most '
                    f'{at_most} (budget: none, --budget 0)']
    # First-night estimates (the streams' work at an undeclared file
    # system's rates), not 16 h of time limits.
    assert plan == ['# The plan: 4 case(s) x 2 repeat(s): about 1.9 h, '
                    'at most 16.0 h (budget: none, --budget 0)']


def _check_config(capsys, config):
    code = main(['check-config', '--config-dir', str(config), '--system',
                 'site:compute', '--tags', 'E6'])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err.splitlines()


@pytest.mark.parametrize('mistake,why', [
    (dict(extra="'driver_partition': 'servce'"),
     f"{KEY}: 'servce': no such partition in site"),
    (dict(extra="'driver_partition': 'compute'"),
     f"{KEY}: 'compute': is the measured partition"),
    (dict(driver_limit='1m'),
     "systems[site].partitions[service].time_limit: '1m': 0.0 h is less "
     "than the nightly ("),
], ids=['unknown', 'itself', 'too-short'])
def test_check_config_refuses_the_driver_render_nightly_refuses(
        tmp_path, capsys, monkeypatch, mistake, why):
    # One rule (pfsbench.plan.driver) in both commands: check-config said
    # ok for all three.
    monkeypatch.setenv('PFSBENCH_RUNS', str(tmp_path / 'runs'))
    config, _ = _site(tmp_path, extra="'driver_partition': 'service', "
                                      "'nightly_budget_hours': 2",
                      **{k: v for k, v in mistake.items() if k != 'extra'})
    if 'extra' in mistake:
        _site(tmp_path / 'again', **mistake)
        config = tmp_path / 'again' / 'config'
    code, _, rendered = _render(capsys, config)
    assert code == 2 and len(rendered) == 1 and why in rendered[0], rendered
    code, out, err = _check_config(capsys, config)
    assert code == 2, out
    assert err == rendered
    assert not any(line.startswith('site:compute: ok') for line in out), out


def test_check_config_names_the_driver_that_holds_the_nightly(
        tmp_path, capsys, monkeypatch):
    monkeypatch.setenv('PFSBENCH_RUNS', str(tmp_path / 'runs'))
    config, _ = _site(tmp_path)
    code, out, err = _check_config(capsys, config)
    assert (code, err) == (0, []), err
    (note,) = [line for line in out if 'driver:' in line]
    assert note.startswith('site:compute: driver: site:service runs the '
                           'nightly (') and \
        note.endswith('within its time_limit (1d)'), note


def test_more_nodes_than_the_partition_has_are_refused_by_both(tmp_path,
                                                              capsys):
    # render nightly said exit 0 to --nodes 200 on a 96-node partition.
    config, _ = _site(tmp_path, extra="'driver_partition': 'service', "
                                      "'max_nodes': 96")
    why = ("pfsbench: error: <command line>:--nodes: 200: site:compute has "
           "96 node(s) (extras.max_nodes): at most 96")
    code, out, err = _render(capsys, config, '--nodes', '200')
    assert (code, out, err) == (2, '', [why])
    code = main(['nightly-plan', '--config-dir', str(config), '--system',
                 'site:compute', '--nodes', '200'])
    assert (code, capsys.readouterr().err.splitlines()) == (2, [why])


# A render that gets as far as its plan lists the cases through ``reframe
# --describe`` (pfsbench/cli/nightly_plan.py): the reframe lane, by hand,
# as tests/lanes.py cannot see the command behind ``main``.
@pytest.mark.reframe
def test_a_refused_render_leaves_the_plan_and_the_job_as_they_were(
        tmp_path, capsys):
    # A refused render rewrote the plan an accepted one had written, so
    # that job then ran another plan than it was sized for.
    config, _ = _site(tmp_path, driver_limit='1m')
    plan, job = tmp_path / 'n.plan', tmp_path / 'n.sbatch'
    plan.write_text('the accepted plan\n')
    job.write_text('the accepted job\n')
    code, out, err = _render(capsys, config, '--tags', 'E6', '--budget', '2',
                             '--write-plan', str(plan), '-o', str(job),
                             '--runs', str(tmp_path / 'runs'))
    assert (code, out) == (2, '') and 'time_limit' in err[0], err
    assert plan.read_text() == 'the accepted plan\n'
    assert job.read_text() == 'the accepted job\n'
    assert not [p for p in tmp_path.iterdir() if 'partial' in p.name]
