# SPDX-License-Identifier: BSD-3-Clause
"""A case's own share of the whole file system's counters
(pfsbench.load.own_share) through its public functions: the mutants
bench/mutation.py found the tests letting through (docs/mutation.md).
The perflogs are written as ReFrame writes them (a header line, ``|``
between fields); pure and fast."""

import pytest

from pfsbench.load import own_share
from pfsbench.load.own_share import Learned, OwnWork, QuietRun, Share

MIB = 2**20
HEADER = 'display_name|contended|fs_counters|own_work|target_path'
CASE = 'dd_stream %nodes=1'


def line(ops, *, name=CASE, contended='false', work='items=10 tasks=2',
         target='/t'):
    return (f'{name}|{contended}|read_bytes=0 write_bytes=0 '
            f'metadata_ops={ops}|{work}|{target}')


def perflog(path, lines, header=HEADER):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('\n'.join([header] + lines) + '\n')
    return str(path)


def ops_of(runs):
    return [r.delta['metadata_ops'] for r in runs]


def test_own_work_in_words_and_units():
    assert OwnWork().describe() == 'tasks=1'
    assert OwnWork(bytes=5, items=6, tasks=7).describe() == (
        'bytes=5 items=6 tasks=7')
    assert OwnWork.parse('bytes=5 items=6 tasks=7') == OwnWork(5, 6, 7)
    assert OwnWork.parse('tasks=3') == OwnWork(tasks=3)
    for bad in (None, 'bytes=5 items=6', 'tasks=3 x=1', 'tasks=-1'):
        assert OwnWork.parse(bad) is None, bad
    assert OwnWork(bytes=5, items=6).unit('bytes') == (5, 'byte moved')
    assert OwnWork(bytes=5, items=6).unit('ops') == (6, 'item and phase')
    assert OwnWork(bytes=5, tasks=0).unit('ops') == (1, 'task')
    assert OwnWork(tasks=4).unit('bytes') == (4, 'task')


def test_what_the_counters_saw():
    delta = {'read_bytes': 2, 'write_bytes': 3, 'metadata_ops': 7}
    assert own_share.measured(delta, 'bytes') == 5
    assert own_share.measured(delta, 'ops') == 7
    assert own_share.parse_fs_counters(
        'read_bytes=2 write_bytes=3 metadata_ops=7 x=y') == delta
    for bad in (None, '', 'unavailable: no answer',
                'read_bytes=2 write_bytes=3', 'read_bytes=2 write_bytes=3 '
                                              'metadata_ops=-7'):
        assert own_share.parse_fs_counters(bad) is None, bad
    assert (own_share.OWN_WORK, own_share.FS_COUNTERS) == (
        'own_work', 'fs_counters')


def test_the_perflogs_of_a_check_newest_first(tmp_path, monkeypatch):
    folder = tmp_path / 'logs' / 'sys' / 'part'
    folder.mkdir(parents=True)
    for suffix in ('.h2', '.h10', '.h9', '.hx', '.h'):
        (folder / f'c.log{suffix}').write_text('')
    (folder / 'd.log.h3').write_text('')
    monkeypatch.setenv('PFS_LOGS', 'logs')
    monkeypatch.setenv('PFS_PART', 'part')
    fields = {'check_system': 'sys', 'check_partition': 'part'}
    got = own_share.perflog_paths(
        [{'type': 'filelog', 'basedir': '$PFS_LOGS',
          'prefix': '%(check_system)s/$PFS_PART'}], str(tmp_path), fields,
        'c')
    current = str(folder / 'c.log')
    assert got == [current] + [current + f'.h{n}' for n in (10, 9, 2)]
    # The defaults: ./perflogs under the prefix, system/partition.
    assert own_share.perflog_paths([{'type': 'filelog'}], str(tmp_path),
                                   fields, 'c') == [
        str(tmp_path / 'perflogs' / 'sys' / 'part' / 'c.log')]
    monkeypatch.chdir(tmp_path)
    assert own_share.perflog_paths([{'type': 'filelog', 'basedir': 'l'}],
                                   None, fields, 'c') == [
        str(tmp_path / 'l' / 'sys' / 'part' / 'c.log')]
    assert own_share.perflog_paths(None, '.', fields, 'c') == []
    two = own_share.perflog_paths(
        [{'type': 'filelog', 'basedir': 'a'}, {'type': 'syslog'},
         {'type': 'filelog', 'basedir': 'b'}], '/p', fields, 'c')
    assert two == ['/p/a/sys/part/c.log', '/p/b/sys/part/c.log']
    assert own_share.perflog_paths(
        [{'type': 'filelog', 'prefix': '%(check_system)d'}], '.', fields,
        'c') == []
    assert own_share.perflog_paths(
        [{'type': 'filelog', 'prefix': '%(check_system)s%'},
         {'type': 'filelog', 'basedir': 'b'}], '/p', fields, 'c') == [
        '/p/b/sys/part/c.log']


