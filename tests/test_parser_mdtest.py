# SPDX-License-Identifier: BSD-3-Clause
"""pfsbench.parsers.mdtest against every recorded mdtest fixture, and
against fresh runs of mdtest 3.3, 4.0 and 4.1 when they are installed.

Each fixture is real mdtest output (``tests/data/fixtures/mdtest/*.txt``)
with the command line, the job's shape and its exit code beside it
(``*.cmd``).  Nothing here is hand-written tool output: truncation cases
cut a real fixture short.
"""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES as ALL_FIXTURES
from conftest import assert_quotes_tool, fixture_dir, recorded_run
from pfsbench.core.errors import ParseError
from pfsbench.parsers import mdtest

FIXTURES = fixture_dir('mdtest')

ALL = sorted(p.name for p in FIXTURES.glob('*.txt'))

# The line each failed run must be reported by: mdtest's own ERROR or
# FAILED line, else its assertion failure, else its first WARNING about an
# item (4.x exits 0 after those), else the empty item count.  A new failing
# fixture must be added here, or test_every_failed_run_is_listed fails.
EXPECTED_FAILURE = {
    'fail-enospc-tinyfs.txt':
        "mdtest: aiori-POSIX.c:818: POSIX_Xfer: Assertion `rc >= 0' failed.",
    'fail-no-n.txt': '1 tasks, 0 files/directories',
    'fail-nonexistent-parent.txt':
        'ERROR: open64("/scratch/does/not/exist/md/test-dir.0-0/'
        'mdtest_tree.0/file.mdtest.2.0", 66, 0664) failed.',
    'fail-stat-missing-T.txt':
        'WARNING: unable to stat file /scratch/pfs/md/never-created/',
    'v3.3.0-fail-stat-missing-T.txt':
        '11/22/2026 10:07:25: Process 2: FAILED in mdtest_stat, unable to '
        'stat file',
    'v4.0.0-fail-stat-missing-T.txt':
        'WARNING: unable to stat file /scratch/pfs/md/v4.0.0-never/',
}

DIR_PHASES = ('dir_create', 'dir_stat', 'dir_rename', 'dir_remove')
FILE_PHASES = ('file_create', 'file_stat', 'file_read', 'file_remove')
ITEM_PHASES = DIR_PHASES + FILE_PHASES
# -C/-T/-E/-r -> the phases they run (the tree is built by the create
# phase and removed by the remove phase).
PHASE_FLAGS = {'-C': ('dir_create', 'file_create', 'tree_create'),
               '-T': ('dir_stat', 'file_stat'),
               '-E': ('file_read',),
               '-r': ('dir_remove', 'file_remove', 'tree_remove')}


def _installed_versions():
    """Install directory name -> mdtest version, from VERSIONS.txt
    (``ior-4.0.0 mdtest: mdtest-4.0.0``)."""
    text = (ALL_FIXTURES / 'VERSIONS.txt').read_text()
    return dict(re.findall(r'^(ior\S*) mdtest: mdtest-(\S+)', text, re.M))


def _cmd(name):
    """The recorded command: mdtest flags, tasks, nodes, exit code, and
    what the flags ask for."""
    run = recorded_run((FIXTURES / name).with_suffix('.cmd'), 'mdtest')
    flags = run['flags']

    def opt(flag, default):
        return int(flags[flags.index(flag) + 1]) if flag in flags \
            else default

    if '-n' in flags:
        per_task = opt('-n', 0)
    else:
        # -I items in each directory of a tree of depth -z, branching -b.
        per_task = opt('-I', 0) * sum(opt('-b', 1) ** k
                                      for k in range(opt('-z', 0) + 1))
    first = (FIXTURES / name).with_suffix('.cmd').read_text().split()
    install = next(Path(w).parts[2] for w in first if w.endswith('/mdtest'))
    return dict(run, items_per_task=per_task, iterations=opt('-i', 1),
                version=_installed_versions()[install])


def _text(name):
    return (FIXTURES / name).read_text()


def _ok(name):
    return not _cmd(name)['failed'] and 'fail-' not in name


OK = [n for n in ALL if _ok(n)]
FAILED = [n for n in ALL if not _ok(n)]


def test_fixtures_present():
    assert len(OK) >= 15 and len(FAILED) >= 5, (OK, FAILED)
    versions = {mdtest.parse(_text(n)).version for n in OK}
    assert {'3.3.0', '4.0.0', '4.1.0+dev'} <= versions


def test_every_failed_run_is_listed():
    assert sorted(FAILED) == sorted(EXPECTED_FAILURE)


