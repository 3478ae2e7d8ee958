# SPDX-License-Identifier: BSD-3-Clause
"""IOR outputs of 3.3.0, 4.0.0 and 4.1-dev that the parser used to refuse
(issue 12, item 5), recorded under tests/data/ior/ (SOURCES.md there).

Every figure is checked against the text IOR printed beside it: the
stonewall pairs of each phase against its ``stonewalling pairs accessed``
line, the total against ``Pairs deadlineForStonewallingaccessed``, the
task count and version against the ``.cmd``.
"""

import re

import pytest

from conftest import REPO, recorded_run
from pfsbench.core.errors import ParseError
from pfsbench.parsers import ior

DATA = REPO / 'tests' / 'data' / 'ior'
RUNS = sorted(p for p in DATA.glob('*.txt') if 'csv' not in p.name)
#: The binary of each fixture's command -> the version IOR reports.
VERSIONS = {'/opt/ior-3.3.0/bin/ior': '3.3.0',
            '/opt/ior-4.0.0/bin/ior': '4.0.0',
            '/opt/ior/bin/ior': '4.1.0+dev'}
_PAIRS = re.compile(r'stonewalling pairs accessed min: (\d+) max: (\d+)')


@pytest.mark.parametrize('path', RUNS, ids=lambda p: p.name)
def test_recorded_run_parses_with_its_stonewall_figures(path):
    text = path.read_text()
    cmd = path.with_suffix('.cmd')
    run = recorded_run(cmd, 'ior')
    result = ior.parse(text, path.name)

    binary = cmd.read_text().split()[2]
    assert result.version == VERSIONS[binary]
    json_summary = 'summaryFormat=JSON' in run['flags']
    assert result.output_format == ('json' if json_summary else 'text')
    assert result.params.tasks == run['tasks'] == 4
    assert result.params.stonewall_deadline_s == 1
    # One write and one read, each with the pairs its own line printed.
    assert [i.operation for i in result.iterations] == ['write', 'read']
    printed = [tuple(map(int, m)) for m in _PAIRS.findall(text)]
    assert [(i.stonewall_pairs_min, i.stonewall_pairs_max)
            for i in result.iterations] == printed
    total = re.search(r'Pairs deadlineForStonewallingaccessed: (\d+)', text)
    if total:
        assert result.stonewall_pairs == int(total.group(1))
    write, read = result.iterations
    assert result.write.bw_max_mib_s == pytest.approx(write.bw_mib_s,
                                                      rel=1e-3)
    assert result.read.bw_max_mib_s == pytest.approx(read.bw_mib_s,
                                                     rel=1e-3)


def test_v330_json_stonewall_line_inside_a_json_line():
    # The run of the issue: '[ stonewalling pairs accessed ...'.
    text = (DATA / 'v3.3.0-json-stonewall-D1.txt').read_text()
    assert '      [ stonewalling pairs accessed min: 65 max: 78' in text
    result = ior.parse(text, 'v3.3.0-json-stonewall-D1.txt')
    assert result.iterations[0].stonewall_pairs_min == 65


def test_v400_verbose_json_closed_twice_is_read():
    text = (DATA / 'v4.0.0-json-stonewall-D1-v.txt').read_text()
    assert '      }\n]\n]\n, \n  "max"' in text
    result = ior.parse(text, 'v4.0.0-json-stonewall-D1-v.txt')
    assert result.write.bw_max_mib_s == pytest.approx(405.2522)


def test_other_broken_json_still_fails_naming_the_line():
    # The repair drops one doubled ']' and nothing else.
    text = (DATA / 'v4.0.0-json-stonewall-D1.txt').read_text()
    broken = text.replace('"access": "read", ', '"access": "read" ', 1)
    with pytest.raises(ParseError) as err:
        ior.parse(broken, 'x.txt')
    assert 'expected valid JSON' in str(err.value)
    assert '"bwMiB"' in err.value.line


def test_v330_csv_summary_says_there_is_none():
    text = (DATA / 'v3.3.0-csv-summary.txt').read_text()
    with pytest.raises(ParseError) as err:
        ior.parse(text, 'v3.3.0-csv-summary.txt')
    assert err.value.lineno == 1
    assert 'IOR 3.3.0 writes no CSV summary' in str(err.value)
    assert 'run it with the text or JSON summary' in str(err.value)


def test_read_row_without_its_own_stonewall_line_has_no_pairs():
    # A read that is not stonewalled (IO500's ior-easy-read: -r without -D)
    # prints no 'stonewalling pairs accessed' line.  IOR prints one test
    # per run, so no recorded output has a stonewalled write and an
    # unstonewalled read; this takes 3.3.0's real output and drops the
    # read's own lines (only lines IOR printed remain).  The write's pairs
    # (118..126) must not carry over to the read row.
    name = 'v3.3.0-stonewall-D1-v.txt'
    lines = (DATA / name).read_text().splitlines(keepends=True)
    read_row = next(i for i, ln in enumerate(lines) if ln.startswith('read '))
    own = [i for i in range(read_row) if 'stonewalling pairs accessed' in
           lines[i] and i > max(j for j in range(read_row)
                                if lines[j].startswith('write '))]
    assert len(own) == 2, own
    text = ''.join(ln for i, ln in enumerate(lines) if i not in own)
    write, read = ior.parse(text, name).iterations
    assert (write.stonewall_pairs_min, write.stonewall_pairs_max) == \
        (118, 126)
    assert (read.stonewall_pairs_min, read.stonewall_pairs_max) == \
        (None, None)
