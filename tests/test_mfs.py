# SPDX-License-Identifier: BSD-3-Clause
"""The MooseFS test file system (tests/mfs/mfs.sh), the server-side hooks
(file-system counters, server provenance, server CPU) and real runs on it
through the ``localslurm:mfs`` partition.

The hooks' parsing and verdicts are tested without a file system; the
rest needs root, /dev/fuse and the localhost Slurm cluster, and skips
naming what is missing.  ``scripts/test.sh`` brings the MooseFS up before
pytest and down afterwards when it started it; the ``mfs`` fixture brings
it up itself when it is not (and leaves it up, as ``localslurm`` does).
"""

import os
import random
import re
import shutil
import subprocess
import threading

import pytest

from conftest import CHECKS, REPO, perflog_dicts, run_reframe
from pfsbench.load import attribution, contention, own_share
from test_checks_ior import idle_slurm  # noqa: F401  (a fixture)

MFS = REPO / 'tests' / 'mfs' / 'mfs.sh'
MFS_DIR = os.environ.get('PFSBENCH_MFS_DIR', '/var/tmp/pfsbench-mfs')
TARGET = os.path.join(MFS_DIR, 'mnt', 'm1', 'scratch')
SECOND_MOUNT = os.path.join(MFS_DIR, 'mnt', 'm2', 'scratch')
SYSTEM = 'localslurm:mfs'
IOR_BINARY = '/opt/ior/bin/ior'
MDTEST_BINARY = '/opt/ior/bin/mdtest'


def _mfs(*args, **kwargs):
    return subprocess.run(['bash', str(MFS), *args], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True,
                          timeout=300, **kwargs)


# The hooks, without a file system ------------------------------------------

def test_counters_are_parsed_and_other_lines_ignored():
    text = ('# any header\nread_bytes 10\nwrite_bytes 2048\n'
            'metadata_ops 7\nlast_hour_ops 99\n')
    assert contention.parse_fs_counters(text, 'cmd') == \
        contention.FsCounters(10, 2048, 7)


@pytest.mark.parametrize('text, message', [
    ('read_bytes 1\nwrite_bytes 2\n', "'cmd': no metadata_ops line"),
    ('read_bytes 1\nwrite_bytes -2\nmetadata_ops 3\n',
     "'cmd': 'write_bytes -2': expected 'write_bytes <non-negative "
     "integer>'"),
    ('read_bytes 1.5\nwrite_bytes 2\nmetadata_ops 3\n',
     "'cmd': 'read_bytes 1.5': expected"),
    ('read_bytes 1\nread_bytes 1\nwrite_bytes 2\nmetadata_ops 3\n',
     "'cmd': read_bytes printed twice"),
    ('', "'cmd': no read_bytes, write_bytes, metadata_ops line"),
])
def test_bad_counters_name_the_command_and_line(text, message):
    with pytest.raises(contention.CommandFailed) as err:
        contention.parse_fs_counters(text, 'cmd')
    assert str(err.value).startswith(message)


def test_a_failing_command_gives_no_sample_and_says_why():
    sample, why = contention.sample_fs_counters(
        'echo bad master >&2; exit 3')
    assert sample is None
    assert why == "'echo bad master >&2; exit 3': exit status 3: bad master"


def test_a_counter_that_went_backwards_gives_no_verdict():
    before = contention.FsCounters(100, 100, 500)
    assert contention.fs_counters_delta(
        before, contention.FsCounters(100, 200, 20)) is None
    assert contention.fs_counters_delta(before, None) is None


MIB = 2**20


FIXED = 'whole-fs counters, fixed bound (no quiet history): '


