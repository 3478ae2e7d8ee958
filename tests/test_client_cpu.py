# SPDX-License-Identifier: BSD-3-Clause
"""The client-CPU probe (issue 19, item 3): a local case during which
others kept the host's CPUs busy is marked contended, and the quality
bench leaves it out as the gate does."""

import glob
import os
import importlib.util
import subprocess
import sys
import time
import warnings

import pytest

from conftest import REPO, run_reframe
from pfsbench.load import contention

BENCH = REPO / 'bench' / 'gate_quality.py'
#: /proc/stat as the kernel prints it: two CPUs, the columns user nice
#: system idle iowait irq softirq steal guest guest_nice.
PROC_STAT = ('cpu  100 5 50 1000 20 0 3 2 7 0\n'
             'cpu0 50 5 25 500 10 0 2 1 7 0\n'
             'cpu1 50 0 25 500 10 0 1 1 0 0\n'
             'intr 12 0 0\nctxt 99\n')
PRESSURE = ('some avg10=2.99 avg60=1.51 avg300=4.51 total=9097520503\n'
            'full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n')


def _sample(when, busy_s, own_s, pressure_us=None, cpus=2):
    return contention.CpuSample(when=when, busy_s=busy_s, cpus=cpus,
                                own_s=own_s, pressure_us=pressure_us)


def test_busy_time_is_work_without_idle_iowait_or_guest():
    # user + nice + system + irq + softirq + steal; guest is in user.
    assert contention.parse_proc_stat(PROC_STAT) == (160, 2)
    with pytest.raises(ValueError):
        contention.parse_proc_stat('intr 12 0 0\n')
    assert contention.parse_cpu_pressure(PRESSURE) == 9097520503
    assert contention.parse_cpu_pressure('') is None


def test_foreign_cpus_are_the_host_busy_time_less_the_case_own():
    before = _sample(10.0, 1000.0, 3.0, pressure_us=0)
    after = _sample(14.0, 1008.0, 4.4, pressure_us=2_000_000)
    figures = contention.client_cpu(before, after)
    assert figures['foreign_cpus'] == pytest.approx((8.0 - 1.4) / 4)
    assert figures['pressure'] == pytest.approx(0.5)
    assert contention.describe_client_cpu(figures) == \
        'foreign_cpus=1.65 serving_cpus=0.00 cpus=2 seconds=4.0 pressure=0.50'
    assert contention.foreign_cpu_load(figures) == \
        'client host: others used 1.6 of its 2 CPUs during the case'
    # The case's own work is not foreign (and never below zero).
    own = contention.client_cpu(before, _sample(14.0, 1008.0, 11.0))
    assert own['foreign_cpus'] == 0.0 and own['pressure'] is None
    assert contention.foreign_cpu_load(own) == ''


def test_the_limit_is_half_the_host_cpus():
    def load(foreign, cpus):
        return contention.foreign_cpu_load(
            {'foreign_cpus': foreign, 'cpus': cpus, 'seconds': 1.0,
             'pressure': None})
    assert load(0.9, 2) == ''
    assert load(1.1, 2).startswith('client host: others used 1.1 of its 2')
    assert load(1.1, 8) == ''
    # -S client_cpu_share=1: others can use no more than all CPUs.
    assert contention.foreign_cpu_load(
        {'foreign_cpus': 2.0, 'cpus': 2, 'seconds': 1.0, 'pressure': None},
        1.0) == ''


def test_unreadable_proc_stat_gives_no_verdict(tmp_path):
    garbage = tmp_path / 'stat'
    garbage.write_text('cpu  x y\n')
    assert contention.sample_cpu(str(tmp_path / 'none')) is None
    assert contention.sample_cpu(str(garbage)) is None
    good = tmp_path / 'good'
    good.write_text(PROC_STAT)
    sample = contention.sample_cpu(str(good), str(tmp_path / 'no-psi'))
    assert sample.cpus == 2 and sample.pressure_us is None
    assert contention.client_cpu(None, sample) is None
    assert contention.client_cpu(sample, None) is None
    assert contention.foreign_cpu_load(None) == ''
    assert contention.describe_client_cpu(None) == ''


