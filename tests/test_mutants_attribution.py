# SPDX-License-Identifier: BSD-3-Clause
"""Foreign load by job or client (pfsbench.load.attribution) through its
public functions: the mutants bench/mutation.py found the tests letting
through (docs/mutation.md).  Lustre's job_stats are the published samples
of tests/data/lustre-job-stats (SOURCES.md there); pure and fast."""

import os

import pytest

from pfsbench.load import attribution as at
from pfsbench.load.contention import CommandFailed

DATA = os.path.join(os.path.dirname(__file__), 'data', 'lustre-job-stats')
MIB = 2**20


def sample(name):
    with open(os.path.join(DATA, name)) as fp:
        return fp.read()


def test_every_job_of_a_sample_in_full():
    jobs = at.parse_job_stats(sample('manual-ost-five-osts.txt'), 'c')
    assert jobs['mythbackend.0'] == at.SourceCounters(
        source='mythbackend.0', bytes=96899, metadata_ops=0,
        job='mythbackend.0')
    mdt = at.parse_job_stats(sample('manual-mdt-procname_uid.txt'), 'c')
    assert mdt['bash.0'] == at.SourceCounters(
        source='bash.0', bytes=0, metadata_ops=7, job='bash.0')
    # Lustre 2.15's triple: its start and elapsed times are facts, its
    # hist a nested brace, its read/write latencies.
    newer = at.parse_job_stats(
        sample('collector-ost-2.15-time-triple.txt'), 'c')
    assert list(newer) == ['lfs.0.'] and newer['lfs.0.'].bytes == 0
    assert at.parse_job_stats(sample('collector-ost-cp.txt'))[
        'cp.0'].metadata_ops == 0


def test_an_mdts_data_on_mdt_bytes_and_its_operations():
    text = ('mdt.fs-MDT0000.job_stats=job_stats:\n'
            '- job_id: 7\n'
            '  open: { samples: 3, unit: reqs }\n'
            '  read_bytes: { samples: 2, unit: bytes, min: 1, max: 9, '
            'sum: 10 }\n'
            '  write: { samples: 4, unit: usecs, min: 1, max: 9, sum: 99 }\n')
    # An MDT counts its entries' samples as operations, a data entry's
    # bytes (Data-on-MDT) as bytes: never a latency's sum.
    assert at.parse_job_stats(text)['7'] == at.SourceCounters(
        source='7', bytes=10, metadata_ops=3, job='7')
    # Without a header, an entry counting bytes makes it an OST's.
    bare = text.split('\n', 1)[1]
    assert at.parse_job_stats('job_stats:\n' + bare)['7'].metadata_ops == 0
    ops = 'job_stats:\n- job_id: 7\n  open: { samples: 3, unit: reqs }\n'
    assert at.parse_job_stats(ops)['7'].metadata_ops == 3


@pytest.mark.parametrize('text, says', [
    ('job_stats:\n- job_id: x\n  open: { samples: many, unit: reqs }\n',
     "'c': line 3: open: samples 'many': expected a non-negative integer"),
    ('job_stats:\n- job_id: x\n  open: { unit: reqs }\n',
     "'c': line 3: open: samples '': expected a non-negative integer"),
    ('job_stats:\n- job_id: x\n  read_bytes: { samples: 1, unit: bytes, '
     'sum: -1 }\n', "'c': line 3: read_bytes: sum '-1': expected a "
                    'non-negative integer'),
    ('job_stats:\n- job_id: x\n  read_bytes: { samples: 1, unit: bytes }\n',
     "'c': line 3: read_bytes: sum '': expected a non-negative integer"),
    ('job_stats:\n- job_id: x\n  open: { samples 1, unit: reqs }\n',
     "'c': line 3: 'samples 1': expected 'name: value'"),
    ('job_stats:\n- snapshot_time: 1\n',
     "'c': a job_stats entry without job_id"),
    ('job_stats:\n- snapshot_time: 1\n- job_id: y\n',
     "'c': a job_stats entry without job_id"),
    ('job_stats:\n- snapshot_time: 1\nobdfilter.a.job_stats=\n',
     "'c': a job_stats entry without job_id"),
    ('mdt.a.job_stats=x\n', "'c': line 1: 'mdt.a.job_stats=x': expected "
                            "'job_stats:' after '='"),
    ('hello\n', "'c': no job_stats section in its output"),
    ('', "'c': no job_stats section in its output"),
    ('job_stats:\nhello\n', "'c': line 2: 'hello': not job_stats output"),
    ('mdt.a.job_stats=\nhello\n',
     "'c': line 2: 'hello': not job_stats output"),
])
def test_bad_job_stats_say_where_and_what(text, says):
    with pytest.raises(CommandFailed) as err:
        at.parse_job_stats(text, 'c')
    assert str(err.value) == says


