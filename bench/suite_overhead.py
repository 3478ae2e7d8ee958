#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""How much time the suite itself costs, apart from the benchmarks it runs.

Prints, for each system given (default: local, plus localslurm when its
cluster is up):

- the wall time of listing the whole catalogue (``reframe -l``), median of
  ``--repeat`` runs;
- the framework time per test case: the wall time of a serial ``reframe -r``
  of dd cases, minus the time dd itself ran (from the first stream's start
  to the last stream's end in each case's output), divided by the cases.

Run: ``.venv/bin/python bench/suite_overhead.py [--systems local,localslurm]
[--cases 4] [--repeat 3]``.  Every reframe command is printed.
"""

import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from pfsbench.parsers import streams  # noqa: E402

REFRAME = os.path.join(os.path.dirname(sys.executable), 'reframe')


def reframe(args, runs, env=None):
    cmd = [REFRAME, '-C', os.path.join(REPO, 'config', 'settings.py')] + args
    print('+', f'PFSBENCH_RUNS={runs}', ' '.join(cmd), flush=True)
    full_env = dict(os.environ, PFSBENCH_RUNS=runs, **(env or {}))
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=full_env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f'reframe failed ({proc.returncode}):\n{proc.stdout[-3000:]}')
    return elapsed, proc.stdout


def slurm_env():
    script = os.path.join(REPO, 'tests', 'localslurm', 'localslurm.sh')
    if subprocess.run(['bash', script, 'status'], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        return None
    out = subprocess.run(['bash', script, 'env'], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    env = {}
    for line in out.splitlines():
        key, _, value = line[len('export '):].partition('=')
        env[key] = value
    return env


def measure(system, ncases, repeat, env):
    with tempfile.TemporaryDirectory() as runs:
        listing = [reframe(['--system', system, '-c', 'reframe-checks',
                            '-l'], runs, env)[0] for _ in range(repeat)]
        out = reframe(['--system', system, '-c', 'reframe-checks',
                       '-l'], runs, env)[1]
        found = [ln for ln in out.splitlines() if 'Found' in ln]

    per_case = []
    tool_share = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as runs:
            wall, _ = reframe(
                ['--system', system, '-c', 'reframe-checks/dd',
                 '-n', 'dd_streams_per_node', '-P', 'nodes=1',
                 '-P', 'streams_per_node=1', '-S', 'count=20',
                 '--repeat', str(ncases), '--exec-policy=serial', '-r'],
                runs, env)
            tool = 0.0
            outs = glob.glob(f'{runs}/output/**/rfm_job.out', recursive=True)
            for path in outs:
                with open(path) as fp:
                    result = streams.parse(fp.read(), path)
                samples = result.samples
                tool += (max(s.end for s in samples) -
                         min(s.start for s in samples))
            per_case.append((wall - tool) / len(outs))
            tool_share.append(tool / len(outs))

    print(f'{system}: reframe -l of the catalogue ({found[0].strip()}): '
          f'median {statistics.median(listing):.2f} s over {repeat} runs '
          f'(min {min(listing):.2f}, max {max(listing):.2f})')
    print(f'{system}: framework time per dd test case (serial, {ncases} '
          f'cases per run): median {statistics.median(per_case):.2f} s '
          f'(min {min(per_case):.2f}, max {max(per_case):.2f}); dd itself '
          f'ran {statistics.median(tool_share):.2f} s per case')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--systems', default='local,localslurm')
    parser.add_argument('--cases', type=int, default=4)
    parser.add_argument('--repeat', type=int, default=3)
    args = parser.parse_args()
    for system in args.systems.split(','):
        env = None
        if system.startswith('localslurm'):
            env = slurm_env()
            if env is None:
                print(f'{system}: skipped: the test cluster is not up '
                      f'(tests/localslurm/localslurm.sh up)')
                continue
        measure(system, args.cases, args.repeat, env)


if __name__ == '__main__':
    main()
