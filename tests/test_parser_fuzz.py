# SPDX-License-Identifier: BSD-3-Clause
"""Every parser, fed real outputs with the damage a job's output can carry
(issue 27): it returns a result or raises its ParseError (one line, naming
the file), never anything else, and never hangs.

Hypothesis draws the damage (tests/mutations.py); the examples per tool are
bounded for CI (``PFSBENCH_FUZZ_EXAMPLES``, default 50);
bench/parser_fuzz.py runs thousands and reports the slowest input.
"""

import functools
import importlib
import multiprocessing
import os
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mutations
from conftest import FIXTURES
from pfsbench.core.errors import ParseError
from pfsbench.parsers import TOOLS
from pfsbench.parsers.text import decode

EXAMPLES = int(os.environ.get('PFSBENCH_FUZZ_EXAMPLES', '50'))
#: What makes a line long (~33 kB): blanks, then figures, then text.  A
#: linear parser takes a millisecond on it; a pattern with a repeated group
#: of figures backtracks for hours ('(?:\d+\s*)+$'), a lazy group before
#: blanks ('(.*?)\s*$') for seconds.
LONG_TAIL = ' ' * 20000 + '   307500.293' * 1000 + ' x :'
#: Seconds a parser may take on its outputs, each line made long in turn
#: (a few hundred parses): generous on a loaded, shared machine, far below
#: what backtracking takes.
LONG_ROW_LIMIT_S = 60
#: Words in an output's name that say its format (or version): the long
#: row test takes the largest output of each.
FORMAT_WORDS = ('json', 'csv', 'terse', 'v3.3.0', 'v1.97', 'fail-')

#: Tool -> its outputs, read (and run) once; not a pytest fixture, which
#: hypothesis would print whole with every failing example.
corpus = functools.cache(mutations.corpus)


def _parse(tool, data, source='damaged.out'):
    """``module.parse`` of ``data`` as ``pfsbench parse`` reads it."""
    module = importlib.import_module(TOOLS[tool].module)
    return module.parse(decode(data), source)


def _outcome(tool, name, kinds, data, parse=_parse):
    try:
        parse(tool, data)
    except ParseError as err:
        message = str(err)
        assert message.startswith('damaged.out'), message
        assert '\n' not in message, message
    except Exception as err:  # noqa: BLE001 - the property under test
        raise AssertionError(f'{tool} on {name} damaged by {kinds}: '
                             f'{type(err).__name__}: {err}') from err


def test_every_tool_is_fuzzed():
    outputs = corpus()
    assert sorted(set(outputs) | set(mutations.UNRECORDED)) == sorted(TOOLS)
    assert all(outputs.values()), {t: len(o) for t, o in outputs.items()}


@pytest.mark.parametrize('tool', sorted(set(TOOLS) - set(
    mutations.UNRECORDED)))
@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(draw=st.data())
def test_damaged_output_parses_or_raises_parse_error(tool, draw):
    _outcome(tool, *draw.draw(mutations.damaged(corpus()[tool])))


def _stream_measures(tool, data):
    """The tool as the streams runner's checks parse one stream of it."""
    module = importlib.import_module(TOOLS[tool].module)
    return module.stream_measures(decode(data), 'damaged.out', 'write')


