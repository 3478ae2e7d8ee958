# SPDX-License-Identifier: BSD-3-Clause
"""pfsbench.parsers.ior against every recorded IOR fixture.

Each fixture is real IOR output (``tests/data/fixtures/ior/*.txt``) with the
command line and the job's exit code beside it (``*.cmd``).  Nothing here is
hand-written tool output: truncation cases cut a real fixture short, and the
IOR 2.10 cases are the runs published in seed 002.
"""

import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import (SEEDS, assert_quotes_tool, fixture_dir,
                      recorded_run)
from pfsbench.commands.ior import ior_argv, size_bytes
from pfsbench.core.errors import ParseError
from pfsbench.parsers import ior

FIXTURES = fixture_dir('ior')

ALL = sorted(p.name for p in FIXTURES.glob('*.txt'))

# The line each failed run must be reported by: IOR's own ERROR line when
# it printed one, else its assertion failure.  A new failing fixture must be
# added here, or test_every_failed_run_is_listed fails.
EXPECTED_FAILURE = {
    'fail-bad-option.txt':
        'ERROR: block size must be a multiple of transfer size',
    'fail-enospc-tinyfs.txt':
        "ior: aiori-POSIX.c:818: POSIX_Xfer: Assertion `rc >= 0' failed.",
    'fail-nonexistent-dir.txt':
        'ERROR: open64("/scratch/does/not/exist/testfile.00000002"',
    'fail-stonewall-shared-D1-no-wearout-read-eof.txt':
        'ERROR: cannot read from file, (ior.c:1706)',
    'fail-unknown-api.txt': 'ERROR: Unrecognized I/O API',
    # Same command as the fail-* variant: a shared file, -D without
    # wear-out, so the read phase hits EOF.
    'posix-shared-stonewall-D1-no-wearout.txt':
        'ERROR: cannot read from file, (ior.c:1706)',
    'v3.3.0-fail-nonexistent-dir.txt':
        'ior ERROR: open64("/scratch/does/not/exist/testfile.00000002"',
    'v4.0.0-fail-nonexistent-dir.txt':
        'ERROR: open64("/scratch/does/not/exist/testfile.00000002"',
}


def _cmd_lines(name):
    """The fixture's ``.cmd`` file: the command line first, then the
    ``# sbatch`` line and the job's ``ExitCode``."""
    return (FIXTURES / name).with_suffix('.cmd').read_text().splitlines()


def _cmd(name):
    """The recorded command: IOR flags, task count and job exit code."""
    run = recorded_run((FIXTURES / name).with_suffix('.cmd'), 'ior')
    flags = run['flags']

    def opt(flag, default):
        return flags[flags.index(flag) + 1] if flag in flags else default

    return {
        'api': opt('-a', 'POSIX'),
        'file_per_process': '-F' in flags,
        'transfer_size_bytes': size_bytes(opt('-t', '256k')),
        'block_size_bytes': size_bytes(opt('-b', '1m')),
        'segments': int(opt('-s', '1')),
        'iterations': int(opt('-i', '1')),
        'tasks': run['tasks'],
        'failed': run['failed'],
    }


def _text(name):
    return (FIXTURES / name).read_text()


def _ok(name):
    return not _cmd(name)['failed'] and not name.startswith('fail-')


OK = [n for n in ALL if _ok(n)]
FAILED = [n for n in ALL if not _ok(n)]


def _printed_tolerance(value, fmt):
    """Half a unit in the last place IOR printed ``value`` with.

    Text per-iteration rows use PPDouble() (hpc/ior src/ior-output.c): six
    decimals below 1, two below 3600, none above.  JSON uses four.
    """
    if fmt == 'json':
        return 0.5e-4
    if fmt == 'csv':
        return 0.0
    return 0.5e-6 if value < 1 else 0.5e-2 if value < 3600 else 0.5


def test_fixtures_present():
    assert len(OK) >= 20 and len(FAILED) >= 5, (OK, FAILED)


def test_every_failed_run_is_listed():
    assert sorted(FAILED) == sorted(EXPECTED_FAILURE)


@pytest.mark.parametrize('name', FAILED)
def test_failed_run_raises_quoting_the_tool(name):
    with pytest.raises(ParseError) as err:
        ior.parse(_text(name), source=name)
    assert_quotes_tool(err.value, name, _text(name), EXPECTED_FAILURE[name])


@pytest.mark.parametrize('name', OK)
def test_parameters_match_command_line(name):
    result = ior.parse(_text(name), source=name)
    cmd = _cmd(name)
    p = result.params
    assert p.tasks == cmd['tasks']
    assert p.transfer_size_bytes == cmd['transfer_size_bytes']
    assert p.block_size_bytes == cmd['block_size_bytes']
    assert p.iterations == cmd['iterations']
    if result.output_format == 'csv':
        # IOR's CSV rows carry no api, layout or segment count.
        assert (p.api, p.file_per_process, p.segments) == (None, None, None)
    else:
        assert p.api == cmd['api']
        assert p.file_per_process is cmd['file_per_process']
        assert p.segments == cmd['segments']
        assert p.tasks_per_node * p.nodes == p.tasks
        assert result.version and result.version[0] in '34'


