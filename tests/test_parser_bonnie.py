# SPDX-License-Identifier: BSD-3-Clause
"""pfsbench.parsers.bonnie on every recorded bonnie++ output.

The outputs are real: ``tests/data/fixtures/bonnie++`` (bonnie++ 2.00a) and
``tests/data/bonnie++`` (1.97 and 2.00a runs recorded for what those lack,
see its SOURCES.md), each with its command line in a ``.cmd``.  Truncated
and altered cases are cut from them in the tests.
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
from pfsbench.commands.bonnie import bonnie_argv
from pfsbench.core.errors import ParseError
from pfsbench.parsers import bonnie

SHARED = fixture_dir('bonnie++')
LOCAL = DATA / 'bonnie++'
OK, FAILED = outputs('bonnie++', at_least=8)
TESTS = bonnie.IO_TESTS + ('seeks',) + bonnie.FILE_TESTS

# The line each failed run must be reported by: bonnie++'s own message.
EXPECTED_FAILURE = {
    'fail-nonexistent-dir.txt':
        'Can\'t change to directory "/scratch/does/not/exist".',
    'fail-size-too-small.txt':
        'File size should be double RAM for good results, RAM is 512M.',
}


def _csv_rows(text):
    return [line.split(',') for line in text.splitlines()
            if re.match(r'^\d\.\d+,', line)]


test_failed_run_quotes_bonnie_error = failure_test(bonnie.parse, FAILED,
                                                   EXPECTED_FAILURE)


@pytest.mark.parametrize('path', OK, ids=lambda p: p.name)
def test_sizes_match_the_command(path):
    flags = recorded_flags(path, 'bonnie++')
    result = bonnie.parse(path.read_text(), path.name)
    assert len(result.runs) == int(flag_value(flags, '-x', '1'))
    size = int(flag_value(flags, '-s', '300'))
    files = flag_value(flags, '-n', '16').split(':')
    for run in result.runs:
        assert run.machine == flag_value(flags, '-m')
        assert run.version == ('1.97' if 'bonnie++-1.97' in
                               path.with_suffix('.cmd').read_text()
                               else '2.00a')
        assert run.file_size_mib == (size or None)
        if size:
            assert run.put_block is not None and run.seeks is not None
        else:
            assert run.put_block is None and run.seeks is None
        # -f (no argument) or -s 0: no per-char tests.
        assert (run.putc is None) == ('-f' in flags or not size)
        if files[0] == '0':
            assert run.num_files is None and run.seq_create is None
        else:
            assert run.num_files == int(files[0]) * 1024
            assert run.max_file_size_bytes == (
                int(files[1]) if len(files) > 1 else None)
            assert run.min_file_size_bytes == (
                int(files[2]) if len(files) > 2 else None)
            assert run.num_dirs == (int(files[3]) if len(files) > 3 else 1)
            assert all(getattr(run, t) is not None
                       for t in bonnie.FILE_TESTS)


@pytest.mark.parametrize('path', OK, ids=lambda p: p.name)
def test_plus_signs_become_none_never_zero(path):
    text = path.read_text()
    result = bonnie.parse(text, path.name)
    rows = _csv_rows(text)
    assert result.output_format == 'csv' and len(rows) == len(result.runs)
    for row, run in zip(rows, result.runs):
        figures = [getattr(run, t) for t in TESTS]
        too_fast = [f for f in figures if f is not None and f.too_fast]
        assert len(too_fast) == row.count('+++++')
        assert all(f.cpu_pct is None for f in too_fast)
        assert all(getattr(f, 'kib_s', None) is None
                   and getattr(f, 'per_s', None) is None for f in too_fast)
        measured = [f for f in figures if f is not None and not f.too_fast]
        assert all((getattr(f, 'kib_s', None) or getattr(f, 'per_s'))
                   > 0 for f in measured)


@pytest.mark.parametrize('path', OK, ids=lambda p: p.name)
def test_csv_figures_and_latencies(path):
    text = path.read_text()
    run = bonnie.parse(text, path.name).runs[0]
    row = _csv_rows(text)[0]
    offset = 9 if row[0] == '1.98' else 7
    latencies = row[-12:]
    for i, test in enumerate(bonnie.IO_TESTS):
        figure = getattr(run, test)
        value = row[offset + 2 * i]
        if value not in ('', '+++++'):
            assert figure.kib_s == int(value)
            assert figure.mib_s == int(value) / 1024
        m = re.fullmatch(r'(\d+)(us|ms|s)', latencies[i])
        if m:
            scale = {'us': 1, 'ms': 1000, 's': 10**6}[m.group(2)]
            assert figure.latency_us == int(m.group(1)) * scale


def test_format_198_rows_carry_seeks_and_seekers():
    path = SHARED / 's1024-r512-n4-q-csv-only.txt'
    run = bonnie.parse(path.read_text(), path.name).runs[0]
    assert (run.csv_format, run.seeks_requested, run.seek_procs) == (
        '1.98', 8192, 5)
    assert run.put_block.kib_s == 931972
    assert run.seq_create.per_s == 1358 and run.ran_create.per_s == 1286


def test_format_197_rows_have_no_seek_fields():
    path = LOCAL / 'v1.97-q-x2-s256-r128-n1.txt'
    runs = bonnie.parse(path.read_text(), path.name).runs
    assert [r.csv_format for r in runs] == ['1.97', '1.97']
    assert runs[0].seeks_requested is None
    # Row 1: put_block 233908, seeks 11804.
    assert runs[0].put_block.kib_s == 233908
    assert runs[0].seeks.per_s == 11804
    assert runs[1].rewrite.too_fast and runs[1].rewrite.kib_s is None


def test_x_header_with_wrong_field_names_is_not_used():
    """bonnie++ 2.00a's -x header names 48 fields; its rows have 50."""
    path = SHARED / 's1024-r512-x2-csv-bon_csv2txt.txt'
    text = path.read_text()
    header = next(ln for ln in text.splitlines()
                  if ln.startswith('format_version,'))
    assert len(header.split(',')) == 48
    runs = bonnie.parse(text, path.name).runs
    assert [r.put_block.kib_s for r in runs] == [1013345, 1003964]
    assert [r.seq_create.per_s for r in runs] == [989, 968]


