# SPDX-License-Identifier: BSD-3-Clause
"""docs/systems.md's worked site "hawk", built from the page's own code
block, on a machine without Lmod: check-config, ``reframe -l``, dry runs
of E6 at 64 nodes and E11 at 36 tasks, ``render --system`` of the same
jobs (the same job scripts, line by line) and the nightly plan."""

import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, job_script, reframe_bin, run_reframe
from pfsbench.cli.nightly_plan import read_plan

VENV_BIN = os.path.dirname(sys.executable)
#: ReFrame writes module loads without asking Lmod (not installed here).
NO_LMOD = {'RFM_RESOLVE_MODULE_CONFLICTS': '0', 'USER': 'alice'}


def hawk_block():
    """The Python code block of the page's worked-site section."""
    text = (REPO / 'docs' / 'systems.md').read_text()
    section = text[text.index('## A worked site: hawk'):]
    return re.search(r'```python\n(.*?)```', section, re.S).group(1)


@pytest.fixture(scope='module')
def hawk(tmp_path_factory):
    """(config dir, runs dir, environment) with the docs' hawk.py."""
    tmp = tmp_path_factory.mktemp('hawk')
    config = tmp / 'config'
    shutil.copytree(REPO / 'config', config)
    (config / 'systems' / 'hawk.py').write_text(hawk_block())
    env = dict(os.environ, PFSBENCH_RUNS=str(tmp / 'runs'), **NO_LMOD)
    for name in ('PFSBENCH_SCRATCH', 'PFSBENCH_SPACK_ENV', 'LMOD_CMD'):
        env.pop(name, None)
    return config, tmp / 'runs', env


