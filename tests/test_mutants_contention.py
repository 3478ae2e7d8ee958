# SPDX-License-Identifier: BSD-3-Clause
"""The foreign-load probes (pfsbench.load.contention) through their public
functions: the mutants bench/mutation.py found the tests letting through
(docs/mutation.md).  The device's counters come from a real
``/proc/diskstats`` (tests/data/diskstats), Slurm's jobs from a recorded
``squeue`` (tests/data/fixtures/slurm); pure and fast."""

import ast
import os
import pathlib
import stat
import subprocess
import sys

import pytest

from pfsbench.load import contention
from pfsbench.load.contention import (CommandFailed, CpuSample,
                                      DeviceCounters, FsCounters)
from pfsbench.site.mounts import read_mounts

DATA = pathlib.Path(__file__).resolve().parent / 'data'
DISKSTATS = DATA / 'diskstats' / 'idle-6.18.txt'
SQUEUE = DATA / 'fixtures' / 'slurm' / 'squeue-running.txt'
MIB = 2**20


def test_the_devices_counters_are_their_sectors_in_bytes():
    got = contention.parse_diskstats(DISKSTATS.read_text())
    # loop0: 33230976 sectors read, 45021317 written (fields 6 and 10).
    assert got['7:0'] == DeviceCounters('loop0', 33230976 * 512,
                                        45021317 * 512)
    assert contention.sample('7:0', str(DISKSTATS)) == got['7:0']
    assert contention.sample('7:99', str(DISKSTATS)) is None
    assert contention.sample(None, str(DISKSTATS)) is None
    assert contention.sample('7:0', str(DISKSTATS) + '.gone') is None


def test_a_target_on_a_block_device_has_its_number():
    mounts = [{'mount_point': '/', 'device': '254:1'},
              {'mount_point': '/mnt/nfs', 'device': '0:52'}]
    assert contention.target_device('/home/x', mounts) == '254:1'
    assert contention.target_device('/mnt/nfs/x', mounts) is None
    assert contention.target_device('/x', []) is None
    # Without mounts given, this machine's.
    assert contention.target_device('/') == contention.target_device(
        '/', read_mounts())


def test_foreign_io_is_what_the_device_moved_beyond_the_slack():
    before = DeviceCounters('vda', 1000 * MIB, 2000 * MIB)
    own = 1000 * MIB

    def after(extra):
        return DeviceCounters('vda', 1000 * MIB + 300 * MIB,
                              2000 * MIB + own - 300 * MIB + extra)

    # The slack: a tenth of the case's own bytes, at least 64 MiB.
    assert contention.foreign_io(before, after(100 * MIB), own) == ''
    assert contention.foreign_io(before, after(100 * MIB + 1), own) == (
        "vda: 100 MiB of I/O beyond this case's own 1000 MiB")
    at_floor = DeviceCounters('vda', 1000 * MIB + MIB, 2000 * MIB + 63 * MIB)
    assert contention.foreign_io(before, at_floor, 0) == ''
    small = DeviceCounters('vda', 1000 * MIB, 2000 * MIB + 65 * MIB)
    assert contention.foreign_io(before, small, 0) == (
        "vda: 65 MiB of I/O beyond this case's own 0 MiB")
    for gone in ((None, small, 0), (before, None, 0), (before, small, None)):
        assert contention.foreign_io(*gone) == ''


def test_busy_time_and_cpus_of_proc_stat():
    text = ('\ncpu  1 2 4 1000 2000 8 16 32 64 128\n'
            'cpu0 1 0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0 0 0\n'
            'cpufreq 1\nintr 5\n\n')
    # user, nice, system, irq, softirq, steal: not idle, iowait, guests.
    assert contention.parse_proc_stat(text) == (1 + 2 + 4 + 8 + 16 + 32, 2)
    assert contention.parse_proc_stat('cpu 1 2 3\ncpu0 1\n') == (6, 1)
    assert contention.parse_proc_stat('cpu 1 2 4 8 16\ncpu0 1\n') == (7, 1)
    for bad in ('cpu 1 2 3\n', 'cpu0 1 2\n', ''):
        with pytest.raises(ValueError) as err:
            contention.parse_proc_stat(bad)
        assert str(err.value) == 'no cpu lines'


