#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The parsers' full fuzz (issue 27): thousands of damaged real outputs per
tool, each parser in a child process killed if it overruns.

The damage is tests/mutations.py's (output cut anywhere, bytes flipped,
another rank's text inserted or appended, lines duplicated or dropped, a row
made long), drawn by hypothesis; CI runs the same properties with a hundred
examples a tool (tests/test_parser_fuzz.py).  For each tool this prints how
many inputs parsed, how many were refused with a ParseError, anything else
raised (there must be none), and the slowest input with its CPU time.

Usage: python3 bench/parser_fuzz.py [--examples 5000] [--timeout 600]
       [TOOL...]
"""

import argparse
import importlib
import multiprocessing
import os
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
# The corpus and the damage are the property tests', kept with the tests.
sys.path.insert(0, os.path.join(REPO, 'tests'))

from hypothesis import HealthCheck, given, settings         # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

import mutations                                            # noqa: E402
from pfsbench.core.errors import ParseError                      # noqa: E402
from pfsbench.parsers import TOOLS                          # noqa: E402
from pfsbench.parsers.text import decode                    # noqa: E402


def fuzz(tool, outputs, examples, queue):
    """In a child: ``examples`` damaged inputs through ``tool``'s parser;
    puts the tally on ``queue``."""
    module = importlib.import_module(TOOLS[tool].module)
    tally = {'parsed': 0, 'refused': 0, 'raised': [], 'slowest': (0.0, '')}
    strategy = (mutations.damaged(outputs) if outputs
                else mutations.arbitrary())

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(example=strategy)
    def one(example):
        name, kinds, data = example
        # CPU seconds: on a shared, loaded machine wall time mostly
        # measures the other processes.
        start = time.process_time()
        try:
            module.parse(decode(data), 'damaged.out')
            tally['parsed'] += 1
        except ParseError:
            tally['refused'] += 1
        except Exception as err:  # noqa: BLE001 - what this counts
            tally['raised'].append(f'{name} {kinds}: {type(err).__name__}: '
                                   f'{err}'[:300])
        took = time.process_time() - start
        if took > tally['slowest'][0]:
            tally['slowest'] = (took, f'{name} damaged by {kinds} '
                                      f'({len(data)} bytes)')

    start = time.perf_counter()
    one()
    tally['seconds'] = time.perf_counter() - start
    queue.put(tally)


def main():
    # Not .hypothesis/ in the checkout: a directory of its own, removed.
    home = tempfile.TemporaryDirectory(prefix='pfsbench-hypothesis-')
    set_hypothesis_home_dir(home.name)
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('tools', nargs='*', metavar='TOOL',
                        help=f'tools to fuzz (default: all: '
                             f'{", ".join(sorted(TOOLS))})')
    parser.add_argument('--examples', type=int, default=5000,
                        help='inputs per tool (default: %(default)s)')
    parser.add_argument('--timeout', type=float, default=600,
                        help='seconds a tool may take in all '
                             '(default: %(default)s)')
    args = parser.parse_args()
    corpus = mutations.corpus()
    print(f'load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} '
          f'CPUs; {args.examples} examples per tool')
    failed = False
    context = multiprocessing.get_context('fork')
    for tool in args.tools or sorted(TOOLS):
        queue = context.Queue()
        child = context.Process(target=fuzz, args=(
            tool, corpus.get(tool, []), args.examples, queue))
        child.start()
        child.join(args.timeout)
        if child.is_alive():
            child.kill()
            child.join()
            print(f'{tool}: still running after {args.timeout:.0f} s '
                  f'(a parser that hangs?)')
            failed = True
            continue
        if child.exitcode != 0:
            print(f'{tool}: the fuzzing process failed ({child.exitcode})')
            failed = True
            continue
        tally = queue.get()
        seconds, slowest = tally['slowest']
        print(f'{tool}: {tally["parsed"]} parsed, {tally["refused"]} '
              f'refused, {len(tally["raised"])} raised anything else, in '
              f'{tally["seconds"]:.0f} s; slowest {seconds * 1e3:.1f} ms of '
              f'CPU: '
              f'{slowest}')
        for line in tally['raised'][:5]:
            print(f'  {line}')
        failed = failed or bool(tally['raised'])
    print(f'load average {os.getloadavg()[0]:.1f} at the end')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
