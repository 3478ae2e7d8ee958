# SPDX-License-Identifier: BSD-3-Clause
"""Foreign load attributed to its job or client
(:mod:`pfsbench.load.attribution`): Lustre job_stats on the samples Lustre's
manual and Whamcloud's collector publish (tests/data/lustre-job-stats/
SOURCES.md), the per-client line format, and the verdict naming who."""

import os

import pytest

from pfsbench.load import attribution as at
from pfsbench.load.contention import CommandFailed

DATA = os.path.join(os.path.dirname(__file__), 'data', 'lustre-job-stats')


def sample(name):
    with open(os.path.join(DATA, name)) as fp:
        return fp.read()


def test_manual_mdt_sample_counts_every_request_per_job():
    jobs = at.parse_job_stats(sample('manual-mdt-procname_uid.txt'))
    assert set(jobs) == {'bash.0', 'mythbackend.0'}
    assert jobs['bash.0'].metadata_ops == 2 + 2 + 3
    assert jobs['mythbackend.0'].metadata_ops == (
        72 + 73 + 22 + 778 + 22 + 19840 + 33190)
    assert jobs['bash.0'].bytes == 0


def test_manual_ost_sample_sums_bytes_over_osts_and_counts_no_ops():
    jobs = at.parse_job_stats(sample('manual-ost-five-osts.txt'))
    assert set(jobs) == {'mythcommflag.0', 'mythbackend.0',
                         'mythfrontend.500', 'mythbackend.500'}
    assert jobs['mythcommflag.0'].bytes == 91530035
    assert jobs['mythbackend.0'].bytes == 96899
    assert jobs['mythfrontend.500'].bytes == 4444160
    assert jobs['mythbackend.500'].bytes == 56231
    # An OST's punch is an object operation, not a namespace one.
    assert all(j.metadata_ops == 0 for j in jobs.values())


def test_mdt_and_ost_output_of_one_command_add_up_per_job():
    text = ('mdt.myth-MDT0000.job_stats=\n' +
            sample('manual-mdt-procname_uid.txt') +
            sample('manual-ost-five-osts.txt'))
    jobs = at.parse_job_stats(text)
    assert jobs['mythbackend.0'].metadata_ops == 53997
    assert jobs['mythbackend.0'].bytes == 96899


def test_pdsh_host_prefixes_are_dropped():
    text = ''.join(f'oss1: {line}\n' for line in
                   sample('manual-ost-five-osts.txt').splitlines())
    jobs = at.parse_job_stats(text, 'pdsh')
    assert jobs['mythcommflag.0'].bytes == 91530035


def test_newer_format_counts_bytes_not_usecs():
    jobs = at.parse_job_stats(sample('collector-ost-cp.txt'))
    assert jobs['cp.0'].bytes == 1073741824
    jobs = at.parse_job_stats(sample('collector-ost-2.15-time-triple.txt'))
    # read/write are latencies (usecs) there: 0 bytes, not their sums.
    assert jobs['lfs.0.'].bytes == 0


@pytest.mark.parametrize('text, says', [
    ('job_stats:\n- job_id: x\n  open: { samples: many, unit: reqs }\n',
     "samples 'many'"),
    ('job_stats:\n- snapshot_time: 1\n  open: { samples: 1, unit: reqs }\n',
     'without job_id'),
    ('hello\n', 'no job_stats section'),
    ('job_stats:\n- job_id: x\n  what is this\n', 'not job_stats output'),
])
def test_bad_job_stats_name_the_command_and_line(text, says):
    with pytest.raises(CommandFailed, match=says) as err:
        at.parse_job_stats(text, 'lctl get_param')
    assert "'lctl get_param'" in str(err.value)


def test_client_lines():
    text = ('source=1 mount=/m/m1 bytes=10 metadata_ops=3\n'
            '# a comment\n'
            'source=4 mount=/m/m2 read_bytes=5 write_bytes=7 '
            'metadata_ops=9\n')
    got = at.parse_client_lines(text, 'cmd')
    assert got['4'].bytes == 12 and got['4'].mount == '/m/m2'
    assert got['1'].metadata_ops == 3


@pytest.mark.parametrize('text, says', [
    ('mount=/m bytes=1\n', 'expected source='),
    ('source=1 bytes=-1\n', "bytes='-1'"),
    ('source=1 bytes=1\nsource=1 bytes=2\n', 'printed twice'),
    ('\n', 'no client line'),
])
def test_bad_client_lines(text, says):
    with pytest.raises(CommandFailed, match=says):
        at.parse_client_lines(text, 'cmd')


def _clients(**ops):
    return {name: at.SourceCounters(source=name, mount=f'/m/{name}',
                                    bytes=b, metadata_ops=o)
            for name, (b, o) in ops.items()}


OWN_M1 = at.Own(mounts=frozenset({'/m/m1'}))


def test_foreign_storm_of_the_cases_size_is_named():
    # The case: the file system's total rose from 80k to 197k.
    before = _clients(m1=(0, 1000), m2=(0, 500))
    after = _clients(m1=(0, 81000), m2=(0, 117500))
    att = at.attribute(before, after, OWN_M1)
    assert (att.own_ops, att.foreign_ops()) == (80000, 117000)
    text = at.verdict(att, 'per-client counters')
    assert text.startswith('per-client counters: foreign metadata: 117k '
                           'operations from 1 other client (m2, mount '
                           '/m/m2) during the case; its own 80k')
    assert 'slack 8000' in text
    assert at.marking_sources(att) == ['m2']


