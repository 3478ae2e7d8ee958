# SPDX-License-Identifier: BSD-3-Clause
"""pfsbench.parsers.dd on every recorded dd fixture (tests/data/fixtures/dd).

Successful runs must give exactly the bytes the ``.cmd`` asked for (bs x
count) and a rate that agrees with dd's own rounded one; failed runs must
raise quoting dd's own error line.
"""

import re

import pytest

from conftest import fixture_dir
from pfsbench.core.errors import ParseError
from pfsbench.parsers import dd

FIXTURES = fixture_dir('dd')
SIZES = {'k': 1024, 'M': 2**20, 'G': 2**30}


def _cmd(name):
    return (FIXTURES / name.replace('.txt', '.cmd')).read_text()


def _requested_bytes(cmd):
    bs = re.search(r'\bbs=(\d+)([kMG]?)\b', cmd)
    count = re.search(r'\bcount=(\d+)\b', cmd)
    return int(bs.group(1)) * SIZES.get(bs.group(2), 1) * int(count.group(1))


SINGLE_OK = [p.name for p in sorted(FIXTURES.glob('*.txt'))
             if not p.name.startswith(('fail-', 'srun-'))]
FAILED = [p.name for p in sorted(FIXTURES.glob('fail-*.txt'))]


@pytest.mark.parametrize('name', SINGLE_OK)
def test_successful_run(name):
    text = (FIXTURES / name).read_text()
    result = dd.parse(text, name)
    cmd = _cmd(name)
    if 'count=' in cmd.splitlines()[0]:
        assert result.bytes == _requested_bytes(cmd)
    assert result.full_records_out * int(
        re.search(r'\bbs=(\d+)', cmd).group(1)) * SIZES.get(
        re.search(r'\bbs=\d+([kMG]?)', cmd).group(1), 1) == result.bytes
    assert result.bw_mb_s == pytest.approx(result.bytes / result.seconds
                                           / 1e6)
    # dd rounds its figure to 2-3 significant digits.
    assert result.bw_mb_s == pytest.approx(result.reported_bw_mb_s, rel=0.04)


def test_progress_lines_are_not_the_summary():
    result = dd.parse((FIXTURES / 'write-status-progress.txt').read_text())
    # The last progress update says 7.44877 s; the summary says 8.08886 s.
    assert result.seconds == 8.08886
    assert result.reported_bw_mb_s == 265


@pytest.mark.parametrize('name', FAILED)
def test_failed_run_quotes_dd_error(name):
    text = (FIXTURES / name).read_text()
    dd_line = next(ln for ln in text.splitlines() if ln.startswith('dd: '))
    with pytest.raises(ParseError) as info:
        dd.parse(text, name)
    assert info.value.line == dd_line
    assert f'{name}:1:' in str(info.value)


def test_labelled_per_node_output():
    name = 'srun-per-node-write-N2.txt'
    results = dd.parse_labelled((FIXTURES / name).read_text(), name)
    assert list(results) == ['n1', 'n2']
    assert all(r.bytes == _requested_bytes(_cmd(name))
               for r in results.values())
    assert results['n1'].seconds == 1.1206


def test_truncated_output_raises_quoting_last_line():
    text = (FIXTURES / 'write-1m-x1024-fdatasync.txt').read_text()
    cut = '\n'.join(text.splitlines()[:2])
    with pytest.raises(ParseError) as info:
        dd.parse(cut, 'cut.txt')
    assert info.value.line == '1024+0 records out'


def test_empty_output_raises():
    with pytest.raises(ParseError):
        dd.parse('', 'empty.txt')