def test_directory_count_sits_in_the_chunk_size_column():
    path = LOCAL / 's0-n1-dirs3-q.txt'
    run = bonnie.parse(path.read_text(), path.name).runs[0]
    assert (run.num_files, run.max_file_size_bytes, run.min_file_size_bytes,
            run.num_dirs) == (1024, 4096, 1024, 3)
    assert run.seq_del.per_s == 485 and run.ran_del.per_s == 810


def _text_only(text):
    return bonnie._parse_text(text.splitlines(), 'text')


TEXT_AND_CSV = [p for p in OK if 'Latency' in p.read_text()]


def _tolerance(kib_s):
    """Half a unit in the last place of bonnie++ 2.x's k/m/g figures."""
    if kib_s < 10000:
        return 0.5
    if kib_s / 1024 < 100:
        return 0.05 * 1024
    if kib_s / 1024 < 1000:
        return 0.5 * 1024
    return 0.05 * 2**20


@pytest.mark.parametrize('path', TEXT_AND_CSV, ids=lambda p: p.name)
def test_text_table_agrees_with_csv(path):
    text = path.read_text()
    csv_runs = bonnie.parse(text, path.name).runs
    text_runs = _text_only(text)
    assert len(text_runs) == len(csv_runs)
    for c, t in zip(csv_runs, text_runs):
        assert (t.machine, t.file_size_mib) == (c.machine, c.file_size_mib)
        for test in TESTS:
            a, b = getattr(c, test), getattr(t, test)
            assert (a is None) == (b is None), test
            if a is None:
                continue
            assert (a.too_fast, a.cpu_pct, a.latency_us) == (
                b.too_fast, b.cpu_pct, b.latency_us), test
            if test in bonnie.IO_TESTS and a.kib_s is not None:
                assert abs(a.kib_s - b.kib_s) <= _tolerance(a.kib_s), test


def test_bonnie_200_text_file_rates_are_not_trusted():
    """bonnie++ 2.00a prints the file count (16384) for every file rate."""
    path = LOCAL / 's256-r128-n16-text-file-rates.txt'
    text = path.read_text()
    row = next(ln for ln in text.splitlines()
               if re.match(r'^ {17}16 ', ln))
    assert row.split()[1] == '16384'
    run = _text_only(text)[0]
    csv_run = bonnie.parse(text, path.name).runs[0]
    assert csv_run.seq_create.per_s == 2196
    assert run.seq_create.per_s is None and not run.seq_create.too_fast
    assert run.seq_create.cpu_pct == csv_run.seq_create.cpu_pct == 33


def test_bonnie_197_text_file_rates_are_read():
    path = LOCAL / 'v1.97-s256-r128-n16.txt'
    run = _text_only(path.read_text())[0]
    assert (run.seq_create.per_s, run.ran_create.per_s) == (17903, 1002)
    assert run.concurrency == 1


