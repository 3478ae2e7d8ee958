# SPDX-License-Identifier: BSD-3-Clause
"""Recorded tool outputs for parser tests: the shared fixtures of a tool
and the ones recorded in ``tests/data`` for what those lack."""

import shlex
from pathlib import Path

import pytest

from conftest import fixture_dir
from pfsbench.core.errors import ParseError

DATA = Path(__file__).parent / 'data'


def outputs(tool, at_least):
    """Every ``.txt`` output of ``tool`` (shared, then local).

    Args:
        tool: the fixture directory's name.
        at_least: successful runs there must be; fewer fails the module
            (a suite that shrinks must say so).

    Returns:
        (successful runs, failed runs): ``fail-*`` names are the failures.
    """
    paths = sorted(fixture_dir(tool).glob('*.txt')) + sorted(
        (DATA / tool).glob('*.txt'))
    ok = [p for p in paths if not p.name.startswith('fail-')]
    if len(ok) < at_least:
        raise AssertionError(f'{tool}: {len(ok)} recorded runs, expected '
                             f'at least {at_least}: {ok}')
    return ok, [p for p in paths if p.name.startswith('fail-')]


def recorded_flags(path, program):
    """The flags ``program`` ran with, from a run's ``.cmd`` (its first
    line; ``cd DIR &&`` before, pipes, ``;`` and redirections after are
    left out)."""
    line = path.with_suffix('.cmd').read_text().splitlines()[0]
    words = shlex.split(line.split('&&')[-1].split('|')[0].split(';')[0])
    start = next(i for i, w in enumerate(words) if w.endswith(program))
    return [w for w in words[start + 1:] if '>' not in w]


def flag_value(flags, flag, default=None):
    """The word after ``flag``, or ``default`` if the flag is absent."""
    return flags[flags.index(flag) + 1] if flag in flags else default


def failure_test(parse, failed, expected):
    """A test that ``parse`` of each failed run raises quoting the tool's
    own line.

    Args:
        parse: the parser.
        failed: the failed runs (:func:`outputs`).
        expected: run name -> the line its error must quote; a failed run
            without a line, or a line without its run, is a failing case.

    Returns:
        the test function, for a module-level ``test_...`` name.
    """
    by_name = {p.name: p for p in failed}
    cases = [pytest.param(by_name.get(name), expected.get(name), id=name)
             for name in sorted(set(by_name) | set(expected))]

    @pytest.mark.parametrize('path,expected_line', cases)
    def test(path, expected_line):
        assert path is not None, f'no recorded run for {expected_line!r}'
        assert expected_line is not None, f'{path.name}: no expected line'
        text = path.read_text()
        with pytest.raises(ParseError) as info:
            parse(text, path.name)
        err = info.value
        assert err.line == expected_line
        assert text.splitlines()[err.lineno - 1].strip() == err.line
        assert str(err).startswith(f'{path.name}:{err.lineno}: ')

    return test
