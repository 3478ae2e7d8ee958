# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench nightly-plan``: the cases, repeats and cost of a nightly,
with durations from earlier runs' reports."""

import contextlib
import io
import subprocess

from conftest import CHECKS, REPO, run_reframe
from pfsbench.cli import main


def _plan(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(['nightly-plan', *args])
    return code, out.getvalue().splitlines(), err.getvalue()


def test_a_system_without_a_partition_is_refused():
    code, out, err = _plan('--system', 'localslurm')
    assert code == 2 and out == []
    assert err == ("pfsbench: error: <command line>:--system: 'localslurm':"
                   " give NAME:PARTITION (localslurm:srun, localslurm:mpirun"
                   "): a system's partitions run different jobs\n")


def test_an_earlier_run_gives_the_estimate(tmp_path):
    proc = run_reframe(['-c', str(CHECKS / 'dd'), '-n',
                        'dd_streams_one_node', '-P', 'streams_per_node=1',
                        '-r'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    code, out, err = _plan('--system', 'local:default', '--tags', 'E9',
                           '--tags', 'dd', '--repeat', '3', '--runs',
                           str(tmp_path))
    assert code == 0, err
    assert out[0] == 'nightly on local:default: tags E9, dd, 3 repeat(s)'
    rows = {' '.join(line.split()[:2]): line for line in out
            if line.startswith('dd_')}
    assert len(rows) == 12      # streams_per_node 1..12, on one node
    assert rows['dd_streams_one_node %streams_per_node=1'].endswith(
        '1 earlier run(s)')
    assert rows['dd_streams_one_node %streams_per_node=2'].endswith(
        'time limit')
    # 11 cases at their 2 h limit, one from history, 3 repeats.
    total = out[-2]
    assert total.startswith('total: 12 case(s) x 3 repeat(s) = 36 job(s)')
    assert '(1 of 12 case(s) from history' in total
    assert 'at most 72.0 h)' in total
    assert out[-1].startswith('warning: the estimate is more than the 6.0 h '
                              'that slurm-templates/nightly-gate.sbatch')


def test_nightly_script_refuses_a_system_without_a_partition():
    proc = subprocess.run(
        ['bash', str(REPO / 'scripts' / 'nightly.sh'), '--system', 'hawk',
         '--baseline', 'pre', '--target', '/lustre/scratch'], cwd=REPO,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True)
    assert proc.returncode == 2 and proc.stdout == ''
    assert proc.stderr == ('nightly.sh: --system hawk: give NAME:PARTITION '
                           '(pfsbench nightly-plan --system NAME:PARTITION '
                           'shows what it runs)\n')


def test_zero_repeats_and_an_empty_selection_are_refused():
    code, out, err = _plan('--system', 'local:default', '--repeat', '0')
    assert code == 2 and out == []
    assert err == ("pfsbench: error: <command line>:--repeat: 0: expected "
                   "a whole number of at least 1\n")
    code, out, err = _plan('--system', 'local:default', '--tags',
                           'nosuchtag')
    assert code == 2 and out == []
    assert err.startswith("pfsbench: error: <command line>:--tags: "
                          "'nosuchtag': selects no case on local:default")


def test_an_experiment_tag_selects_that_experiment_alone():
    # reframe -t E1 is a pattern that E10-E19 match too.
    code, out, err = _plan('--system', 'example_lustre:compute', '--tags',
                           'E1', '--repeat', '1')
    assert code == 0, err
    names = {line.split()[0] for line in out[2:]
             if line.startswith('mdtest_')}
    assert names == {'mdtest_e1_core_scaling'}
    code, out, err = _plan('--system', 'example_lustre:compute', '--tags',
                           'E1', '--tags', 'mdtest', '--reframe-tags')
    assert (code, out) == (0, ['^E1$', '^mdtest$'])


def _nightly_sh(*args):
    return subprocess.run(
        ['bash', str(REPO / 'scripts' / 'nightly.sh'), *args], cwd=REPO,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True)


def test_nightly_script_has_help():
    proc = _nightly_sh('--help')
    assert proc.returncode == 0 and proc.stderr == ''
    assert 'scripts/nightly.sh --system NAME:PARTITION' in proc.stdout


def test_nightly_script_checks_its_arguments_before_any_job(tmp_path):
    common = ['--system', 'local:default', '--target', str(tmp_path)]
    proc = _nightly_sh(*common, '--baseline', 'pre', '--repeat', '0')
    assert proc.returncode == 2 and proc.stdout == ''
    assert proc.stderr == ("nightly.sh: error: --repeat: '0': expected a "
                           "whole number of at least 1\n")
    out = tmp_path / 'night'
    proc = subprocess.run(
        ['bash', str(REPO / 'scripts' / 'nightly.sh'), *common,
         '--baseline', 'no-such-baseline', '--out', str(out)], cwd=REPO,
        env=dict(__import__('os').environ, PFSBENCH_RUNS=str(tmp_path)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        universal_newlines=True)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        "nightly.sh: error: --baseline: 'no-such-baseline': no usable "
        "baseline (pfsbench baseline list shows the recorded ones)")
    assert not (out / 'reframe.log').exists()     # no job ran
