# SPDX-License-Identifier: BSD-3-Clause
"""More tasks on a node than its partition's ``processor.num_cpus`` are
refused (Slurm refuses the job at a real site) unless the job says
``--overcommit``: by ``pfsbench render`` and by the checks' dry run, one
rule (pfsbench.site.validate.tasks_fit_cpus)."""

import re

import pytest

from conftest import run_reframe
from pfsbench.cli import main
from pfsbench.core.errors import ConfigError
from pfsbench.site import validate

WHY = ("more tasks per node than example_seed002:ib's processor.num_cpus "
       "(24): Slurm refuses the job; at most 24")


def test_the_rule():
    validate.tasks_fit_cpus(24, 24, (), 'p', 's', 'f')
    validate.tasks_fit_cpus(128, 24, ('--overcommit',), 'p', 's', 'f')
    validate.tasks_fit_cpus(128, None, (), 'p', 's', 'f')
    with pytest.raises(ConfigError) as err:
        validate.tasks_fit_cpus(25, 24, ('--exclusive',), 'p:q', 's', 'f')
    assert str(err.value) == (
        "s:f: 25: more tasks per node than p:q's processor.num_cpus (24): "
        "Slurm refuses the job; at most 24")


def test_render_refuses_more_tasks_per_node_than_cpus(capsys):
    code = main(['render', 'E11', '--system', 'example_seed002:ib',
                 '--tasks-per-node', '128'])
    out = capsys.readouterr()
    assert (code, out.out) == (2, '')
    assert out.err.splitlines() == [
        f'pfsbench: error: <command line>:--tasks-per-node: 128: {WHY}']
    # As many as the node has, or --overcommit: rendered.
    for extra in (['--tasks-per-node', '24'],
                  ['--tasks-per-node', '128', '--sbatch-option=--overcommit']):
        assert main(['render', 'E11', '--system', 'example_seed002:ib',
                     *extra]) == 0
        assert '#SBATCH --ntasks-per-node=' in capsys.readouterr().out


def test_the_dry_run_refuses_more_tasks_per_node_than_cpus(tmp_path):
    proc = run_reframe(['--system', 'example_seed002:ib', '-c',
                        'reframe-checks/ior/ior_bandwidth.py', '-P',
                        'scale=1x128,1x24', '-P', 'transfer_size=1m', '-P',
                        'api=POSIX', '-P', 'access=fpp', '--dry-run'],
                       tmp_path)
    assert proc.returncode != 0, proc.stdout
    assert re.search(r'config error: ior_bandwidth\S*:num_tasks_per_node: '
                     r'128: ' + re.escape(WHY), proc.stdout), proc.stdout
    # The case within the node's CPUs still renders its job.
    assert 'Ran 2/2 test case(s) from 2 check(s) (1 failure(s)' in \
        proc.stdout, proc.stdout