def test_the_quiet_runs_read_and_those_left_out(tmp_path):
    old = perflog(tmp_path / 'old.log', [line(1), line(2, contended='False')])
    new = perflog(tmp_path / 'new.log', [
        line(3), line(4, contended='true'), line(5, target='/other'),
        line(6, work='bytes=9'), line(7).replace('metadata_ops=7', 'x'),
        line(8, name=CASE + ' %.repeat_no=2'), line(9, name='other'),
        line(10) + '|extra'])
    bare = perflog(tmp_path / 'bare.log', [line(11)],
                   header=HEADER.replace('|own_work', '|work'))
    empty = tmp_path / 'empty.log'
    empty.write_text('')
    paths = [new, str(empty), bare, str(tmp_path), old]
    runs = own_share.quiet_history(paths, CASE + ' %.repeat_no=0',
                                   {'target_path': '/t'})
    assert ops_of(runs) == [8, 3, 2, 1]
    assert runs[1] == QuietRun({'read_bytes': 0, 'write_bytes': 0,
                                'metadata_ops': 3}, OwnWork(items=10,
                                                            tasks=2))
    assert ops_of(own_share.quiet_history(paths, CASE, {'target_path': '/t'},
                                          limit=3)) == [8, 3, 2]
    assert ops_of(own_share.quiet_history([new], CASE, {})) == [8, 5, 3]
    assert own_share.quiet_history([new], CASE, {'nosuch': 'x'}) == []
    assert len(own_share.quiet_history(
        [perflog(tmp_path / 'many.log', [line(n) for n in range(30)])],
        CASE, {})) == own_share.QUIET_RUNS_USED == 20


def test_a_perflog_holding_bytes_that_are_not_utf8(tmp_path):
    """A tool's text in a field may hold any byte: the line is read with
    U+FFFD for it, the header too."""
    path = tmp_path / 'bad.log'
    path.write_bytes(HEADER.encode() + b'|note\xff\n' +
                     line(1).encode() + b'|\xfe\xff\n' +
                     line(2).encode() + b'|ok\n')
    assert ops_of(own_share.quiet_history([str(path)], CASE, {})) == [2, 1]


def test_a_long_perflog_is_read_whole_from_its_end(tmp_path):
    lines = [line(n, target='/t' + 'x' * 5000) for n in range(400)]
    path = perflog(tmp_path / 'long.log', lines)
    runs = own_share.quiet_history([path], CASE, {}, limit=400)
    assert ops_of(runs) == list(range(399, -1, -1))


def quiet(ops, work=OwnWork(items=10, tasks=2), written=0):
    return [QuietRun({'read_bytes': 0, 'write_bytes': written,
                      'metadata_ops': o}, work) for o in ops]


def test_the_share_learned_per_unit():
    work = OwnWork(items=20, tasks=2)
    learned = own_share.learn(quiet([100, 110, 90, 130, 100]), work)
    # Per item: 10, 11, 9, 13, 10; median 10; deviations 0, 1, 1, 3, 0.
    assert learned == Learned(
        runs=5,
        bytes=Share(own=0.0, per_unit=0.0, unit='item and phase',
                    spread=0.0, fraction=0.10),
        ops=Share(own=200.0, per_unit=10.0, unit='item and phase',
                  spread=0.1, fraction=pytest.approx(0.5)))
    assert own_share.learn(quiet([100, 100]), work) is None
    assert own_share.learn(quiet([100, 100]), work, min_runs=2).runs == 2
    assert own_share.learn(quiet([100] * 3), work, min_runs=4) is None
    assert (own_share.MIN_QUIET_RUNS, own_share.MIN_FRACTION,
            own_share.SPREAD_FACTOR, own_share.MIN_BYTES,
            own_share.MIN_OPS) == (3, 0.10, 5.0, 64 * MIB, 500)


def test_method_names():
    assert own_share.method_name(None) == (
        'whole-fs counters, fixed bound (no quiet history)')
    share = Share(1.0, 1.0, 'task', 0.0, 0.1)
    assert own_share.method_name(Learned(1, share, share)) == (
        'whole-fs counters, own share from 1 quiet run')
    assert own_share.method_name(Learned(2, share, share)) == (
        'whole-fs counters, own share from 2 quiet runs')


