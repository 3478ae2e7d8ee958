# SPDX-License-Identifier: BSD-3-Clause
"""The fault matrix (issue 12, item 2): one test per fault, on ``local`` or
on the localhost Slurm cluster, through the real ``reframe``.

For every case:

- the faulty check fails (or skips, where that is right) with a reason
  naming the cause, quoted here as the user sees it (docs/faults.md lists
  each);
- the other checks of the run still run: where the fault hits one case, a
  second check of the same run (``stamped_write``, tests/data/checks) must
  pass;
- the run's files are removed and nothing else on the file system changes:
  every case runs against a scratch root planted by :func:`planted` (a file
  next to the run directories, one deeper inside the root, and a directory
  named like a run directory but without the suite's marker); after the
  case the root holds exactly what was planted, byte for byte;
- the results database stays readable (``pfsbench baseline sessions``).

Cases that need root, a tool (IOR, mdtest under /opt or on PATH) or the
Slurm cluster skip saying so.  Slurm cases pin their jobs to one node
(:data:`NODE`) and restore it in a ``finally``: slurmd restarted, the node
resumed.  Several faults have tests of their own elsewhere; those are called
from here with a planted root rather than written twice.
"""

import contextlib
import fcntl
import glob
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

import synth
import test_checks_ior as ior_tests
import test_checks_mdtest as mdtest_tests
import test_exclusive as exclusive_tests
import test_gate_cli as gate_tests
import test_streams_enospc as enospc_tests
from conftest import (CHECKS, CONFIG, FIXTURES, REPO, reframe_bin,
                      run_reframe, start_reframe)
from pfsbench.cli import main as pfsbench_main
from pfsbench.parsers import ior as ior_parser, mdtest as mdtest_parser
from pfsbench.site import exclusive, rundir

STAMPED = REPO / 'tests' / 'data' / 'checks' / 'stamped.py'
PINNED = REPO / 'tests' / 'data' / 'checks' / 'pinned.py'
IOR_CHECKS = CHECKS / 'ior'
MDTEST_CHECKS = CHECKS / 'mdtest'
#: The node every Slurm case pins its jobs to (the others stay free for
#: the helpers that share the cluster).
NODE = 'n4'
#: A second check of every run, which must pass whatever the fault.
COMPANION = ['-S', 'stamped_write.hold_s=0', '-S', 'stamped_write.mib=1']
#: The IOR case every IOR fault runs (1 task, 1 repetition).
IOR_CASE = ['-P', 'api=POSIX', '-P', 'access=fpp', '-P', 'transfer_size=1m',
            '-P', 'scale=1x1', '-S', 'repetitions=1']
#: What every planted root holds (path under the root: content).
PLANTS = {
    'planted-beside-run.txt': 'next to the run directories\n',
    'keep/deeper/planted-inside-root.txt':
        'inside the scratch root, outside every run\n',
    # Named like a run directory, without the marker: never deleted.
    'pfsbench-decoy-20260101T000000-1/data': 'no marker here\n',
}


def _snapshot(root):
    """Every path under ``root`` with its type, size, content digest and
    modification time (files); directories by type only (creating and
    removing run directories changes the root's own times)."""
    seen = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            path = os.path.join(dirpath, name)
            seen[os.path.relpath(path, root)] = ('dir',)
        for name in filenames:
            path = os.path.join(dirpath, name)
            stat = os.lstat(path)
            with open(path, 'rb') as fp:
                digest = hashlib.sha256(fp.read()).hexdigest()
            seen[os.path.relpath(path, root)] = (
                'file', stat.st_size, digest, stat.st_mtime_ns)
    return seen


class Garden:
    """Scratch roots with planted files, checked after the case."""

    def __init__(self, base):
        self.base = base
        self.before = {}
        #: The default scratch root of a case.
        self.root = self.plant(os.path.join(base, 'scratch'))

    def plant(self, root):
        """Plant :data:`PLANTS` under ``root`` (created if needed) and
        remember everything it then holds.

        Returns:
            ``root``.
        """
        os.makedirs(root, exist_ok=True)
        os.chmod(root, 0o755)
        for rel, text in PLANTS.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as fp:
                fp.write(text)
        self.before[root] = _snapshot(root)
        return root

    def verify(self, root):
        """Assert that ``root`` holds exactly what was planted: no run
        directory, lock or other file left, every planted file intact."""
        before = self.before.pop(root)
        after = _snapshot(root)
        added = sorted(set(after) - set(before))
        lost = sorted(set(before) - set(after))
        assert not added, f'{root}: left behind: {added}'
        assert not lost, f'{root}: planted files removed: {lost}'
        for rel in PLANTS:
            assert after[rel] == before[rel], f'{root}/{rel} changed'
        assert after == before

    def verify_all(self):
        for root in list(self.before):
            self.verify(root)