@pytest.mark.parametrize('moved, ops, own_bytes, own_ops, expected', [
    # Within the byte slack (64 MiB, or 10 % of the case's own).
    (300 * MIB, 100, 256 * MIB, None, ''),
    (1000 * MIB, 100, 1000 * MIB, None, ''),
    (1099 * MIB, 100, 1000 * MIB, None, ''),
    # Beyond it: the foreign bytes, read and written, named, and the slack.
    (1200 * MIB, 100, 1000 * MIB, None,
     FIXED + "200 MiB of foreign I/O (read 0 MiB, written 1200 MiB; this "
     "case's own at most 1000 MiB, slack 100 MiB)"),
    # Unknown own bytes: bytes give no verdict, operations still do.
    (10**12, 100, None, None, ''),
    (0, 2001, None, None, FIXED + '2001 foreign metadata operations (2001 '
     "in all; this case's own at most 0, slack 2000)"),
    (0, 60000, None, 40000, FIXED + '20k foreign metadata operations (60k '
     "in all; this case's own at most 40k, slack 4000)"),
    (0, 43000, None, 40000, ''),
    # A constant: nothing happened, nothing foreign.
    (0, 0, 0, 0, ''),
])
def test_foreign_load_beyond_the_fixed_bound(moved, ops, own_bytes, own_ops,
                                             expected):
    delta = {'read_bytes': 0, 'write_bytes': moved, 'metadata_ops': ops}
    work = own_share.OwnWork(bytes=own_bytes, tasks=1)
    assert own_share.judge(delta, work, None, own_bytes,
                           own_ops)[0] == expected


def test_provenance_lines_become_facts_and_bad_keys_are_refused():
    facts = contention.parse_provenance(
        'master_version 3.0.117\n\nchunkservers 3\nlayout goal 2 copies\n',
        'cmd')
    assert facts == {'master_version': '3.0.117', 'chunkservers': '3',
                     'layout': 'goal 2 copies'}
    with pytest.raises(contention.CommandFailed) as err:
        contention.parse_provenance('version: 3\n', 'cmd')
    assert str(err.value) == ("'cmd': 'version: 3': expected '<key> "
                              "<value>' with a word as key")
    with pytest.raises(contention.CommandFailed):
        contention.parse_provenance('\n\n', 'cmd')


def test_script_usage_errors_are_one_line():
    for args, message in ((['bogus'], "unknown subcommand 'bogus'"),
                          (['copies', '7'], "copies: N must be 1, 2 or 3"),
                          (['chunkserver', 'stop', '9'],
                           "chunkserver: I must be 1..3, got '9'")):
        proc = _mfs(*args)
        assert proc.returncode == 1
        (line,) = proc.stdout.splitlines()
        assert line.startswith('mfs.sh: error: ') and message in line, line


def test_script_refuses_a_non_root_user():
    if os.geteuid() != 0:
        proc = _mfs('up')
    else:
        proc = subprocess.run(
            ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups',
             'bash', str(MFS), 'up'], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, universal_newlines=True, timeout=60)
    assert proc.returncode == 1
    assert re.fullmatch(r'mfs\.sh: error: must run as root \(uid 0\), not '
                        r'uid \d+\n', proc.stdout), proc.stdout


@pytest.mark.skipif(shutil.which('shellcheck') is None,
                    reason='shellcheck is not installed')
def test_shellcheck_clean():
    proc = subprocess.run(['shellcheck', str(MFS)], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)
    assert proc.returncode == 0, proc.stdout


# The file system ------------------------------------------------------------

@pytest.fixture(scope='session')
def mfs():
    """The MooseFS of tests/mfs/mfs.sh, up."""
    if os.geteuid() != 0:
        pytest.skip('the MooseFS test file system needs root (network '
                    'namespace, FUSE mounts, a loop XFS)')
    if not os.path.exists('/dev/fuse'):
        pytest.skip('no /dev/fuse: mfsmount needs FUSE (modprobe fuse)')
    if os.environ.get('PFSBENCH_NO_MFS'):
        pytest.skip('PFSBENCH_NO_MFS is set')
    proc = _mfs('up')
    if proc.returncode != 0:
        pytest.fail(f'mfs.sh up failed:\n{proc.stdout}')
    return TARGET


@pytest.fixture
def mfs_slurm(mfs, idle_slurm):  # noqa: F811
    return idle_slurm


def _records(runs, test):
    return perflog_dicts(runs, 'localslurm', 'mfs', test)


def _counters(record):
    return {k: int(v) for k, v in
            (w.split('=') for w in record['fs_counters'].split())}


def _listing(*roots):
    return {root: set(os.listdir(root)) for root in roots}


def _left_nothing(before):
    """Every root lists what it listed before the run (another user's
    files may be there; the run's own must be gone)."""
    assert _listing(*before) == before


