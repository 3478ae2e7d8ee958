# SPDX-License-Identifier: BSD-3-Clause
"""One case at a time per target, and foreign load marked (issue 9, 3).

Cases run through the real ``reframe`` with a test-only check
(``tests/data/checks/stamped.py``) that prints when its job started and
ended; two cases overlap when one starts before the other ended.
"""

import glob
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cappedfs import loop_fs
from conftest import CONFIG, REPO, reframe_bin, run_reframe
from pfsbench.core.errors import ConfigError
from pfsbench.load import contention
from pfsbench.site import exclusive, config as siteconfig

STAMPED = str(REPO / 'tests' / 'data' / 'checks' / 'stamped.py')


def _intervals(runs):
    """(start, end) of every job of a run, from their stdout."""
    found = []
    for path in glob.glob(f'{runs}/output/**/rfm_job.out', recursive=True):
        with open(path) as fp:
            text = fp.read()
        start = float(re.search(r'^start=([\d.]+)$', text, re.M).group(1))
        end = float(re.search(r'^end=([\d.]+)$', text, re.M).group(1))
        found.append((start, end))
    return sorted(found)


def _assert_one_after_another(intervals):
    for (_, end), (start, _) in zip(intervals, intervals[1:]):
        assert start >= end, f'cases overlapped: {intervals}'