@pytest.mark.parametrize('name', FAILED)
def test_failed_run_raises_quoting_the_tool(name):
    with pytest.raises(ParseError) as err:
        mdtest.parse(_text(name), source=name)
    assert_quotes_tool(err.value, name, _text(name), EXPECTED_FAILURE[name])


def test_failed_stat_counts_every_warning():
    name = 'fail-stat-missing-T.txt'
    with pytest.raises(ParseError, match=r'warned of 200 failed'):
        mdtest.parse(_text(name), source=name)


def test_error_names_the_first_failed_warning():
    name = 'fail-nonexistent-parent.txt'
    with pytest.raises(ParseError) as err:
        mdtest.parse(_text(name), source=name)
    assert '(after "WARNING: Unable to create test directory path ' \
           '/scratch/does/not/exist/md")' in str(err.value)


@pytest.mark.parametrize('name', OK)
def test_counts_match_command_line(name):
    result = mdtest.parse(_text(name), source=name)
    cmd = _cmd(name)
    assert result.version == cmd['version']
    assert (result.tasks, result.nodes) == (cmd['tasks'], cmd['nodes'])
    assert result.items_per_task == cmd['items_per_task']
    assert result.items == cmd['items_per_task'] * cmd['tasks']
    assert result.iterations == cmd['iterations']
    assert result.command_argv[1:] == tuple(cmd['flags'])
    assert result.command_argv[0].endswith('/mdtest')
    flags = cmd['flags']
    assert result.item_kind == ('files' if '-F' in flags else 'directories'
                                if '-D' in flags else 'files/directories')


@pytest.mark.parametrize('name', OK)
def test_phases_match_command_line(name):
    result = mdtest.parse(_text(name), source=name)
    flags = _cmd(name)['flags']
    printed = {p.phase for p in result.phases} | set(result.not_run)
    assert not printed & set(DIR_PHASES if '-F' in flags else FILE_PHASES
                             if '-D' in flags else ())
    # mdtest 4.0 added the rename phase.
    assert ('dir_rename' in printed) == (
        '-F' not in flags and not result.version.startswith('3.'))
    asked = [f for f in PHASE_FLAGS if f in flags]
    if asked:
        wanted = {p for f in asked for p in PHASE_FLAGS[f]}
        assert {p.phase for p in result.phases} == wanted & printed
        assert set(result.not_run) == printed - wanted
    else:
        assert result.not_run == ()


def _check_spread(summary, iterations):
    groups = [('max_ops_per_s', 'mean_ops_per_s', 'min_ops_per_s'),
              ('rank_max_ops_per_s', 'rank_mean_ops_per_s',
               'rank_min_ops_per_s'),
              ('max_time_s', 'mean_time_s', 'min_time_s')]
    for high, mean, low in groups:
        values = [getattr(summary, f) for f in (high, mean, low)]
        if values[0] is None:
            assert values == [None] * 3, (summary, high)
            continue
        # Three printed decimals: the mean may round 0.001 past a bound.
        assert values[0] + 0.001 >= values[1] >= values[2] - 0.001, \
            (summary, high)
        assert values[2] >= 0
    for stddev in (summary.stddev_ops_per_s, summary.stddev_time_s):
        if stddev is not None:
            assert stddev >= 0
            if iterations == 1:
                assert stddev == 0


@pytest.mark.parametrize('name', OK)
def test_summary_statistics_are_ordered(name):
    result = mdtest.parse(_text(name), source=name)
    assert result.phases
    for summary in result.phases:
        assert summary.max_ops_per_s > 0
        _check_spread(summary, result.iterations)


def _check_rate_times_time(result):
    """An item phase's best rate and shortest time come from the same
    iteration (or task, 3.x): rate = all items / time, to the three
    decimals printed (a time off by 0.0005 s moves the product by
    rate x 0.0005)."""
    checked = 0
    for summary in result.phases:
        if summary.phase not in ITEM_PHASES or summary.min_time_s is None:
            continue
        rate, time = summary.max_ops_per_s, summary.min_time_s
        assert abs(rate * time - result.items) <= rate * 0.0005 + 1, summary
        checked += 1
    return checked


def test_time_table_is_seconds_per_phase():
    # mdtest 4.1 titles it '(in ms/op)'; the figures are phase durations.
    result = mdtest.parse(_text('n100-w4k-e4k-F-P.txt'))
    assert _check_rate_times_time(result) >= 1
    create = result.summary('file_create')
    assert (create.max_time_s, create.min_time_s) == (0.206, 0.197)


