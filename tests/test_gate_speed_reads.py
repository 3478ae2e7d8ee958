# SPDX-License-Identifier: BSD-3-Clause
"""The gate's reads made cheaper keep what they read: the contended flags
of a store's sessions by one query (the same cases as their records say,
without loading them), and a baseline's schema check spared only for the
very bytes that passed it (docs/gate-evidence.md, "Speed: a year of
nightlies")."""

import json

import pytest

from pfsbench import store
from pfsbench.core.errors import ConfigError
from pfsbench.gate.history import provenance
from pfsbench.gate.history.past import _tags_of
from pfsbench.gate.history.results import Results, records_of_report
from pfsbench.gate.judge import baseline
from pfsbench.gate.judge.record import disturbed_nights
from pfsbench.schemas import validation
import synth

DAY = 86400.0
CASES = ('dd_a', 'dd_b', 'dd_c')


def _night(day, contended):
    """Three cases x 3 repeats; ``contended``: ``{(case, repeat)}``."""
    uuid = f'{day:08d}-0000-4000-8000-000000000000'
    cases = [synth.make_testcase(
        uuid, 0, 3 * c + r, name, {'write_bw': (400.0 + r, 'MB/s')},
        repeat=r, time=day * DAY + r, nodelist=(f'n{(day + r) % 4}',),
        loggable={'contended': (name, r) in contended,
                  'contention': 'busy' if (name, r) in contended else ''})
        for c, name in enumerate(CASES) for r in range(3)]
    return synth.make_report(cases, time_start=day * DAY, session_uuid=uuid)


NIGHTS = [_night(0, set()), _night(1, {('dd_a', 1)}),
          _night(2, {('dd_b', 0), ('dd_b', 2), ('dd_c', 1)}),
          _night(3, set())]


def _store(tmp_path):
    url = str(tmp_path / 'pfsbench-store.sqlite')
    with store.open_store(url) as conn:
        for i, report in enumerate(NIGHTS):
            store.ingest_report(conn, report, f'r{i}.json')
    return url


def test_contended_cases_by_query_are_the_records_flags(tmp_path):
    url = _store(tmp_path)
    with store.open_store(url) as conn:
        queried = store.read_results(conn, 'local')
        loaded = store.read_results(conn, 'local')
    uuids = list(queried.sessions)
    assert len(uuids) == 4
    want = {u: {r.key for r in loaded.by_session(u) if r.contended}
            for u in uuids}
    assert sum(map(len, want.values())) == 3      # dd_a; dd_b and dd_c
    for uuid in uuids:
        assert queried.contended_cases(uuid) == want[uuid]
        assert loaded.contended_cases(uuid) == want[uuid]
    # The query read the flags, not the records, nor the cases' nodes
    # and tags.
    assert not queried._loaded and queried._records is None
    assert not any(isinstance(found, dict)
                   for found in queried._summaries.values())

    class Night:
        def __init__(self, uuid):
            self.session = queried.sessions[uuid]

    nights = [Night(u) for u in uuids]
    for key in {r.key for r in loaded.records}:
        assert disturbed_nights(queried, key, nights) == \
            disturbed_nights(loaded, key, nights) == \
            {u for u in uuids if key in want[u]}


def test_tags_by_query_are_the_records_tags(tmp_path):
    url = _store(tmp_path)
    with store.open_store(url) as conn:
        queried = store.read_results(conn, 'local')
        loaded = store.read_results(conn, 'local')
    keys = {r.key for r in loaded.records}
    assert len(keys) == 3 and len(queried.sessions) == 4
    for uuid in queried.sessions:
        for key in keys:
            nodes, tags = provenance.case_tags_of(
                loaded.case_records(uuid)[key])
            assert len(nodes) == 3
            summary = queried.case_summary(uuid)[key]
            assert (summary.nodes, summary.tags) == (nodes, tags)
            assert _tags_of(queried, uuid, key) == _tags_of(loaded, uuid,
                                                            key)
    assert not queried._loaded