@pytest.fixture(autouse=True)
def planted():
    """Every case's scratch roots (:class:`Garden`), verified after it."""
    base = tempfile.mkdtemp(prefix='pfsbench-faults-', dir='/var/tmp')
    os.chmod(base, 0o755)      # job steps and 'nobody' traverse it
    garden = Garden(base)
    yield garden
    try:
        garden.verify_all()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_planted_root_notices_what_a_case_leaves_or_removes(planted):
    # The check every case ends with can fail: a leftover run directory,
    # a lock file, a planted file removed or rewritten.
    root = planted.root
    changes = [
        lambda: rundir.create(os.path.join(root, 'pfsbench-left-1'), 'x'),
        lambda: Path(root, exclusive.LOCK_NAME).write_text('{}'),
        lambda: os.remove(os.path.join(root, 'planted-beside-run.txt')),
        lambda: Path(root, 'keep/deeper/planted-inside-root.txt').write_text(
            'inside the scratch root, outside every run\n!'),
    ]
    for change in changes:
        change()
        with pytest.raises(AssertionError):
            planted.verify(root)
        shutil.rmtree(root)
        rundir._CREATED.clear()
        planted.plant(root)


# Helpers ---------------------------------------------------------------------

def _fake_tool(tmp_path, name, body):
    """A stand-in tool: a shell script that answers ``-h`` with nothing
    (IOR's API probe) and otherwise runs ``body``."""
    path = tmp_path / name
    path.write_text(f'#!/bin/sh\n[ "$1" = -h ] && exit 0\n{body}\n')
    path.chmod(0o755)
    return path


def _tool(*paths):
    return next((p for p in paths if p and os.access(p, os.X_OK)), None)


IOR = _tool('/opt/ior/bin/ior', shutil.which('ior'))
needs_ior = pytest.mark.skipif(IOR is None, reason='no IOR binary '
                               '(/opt/ior/bin/ior or ior on PATH)')
needs_root = pytest.mark.skipif(os.geteuid() != 0,
                                reason='mounting a file system needs root')


def _plain(stdout):
    """reframe's output without its colours."""
    return re.sub(r'\x1b\[[0-9;]*m', '', stdout)


def _reason(stdout, test):
    """The ``Reason:`` line of ``test``'s failure in reframe's output."""
    stdout = _plain(stdout)
    m = re.search(rf'FAILURE INFO for {test}\b.*?\n\s*\* Reason: ([^\n]*)',
                  stdout, re.S)
    assert m, f'no failure of {test} in:\n{stdout}'
    print(f'{test}: Reason: {m.group(1)}')
    return m.group(1)


def _assert_passed(stdout, test):
    stdout = _plain(stdout)
    assert re.search(rf'^\[\s+OK \] .*{test}\b', stdout, re.M), stdout


def _assert_results_readable(runs):
    """The run's results database opens and lists its sessions."""
    db = Path(runs) / 'results.db'
    assert db.exists(), f'{db}: no results database'
    assert pfsbench_main(['baseline', 'sessions', '--db', str(db),
                          '--lock-timeout', '10']) == 0


def _run(runs, scratch, checks, names, *options, env=None, timeout=300):
    """``reframe -c CHECKS -n NAMES OPTIONS -r`` on ``scratch``."""
    args = [w for c in checks for w in ('-c', str(c))]
    args += ['-n', '|'.join(names), *options, '-r']
    return run_reframe(args, runs, env={'PFSBENCH_SCRATCH': str(scratch),
                                        **(env or {})}, timeout=timeout)


@contextlib.contextmanager
def _tmpfs(garden, options):
    """A small tmpfs planted as a scratch root, verified and unmounted
    afterwards (root only)."""
    with enospc_tests.mounted_tmpfs(options) as mnt:
        try:
            garden.plant(mnt)
            yield mnt
            garden.verify(mnt)
        finally:
            garden.before.pop(mnt, None)    # verified, or the case failed


def _run_dirs(root):
    return glob.glob(os.path.join(root, 'pfsbench-stamped_write*'))


