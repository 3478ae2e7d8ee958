#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""How much time the suite itself costs, apart from the benchmarks it runs.

Prints, for each system given (default: local, plus localslurm when its
cluster is up):

- the wall time of listing the whole catalogue (``reframe -l``), median of
  ``--repeat`` runs, and of a catalogue about three times as large (the
  check files copied ``--copies`` times with their test classes renamed:
  what the catalogue becomes with the metadata and classic-tool families),
  as cases per second and the time 1,000 cases take;
- the framework time per test case: the wall time of a serial ``reframe -r``
  of dd cases, minus the time dd itself ran (from the first stream's start
  to the last stream's end in each case's output), divided by the cases.

Run: ``.venv/bin/python bench/suite_overhead.py [--systems local,localslurm]
[--cases 4] [--repeat 3]``.  Every reframe command is printed.
"""

import argparse
import glob
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from pfsbench.parsers import streams  # noqa: E402

REFRAME = os.path.join(os.path.dirname(sys.executable), 'reframe')


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def reframe(args, runs, env=None):
    cmd = [REFRAME, '-C', os.path.join(REPO, 'config', 'settings.py')] + args
    print('+', f'PFSBENCH_RUNS={runs}', ' '.join(cmd), flush=True)
    full_env = dict(os.environ, PFSBENCH_RUNS=runs, **(env or {}))
    start = time.perf_counter()
    cpu_start = _children_cpu()
    proc = subprocess.run(cmd, cwd=REPO, env=full_env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    elapsed = time.perf_counter() - start
    reframe.cpu_s = _children_cpu() - cpu_start
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


def copied_catalogue(directory, copies):
    """``reframe-checks`` copied ``copies`` times under ``directory``, each
    copy's test classes renamed (``<name>_copyK``): a larger catalogue of
    the same families."""
    for k in range(1, copies + 1):
        dest = os.path.join(directory, f'copy{k}')
        shutil.copytree(os.path.join(REPO, 'reframe-checks'), dest)
        for path in glob.glob(f'{dest}/**/*.py', recursive=True):
            with open(path) as fp:
                text = fp.read()
            text = re.sub(r'(@rfm\.simple_test\nclass )(\w+)\(',
                          rf'\1\2_copy{k}(', text)
            with open(path, 'w') as fp:
                fp.write(text)
    return directory


def listing_time(system, checks, runs, env, repeat):
    """(median seconds, number of cases) of ``reframe -l`` over ``checks``."""
    times, cpu = [], []
    for _ in range(repeat):
        elapsed, out = reframe(['--system', system, '-c', checks, '-R',
                                '-l'], runs, env)
        times.append(elapsed)
        cpu.append(reframe.cpu_s)
    found = re.search(r'Found (\d+) check', out)
    # CPU seconds as well as wall time: on a shared machine the wall time
    # also counts other processes' turns on the cores.
    listing_time.cpu_s = statistics.median(cpu)
    return statistics.median(times), int(found.group(1)), times


def measure(system, ncases, repeat, env, copies):
    with tempfile.TemporaryDirectory() as runs:
        median, cases, listing = listing_time(system, 'reframe-checks', runs,
                                              env, repeat)
        cpu = listing_time.cpu_s
        found = [f'Found {cases} check(s)']
        with tempfile.TemporaryDirectory() as big:
            big_median, big_cases, _ = listing_time(
                system, copied_catalogue(big, copies), runs, env, repeat)
            big_cpu = listing_time.cpu_s

    print(f'{system}: reframe -l of the catalogue ({found[0].strip()}): '
          f'median {statistics.median(listing):.2f} s over {repeat} runs '
          f'(min {min(listing):.2f}, max {max(listing):.2f}); CPU '
          f'{cpu:.2f} s')
    print(f'{system}: reframe -l of {big_cases} cases ({copies} copies): '
          f'median {big_median:.2f} s, {big_cases / big_median:.0f} cases/s,'
          f' 1,000 cases in {1000 * big_median / big_cases:.2f} s wall, '
          f'{1000 * big_cpu / big_cases:.2f} s CPU')
    if ncases == 0:
        return
    per_case = []
    tool_share = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as runs:
            wall, _ = reframe(
                ['--system', system, '-c', 'reframe-checks/dd',
                 '-n', 'dd_streams_per_node', '-P', 'nodes=1',
                 '-P', 'streams_per_node=1', '-S', 'count=20',
                 '-S', 'repeats=1',
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

    print(f'{system}: framework time per dd test case (serial, {ncases} '
          f'cases per run): median {statistics.median(per_case):.2f} s '
          f'(min {min(per_case):.2f}, max {max(per_case):.2f}); dd itself '
          f'ran {statistics.median(tool_share):.2f} s per case')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--systems', default='local,localslurm')
    parser.add_argument('--cases', type=int, default=4,
                        help='dd cases per timed run (0: listing only)')
    parser.add_argument('--copies', type=int, default=3,
                        help='copies of the catalogue for the large listing')
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
        measure(system, args.cases, args.repeat, env, args.copies)


if __name__ == '__main__':
    main()
