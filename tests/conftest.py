# SPDX-License-Identifier: BSD-3-Clause
"""Shared test helpers: where things are, running reframe, the Slurm cluster.

``reframe`` runs as a subprocess with ``PFSBENCH_RUNS`` pointing at a fresh
temporary directory, so tests never touch the repository's ``runs/``.  The
``localslurm`` fixture brings the test cluster up (root only) and skips with
the reason when it cannot.
"""

import fcntl
import glob
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis.configuration import set_hypothesis_home_dir

# The throw-away PostgreSQL (tests/pgcluster.py), one for the session:
# a module that imports these fixtures itself starts its own.
from pgcluster import pg_cluster, pg_url  # noqa: F401

REPO = Path(__file__).resolve().parents[1]
# The recorded tool outputs and the seeds live in the repository: a clone's
# tests read nothing beside it (tests/data/fixtures/README.md).
DATA = REPO / 'tests' / 'data'
FIXTURES = DATA / 'fixtures'
SEEDS = DATA / 'seeds'
CONFIG = REPO / 'config' / 'settings.py'
CHECKS = REPO / 'reframe-checks'
LOCALSLURM = REPO / 'tests' / 'localslurm' / 'localslurm.sh'

# Hypothesis caches what it learns of the code under .hypothesis/ in the
# working directory, the checkout (even with database=None): in a directory
# of its own instead, for every property test.  It is removed when the
# session ends (pytest_unconfigure), which also runs in a process that
# leaves by os._exit without running atexit (mutmut's mutant runs, each
# importing this file again); PFSBENCH_HYPOTHESIS_HOME names one that its
# owner removes (bench/mutation.py), for a run killed before its end.
_HYPOTHESIS_HOME = (None if os.environ.get('PFSBENCH_HYPOTHESIS_HOME')
                    else tempfile.TemporaryDirectory(
                        prefix='pfsbench-hypothesis-'))
set_hypothesis_home_dir(os.environ.get('PFSBENCH_HYPOTHESIS_HOME')
                        or _HYPOTHESIS_HOME.name)


def fixture_dir(tool):
    """``tests/data/fixtures/<tool>``: the recorded outputs of ``tool``.

    They are part of the repository, so a missing directory is an error,
    not a skip."""
    path = FIXTURES / tool
    if not path.is_dir():
        raise FileNotFoundError(f'{path}: no recorded outputs of {tool} '
                                f'(tests/data/fixtures/README.md)')
    return path


def recorded_run(cmd_file, tool):
    """What a fixture's ``.cmd`` recorded beside its output.

    The first line is the command (``srun ... /opt/ior/bin/<tool> FLAGS``
    or ``mpirun -np N ...``), a ``# sbatch`` line gives the job's shape and
    a ``# ExitCode=`` line its exit code.

    Args:
        cmd_file: the ``.cmd`` file.
        tool: the executable's base name (``'ior'``, ``'mdtest'``).

    Returns:
        a dict: ``flags`` (the tool's arguments), ``tasks``, ``nodes``
        (``sbatch -N``) and ``failed`` (a non-zero exit code).
    """
    lines = Path(cmd_file).read_text().splitlines()
    argv = shlex.split(lines[0].split(';')[0])
    start = next(i for i, w in enumerate(argv) if w.endswith('/' + tool))
    launcher = argv[:start]
    sbatch_line = next(x for x in lines if x.startswith('# sbatch'))
    sbatch = shlex.split(sbatch_line[2:])
    if '-np' in launcher:
        tasks = int(launcher[launcher.index('-np') + 1])
    elif '-n' in sbatch:
        tasks = int(sbatch[sbatch.index('-n') + 1])
    else:
        per_node = next(int(w.split('=')[1]) for w in sbatch
                        if w.startswith('--ntasks-per-node='))
        tasks = int(sbatch[sbatch.index('-N') + 1]) * per_node
    exit_code = re.search(r'ExitCode=(\d+):(\d+)', '\n'.join(lines))
    return {'flags': argv[start + 1:], 'tasks': tasks,
            'nodes': int(sbatch[sbatch.index('-N') + 1]),
            'failed': exit_code.groups() != ('0', '0')}


def assert_quotes_tool(error, name, text, expected):
    """A ParseError from fixture ``name`` quotes the tool's own line: one
    that starts with ``expected``, as it stands at the line number given,
    in a message that starts ``name:lineno:``."""
    assert error.line.startswith(expected), str(error)
    assert str(error).startswith(f'{name}:{error.lineno}: ')
    assert f'got: "{error.line}"' in str(error)
    assert text.splitlines()[error.lineno - 1].strip() == error.line


def reframe_bin():
    exe = Path(sys.executable).with_name('reframe')
    return str(exe) if exe.exists() else shutil.which('reframe')