def _wait_for_victim(root, proc, timeout=120):
    """Wait until the victim's job has written into its run directory."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(os.path.exists(os.path.join(d, 'f'))
               for d in _run_dirs(root)):
            return
        assert proc.poll() is None, proc.stdout.read()
        time.sleep(0.2)
    raise AssertionError(f'no job wrote into {root} within {timeout} s')


# Target faults ---------------------------------------------------------------

@needs_root
def test_enospc_stops_every_stream_and_names_it(tmp_path, planted):
    # tests/test_streams_enospc.py's run, on a planted 24 MiB tmpfs.
    if shutil.which('dd') is None:
        pytest.skip('dd not on PATH')
    with _tmpfs(planted, f'size={enospc_tests.TARGET_MIB}m') as mnt:
        enospc_tests.fill_target(tmp_path, mnt, 'dd')
        _assert_results_readable(tmp_path)


@needs_root
def test_read_only_target_is_refused_before_submission(tmp_path, planted):
    with _tmpfs(planted, 'size=1m') as mnt:
        subprocess.run(['mount', '-o', 'remount,ro', mnt], check=True)
        proc = _run(tmp_path, mnt, [STAMPED], ['stamped_write'], *COMPANION)
    assert proc.returncode != 0
    assert "extras.targets[scratch].path: '" in proc.stdout
    assert "': is on a read-only file system" in proc.stdout
    assert 'Failing phase: setup' in proc.stdout
    assert 'Traceback' not in proc.stdout
    _assert_results_readable(tmp_path)


def test_permission_denied_on_the_target(tmp_path, planted):
    # Root writes anywhere: the run is made by 'nobody', on a root that
    # belongs to root (mode 0755).
    if os.geteuid() != 0 or shutil.which('setpriv') is None:
        pytest.skip('needs root and setpriv to run reframe as nobody')
    runs = Path(planted.base) / 'runs-of-nobody'
    runs.mkdir()
    shutil.chown(runs, 'nobody', 'nogroup')
    env = dict(os.environ, PFSBENCH_RUNS=str(runs), HOME=str(runs),
               PFSBENCH_SCRATCH=planted.root)
    cmd = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups',
           reframe_bin(), '-C', str(CONFIG), '-c', str(STAMPED), *COMPANION,
           '-r']
    print('+', ' '.join(cmd))
    proc = subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True,
                          timeout=300)
    if 'extras.targets' not in proc.stdout:
        pytest.skip(f'reframe does not run as nobody here: '
                    f'{proc.stdout[-400:]}')
    assert proc.returncode != 0
    assert (f"extras.targets[scratch].path: '{planted.root}': is not "
            f"writable (permission denied for this user)") in proc.stdout
    assert 'Traceback' not in proc.stdout
    _assert_results_readable(runs)


def test_leftover_of_a_killed_run_is_removed_by_the_next_run(tmp_path,
                                                             planted):
    # What a reframe killed with SIGKILL leaves: a marked run directory
    # whose creator is gone.
    dead = subprocess.run(
        [sys.executable, '-c',
         'import sys; from pfsbench.site import rundir; '
         'rundir.create(sys.argv[1], "killed"); '
         'open(sys.argv[1] + "/ior.dat", "w").write("x" * 4096); '
         'rundir._CREATED.clear()',
         os.path.join(planted.root, rundir.run_dir_name('killed', 1))],
        cwd=REPO, check=True)
    assert dead.returncode == 0 and len(rundir.leftovers(planted.root)) == 1
    proc = _run(tmp_path, planted.root, [STAMPED], ['stamped_write'],
                *COMPANION)
    assert proc.returncode == 0, proc.stdout
    assert re.search(rf'pfsbench: removed {re.escape(planted.root)}/'
                     rf'pfsbench-killed-\S+: left over from an interrupted '
                     rf'run \(pid \d+, gone\)', proc.stdout), proc.stdout
    _assert_results_readable(tmp_path)


def test_cleanup_verb_removes_only_marked_directories(tmp_path, planted,
                                                      capsys):
    path = os.path.join(planted.root, rundir.run_dir_name('timed-out', 7))
    rundir.create(path, 'timed-out')
    rundir._CREATED.remove(path)
    assert pfsbench_main(['cleanup', planted.root]) == 0
    assert capsys.readouterr().out == f'removing {path}\n'


# The tool --------------------------------------------------------------------

@pytest.mark.parametrize('binary,why', [
    ('missing', 'no such file or directory'),
    ('not-executable', 'not executable (mode 0644)'),
])
def test_unusable_binary_skips_naming_why(tmp_path, planted, binary, why):
    path = tmp_path / binary
    if binary == 'not-executable':
        path.write_text('#!/bin/sh\n')
        path.chmod(0o644)
    proc = _run(tmp_path / 'runs', planted.root, [IOR_CHECKS, STAMPED],
                ['ior_bandwidth', 'stamped_write'], *IOR_CASE,
                '-S', f'ior_binary={path}', *COMPANION)
    assert proc.returncode == 0, proc.stdout
    assert f'no IOR binary ({path}: {why}); build it' in proc.stdout
    assert '1 skipped' in proc.stdout
    _assert_passed(proc.stdout, 'stamped_write')
    _assert_results_readable(tmp_path / 'runs')


def _ior_fault(tmp_path, planted, body):
    """Run the IOR case with a stand-in IOR running ``body``, and the
    companion; returns reframe's output (the IOR case must fail)."""
    fake = _fake_tool(tmp_path, 'ior', body)
    proc = _run(tmp_path / 'runs', planted.root, [IOR_CHECKS, STAMPED],
                ['ior_bandwidth', 'stamped_write'], *IOR_CASE,
                '-S', f'ior_binary={fake}', *COMPANION)
    assert proc.returncode != 0
    _assert_passed(proc.stdout, 'stamped_write')
    _assert_results_readable(tmp_path / 'runs')
    return proc.stdout