@pytest.mark.parametrize('name', OK)
def test_summary_agrees_with_iterations(name):
    result = ior.parse(_text(name), source=name)
    ops = [op for op in ior.OPERATIONS if result.summary(op)]
    assert ops, 'no write or read summary'
    for op in ops:
        summary = result.summary(op)
        rows = result.iterations_of(op)
        assert [r.iteration for r in rows] == list(range(len(rows)))
        assert len(rows) == result.params.iterations
        bws = [r.bw_mib_s for r in rows]
        best = max(bws)
        tol = _printed_tolerance(best, result.output_format) + 0.5e-2
        assert abs(summary.bw_max_mib_s - best) <= tol, (op, summary, bws)
        worst = min(bws)
        tol = _printed_tolerance(worst, result.output_format) + 0.5e-2
        assert abs(summary.bw_min_mib_s - worst) <= tol, (op, summary, bws)
        assert summary.bw_min_mib_s <= summary.bw_mean_mib_s \
            <= summary.bw_max_mib_s
        assert summary.ops_max_per_s > 0


def _tool_summary_rows(text):
    """The figures of IOR's own summary, read without the parser."""
    start = text.find('{\n')
    if start >= 0:
        doc = json.JSONDecoder().raw_decode(text[start:])[0]
        return {e['operation']: (e['bwMaxMIB'], e['bwMeanMIB'], e['OPsMax'])
                for e in doc['summary']}
    rows = {}
    after = text.split('Summary of all tests:', 1)[-1]
    for m in re.finditer(r'^(write|read)\s+(\S+)\s+\S+\s+(\S+)\s+\S+\s+(\S+)',
                         after, re.M):
        rows[m.group(1)] = tuple(float(g) for g in m.group(2, 3, 4))
    return rows


@pytest.mark.parametrize('name', [n for n in OK if 'csv' not in n])
def test_values_equal_the_tools_summary(name):
    text = _text(name)
    result = ior.parse(text, source=name)
    tool = _tool_summary_rows(text)
    assert tool, 'no summary rows found in the fixture'
    for op, (bw_max, bw_mean, ops_max) in tool.items():
        s = result.summary(op)
        assert (s.bw_max_mib_s, s.bw_mean_mib_s, s.ops_max_per_s) == \
            (bw_max, bw_mean, ops_max)
        assert not s.derived
    for m in re.finditer(r'^Max (Write|Read):\s+(\S+) MiB/sec \((\S+) MB/sec',
                         text, re.M):
        s = result.summary(m.group(1).lower())
        assert s.bw_max_mb_s == float(m.group(3))
        assert abs(s.bw_max_mib_s - float(m.group(2))) <= 0.5e-2
        # MiB and MB stay apart: the MB figure is 1.048576 times larger.
        assert math.isclose(s.bw_max_mb_s, s.bw_max_mib_s * 1.048576,
                            rel_tol=1e-4)


def test_na_stays_none():
    result = ior.parse(_text('posix-fpp-1m-i3-C-e.txt'))
    assert result.write.stonewall_time_s is None
    assert result.write.stonewall_bw_mib_s is None
    assert result.params.stonewall_deadline_s is None


@pytest.mark.parametrize('name', ['posix-fpp-stonewall-D2-wearout.txt',
                                  'posix-shared-stonewall-D1-wearout.txt',
                                  'v3.3.0-stonewall-D1.txt',
                                  'v4.0.0-stonewall-D1.txt'])
def test_stonewall_figures(name):
    text = _text(name)
    result = ior.parse(text, source=name)
    assert result.params.stonewall_wear_out is True
    assert result.params.stonewall_deadline_s == int(
        re.search(r'-D (\d+)', _cmd_lines(name)[0]).group(1))
    pairs = int(re.search(r'accessed: (\d+)', text).group(1))
    assert result.stonewall_pairs == pairs
    write = result.iterations_of('write')[0]
    assert write.stonewall_pairs_max == pairs
    assert write.stonewall_pairs_min <= pairs
    assert result.write.stonewall_time_s > 0
    assert result.write.stonewall_bw_mib_s > 0


def test_remove_rows_are_not_operations():
    result = ior.parse(_text('v3.3.0-posix-fpp-1m-i3-C-e.txt'))
    assert {i.operation for i in result.iterations} == {'write', 'read'}


def test_csv_summary_is_derived_from_rows():
    result = ior.parse(_text('posix-shared-csv-summary.txt'))
    assert result.version is None and result.output_format == 'csv'
    assert result.write.derived and result.read.derived
    bws = [i.bw_mib_s for i in result.iterations_of('write')]
    assert result.write.bw_max_mib_s == max(bws)
    assert math.isclose(result.write.bw_mean_mib_s, sum(bws) / len(bws))


def test_json_with_text_around_it():
    name = 'posix-fpp-json-summaryfile.txt'
    text = _text(name)
    assert text.startswith('Writing output to')
    result = ior.parse(text, source=name)
    assert result.output_format == 'json'
    assert result.version == '4.1.0+dev'