def test_csv2txt_zero_under_plus_cpu_is_too_fast():
    """bon_csv2txt prints a +++++ block read as '0k' with CPU '+++'."""
    path = SHARED / 's1024-r512-x2-csv-bon_csv2txt.txt'
    text = path.read_text()
    assert ' 0k +++ ' in text
    for run in _text_only(text):
        assert run.get_block.too_fast and run.get_block.kib_s is None


def test_cut_csv_row_raises_quoting_it():
    path = SHARED / 's1024-r512-n4.txt'
    lines = path.read_text().splitlines()
    cut = lines[:-1] + [lines[-1][:60]]
    with pytest.raises(ParseError) as info:
        bonnie.parse('\n'.join(cut), 'cut.txt')
    assert info.value.line == lines[-1][:60]
    assert info.value.lineno == len(lines)


@pytest.mark.parametrize('keep', [-1, -2, -3, 8])
def test_truncated_output_raises_quoting_the_last_line(keep):
    path = LOCAL / 'v1.97-s256-r128-n16.txt'
    lines = path.read_text().splitlines()[:keep]
    with pytest.raises(ParseError) as info:
        bonnie.parse('\n'.join(lines), 'cut.txt')
    assert info.value.line == lines[-1].strip()
    assert info.value.lineno == len(lines)


def test_unknown_csv_format_raises():
    path = SHARED / 's1024-r512-n4-q-csv-only.txt'
    text = path.read_text().replace('1.98,', '1.99,', 1)
    with pytest.raises(ParseError, match=r'format version'):
        bonnie.parse(text, 'altered.txt')


def test_empty_output_raises():
    with pytest.raises(ParseError):
        bonnie.parse('', 'empty.txt')


def test_real_bonnie(tmp_path):
    """Run the real bonnie++ small and parse what it printed."""
    exe = shutil.which('bonnie++') or (
        '/usr/sbin/bonnie++' if os.path.exists('/usr/sbin/bonnie++')
        else None)
    if exe is None:
        pytest.skip('bonnie++ not installed (apt-get install bonnie++)')
    argv = bonnie_argv(str(tmp_path), 256, machine='pytest-node',
                       user='root' if os.geteuid() == 0 else None,
                       ram_mib=128, files_k=1, char_io_mib=0,
                       executable=exe)
    print('+', shlex.join(argv))
    proc = subprocess.run(argv, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=600)
    print(proc.stdout)
    assert proc.returncode == 0
    result = bonnie.parse(proc.stdout, 'bonnie++')
    run = result.runs[0]
    assert (result.output_format, run.machine, run.file_size_mib,
            run.num_files) == ('csv', 'pytest-node', 256, 1024)
    assert run.putc is None and run.getc is None     # -f0
    assert run.put_block.too_fast or run.put_block.kib_s > 0


def test_stream_measures_one_per_test_that_ran_in_mb_s_and_seeks_per_s():
    text = (SHARED / 's1024-r512-n4-q-csv-only.txt').read_text()
    measures = {m.name: m for m in bonnie.stream_measures(text, 'x', 'b')}
    assert list(measures) == ['char_write', 'block_write', 'rewrite',
                              'char_read', 'block_read', 'seeks']
    # 1.98,...,1297,99,931972,69,...: K/sec is KiB/s.
    assert measures['char_write'].bw_mb_s == pytest.approx(1297 * 1024 / 1e6)
    assert measures['block_write'].bw_mb_s == pytest.approx(
        931972 * 1024 / 1e6)
    assert measures['block_read'].bw_mb_s is None      # +++++
    assert measures['seeks'].bw_mb_s is None and measures['seeks'].unit == \
        '/s'
    assert {m.bytes for m in measures.values()} == {None}


def test_stream_measures_leave_out_tests_that_did_not_run():
    # -f: no per-char tests at all; the block tests were all +++++.
    text = (SHARED / 's512-r256-n0-fast-f.txt').read_text()
    measures = bonnie.stream_measures(text, 'x', 'b')
    assert [m.name for m in measures] == ['block_write', 'rewrite',
                                          'block_read', 'seeks']
    assert {m.bw_mb_s for m in measures} == {None}


def test_stream_measures_refuse_several_runs():
    text = (SHARED / 's1024-r512-x2-csv-bon_csv2txt.txt').read_text()
    with pytest.raises(ParseError, match='one bonnie.. run per stream'):
        bonnie.stream_measures(text, 'x', 'b')