def test_truncated_output_quotes_the_last_line(tmp_path, planted):
    real = FIXTURES / 'ior' / 'posix-1task.txt'
    if not real.exists():
        pytest.skip(f'{real} not found')
    # The run cut short after its per-iteration table: no summary.
    lines = real.read_text().splitlines()
    cut = next(i for i, ln in enumerate(lines) if ln.startswith('Summary'))
    last = [ln.strip() for ln in lines[:cut] if ln.strip()][-1]
    out = _ior_fault(tmp_path, planted, f'head -n {cut} {real}')
    reason = _reason(out, 'ior_bandwidth')
    assert re.match(r"sanity error: step 'write 1': rfm_job.out:\d+: "
                    r"expected IOR's 'Finished' line \(truncated output\), "
                    rf'got: "{re.escape(last)}"', reason), reason


def test_empty_output_is_a_failure(tmp_path, planted):
    out = _ior_fault(tmp_path, planted, 'exit 0')
    assert _reason(out, 'ior_bandwidth').startswith(
        "sanity error: step 'write 1': rfm_job.out:0: expected an "
        "'IOR-<version>: MPI Coordinated Test' banner, a JSON summary or a "
        'CSV header, got: ""')


def test_tool_that_exits_0_after_errors_fails_quoting_them(tmp_path,
                                                           planted):
    # mdtest 4.x exits 0 after it could not stat the files (a real run).
    real = FIXTURES / 'mdtest' / 'fail-stat-missing-T.txt'
    if not real.exists():
        pytest.skip(f'{real} not found')
    fake = _fake_tool(tmp_path, 'mdtest', f'cat {real}; exit 0')
    proc = _run(tmp_path / 'runs', planted.root, [MDTEST_CHECKS, STAMPED],
                ['mdtest_metadata_rates', 'stamped_write'], '-P', 'kind=both',
                '-P', 'access=unique', '-P', 'nodes=1',
                '-P', 'tasks_per_node=1', '-S', f'mdtest_binary={fake}',
                *COMPANION)
    assert proc.returncode != 0
    reason = _reason(proc.stdout, 'mdtest_metadata_rates')
    assert re.match(r"sanity error: step 'mdtest': rfm_job.out:\d+: expected "
                    r'a completed mdtest run, but mdtest warned of \d+ failed '
                    r'operation\(s\) \(it exits 0 regardless\), got: '
                    r'"WARNING: unable to stat file ', reason), reason
    _assert_passed(proc.stdout, 'stamped_write')
    _assert_results_readable(tmp_path / 'runs')


def test_tool_error_is_quoted(tmp_path):
    # tests/test_checks_ior.py's case: IOR's own ERROR line, run dir gone.
    if ior_tests.IOR_BINARY is None:
        pytest.skip('no IOR binary')
    ior_tests.test_ior_error_is_quoted_and_run_dir_removed(tmp_path)
    _assert_results_readable(tmp_path)


def test_ior_started_as_singletons_names_the_mpi_setting(tmp_path, planted):
    # A real 4-task IOR output in a 1-task job: what 4 singletons that
    # each believe they are rank 0 of 1 look like from the job's side is
    # the reverse; either way the counts differ.
    real = FIXTURES / 'ior' / 'posix-fpp-N4x1-tmpfs.txt'
    if not real.exists():
        pytest.skip(f'{real} not found')
    out = _ior_fault(tmp_path, planted, f'cat {real}')
    assert ("step 'write 1': IOR ran with 4 task(s), the job started 1: "
            "the local launcher did not start one MPI job "
            "(SLURM_MPI_TYPE=unset; the MPI library needs its PMI plugin)"
            ) in _reason(out, 'ior_bandwidth')


def test_mdtest_started_as_singletons_names_the_mpi_setting(tmp_path):
    # tests/test_checks_mdtest.py's case.
    mdtest_tests.test_task_count_mdtest_saw_must_be_the_jobs(tmp_path)
    _assert_results_readable(tmp_path / 'runs')


# The results database --------------------------------------------------------