def test_json_v33_keeps_mib_and_mb_apart():
    result = ior.parse(_text('v3.3.0-json-summary.txt'))
    assert result.write.bw_max_mb_s == 8225.0619
    assert result.write.bw_max_mib_s == 7844.0303


@pytest.mark.parametrize('name', ['posix-fpp-1m-i3-C-e.txt',
                                  'v3.3.0-posix-fpp-1m-i3-C-e.txt',
                                  'posix-fpp-json-summary.txt',
                                  'v3.3.0-json-summary.txt'])
@pytest.mark.parametrize('keep', [0.3, 0.6, 0.9, 0.99])
def test_truncated_output_raises(name, keep):
    lines = _text(name).splitlines(keepends=True)
    cut = ''.join(lines[:int(len(lines) * keep)])
    with pytest.raises(ParseError) as err:
        ior.parse(cut, source=name)
    assert err.value.line == cut.rstrip().splitlines()[-1].strip()


def test_no_ior_output_raises():
    with pytest.raises(ParseError, match='expected an .IOR-<version>'):
        ior.parse('srun: job 12 queued and waiting for resources\n', 'x')


# IOR 2.10: no recorded fixture.  Seed 002 publishes six complete IOR-2.10.2
# runs (banner to 'Run finished'); the figures are those of EXPERIMENTS.md E11.

@pytest.fixture(scope='module')
def seed_210_runs():
    seed = next(SEEDS.glob('002_*.txt'))
    return re.findall(r'^IOR-2\.10.*?^Run finished:.*?$', seed.read_text(),
                      re.S | re.M)


SEED_MAX = [(203.89, 209.22), (2475.39, 2701.51), (205.71, 275.65),
            (1936.59, 2008.95), (1102.60, 447.15), (968.56, 1940.63)]


def test_ior_210_seed_runs(seed_210_runs):
    assert len(seed_210_runs) == len(SEED_MAX)
    for run, (write, read) in zip(seed_210_runs, SEED_MAX):
        result = ior.parse(run, source='seed-002')
        assert result.version == '2.10.2'
        assert (result.write.bw_max_mib_s, result.read.bw_max_mib_s) == \
            (write, read)
        m = re.search(r'^Max Write: \S+ MiB/sec \((\S+) MB/sec', run, re.M)
        assert result.write.bw_max_mb_s == float(m.group(1))
        p = result.params
        assert (p.api, p.tasks, p.tasks_per_node, p.file_per_process,
                p.iterations) == ('MPIIO', 36, 12, True, 1)
        assert (p.transfer_size_bytes, p.block_size_bytes) == (4 * 2**20,
                                                               4 * 2**30)


def test_ior_210_truncated_raises(seed_210_runs):
    cut = seed_210_runs[0].rsplit('Run finished', 1)[0]
    with pytest.raises(ParseError, match="'Run finished'"):
        ior.parse(cut, source='seed-002')


# A real IOR, when one is installed: the output format of the binary the
# suite will run, including JSON interleaved with stonewall text, which no
# shared fixture records yet.

REAL_IOR = Path('/opt/ior/bin/ior')


@pytest.fixture
def run_ior(tmp_path):
    mpirun = shutil.which('mpirun')
    if not (REAL_IOR.is_file() and mpirun):
        pytest.skip(f'no IOR at {REAL_IOR} or no mpirun on PATH')

    def run(argv):
        cmd = [mpirun, '--allow-run-as-root', '--oversubscribe', '-np', '2',
               *argv]
        print(' '.join(cmd))
        out = subprocess.run(cmd, capture_output=True, text=True,
                             timeout=120, cwd=tmp_path)
        return out.returncode, out.stdout + out.stderr
    return run


def test_real_ior_json_with_stonewall_text(run_ior, tmp_path):
    argv = ior_argv(str(tmp_path / 'f'), block_size='8m', transfer_size='1m',
                    iterations=2, file_per_process=True, stonewall_s=1,
                    summary_json=True, executable=str(REAL_IOR))
    rc, text = run_ior(argv)
    assert rc == 0, text
    result = ior.parse(text, source='real-ior')
    assert result.output_format == 'json'
    assert (result.params.tasks, result.params.iterations) == (2, 2)
    assert result.params.stonewall_deadline_s == 1
    assert result.write.stonewall_bw_mib_s is not None
    if 'stonewalling pairs accessed' in text:
        assert result.stonewall_pairs is not None
    best = max(i.bw_mib_s for i in result.iterations_of('write'))
    assert abs(result.write.bw_max_mib_s - best) <= 1e-4


def test_real_ior_bad_sizes_quote_its_error(run_ior, tmp_path):
    rc, text = run_ior([str(REAL_IOR), '-t', '3m', '-b', '4m', '-o',
                        str(tmp_path / 'bad')])
    assert rc != 0
    with pytest.raises(ParseError) as err:
        ior.parse(text, source='real-ior')
    assert err.value.line.startswith('ERROR: block size must be a multiple')
