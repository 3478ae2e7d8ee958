# SPDX-License-Identifier: BSD-3-Clause
"""Run directories are removed however a run ends (issue 12, item 3), and
nothing without the suite's marker ever is.

The job script's trap runs for real in bash; the reframe-level cases are in
tests/test_fault_matrix.py.
"""

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from conftest import default_signals
from pfsbench.site import exclusive, rundir


def _dead_pid():
    proc = subprocess.Popen([sys.executable, '-c', 'pass'])
    proc.wait()
    return proc.pid


def _wait_for_child(pid, name):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for entry in os.listdir('/proc'):
            try:
                with open(f'/proc/{entry}/stat') as fp:
                    stat = fp.read()
            except OSError:
                continue
            comm = stat[stat.index('(') + 1:stat.rindex(')')]
            ppid = int(stat[stat.rindex(')') + 2:].split()[1])
            if ppid == pid and comm == name:
                return
        time.sleep(0.05)
    raise AssertionError(f'{name} never started under {pid}')


def _leftover(root, name, host=None, pid=None):
    """A marked run directory as an earlier run left it."""
    path = root / f'pfsbench-{name}-20260101T000000-1'
    path.mkdir()
    (path / 'data').write_text('x' * 100)
    lines = f'{name}\n'
    if pid is not None:
        lines += f'host={host or socket.gethostname()} pid={pid}\n'
    (path / rundir.MARKER).write_text(lines)
    return path


def test_marker_names_the_creating_process(tmp_path):
    path = tmp_path / 'pfsbench-x-1'
    rundir.create(str(path), 'x')
    try:
        assert rundir.creator(str(path)) == (socket.gethostname(),
                                             os.getpid())
        assert (path / rundir.MARKER).read_text().startswith('x\n')
    finally:
        rundir._CREATED.remove(str(path))


@pytest.mark.parametrize('sig', ['TERM', 'INT', 'HUP'])
def test_job_script_trap_removes_the_run_dir(tmp_path, sig):
    run_dir = tmp_path / 'pfsbench-job-1'
    run_dir.mkdir()
    (run_dir / rundir.MARKER).write_text('job\n')
    script = tmp_path / 'job.sh'
    # As ReFrame writes it: prologue, the tool (here sleep), epilogue.
    script.write_text('\n'.join(
        rundir.job_prologue(str(run_dir)) +
        ['echo started', 'sleep 30'] +
        rundir.job_epilogue(str(run_dir))) + '\n')
    # As a batch job starts it: every signal at its default (bash cannot
    # trap a signal ignored on entry).
    proc = subprocess.Popen(['bash', str(script)], stdout=subprocess.PIPE,
                            universal_newlines=True, start_new_session=True,
                            preexec_fn=default_signals)
    assert proc.stdout.readline() == 'started\n'
    # Signalled while bash forks the tool, the child can swallow it before
    # it execs; a real job is signalled long after its tool started.
    _wait_for_child(proc.pid, 'sleep')
    os.killpg(proc.pid, getattr(signal, f'SIG{sig}'))
    out = proc.communicate(timeout=10)[0]
    assert proc.returncode == rundir.TRAPPED_SIGNALS[sig]
    assert out == f'{rundir.JOB_SIGNAL_PREFIX}{sig}\n'
    assert not run_dir.exists()
    assert rundir.job_end_problem('started\n' + out).startswith(
        f'the job was stopped by SIG{sig}: scancel, its time limit')


def test_trap_quotes_a_run_dir_with_spaces_and_quotes(tmp_path):
    run_dir = tmp_path / "it's a dir"
    run_dir.mkdir()
    keep = tmp_path / 'it'
    keep.mkdir()
    script = '\n'.join(rundir.job_prologue(str(run_dir)) +
                       ['kill -TERM $$', 'sleep 5'])
    subprocess.run(['bash', '-c', script], timeout=10)
    assert not run_dir.exists() and keep.exists()