def test_cpu_pressure_is_the_some_total():
    text = ('some avg10=0.00 avg60=0.10 avg300=0.00 total=123456\n'
            'full avg10=0.00 avg60=0.00 avg300=0.00 total=99\n')
    assert contention.parse_cpu_pressure(text) == 123456
    assert contention.parse_cpu_pressure(text.replace('some', 'full', 1)) \
        is None
    assert contention.parse_cpu_pressure('some total=x1 total=7\n') == 7
    assert contention.parse_cpu_pressure('some avg10=1 total=7\n') == 7
    assert contention.parse_cpu_pressure('somex total=7\n') is None


def pid_stat(name, flags, utime, stime, start=None, rest=32):
    """A /proc/<pid>/stat line as Linux writes it (52 fields: ``rest``
    after the start time)."""
    fields = ['S', '1', '1', '1', '0', '-1', str(flags), '0', '0', '0', '0',
              str(utime), str(stime), '0', '0', '20', '0', '1', '0']
    if start is not None:
        fields += [str(start)] + ['0'] * rest
    return f'42 ({name}) ' + ' '.join(fields) + '\n'


def test_a_tasks_stat_names_its_flags_cpu_and_start():
    assert contention.parse_pid_stat(pid_stat('a (b) c', 0x40, 7, 5, 99)) \
        == ('a (b) c', 0x40, 12, 99)
    assert contention.parse_pid_stat(pid_stat('sh', 1, 7, 5)) == (
        'sh', 1, 12, 0)
    assert contention.parse_pid_stat(pid_stat('sh', 1, 7, 5, 3, rest=0)) \
        == ('sh', 1, 12, 3)
    assert contention.parse_pid_stat('42 (sh) S 1') is None
    assert contention.parse_pid_stat('no name at all') is None


def fake_proc(tmp_path, tasks):
    proc = tmp_path / 'proc'
    for pid, line in tasks.items():
        (proc / pid).mkdir(parents=True)
        (proc / pid / 'stat').write_text(line)
    (proc / 'self').mkdir()
    (proc / '77').mkdir()           # gone before its stat was read
    return proc


def test_serving_tasks_are_the_named_processes_and_kernel_threads(
        tmp_path):
    proc = fake_proc(tmp_path, {
        '10': pid_stat('mfsmount', 0, 30, 10, 500),
        '11': pid_stat('kworker/0:1', 0x00200000, 3, 4, 600),
        '12': pid_stat('dd', 0x40, 90, 90, 700),
        '13': pid_stat('mfschunkserver', 0, 5, 5, 800)})
    assert contention.serving_tasks(['mfsmount'], str(proc)) == {
        (10, 500): 40, (11, 600): 7}
    assert contention.serving_tasks(
        contention.serving_names({'client_serving_processes':
                                  ['mfschunkserver']}), str(proc)) == {
        (10, 500): 40, (11, 600): 7, (13, 800): 10}
    assert contention.serving_tasks(['x'], str(tmp_path / 'none')) == {}
    # Without a directory given, this machine's /proc: this process.
    with open('/proc/self/stat') as fp:
        name = contention.parse_pid_stat(fp.read())[0]
    assert os.getpid() in {pid for pid, _ in contention.serving_tasks([name])}
    assert contention.serving_names({}) == contention.SERVING_PROCESSES
    assert contention.SERVING_PROCESSES == (
        'mfsmount', 'mmfsd', 'ceph-fuse', 'glusterfs')


def test_a_cpu_sample_reads_the_host_and_the_serving_tasks(tmp_path):
    proc = fake_proc(tmp_path, {'10': pid_stat('mfsmount', 0, 300, 100, 5)})
    (tmp_path / 'stat').write_text('cpu 100 0 100 0 0 0 0 0\ncpu0 1\n'
                                   'cpu1 1\ncpu2 1\n')
    (tmp_path / 'pressure').write_text('some avg10=0 total=5000\n')
    tick = os.sysconf('SC_CLK_TCK')
    # The case's own CPU is its system time too: spend some first.
    deadline = os.times().elapsed + 5
    while os.times().system == 0 and os.times().elapsed < deadline:
        os.stat('/')
    before = os.times()
    assert before.system > 0
    got = contention.sample_cpu(str(tmp_path / 'stat'),
                                str(tmp_path / 'pressure'),
                                ('mfsmount',), str(proc))
    after = os.times()
    assert (got.busy_s, got.cpus, got.pressure_us) == (200 / tick, 3, 5000)
    assert got.serving_tasks == (((10, 5), 400 / tick),)
    own = [t.user + t.system + t.children_user + t.children_system
           for t in (before, after)]
    assert own[0] <= got.own_s <= own[1] and got.own_s > 0
    none = contention.sample_cpu(str(tmp_path / 'stat'),
                                 str(tmp_path / 'gone'), (), str(proc))
    assert none.pressure_us is None and none.serving_tasks == ()
    assert contention.sample_cpu(str(tmp_path / 'gone')) is None
    (tmp_path / 'bad').write_text('cpu0 1\n')
    assert contention.sample_cpu(str(tmp_path / 'bad')) is None