def test_contended_cases_of_reports_read_from_their_records():
    results = Results('reports')
    for i, report in enumerate(NIGHTS):
        results.add_session(*records_of_report(report, f'r{i}.json'))
    uuid = NIGHTS[2]['session_info']['uuid']
    assert {k.name for k in results.contended_cases(uuid)} == {'dd_b',
                                                               'dd_c'}


def _saved(tmp_path):
    results = Results('reports')
    for i, report in enumerate(NIGHTS[:2]):
        results.add_session(*records_of_report(report, f'r{i}.json'))
    made = baseline.build(results, list(results.sessions), 'b')
    return baseline.save(made, str(tmp_path))


def test_a_baseline_passes_its_schema_once_per_content(tmp_path, monkeypatch):
    path = _saved(tmp_path)
    checks = []
    real = validation.check
    monkeypatch.setattr(validation, 'check',
                        lambda *a, **k: checks.append(a[2]) or real(*a, **k))
    first = baseline.load(str(tmp_path), 'b')
    assert checks == [path]
    assert baseline.load(str(tmp_path), 'b') == first
    assert checks == [path]                     # the same bytes: spared
    # Another validator (or schema) checks the same bytes again.
    monkeypatch.setattr(validation, 'fingerprint', lambda: 'another')
    baseline.load(str(tmp_path), 'b')
    assert checks == [path, path]
    assert baseline.list_names(str(tmp_path)) == ['b']


def test_a_changed_baseline_is_still_refused(tmp_path):
    path = _saved(tmp_path)
    baseline.load(str(tmp_path), 'b')           # leaves its mark
    with open(path) as fp:
        data = json.load(fp)
    data['cases'][0]['name'] = 42
    with open(path, 'w') as fp:
        json.dump(data, fp, indent=1)
    with pytest.raises(ConfigError, match=r'cases\.0\.name'):
        baseline.load(str(tmp_path), 'b')
    baseline.delete(str(tmp_path), 'b')
    assert not list(tmp_path.iterdir())         # its mark went with it


def test_an_unwritable_mark_checks_each_time(tmp_path, monkeypatch):
    path = _saved(tmp_path)
    (tmp_path / '.b.checked').mkdir()           # no file can be written
    checks = []
    real = validation.check
    monkeypatch.setattr(validation, 'check',
                        lambda *a, **k: checks.append(a[2]) or real(*a, **k))
    baseline.load(str(tmp_path), 'b')
    baseline.load(str(tmp_path), 'b')
    assert checks == [path, path]
    # Nothing of the failed mark stays beside the baseline.
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith('.tmp')]


def test_repeats_that_say_the_same_are_read_once_and_summed_up_alike(
        tmp_path):
    # Every repeat on one node; one repeat of dd_b contended: its row
    # differs from its siblings', the others collapse to one a case.
    uuid = f'{9:08d}-0000-4000-8000-000000000000'
    cases = [synth.make_testcase(
        uuid, 0, 3 * c + r, name, {'write_bw': (400.0 + r, 'MB/s')},
        repeat=r, time=9 * DAY + r, nodelist=('n1',),
        loggable={'contended': (name, r) == ('dd_b', 1),
                  'contention': 'busy' if (name, r) == ('dd_b', 1) else ''})
        for c, name in enumerate(CASES) for r in range(3)]
    url = str(tmp_path / 'pfsbench-store.sqlite')
    with store.open_store(url) as conn:
        store.ingest_report(conn, synth.make_report(
            cases, time_start=9 * DAY, session_uuid=uuid), 'r.json')
        queried = store.read_results(conn, 'local')
        loaded = store.read_results(conn, 'local')
    rows = queried._summaries[uuid]()
    assert len(loaded.by_session(uuid)) == 9 and len(rows) == 4
    summary = queried.case_summary(uuid)
    assert summary == loaded.case_summary(uuid)
    assert len(summary) == 3
    assert {k.name for k, s in summary.items() if s.contended} == {'dd_b'}
    assert all(s.nodes == frozenset({'n1'}) for s in summary.values())