def _proc(tmp_path, stats):
    """A /proc of ``{pid: stat line}``."""
    for pid, line in stats.items():
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / 'stat').write_text(line)
    (tmp_path / 'self').mkdir()
    return str(tmp_path)


def _stat(pid, name, flags, utime, stime):
    # pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
    # majflt cmajflt utime stime ...
    return (f'{pid} ({name}) S 1 {pid} {pid} 0 -1 {flags} 10 0 0 0 '
            f'{utime} {stime} 0 0 20 0 1 0 100 1000 200\n')


def test_serving_processes_and_kernel_threads_are_the_case_own(tmp_path):
    # A FUSE client moves the case's bytes through its own CPU: 1.1 CPUs
    # of mfsmount and a chunkserver on this host during a 256 MiB dd onto
    # MooseFS were marked "others used 1.1 of its 2 CPUs" before.
    proc = _proc(tmp_path, {
        10: _stat(10, 'mfsmount', 0x400000, 300, 200),
        11: _stat(11, 'mfschunkserver', 0x400000, 100, 100),
        12: _stat(12, 'kworker/u4:1-loop0', 0x04208060, 0, 70),
        13: _stat(13, 'make (x) y', 0x400000, 5000, 0),
        14: 'garbage',
    })
    assert contention.parse_pid_stat(_stat(13, 'make (x) y', 0, 7, 8)) == \
        ('make (x) y', 0, 15, 100)
    assert contention.parse_pid_stat('garbage') is None
    # mfsmount (known) + the kernel thread; the chunkserver only when the
    # partition names it; others' make never.
    assert contention.serving_tasks(contention.SERVING_PROCESSES, proc) == \
        {(10, 100): 500, (12, 100): 70}
    assert sum(contention.serving_tasks(contention.serving_names(
        {'client_serving_processes': ['mfschunkserver']}),
        proc).values()) == 770
    assert contention.serving_tasks((), str(tmp_path / 'none')) == {}

    before = contention.CpuSample(when=10.0, busy_s=1000.0, cpus=2,
                                  own_s=3.0, serving_tasks=(((10, 7), 20.0),))
    after = contention.CpuSample(when=12.0, busy_s=1003.0, cpus=2,
                                 own_s=3.2, serving_tasks=(((10, 7), 22.2),))
    figures = contention.client_cpu(before, after)
    assert figures['foreign_cpus'] == pytest.approx((3.0 - 0.2 - 2.2) / 2)
    assert figures['serving_cpus'] == pytest.approx(1.1)
    assert contention.foreign_cpu_load(figures) == ''
    # A serving process that ended takes its ticks with it: nothing, not
    # negative.
    gone = contention.CpuSample(when=12.0, busy_s=1003.0, cpus=2, own_s=3.2)
    assert contention.client_cpu(before, gone)['serving_cpus'] == 0.0