def test_results_database_locked_by_a_writer(tmp_path, planted):
    # ReFrame waits for the writer's lock (fcntl, as ReFrame's own) to store
    # its session; the case runs meanwhile and nothing is lost.
    runs = tmp_path / 'runs'
    runs.mkdir()
    lock = runs / '.db.lock'
    holder = subprocess.Popen(
        [sys.executable, '-c',
         'import fcntl, sys, time; fp = open(sys.argv[1], "a+"); '
         'fcntl.lockf(fp, fcntl.LOCK_EX); print("locked", flush=True); '
         'time.sleep(float(sys.argv[2]))', str(lock), '8'],
        stdout=subprocess.PIPE, universal_newlines=True)
    try:
        assert holder.stdout.readline() == 'locked\n'
        proc = _run(runs, planted.root, [STAMPED], ['stamped_write'],
                    *COMPANION)
    finally:
        holder.kill()
        holder.wait()
    assert proc.returncode == 0, proc.stdout
    assert 'Current session stored with UUID' in proc.stdout
    _assert_results_readable(runs)


def test_gate_reading_a_locked_database_names_the_lock(tmp_path, capfd):
    # ReFrame holds .db.lock while it stores a session; the gate verb
    # itself waits --lock-timeout, then names the lock and exits 2
    # (tests/test_gate_cli.py holds 'baseline sessions' to the same).
    db = tmp_path / 'runs' / 'results.db'
    db.parent.mkdir()
    synth.write_database(str(db), [gate_tests.nightly(0.0),
                                   gate_tests.nightly(gate_tests.DAY)])
    baselines = str(tmp_path / 'baselines')
    assert pfsbench_main(['baseline', 'record', 'pre', '--db', str(db),
                          '--baseline-dir', baselines]) == 0
    capfd.readouterr()
    with open(db.parent / '.db.lock', 'a+') as fp:
        fcntl.lockf(fp, fcntl.LOCK_EX)
        pid = os.fork()
        if pid == 0:   # a lockf lock is per process: the gate in a child
            os._exit(pfsbench_main(['gate', '-b', 'pre', '--db', str(db),
                                    '--baseline-dir', baselines,
                                    '--lock-timeout', '0.2']))
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 2
    err = capfd.readouterr().err
    assert f'{db}: locked: another process' in err
    assert f'{db.parent / ".db.lock"} for more than 0.2 s' in err


# Two runs on one root --------------------------------------------------------

def test_second_run_on_a_root_waits_for_the_first(tmp_path, planted):
    scratch = Path(planted.root)
    first = exclusive_tests._start_holder(tmp_path / 'first', scratch, 4)
    second = _run(tmp_path / 'second', scratch, [STAMPED], ['stamped_write'],
                  *COMPANION)
    first_out = first.communicate(timeout=120)[0]
    assert first.returncode == 0, first_out
    assert second.returncode == 0, second.stdout
    assert (f'{scratch} is in use by another pfsbench run (pid {first.pid}'
            in second.stdout)
    for runs in ('first', 'second'):
        _assert_results_readable(tmp_path / runs)


def test_second_run_on_a_root_gives_up_naming_the_first(tmp_path, planted):
    scratch = Path(planted.root)
    first = exclusive_tests._start_holder(tmp_path / 'first', scratch, 6)
    second = _run(tmp_path / 'second', scratch, [STAMPED], ['stamped_write'],
                  *COMPANION, env={'PFSBENCH_TARGET_LOCK_TIMEOUT': '1'})
    first.communicate(timeout=120)
    assert first.returncode == 0
    assert second.returncode != 0
    assert (f'{scratch}: another pfsbench run is measuring this target '
            f'(pid {first.pid} on ') in second.stdout
    assert not (scratch / exclusive.LOCK_NAME).exists()


# Interrupting reframe on local -----------------------------------------------

@pytest.mark.parametrize('sig', ['SIGINT', 'SIGTERM'])
def test_interrupted_reframe_removes_its_run_dirs(tmp_path, planted, sig):
    proc = start_reframe(['-c', str(STAMPED), '-S', 'hold_s=300', '-r'],
                         tmp_path, env={'PFSBENCH_SCRATCH': planted.root})
    try:
        _wait_for_victim(planted.root, proc)
        proc.send_signal(getattr(signal, sig))
        out = proc.communicate(timeout=60)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    out = _plain(out)
    assert {'SIGINT': 'run session stopped: cancelled by user',
            'SIGTERM': 'run session stopped: force exit error: received '
                       'signal 15'}[sig] in out, out
    assert re.search(r'\[\s+ABORT \] \(1/1\) stamped_write', out), out
    assert not _run_dirs(planted.root), out
    _assert_no_job_left(planted.root)
    _assert_results_readable(tmp_path)