def pfsbench(args, env):
    proc = subprocess.run([os.path.join(VENV_BIN, 'pfsbench'), *args],
                          cwd=REPO, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    return proc.returncode, proc.stdout, proc.stderr


def test_check_config_and_listing(hawk):
    config, runs, env = hawk
    code, out, err = pfsbench(['check-config', '--config-dir', str(config),
                               '--system', 'hawk:compute', '--tags',
                               'nightly'], env)
    assert code == 0, out + err
    assert out.startswith('hawk:compute: ok (') and \
        'targets and tools not checked: this host' in out
    proc = run_reframe(['--system', 'hawk:compute', '-c', 'reframe-checks',
                        '-R', '-l'], runs, env=NO_LMOD,
                       config=config / 'settings.py')
    assert proc.returncode == 0, proc.stdout
    assert '- dd_stream_per_node %nodes=64' in proc.stdout
    assert '- ior_mpiio_fpp_bandwidth %tasks=36' in proc.stdout


def job_lines(text):
    """The lines that make a job, with the run directory as ``$RUN_DIR``:
    no comments, job name, output files or run-dir set-up; the time in
    seconds (ReFrame writes ``2:0:0``, render ``02:00:00``)."""
    rm_line = [ln for ln in text.splitlines() if ln.startswith('rm -rf ')]
    run_dir = rm_line[-1][len('rm -rf '):].strip('\'"')
    text = re.sub("'?" + re.escape(run_dir) + r"([^' ]*)'?", r'$RUN_DIR\1',
                  text)
    text = re.sub(r'"(\$RUN_DIR[^" ]*)"', r'\1', text)
    lines = []
    for line in text.splitlines():
        if line.startswith('#') and not line.startswith('#SBATCH '):
            continue
        if re.match(r'#SBATCH --(job-name|output|error)=', line) or \
                line.startswith(('RUN_DIR=', 'mkdir $RUN_DIR')):
            continue
        time = re.match(r'#SBATCH --time=(\d+):(\d+):(\d+)$', line)
        if time:
            h, m, s = (int(g) for g in time.groups())
            line = f'#SBATCH --time={h * 3600 + m * 60 + s}s'
        lines.append(line)
    return run_dir, lines


@pytest.mark.parametrize('reframe_args,test,render_args', [
    (['-c', 'reframe-checks/dd', '-n', 'dd_stream_per_node', '-P',
      'nodes=64'], 'dd_stream_per_node', ['E6', '--nodes', '64']),
    (['-c', 'reframe-checks/ior/ior_mpiio_fpp.py', '-P', 'tasks=36'],
     'ior_mpiio_fpp_bandwidth',
     ['E11', '--nodes', '3', '--tasks-per-node', '12']),
], ids=['E6-64-nodes', 'E11-36-tasks'])
def test_rendered_job_is_the_dry_run_job(hawk, tmp_path, reframe_args, test,
                                         render_args):
    config, _, env = hawk
    proc = run_reframe(['--system', 'hawk:compute', *reframe_args,
                        '--dry-run'], tmp_path, env=NO_LMOD,
                       config=config / 'settings.py')
    assert proc.returncode == 0, proc.stdout
    dry = job_script(tmp_path, 'hawk', 'compute', test)
    code, rendered, err = pfsbench(['render', *render_args, '--system',
                                    'hawk:compute', '--config-dir',
                                    str(config)], env)
    assert code == 0, err
    run_dir, dry_lines = job_lines(dry)
    _, rendered_lines = job_lines(rendered)
    assert rendered_lines == dry_lines
    # The same target: ReFrame expands $USER here, the script on hawk.
    target = re.search(r'^RUN_DIR="(.*)/pfsbench-E', rendered, re.M).group(1)
    assert os.path.dirname(run_dir) == target.replace('$USER', 'alice') \
        == '/lustre/hawk/scratch/alice/pfsbench'
    for line in ('#SBATCH --account=io-team', '#SBATCH --qos=benchmark',
                 '#SBATCH --exclusive', 'module load openmpi/4.1.6',
                 'export SLURM_MPI_TYPE=pmix'):
        assert line in rendered_lines


def test_nightly_plan_fits_the_night_window(hawk):
    # Issue 36: without --budget the worked site's nightly planned 6 cases
    # x 5 repeats, 4.6 h at first-night estimates; the night has a window
    # (extras.nightly_budget_hours, default 2 h).
    config, runs, env = hawk
    code, out, err = pfsbench(['nightly-plan', '--config-dir', str(config),
                               '--system', 'hawk:compute', '--runs',
                               str(runs)], env)
    assert code == 0, err
    assert out.splitlines()[:2] == [
        'nightly on hawk:compute within 2 h on 200 node(s): tags nightly, '
        '5 repeat(s)',
        'budget: 2 h, the default night window '
        '(extras.nightly_budget_hours; --budget to change)']
    # At the calibrated 5 repeats 4 of the 6 families fit the 2 h, and
    # the plan names the two it leaves out.
    jobs, hours, covered, families = _budget_total(out)
    assert hours <= 2.0 and (covered, families, jobs) == (4, 6, 20)
    assert 'families: 4 of 6 (not io500, iozone)' in out


def test_nightly_plan(hawk):
    config, runs, env = hawk
    code, out, err = pfsbench(['nightly-plan', '--config-dir', str(config),
                               '--system', 'hawk:compute', '--runs',
                               str(runs), '--no-budget'], env)
    assert code == 0, err
    assert out.startswith('nightly on hawk:compute: tags nightly, '
                          '5 repeat(s)\nbudget: none (--budget 0): the '
                          'whole selection\n')
    # The nightly streams at 16 nodes (the 64-node point is weekly).
    # Before any history: its work at Lustre's default rates, not its 2 h
    # time limit (issue 36).
    assert re.search(r'^dd_stream_per_node %nodes=16 +16 +10\.8 m  first '
                     r'night: work at lustre default rates$', out, re.M)
    # 6 cases x 5 repeats: 4.6 h, no longer 60 h (IO500's five 5-min
    # stonewalls a repeat are half of it).
    total = next(ln for ln in out.splitlines() if ln.startswith('total: '))
    assert '30 job(s); 40.0 node-hours, 4.6 h one case at a time' in total
    assert 'dd_stream_per_node %nodes=64' not in out
    code, out, err = pfsbench(['nightly-plan', '--config-dir', str(config),
                               '--system', 'hawk'], env)
    assert code == 2 and ("give NAME:PARTITION (hawk:compute, "
                          "hawk:service, hawk:login)") in err


def _render_nightly(hawk, *args, config=None):
    config_dir, runs, env = hawk
    return pfsbench(['render', 'nightly', '--config-dir',
                     str(config or config_dir), '--system', 'hawk:compute',
                     '--baseline', 'pre-upgrade', '--runs', str(runs),
                     *args], env)


# render nightly plans through reframe --describe and --dry-run.
@pytest.mark.reframe
def test_nightly_job_runs_its_driver_on_the_service_partition(hawk,
                                                              tmp_path):
    plan = tmp_path / 'e6.plan'
    code, out, err = _render_nightly(hawk, '--tags', 'E6', '--repeat', '1',
                                     '--write-plan', str(plan))
    assert code == 0, err
    lines = out.splitlines()
    # The driver partition's access: partition, account and QoS; nothing
    # of the measured partition (its nodes are for the cases).
    options = [ln for ln in lines if ln.startswith('#SBATCH')]
    for line in ('#SBATCH --partition=service', '#SBATCH --account=io-team',
                 '#SBATCH --qos=benchmark', '#SBATCH --nodes=1',
                 '#SBATCH --ntasks=1'):
        assert line in options
    assert not [ln for ln in options if 'compute' in ln or
                'exclusive' in ln]
    # Seven E6 cases at their first-night estimates (their work at Lustre's
    # default rates, not their 2 h time limits), a quarter and a minute
    # more; within service's 1 day.
    # They fit the night window whole.
    assert '#SBATCH --time=02:09:22' in options
    assert '# The plan: 7 case(s) x 1 repeat(s): about 1.7 h, at most ' \
        '14.0 h, within 2 h: the default night window ' \
        '(extras.nightly_budget_hours; --budget to change)' in lines
    assert '# --time: the estimate + 25% + 1 min' in lines
    assert lines[-1] == (
        f'exec {REPO}/scripts/nightly.sh --system hawk:compute --baseline '
        f'pre-upgrade --target "/lustre/hawk/scratch/$USER/pfsbench" '
        f'--plan {plan}')
    assert len(read_plan(str(plan))[3]) == 7
    code, out, err = _render_nightly(hawk, '--tags', 'E6', '--repeat', '1',
                                     '--no-budget', '--scrontab')
    assert code == 0, err
    assert '#SCRON --partition=service' in out.splitlines()
    assert out.splitlines()[-1] == (
        f'0 2 * * * {REPO}/scripts/nightly.sh --system hawk:compute '
        f'--baseline pre-upgrade --target '
        f'"/lustre/hawk/scratch/$USER/pfsbench" --tags E6 --repeat 1')
    assert '# The plan: 7 case(s) x 1 repeat(s): about 1.7 h, at most ' \
        '14.0 h (budget: none, --budget 0)' in out.splitlines()


# render nightly plans through reframe --describe and --dry-run.
@pytest.mark.reframe
def test_nightly_job_that_cannot_fit_is_refused_with_both_numbers(
        hawk, tmp_path):
    config_dir, _, _ = hawk
    config = tmp_path / 'config'
    shutil.copytree(config_dir, config)
    hawk_py = config / 'systems' / 'hawk.py'
    hawk_py.write_text(hawk_py.read_text().replace("'time_limit': '1d'",
                                                   "'time_limit': '1h'"))
    code, out, err = _render_nightly(hawk, '--tags', 'E6', '--repeat', '1',
                                     '--write-plan',
                                     str(tmp_path / 'e6.plan'),
                                     config=config)
    assert (code, out) == (2, '')
    assert err.splitlines() == [
        f"pfsbench: error: {hawk_py}:systems[hawk].partitions[service]."
        f"time_limit: '1h': 1.0 h is less than the nightly (7 case(s) x 1 "
        f"repeat(s): about 1.7 h, at most 14.0 h): fewer --repeat or "
        f"--tags, or a longer time_limit"]
    # Longer than a night: the next night's would meet it.
    code, out, err = _render_nightly(hawk, '--tags', 'E6', '--repeat', '15',
                                     '--no-budget')
    assert code == 2 and err.splitlines() == [
        "pfsbench: error: <command line>:--repeat: 15: the nightly (7 "
        "case(s) x 15 repeat(s): about 25.7 h, at most 210.0 h) is longer "
        "than the 24.0 h between two nights: fewer --repeat or --tags"]


def _budget_total(out):
    """(jobs, hours, families line) of a --budget plan's total line."""
    total = next(ln for ln in out.splitlines() if ln.startswith('total: '))
    m = re.match(r'total: (\d+) case\(s\) x (\d+) repeat\(s\) = (\d+) '
                 r'job\(s\); [\d.]+ node-hours, ([\d.]+) h one case at a '
                 r'time; families: (\d+) of (\d+)( \(not .*\))?$', total)
    assert m, total
    cases, repeats, jobs, hours, covered, families, _ = m.groups()
    return int(jobs), float(hours), int(covered), int(families)


def test_nightly_budget_fits_the_window(hawk):
    # The worked site's default nightly fits 2 h on 16 nodes at 5 repeats
    # with 4 of its 6 families; 1 h is a smaller plan, 3 families at 5.
    config, runs, env = hawk
    found = {}
    for budget in ('2', '1'):
        code, out, err = pfsbench(['nightly-plan', '--config-dir',
                                   str(config), '--system', 'hawk:compute',
                                   '--runs', str(runs), '--budget', budget,
                                   '--nodes', '16'], env)
        assert code == 0, err
        found[budget] = _budget_total(out)
    jobs, hours, covered, families = found['2']
    assert hours <= 2.0 and (covered, families) == (4, 6)
    small_jobs, small_hours, covered, families = found['1']
    assert small_hours <= 1.0 and small_jobs < jobs
    assert (covered, families) == (3, 6)


def test_dry_run_warns_about_an_unset_variable_in_a_target(hawk, tmp_path):
    config, _, env = hawk
    env = dict(env, PFSBENCH_RUNS=str(tmp_path))
    del env['USER']
    proc = subprocess.run(
        [reframe_bin(), '-C', str(config / 'settings.py'), '--system',
         'hawk:compute', '-c', 'reframe-checks/dd', '-n',
         'dd_stream_per_node', '-P', 'nodes=64', '--dry-run'], cwd=REPO,
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        universal_newlines=True)
    assert proc.returncode == 0, proc.stdout
    assert ("WARNING: hawk:compute: extras.targets[scratch].path: "
            "'/lustre/hawk/scratch/$USER/pfsbench': $USER not set here: the "
            "dry-run job script writes under "
            "'/lustre/hawk/scratch/$USER/pfsbench' literally") in proc.stdout