def test_a_kernel_worker_that_exits_does_not_hide_the_client(tmp_path):
    # CI saw serving_cpus=0.00 beside a spinning serving process: a kworker
    # with many seconds behind it exited between the samples, so the sum
    # fell, and a difference of sums (clamped at zero) hid the client.  Task by task, the
    # client's 1.2 s in the 2 s window stay, and a reused pid is new.
    def sample(when, busy_s, proc):
        tasks = contention.serving_tasks(('mfsmount',), proc)
        return contention.CpuSample(
            when=when, busy_s=busy_s, cpus=2, own_s=0.0,
            serving_tasks=tuple((k, t / 100) for k, t in sorted(tasks.items())))

    def stat(pid, name, flags, ticks, start):
        return (f'{pid} ({name}) S 1 {pid} {pid} 0 -1 {flags} 10 0 0 0 '
                f'{ticks} 0 0 0 20 0 1 0 {start} 1000 200\n')

    (tmp_path / 'a').mkdir()
    (tmp_path / 'b').mkdir()
    before = sample(10.0, 1000.0, _proc(tmp_path / 'a', {
        10: stat(10, 'mfsmount', 0x400000, 500, 7),
        30: stat(30, 'kworker/1:2H-kb', 0x04208060, 4100, 9),
        40: stat(40, 'kworker/0:1', 0x04208060, 50, 11),
    }))
    after = sample(12.0, 1003.0, _proc(tmp_path / 'b', {
        10: stat(10, 'mfsmount', 0x400000, 620, 7),
        # pid 40 was reused by a new worker: its 20 ticks are all new.
        40: stat(40, 'kworker/0:2', 0x04208060, 20, 900),
    }))
    figures = contention.client_cpu(before, after)
    assert figures['serving_cpus'] == pytest.approx((1.2 + 0.2) / 2)
    assert figures['foreign_cpus'] == pytest.approx((3.0 - 1.4) / 2)
    # The totals fell (46.5 s -> 6.4 s): a difference of sums says 0.
    assert sum(t for _, t in after.serving_tasks) < \
        sum(t for _, t in before.serving_tasks)


def _cpu_seconds_of(pid):
    """utime + stime of ``pid`` from /proc/<pid>/stat, in seconds."""
    with open(f'/proc/{pid}/stat') as fp:
        fields = fp.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def test_a_running_serving_process_is_counted(tmp_path):
    # A real process whose name is in the list: its CPU is serving, not
    # foreign (the name as /proc/<pid>/stat gives it: 15 characters).
    # The samples wait for the spinner's own CPU seconds, not for wall
    # time: on a loaded host it may get a small share of a CPU.
    spin = tmp_path / 'pfsbench-serve'
    spin.write_text('#!/bin/sh\nwhile :; do :; done\n')
    spin.chmod(0o755)
    proc = subprocess.Popen([str(spin)])
    try:
        time.sleep(0.2)
        before = contention.sample_cpu(serving=('pfsbench-serve',))
        inner_start = _cpu_seconds_of(proc.pid)
        deadline = time.monotonic() + 30
        while (_cpu_seconds_of(proc.pid) - inner_start < 0.5
               and time.monotonic() < deadline):
            time.sleep(0.05)
        inner_end = _cpu_seconds_of(proc.pid)
        after = contention.sample_cpu(serving=('pfsbench-serve',))
    finally:
        proc.kill()
        proc.wait()
    assert inner_end - inner_start >= 0.5, 'the spinner got no CPU in 30 s'
    figures = contention.client_cpu(before, after)
    serving_s = figures['serving_cpus'] * figures['seconds']
    # At least the spinner's seconds between the samples (kernel threads
    # count as serving too), to a clock tick.
    tick = 1 / os.sysconf('SC_CLK_TCK')
    assert serving_s >= inner_end - inner_start - tick, (figures, inner_end)


def test_a_reaped_child_cpu_counts_as_the_case_own():
    # The local scheduler reaps the job script, whose rusage holds dd's.
    before = contention.sample_cpu()
    spin = ('import time\nt = time.process_time()\n'
            'while time.process_time() - t < 0.5: pass')
    subprocess.run([sys.executable, '-c', spin], check=True)
    after = contention.sample_cpu()
    assert after.own_s - before.own_s >= 0.45
    assert after.busy_s - before.busy_s >= 0.45


def _records(runs):
    """``[(contended, client_cpu, contention)]`` from the perflog."""
    (log,) = glob.glob(f'{runs}/perflogs/**/dd_stream_per_node.log',
                       recursive=True)
    with open(log) as fp:
        header, *records = fp.read().splitlines()
    names = header.split('|')
    found = []
    for record in records:
        values = record.split('|')
        # Loggable variables line up from the end, one field each.
        field = {n: values[len(values) - len(names) + i]
                 for i, n in enumerate(names)}
        found.append((field['contended'], field['client_cpu'],
                      field['contention']))
    return found