def _assert_no_job_left(root, timeout=10):
    """No process of a job on ``root`` is left (after ``timeout``: the
    scheduler's signals take a moment)."""
    deadline = time.monotonic() + timeout
    while True:
        left = []
        for entry in os.listdir('/proc'):
            try:
                with open(f'/proc/{entry}/cmdline', 'rb') as fp:
                    cmdline = fp.read().decode(errors='replace')
            except OSError:
                continue
            if f'{root}/pfsbench-' in cmdline:
                left.append(cmdline)
        if not left:
            return
        assert time.monotonic() < deadline, f'still running: {left}'
        time.sleep(0.5)


# Slurm faults ----------------------------------------------------------------

@pytest.fixture
def slurm_node(localslurm):
    """The localhost Slurm cluster's client environment, with :data:`NODE`
    idle; the node is restored after the case (slurmd running, resumed)."""
    env = dict(os.environ, **localslurm)
    state = _node_state(env)
    deadline = time.monotonic() + 60
    while state not in ('idle', 'mixed') and time.monotonic() < deadline:
        time.sleep(2)
        state = _node_state(env)
    if state not in ('idle', 'mixed'):
        pytest.skip(f'{NODE} of the localhost Slurm cluster is {state!r}, '
                    f'not idle')
    try:
        yield env
    finally:
        _restore_node(env)


def _node_state(env):
    proc = subprocess.run(['sinfo', '-h', '-N', '-n', NODE, '-o', '%T'],
                          env=env, stdout=subprocess.PIPE,
                          universal_newlines=True, timeout=30)
    return proc.stdout.strip()


def _slurmd_pid(env):
    path = os.path.join(os.path.dirname(env['SLURM_CONF']), 'run',
                        f'slurmd-{NODE}.pid')
    try:
        with open(path) as fp:
            pid = int(fp.read().strip())
    except (OSError, ValueError):
        return None
    return pid if rundir.pid_alive(pid) else None


def _restore_node(env):
    """slurmd of :data:`NODE` running, the node resumed and usable."""
    if _slurmd_pid(env) is None:
        # As tests/localslurm/localslurm.sh starts it: in a UTS namespace
        # named after the node.
        cmd = ['unshare', '--uts', 'sh', '-c',
               'hostname "$1" && shift && exec "$@"', 'sh', NODE,
               'slurmd', '-f', env['SLURM_CONF'], '-N', NODE]
        print('+', ' '.join(cmd))
        subprocess.run(cmd, env=env, check=True, timeout=60)
    state = ''
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state = _node_state(env)
        if state in ('idle', 'mixed', 'allocated'):
            return
        if 'drain' in state or 'down' in state:
            subprocess.run(['scontrol', 'update', f'nodename={NODE}',
                            'state=resume'], env=env, timeout=30)
        time.sleep(2)
    raise AssertionError(f'{NODE} not back after the case: {state}')