def test_job_end_problem_quotes_slurms_reason():
    stderr = ('slurmstepd: error: *** STEP 31.0 ON n4 CANCELLED AT '
              '2026-11-23T19:40:01 DUE TO TIME LIMIT ***\n'
              'slurmstepd: error: *** JOB 31 ON n4 CANCELLED AT '
              '2026-11-23T19:40:01 DUE TO TIME LIMIT ***\n')
    problem = rundir.job_end_problem(
        f'{rundir.JOB_SIGNAL_PREFIX}TERM\n', stderr)
    assert problem.startswith(
        'the job was stopped by SIGTERM (Slurm: "*** JOB 31 ON n4 CANCELLED '
        'AT 2026-11-23T19:40:01 DUE TO TIME LIMIT ***")')
    assert rundir.job_end_problem('', '').startswith(
        'the job script did not finish: no "pfsbench-job: exit=" line; '
        'killed (SIGKILL, node lost)')
    assert rundir.job_end_problem(f'{rundir.JOB_EXIT_PREFIX}3\n') == ''
    # scancel: Slurm signals the step first, the script's end still runs.
    assert rundir.job_end_problem(f'{rundir.JOB_EXIT_PREFIX}143\n',
                                  stderr).startswith(
        'the job was stopped by SIGTERM (Slurm: "*** JOB 31 ON n4 ')
    # A tool killed by a signal of its own (no word from Slurm) is the
    # check's to name.
    assert rundir.job_end_problem(f'{rundir.JOB_EXIT_PREFIX}137\n') == ''
    assert rundir.job_end_problem(
        f'{rundir.JOB_EXIT_PREFIX}0\n',
        'srun: Job step aborted: Waiting up to 7 seconds for job step to '
        'finish.\nsrun: error: Timed out waiting for job step to complete\n'
    ) == ('the job step was aborted by Slurm (srun: "Job step aborted: '
          'Waiting up to 7 seconds for job step to finish."): its tasks were '
          'killed before the tool ended, e.g. its node lost')
    # After a task failed srun says the same: that failure is the check's.
    assert rundir.job_end_problem(
        f'{rundir.JOB_EXIT_PREFIX}1\n',
        'srun: error: n1: task 1: Exited with exit code 1\n'
        'srun: Job step aborted: Waiting up to 32 seconds for job step to '
        'finish.\n') == ''
    assert rundir.job_end_problem('', '', state='NODE_FAIL').startswith(
        'the job script did not finish: no "pfsbench-job: exit=" line '
        '(Slurm job state NODE_FAIL)')


def test_sweep_removes_only_leftovers_of_dead_runs_of_this_host(tmp_path):
    dead = _leftover(tmp_path, 'dead', pid=_dead_pid())
    alive = _leftover(tmp_path, 'alive', pid=os.getppid())
    remote = _leftover(tmp_path, 'remote', host='elsewhere', pid=1)
    rendered = _leftover(tmp_path, 'rendered')
    unmarked = tmp_path / 'pfsbench-unmarked-20260101T000000-1'
    unmarked.mkdir()
    foreign = tmp_path / 'results.txt'
    foreign.write_text('keep')
    said = []
    assert rundir.sweep(str(tmp_path), said.append) == [str(dead)]
    assert not dead.exists()
    for kept in (alive, remote, rendered, unmarked, foreign):
        assert kept.exists()
    assert any(s.startswith(f'pfsbench: removed {dead}: left over from an '
                            f'interrupted run (pid ') for s in said)
    assert (f'pfsbench: {remote}: made by a run on elsewhere; not removed '
            f'while it may be in use (pfsbench cleanup {tmp_path} removes '
            f'it)') in said
    assert any(s.startswith(f'pfsbench: {rendered}: made by a job script')
               for s in said)


def test_holding_a_root_sweeps_it_first(tmp_path):
    dead = _leftover(tmp_path, 'dead', pid=_dead_pid())
    said = []
    lock = exclusive.hold(str(tmp_path), timeout=5, say=said.append)
    try:
        assert not dead.exists()
        assert any('left over from an interrupted run' in s for s in said)
    finally:
        lock.release()
        del exclusive._HELD[os.path.realpath(tmp_path)]


def test_created_run_dirs_are_removed_at_exit(tmp_path):
    # A child that creates a run directory and exits through atexit, as
    # reframe does after Ctrl-C or SIGTERM once it held the root.
    code = (f'from pfsbench.site import exclusive, rundir\n'
            f'exclusive.hold({str(tmp_path)!r})\n'
            f'rundir.create({str(tmp_path / "pfsbench-case-1")!r}, "case")\n'
            f'raise KeyboardInterrupt\n')
    proc = subprocess.run([sys.executable, '-c', code],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=60)
    assert proc.returncode != 0
    assert (f'pfsbench: removed {tmp_path / "pfsbench-case-1"}: its case '
            f'did not finish') in proc.stdout
    assert os.listdir(tmp_path) == []


def test_remove_after_job_leaves_unmarked_directories(tmp_path):
    unmarked = tmp_path / 'pfsbench-x'
    unmarked.mkdir()
    assert not rundir.remove_after_job(str(unmarked), say=print)
    assert unmarked.exists()
    marked = _leftover(tmp_path, 'killed', pid=_dead_pid())
    said = []
    started = time.monotonic()
    assert rundir.remove_after_job(str(marked), say=said.append)
    assert time.monotonic() - started < rundir.REMOVE_RETRY_S
    assert said == [f'pfsbench: removed {marked}: its job ended without '
                    f'removing it']
