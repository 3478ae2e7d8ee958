# SPDX-License-Identifier: BSD-3-Clause
"""pfsbench.parsers.mdsrate on real text only.

No mdsrate output is published (tests/data/mdsrate/SOURCES.md) and none is
written here: the parser must refuse other tools' real outputs and empty
input, quoting the line it stopped at, and ``pfsbench parse mdsrate``
must report that as an input error.
"""

import pytest

from conftest import FIXTURES
from pfsbench.cli import main
from pfsbench.core.errors import ParseError
from pfsbench.parsers import TOOLS, mdsrate

#: Real outputs of other tools (tests/data/fixtures).
MDTEST_RUN = FIXTURES / 'mdtest' / 'n100-N4x1-tmpfs.txt'
MDTEST_ABORT = FIXTURES / 'mdtest' / 'fail-nonexistent-parent.txt'


def test_registered_for_pfsbench_parse():
    assert TOOLS['mdsrate'].module == 'pfsbench.parsers.mdsrate'


def test_empty_output_is_truncated():
    with pytest.raises(ParseError) as err:
        mdsrate.parse('', 'empty.txt')
    assert err.value.lineno == 0
    assert "'Rate:' line" in str(err.value)


def test_a_run_without_a_rate_line_quotes_its_last_line():
    lines = MDTEST_RUN.read_text().splitlines()
    lineno = max(i for i, line in enumerate(lines, 1) if line.strip())
    with pytest.raises(ParseError) as err:
        mdsrate.parse(MDTEST_RUN.read_text(), MDTEST_RUN.name)
    assert (err.value.lineno, err.value.line) == (lineno,
                                                  lines[lineno - 1].strip())
    assert err.value.source == MDTEST_RUN.name


def test_an_aborted_run_quotes_its_error_line():
    lines = MDTEST_ABORT.read_text().splitlines()
    first_error = next(i for i, line in enumerate(lines, 1)
                       if line.startswith('ERROR'))
    with pytest.raises(ParseError) as err:
        mdsrate.parse(MDTEST_ABORT.read_text(), MDTEST_ABORT.name)
    assert err.value.lineno == first_error
    assert 'expected a completed mdsrate run' in str(err.value)


def test_pfsbench_parse_reports_the_error(capsys):
    assert main(['parse', 'mdsrate', str(MDTEST_RUN)]) == 2
    err = capsys.readouterr().err
    assert err.startswith('pfsbench: error: ')
    assert MDTEST_RUN.name in err and 'Traceback' not in err