def _victim_job(env, token, timeout=120):
    """The id of the running victim job (its comment is ``token``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = subprocess.run(['squeue', '-h', '-o', '%i|%k|%T|%j'], env=env,
                             stdout=subprocess.PIPE, universal_newlines=True,
                             timeout=30).stdout
        for line in out.splitlines():
            job, comment, state, name = line.split('|', 3)
            if (comment == token and state == 'RUNNING' and
                    name.startswith('rfm_pinned_write')):
                return job
        time.sleep(1)
    raise AssertionError(f'no running job with comment {token}')


def _victim_run_dirs(root):
    return glob.glob(os.path.join(root, 'pfsbench-pinned_write*'))


def _start_victim(tmp_path, planted, env, *options):
    """Start a run of a victim on :data:`NODE` that holds its target for
    300 s, and of the companion on any node.  Returns (the reframe Popen,
    the comment of its jobs)."""
    token = f'pfsbench-faults-{uuid.uuid4().hex[:8]}'
    proc = start_reframe(
        ['--system', 'localslurm:srun', '-c', str(PINNED), '-c', str(STAMPED),
         '-n', 'pinned_write|stamped_write', '-S', f'pinned_write.node={NODE}',
         '-S', 'pinned_write.hold_s=300', '-S', 'pinned_write.mib=1',
         *COMPANION, f'--job-option=--comment={token}', *options, '-r'],
        tmp_path, env={**env, 'PFSBENCH_SCRATCH': planted.root})
    return proc, token


def _started_victim(tmp_path, planted, env, *options):
    """:func:`_start_victim`, once its job has written on the target."""
    proc, token = _start_victim(tmp_path, planted, env, *options)
    try:
        job = _victim_job(env, token)
        deadline = time.monotonic() + 60
        while not any(os.path.exists(os.path.join(d, 'f'))
                      for d in _victim_run_dirs(planted.root)):
            assert time.monotonic() < deadline, 'the victim never wrote'
            time.sleep(0.2)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return proc, job


def _finish(proc, timeout=240):
    try:
        return proc.communicate(timeout=timeout)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _victim_reason(proc, out, runs):
    """The victim's failure reason, once the run failed, the companion
    passed and the results database reads."""
    assert proc.returncode != 0, out
    _assert_passed(out, 'stamped_write')
    _assert_results_readable(runs)
    return _reason(out, 'pinned_write')


@pytest.mark.slurm
def test_scancel_of_a_running_job(tmp_path, planted, slurm_node):
    proc, job = _started_victim(tmp_path, planted, slurm_node)
    try:
        subprocess.run(['scancel', job], env=slurm_node, check=True,
                       timeout=30)
    finally:
        out = _finish(proc)
    reason = _victim_reason(proc, out, tmp_path)
    # slurmstepd prints the job's line, the step's, or both.
    assert re.match(r'sanity error: the job was stopped by SIGTERM \(Slurm: '
                    rf'"\*\*\* (JOB {job}|STEP {job}\.\d+) ON {NODE} '
                    r'CANCELLED AT \S+ \*\*\*"\): scancel, its time limit, or '
                    r'an interrupted reframe; its run directory was removed$',
                    reason), reason


@pytest.mark.slurm
def test_job_over_its_time_limit(tmp_path, planted, slurm_node):
    proc, _ = _start_victim(tmp_path, planted, slurm_node,
                            '-S', 'pinned_write.time_limit=1m')
    reason = _victim_reason(proc, _finish(proc, timeout=300), tmp_path)
    assert re.match(r'sanity error: the job was stopped by SIGTERM \(Slurm: '
                    rf'"\*\*\* (JOB|STEP) \S+ ON {NODE} CANCELLED AT \S+ DUE '
                    r'TO TIME LIMIT \*\*\*"\)', reason), reason


@pytest.mark.slurm
def test_node_drained_before_submission(tmp_path, planted, slurm_node):
    subprocess.run(['scontrol', 'update', f'nodename={NODE}', 'state=drain',
                    'reason=pfsbench fault matrix'], env=slurm_node,
                   check=True, timeout=30)
    try:
        proc, _ = _start_victim(tmp_path, planted, slurm_node)
        out = _finish(proc)
    finally:
        _restore_node(slurm_node)
    reason = _victim_reason(proc, out, tmp_path)
    assert ('job cancelled because it was blocked due to reason: '
            'ReqNodeNotAvail') in reason, reason
    assert re.search(r'pfsbench: removed \S+/pfsbench-pinned_write\S+: its '
                     r'case did not finish', out), out


@pytest.mark.slurm
def test_slurmd_killed_while_the_job_runs(tmp_path, planted, slurm_node):
    # slurmd killed and started again at once: its job steps outlive it
    # (slurmstepd), so the measurement stands and the check passes.  The
    # window is kept short: tests/localslurm/localslurm.sh up, run by
    # anyone sharing the cluster, restarts a cluster with a dead daemon.
    proc, _ = _started_victim(tmp_path, planted, slurm_node,
                              '-S', 'pinned_write.hold_s=15')
    try:
        pid = _slurmd_pid(slurm_node)
        assert pid is not None, f'no slurmd of ours for {NODE}'
        print(f'+ kill -KILL {pid}  # slurmd -N {NODE}')
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while rundir.pid_alive(pid):
            assert time.monotonic() < deadline, f'slurmd {pid} still alive'
            time.sleep(0.1)
    finally:
        _restore_node(slurm_node)
    out = _finish(proc, timeout=300)
    assert proc.returncode == 0, out
    assert _slurmd_pid(slurm_node) not in (None, pid)
    _assert_passed(out, 'pinned_write')
    _assert_passed(out, 'stamped_write')
    _assert_results_readable(tmp_path)


@pytest.mark.slurm
@pytest.mark.skipif(not os.environ.get('PFSBENCH_FAULTS_NODE_LOSS'),
                    reason='takes a node of the shared localhost Slurm '
                           'cluster down for over 30 s (SlurmdTimeout), '
                           'which makes localslurm.sh up of anyone sharing '
                           'it restart the cluster; set '
                           'PFSBENCH_FAULTS_NODE_LOSS=1 where it is yours')
def test_node_lost_while_the_job_runs(tmp_path, planted, slurm_node):
    # slurmd stays dead: Slurm declares the node down after SlurmdTimeout
    # and ends the job NODE_FAIL.  No requeue: a requeued job would run
    # again once the node is back.
    proc, _ = _started_victim(tmp_path, planted, slurm_node,
                              '--job-option=--no-requeue')
    try:
        pid = _slurmd_pid(slurm_node)
        assert pid is not None, f'no slurmd of ours for {NODE}'
        print(f'+ kill -KILL {pid}  # slurmd -N {NODE}')
        os.kill(pid, signal.SIGKILL)
        out = _finish(proc, timeout=300)
    finally:
        _restore_node(slurm_node)
    reason = _victim_reason(proc, out, tmp_path)
    assert re.match(r'sanity error: the job (script did not finish|step '
                    r'was aborted by Slurm)', reason), reason
    assert 'NODE_FAIL' in reason or 'Job step aborted' in reason, reason


@pytest.mark.slurm
def test_sigterm_of_reframe_cancels_and_removes(tmp_path, planted,
                                                 slurm_node):
    proc, job = _started_victim(tmp_path, planted, slurm_node)
    proc.send_signal(signal.SIGTERM)
    out = _finish(proc, timeout=120)
    assert proc.returncode != 0
    assert 'run session stopped: force exit error: received signal 15' \
        in _plain(out), out
    # ReFrame cancelled the job, whose trap removed its run directory (or
    # reframe did, at exit).
    deadline = time.monotonic() + 30
    while subprocess.run(['squeue', '-h', '-j', job, '-t', 'R,CG,PD'],
                         env=slurm_node, stdout=subprocess.PIPE,
                         universal_newlines=True).stdout.strip():
        assert time.monotonic() < deadline, f'job {job} still queued'
        time.sleep(1)
    assert not _victim_run_dirs(planted.root), out
    _assert_results_readable(tmp_path)


def _run_ior_on_two_tasks(tmp_path, planted, env, binary, *options):
    """The IOR case on 1 node x 2 tasks of :data:`NODE`, with the
    companion; reframe's output."""
    proc = run_reframe(
        ['--system', 'localslurm:srun', '-c', str(IOR_CHECKS),
         '-c', str(STAMPED), '-n', 'ior_bandwidth|stamped_write',
         '-P', 'api=POSIX', '-P', 'access=fpp', '-P', 'transfer_size=1m',
         '-P', 'scale=1x2', '-S', 'repetitions=1', '-S', 'block_size=4m',
         '-S', f'ior_binary={binary}', *COMPANION, *options, '-r'],
        tmp_path, env={**env, 'PFSBENCH_SCRATCH': planted.root}, timeout=300)
    assert proc.returncode != 0
    _assert_passed(proc.stdout, 'stamped_write')
    _assert_results_readable(tmp_path)
    return _reason(proc.stdout, 'ior_bandwidth')


