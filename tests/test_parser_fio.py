# SPDX-License-Identifier: BSD-3-Clause
"""pfsbench.parsers.fio on every recorded fio fixture (tests/data/fixtures/fio).

Runs that were not time-based must move exactly what the ``.cmd`` asked for
(size x numjobs); the summed figures must agree with fio's own group line;
failed runs must raise quoting fio's own first error line.
"""

import re

import pytest

from conftest import assert_quotes_tool, fixture_dir
from pfsbench.core.errors import ParseError
from pfsbench.parsers import fio

FIXTURES = fixture_dir('fio')
SIZES = {'k': 2**10, 'm': 2**20, 'g': 2**30}

OK = [p.name for p in sorted(FIXTURES.glob('*.txt'))
      if not p.name.startswith('fail-')]
FAILED = [p.name for p in sorted(FIXTURES.glob('fail-*.txt'))]


def _cmd(name):
    return (FIXTURES / name.replace('.txt', '.cmd')).read_text().splitlines(
        )[0]


def _option(cmd, name, default=None):
    m = re.search(rf'--{name}=(\S+)', cmd)
    return m.group(1) if m else default


def _bytes(size):
    return int(size[:-1]) * SIZES[size[-1]] if size[-1] in SIZES \
        else int(size)


@pytest.mark.parametrize('name', OK)
def test_successful_run(name):
    text = (FIXTURES / name).read_text()
    result = fio.parse(text, name)
    cmd = _cmd(name)
    assert result.version == 'fio-3.33'
    expected_format = _option(cmd, 'output-format', 'normal').split(',')[-1]
    assert result.output_format == expected_format
    rw = _option(cmd, 'rw')
    moved = {d for d in ('read', 'write') if getattr(result, d)}
    if rw in ('rw', 'readwrite', 'randrw'):
        assert moved == {'read', 'write'}
    else:
        assert moved == ({'read'} if 'read' in rw else {'write'})
    numjobs = int(_option(cmd, 'numjobs', 1))
    jobs = 1 if '--group_reporting' in cmd else numjobs
    assert len(result.jobs) == jobs
    for direction in moved:
        total = getattr(result, direction)
        if '--time_based' not in cmd:
            assert total.io_bytes == _bytes(_option(cmd, 'size')) * numjobs
        assert total.bw_mb_s == pytest.approx(sum(
            getattr(j, direction).bw_mb_s for j in result.jobs))
        # fio's bandwidth is bytes over its runtime (rounded in text).
        assert total.bw_mb_s * 1e6 * total.runtime_s == pytest.approx(
            total.io_bytes, rel=0.01 * len(result.jobs) + 0.005)


@pytest.mark.parametrize('name', [n for n in OK
                                  if _option(_cmd(n), 'output-format',
                                             'normal') == 'normal'])
def test_normal_output_agrees_with_the_run_status_line(name):
    text = (FIXTURES / name).read_text()
    result = fio.parse(text, name)
    status = re.search(r'^\s+(READ|WRITE): bw=\S+ \(([\d.]+)MB/s\)', text,
                       re.M)
    total = getattr(result, status.group(1).lower())
    # The group line rounds the sum of the jobs' rounded figures.
    assert total.bw_mb_s == pytest.approx(float(status.group(2)), rel=0.01)
    assert total.lat_mean_us > 0


def test_normal_and_json_in_one_output_give_the_same_run():
    name = 'seqwrite-1m-fsync-normal-json.txt'
    text = (FIXTURES / name).read_text()
    from_json = fio.parse(text, name)
    # The same output without its JSON document: the normal part alone.
    lines = text.splitlines()
    start = lines.index('{')
    end = max(n for n, ln in enumerate(lines) if ln == '}')
    normal = fio.parse('\n'.join(lines[:start] + lines[end + 1:]), name)
    assert normal.output_format == 'normal'
    assert normal.write.io_bytes == from_json.write.io_bytes == 128 * 2**20
    assert normal.write.bw_mb_s == pytest.approx(from_json.write.bw_mb_s,
                                                 rel=0.001)


def test_terse_fields_by_fio_documented_order():
    result = fio.parse((FIXTURES / 'seqwrite-1m-terse.txt').read_text())
    assert result.write.io_bytes == 131072 * 1024
    assert result.write.bw_mib_s == pytest.approx(2048000 / 1024)
    assert result.write.iops == 2000
    assert result.write.lat_mean_us == pytest.approx(132.002867)


#: Failed runs -> the start of the line the error must quote: fio's first
#: error line, which says why.
EXPECTED_FAILURE = {
    'fail-enospc-tinyfs.txt': 'fio: io_u error on file /mnt/tiny/full.0.0: '
                              'No space left on device',
    'fail-nonexistent-dir.txt': 'fio: /scratch/does/not/exist is not a '
                                'directory',
}


@pytest.mark.parametrize('name', FAILED)
def test_failed_run_quotes_fio_error(name):
    text = (FIXTURES / name).read_text()
    with pytest.raises(ParseError) as err:
        fio.parse(text, name)
    assert_quotes_tool(err.value, name, text, EXPECTED_FAILURE[name])


def test_json_job_error_fails_without_the_stderr_lines():
    # The ENOSPC run's JSON alone (as with stderr sent elsewhere) still
    # fails: its job says error 28.
    text = (FIXTURES / 'fail-enospc-tinyfs.txt').read_text()
    json_only = '\n'.join(ln for ln in text.splitlines()
                          if not ln.startswith('fio: '))
    with pytest.raises(ParseError, match="job 'full' ended with error 28"):
        fio.parse(json_only, 'x')


def test_truncated_json_names_the_line():
    text = (FIXTURES / 'seqwrite-1m-4jobs-direct-json.txt').read_text()
    cut = '\n'.join(text.splitlines()[:40])
    with pytest.raises(ParseError, match='expected fio JSON'):
        fio.parse(cut, 'cut')


def test_no_results_raises():
    with pytest.raises(ParseError, match="expected fio's JSON, normal or "
                                         "terse results"):
        fio.parse('Starting 1 process\n', 'x')


def test_stream_measures_name_each_direction():
    text = (FIXTURES / 'randrw-4k-libaio-json.txt').read_text()
    both = fio.stream_measures(text, 'x', 'mixed')
    assert [m.name for m in both] == ['mixed_read', 'mixed_write']
    result = fio.parse(text)
    assert both[0].bytes == result.read.io_bytes
    text = (FIXTURES / 'seqwrite-1m-4jobs-direct-json.txt').read_text()
    (write,) = fio.stream_measures(text, 'x', 'write')
    assert write.name == 'write' and write.bytes == 2**30
