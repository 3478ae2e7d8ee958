# SPDX-License-Identifier: BSD-3-Clause
"""Block-device counters (seed 000, E1-E4): /proc/diskstats as this
machine prints it, the job's samples, and iostat's figures between two.

The /proc/diskstats texts are captures of this machine's
(tests/data/diskstats/SOURCES.md).
"""

import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from pfsbench.commands import diskstats as steps
from pfsbench.core import jobsteps
from pfsbench.core.errors import ParseError
from pfsbench.core.jobsteps import Step
from pfsbench.load import contention
from pfsbench.parsers import diskstats

DATA = Path(__file__).parent / 'data' / 'diskstats'
IDLE = (DATA / 'idle-6.18.txt').read_text()


def test_figures_of_a_real_e1_job():
    # The samples an E1 job printed around its phases (400 files written
    # and fsynced on a loop ext4), and the figures its perflog holds.
    steps = jobsteps.split((DATA / 'e1-loop-ext4-rfm_job.out').read_text())

    def phase(name):
        return diskstats.usage(
            diskstats.parse(steps.text(f'disk before {name}')),
            diskstats.parse(steps.text(f'disk after {name}')))
    create, remove = phase('create'), phase('remove')
    assert create.devices == remove.devices == ('loop0',)
    # 988 ms with I/O in flight in 3.45 s; 1198 writes of 28384 sectors
    # taking 1078 ms.
    assert create.seconds == pytest.approx(3.45)
    assert create.util_pct == pytest.approx(28.63768115941425)
    assert create.write_mib_s == pytest.approx(4.01721014492669)
    assert create.read_mib_s == 0.0
    assert create.iops == pytest.approx(347.246376811521)
    assert create.await_ms == pytest.approx(0.8998330550918197)
    assert remove.util_pct == pytest.approx(0.1834862385320856)
    assert remove.iops == pytest.approx(5.504587155962568)


def _sample(counters, uptime, device='254:0', host='node1'):
    return diskstats.Sample(host, uptime, device, '', counters)


def test_proc_diskstats_of_this_machine():
    # Linux 6.18: 17 counters a line; every device of the capture, with
    # the 11 counters iostat reads.
    counters = diskstats.parse_proc(IDLE)
    assert len(counters) == len(IDLE.splitlines()) == 10
    vda = counters['254:0']
    assert vda == diskstats.DiskCounters(
        'vda', reads=1237827, read_sectors=216964258, read_ms=2053806,
        writes=2889817, write_sectors=506597680, write_ms=6718237,
        in_flight=0, io_ms=845188, queue_ms=9049983)
    assert vda.write_bytes == 506597680 * 512
    assert counters['7:4'].name == 'loop4'
    # The contention probe reads the same parser's bytes.
    assert contention.parse_diskstats(IDLE)['254:0'] == \
        contention.DeviceCounters('vda', 216964258 * 512, 506597680 * 512)


def test_old_kernels_partition_lines_have_no_timings():
    # Before 2.6.25 a partition's line had 4 counters: no %util there.
    assert diskstats.parse_proc('   8    1 sda1 3 24 5 40\n') == {}


def test_utilisation_is_io_time_over_wall_time():
    vda = diskstats.parse_proc(IDLE)['254:0']
    before = _sample({'254:0': vda}, 1000.0)
    after = _sample({'254:0': replace(
        vda, reads=vda.reads + 100, read_sectors=vda.read_sectors + 2048,
        read_ms=vda.read_ms + 50, writes=vda.writes + 300,
        write_sectors=vda.write_sectors + 4096 * 2,
        write_ms=vda.write_ms + 350, io_ms=vda.io_ms + 500)}, 1002.0)
    found = diskstats.usage(before, after)
    assert found.devices == ('vda',)
    assert found.seconds == 2.0
    assert found.util_pct == 25.0               # 500 ms busy of 2000
    assert found.read_mib_s == 0.5              # 1 MiB in 2 s
    assert found.write_mib_s == 2.0             # 4 MiB in 2 s
    assert found.iops == 200.0                  # 400 I/Os in 2 s
    assert found.await_ms == 1.0                # 400 ms over 400 I/Os
    assert diskstats.describe(found) == (
        'vda util=25.0% r=0.5 w=2.0 MiB/s iops=200 await=1.00 ms over 2.0 s')


