# SPDX-License-Identifier: BSD-3-Clause
"""The store's codec (pfsbench.store.codec) through dumps and loads: the
mutants bench/mutation.py found the store's tests letting through
(docs/mutation.md).  Pure and fast."""

import array
import json

import pytest

from pfsbench.gate.history.keys import CaseKey, Session
from pfsbench.gate.history.series import CaseColumns, Series
from pfsbench.store import codec

SESSION = Session(uuid='u1', time_start=1.5, time_end=2.5,
                  reframe_version='4.10.4', data_version='4.2',
                  hostname='vm', cmdline='reframe -r', num_cases=2,
                  num_failures=1, num_aborted=0, num_skipped=3,
                  extras={'fs': 'é'}, source='r.json')
KEY = CaseKey('dd', 'local', 'default', 'builtin')


def test_every_kept_type_round_trips_as_itself():
    columns = CaseColumns(pos=array.array('i', [0, 7]),
                          configs=[{'a': (1, 2)}],
                          columns={'bw': (array.array('d', [1.5, -2.0]),)})
    value = {KEY: (1, [2.5, None, True], 'x'), 3: {'nested': (KEY,)},
             'session': SESSION, 'columns': columns}
    got = codec.loads(codec.dumps(value))
    assert got == value
    assert type(got[KEY]) is tuple and type(got[KEY][1]) is list
    assert got['columns'].pos.typecode == 'i'
    assert got['columns'].columns['bw'][0].typecode == 'd'
    assert list(got) == [KEY, 3, 'session', 'columns']     # order kept


def test_a_series_round_trips():
    series = Series()
    series.uuids, series.sessions = ['u1'], {'u1': SESSION}
    series.cases = {KEY: CaseColumns(pos=array.array('i', [0]))}
    got = codec.loads(codec.dumps(series))
    assert isinstance(got, Series)
    assert (got.uuids, got.sessions, got.cases) == (
        series.uuids, series.sessions, series.cases)


def test_dumps_is_compact_json_of_tagged_objects():
    assert codec.dumps((1, 'a')) == '{"\\u0000t":[1,"a"]}'
    assert codec.dumps({'k': [None, 1.5]}) == \
        '{"\\u0000d":[["k",[null,1.5]]]}'
    assert json.loads(codec.dumps(array.array('d', [1.0])))['\0a'] == [
        'd', 'AAAAAAAA8D8=']
    assert json.loads(codec.dumps(KEY)) == {
        '\0K': ['dd', 'local', 'default', 'builtin']}


def test_a_type_it_does_not_keep_is_named():
    with pytest.raises(TypeError) as err:
        codec.dumps({'x': {1, 2}})
    assert str(err.value) == 'the store does not keep set'


@pytest.mark.parametrize('text, why', [
    ('{"a": 1}', "unknown tag 'a'"),
    ('{}', 'an untagged object'),
    ('{"\\u0000t": [], "\\u0000d": []}', 'an untagged object'),
    ('{"\\u0000q": [1]}', "unknown tag '\\x00q'"),
    ('{"\\u0000a": ["b", ""]}', "array of type 'b'"),
    ('{"\\u0000a": ["d", "not base64!"]}', None),
    ('{"\\u0000a": ["d", "AAAA!AAAA8D8="]}', None),     # 1.0 but for '!'
    ('{"\\u0000a": ["d"]}', None),
    ('{"\\u0000K": ["too", "few"]}', None),
    ('{"\\u0000S": {"uuid": "u"}}', None),
    ('{"\\u0000Z": {"uuids": []}}', None),
    ('not json', None),
])
def test_what_does_not_decode_is_damaged(text, why):
    with pytest.raises(codec.Damaged) as err:
        codec.loads(text)
    assert isinstance(err.value, ValueError)
    if why is not None:
        assert str(err.value) == why