def test_others_cpus_are_the_host_less_own_and_serving():
    before = CpuSample(when=10.0, busy_s=100.0, cpus=4, own_s=5.0,
                       pressure_us=1_000_000,
                       serving_tasks=(((1, 1), 2.0), ((2, 2), 9.0)))
    after = CpuSample(when=14.0, busy_s=112.0, cpus=4, own_s=7.0,
                      pressure_us=3_000_000,
                      serving_tasks=(((1, 1), 3.0), ((3, 3), 1.0)))
    # Serving: task 1 1 s more, task 3 new (whole), task 2 gone (nothing).
    got = contention.client_cpu(before, after)
    assert got == {'foreign_cpus': (12 - 2 - 2) / 4, 'serving_cpus': 2 / 4,
                   'cpus': 4, 'seconds': 4.0, 'pressure': 0.5}
    assert contention.describe_client_cpu(got) == (
        'foreign_cpus=2.00 serving_cpus=0.50 cpus=4 seconds=4.0 '
        'pressure=0.50')
    lost = CpuSample(when=12.0, busy_s=101.0, cpus=4, own_s=9.0,
                     serving_tasks=(((1, 1), 1.0),))
    assert contention.client_cpu(before, lost) == {
        'foreign_cpus': 0.0, 'serving_cpus': 0.0, 'cpus': 4,
        'seconds': 2.0, 'pressure': None}
    assert contention.client_cpu(lost, after)['pressure'] is None
    for pair in ((None, after), (before, None), (after, after),
                 (after, before)):
        assert contention.client_cpu(*pair) is None
    assert contention.describe_client_cpu(None) == ''
    assert contention.describe_client_cpu(
        {'foreign_cpus': 0.123, 'cpus': 2, 'seconds': 3.14,
         'pressure': None}) == 'foreign_cpus=0.12 cpus=2 seconds=3.1'


def test_others_above_half_the_cpus_load_the_client():
    def figures(foreign):
        return {'foreign_cpus': foreign, 'cpus': 4}
    assert contention.foreign_cpu_load(figures(2.0)) == ''
    assert contention.foreign_cpu_load(figures(2.01)) == (
        'client host: others used 2.0 of its 4 CPUs during the case')
    assert contention.foreign_cpu_load(figures(1.01), share=0.25) != ''
    assert contention.foreign_cpu_load(None) == ''


def recorded_jobs():
    """The recorded job's ``%i %N``: its JOBID and NODELIST columns."""
    columns = SQUEUE.read_text().splitlines()[1].split()
    return f'{columns[0]} {columns[-1]}\n'