def test_status_answers_and_the_mounts_are_one_file_system(mfs):
    assert _mfs('status').returncode == 0
    name = f'pfsbench-test-{os.getpid()}'
    path = os.path.join(mfs, name)
    with open(path, 'w') as fp:
        fp.write('seen through another mount')
    try:
        with open(os.path.join(SECOND_MOUNT, name)) as fp:
            assert fp.read() == 'seen through another mount'
    finally:
        os.unlink(path)
    facts = contention.parse_provenance(_mfs('provenance').stdout, 'mfs.sh')
    assert re.fullmatch(r'\d+\.\d+\.\d+', facts['master_version'])
    assert facts['chunkservers'] == '3'


def test_the_master_saves_its_metadata_without_dividing_by_zero(mfs):
    # mfsmaster 3.0.117 lowers METADATA_SAVE_FREQ (hours, default 1) to
    # BACK_LOGS / 2 in integer arithmetic, and its hourly store divides by
    # the result: at 0 the master died every hour on the hour
    # (docs/test-filesystem.md).
    settings = {}
    with open(os.path.join(MFS_DIR, 'etc', 'mfsmaster.cfg')) as fp:
        for line in fp:
            name, _, value = line.partition('=')
            if value and not line.lstrip().startswith('#'):
                settings[name.strip()] = value.strip()
    back_logs = int(settings.get('BACK_LOGS', 50))
    save_freq = int(settings.get('METADATA_SAVE_FREQ', 1))
    assert min(save_freq, back_logs // 2) >= 1, settings


def _ours_left():
    """Mounts under the state directory, processes started from it, and
    the namespace: what 'down' must leave none of."""
    with open('/proc/self/mounts') as fp:
        mounts = [ln.split()[1] for ln in fp
                  if ln.split()[1].startswith(MFS_DIR + '/')]
    procs = []
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open(f'/proc/{pid}/cmdline', 'rb') as fp:
                cmdline = fp.read().replace(b'\0', b' ').decode()
        except OSError:
            continue
        if (MFS_DIR + '/') in cmdline and 'pytest' not in cmdline:
            procs.append(cmdline)
    return mounts, procs, os.path.exists('/var/run/netns/pfsbench-mfs')


def test_down_leaves_nothing_and_up_is_idempotent(mfs):
    again = _mfs('up')
    assert again.returncode == 0 and 'already up' in again.stdout, \
        again.stdout
    down = _mfs('down')
    assert down.returncode == 0, down.stdout
    try:
        assert re.fullmatch(r'mfs\.sh: stopped 8 processes under \S+\n',
                            down.stdout), down.stdout
        assert _ours_left() == ([], [], False)
        assert _mfs('status').returncode == 1
    finally:
        up = _mfs('up')
    assert up.returncode == 0, up.stdout
    assert _mfs('status').returncode == 0


def _mount_pids():
    return [open(os.path.join(MFS_DIR, 'run', f'mfsmount-{i}.pid')).read()
            for i in range(1, 5)]


def _sessions():
    """The master's session list (mfscli -SMS): (active, inactive) ids."""
    proc = subprocess.run(
        ['nsenter', '--net=/var/run/netns/'
         + os.environ.get('PFSBENCH_MFS_NETNS', 'pfsbench-mfs'), 'mfscli',
         '-H', os.environ.get('PFSBENCH_MFS_ADDR', '10.213.0.1'),
         '-P', '19421', '-p', '-SMS'], stdout=subprocess.PIPE,
        universal_newlines=True, timeout=60, check=True)
    rows = [line.split('\t') for line in proc.stdout.splitlines()]
    return tuple({int(r[1]) for r in rows
                  if r[0] == f'{kind} mounts, parameters:'}
                 for kind in ('active', 'inactive'))


def _client_ops():
    return {c.mount: c.metadata_ops for c in attribution.parse_client_lines(
        _mfs('clients').stdout, 'mfs.sh clients').values()}


def test_remount_starts_new_clients_and_the_file_system_is_whole(mfs):
    before = _mount_pids()
    old_sessions, _ = _sessions()
    proc = _mfs('remount')
    assert proc.returncode == 0, proc.stdout
    assert re.fullmatch(r'mfs\.sh: remounted 4 clients in [\d.]+ s\n',
                        proc.stdout), proc.stdout
    # New client processes (their sessions, and the space of files
    # deleted through the old ones, are gone), every mount answering.
    assert not set(before) & set(_mount_pids())
    assert _mfs('status').returncode == 0
    # The old sessions are gone from the master at once, not a day later
    # or (a master younger than 2 minutes) in the middle of a later case,
    # taking their operations out of a mount point's count (CI: a 2x2
    # mdtest right after 'down', 'up' and this remount got no per-client
    # verdict).
    active, inactive = _sessions()
    assert len(active) == 4 and not active & old_sessions, (active,
                                                            old_sessions)
    assert not inactive, inactive


def _shift_ops_hours(hours, base=None):
    """Makes mfs.sh's record of the master's hours say its last sample was
    ``hours`` hours ago (and, given, that the hours before it counted
    ``base``): what the next sample after a full hour finds.  Returns
    what the last sample saw of its own hour, by mount point."""
    state = os.path.join(MFS_DIR, 'run', 'ops-hours')
    lines, seen_of = [], {}
    for line in open(state).read().splitlines():
        key, hour, old_base, seen = line.split()
        seen_of[key] = int(seen)
        lines.append(f'{key} {int(hour) - hours} '
                     f'{old_base if base is None else base} {seen}')
    with open(state, 'w') as fp:
        fp.write('\n'.join(lines) + '\n')
    return seen_of


def test_session_operations_are_cumulative_across_the_masters_hours(mfs):
    # The master counts a session's operations per hour and restarts at
    # every full hour; mfs.sh adds the hours up (the master's 'last hour'
    # at the first sample of the next), so a case spanning a full hour
    # keeps its per-client and whole-fs verdicts.
    first = _client_ops()
    _shift_ops_hours(1, base=10**6)
    second = _client_ops()
    # The hours before the last sample's are carried, and the last one is
    # taken from the master's 'last hour' (0 on a master this young, at
    # least what the last sample saw of it on an older one).
    assert second.keys() == first.keys(), (first, second)
    for mount in first:
        assert second[mount] >= 10**6, (first, second)
    total = int(_mfs('counters').stdout.split('metadata_ops ')[1])
    assert total >= 10**6, total
    # A whole hour unsampled: the hours between are not known; what the
    # last sample saw of its own hour is kept, never lost.
    third = _client_ops()
    seen = _shift_ops_hours(2)
    fourth = _client_ops()
    for mount, ops in third.items():
        assert seen[mount] >= 2, seen       # at least its mount's own
        assert fourth[mount] >= ops + seen[mount], (third, seen, fourth)


def test_a_stopped_chunkserver_is_not_counted(mfs):
    try:
        assert _mfs('chunkserver', 'stop', '3').returncode == 0
        facts = contention.parse_provenance(_mfs('provenance').stdout,
                                            'mfs.sh')
        # The master still lists it, as disconnected.
        assert facts['chunkservers'] == '2', facts
        status = _mfs('status')
        assert status.returncode == 1, status.stdout
    finally:
        assert _mfs('chunkserver', 'start', '3').returncode == 0
    facts = contention.parse_provenance(_mfs('provenance').stdout, 'mfs.sh')
    assert facts['chunkservers'] == '3'


@pytest.mark.parametrize('copies', ['1', '2'])
def test_counters_see_a_write_through_any_mount(mfs, copies):
    # With 2 copies the disks take every byte twice; the counters say what
    # the client wrote, or a case's own second copy is foreign load.
    assert _mfs('copies', copies).returncode == 0
    try:
        _a_write_through_the_second_mount_is_counted_once()
    finally:
        assert _mfs('copies', '1').returncode == 0


def _a_write_through_the_second_mount_is_counted_once():
    before = contention.parse_fs_counters(_mfs('counters').stdout, 'mfs.sh')
    name = os.path.join(SECOND_MOUNT, f'pfsbench-test-{os.getpid()}')
    try:
        with open(name, 'wb') as fp:
            # Random bytes: nothing a server could store as a hole.
            fp.write(random.randbytes(32 * MIB))
            fp.flush()
            os.fsync(fp.fileno())
    finally:
        os.unlink(name)
    after = contention.parse_fs_counters(_mfs('counters').stdout, 'mfs.sh')
    delta = contention.fs_counters_delta(before, after)
    assert 32 * MIB <= delta['write_bytes'] <= 40 * MIB, delta
    assert delta['metadata_ops'] >= 2, delta    # the create, the unlink


def test_clients_attribute_a_write_through_the_second_mount_to_it(mfs):
    # mfs.sh clients: one line per mount session; a write through m2 is
    # m2's session's, and the target's own mount (m1) did nothing of it.
    def clients():
        return attribution.parse_client_lines(_mfs('clients').stdout,
                                              'mfs.sh clients')
    before = clients()
    assert {c.mount for c in before.values()} == {
        os.path.join(MFS_DIR, 'mnt', f'm{i}') for i in range(1, 5)}
    name = os.path.join(SECOND_MOUNT, f'pfsbench-test-{os.getpid()}')
    try:
        with open(name, 'wb') as fp:
            fp.write(random.randbytes(32 * MIB))
            fp.flush()
            os.fsync(fp.fileno())
    finally:
        os.unlink(name)
    att = attribution.attribute(before, clients(), attribution.Own(
        mounts=frozenset({os.path.dirname(TARGET)})))
    second = next(n for n, c in before.items()
                  if c.mount == os.path.dirname(SECOND_MOUNT))
    moved, ops, _ = att.foreign[second]
    # (At least: another test may write through m2 meanwhile.)
    assert moved >= 32 * MIB, att
    assert ops >= 2, att                    # the create, the unlink
    # (Another test may use m1 meanwhile: its own are not asserted 0.)
    assert second in attribution.marking_sources(att)


class _ForeignWriter(threading.Thread):
    """Another user's job on the same file system: writes random data
    through the second mount until stopped, 64 MiB per file, each file
    removed once the next is written (rewriting one file would dirty the
    servers' same pages again, which their counters do not count twice)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.prefix = os.path.join(SECOND_MOUNT,
                                   f'pfsbench-foreign-{os.getpid()}')
        self.stop = threading.Event()
        self.written = 0
        self.files = []

    def run(self):
        block = random.randbytes(MIB)
        while not self.stop.is_set():
            path = f'{self.prefix}.{len(self.files)}'
            self.files.append(path)
            with open(path, 'wb') as fp:
                for _ in range(64):
                    fp.write(block)
                    self.written += MIB
                fp.flush()
                os.fsync(fp.fileno())
            if len(self.files) > 1:
                os.unlink(self.files[-2])

    def __exit__(self, *exc):
        self.stop.set()
        self.join()
        if self.files:
            os.unlink(self.files[-1])

    def __enter__(self):
        self.start()
        return self


def _dd_e6(runs, env):
    return run_reframe(['--system', SYSTEM, '-c', str(CHECKS / 'dd'),
                       '-n', 'dd_stream_per_node', '-P', 'nodes=2',
                       '-S', 'repeats=1', '-r'], runs, env=env)


def _with_ior(env):
    """``env`` with the IOR/mdtest build on PATH (the checks find them
    there; a case whose tool is missing skips, naming where it looked)."""
    return dict(env, PATH=f'{os.path.dirname(IOR_BINARY)}:'
                          f'{os.environ["PATH"]}')


def _suite_run(runs, env, args):
    """One suite run on localslurm:mfs that must pass and leave the target
    as it found it; its runs directory."""
    before = _listing(TARGET)
    proc = run_reframe(['--system', SYSTEM, *args, '-r'], runs,
                       env=_with_ior(env))
    assert proc.returncode == 0, proc.stdout
    _left_nothing(before)
    return runs


@pytest.fixture(scope='module')
def streams_run(mfs, idle_slurm, tmp_path_factory):  # noqa: F811
    """One suite run of the bandwidth cases on 2 nodes: dd E6, IOR 2x2
    file-per-process and shared, fio, bonnie++ (one ReFrame start-up, the
    cases one after the other); its runs directory."""
    return _suite_run(tmp_path_factory.mktemp('mfs-streams'), idle_slurm,
                      ['-c', str(CHECKS / 'dd'),
                       '-c', str(CHECKS / 'ior'), '-c', str(CHECKS / 'fio'),
                       '-c', str(CHECKS / 'bonnie'),
                       '-n', 'dd_stream_per_node', '-n', 'ior_bandwidth',
                       '-n', 'fio_streams', '-n', 'bonnie_per_node',
                       '-P', 'nodes=2', '-P', 'streams_per_node=1',
                       '-P', 'api=POSIX', '-P', 'access=fpp,shared',
                       '-P', 'scale=2x2', '-P', 'transfer_size=1m',
                       '-S', 'repeats=1'])


@pytest.fixture(scope='module')
def metadata_run(mfs, idle_slurm, tmp_path_factory):  # noqa: F811
    """One suite run of the metadata cases: mdtest 2x2 (files, unique and
    shared directories) and E3 through 1, 2 and 4 mounts, split phases
    with the master's CPU around each."""
    if not os.access(MDTEST_BINARY, os.X_OK):
        pytest.skip(f'{MDTEST_BINARY} not built (IOR/mdtest live outside '
                    f'the repository)')
    return _suite_run(tmp_path_factory.mktemp('mfs-metadata'), idle_slurm,
                      ['-c', str(CHECKS / 'mdtest'),
                       '-n', 'mdtest_metadata_rates',
                       '-n', 'mdtest_e3_mount_points',
                       '-P', 'nodes=2', '-P', 'tasks_per_node=2',
                       '-P', 'kind=files', '-P', 'mounts=1,2,4',
                       '-S', 'active_cores=2', '-S', 'total_items=2000',
                       '-S', 'iterations=1'])


@pytest.mark.slurm
def test_e6_alone_is_not_contended_and_carries_the_server(streams_run):
    (record,) = _records(streams_run, 'dd_stream_per_node')
    # Other engineers' Slurm jobs may share the nodes; the file system's
    # own counters must see nobody else.
    assert 'whole-fs counters' not in record['contention'], record
    assert 'per-client counters' not in record['contention'], record
    counters = _counters(record)
    own = 2 * 128 * MIB          # 2 nodes, localslurm's 128 MiB cap
    # Its work in the units the whole-fs method learns per (written and
    # read back, 2 tasks), and the method that judged, with its slack.
    # (dd moves whole blocks of its own size: a little under the cap.)
    work = re.fullmatch(r'bytes=(\d+) tasks=2', record['own_work'])
    assert work and 0.99 * 2 * own <= int(work[1]) <= 2 * own, record
    assert re.fullmatch(r'per-client counters \(slack \d+ MiB and \d+ '
                        r'operations\)', record['foreign_load_method'])
    # Through its own mount (m1): what it wrote and read back.
    own_bytes = int(re.match(r'own bytes=(\d+) ', record['fs_clients'])[1])
    assert 1.9 * own <= own_bytes <= 2.2 * own, record['fs_clients']
    # (A few pages may have been counted just before the first sample.)
    assert 0.95 * own <= counters['write_bytes'] <= 1.1 * own + 64 * MIB, \
        counters
    assert 'master_version=3.0' in record['server_provenance']
    assert record['target_fstype'] == 'moosefs'
    assert 1 < record['write_bw'] < 10000, record   # MB/s per stream


@pytest.mark.slurm
def test_e6_beside_a_foreign_writer_is_contended(mfs_slurm, tmp_path):
    before = _listing(TARGET)
    with _ForeignWriter() as writer:
        proc = _dd_e6(tmp_path, mfs_slurm)
    assert proc.returncode == 0, proc.stdout
    assert writer.written >= 64 * MIB
    (record,) = _records(tmp_path, 'dd_stream_per_node')
    assert record['contended'] == 'true', record
    if record['fs_clients'].startswith('unavailable: '):
        # A mount session's counters went backwards during the case (seen
        # once with a CPU burner beside the suite: 'unavailable: a counter
        # went backwards (a server restart or reset)'): the whole file
        # system's counters judge then, and still find the writer.
        assert re.match(r'whole-fs counters, .*: \d+ MiB of foreign I/O',
                        record['contention']), record
    else:
        # Judged per mount session, naming the writer's mount (the whole
        # file system's counters are logged, not judging).
        assert re.search(r'per-client counters: foreign I/O: \d+ MiB from '
                         r'1 other client \(session \d+, mount '
                         + re.escape(os.path.dirname(SECOND_MOUNT)) + r'\)',
                         record['contention']), record['contention']
        assert os.path.dirname(SECOND_MOUNT) in record['foreign_sources']
    _left_nothing(before)


@pytest.mark.slurm
def test_mdtest_2x2_the_server_saw_its_operations(metadata_run):
    records = _records(metadata_run, 'mdtest_metadata_rates')
    assert {r['access'] for r in records} == {'unique', 'shared'}
    for record in records:
        items = (int(record['items_run_per_task']) * 4 *
                 int(record['iterations']))
        ops = _counters(record)['metadata_ops']
        # Each item is created, stat'ed, read and removed: the master saw
        # at least one operation per item and phase it serves (stat may be
        # answered from the client's attribute cache), and fewer than the
        # bound the check declares as its own.
        assert 2 * items <= ops <= 8 * 4 * items, (ops, items)
        assert 'whole-fs counters' not in record['contention'], record
        assert 'per-client counters' not in record['contention'], record
        # Items times its 4 phases: the unit its own share is learned per.
        assert record['own_work'] == f'items={4 * items} tasks=4', record
        own = re.search(r'own bytes=\d+ metadata_ops=(\d+)',
                        record['fs_clients'])
        assert own, record['fs_clients']
        own_ops = int(own[1])
        # The session's counters and the master's totals are read one
        # after the other, not at one instant: a few operations that end
        # between the reads fall in one and not the other (CI: 16,060 own
        # of 16,058).
        assert 2 * items <= own_ops <= 1.01 * ops, (own_ops, items, ops)
        for phase in ('file_create', 'file_remove'):
            assert 10 < record[phase] < 10**6, record     # ops/s


@pytest.mark.slurm
def test_e3_through_one_two_and_four_mounts(metadata_run):
    records = _records(metadata_run, 'mdtest_e3_mount_points')
    assert sorted(int(r['mount_points_used']) for r in records) == [1, 2, 4]
    for record in records:
        assert record['file_create'] > 0 and record['file_remove'] > 0
        # The master's own share of one core, per phase.
        for phase in ('create', 'remove'):
            assert 0 < record[f'{phase}_server_cpu_util'] <= 100, record


@pytest.mark.slurm
def test_fio_and_bonnie_on_two_nodes(streams_run):
    # Without IOR built, fio and bonnie++ still ran: checked apart.
    for test in ('fio_streams', 'bonnie_per_node'):
        (record,) = _records(streams_run, test)
        # fio's write and read, bonnie++'s block write and rewrite (its
        # per-char tests are off on this partition), in MB/s.  bonnie++'s
        # seeks keep the figure's name in their own unit, /s, and appear
        # only when bonnie++ took long enough to time them (CI, under
        # load: seeks_bw_sum=29515 /s beside 110 and 12 MB/s).
        sums = {k: v for k, v in record.items()
                if k.endswith('_bw_sum') and isinstance(v, float)}
        units = {k: record[f'{k}_unit'] for k in sums}
        bandwidths = [v for k, v in sums.items() if units[k] == 'MB/s']
        assert bandwidths, record
        assert all(1 < v < 10000 for v in bandwidths), record   # MB/s
        assert set(units.values()) <= {'MB/s', '/s'}, units
        rates = [v for k, v in sums.items() if units[k] == '/s']
        assert all(1 < v < 10**7 for v in rates), record


@pytest.mark.slurm
def test_ior_on_two_nodes_the_servers_stored_what_it_wrote(streams_run):
    ior = _records(streams_run, 'ior_bandwidth')
    if not ior:
        pytest.skip(f'{IOR_BINARY} not built (IOR lives outside the '
                    f'repository)')
    assert {r['access'] for r in ior} == {'fpp', 'shared'}
    for record in ior:
        counters = _counters(record)
        # The servers stored at least what IOR says it wrote.
        assert counters['write_bytes'] >= 0.9 * float(
            record['bytes_per_task']) * 4 * int(record['repetitions']), \
            (counters, record)
        assert 1 < record['write_bw'] < 10000, record     # MiB/s