def test_rank_statistics():
    result = mdtest.parse(_text('n100-rank-stats.txt'))
    stat = result.summary('file_stat')
    assert (stat.rank_max_ops_per_s, stat.rank_min_ops_per_s,
            stat.rank_mean_ops_per_s) == (406424.806, 304818.605,
                                          354241.617)
    assert (stat.max_ops_per_s, stat.stddev_ops_per_s) == (622069.559,
                                                           20820.391)
    plain = mdtest.parse(_text('n100-i2-shared-dir.txt'))
    assert plain.summary('file_stat').rank_max_ops_per_s is None


def test_colon_rows_of_3_3():
    result = mdtest.parse(_text('v3.3.0-n100-i2-shared-dir.txt'))
    stat = result.summary('dir_stat')
    assert (stat.max_ops_per_s, stat.min_ops_per_s, stat.mean_ops_per_s,
            stat.stddev_ops_per_s) == (434096.076, 95252.678, 241153.153,
                                       144327.123)
    assert result.summary('dir_rename') is None


def test_not_run_phases_are_none_not_zero():
    result = mdtest.parse(_text('phase-T-stat.txt'))
    assert result.summary('file_create') is None
    assert 'file_create' in result.not_run
    assert result.summary('file_stat').max_ops_per_s == 617717.820
    with pytest.raises(KeyError, match='expected one of'):
        result.summary('file_write')


def test_verbose_samples_agree_with_summary():
    result = mdtest.parse(_text('n100-verbose-v.txt'))
    assert result.disagreements == ()
    for summary in result.phases:
        samples = result.samples_of(summary.phase)
        assert [s.iteration for s in samples] == [0]
    tree = result.summary('tree_create')
    assert result.samples_of('tree_create')[0].ops_per_s == \
        tree.max_ops_per_s == 19152.073
    create = result.samples_of('file_create')[0]
    assert (create.duration_s, create.ops_per_s) == (0.004, 4930.995)


def test_disagreement_is_reported():
    """The checks can fail: the 4.1 fixture's own lines, read under 3.x's
    rule (rank 0's rate is one of the summary's samples) or as a one-task
    run, contradict its summary, as hpc/ior issue 183 reported."""
    result = mdtest.parse(_text('n100-verbose-v.txt'))
    as_33 = mdtest.disagreements('3.3.0', result.tasks, 1, result.phases,
                                 result.samples)
    assert {d.phase for d in as_33} == {'file_create', 'file_stat',
                                        'file_read', 'file_remove'}
    create = next(d for d in as_33 if d.phase == 'file_create')
    assert (create.statistic, create.summary_ops_per_s,
            create.iterations_ops_per_s) == ('min', 9796.914, 4930.995)
    one_task = mdtest.disagreements('4.1.0', 1, 1, result.phases,
                                    result.samples)
    assert {(d.phase, d.statistic) for d in one_task} >= {
        ('file_create', 'max'), ('file_create', 'min')}
    wrong_count = mdtest.disagreements(result.version, result.tasks, 2,
                                       result.phases, result.samples)
    assert {d.statistic for d in wrong_count} == {'count'}


@pytest.mark.parametrize('name', OK)
def test_no_disagreement_in_fixtures(name):
    result = mdtest.parse(_text(name), source=name)
    assert result.disagreements == ()
    assert bool(result.samples) == ('-v' in _cmd(name)['flags'])


def test_shifted_ranks_line_is_not_a_sample():
    result = mdtest.parse(_text('n200-i2-files-F-y-N1-u.txt'))
    assert result.samples == ()


@pytest.mark.parametrize('name', ['n100-i2-shared-dir.txt',
                                  'v3.3.0-n100-i2-shared-dir.txt',
                                  'v4.0.0-n100-i2-unique-F-y-N1.txt',
                                  'n100-w4k-e4k-F-P.txt'])
@pytest.mark.parametrize('keep', [0.3, 0.6, 0.9, 0.99])
def test_truncated_output_raises(name, keep):
    lines = _text(name).rstrip().splitlines(keepends=True)
    cut = ''.join(lines[:int(len(lines) * keep)])
    with pytest.raises(ParseError) as err:
        mdtest.parse(cut, source=name)
    assert err.value.line == cut.rstrip().splitlines()[-1].strip()


def test_no_mdtest_output_raises():
    with pytest.raises(ParseError, match="expected an 'mdtest-<version>"):
        mdtest.parse('srun: job 12 queued and waiting for resources\n', 'x')


# Real mdtest, when built (outside the repository, from hpc/ior) under
# /opt: the output of each version the suite supports, including -P with
# -v, --showRankStatistics, stonewalls and task sweeps that no shared
# fixture records.

REAL = {'3.3.0': Path('/opt/ior-3.3.0/bin/mdtest'),
        '4.0.0': Path('/opt/ior-4.0.0/bin/mdtest'),
        '4.': Path('/opt/ior/bin/mdtest')}