def run_reframe(args, runs_dir, env=None, timeout=900, config=CONFIG):
    """Run ``reframe -C config/settings.py ARGS`` with its own runs dir.

    Returns:
        the CompletedProcess (stdout and stderr as text); the command is
        printed so a failing case can be rerun by hand.
    """
    cmd = [reframe_bin(), '-C', str(config)] + list(args)
    print('+', ' '.join(cmd))
    return subprocess.run(cmd, cwd=REPO, env=reframe_env(runs_dir, env),
                          timeout=timeout, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)


def default_signals():
    """``preexec_fn`` of a process a test signals: SIGHUP, SIGINT and
    SIGTERM at their defaults, as a user's shell or a batch job starts it.
    A test suite started under nohup (SIGHUP ignored) or as a background
    job of a shell without job control (SIGINT ignored) passes the ignore
    on, and a program cannot trap what arrives ignored."""
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)


def start_reframe(args, runs_dir, env=None, config=CONFIG):
    """:func:`run_reframe` in the background (to signal it): the Popen,
    stdout and stderr merged into one text pipe."""
    cmd = [reframe_bin(), '-C', str(config)] + list(args)
    print('+', ' '.join(cmd), '&', flush=True)
    return subprocess.Popen(cmd, cwd=REPO, env=reframe_env(runs_dir, env),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True,
                            preexec_fn=default_signals)


def reframe_env(runs_dir, env=None):
    """The environment of a test's ``reframe``: its own runs directory, no
    scratch or Spack build of the developer's, then ``env``."""
    full_env = dict(os.environ)
    full_env['PFSBENCH_RUNS'] = str(runs_dir)
    # A developer's own scratch or Spack build (an activated SPACK_ENV
    # included: pfsbench.site.spack.environment takes it) must not leak into a
    # test.
    for name in ('PFSBENCH_SCRATCH', 'PFSBENCH_SPACK_ENV',
                 'PFSBENCH_SPACK_VIEW', 'SPACK_ENV'):
        full_env.pop(name, None)
    full_env.update(env or {})
    return full_env


def slurm_env():
    """The environment that points Slurm clients at the test cluster."""
    out = subprocess.run(['bash', str(LOCALSLURM), 'env'],
                         stdout=subprocess.PIPE, universal_newlines=True,
                         check=True).stdout
    env = {}
    for line in out.splitlines():
        if line.startswith('export '):
            key, _, value = line[len('export '):].partition('=')
            env[key] = value.strip('\'"')
    return env


@pytest.fixture
def open_tmp_path():
    """A temporary directory under /var/tmp whose parents an unprivileged
    user can traverse (pytest's own tmp_path sits under a 0700 directory)."""
    import tempfile
    base = Path(tempfile.mkdtemp(prefix='pfsbench-test-', dir='/var/tmp'))
    base.chmod(0o711)
    yield base
    shutil.rmtree(base, ignore_errors=True)


#: ReFrame's loader on every check under reframe-checks/, in a fresh
#: interpreter (ReFrame's runtime is process-global).
LOADER = '''
import json, sys
import reframe.core.config as config
import reframe.core.runtime as runtime
from reframe.frontend.loader import RegressionCheckLoader

site = config.load_config(sys.argv[1])
site.select_subconfig('local')
runtime.init_runtime(site)
described = {}
for check in RegressionCheckLoader([sys.argv[2]], recurse=True).load_all():
    cls = type(check)
    described.setdefault(cls.__name__, {
        'loggable': sorted(alt or name for name, alt in cls.loggable_attrs()),
        'perf': sorted(check.perf_variables),
        'tool': check.tool})
print(json.dumps(described))
'''