def test_the_command_is_named_as_given():
    with pytest.raises(CommandFailed) as err:
        at.parse_job_stats('hello\n')
    assert str(err.value) == "'': no job_stats section in its output"


def test_headers_prefixes_and_blank_lines():
    text = ('mds1: mdt.fs-MDT0000.job_stats=\n'
            'mds1: job_stats:\n'
            'mds1: - job_id:          812\n'
            'mds1:   snapshot_time:   1\n'
            '\n'
            'mds1:   open:    { samples: 5, unit: reqs }\n'
            'mds2: mdt.fs-MDT0001.job_stats=\n'
            'mds2: job_stats:\n'
            'mds2: - job_id: 812\n'
            'mds2:   close:   { samples: 2, unit: reqs }\n')
    assert at.parse_job_stats(text, 'pdsh')['812'].metadata_ops == 7
    osts = ''.join(f'obdfilter.fs-OST000{n}.job_stats=\njob_stats:\n'
                   f'- job_id: 812\n  write_bytes: {{ samples: 1, '
                   f'unit: bytes, sum: {n + 4} }}\n' for n in (1, 2))
    assert at.parse_job_stats(osts)['812'].bytes == 5 + 6
    # Empty sections count: a server without jobs is not an error.
    assert at.parse_job_stats('obdfilter.a.job_stats=job_stats:\n') == {}
    assert at.parse_job_stats('job_stats:\n') == {}


def test_client_lines_in_full_and_their_errors():
    got = at.parse_client_lines(
        '  # x\nsource=4 mount=/m host=n1 job=9 read_bytes=5 '
        'write_bytes=7 metadata_ops=9 other=1\nsource=5 read_bytes=3\n'
        'source=6 write_bytes=2\n', 'cmd')
    assert got == {
        '4': at.SourceCounters('4', 12, 9, mount='/m', host='n1', job='9'),
        '5': at.SourceCounters('5', 3, 0), '6': at.SourceCounters('6', 2, 0)}
    assert at.parse_client_lines('source=6 bytes=2 read_bytes=9\n', 'c')[
        '6'].bytes == 2
    assert at.parse_client_lines('source=7 mount=/m/a=b\n', 'c')[
        '7'].mount == '/m/a=b'
    for text, says in (
            ('mount=/m\n', "'c': 'mount=/m': expected source=<name>"),
            ('source= bytes=1\n', "'c': 'source= bytes=1': expected "
                                  'source=<name>'),
            ('source=1 metadata_ops=x\n',
             "'c': 'source=1 metadata_ops=x': metadata_ops='x': expected "
             'a non-negative integer'),
            ('source=1\nsource=1\n', "'c': source=1 printed twice"),
            ('# only\n', "'c': printed no client line")):
        with pytest.raises(CommandFailed) as err:
            at.parse_client_lines(text, 'c')
        assert str(err.value) == says


