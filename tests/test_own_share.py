# SPDX-License-Identifier: BSD-3-Clause
"""The case's own share of the whole file system's counters, learned from
its quiet runs (pfsbench.load.own_share): the history read from its
perflog, the learning, the verdicts naming method and slack."""

import os

import pytest

from pfsbench.load import own_share
from pfsbench.load.own_share import OwnWork, QuietRun

MIB = 2**20

#: The perflog columns the history reads (a real perflog has ~270; the
#: reader goes by the header's names).
HEADER = ('job_completion_time|name|contended|contention|display_name|'
          'fs_counters|own_work|server_provenance|target_path')
MDTEST = 'mdtest_metadata_rates %kind=files %nodes=1 %tasks_per_node=2'
PROV = 'filesystem=moosefs; master_version=3.0.117; copies=1'
TARGET = '/mnt/m1/scratch'


def _line(when, ops, *, name=MDTEST, contended='false', written=32768,
          work='items=8000 tasks=2', prov=PROV, target=TARGET):
    return (f'{when}|{name}|{contended}||{name}|read_bytes=0 '
            f'write_bytes={written} metadata_ops={ops}|{work}|{prov}|'
            f'{target}')


def _perflog(tmp_path, lines, header=HEADER, name='mdtest_metadata_rates'):
    folder = tmp_path / 'perflogs' / 'localslurm' / 'mfs'
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f'{name}.log'
    path.write_text('\n'.join([header] + lines) + '\n')
    return path


def _tags(prov=PROV, target=TARGET):
    return {'server_provenance': prov, 'target_path': target}


# The case's work, in units -----------------------------------------------

def test_own_work_is_logged_and_read_back():
    work = OwnWork(bytes=256 * MIB, items=None, tasks=4)
    assert work.describe() == 'bytes=268435456 tasks=4'
    assert OwnWork.parse(work.describe()) == work
    assert OwnWork.parse('items=8000 tasks=2') == OwnWork(items=8000,
                                                          tasks=2)
    for bad in ('', 'unavailable: x', 'bytes=12', 'tasks=two',
                'tasks=2 files=3'):
        assert OwnWork.parse(bad) is None, bad


def test_units_are_bytes_moved_then_items_and_phases_then_tasks():
    dd = OwnWork(bytes=512 * MIB, tasks=2)
    assert dd.unit('bytes') == (512 * MIB, 'byte moved')
    assert dd.unit('ops') == (2, 'task')
    md = OwnWork(items=8000, tasks=2)
    assert md.unit('bytes') == (8000, 'item and phase')
    assert md.unit('ops') == (8000, 'item and phase')
    # A case that moves no bytes learns them per item (or task).
    assert OwnWork(bytes=0, tasks=3).unit('bytes') == (3, 'task')


# The history, from the case's perflog ------------------------------------

def test_history_is_the_newest_quiet_runs_of_the_same_case(tmp_path):
    path = _perflog(tmp_path, [
        _line('t0', 16000),
        _line('t1', 99000, contended='true'),        # contended: not quiet
        _line('t2', 16100, prov=PROV.replace('copies=1', 'copies=2')),
        _line('t3', 16200, target='/mnt/other'),
        _line('t4', 16300, name=MDTEST.replace('nodes=1', 'nodes=2')),
        _line('t5', 16400, work=''),                   # before own_work
        _line('t6', 16500, name=MDTEST + ' %.repeat_no=3'),
        'a|line|cut short',
        _line('t7', 16600),
    ])
    runs = own_share.quiet_history([str(path)], MDTEST + ' %.repeat_no=0',
                                   _tags())
    assert [r.delta['metadata_ops'] for r in runs] == [16600, 16500, 16000]
    assert runs[0].work == OwnWork(items=8000, tasks=2)
    assert [r.delta['metadata_ops'] for r in own_share.quiet_history(
        [str(path)], MDTEST, _tags(), limit=2)] == [16600, 16500]


def test_history_reads_a_long_perflog_from_its_end(tmp_path):
    lines = [_line(f't{i}', 16000 + i) for i in range(300)]
    path = _perflog(tmp_path, lines)
    reader = own_share._newest_lines(str(path), block=97)
    assert next(reader) == HEADER
    assert list(reader) == lines[::-1]
    runs = own_share.quiet_history([str(path)], MDTEST, _tags(), limit=20)
    assert [r.delta['metadata_ops'] for r in runs] == \
        list(range(16299, 16279, -1))


