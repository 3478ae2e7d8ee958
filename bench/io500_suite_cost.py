#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What an IO500 run of the suite costs, and how its score compares with
the real io500's on the same case.

Runs, on one system (default ``local``), the 1 x 1 case of
``io500_suite_run`` (the suite's twelve phases in one job) and, where an
io500 binary exists, of ``io500_list_run`` (the real io500), each
``--repeat`` times, with the given stonewall (default: the list's 300 s;
``local``'s caps end every write sooner), and prints per case: the job's
wall time (submit to completion), the reframe command's wall time,
``io500_bw``, ``io500_md``, ``io500_score``, ``io500_valid``, and the load
average before and after (the machine may be shared).

Run: ``.venv/bin/python bench/io500_suite_cost.py [--system local]
[--repeat 1] [--stonewall 300] [--ior /opt/ior/bin/ior]
[--pfind /opt/io500/bin/pfind] [--io500 /opt/io500/bin/io500]``.  Every
reframe command is printed.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, 'tests'))

from conftest import perflog_dicts  # noqa: E402  (the tests' perflog reader)

REFRAME = os.path.join(os.path.dirname(sys.executable), 'reframe')
FIGURES = ('io500_bw', 'io500_md', 'io500_score')


def _first(*paths):
    return next((p for p in paths if p and os.access(p, os.X_OK)), None)


def _load():
    return ' '.join(f'{v:.1f}' for v in os.getloadavg())


def run_case(check, system, repeat, words):
    runs = tempfile.mkdtemp(prefix='pfsbench-bench-io500-')
    cmd = [REFRAME, '-C', os.path.join(REPO, 'config', 'settings.py'),
           '--system', system, '-c', os.path.join(REPO, 'reframe-checks',
                                                  'io500'),
           '-n', f'^{check}\\b', '-P', 'nodes=1', '-P', 'tasks_per_node=1',
           '--repeat', str(repeat), '--exec-policy', 'serial', *words, '-r']
    print('+', f'PFSBENCH_RUNS={runs}', ' '.join(cmd), flush=True)
    load_before = _load()
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=dict(os.environ,
                                                  PFSBENCH_RUNS=runs),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    elapsed = time.perf_counter() - start
    load_after = _load()
    try:
        if proc.returncode != 0:
            sys.exit(f'reframe failed ({proc.returncode}):\n'
                     f'{proc.stdout[-3000:]}')
        name, _, partition = system.partition(':')
        records = perflog_dicts(runs, name, partition or 'default', check)
    finally:
        shutil.rmtree(runs, ignore_errors=True)
    print(f'{check}: {len(records)} case(s), reframe {elapsed:.1f} s, load '
          f'average {load_before} before, {load_after} after')
    for record in records:
        job_s = (float(record['job_completion_time_unix']) -
                 float(record['job_submit_time']))
        figures = '  '.join(f'{f} {record[f]:.4f}' for f in FIGURES)
        print(f'  job {job_s:6.1f} s  {figures}  io500_valid '
              f'{record["io500_valid"]}')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--system', default='local')
    parser.add_argument('--repeat', type=int, default=1)
    parser.add_argument('--stonewall', type=int, default=300,
                        help='seconds (default: the list\'s 300)')
    parser.add_argument('--ior', default=_first(
        shutil.which('ior'), '/opt/ior/bin/ior'))
    parser.add_argument('--pfind', default=_first(
        shutil.which('pfind'), '/opt/io500/bin/pfind'))
    parser.add_argument('--io500', default=_first(
        shutil.which('io500'), '/opt/io500/bin/io500'))
    args = parser.parse_args()
    if not (args.ior and args.pfind):
        sys.exit('io500_suite_cost: needs ior (with mdtest beside it) and '
                 'pfind: --ior PATH --pfind PATH')

    stonewall = ['-S', f'stonewall_s={args.stonewall}']
    run_case('io500_suite_run', args.system, args.repeat,
             stonewall + ['-S', f'ior_binary={args.ior}',
                          '-S', f'pfind_binary={args.pfind}'])
    if args.io500:
        run_case('io500_list_run', args.system, args.repeat,
                 stonewall + ['-S', f'tool_binary={args.io500}'])
    else:
        print('io500_list_run: no io500 binary (--io500 PATH)')


if __name__ == '__main__':
    main()