def test_an_idle_device_has_no_await_and_granularity_is_capped():
    vda = diskstats.parse_proc(IDLE)['254:0']
    idle = diskstats.usage(_sample({'254:0': vda}, 5.0),
                           _sample({'254:0': vda}, 6.0))
    assert (idle.util_pct, idle.iops, idle.await_ms) == (0.0, 0.0, None)
    # io_ticks count jiffies, /proc/uptime hundredths: a busy 100 ms phase
    # may read 104 ms busy; %util stays at 100, as iostat's.
    busy = replace(vda, io_ms=vda.io_ms + 104)
    assert diskstats.usage(_sample({'254:0': vda}, 5.0),
                           _sample({'254:0': busy}, 5.1)).util_pct == 100.0


def test_millisecond_counters_wrap_at_32_bits():
    # The kernel prints them as unsigned int: 49.7 days of I/O time.
    vda = diskstats.parse_proc(IDLE)['254:0']
    before = replace(vda, io_ms=2**32 - 100, write_ms=2**32 - 10)
    after = replace(vda, io_ms=400, write_ms=30, writes=vda.writes + 4)
    found = diskstats.usage(_sample({'254:0': before}, 10.0),
                            _sample({'254:0': after}, 11.0))
    assert found.util_pct == 50.0               # 500 ms of 1000
    assert found.await_ms == 10.0               # 40 ms over 4 writes


def test_a_device_reset_or_replaced_gives_no_figure():
    vda = diskstats.parse_proc(IDLE)['254:0']
    # Detached and attached again: its counters start from 0.
    reset = replace(vda, reads=10, io_ms=20)
    with pytest.raises(diskstats.NoUsage, match='reads counter went back '
                       'from 1237827 to 10'):
        diskstats.usage(_sample({'254:0': vda}, 1.0),
                        _sample({'254:0': reset}, 2.0))
    other = replace(vda, name='loop9')
    with pytest.raises(diskstats.NoUsage, match='was vda, then loop9'):
        diskstats.usage(_sample({'254:0': vda}, 1.0),
                        _sample({'254:0': other}, 2.0))


def test_a_device_that_vanished_gives_no_figure():
    counters = diskstats.parse_proc(IDLE)
    gone = {k: v for k, v in counters.items() if k != '7:3'}
    with pytest.raises(diskstats.NoUsage, match='device 7:3 is not in the '
                       'second sample'):
        diskstats.usage(_sample(counters, 1.0, '7:3'),
                        _sample(gone, 2.0, '7:3'))
    with pytest.raises(diskstats.NoUsage, match='no time between'):
        diskstats.usage(_sample(counters, 2.0), _sample(counters, 2.0))


def _run(argv):
    return subprocess.run(argv, stdout=subprocess.PIPE, check=True,
                          universal_newlines=True).stdout


def test_the_clients_sample_as_the_job_prints_it(tmp_path):
    # The job step's own command, run here on a directory of this host.
    out = _run(steps.sample_argv(str(tmp_path)))
    sample = diskstats.parse(out, 'rfm_job.out')
    st_dev = os.stat(tmp_path).st_dev
    assert sample.host == os.uname().nodename
    assert sample.uptime_s > 0
    if os.major(st_dev) == 0:
        assert sample.device is None
        assert 'no block device' in sample.no_device
    else:
        assert sample.device == f'{os.major(st_dev)}:{os.minor(st_dev)}'
        assert sample.device in sample.counters
    assert set(sample.counters) == set(diskstats.parse_proc(
        Path('/proc/diskstats').read_text()))


def test_a_target_without_block_device_says_so():
    out = _run(steps.sample_argv('/dev/shm'))
    sample = diskstats.parse(out)
    assert sample.device is None
    assert sample.no_device.startswith('the target is on no block device '
                                       '(st_dev 0:')
    with pytest.raises(diskstats.NoUsage, match='no block device'):
        diskstats.usage(sample, sample)
    missing = diskstats.parse(_run(steps.sample_argv('/nonexistent/x')))
    assert missing.no_device == 'the target directory could not be stat()ed'


def test_the_server_sample_names_each_server(tmp_path):
    capture = DATA / 'idle-6.18.txt'
    command = f"grep -w -e vda -e loop1 {capture} | sed 's/^/mds1: /'"
    sample = diskstats.parse(_run(steps.server_sample_argv(command)))
    assert (sample.host, sample.device, sample.failed) == ('server', None,
                                                           '')
    assert sorted(sample.counters) == ['mds1:254:0', 'mds1:7:1']
    # Both devices: the busiest's utilisation, the rates together.
    busier = {k: replace(c, io_ms=c.io_ms + (300 if c.name == 'vda' else 100),
                         writes=c.writes + 10, write_ms=c.write_ms + 20)
              for k, c in sample.counters.items()}
    found = diskstats.usage(sample, replace(sample, uptime_s=sample.uptime_s
                                            + 1, counters=busier))
    assert found.devices == ('vda', 'loop1')
    assert (found.util_pct, found.iops, found.await_ms) == (30.0, 20.0, 2.0)