@pytest.fixture
def squeue(tmp_path, monkeypatch):
    """An ``squeue`` first on ``PATH`` that prints :func:`recorded_jobs`
    and keeps its arguments."""
    script = tmp_path / 'squeue'
    script.write_text(
        f'#!{sys.executable}\nimport sys\n'
        f'open({str(tmp_path / "argv")!r}, "w").write(repr(sys.argv[1:]))\n'
        f'print({recorded_jobs()!r})\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv('PATH', f'{tmp_path}:{os.environ["PATH"]}')
    return script


def test_other_slurm_jobs_on_the_nodes_are_named(squeue, tmp_path):
    assert contention.foreign_jobs(['n1', 'n2'], ['7', 8]) == (
        'Slurm job(s) 292 running on n1,n2')
    assert ast.literal_eval((tmp_path / 'argv').read_text()) == [
        '--noheader', '--states=RUNNING', '--format=%i %N',
        '--nodelist=n1,n2']
    assert contention.foreign_jobs(['n1'], [292]) == ''
    assert contention.foreign_jobs([], []) == ''
    assert contention.foreign_jobs(['n1'], [], str(tmp_path / 'none')) == ''


def test_squeue_gets_30_s_and_more_jobs_are_listed(monkeypatch):
    calls = []

    def run(argv, **kwargs):
        calls.append(kwargs['timeout'])
        if len(calls) > 1:
            raise subprocess.TimeoutExpired(argv, kwargs['timeout'])
        return subprocess.CompletedProcess(
            argv, 0, recorded_jobs() + '\n293 n3\n294 n1\n', '')

    monkeypatch.setattr(contention.text, 'run', run)
    assert contention.foreign_jobs(['n1', 'n3'], ['294']) == (
        'Slurm job(s) 292, 293 running on n1,n3')
    assert contention.foreign_jobs(['n1'], []) == ''
    assert calls == [30, 30]


def test_the_fs_counters_lines():
    text = 'read_bytes 10\nother x y\n\nwrite_bytes 20\nmetadata_ops 3\n'
    assert contention.parse_fs_counters(text, 'c') == FsCounters(10, 20, 3)
    for bad, says in (
            ('read_bytes -1\n', "'c': 'read_bytes -1': expected "
                                "'read_bytes <non-negative integer>'"),
            ('read_bytes 1 2\n', "'c': 'read_bytes 1 2': expected "
                                 "'read_bytes <non-negative integer>'"),
            ('read_bytes 1\nread_bytes 2\n', "'c': read_bytes printed "
                                             'twice'),
            ('read_bytes 1\n', "'c': no write_bytes, metadata_ops line in "
                               'its output')):
        with pytest.raises(CommandFailed) as err:
            contention.parse_fs_counters(bad, 'c')
        assert str(err.value) == says


def test_a_site_command_runs_in_a_shell_and_says_why_it_failed(tmp_path):
    assert contention.run_site_command('echo a; echo b >&2') == 'a\n'
    cases = (("echo x >&2; echo last >&2; exit 3",
              "'echo x >&2; echo last >&2; exit 3': exit status 3: last"),
             ('exit 4', "'exit 4': exit status 4"),
             ('sleep 5', "'sleep 5': no answer in 0.2 s"))
    for command, says in cases:
        with pytest.raises(CommandFailed) as err:
            contention.run_site_command(command, timeout=0.2)
        assert str(err.value) == says
    assert contention.COMMAND_TIMEOUT_S == 60


def test_a_site_command_that_cannot_start(monkeypatch):
    def run(*args, **kwargs):
        raise OSError(7, 'Argument list too long')

    monkeypatch.setattr(contention.subprocess, 'run', run)
    with pytest.raises(CommandFailed) as err:
        contention.run_site_command('x')
    assert str(err.value) == "'x': Argument list too long"


def test_fs_counters_sampled_and_their_delta():
    command = 'printf "read_bytes 1\\nwrite_bytes 2\\nmetadata_ops 3\\n"'
    assert contention.sample_fs_counters(command) == (FsCounters(1, 2, 3),
                                                      '')
    assert contention.sample_fs_counters('exit 1') == (
        None, "'exit 1': exit status 1")
    assert contention.sample_fs_counters('echo read_bytes x') == (
        None, "'echo read_bytes x': 'read_bytes x': expected 'read_bytes "
              "<non-negative integer>'")
    before, after = FsCounters(1, 2, 3), FsCounters(11, 2, 5)
    delta = contention.fs_counters_delta(before, after)
    assert delta == {'read_bytes': 10, 'write_bytes': 0, 'metadata_ops': 2}
    assert contention.describe_delta(delta) == (
        'read_bytes=10 write_bytes=0 metadata_ops=2')
    assert contention.describe_delta(None) == ''
    assert contention.fs_counters_delta(after, before) is None
    assert contention.fs_counters_delta(None, after) is None
    assert contention.fs_counters_delta(before, None) is None


def test_provenance_lines_are_keys_and_the_rest():
    assert contention.parse_provenance(
        '\n fs.version  2.1 beta \nserver_os Debian\n', 'c') == {
        'fs.version': '2.1 beta', 'server_os': 'Debian'}
    for bad, says in (('a/b 1\n', "'c': 'a/b 1': expected '<key> <value>' "
                                  'with a word as key'),
                      ('_ 1\n', "'c': '_ 1': expected '<key> <value>' "
                                 'with a word as key'),
                      ('. 1\n', "'c': '. 1': expected '<key> <value>' "
                                 'with a word as key'),
                      ('\n \n', "'c': printed nothing")):
        with pytest.raises(CommandFailed) as err:
            contention.parse_provenance(bad, 'c')
        assert str(err.value) == says