@pytest.fixture(scope='session')
def described_checks(tmp_path_factory):
    """``{check class: {'loggable': [...], 'perf': [...], 'tool': ...}}``
    of every check as ReFrame's loader finds it: loaded once per run
    (3 s of CPU; test_fields and test_spack_tools both read it), with no
    Spack environment of the caller's.  Under pytest-xdist the first
    worker to ask loads it into the run's temporary directory, which the
    workers share; the others read that."""
    if 'PYTEST_XDIST_WORKER' not in os.environ:
        return _describe_checks(tmp_path_factory)
    shared = tmp_path_factory.getbasetemp().parent / 'described_checks.json'
    with open(shared.with_suffix('.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not shared.exists():
            described = _describe_checks(tmp_path_factory)
            shared.with_suffix('.partial').write_text(json.dumps(described))
            shared.with_suffix('.partial').rename(shared)
    return json.loads(shared.read_text())


def _describe_checks(tmp_path_factory):
    """Run :data:`LOADER` in a fresh interpreter: its JSON, read."""
    env = dict(os.environ, PFSBENCH_RUNS=str(tmp_path_factory.mktemp('r')))
    for name in ('PFSBENCH_SPACK_ENV', 'PFSBENCH_SPACK_VIEW', 'SPACK_ENV'):
        env.pop(name, None)
    cmd = [sys.executable, '-c', LOADER, str(CONFIG), str(CHECKS)]
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    described = json.loads(proc.stdout.splitlines()[-1])
    assert described, f'no checks found under {CHECKS}'
    return described


@pytest.fixture(scope='session')
def localslurm():
    """The localhost Slurm cluster, up; its client environment."""
    if os.geteuid() != 0:
        pytest.skip('the localhost Slurm cluster needs root (munge, slurmd '
                    'in UTS namespaces)')
    if os.environ.get('PFSBENCH_NO_SLURM'):
        pytest.skip('PFSBENCH_NO_SLURM is set')
    proc = subprocess.run(['bash', str(LOCALSLURM), 'up'],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    if proc.returncode != 0:
        pytest.fail(f'localslurm.sh up failed:\n{proc.stdout}')
    return slurm_env()


def job_script(runs, system, partition, test):
    """The job script ReFrame wrote for ``test`` (the first case's)."""
    paths = glob.glob(f'{runs}/output/{system}/{partition}/builtin/'
                      f'{test}_*/rfm_job.sh') or glob.glob(
        f'{runs}/stage/{system}/{partition}/builtin/{test}_*/rfm_job.sh')
    assert paths, f'no job script for {test} under {runs}'
    return open(paths[0]).read()


def launch_phases(script):
    """The streams runner's phases in a job script's ``srun`` line.

    Returns:
        ([(phase name, command), ...], the srun line's argv).
    """
    (launch,) = [ln for ln in script.splitlines() if ln.startswith('srun ')]
    argv = shlex.split(launch)
    return [tuple(argv[i + 1].split('=', 1)) for i, w in enumerate(argv)
            if w == '--phase'], argv


def perflog(runs, system, partition, test):
    """(header, [record, ...]) of ``test``'s perflog."""
    path = f'{runs}/perflogs/{system}/{partition}/{test}.log'
    with open(path) as fp:
        header, *records = fp.read().splitlines()
    return header, records


def perflog_dicts(runs, system, partition, test):
    """``test``'s perflog records as dicts, by the header's column names (a
    figure's column holds ``name=value``: the figure, as a float, under its
    name; None where ReFrame logged ``None``); [] where there is no
    perflog."""
    path = f'{runs}/perflogs/{system}/{partition}/{test}.log'
    if not os.path.exists(path):
        return []
    with open(path) as fp:
        header, *lines = fp.read().splitlines()
    out = []
    for line in lines:
        record = {}
        for name, value in zip(header.split('|'), line.split('|')):
            if name.endswith('_value') and '=' in value:
                key, _, value = value.partition('=')
                try:
                    record[key] = float(value)
                except ValueError:
                    record[key] = None
            else:
                record.setdefault(name, value)
        out.append(record)
    return out


def perf_value(record, name):
    """The value of figure ``name`` in a perflog record."""
    return float(re.search(rf'\|{name}=([0-9.e+-]+)\|', record).group(1))


def run_streams_on_localslurm(checks, test, runs, env, extra=()):
    """Run ``test`` (a streams family) on 2 nodes x 2 streams of the
    localhost Slurm cluster (``srun``), which must pass.

    Args:
        extra: more reframe arguments (``-S name=value``).

    Returns:
        (the job script's lines, the job's output).
    """
    proc = run_reframe(['--system', 'localslurm:srun', '-c', str(checks),
                        '-n', test, '-P', 'nodes=2',
                        '-P', 'streams_per_node=2', *extra, '-r'], runs,
                       env=env)
    assert proc.returncode == 0, proc.stdout
    script = job_script(runs, 'localslurm', 'srun', test).splitlines()
    assert '#SBATCH --nodes=2' in script
    assert '#SBATCH --ntasks-per-node=2' in script
    assert '#SBATCH --ntasks=4' in script
    (out,) = glob.glob(f'{runs}/output/localslurm/srun/builtin/{test}_*/'
                       f'rfm_job.out')
    with open(out) as fp:
        return script, fp.read()


def pytest_configure(config):
    import lanes
    for lane, why in lanes.LANES.items():
        config.addinivalue_line('markers', f'{lane}: {why}')


def pytest_unconfigure(config):
    if _HYPOTHESIS_HOME is not None:
        _HYPOTHESIS_HOME.cleanup()


def pytest_collection_modifyitems(config, items):
    # Lanes come from what each test uses (tests/lanes.py), so a new test
    # lands in the right lane without anyone remembering a marker.
    import lanes
    lanes.mark(items, pytest)