def test_a_failed_server_command_fails_no_step_and_gives_no_figure():
    proc = subprocess.run(steps.server_sample_argv('echo no ssh >&2; exit 255'),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    assert proc.returncode == 0
    sample = diskstats.parse(proc.stdout)
    assert sample.failed == 'its command exited with 255'
    with pytest.raises(diskstats.NoUsage, match='exited with 255'):
        diskstats.usage(sample, sample)


def test_what_is_not_a_device_line_is_named():
    text = ('pfsbench-disk server 12.5 -\n'
            '   8 16 sdb 1 2 3 4 5 6 7 8 9 10 11\n'
            'Permission denied (publickey).\n')
    with pytest.raises(ParseError) as err:
        diskstats.parse(text, 'rfm_job.out')
    assert str(err.value) == (
        "rfm_job.out:3: expected a /proc/diskstats line ('[<server>:] "
        "<major> <minor> <name> <11 or more counters>'), got: \"Permission "
        "denied (publickey).\"")
    with pytest.raises(ParseError, match="expected a 'pfsbench-disk' line"):
        diskstats.parse('cat: /proc/diskstats: No such file\n')


def _phase_steps():
    def cpu(label):
        return Step(label, 'cpu', ('true',))
    return [cpu('cpu before create'), Step('create', 'mdtest', ('mdtest',)),
            cpu('cpu after create'), cpu('cpu before remove'),
            Step('remove', 'mdtest', ('mdtest', '-r')),
            cpu('cpu after remove')]


def test_samples_frame_each_phase_inside_the_cpu_samples():
    framed = steps.around_phases(_phase_steps(), ('create', 'remove'),
                                 '/mnt/ext4', 'ssh mds1 cat /proc/diskstats')
    assert [s.label for s in framed] == [
        'cpu before create', 'disk before create',
        'server disk before create', 'create', 'server disk after create',
        'disk after create', 'cpu after create', 'cpu before remove',
        'disk before remove', 'server disk before remove', 'remove',
        'server disk after remove', 'disk after remove', 'cpu after remove']
    assert all(not s.launched for s in framed if 'disk' in s.label)
    # Without the CPU samples after the last phase, a sample would end the
    # job, which must end with a launched step: nothing is framed.
    bare = [s for s in _phase_steps() if s.kind == 'mdtest']
    assert steps.around_phases(bare, ('create', 'remove'), '/mnt/x') == bare
    assert steps.around_phases(_phase_steps(), ('create',)) == \
        _phase_steps()


@pytest.mark.parametrize('fstype, remote', [
    ('lustre', True), ('fuse.mfs', True), ('nfs4', True), ('tmpfs', True),
    ('ext4', False), ('xfs', False), ('', False)])
def test_which_targets_have_a_block_device_on_the_client(fstype, remote):
    assert steps.has_no_client_device(fstype) == remote


def test_check_config_names_each_targets_device_figures():
    # As pfsbench check-config prints them, a note per target.
    from pfsbench.cli.check_config import device_stats_notes
    capture = DATA / 'idle-6.18.txt'
    part = {'features': ['lustre'], 'extras': {
        'device_stats_command': f'grep -w vda {capture}',
        'targets': [
            {'name': 'scratch', 'path': '/lustre/scratch'},
            {'name': 'ram', 'path': '/lustre/ram', 'fstype': 'lustre',
             'device_stats_command': 'exit 3'},
            {'name': 'local', 'path': '/tmp', 'fstype': 'ext4'}]}}
    notes = device_stats_notes(part, here=True)
    assert notes[0] == (
        f"target scratch: block-device figures (E1-E4): from the servers "
        f"(extras.device_stats_command: 'grep -w vda {capture}'; runs, 1 "
        f"device(s): vda)")
    assert notes[1].startswith(
        "target ram: block-device figures (E1-E4): from the servers "
        "(extras.targets[].device_stats_command: 'exit 3'; FAILS: ")
    assert notes[2] == ('target local: block-device figures (E1-E4): '
                        "/proc/diskstats on the client, the device of the "
                        "target's directory")
    del part['extras']['device_stats_command']
    part['features'] = []
    part['extras']['targets'][0]['fstype'] = 'fuse.mfs'
    assert device_stats_notes(part, here=False)[0] == (
        'target scratch: block-device figures (E1-E4): none: fuse.mfs has no '
        'block device on the client and no extras.device_stats_command is '
        'declared')