def test_the_method_and_its_sample():
    assert at.method_of({}) is None
    assert at.method_of({'fs_clients_command': 'x',
                         'fs_job_stats_command': 'y'}) == \
        'fs_job_stats_command'
    assert at.method_of({'fs_job_stats_command': '',
                         'fs_clients_command': 'x'}) == 'fs_clients_command'
    assert at.METHODS['fs_job_stats_command'][0] == 'per-job counters'
    assert at.METHODS['fs_clients_command'][0] == 'per-client counters'
    got = at.sample({'fs_clients_command': 'echo source=1 bytes=2'})
    assert got == ({'1': at.SourceCounters('1', 2, 0)}, '')
    path = os.path.join(DATA, 'manual-mdt-procname_uid.txt')
    jobs, why = at.sample({'fs_job_stats_command': f'cat {path}'})
    assert (sorted(jobs), why) == (['bash.0', 'mythbackend.0'], '')
    assert at.sample({'fs_clients_command': 'exit 2'}) == (
        None, "'exit 2': exit status 2")
    assert at.sample({'fs_clients_command': 'echo bytes=1'}) == (
        None, "'echo bytes=1': 'bytes=1': expected source=<name>")
    assert at.lustre_job_stats_command('m', 'o', 'clush -w') == (
        "clush -w m 'lctl get_param mdt.*.job_stats'; "
        "clush -w o 'lctl get_param obdfilter.*.job_stats'")


def test_whose_counters_are_the_cases_own():
    def src(**kw):
        return at.SourceCounters(source='s', bytes=0, metadata_ops=0, **kw)
    own = at.Own(jobs=frozenset({'81'}), mounts=frozenset({'/m'}),
                 hosts=frozenset({'n1'}))
    assert [own.claims(src(job=j)) for j in
            ('81', '81.x', '81@h', '81:u', '81x', '8', '181')] == [
        True, True, True, True, False, False, False]
    # A job decides alone, whatever its mount or host.
    assert not own.claims(src(job='9', mount='/m', host='n1'))
    assert own.claims(src(mount='/m')) and own.claims(src(mount='/m',
                                                          host='n1'))
    assert not own.claims(src(mount='/m', host='n2'))
    assert not own.claims(src(mount='/x', host='n1'))
    assert at.Own(mounts=frozenset({'/m'})).claims(src(mount='/m', host='n2'))
    assert own.claims(src(host='n1')) and not own.claims(src(host='n2'))
    assert not own.claims(src()) and not at.Own().claims(src(host=''))


def clients(**work):
    return {name: at.SourceCounters(source=name, bytes=b, metadata_ops=o,
                                    **kw)
            for name, (b, o, kw) in work.items()}


def test_the_split_and_its_description():
    before = clients(own=(10, 10, {'mount': '/m'}), a=(0, 0, {}),
                     idle=(5, 5, {}), own2=(0, 0, {'mount': '/m'}))
    after = clients(own=(30, 15, {'mount': '/m'}), a=(7, 1, {'mount': '/x'}),
                    idle=(5, 5, {}), b=(0, 2, {}),
                    own2=(1, 1, {'mount': '/m'}))
    att = at.attribute(before, after, at.Own(mounts=frozenset({'/m'})))
    assert (att.own_bytes, att.own_ops) == (21, 6)
    assert {n: f[:2] for n, f in att.foreign.items()} == {'a': (7, 1),
                                                          'b': (0, 2)}
    assert (att.foreign_bytes(), att.foreign_ops()) == (7, 3)
    assert at.describe(att) == ('own bytes=21 metadata_ops=6; a (/x) '
                                'bytes=7 metadata_ops=1; b bytes=0 '
                                'metadata_ops=2')
    assert at.describe(None) == ''
    assert at.attribute(None, after, at.Own()) is None
    assert at.attribute(before, None, at.Own()) is None
    back = clients(own=(9, 10, {}))
    assert at.attribute(before, back, at.Own()) is None
    assert at.attribute(before, clients(own=(10, 9, {})), at.Own()) is None


def test_the_slack_and_its_floors():
    assert at.slack(1000) == 100 and at.slack(0) == 0
    assert at.slack(1000, 0.5, 600) == 600
    assert at.slack(1000, 0.5, 400) == 500
    assert (at.SLACK_FRACTION, at.SLACK_MIN_BYTES, at.SLACK_MIN_OPS,
            at.NAMED_SHARE) == (0.10, 16 * MIB, 500, 0.05)