@needs_ior
@pytest.mark.slurm
def test_mpi_job_aborting_on_one_rank(tmp_path, planted, slurm_node):
    # Rank 1 of 2 gets a transfer size its block is no multiple of: IOR
    # aborts the whole MPI job from that rank.
    fake = _fake_tool(tmp_path, 'ior-rank1-fails',
                      f'if [ "$SLURM_PROCID" = 1 ]; then exec {IOR} "$@" '
                      f'-t 3m; fi\nexec {IOR} "$@"')
    reason = _run_ior_on_two_tasks(tmp_path, planted, slurm_node, fake)
    assert re.search(r"step 'write 1' exited with \d+", reason), reason
    assert ('IOR reported an error, got: "ERROR: block size must be a '
            'multiple of transfer size') in reason
    # The launcher names the rank that failed.
    assert re.search(r'last line of rfm_job.err: "srun: error: n\d: task 1: '
                     r'Exited with exit code \d+"', reason), reason


@needs_ior
@pytest.mark.slurm
def test_ior_started_as_singletons_by_srun(tmp_path, planted, slurm_node):
    # An MPI library that does not speak the launcher's PMI (MPICH under
    # srun --mpi=pmix): each task, not finding its PMI, is a singleton.
    # Open MPI refuses to start then, so each task here forgets Slurm's
    # and PMI's variables before it starts the real IOR.
    fake = _fake_tool(
        tmp_path, 'ior-without-pmi',
        "for v in $(env | cut -d= -f1 | grep -E '^(SLURM|PMIX?)_'); do "
        f'unset "$v"; done\nexec {IOR} "$@"')
    reason = _run_ior_on_two_tasks(
        tmp_path, planted, slurm_node, fake,
        '-S', 'ior_bandwidth.env_vars=SLURM_MPI_TYPE:none')
    assert ("step 'write 1': IOR started 2 times (a rank 0 each), the job "
            "started 2: the srun launcher did not start one MPI job "
            "(SLURM_MPI_TYPE=none; the MPI library needs its PMI plugin)"
            ) in reason, reason


def test_parsers_count_the_starts_of_a_tool():
    # Two real runs back to back: what two singletons print.
    for tool, name in (('ior', 'posix-1task.txt'),
                       ('mdtest', 'n100-N4x1-tmpfs.txt')):
        path = FIXTURES / tool / name
        if not path.exists():
            pytest.skip(f'{path} not found')
        parser = {'ior': ior_parser, 'mdtest': mdtest_parser}[tool]
        text = path.read_text()
        assert parser.starts(text) == 1
        assert parser.starts(text + text) == 2
