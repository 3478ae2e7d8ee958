# SPDX-License-Identifier: BSD-3-Clause
"""pfsbench.parsers.iozone on every recorded iozone output.

The outputs are real iozone 3.487 runs: ``tests/data/fixtures/iozone`` and
``tests/data/iozone`` (recorded for the modes those lack, see its
SOURCES.md), each with its command line in a ``.cmd``.  Truncated cases are
cut from them in the tests.
"""

import os
import re
import shlex
import shutil
import subprocess

import pytest

from conftest import fixture_dir
from recorded import (DATA, failure_test, flag_value, outputs,
                      recorded_flags)
from pfsbench.commands import iozone as iozone_cmd
from pfsbench.core.errors import ParseError
from pfsbench.parsers import iozone

SHARED = fixture_dir('iozone')
LOCAL = DATA / 'iozone'
OK, FAILED = outputs('iozone', at_least=10)

# The line each failed run must be reported by: iozone's own message.
EXPECTED_FAILURE = {
    'fail-nonexistent-dir.txt':
        'Can not open temp file: /scratch/does/not/exist/f',
}
# iozone's -i numbers -> the throughput sub-tests they run.
THROUGHPUT_TESTS = {
    0: ('initial writers', 'rewriters'), 1: ('readers', 're-readers'),
    2: ('random readers', 'random writers'), 3: ('reverse readers',),
    5: ('stride readers',), 8: ('mixed workload',),
    9: ('pwrite writers',), 10: ('pread readers',),
    6: ('fwriters',), 7: ('freaders',),
}
# ... and the table columns.
TABLE_TESTS = {
    0: ('write', 'rewrite'), 1: ('read', 'reread'),
    2: ('random read', 'random write'), 3: ('bkwd read',),
    4: ('record rewrite',), 5: ('stride read',),
    6: ('fwrite', 'frewrite'), 7: ('fread', 'freread'),
}
_KIB = {'': 1, 'k': 1, 'm': 2**10, 'g': 2**20}


def _kib(size):
    m = re.fullmatch(r'(\d+)([kmg]?)', size)
    return int(m.group(1)) * _KIB[m.group(2)]


def _tests(flags):
    return [int(flags[i + 1]) for i, f in enumerate(flags) if f == '-i']


test_failed_run_quotes_iozone_error = failure_test(iozone.parse, FAILED,
                                                   EXPECTED_FAILURE)


@pytest.mark.parametrize('path', OK, ids=lambda p: p.name)
def test_settings_match_the_command(path):
    flags = recorded_flags(path, 'iozone')
    result = iozone.parse(path.read_text(), path.name)
    s = result.settings
    assert (s.version, s.build) == ('3.487', 'linux-AMD64')
    assert s.command_line.split()[1:] == flags
    if '-a' not in flags:
        assert s.file_size_kib == _kib(flag_value(flags, '-s'))
        assert s.record_size_kib == _kib(flag_value(flags, '-r'))
    assert s.auto_mode == ('-a' in flags)
    assert s.o_direct == ('-I' in flags)
    assert s.sync_mode == ('-o' in flags)
    assert s.include_close == ('-c' in flags)
    assert s.include_fsync == ('-e' in flags)
    assert s.ops_mode == ('-O' in flags)
    assert s.processes_min == (int(flag_value(flags, '-l')) if '-l' in flags
                               else None)
    expected_mode = ('throughput' if '-t' in flags or '-l' in flags
                     else 'auto' if '-a' in flags else 'single')
    assert result.mode == expected_mode


def _process_counts(flags):
    if '-l' in flags:
        return list(range(int(flag_value(flags, '-l')),
                          int(flag_value(flags, '-u')) + 1))
    return [int(flag_value(flags, '-t'))]


THROUGHPUT_OK = [p for p in OK
                 if {'-t', '-l'} & set(recorded_flags(p, 'iozone'))]
TABLE_OK = [p for p in OK if p not in THROUGHPUT_OK]