@pytest.fixture(params=sorted(REAL))
def real_mdtest(request, tmp_path):
    """(expected version prefix, run(flags) -> (exit code, output))."""
    exe = REAL[request.param]
    mpirun = shutil.which('mpirun')
    if not (exe.is_file() and mpirun):
        pytest.skip(f'no mdtest at {exe} (build hpc/ior {request.param} '
                    f'there) or no mpirun on PATH')

    def run(flags):
        cmd = [mpirun, '--allow-run-as-root', '--oversubscribe', '-np', '2',
               str(exe), *flags, '-d', str(tmp_path / 'md')]
        print(' '.join(cmd))
        out = subprocess.run(cmd, capture_output=True, text=True,
                             timeout=120, cwd=tmp_path)
        return out.returncode, out.stdout + out.stderr
    return request.param, run


def test_real_verbose_with_time_table(real_mdtest):
    version, run = real_mdtest
    flags = ['-v', '-P', '-n', '10', '-i', '2']
    if version != '3.3.0':
        flags.append('--showRankStatistics')
    rc, text = run(flags)
    assert rc == 0, text
    result = mdtest.parse(text, source='real-mdtest')
    assert result.version.startswith(version)
    assert (result.tasks, result.nodes, result.items) == (2, 1, 20)
    assert result.iterations == 2
    assert result.disagreements == (), result.disagreements
    for summary in result.phases:
        _check_spread(summary, 2)
        samples = result.samples_of(summary.phase)
        assert [s.iteration for s in samples] == [0, 1]
        assert summary.min_time_s is not None
        assert (summary.rank_max_ops_per_s is None) == (version == '3.3.0')
    assert _check_rate_times_time(result) >= 7
    tree = result.summary('tree_create')
    assert tree.max_ops_per_s == max(
        s.ops_per_s for s in result.samples_of('tree_create'))


def test_real_stonewall(real_mdtest):
    version, run = real_mdtest
    rc, text = run(['-W', '1', '-C', '-F', '-n', '1000000'])
    assert rc == 0, text
    result = mdtest.parse(text, source='real-mdtest')
    assert len(result.stonewall_hits) == 1
    hit = result.stonewall_hits[0]
    assert hit.items_min <= hit.items_mean <= hit.items_max < 1000000
    assert result.summary('file_create').max_ops_per_s > 0
    assert set(result.not_run) == {'file_stat', 'file_read', 'file_remove',
                                   'tree_remove'}
    if version == '3.3.0':
        # Only 3.3 prints a 'File create (stonewall)' row.
        assert result.stonewall_create_ops_per_s > 0
    else:
        assert result.stonewall_create_ops_per_s is None


def test_real_task_sweep_is_refused(real_mdtest):
    version, run = real_mdtest
    rc, text = run(['-f', '1', '-l', '2', '-s', '1', '-F', '-n', '5'])
    if version == '3.3.0':
        # 3.3 crashes in its second test (MPI_ERR_COMM in MPI_Barrier).
        # What reaches the output varies: Open MPI's message or, in 12 of
        # 25 runs here, only 'ORTE_ERROR_LOG: ... show_help.c' in its
        # place; mdtest's buffered stdout may or may not have been written
        # (the second '2 tasks' line, or not even '-- finished at').  Each
        # way the run is refused, never parsed.
        assert rc != 0
        with pytest.raises(ParseError,
                           match='an MPI call failed|one test per run|'
                                 r"'-- finished at' line \(truncated"):
            mdtest.parse(text, source='real-mdtest')
        return
    assert rc == 0, text
    with pytest.raises(ParseError, match='one test per run') as err:
        mdtest.parse(text, source='real-mdtest')
    assert err.value.line == '2 tasks, 10 files'


def test_real_missing_files_fail(real_mdtest):
    version, run = real_mdtest
    rc, text = run(['-T', '-F', '-n', '5'])
    with pytest.raises(ParseError) as err:
        mdtest.parse(text, source='real-mdtest')
    if version == '3.3.0':
        assert rc != 0 and 'FAILED in mdtest_stat' in err.value.line
    else:
        # 4.x warns about each missing file and exits 0.
        assert rc == 0
        assert err.value.line.startswith('WARNING: unable to stat file')
        assert 'warned of 10 failed' in str(err.value)


def test_real_rates_times_and_items(real_mdtest):
    _, run = real_mdtest
    rc, text = run(['-P', '-F', '-n', '200', '-w', '4096', '-e', '4096'])
    assert rc == 0, text
    result = mdtest.parse(text, source='real-mdtest')
    assert result.items == 400 and result.item_kind == 'files'
    assert _check_rate_times_time(result) == 4
