# SPDX-License-Identifier: BSD-3-Clause
"""pfsbench.commands.mdtest: exact argv of the IO500 presets, each flag of
the builder, the refusals, and (when mdtest is built) that mdtest accepts
what the builder writes."""

import shutil
import subprocess
from pathlib import Path

import pytest

from pfsbench.commands import mdtest
from pfsbench.core.shell import shell_join
from pfsbench.parsers import mdtest as mdtest_parser

# What IO500's --dry-run prints ('exe = ...'), as its builders write it
# (IO500/io500 commit 02091cf: src/phase_mdtest_easy.c, phase_mdtest_hard.c
# and the phase files phase_mdtest_{easy,hard}_{write,stat,read,delete}.c;
# -a POSIX from u_argv_push_default_if_set_api_options in src/util.c, with
# the default api POSIX of src/phase_opt.c), with -G's hash as 4711.
IO500_COMMON = {
    'easy': '--dataPacketType=timestamp -n 1000000 -u -L -F -P -G 4711 -N 1 '
            '-d /d/mdtest-easy -x /r/mdtest-easy.stonewall',
    'hard': '--dataPacketType=timestamp -n 1000000 -t -w 3901 -e 3901 -P '
            '-G=4711 -N 1 -F -d /d/mdtest-hard -x /r/mdtest-hard.stonewall'}
# Each phase adds its own flags, then its per-rank CSV.
IO500_PHASE_FLAGS = {
    ('easy', 'write'): '-C -Y -W 300', ('easy', 'stat'): '-T',
    ('easy', 'delete'): '-r', ('hard', 'write'): '-C -Y -W 300',
    ('hard', 'stat'): '-T', ('hard', 'read'): '-E -X',
    ('hard', 'delete'): '-r'}
IO500_DRY_RUN = {
    (preset, phase): f'{IO500_COMMON[preset]} {flags} '
                     f'--saveRankPerformanceDetails='
                     f'/r/mdtest-{preset}-{phase}.csv'
    for (preset, phase), flags in IO500_PHASE_FLAGS.items()}


def _io500(preset, phase, datadir='/d', resultdir='/r', **params):
    build = {'easy': mdtest.io500_mdtest_easy_argv,
             'hard': mdtest.io500_mdtest_hard_argv}[preset]
    return build(datadir, resultdir, phase, **params)


def _options(words):
    """Flag -> value (None for a bare flag), whatever the order; '-G=N'
    and '-G N' are the same option to mdtest's parser."""
    options = {}
    i = 0
    while i < len(words):
        flag, _, value = words[i].partition('=')
        if not value and i + 1 < len(words) \
                and not words[i + 1].startswith('-'):
            value = words[i + 1]
            i += 1
        assert flag not in options, (flag, words)
        options[flag] = value or None
        i += 1
    return options


@pytest.mark.parametrize('preset, phase', sorted(IO500_DRY_RUN))
def test_io500_flags(preset, phase):
    argv = _io500(preset, phase)
    io500 = IO500_DRY_RUN[preset, phase].split() + ['-a', 'POSIX']
    assert argv[0] == 'mdtest'
    assert _options(argv[1:]) == _options(io500)


def test_io500_easy_is_io500s_order():
    assert _io500('easy', 'write')[1:] == \
        IO500_DRY_RUN['easy', 'write'].split() + ['-a', 'POSIX']


def test_io500_phases():
    assert tuple(mdtest.IO500_EASY_PHASES) == ('write', 'stat', 'delete')
    with pytest.raises(ValueError, match='IO500 phase'):
        _io500('easy', 'read')
    with pytest.raises(ValueError, match='IO500 phase'):
        _io500('hard', 'create')


def test_io500_scaled_down():
    argv = _io500('hard', 'write', files_per_proc=50, stonewall_s=5,
                  api='MPIIO', executable='/opt/ior/bin/mdtest')
    options = _options(argv[1:])
    assert (options['-n'], options['-W'], options['-a']) == ('50', '5',
                                                             'MPIIO')
    assert argv[0] == '/opt/ior/bin/mdtest'


def test_every_flag():
    argv = mdtest.mdtest_argv(
        ['/a/md', '/b/md'], items_per_task=100, kind='dirs', unique_dir=True,
        depth=2, branching=3, leaf_only=True, sync_file=True, write_bytes=1,
        sync_phases=True, pre_delay_s=5, iterations=3, rate_and_time=True,
        rank_statistics=True, verbose=True, phases=('create', 'remove'),
        time_unique_dir=True, rank_details_csv='/r/x.csv',
        data_packet_type='offset', api='POSIX', buffer_offset=7)
    assert argv == [
        'mdtest', '--dataPacketType=offset', '-n', '100', '-z', '2', '-b',
        '3', '-u', '-L', '-t', '-w', '1', '-D', '-y', '-P', '-G', '7', '-p', '5', '-i',
        '3', '-d', '/a/md@/b/md', '-C', '-r', '-Y',
        '--saveRankPerformanceDetails=/r/x.csv', '--showRankStatistics',
        '-v', '-a', 'POSIX']


def test_sync_needs_a_write():
    # IOR's mdtest (3.3.0, 4.0.0, main) fsyncs a file only inside its -w
    # write (hints.fsyncPerWrite): -y without -w syncs nothing, which the
    # source's LLNL mdtest did (seed 004, E17).  Refused, not run unsynced.
    with pytest.raises(ValueError, match='-y syncs only what -w writes'):
        mdtest.mdtest_argv('/d', items_per_task=10, sync_file=True)
    argv = mdtest.mdtest_argv('/d', items_per_task=10, sync_file=True,
                              write_bytes=1)
    assert argv[argv.index('-w') + 1] == '1' and '-y' in argv