@pytest.mark.parametrize('path', THROUGHPUT_OK, ids=lambda p: p.name)
def test_throughput_blocks_match_the_command(path):
    flags = recorded_flags(path, 'iozone')
    result = iozone.parse(path.read_text(), path.name)
    numbers = _tests(flags) or [0, 1, 2, 3, 5, 8, 9, 10, 6, 7]
    expected = [t for n in numbers for t in THROUGHPUT_TESTS[n]]
    for processes in _process_counts(flags):
        blocks = [b for b in result.throughput if b.processes == processes]
        assert sorted(b.test for b in blocks) == sorted(expected)
        for b in blocks:
            assert (b.file_size_kib, b.record_size_kib) == (
                _kib(flag_value(flags, '-s')), _kib(flag_value(flags, '-r')))
            assert (b.ops_per_s is not None) == ('-O' in flags)
            assert (b.kib_s is None) == ('-O' in flags)
    assert len(result.throughput) == len(expected) * len(
        _process_counts(flags))


def _iozone_min(values):
    """iozone's minimum: 0 means "none yet", so a leading 0 is skipped and
    a later one kept (iozone.c, every throughput sub-test)."""
    low = 0
    for value in values:
        if not low or value < low:
            low = value
    return low


@pytest.mark.parametrize('path', THROUGHPUT_OK, ids=lambda p: p.name)
def test_children_sum_is_avg_times_processes(path):
    result = iozone.parse(path.read_text(), path.name)
    assert result.throughput, path
    for block in result.throughput:
        f = block.figures
        # iozone prints two decimals: allow their rounding.
        assert f.children == pytest.approx(
            f.avg_per_process * block.processes,
            abs=0.01 * block.processes)
        assert f.avg_per_process <= f.max_per_process <= f.children + 0.01
        # Cluster mode (-+m) prints no "Parent sees" line.
        assert (f.parent is None) == ('-+m' in recorded_flags(path, 'iozone'))
        assert f.parent is None or f.parent > 0
        assert f.min_xfer <= block.file_size_kib
        if f.per_process:
            assert len(f.per_process) == block.processes
            rates = [rate for _, rate in f.per_process]
            assert sum(rates) == pytest.approx(f.children, abs=0.02)
            assert max(rates) == f.max_per_process
            assert f.min_per_process == _iozone_min(rates)
            assert f.min_xfer == _iozone_min(m for m, _ in f.per_process)


def test_leading_zero_process_is_not_iozones_minimum():
    """Child[0] moved nothing, yet iozone reports the other as the minimum
    (above the average): its figures are kept as printed."""
    path = LOCAL / 'throughput-t2-s4m-r1m-C-R.txt'
    block = iozone.parse(path.read_text(), path.name).tests('readers')[0]
    assert block.kib_s.per_process[0] == (0.0, 0.0)
    assert block.kib_s.min_per_process > block.kib_s.avg_per_process


def test_stonewalled_process_reports_zero():
    """iozone's stonewalling: a process that had not started when the first
    finished reports 0 kB at 0 kB/s: measured, kept as 0."""
    path = SHARED / 'throughput-l1-u4-s32m-r1m-c-e.txt'
    result = iozone.parse(path.read_text(), path.name)
    block = result.tests('initial writers', processes=2)[0]
    assert block.kib_s.min_per_process == 0.0
    assert block.kib_s.min_xfer == 0.0


def test_ops_mode_figures():
    path = SHARED / 'throughput-t2-s64m-r4k-c-e-O.txt'
    result = iozone.parse(path.read_text(), path.name)
    block = result.tests('random writers')[0]
    assert block.kib_s is None
    assert block.ops_per_s.children == 360837.02
    assert block.ops_per_s.parent == 206900.81


def test_throughput_report_matches_children():
    path = LOCAL / 'throughput-l1-u2-s8m-r1m-x-R.txt'
    result = iozone.parse(path.read_text(), path.name)
    report = result.excel['Throughput report']
    names = {'Initial write': 'initial writers', 'Rewrite': 'rewriters',
             'Read': 'readers', 'Re-read': 're-readers'}
    assert sorted(report) == sorted(names)
    for name, test in names.items():
        assert report[name] == tuple(
            b.kib_s.children for b in result.tests(test))
        assert [b.processes for b in result.tests(test)] == [1, 2]


