# SPDX-License-Identifier: BSD-3-Clause
"""Seed 003's tracers for E12 (pfsbench.commands.tracers): the seed's calls,
commands a shell accepts, and ``example_lustre`` running E12 with both
(dry run).  The syscall tracer runs for real on localslurm
(tests/test_checks_mdtest.py::test_e12_with_ftrace_on_localslurm)."""

import re
import subprocess

import pytest

from conftest import CHECKS, REPO, job_script, run_reframe
from pfsbench.commands import tracers
from pfsbench.site.config import _load_module

ALL = {'ftrace': tracers.ftrace_functions(run_as='sudo -n'),
       'ftrace_syscalls': tracers.ftrace_syscalls(),
       'lustre_debug': tracers.lustre_debug()}


@pytest.mark.parametrize('name', ALL)
def test_commands_are_shell(name):
    for which in ('on', 'off'):
        proc = subprocess.run(['sh', '-n', '-c', ALL[name][which]],
                              capture_output=True, text=True)
        assert proc.returncode == 0, (ALL[name][which], proc.stderr)
        assert ALL[name][which].startswith(('set -e;', "sudo -n sh -c 'set"))


def test_ftrace_traces_the_seeds_calls_on_the_lustre_client():
    on = ALL['ftrace']['on']
    (names,) = re.findall(r'echo ([\w ]+) > "\$I/set_ftrace_filter"', on)
    # Seed 003: "ftrace create, open, link, unlink, readdir, getattr,
    # setattr", each its llite function.
    assert names.split() == sorted(
        f'll_{c}' for c in ('create_nd', 'file_open', 'link', 'unlink',
                            'readdir', 'getattr', 'setattr'))
    assert set(tracers.SEED003_CALLS) == set(tracers.SYSCALLS) == \
        set(tracers.LUSTRE_CLIENT_FUNCTIONS)
    # Its own instance, removed when off; the global tracer untouched.
    assert 'mkdir "$I"' in on and 'rmdir "$I"' in ALL['ftrace']['off']
    assert not re.search(r'> "?/sys/kernel/tracing/(current_tracer|'
                         r'set_ftrace_filter|tracing_on)', on)


def test_lustre_debug_has_no_mask_and_restores_it():
    on, off = ALL['lustre_debug']['on'], ALL['lustre_debug']['off']
    assert 'lctl set_param debug=-1' in on
    assert 'lctl get_param -n debug > "$M"' in on
    assert 'lctl set_param debug="$(cat "$M")"' in off


def test_example_lustre_declares_both_tracers():
    config = _load_module(str(REPO / 'config' / 'systems' /
                             'example_lustre.py'))
    (part,) = config.site_configuration['systems'][0]['partitions']
    assert [t['name'] for t in part['extras']['tracers']] == [
        'ftrace', 'lustre_debug']


def test_e12_runs_on_example_lustre(tmp_path):
    proc = run_reframe(['--system', 'example_lustre', '-c',
                        str(CHECKS / 'mdtest'), '-n',
                        'mdtest_e12_tracing_overhead', '--dry-run'],
                       tmp_path)
    assert proc.returncode == 0, proc.stdout
    # 2 tracers x 2 task counts; tracer_index 2, 3 skip.
    assert 'Ran 4/8 test case(s)' in proc.stdout, proc.stdout
    assert 'example_lustre:compute has 2 tracer(s)' in proc.stdout
    script = job_script(tmp_path, 'example_lustre', 'compute',
                        'mdtest_e12_tracing_overhead')
    assert 'sudo -n sh -c' in script