@pytest.mark.parametrize('tool', ['bonnie', 'dd', 'fio', 'iozone'])
@settings(max_examples=EXAMPLES // 2, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(draw=st.data())
def test_damaged_stream_output_measures_or_raises_parse_error(tool, draw):
    _outcome(tool, *draw.draw(mutations.damaged(corpus()[tool])),
             parse=_stream_measures)


@pytest.mark.parametrize('tool', mutations.UNRECORDED)
@settings(max_examples=EXAMPLES, deadline=None, database=None)
@given(example=mutations.arbitrary())
def test_arbitrary_bytes_raise_parse_error(tool, example):
    _outcome(tool, *example)


def _long_rows(tool, outputs, queue):
    """In a child: parse each output with each line in turn made long, and
    put the slowest parse (seconds, output, line number) on ``queue``."""
    slowest = (0.0, '', 0)
    for name, data in outputs:
        lines = decode(data).splitlines()
        for at in range(len(lines)):
            damaged = lines[:at] + [lines[at] + LONG_TAIL] + lines[at + 1:]
            start = time.perf_counter()
            try:
                _parse(tool, '\n'.join(damaged).encode())
            except ParseError:
                pass
            slowest = max(slowest,
                          (time.perf_counter() - start, name, at + 1))
    queue.put(slowest)


def _one_per_format(tool):
    """The largest output of each format of ``tool`` (by its name); the
    long line alone for a tool with nothing recorded."""
    largest = {}
    for name, data in corpus().get(tool, [('one line', b'\n')]):
        kind = next((w for w in FORMAT_WORDS if w in name), '')
        if len(data) > len(largest.get(kind, ('', b''))[1]):
            largest[kind] = (name, data)
    return sorted(largest.values())


@pytest.mark.parametrize('tool', sorted(TOOLS))
def test_long_row_with_trailing_text_ends_quickly(tool):
    # Backtracking holds the GIL and cannot be interrupted: the parses run
    # in a forked child, killed when it overruns.
    context = multiprocessing.get_context('fork')
    queue = context.Queue()
    child = context.Process(target=_long_rows,
                            args=(tool, _one_per_format(tool), queue))
    child.start()
    child.join(LONG_ROW_LIMIT_S)
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail(f'{tool}: parsing its outputs with one long row each '
                    f'still runs after {LONG_ROW_LIMIT_S} s')
    assert child.exitcode == 0, f'{tool}: the child failed (see stderr)'
    seconds, name, lineno = queue.get(timeout=10)
    assert seconds < 1, (f'{tool}: {seconds:.2f} s with line {lineno} of '
                         f'{name} made long')


def _mid_line_damage(data):
    """``data`` with a byte that is not UTF-8 in its middle line, and
    ``data`` cut in the middle of a line (a killed job)."""
    lines = data.split(b'\n')
    middle = len(lines) // 2
    lines[middle] = lines[middle][:len(lines[middle]) // 2] + b'\xff' + \
        lines[middle][len(lines[middle]) // 2:]
    return {'bad-byte': b'\n'.join(lines), 'cut': data[:len(data) // 2 + 1]}


def test_pfsbench_parse_on_damaged_outputs_exits_0_or_2(tmp_path, capsys):
    from pfsbench.cli import build_parser, common

    # main() without building the whole command line for each file.
    command = build_parser()
    codes = {}
    for tool, outputs in sorted(corpus().items()):
        for name, data in outputs:
            for kind, damaged in _mid_line_damage(data).items():
                path = tmp_path / f'{tool}-{kind}-{name}'
                path.write_bytes(damaged)
                args = command.parse_args(['parse', tool, str(path)])
                code = common.run_verb(args)
                err = capsys.readouterr().err
                assert code in (0, 2), (path, err)
                assert code == 0 or err.count('\n') == 1, err
                assert '\ufffd' not in err or 'undecodable bytes at' in err
                codes[code] = codes.get(code, 0) + 1
    print(codes)
    assert codes.get(2), 'no damaged output was refused'


def test_non_utf8_byte_is_reported_where_it_is(tmp_path):
    # The case: `pfsbench parse mdtest` of a real output with one
    # byte that is not UTF-8 in a summary row raised UnicodeDecodeError.
    data = (FIXTURES / 'mdtest' / 'n100-i2-shared-dir.txt').read_bytes()
    lines = data.split(b'\n')
    row = next(i for i, line in enumerate(lines)
               if line.startswith(b'   File creation'))
    lines[row] = lines[row].replace(b'File', b'Fi\xffle', 1)
    path = tmp_path / 'mdtest.out'
    path.write_bytes(b'\n'.join(lines))
    proc = subprocess.run([sys.executable, '-m', 'pfsbench.cli', 'parse',
                           'mdtest', str(path)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True,
                          timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(
        f'pfsbench: error: {path}:{row + 1}: expected an mdtest operation '
        f'(Directory creation, '), proc.stderr
    assert proc.stderr.endswith(
        f'(undecodable bytes at {path}:{row + 1}), got: '
        f'"Fi\ufffdle creation               12181.678       9986.022      '
        f'11083.850       1552.563"\n'), proc.stderr


def test_a_backtracking_mdtest_row_ends_in_milliseconds():
    # A backtracking summary pattern took 337 s to refuse this row.
    lines = (FIXTURES / 'mdtest' / 'n100-i2-shared-dir.txt').read_text(
    ).splitlines()
    row = next(i for i, line in enumerate(lines)
               if line.startswith('   File creation'))
    lines[row] = '   File creation   ' + '   '.join(['307500.293'] * 4) + \
        ' x'
    start = time.perf_counter()
    with pytest.raises(ParseError) as err:
        _parse('mdtest', '\n'.join(lines).encode())
    took = time.perf_counter() - start
    print(f'refused in {took * 1e3:.2f} ms')
    assert took < 1
    assert "expected 4 figures (Max, Min, Mean, Std Dev) after 'File " \
           "creation'" in str(err.value)


def test_a_stream_record_cut_short_is_quoted():
    # A job killed while the runner wrote a record: its exit= is missing.
    (_, data), = corpus()['streams']
    lines = decode(data).splitlines()
    at = next(i for i, line in enumerate(lines) if ' exit=' in line and
              ' phase=' in line)
    lines[at] = lines[at][:lines[at].index(' exit=')]
    with pytest.raises(ParseError) as err:
        _parse('streams', '\n'.join(lines).encode(), 'rfm_job.out')
    assert str(err.value) == (f"rfm_job.out:{at + 1}: expected the runner's "
                              f'exit= in this line, got: "{lines[at]}"')


@pytest.mark.parametrize('tool, name, old, new, says', [
    # The two damages the fuzz found (a flipped byte; a dropped line):
    # float() of '..180765', and a KeyError of lat_ns without 'mean'.
    ('io500', 'run-2x1/result_summary.txt', ' 0.180765 GiB/s',
     ' ..180765 GiB/s', "expected io500's '.RESULT. <phase>"),
    ('fio', 'seqwrite-1m-fsync-normal-json.txt',
     '"mean" : 139327.515625', '"meen" : 139327.515625',
     "write results damaged"),
    ('fio', 'seqwrite-1m-fsync-normal-json.txt',
     '"jobs" : [', '"jobs" : [ 7, ', "a 'jobs' list of objects")])
def test_found_damage_is_a_parse_error(tool, name, old, new, says):
    path = (mutations.DATA / 'io500' / name) if tool == 'io500' else \
        (FIXTURES / tool / name)
    text = path.read_text()
    assert old in text
    with pytest.raises(ParseError, match=says):
        _parse(tool, text.replace(old, new, 1).encode())