@pytest.mark.parametrize('path', TABLE_OK, ids=lambda p: p.name)
def test_table_matches_the_command(path):
    flags = recorded_flags(path, 'iozone')
    result = iozone.parse(path.read_text(), path.name)
    numbers = _tests(flags) or list(TABLE_TESTS)
    expected = sorted(t for n in numbers for t in TABLE_TESTS[n])
    for row in result.table:
        assert sorted(row.kib_s) == expected
        assert all(v > 0 for v in row.kib_s.values())
    if '-a' in flags:
        low = _kib(flag_value(flags, '-n', '64k'))
        high = _kib(flag_value(flags, '-g', '512m'))
        sizes = []
        size = low
        while size <= high:
            sizes += [(size, rec) for rec in (4 * 2**i for i in range(13))
                      if rec <= size]
            size *= 2
        assert [(r.file_size_kib, r.record_size_kib)
                for r in result.table] == sizes
    else:
        assert [(r.file_size_kib, r.record_size_kib) for r in result.table] \
            == [(_kib(flag_value(flags, '-s')), _kib(flag_value(flags, '-r')))]


def test_excel_reports_match_the_table():
    path = SHARED / 'auto-a-n1m-g16m-R-b.txt'
    result = iozone.parse(path.read_text(), path.name)
    columns = {'Writer report': 'write', 'Re-writer report': 'rewrite',
               'Reader report': 'read', 'Re-Reader report': 'reread'}
    assert sorted(result.excel) == sorted(columns)
    for report, column in columns.items():
        assert result.excel[report] == {
            (r.file_size_kib, r.record_size_kib): r.kib_s[column]
            for r in result.table}


def test_blank_columns_keep_their_names():
    path = LOCAL / 'single-s1m-r64k-i0-i3-i6-gaps.txt'
    row = iozone.parse(path.read_text(), path.name).row(1024, 64)
    assert sorted(row.kib_s) == ['bkwd read', 'frewrite', 'fwrite',
                                 'rewrite', 'write']


@pytest.mark.parametrize('name,keep', [
    ('throughput-t4-s64m-r1m-c-e.txt', 45),
    ('throughput-t4-s64m-r1m-c-e.txt', -4),
    ('auto-a-g8m-i0-i1-i2.txt', 60),
    ('single-s256m-r1m-I-direct.txt', 29),
])
def test_truncated_output_raises_quoting_the_last_line(name, keep):
    lines = (SHARED / name).read_text().splitlines()[:keep]
    with pytest.raises(ParseError) as info:
        iozone.parse('\n'.join(lines), 'cut.txt')
    last = max(i for i, ln in enumerate(lines, 1) if ln.strip())
    assert info.value.lineno == last
    assert info.value.line == lines[last - 1].strip()


def test_block_missing_a_line_raises_quoting_where():
    path = SHARED / 'throughput-t4-s64m-r1m-c-e.txt'
    lines = path.read_text().splitlines()
    avg = next(i for i, ln in enumerate(lines) if 'Avg throughput' in ln)
    del lines[avg]
    with pytest.raises(ParseError, match='expected avg of the initial '
                                         'writers block') as info:
        iozone.parse('\n'.join(lines), 'cut.txt')
    assert 'Children see throughput for  4 rewriters' in info.value.line


def test_empty_output_raises():
    with pytest.raises(ParseError):
        iozone.parse('', 'empty.txt')


def _real_iozone():
    for exe in ('/opt/iozone/bin/iozone', shutil.which('iozone')):
        if exe and os.access(exe, os.X_OK):
            return exe
    pytest.skip('no iozone at /opt/iozone/bin/iozone or on PATH (build '
                'iozone 3.487 outside the repository)')


def test_real_iozone_throughput(tmp_path):
    """Seed 001's throughput flags, small and write/read only (all 13
    sub-tests with O_SYNC take a minute here), through the real iozone."""
    exe = _real_iozone()
    argv = iozone_cmd.throughput_argv(
        iozone_cmd.file_names(str(tmp_path), 2), file_size_kib=8192,
        record_size_kib=1024, direct=True, include_close=True,
        sync_writes=True, tests=['write', 'read'], executable=exe)
    print('+', shlex.join(argv))
    proc = subprocess.run(argv, cwd=tmp_path, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=600)
    print(proc.stdout)
    assert proc.returncode == 0
    result = iozone.parse(proc.stdout, 'iozone')
    assert result.settings.o_direct and result.settings.sync_mode
    assert result.settings.command_line.split() == argv
    block = result.tests('initial writers', processes=2)[0]
    assert block.file_size_kib == 8192 and block.record_size_kib == 1024
    assert block.kib_s.children > 0