def test_repeat_on_local_runs_cases_one_after_another(tmp_path):
    # No option but --repeat: ReFrame's asynchronous policy would start all
    # four at once; the partition's max_jobs of 1 keeps them apart.
    proc = run_reframe(['-c', STAMPED, '--repeat', '4', '-r'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    intervals = _intervals(tmp_path)
    assert len(intervals) == 4
    _assert_one_after_another(intervals)


def test_two_partitions_sharing_a_target_take_turns(tmp_path, localslurm):
    # srun and mpirun are two partitions (max_jobs 1 each) whose cases
    # write to the same stage root: the second waits for the first.
    proc = run_reframe(['--system', 'localslurm', '-c', STAMPED, '--repeat',
                        '2', '-r'], tmp_path, env=localslurm)
    assert proc.returncode == 0, proc.stdout
    intervals = _intervals(tmp_path)
    assert len(intervals) == 4
    _assert_one_after_another(intervals)
    assert 'one case at a time per target' in proc.stdout


def _start_holder(runs, scratch, hold_s):
    """A suite run that holds ``scratch`` for about ``hold_s`` seconds."""
    env = dict(os.environ, PFSBENCH_RUNS=str(runs),
               PFSBENCH_SCRATCH=str(scratch))
    cmd = [reframe_bin(), '-C', str(CONFIG), '-c', STAMPED, '-S',
           f'hold_s={hold_s}', '-r']
    print('+', ' '.join(cmd), flush=True)
    holder = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT,
                              universal_newlines=True)
    lock = scratch / exclusive.LOCK_NAME
    deadline = time.monotonic() + 60
    while not lock.exists():
        assert holder.poll() is None, holder.stdout.read()
        assert time.monotonic() < deadline, 'the first run took no lock'
        time.sleep(0.1)
    return holder


def test_second_suite_run_waits_for_the_first(tmp_path):
    scratch = tmp_path / 'scratch'
    scratch.mkdir()
    first = _start_holder(tmp_path / 'first', scratch, 6)
    second = run_reframe(['-c', STAMPED, '-r'], tmp_path / 'second',
                         env={'PFSBENCH_SCRATCH': str(scratch)})
    first_out = first.communicate(timeout=120)[0]
    assert first.returncode == 0, first_out
    assert second.returncode == 0, second.stdout
    assert f'{scratch} is in use by another pfsbench run (pid {first.pid}' \
        in second.stdout
    (a,), (b,) = _intervals(tmp_path / 'first'), _intervals(
        tmp_path / 'second')
    assert b[0] >= a[1]
    assert not (scratch / exclusive.LOCK_NAME).exists()
    assert os.listdir(scratch) == []


def test_second_suite_run_refuses_after_its_timeout(tmp_path):
    scratch = tmp_path / 'scratch'
    scratch.mkdir()
    first = _start_holder(tmp_path / 'first', scratch, 8)
    second = run_reframe(['-c', STAMPED, '-r'], tmp_path / 'second',
                         env={'PFSBENCH_SCRATCH': str(scratch),
                              'PFSBENCH_TARGET_LOCK_TIMEOUT': '1'})
    first.communicate(timeout=120)
    assert first.returncode == 0
    assert second.returncode != 0
    assert (f'{scratch}: another pfsbench run is measuring this target '
            f'(pid {first.pid} on ') in second.stdout
    assert 'did not finish within 1 s' in second.stdout
    assert _intervals(tmp_path / 'second') == []


def test_a_lock_of_a_dead_run_is_taken_over(tmp_path):
    dead = subprocess.Popen([sys.executable, '-c', 'pass'])
    dead.wait()
    stale = exclusive.ScratchLock(str(tmp_path))
    stale.owner['pid'] = dead.pid
    assert stale._try_create()
    said = []
    lock = exclusive.ScratchLock(str(tmp_path), timeout=5, say=said.append)
    lock.acquire()
    assert lock.read_owner()['pid'] == os.getpid()
    assert 'taking over the lock of a run that is gone' in said[0]
    lock.release()
    assert not os.path.exists(lock.path)


def test_a_lock_whose_heartbeat_stopped_is_taken_over(tmp_path):
    other = exclusive.ScratchLock(str(tmp_path))
    other.owner.update(host='another-host', pid=1)
    assert other._try_create()
    old = time.time() - exclusive.STALE_AFTER_S - 10
    os.utime(other.path, (old, old))
    lock = exclusive.ScratchLock(str(tmp_path), timeout=5, say=print)
    lock.acquire()
    assert lock.read_owner()['token'] == lock.owner['token']
    lock.release()


def test_a_live_lock_is_not_released_by_another_process(tmp_path):
    other = exclusive.ScratchLock(str(tmp_path))
    other.owner.update(pid=os.getppid())
    assert other._try_create()
    mine = exclusive.ScratchLock(str(tmp_path), timeout=0.5, say=print)
    with pytest.raises(exclusive.TargetBusy, match='did not finish within'):
        mine.acquire()
    mine.release()
    assert other.read_owner()['pid'] == os.getppid()


def test_partitions_default_to_one_job_at_a_time():
    site = {'systems': [{'name': 's', 'partitions': [
        {'name': 'a'}, {'name': 'b', 'max_jobs': 1},
        {'name': 'c', 'max_jobs': 8,
         'extras': {'independent_targets': True}}]}]}
    siteconfig.one_case_at_a_time(site, 'site.py')
    assert [p['max_jobs'] for p in site['systems'][0]['partitions']] == \
        [1, 1, 8]


def test_several_jobs_at_once_need_independent_targets():
    site = {'systems': [{'name': 's', 'partitions': [
        {'name': 'a', 'max_jobs': 8}]}]}
    with pytest.raises(ConfigError) as err:
        siteconfig.one_case_at_a_time(site, 'site.py')
    assert str(err.value).startswith(
        "site.py:systems[s].partitions[a].max_jobs: 8: more than one case at "
        "a time would measure contention")
    assert 'extras.independent_targets' in str(err.value)


def test_diskstats_counts_512_byte_sectors():
    with open('/proc/diskstats') as fp:
        counters = contention.parse_diskstats(fp.read())
    assert counters, 'no block device in /proc/diskstats'
    line = '   7       0 loop0 10 0 24 3 5 0 16 2 0 8 5 0 0 0 0 0 0'
    (loop,) = contention.parse_diskstats(line).values()
    assert (loop.device, loop.read_bytes, loop.write_bytes) == \
        ('loop0', 24 * 512, 16 * 512)


def test_foreign_io_beyond_the_slack_is_named():
    before = contention.DeviceCounters('vda', 0, 0)
    mine = 100 * 2**20
    within = contention.DeviceCounters('vda', mine, mine + 60 * 2**20)
    beyond = contention.DeviceCounters('vda', mine, mine + 300 * 2**20)
    assert contention.foreign_io(before, within, 2 * mine) == ''
    assert contention.foreign_io(before, beyond, 2 * mine) == \
        "vda: 300 MiB of I/O beyond this case's own 200 MiB"
    assert contention.foreign_io(before, beyond, None) == ''


def test_memory_file_systems_have_no_device():
    mounts = [{'mount_point': '/dev/shm', 'device': '0:25',
               'fs_type': 'tmpfs'},
              {'mount_point': '/', 'device': '254:0', 'fs_type': 'ext4'}]
    assert contention.target_device('/dev/shm/x', mounts) is None
    assert contention.target_device('/var/tmp', mounts) == '254:0'


def _perflog_field(runs, name):
    (log,) = glob.glob(f'{runs}/perflogs/**/stamped_write.log',
                       recursive=True)
    with open(log) as fp:
        header, record = fp.read().splitlines()[:2]
    # The perfvars precede the loggable variables; names and values line
    # up from the end, where every variable has one field.
    names, values = header.split('|'), record.split('|')
    return values[len(values) - len(names) + names.index(name)]


def test_foreign_writes_during_a_case_mark_it_contended(tmp_path):
    with loop_fs('contended', size='1G') as fs:
        scratch = Path(fs['mnt']) / 'scratch'
        scratch.mkdir()
        env = {'PFSBENCH_SCRATCH': str(scratch)}

        # Others' work on this shared VM's CPUs is not what this test
        # is about (tests/test_client_cpu.py is).
        quiet = run_reframe(['-c', STAMPED, '-S', 'client_cpu_share=1',
                             '-r'], tmp_path / 'quiet', env=env)
        assert quiet.returncode == 0, quiet.stdout
        assert _perflog_field(tmp_path / 'quiet', 'contended') == 'false'

        # Another process writes 256 MiB to the same device while the
        # case holds it.
        holder = _start_holder(tmp_path / 'busy', scratch, 6)
        # The lock is taken at setup; the device is sampled just before the
        # job starts.  Write only once the job writes (its file is there),
        # or a slow start puts the foreign bytes before the window.
        deadline = time.monotonic() + 60
        while not list(scratch.glob('pfsbench-stamped_write-*/f')):
            assert holder.poll() is None, holder.stdout.read()
            assert time.monotonic() < deadline, 'the case never wrote'
            time.sleep(0.1)
        subprocess.run(['dd', 'if=/dev/zero', f'of={fs["mnt"]}/foreign',
                        'bs=1M', 'count=256', 'conv=fsync'], check=True,
                       stderr=subprocess.DEVNULL)
        out = holder.communicate(timeout=120)[0]
        assert holder.returncode == 0, out
        assert _perflog_field(tmp_path / 'busy', 'contended') == 'true'
        assert re.search(r"MiB of I/O beyond this case's own 4 MiB",
                         _perflog_field(tmp_path / 'busy', 'contention'))
