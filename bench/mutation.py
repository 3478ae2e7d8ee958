#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Mutation testing of the modules where a silent bug costs most.

Runs mutmut 3 (the ``mutation`` extra: ``.venv/bin/pip install -e
.[mutation]``) over the gate's judge and statistics, the results store,
the planner and site validation.  Each module's mutants meet the fast
lane's tests (the pure lane of ``scripts/test.sh --fast``) that name the
module (``pfsbench.<package>.<module>`` or ``from pfsbench.<package>
import <module>``), plus those :data:`ALSO` adds where a module is
reached through its package's face; ``--fast-lane`` gives every module
the whole fast lane (hours on two cores), ``--tests`` the files named.
mutmut copies the project into ``mutants/`` of its working directory:
each module runs in its own throw-away copy of the checkout (its tracked
and untracked, not ignored, files), so nothing is written here.

mutmut maps each test to the functions it calls once (one run of the
tests), then runs, for each mutant, only the tests that reach the mutated
function, stopping at the first failure.  Per module it prints the
mutants, how many the tests killed, how many survived, timed out or no
test reached, the score (killed and timed out over all mutants) and the
wall time (making the mutants, mapping the tests, running the mutants).  ``--survivors`` prints each
surviving mutant's diff.  docs/mutation.md has the scores and what each
survivor is.

Usage: nice -n 10 python3 bench/mutation.py [--modules gate/judge/budget.py
       store/ingest.py ...] [--jobs 2] [--fast-lane | --tests
       tests/test_x.py ...] [--survivors] [--keep]
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

#: The modules where a silent bug costs most, as globs under pfsbench/.
MODULES = ('gate/judge/*.py', 'gate/statistics/*.py', 'store/*.py',
           'plan/*.py', 'load/*.py', 'gate/report/summary.py',
           'site/validate.py')

#: Test files that reach a module through its package's face (``store.
#: ingest_report``) or a command, beyond those that name it.
ALSO = {
    'store/ingest.py': ('tests/test_store.py', 'tests/test_gate_provenance.py',
                        'tests/test_triage.py'),
    'store/connect.py': ('tests/test_store.py', 'tests/test_store_roles.py',
                         'tests/test_store_secrets.py'),
    'gate/judge/budget.py': ('tests/test_gate_units.py',),
    'plan/budget.py': ('tests/test_nightly_plan.py',),
    'store/records.py': ('tests/test_store.py', 'tests/test_store_runs.py'),
    'store/read.py': ('tests/test_store.py', 'tests/test_store_runs.py',
                      'tests/test_history_html.py'),
    'store/history.py': ('tests/test_store.py', 'tests/test_history_html.py'),
    'store/reframe_db.py': ('tests/test_store_runs.py',),
    'store/spool.py': ('tests/test_store.py',),
    'store/baselines.py': ('tests/test_store.py',),
    'plan/nights.py': ('tests/test_nightly_plan.py',),
    'plan/nightly.py': ('tests/test_nightly_job.py',
                     'tests/test_nightly_plan.py'),
}

#: The fast lane's marker expression (scripts/test.sh --fast).
FAST_LANE = 'not reframe and not slurm and not root and not tool and not rates'

#: mutmut's exit code of a mutant's test run -> how it counts here
#: (mutmut.stats.status_by_exit_code).
STATUS = {1: 'killed', 3: 'killed', 0: 'survived', 5: 'no tests',
          33: 'no tests', 34: 'skipped', 36: 'timeout', -24: 'timeout',
          24: 'timeout', 152: 'timeout', 255: 'timeout', None: 'not run'}


def modules(patterns):
    """The module paths (relative to pfsbench/) the patterns name, in
    order, without ``__init__.py`` (a package's face holds no logic)."""
    found = []
    for pattern in patterns:
        hits = sorted(str(p.relative_to(REPO / 'pfsbench'))
                      for p in (REPO / 'pfsbench').glob(pattern))
        if not hits:
            sys.exit(f'mutation: error: --modules {pattern}: no such module '
                     f'under {REPO / "pfsbench"}')
        found += [h for h in hits if not h.endswith('__init__.py')
                  and h not in found]
    return found


def tests_of(module):
    """The test files that name ``module`` (relative to pfsbench/), and
    those :data:`ALSO` adds."""
    package, _, stem = module[:-len('.py')].rpartition('/')
    package = 'pfsbench.' + package.replace('/', '.')
    names = re.compile(
        rf'{re.escape(package)}\.{stem}\b'
        rf'|from {re.escape(package)} import \(?[\w\s,]*\b{stem}\b')
    found = {str(p.relative_to(REPO)) for p in (REPO / 'tests').glob('test_*.py')
             if names.search(p.read_text())}
    found |= set(ALSO.get(module, ()))
    if not found:
        sys.exit(f'mutation: error: {module}: no test file names it; add '
                 f'it to ALSO in {__file__} or give --tests')
    return sorted(found)