def verdict_of(foreign, own_bytes=0, own_ops=0, fraction=at.SLACK_FRACTION):
    att = at.Attribution(own_bytes=own_bytes, own_ops=own_ops, foreign={
        n: (b, o, at.SourceCounters(source=n, bytes=b, metadata_ops=o, **kw))
        for n, (b, o, kw) in foreign.items()})
    return (at.verdict(att, 'm', fraction),
            at.marking_sources(att, fraction))


def test_operations_beyond_their_slack_name_who():
    # At the slack nothing; one more marks.
    assert verdict_of({'4': (0, 500, {})}) == ('', [])
    assert verdict_of({'4': (0, 501, {'mount': '/m2', 'host': 'n3'})}) == (
        'm: foreign metadata: 501 operations from 1 other client (session '
        '4, mount /m2, host n3) during the case; its own 0 (slack 500)',
        ['4'])
    text, named = verdict_of({'812.0': (0, 30000, {'job': '812.0'}),
                              'j9': (0, 20000, {'job': '9'})},
                             own_ops=10000)
    assert text == (
        'm: foreign metadata: 50k operations from 2 other jobs (812.0; '
        'j9, job 9) during the case; its own 10k (slack 1000)')
    assert named == ['812.0', 'j9']
    # A Slurm job is named by its id, a digit-named client as a session.
    assert verdict_of({'812': (0, 501, {'job': '812'})})[0] == (
        'm: foreign metadata: 501 operations from 1 other job (812) during '
        'the case; its own 0 (slack 500)')
    assert verdict_of({'a': (0, 9999, {})}, own_ops=99500)[0] == (
        'm: foreign metadata: 9999 operations from 1 other client (a) during '
        'the case; its own 100k (slack 9950)')
    # A job beside a client: clients.
    text, _ = verdict_of({'a': (0, 9000, {'job': '1'}), 'b': (0, 999, {})},
                         own_ops=20000, fraction=0.25)
    assert text == ('m: foreign metadata: 9999 operations from 2 other '
                    'clients (a, job 1; b) during the case; its own 20k '
                    '(slack 5000)')


def test_bytes_beyond_their_slack_and_the_minor_sources():
    mib16 = 16 * MIB
    assert verdict_of({'a': (mib16, 0, {})}) == ('', [])
    text, named = verdict_of({'a': (mib16 + 1, 0, {})})
    assert text == ('m: foreign I/O: 16 MiB from 1 other client (a) during '
                    'the case; its own 0 MiB (slack 16 MiB)')
    # 5 % of the foreign bytes is named, less is counted.
    text, named = verdict_of({'big': (94 * MIB, 0, {}),
                              'edge': (5 * MIB, 0, {}),
                              'tiny': (MIB, 0, {})}, own_bytes=200 * MIB)
    assert text == ('m: foreign I/O: 100 MiB from 2 other clients (big; '
                    'edge) and 1 more with less than 5% of it during the '
                    'case; its own 200 MiB (slack 20 MiB)')
    assert named == ['big', 'edge']
    both, named = verdict_of({'a': (40 * MIB, 600, {}),
                              'b': (40 * MIB, 700, {})})
    assert both.startswith('m: foreign metadata: 1300 operations from 2 '
                           'other clients (b; a) during the case; its own 0 '
                           '(slack 500); foreign I/O: 80 MiB from 2 other '
                           'clients (a; b) during')
    assert named == ['b', 'a']
    # Bytes name first, then operations: each sentence by its own measure.
    both, named = verdict_of({'a': (50 * MIB, 600, {}),
                              'b': (40 * MIB, 700, {})})
    assert '(b; a) during' in both and 'from 2 other clients (a; b)' in both
    assert named == ['a', 'b']
    assert at.verdict(None, 'm') == '' and at.marking_sources(None) == []