def test_perflogs_moved_aside_by_a_new_header_are_read_after(tmp_path):
    path = _perflog(tmp_path, [_line('new', 16003)])
    folder = path.parent
    (folder / (path.name + '.h0')).write_text(
        HEADER + '\n' + _line('oldest', 16001) + '\n')
    (folder / (path.name + '.h1')).write_text(
        'x|' + HEADER + '\n' + 'x|' + _line('older', 16002) + '\n')
    handlers = [{'type': 'stream'},
                {'type': 'filelog', 'basedir': str(tmp_path / 'perflogs'),
                 'prefix': '%(check_system)s/%(check_partition)s'}]
    paths = own_share.perflog_paths(
        handlers, '/elsewhere', {'check_system': 'localslurm',
                                 'check_partition': 'mfs'},
        'mdtest_metadata_rates')
    assert paths == [str(path), str(path) + '.h1', str(path) + '.h0']
    runs = own_share.quiet_history(paths, MDTEST, _tags())
    assert [r.delta['metadata_ops'] for r in runs] == [16003, 16002, 16001]
    # A relative basedir is under the system's prefix; no file: no runs.
    assert own_share.perflog_paths(
        [{'type': 'filelog', 'basedir': 'logs'}], str(tmp_path),
        {'check_system': 's', 'check_partition': 'p'}, 'c') == \
        [os.path.join(str(tmp_path), 'logs', 's', 'p', 'c.log')]
    assert own_share.quiet_history(
        [str(tmp_path / 'none.log')], MDTEST, _tags()) == []
    # A prefix naming a field the probe does not know: no history.
    assert own_share.perflog_paths(
        [{'type': 'filelog', 'prefix': '%(check_unknown)s'}], '.', {},
        'c') == []


# Learning ----------------------------------------------------------------

def _quiet(ops_list, work=OwnWork(items=8000, tasks=2), written=32768):
    return [QuietRun({'read_bytes': 0, 'write_bytes': written,
                      'metadata_ops': ops}, work) for ops in ops_list]


def test_the_own_share_is_the_quiet_median_per_unit():
    work = OwnWork(items=16000, tasks=2)        # twice the items this run
    learned = own_share.learn(_quiet([16000, 16100, 15900, 30000]), work)
    assert learned.runs == 4
    assert learned.ops.unit == 'item and phase'
    assert learned.ops.per_unit == pytest.approx(16050 / 8000)
    assert learned.ops.own == pytest.approx(32100)
    assert learned.bytes.own == pytest.approx(65536)


def test_too_few_quiet_runs_of_this_kind_learn_nothing():
    work = OwnWork(items=8000, tasks=2)
    assert own_share.learn(_quiet([16000, 16100]), work) is None
    # Runs that counted bytes per byte moved cannot teach one that moves
    # none (its bytes are learned per item).
    other = _quiet([16000] * 5, work=OwnWork(bytes=MIB, items=8000, tasks=2))
    assert own_share.learn(other, work) is None
    assert own_share.learn(other + _quiet([16000] * 3), work).runs == 3


def test_the_slack_fraction_grows_with_the_quiet_spread():
    work = OwnWork(items=8000, tasks=2)
    steady = own_share.learn(_quiet([16000, 16010, 15990, 16005]), work)
    assert steady.ops.fraction == own_share.MIN_FRACTION
    noisy = own_share.learn(_quiet([16000, 16800, 15200, 16000, 17000]),
                            work)
    # median 16000, absolute deviations 0, 800, 800, 0, 1000: MAD 800.
    assert noisy.ops.spread == pytest.approx(0.05)
    assert noisy.ops.fraction == pytest.approx(0.25)


# Verdicts ----------------------------------------------------------------