def test_real_iozone_auto(tmp_path):
    exe = _real_iozone()
    argv = iozone_cmd.auto_argv(str(tmp_path / 'auto.tmp'),
                                max_file_size_kib=1024, tests=['write'],
                                executable=exe)
    print('+', shlex.join(argv))
    proc = subprocess.run(argv, cwd=tmp_path, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout
    result = iozone.parse(proc.stdout, 'iozone')
    assert result.mode == 'auto'
    assert result.table[-1].file_size_kib == 1024
    assert sorted(result.table[0].kib_s) == ['rewrite', 'write']


def test_stream_measures_one_per_sub_test_children_in_mb_s():
    text = (SHARED / 'throughput-t4-s64m-r1m-c-e.txt').read_text()
    measures = iozone.stream_measures(text, 'x', 'iozone')
    assert [m.name for m in measures] == ['initial_writers', 'rewriters',
                                          'readers', 're_readers']
    blocks = iozone.parse(text).throughput
    for measure, block in zip(measures, blocks):
        assert measure.bw_mb_s == pytest.approx(
            block.kib_s.children * 1024 / 1e6)
        assert measure.unit == 'MB/s' and measure.bytes is None


def test_stream_measures_in_ops_mode_are_ops_per_s():
    text = (SHARED / 'throughput-t2-s64m-r4k-c-e-O.txt').read_text()
    measures = iozone.stream_measures(text, 'x', 'iozone')
    assert {m.unit for m in measures} == {'ops/s'}
    assert measures[-1].name == 'random_writers'


def test_stream_measures_of_one_file_are_its_table_columns():
    # E19 (seed 001): one iozone per node, every sub-test of its one row.
    text = (SHARED / 'single-s256m-r1m-I-direct.txt').read_text()
    measures = iozone.stream_measures(text, 'x', 'iozone')
    (row,) = iozone.parse(text).table
    assert [(m.name, m.bw_mb_s) for m in measures] == [
        (name, pytest.approx(row.kib_s[name] * 1024 / 1e6))
        for name in ('write', 'rewrite', 'read', 'reread')]
    path = LOCAL / 'single-s1m-r64k-i0-i3-i6-gaps.txt'
    names = [m.name for m in iozone.stream_measures(path.read_text(), 'x',
                                                    'iozone')]
    assert sorted(names) == ['bkwd_read', 'frewrite', 'fwrite', 'rewrite',
                             'write']


def test_stream_measures_refuse_several_process_counts_and_auto_mode():
    text = (SHARED / 'throughput-l1-u4-s32m-r1m-c-e.txt').read_text()
    with pytest.raises(ParseError, match=r'one process count .*\[1, 2, 3, '
                                         r'4\]'):
        iozone.stream_measures(text, 'x', 'iozone')
    text = (SHARED / 'auto-a-g8m-i0-i1-i2.txt').read_text()
    with pytest.raises(ParseError, match='got auto mode'):
        iozone.stream_measures(text, 'x', 'iozone')


def test_cluster_mode_clients_are_streams():
    path = LOCAL / 'cluster-t3-s8m-r1024-I-c-o-C-rsh-ssh.txt'
    result = iozone.parse(path.read_text(), path.name)
    hosts = ['localhost'] * 3
    samples = iozone.client_samples(result, hosts, path.name)
    assert [s.name for s in samples[::3]] == [
        'initial_writers', 'rewriters', 'readers', 're_readers']
    for block in result.throughput:
        mine = [s for s in samples
                if s.name == iozone.measure_name(block.test)]
        assert [s.stream for s in mine] == [1, 2, 3]
        assert sum(s.bw_mb_s for s in mine) == pytest.approx(
            block.kib_s.children * 1024 / 1e6, rel=1e-6)
    # One host per client, or the Child[] lines cannot be placed.
    with pytest.raises(ParseError, match=r'one Child\[\] line \(-C\) per '
                                         r'client, 2'):
        iozone.client_samples(result, hosts[:2], path.name)