def test_the_fixed_bound_at_its_slacks():
    work = OwnWork(bytes=1000 * MIB, tasks=1)
    at_slack = {'read_bytes': 600 * MIB, 'write_bytes': 500 * MIB,
                'metadata_ops': 2000}
    assert own_share.judge(at_slack, work, None, 1000 * MIB, None) == (
        '', 'whole-fs counters, fixed bound (no quiet history) (the fixed '
            'bound; own at most 1000 MiB and a few operations; slack '
            '100 MiB and 2000 operations)')
    beyond = dict(at_slack, write_bytes=500 * MIB + 1, metadata_ops=2001)
    found, how = own_share.judge(beyond, work, None, 1000 * MIB, None)
    assert found == (
        'whole-fs counters, fixed bound (no quiet history): 100 MiB of '
        "foreign I/O (read 600 MiB, written 500 MiB; this case's own at "
        "most 1000 MiB, slack 100 MiB), 2001 foreign metadata operations "
        "(2001 in all; this case's own at most 0, slack 2000)")
    # Bytes unknown: no verdict on bytes; operations by their own bound.
    found, how = own_share.judge(
        {'read_bytes': 10**12, 'write_bytes': 0, 'metadata_ops': 25001},
        work, None, None, 20000)
    assert found == (
        'whole-fs counters, fixed bound (no quiet history): 5001 foreign '
        "metadata operations (25k in all; this case's own at most 20k, "
        'slack 2000)')
    assert how.endswith('(the fixed bound; own at most unknown bytes and '
                        '20k operations; slack 2000 operations)')
    small = {'read_bytes': 0, 'write_bytes': 64 * MIB, 'metadata_ops': 0}
    assert own_share.judge(small, work, None, 0, 0)[0] == ''
    small['write_bytes'] += 1
    assert own_share.judge(small, work, None, 0, 0)[0].startswith(
        'whole-fs counters, fixed bound (no quiet history): 64 MiB of '
        'foreign I/O')
    assert own_share.judge(small, work, None, 0, 0)[1].endswith(
        'own at most 0 MiB and a few operations; slack 64 MiB and 2000 '
        'operations)')
    many = {'read_bytes': 0, 'write_bytes': 0, 'metadata_ops': 22000}
    assert own_share.judge(many, work, None, 0, 20000)[0] == ''


def test_the_learned_share_at_its_slacks():
    work = OwnWork(bytes=1000 * MIB, tasks=1)
    share = Share(own=1000 * MIB, per_unit=1.0, unit='byte moved',
                  spread=0.0, fraction=0.2)
    ops = Share(own=10000.0, per_unit=10000.0, unit='task', spread=0.0,
                fraction=0.1)
    learned = Learned(runs=4, bytes=share, ops=ops)
    at_slack = {'read_bytes': 0, 'write_bytes': 1200 * MIB,
                'metadata_ops': 11000}
    assert own_share.judge(at_slack, work, learned, None, None) == (
        '', 'whole-fs counters, own share from 4 quiet runs (1 bytes per '
            'byte moved, 1e+04 operations per task; own 1000 MiB and 10k '
            'operations; slack 200 MiB and 1000 operations)')
    beyond = dict(at_slack, write_bytes=1200 * MIB + 1, metadata_ops=11001)
    assert own_share.judge(beyond, work, learned, None, None)[0] == (
        'whole-fs counters, own share from 4 quiet runs: 200 MiB of '
        "foreign I/O (read 0 MiB, written 1200 MiB; this case's own "
        "1000 MiB, slack 200 MiB), 1001 foreign metadata operations (11k "
        "in all; this case's own 10k, slack 1000)")
    big = Learned(runs=3, bytes=share, ops=Share(99500.0, 99500.0, 'task',
                                                 0.0, 0.1))
    assert own_share.judge(dict(at_slack, metadata_ops=99500 + 9951), work,
                           big, None, None)[0].endswith(
        "9951 foreign metadata operations (109k in all; this case's own "
        '100k, slack 9950)')
    # The floors: 64 MiB and 500 operations.
    tiny = Learned(runs=3, bytes=Share(0.0, 0.0, 'task', 0.0, 0.1),
                   ops=Share(0.0, 0.0, 'task', 0.0, 0.1))
    floor = {'read_bytes': 64 * MIB, 'write_bytes': 0, 'metadata_ops': 500}
    assert own_share.judge(floor, work, tiny, None, None)[0] == ''
    assert own_share.judge(dict(floor, metadata_ops=501), work, tiny, None,
                           None)[0].endswith(
        "501 foreign metadata operations (501 in all; this case's own 0, "
        'slack 500)')


def test_the_tags_a_run_must_share():
    values = {f: f'v{n}' for n, f in enumerate(own_share.CASE_TAG_FIELDS)}
    assert own_share.case_tags(dict(values, other='x')) == values
    assert own_share.case_tags({}) == {}
    assert own_share.case_tags({own_share.CASE_TAG_FIELDS[0]: None}) == {
        own_share.CASE_TAG_FIELDS[0]: ''}