def _dd(runs, scratch, session):
    return run_reframe(
        ['-c', 'reframe-checks/dd', '-n', 'dd_stream_per_node', '-t', 'quick',
         '-r', '--repeat', '3', '--exec-policy', 'serial', '-S', 'count=64',
         '-S', 'dd_mode=fdatasync', '-S', 'repeats=1', '--session-extras',
         f'bench_condition=natural,bench_session={session}'],
        runs, env={'PFSBENCH_SCRATCH': str(scratch)})


def test_a_local_case_beside_two_busy_loops_is_contended(tmp_path, capsys):
    scratch = tmp_path / 'scratch'
    scratch.mkdir()
    runs = tmp_path / 'runs'
    # Others' work on this shared machine just before: the quiet run is
    # judged only when there was little (a helper's bench can keep both
    # CPUs busy for minutes).
    before = contention.sample_cpu()
    time.sleep(1.0)
    others = contention.client_cpu(before, contention.sample_cpu())
    quiet = _dd(runs, scratch, 0)
    assert quiet.returncode == 0, quiet.stdout
    quiet_records = _records(runs)
    assert len(quiet_records) == 3
    assert all(cpu.startswith('foreign_cpus=') for _, cpu, _ in
               quiet_records), quiet_records
    if others['foreign_cpus'] < 0.25 * others['cpus']:
        # A burst of others' work may mark one quiet repeat; not all.
        assert any(c == 'false' for c, _, _ in quiet_records), \
            (others, quiet_records)
    else:
        warnings.warn(f'the quiet half was not judged: others used '
                      f"{others['foreign_cpus']:.1f} of {others['cpus']} "
                      f'CPUs just before it')

    # One busy loop per CPU: more than half of any host's CPUs.
    loops = [subprocess.Popen([sys.executable, '-c', 'while 1: pass'])
             for _ in range(max(2, others['cpus']))]
    try:
        time.sleep(0.5)
        busy = _dd(runs, scratch, 1)
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
    assert busy.returncode == 0, busy.stdout
    busy_records = _records(runs)[len(quiet_records):]
    assert len(busy_records) == 3
    for contended, cpu, why in busy_records:
        assert contended == 'true', busy_records
        assert 'client host: others used' in why and 'of its' in why

    # The quality bench leaves them out as the gate does, or keeps them.
    spec = importlib.util.spec_from_file_location('gate_quality', BENCH)
    gq = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gq)
    capsys.readouterr()
    left = gq.collect(str(runs))
    marked = sum(c == 'true' for c, _, _ in _records(runs))
    assert f'natural: {marked} of 6 results in ' in capsys.readouterr().out
    assert sum(map(len, left.get('natural', {}).get('write_bw', []))) == \
        6 - marked
    kept = gq.collect(str(runs), keep_contended=True)
    assert [len(s) for s in kept['natural']['write_bw']] == [3, 3]


def test_a_case_whose_proc_stat_went_unreadable_has_no_verdict():
    from types import SimpleNamespace

    from pfsbench.checks.base import FileSystemCheck
    from pfsbench.checks.probes import Around

    def case_with(before, after):
        return SimpleNamespace(client_cpu='', client_cpu_share=0.5,
                               client_cpu_samples=Around(before, after))

    before = _sample(10.0, 1000.0, 3.0)
    case = case_with(before, None)
    assert FileSystemCheck.client_cpu_verdict(case) == ''
    assert case.client_cpu == 'unavailable: /proc/stat could not be read'
    busy = _sample(12.0, 1004.0, 3.2)
    case = case_with(before, busy)
    assert FileSystemCheck.client_cpu_verdict(case) == \
        'client host: others used 1.9 of its 2 CPUs during the case'
    assert case.client_cpu == \
        'foreign_cpus=1.90 serving_cpus=0.00 cpus=2 seconds=2.0'
    # The verdict takes the samples off the case.
    assert not hasattr(case, 'client_cpu_samples')
    # Not a local case: nothing sampled, nothing said.
    other = SimpleNamespace(client_cpu='', client_cpu_share=0.5)
    assert FileSystemCheck.client_cpu_verdict(other) == ''
    assert other.client_cpu == ''
