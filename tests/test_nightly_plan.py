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