def copy_checkout(dest):
    """Copy the checkout's tracked and untracked (not ignored) files."""
    listed = subprocess.run(
        ['git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'],
        cwd=REPO, check=True, capture_output=True).stdout.decode()
    for name in filter(None, listed.split('\0')):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def configure(dest, module, tests):
    """Append mutmut's section to the copy's pyproject.toml."""
    selection = list(tests) + ['-m', FAST_LANE]
    top = sorted(p.name for p in dest.iterdir()
                 if p.name not in ('pfsbench', 'tests', 'pyproject.toml'))
    section = {
        'source_paths': ['pfsbench'],
        'only_mutate': [f'pfsbench/{module}'],
        'also_copy': top,
        'pytest_add_cli_args': ['-p', 'no:cacheprovider'],
        'pytest_add_cli_args_test_selection': selection,
        'use_git_change_detection': False,
    }
    lines = ['', '[tool.mutmut]']
    lines += [f'{key} = {json.dumps(value)}' for key, value in section.items()]
    with open(dest / 'pyproject.toml', 'a') as out:
        out.write('\n'.join(lines) + '\n')


def tally(dest, module):
    """mutants, and their count per status, of one module."""
    meta = dest / 'mutants' / 'pfsbench' / (module + '.meta')
    if not meta.exists():
        return {}, {}
    codes = json.loads(meta.read_text())['exit_code_by_key']
    counts = {}
    for code in codes.values():
        status = STATUS.get(code, 'suspicious')
        counts[status] = counts.get(status, 0) + 1
    return codes, counts


def run_module(dest, module, tests, jobs):
    """Run one module's mutants in a copy of the checkout at ``dest``;
    its wall seconds."""
    start = time.monotonic()
    dest.mkdir()
    copy_checkout(dest)
    configure(dest, module, tests)
    cmd = [sys.executable, '-m', 'mutmut', 'run', '--max-children', str(jobs)]
    # Every mutant's run imports tests/conftest.py again and leaves by
    # os._exit: one Hypothesis home for them all, and the temporary
    # directory of the runs (pytest's, a mutant's stray files), inside the
    # copy, removed with it even when a run is killed.
    home, scratch = dest / 'hypothesis-home', dest / 'tmp'
    home.mkdir()
    scratch.mkdir()
    env = dict(os.environ, PFSBENCH_HYPOTHESIS_HOME=str(home),
               TMPDIR=str(scratch))
    done = subprocess.run(cmd, cwd=dest, capture_output=True, text=True,
                          check=False, env=env)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-15:]
        print(f'mutation: mutmut failed on {module}:', *tail, sep='\n  ',
              file=sys.stderr)
    return time.monotonic() - start


def show(dest, names):
    for name in names:
        diff = subprocess.run([sys.executable, '-m', 'mutmut', 'show', name],
                              cwd=dest, capture_output=True, text=True,
                              check=False)
        print(diff.stdout.rstrip(), flush=True)


def report(dest, module, wall, survivors):
    """Print one module's line (and its survivors' diffs)."""
    codes, counts = tally(dest, module)
    total = len(codes)
    caught = counts.get('killed', 0) + counts.get('timeout', 0)
    score = f'{100 * caught / total:5.1f}%' if total else '    -'
    print(f'{module:34} {total:7} {counts.get("killed", 0):6} '
          f'{counts.get("survived", 0):8} {counts.get("timeout", 0):7} '
          f'{counts.get("no tests", 0):7} {score:>6} {wall:7.0f}', flush=True)
    if survivors:
        show(dest, sorted(n for n, c in codes.items()
                          if STATUS.get(c) in ('survived', 'no tests')))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--modules', nargs='+', default=list(MODULES),
                        help='globs under pfsbench/ (default: %(default)s)')
    which = parser.add_mutually_exclusive_group()
    which.add_argument('--fast-lane', action='store_true',
                       help="every module meets the whole fast lane "
                            "(default: the test files that name it)")
    which.add_argument('--tests', nargs='+', metavar='TEST', default=None,
                       help='test files or node ids, for every module '
                            '(default: the test files that name it)')
    parser.add_argument('--jobs', type=int, default=2, metavar='N',
                        help='mutants tested at once (default: %(default)s)')
    parser.add_argument('--survivors', action='store_true',
                        help="print each surviving mutant's diff "
                             "(default: only the counts)")
    parser.add_argument('--keep', action='store_true',
                        help='keep the copies, for mutmut browse there '
                             '(default: removed)')
    args = parser.parse_args()
    try:
        import mutmut  # noqa: F401
    except ImportError:
        sys.exit('mutation: error: mutmut is not installed; run '
                 '.venv/bin/pip install -e ".[mutation]"')
    mods = modules(args.modules)
    commit = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], cwd=REPO,
                            capture_output=True, text=True,
                            check=False).stdout.strip()
    print(f'mutmut {version("mutmut")} on {commit}')
    print(f'{"module":34} {"mutants":>7} {"killed":>6} {"survived":>8} '
          f'{"timeout":>7} {"no test":>7} {"score":>6} {"wall s":>7}')
    top = Path(tempfile.mkdtemp(prefix='pfsbench-mutation-'))
    # A run stopped by kill removes its copies as one that ends does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        for module in mods:
            tests = (['tests'] if args.fast_lane else args.tests
                     or tests_of(module))
            dest = top / module.replace('/', '-')[:-len('.py')]
            wall = run_module(dest, module, tests, args.jobs)
            report(dest, module, wall, args.survivors)
            if not args.keep:
                shutil.rmtree(dest, ignore_errors=True)
    finally:
        if args.keep:
            print(f'mutation: the copies are in {top}')
        else:
            shutil.rmtree(top, ignore_errors=True)


if __name__ == '__main__':
    main()