def test_seed004_e17_syncs_every_file_in_one_pass():
    argv = mdtest.seed004_argv('E17', '/d', 16)
    # -w 1 so that -y syncs every file; one pass (-i 1), as the source's
    # one run, not the best of three.
    assert argv[argv.index('-w') + 1] == '1' and '-y' in argv
    assert argv[argv.index('-i') + 1] == '1'
    for experiment in ('E15', 'E16'):
        argv = mdtest.seed004_argv(experiment, '/d', 16)
        assert '-y' not in argv and '-w' not in argv
        assert argv[argv.index('-i') + 1] == '1'


def test_files_with_data_stride_and_stonewall():
    argv = mdtest.mdtest_argv('$SCRATCH/md', items_per_task=1000,
                              kind='files', write_bytes=4096,
                              read_bytes=4096, verify_read=True, stride=4,
                              stonewall_s=30, stonewall_status_file='/r/sw')
    assert shell_join(argv) == (
        'mdtest -n 1000 -w 4096 -e 4096 -F -N 4 -d "$SCRATCH/md" -x /r/sw '
        '-X -W 30')


def test_defaults_add_no_flag():
    # Both kinds, all phases, a shared directory: mdtest's defaults.
    assert mdtest.mdtest_argv('/s', items_per_task=10) == [
        'mdtest', '-n', '10', '-d', '/s']
    assert mdtest.mdtest_argv('/s', items_per_dir=10, depth=1) == [
        'mdtest', '-I', '10', '-z', '1', '-d', '/s']


@pytest.mark.parametrize('params, match', [
    (dict(items_per_task=10, kind='links'), 'kind'),
    (dict(items_per_task=10, phases=('write',)), 'phases'),
    (dict(items_per_task=10, phases=()), 'phases'),
    (dict(), 'items_per_task'),
    (dict(items_per_task=0), 'items_per_task'),
    (dict(items_per_task=10, items_per_dir=5, unique_dir=True), 'not both'),
    (dict(items_per_task=10, items_per_dir=3), 'multiple'),
    (dict(items_per_task=10, branching=2), 'depth'),
    (dict(items_per_task=10, depth=2, branching=0), 'branching'),
    (dict(test_dirs=['/a', '/b'], items_per_task=10), 'directory per task'),
    (dict(test_dirs=['/a', '/b'], items_per_task=10, unique_dir=True,
          stride=1), 'stride'),
    (dict(items_per_task=10, verify_read=True), 'read_bytes'),
    (dict(items_per_task=10, read_bytes=8, verify_read=True,
          phases=('stat',)), 'read phase'),
    (dict(items_per_task=10, read_bytes=8, write_bytes=4), 'reads 8'),
    (dict(items_per_task=10, stonewall_s=5, phases=('stat',)), 'create'),
    (dict(items_per_task=10, stonewall_s=5, kind='dirs'), 'create'),
    (dict(items_per_task=10, stonewall_s=5, depth=2, branching=2),
     'branching'),
])
def test_refused(params, match):
    params = dict(params)
    dirs = params.pop('test_dirs', '/s')
    with pytest.raises(ValueError, match=match):
        mdtest.mdtest_argv(dirs, **params)


# The builder against a real mdtest 4.x (IO500 needs 4.x flags): every
# IO500 phase, scaled down, runs and parses, in IO500's order, with the
# stonewall state passed from write to the later phases.

REAL_MDTEST = Path('/opt/ior/bin/mdtest')


def test_real_io500_phases(tmp_path):
    mpirun = shutil.which('mpirun')
    if not (REAL_MDTEST.is_file() and mpirun):
        pytest.skip(f'no mdtest at {REAL_MDTEST} (build hpc/ior there) or '
                    f'no mpirun on PATH')
    (tmp_path / 'data').mkdir()
    (tmp_path / 'results').mkdir()
    for preset, phase in [('easy', 'write'), ('hard', 'write'),
                          ('easy', 'stat'), ('hard', 'stat'),
                          ('hard', 'read'), ('easy', 'delete'),
                          ('hard', 'delete')]:
        argv = _io500(preset, phase, str(tmp_path / 'data'),
                      str(tmp_path / 'results'), files_per_proc=20,
                      stonewall_s=1, executable=str(REAL_MDTEST))
        cmd = [mpirun, '--allow-run-as-root', '--oversubscribe', '-np', '2',
               *argv]
        print(' '.join(cmd))
        out = subprocess.run(cmd, capture_output=True, text=True,
                             timeout=120, cwd=tmp_path)
        text = out.stdout + out.stderr
        assert out.returncode == 0, text
        result = mdtest_parser.parse(text, source=f'{preset}-{phase}')
        step = {'write': 'file_create', 'stat': 'file_stat',
                'read': 'file_read', 'delete': 'file_remove'}[phase]
        assert result.summary(step).max_ops_per_s > 0, (preset, phase)
        assert result.summary(step).min_time_s is not None
        assert (tmp_path / 'results' /
                f'mdtest-{preset}-{phase}.csv').is_file()
    assert not any((tmp_path / 'data' / 'mdtest-easy').iterdir())