def test_a_storm_of_the_case_own_size_hides_under_the_fixed_bound_only():
    # The case: mdtest 1x2, 2000 items, 4 phases, MooseFS sends
    # about 2 operations per item and phase; another mount's storm of the
    # same size doubles the file system's operations.
    work = OwnWork(items=8000, tasks=2)
    storm = {'read_bytes': 0, 'write_bytes': 40960, 'metadata_ops': 32200}
    fixed, how = own_share.judge(storm, work, None, None, 64000)
    assert fixed == ''
    assert how == ('whole-fs counters, fixed bound (no quiet history) (the '
                   'fixed bound; own at most unknown bytes and 64k '
                   'operations; slack 6400 operations)')
    learned = own_share.learn(_quiet([16088, 16082, 16095, 16070, 16088]),
                              work)
    found, how = own_share.judge(storm, work, learned, None, 64000)
    assert found == ('whole-fs counters, own share from 5 quiet runs: 16k '
                     'foreign metadata operations (32k in all; this case\'s '
                     'own 16k, slack 1609)')
    assert how == ('whole-fs counters, own share from 5 quiet runs (4.1 '
                   'bytes per item and phase, 2.01 operations per item and '
                   'phase; own 0 MiB and 16k operations; slack 64 MiB and '
                   '1609 operations)')
    quiet = {'read_bytes': 0, 'write_bytes': 32768, 'metadata_ops': 17000}
    assert own_share.judge(quiet, work, learned, None, 64000)[0] == ''


def test_foreign_writes_of_the_case_own_size_beside_dd():
    # dd writes 256 MiB and reads them back (512 MiB moved); the servers
    # see the writes only.  Another client writes 256 MiB more.
    work = OwnWork(bytes=512 * MIB, tasks=2)
    moved = {'read_bytes': 0, 'write_bytes': 512 * MIB, 'metadata_ops': 110}
    assert own_share.judge(moved, work, None, 512 * MIB, None)[0] == ''
    history = [QuietRun({'read_bytes': 0, 'write_bytes': w,
                         'metadata_ops': 55}, work)
               for w in (256 * MIB, 256 * MIB + 4096, 256 * MIB - 8192)]
    learned = own_share.learn(history, work)
    found, how = own_share.judge(moved, work, learned, 512 * MIB, None)
    assert found == ('whole-fs counters, own share from 3 quiet runs: '
                     '256 MiB of foreign I/O (read 0 MiB, written 512 MiB; '
                     'this case\'s own 256 MiB, slack 64 MiB)')
    assert how.endswith('own 256 MiB and 55 operations; slack 64 MiB and '
                        '500 operations)')
    # Metadata: the learned 55 per run, not the fixed 2000 of slack.
    storm = dict(moved, write_bytes=256 * MIB, metadata_ops=700)
    assert own_share.judge(storm, work, None, 512 * MIB, None)[0] == ''
    assert own_share.judge(storm, work, learned, 512 * MIB, None)[0] == (
        'whole-fs counters, own share from 3 quiet runs: 645 foreign '
        'metadata operations (700 in all; this case\'s own 55, slack 500)')


def test_the_tags_compared_are_the_case_fields_it_has():
    assert own_share.case_tags({'target_path': TARGET,
                                'server_provenance': None,
                                'unrelated': 'x'}) == \
        {'target_path': TARGET, 'server_provenance': ''}


def test_the_probe_reads_its_history_where_reframe_writes_its_perflog(
        tmp_path, monkeypatch):
    from types import SimpleNamespace

    from pfsbench.checks import fs_probe
    _perflog(tmp_path, [_line('t0', 16000), _line('t1', 16100),
                        _line('t2', 16200, prov='other')])
    config = {'logging/0/handlers_perflog': [
        {'type': 'filelog', 'basedir': str(tmp_path / 'perflogs'),
         'prefix': '%(check_system)s/%(check_partition)s'}],
        'systems/0/prefix': '/nowhere'}
    monkeypatch.setattr(fs_probe, 'runtime', lambda: SimpleNamespace(
        site_config=SimpleNamespace(get=config.get)))

    class mdtest_metadata_rates:     # the perflog is named by the class
        @classmethod
        def variant_name(cls):
            return cls.__name__

    check = mdtest_metadata_rates()
    check.current_partition = SimpleNamespace(fullname='localslurm:mfs',
                                              name='mfs')
    check.current_environ = SimpleNamespace(name='builtin')
    check.name = check.display_name = MDTEST + ' %.repeat_no=4'
    check.server_provenance, check.target_path = PROV, TARGET
    runs = fs_probe.ServerCountersProbe.quiet_history(check)
    assert [r.delta['metadata_ops'] for r in runs] == [16100, 16000]

    def no_runtime():
        raise fs_probe.ReframeBaseError('no runtime context is configured')

    monkeypatch.setattr(fs_probe, 'runtime', no_runtime)
    assert fs_probe.ServerCountersProbe.quiet_history(check) == []