def test_quiet_other_mounts_within_the_slack_mark_nothing():
    before = _clients(m1=(0, 0), m2=(0, 10), m3=(0, 10))
    after = _clients(m1=(256 * 2**20, 800), m2=(4096, 40), m3=(0, 30))
    att = at.attribute(before, after, OWN_M1)
    assert at.verdict(att, 'x') == ''
    assert at.marking_sources(att) == []


def test_foreign_bytes_are_marked_beyond_a_tenth_of_the_cases_own():
    before = _clients(m1=(0, 0), m2=(0, 0))
    after = _clients(m1=(256 * 2**20, 10), m2=(30 * 2**20, 10))
    text = at.verdict(at.attribute(before, after, OWN_M1), 'x')
    assert 'foreign I/O: 30 MiB from 1 other client' in text
    assert 'its own 256 MiB (slack 26 MiB)' in text
    after = _clients(m1=(256 * 2**20, 10), m2=(20 * 2**20, 10))
    assert at.verdict(at.attribute(before, after, OWN_M1), 'x') == ''


def test_a_counter_going_backwards_gives_no_verdict():
    before = _clients(m1=(0, 10), m2=(0, 900))
    after = _clients(m1=(0, 20), m2=(0, 5))
    assert at.attribute(before, after, OWN_M1) is None
    assert at.verdict(None, 'x') == ''


def test_a_new_source_counts_from_zero_and_a_gone_one_not_at_all():
    before = _clients(m1=(0, 0), gone=(0, 5))
    after = _clients(m1=(0, 0), new=(0, 9000))
    att = at.attribute(before, after, OWN_M1)
    assert list(att.foreign) == ['new'] and att.foreign_ops() == 9000


def test_own_jobs_match_the_slurm_id_and_a_jobid_name_scheme():
    own = at.Own(jobs=frozenset({'812'}))
    job = lambda j: at.SourceCounters(source=j, job=j, bytes=0,  # noqa
                                      metadata_ops=0)
    assert own.claims(job('812'))
    assert own.claims(job('812:1000:n1'))
    assert not own.claims(job('8120'))
    assert not own.claims(job('bash.0'))


def test_own_mount_on_another_host_is_foreign():
    own = at.Own(mounts=frozenset({'/lustre'}), hosts=frozenset({'n1'}))
    c = lambda h: at.SourceCounters(source=h, mount='/lustre',  # noqa
                                    host=h, bytes=0, metadata_ops=0)
    assert own.claims(c('n1')) and not own.claims(c('n2'))


def test_job_stats_of_the_cases_job_versus_another_job():
    before = at.parse_job_stats(sample('manual-mdt-procname_uid.txt'))
    after = dict(before)
    after['mythbackend.0'] = at.SourceCounters(
        source='mythbackend.0', job='mythbackend.0', bytes=0,
        metadata_ops=before['mythbackend.0'].metadata_ops + 20000)
    after['bash.0'] = at.SourceCounters(source='bash.0', job='bash.0',
                                        bytes=0, metadata_ops=10007)
    att = at.attribute(before, after, at.Own(jobs=frozenset({'bash'})))
    assert (att.own_ops, att.foreign_ops()) == (10000, 20000)
    assert 'from 1 other job (mythbackend.0)' in at.verdict(att, 'x')


def test_lustre_command_is_built_from_the_servers():
    cmd = at.lustre_job_stats_command('mds[1-2]', 'oss[1-8]')
    assert cmd == ("pdsh -N -w mds[1-2] 'lctl get_param mdt.*.job_stats'; "
                   "pdsh -N -w oss[1-8] 'lctl get_param "
                   "obdfilter.*.job_stats'")


def test_idle_mounts_are_counted_but_not_named():
    before = _clients(m1=(0, 0), m2=(0, 0), m3=(0, 0), m4=(0, 0))
    after = _clients(m1=(512 * 2**20, 70), m2=(513 * 2**20, 50),
                     m3=(10000, 4), m4=(10000, 4))
    att = at.attribute(before, after, OWN_M1)
    text = at.verdict(att, 'x')
    assert ('foreign I/O: 513 MiB from 1 other client (m2, mount /m/m2) '
            'and 2 more with less than 5% of it') in text
    assert at.marking_sources(att) == ['m2']


def test_the_nights_summary_counts_contended_repeats_per_source():
    from pfsbench.gate.judge.baseline import contended_note
    before = _clients(m1=(0, 0), m2=(0, 0), m3=(0, 0))
    storm = at.verdict(at.attribute(before, _clients(
        m1=(0, 80000), m2=(0, 117000), m3=(0, 0)), OWN_M1),
        'per-client counters')
    writes = at.verdict(at.attribute(before, _clients(
        m1=(2**30, 10), m2=(0, 0), m3=(2**30, 10)), OWN_M1),
        'per-client counters')
    assert at.sources_named(storm) == ['m2, mount /m/m2']
    note = contended_note([{'contention': storm}, {'contention': storm},
                           {'contention': writes},
                           {'contention': 'Slurm job(s) 7 running on n1'}])
    assert note.startswith('4 contended samples left out: ')
    assert note.endswith('; by foreign source: m2, mount /m/m2: 2, '
                         'm3, mount /m/m3: 1'), note
