# SPDX-License-Identifier: BSD-3-Clause
"""The samples a verdict compares (pfsbench.gate.judge.samples), through
its public functions on small stand-ins of a session, a night and the
loaded results: each test pins what a site of the module relies on
(docs/mutation.md, gate/judge/samples.py)."""

import math

from pfsbench.gate.judge import samples
from pfsbench.gate.judge.config import GateConfig
from pfsbench.gate.statistics.stats import (OWN_SCALE, Moments, moments,
                                            moments_from_summaries,
                                            night_moments, pooled_scale)

VAR = 'bw'
#: Six repeats, the last wild on the night's own scale.
WILD = [100.0, 100.2, 99.8, 100.1, 99.9, 300.0]


class Session:
    def __init__(self, uuid, time_start, **extras):
        self.uuid, self.time_start, self.extras = uuid, time_start, extras


class Night:
    """A night of the history as pfsbench.gate.history.past.Night reads."""

    def __init__(self, session, found=None, like=(), spread=None):
        self.session, self.found, self.like = session, found, like
        self._spread = spread

    @property
    def mean(self):
        return self.found.mean

    def moments(self, var):
        return self.found if var == VAR else None

    def has(self, var):
        return self.moments(var) is not None

    def spread(self, var):
        return self._spread if var == VAR else None


class Record:
    def __init__(self, perf, iterations):
        self.perf, self.iterations = perf, iterations


# wild_entries ------------------------------------------------------------

def test_wild_entries_list_each_left_out_repeat_from_one():
    found = night_moments(WILD)
    assert found.wild_scale == OWN_SCALE
    [entry] = samples.wild_entries('history', 's1', found)
    z = found.left_out[0][2]
    assert entry == {'night': 'history', 'session': 's1', 'repeat': 6,
                     'value': 300.0, 'robust_z': round(z, 1),
                     'why': f'{z:.1f} times {OWN_SCALE} from its night\'s '
                            'median, on the log scale'}


def test_wild_entries_name_the_scale_or_the_own_one():
    found = Moments(1.0, 0.0, 3, ((0, 9.0, 20.04),), 'the pooled scale')
    assert samples.wild_entries('tonight', 'u', found) == [
        {'night': 'tonight', 'session': 'u', 'repeat': 1, 'value': 9.0,
         'robust_z': 20.0, 'why': '20.0 times the pooled scale from its '
                                  'night\'s median, on the log scale'}]
    bare = Moments(1.0, 0.0, 3, ((2, 9.0, 17.0),))
    assert samples.wild_entries('baseline', 'u', bare)[0]['why'] == \
        f'17.0 times {OWN_SCALE} from its night\'s median, on the log scale'
    assert samples.wild_entries('baseline', 'u', moments([1.0, 2.0])) == []


# night_scale -------------------------------------------------------------

def test_night_scale_pools_the_newest_twenty_spreads_that_exist():
    old = [Night(None, spread=0.5 + i) for i in range(10)]
    newer = [Night(None, spread=0.01 * (i + 1)) for i in range(20)]
    gaps = [Night(None, spread=None), Night(None, spread=float('nan'))] * 3
    past = old + newer[:10] + gaps + newer[10:]
    want = pooled_scale([n._spread for n in newer])
    assert want is not None
    assert samples.night_scale(past, VAR) == want
    assert samples.night_scale(past, 'other') is None


def test_night_scale_reads_only_the_newest_twenty_past_the_gaps():
    # Twenty gaps newest: none counts towards the twenty read.
    old = [Night(None, spread=0.01 * (i + 1)) for i in range(5)]
    gaps = [Night(None, spread=None), Night(None, spread=float('nan'))] * 10
    assert samples.night_scale(old + gaps, VAR) == \
        pooled_scale([n._spread for n in old])
    assert samples.night_scale(old[:4] + gaps, VAR) is None


def test_night_scale_with_more_than_twenty_leaves_the_oldest_out():
    # The oldest nights are broad: read, they would raise the quartile.
    past = [Night(None, spread=5.0) for _ in range(10)] + \
        [Night(None, spread=0.01 * (i + 1)) for i in range(20)]
    assert samples.night_scale(past, VAR) == \
        pooled_scale([0.01 * (i + 1) for i in range(20)])


# iteration_moments -------------------------------------------------------

def _case(pv=None, sd=None):
    perfvars = {'bw_mean': pv if pv is not None else
                {'values': [10.0, 12.0], 'iterations': [3, 5]}}
    if sd is not False:
        perfvars['bw_stddev'] = sd or {'values': [1.0, 2.0]}
    return {'perfvars': perfvars}


def _records(*rows):
    return [Record({'bw_mean': (m, 'MB/s'), 'bw_stddev': (s, 'MB/s')}, n)
            for m, s, n in rows]


def test_iteration_moments_of_both_sides():
    cur = _records((11.0, 0.5, 4), (13.0, 1.5, 2))
    base, now = samples.iteration_moments(_case(), 'bw_mean', cur)
    assert base == moments_from_summaries([10.0, 12.0], [1.0, 2.0], [3, 5])
    assert now == moments_from_summaries([11.0, 13.0], [0.5, 1.5], [4, 2])
    assert (base.n, now.n) == (8, 6)


def test_iteration_moments_none_without_what_they_need():
    cur = _records((11.0, 0.5, 4))
    assert samples.iteration_moments(_case(), 'bw', cur) is None
    assert samples.iteration_moments(_case(sd=False), 'bw_mean', cur) is None
    assert samples.iteration_moments(
        _case(pv={'values': [1.0, 2.0]}), 'bw_mean', cur) is None
    assert samples.iteration_moments(
        _case(sd={'values': [1.0]}), 'bw_mean', cur) is None
    assert samples.iteration_moments(_case(), 'bw_mean', []) is None
    # Every current record needs both figures and the count.
    half = cur + [Record({'bw_mean': (1.0, 'MB/s')}, 3)]
    assert samples.iteration_moments(_case(), 'bw_mean', half) is None
    other = cur + [Record({'bw_stddev': (1.0, 'MB/s')}, 3)]
    assert samples.iteration_moments(_case(), 'bw_mean', other) is None
    for bad in [(None, 0.5, 4), (11.0, None, 4), (11.0, 0.5, None)]:
        assert samples.iteration_moments(
            _case(), 'bw_mean', cur + _records(bad)) is None
    assert samples.iteration_moments(_case(), 'bw_mean', cur) is not None


# session_means -----------------------------------------------------------

def test_session_means_in_session_order():
    pv = {'values': [1.0, 2.0, 3.0, 4.0, 6.0],
          'session_index': [1, 0, 1, 0, 2]}
    assert samples.session_means(pv) == [3.0, 2.0, 6.0]


# select_current ----------------------------------------------------------

class Results:
    def __init__(self, sessions, cases):
        self.sessions = {u: Session(u, t) for u, t in sessions.items()}
        self._cases = cases

    def case_records(self, uuid):
        return self._cases[uuid]


def test_select_current_takes_each_cases_latest_session():
    # uuids sort against time: the order is the sessions' start.
    results = Results({'c': 1.0, 'b': 2.0, 'a': 3.0},
                      {'c': {'A': ('r1',), 'B': ('r2',)},
                       'b': {'A': ('r3', 'r4'), 'C': ('r5',)},
                       'a': {'B': ('r6',), 'D': ('r7',)}})
    got = samples.select_current(results, ['a', 'b', 'c', 'a'],
                                 {'A', 'B', 'C'})
    assert got == {'A': ('b', ['r3', 'r4']), 'B': ('a', ['r6']),
                   'C': ('b', ['r5'])}
    assert isinstance(got['A'][1], list)
    assert samples.select_current(results, ['c'], {'A'}) == \
        {'A': ('c', ['r1'])}


# like_for_like -----------------------------------------------------------

def test_like_for_like_keeps_the_newest_nights_run_alike():
    tonight = Session('t', 10.0, fs='lustre', ver=2)
    like = (('job_nodelist', 'n1'), ('target_path', '/a'))
    other = (('job_nodelist', 'n2'), ('target_path', '/a'))
    nights = [Night(Session('0', 0.0, fs='lustre', ver='2'), like=like),
              Night(Session('1', 1.0, fs='lustre', ver='2'), like=other),
              Night(Session('2', 2.0, fs='gpfs', ver='2'), like=like),
              Night(Session('3', 3.0, fs='lustre', ver='2'), like=like),
              Night(Session('4', 4.0, fs='lustre', ver=2.0), like=like),
              Night(Session('5', 5.0, fs='lustre', ver=2), like=like)]
    names = ('job_nodelist', 'fs', 'ver')

    def uuids(limit, names=names):
        return [n.session.uuid for n in samples.like_for_like(
            nights, tonight, like, names, limit)]

    # Tonight's extra 2 reads as '2', as a night's '2' does (not '2.0').
    assert uuids(10) == ['0', '3', '5']
    assert uuids(2) == ['3', '5']
    assert uuids(0) == []
    assert uuids(10, ('job_nodelist',)) == ['0', '2', '3', '4', '5']
    assert uuids(10, ('target_path', 'fs')) == ['0', '1', '3', '4', '5']


def test_like_for_like_a_tag_neither_has_matches():
    tonight = Session('t', 10.0)
    nights = [Night(Session('0', 0.0), like=(('x', '1'),)),
              Night(Session('1', 1.0, y='1'), like=(('x', '1'),)),
              Night(Session('2', 2.0), like=(('x', '2'),))]
    got = samples.like_for_like(nights, tonight, (('x', '1'),), ('x', 'y'),
                                5)
    assert [n.session.uuid for n in got] == ['0']
    # A tag tonight's case lacks is read from tonight's extras.
    tonight = Session('t', 10.0, x='2')
    got = samples.like_for_like(nights, tonight, (), ('x',), 5)
    assert [n.session.uuid for n in got] == ['2']


# lookback_nights ---------------------------------------------------------

DAY = 86400.0
BASE = {'sessions': [{'uuid': 'b0', 'time_start': 0.0},
                     {'uuid': 'b1', 'time_start': DAY}]}
PERFVAR = {'values': [100.0, 101.0, 99.0, 102.0, 98.0, 100.0],
           'session_index': [0, 1, 0, 1, 0, 1]}


def _history(means, start=2, extras=None, found=None):
    """Nights of three repeats around ``means``, one a day from ``start``."""
    out = []
    for i, m in enumerate(means):
        day = start + i
        session = Session(f'h{day}', day * DAY, **(extras or {}).get(day, {}))
        out.append(Night(session, found or moments([m - 1.0, m, m + 1.0])))
    return out


def _lookback(past, tonight=None, config=None, baseline=BASE,
              perfvar=PERFVAR, min_change=0.05, scale=None):
    return samples.lookback_nights(
        past, tonight or Session('t', 100 * DAY), baseline, perfvar, VAR,
        config or GateConfig(), min_change, scale)


def test_lookback_level_is_the_baselines_nights_and_history_up_to_it():
    past = [Night(Session('x', -DAY), moments([90.0, 91.0])),
            Night(Session('b1', DAY), moments([100.0, 101.0]))] + \
        _history([100.0, 101.0])
    level, segments, note, wild = _lookback(past)
    assert note == '' and wild == []
    assert level == [moments([100.0, 99.0, 98.0]),
                     moments([101.0, 102.0, 100.0]), moments([90.0, 91.0])]
    assert segments == [[n.found for n in past]]
    # With no history the level is the baseline's nights alone.
    assert _lookback([]) == ([moments([100.0, 99.0, 98.0]),
                              moments([101.0, 102.0, 100.0])], [], '', [])


def test_lookback_skips_nights_without_the_variable():
    past = _history([100.0, 101.0])
    past.insert(1, Night(Session('none', 2.5 * DAY)))
    _, segments, _, _ = _lookback(past)
    assert segments == [[past[0].found, past[2].found]]


def test_lookback_level_recent_is_every_like_night():
    past = _history([100.0, 101.0, 102.0])
    level, segments, note, _ = _lookback(
        past, config=GateConfig(lookback_level='recent'))
    assert level == [n.found for n in past] and note == ''
    assert segments == [level]


def test_lookback_an_intended_change_restarts_the_level():
    marker = {4: {'intended_change': 'v2'}, 5: {'intended_change': 'v2'}}
    past = _history([100.0, 101.0, 80.0, 81.0, 82.0], extras=marker)
    level, segments, note, _ = _lookback(past)
    assert level == [n.found for n in past[2:]] and note == ''
    # The marker counts once where its value changes.
    assert segments == [[n.found for n in past[:2]],
                        [n.found for n in past[2:]]]
    # A marker before the baseline's newest night keeps the baseline level
    # and takes the history from it.
    early = {1: {'intended_change': 'v2'}}
    past = _history([100.0, 101.0, 102.0], start=1, extras=early)
    level, segments, _, _ = _lookback(past)
    assert level == [moments([100.0, 99.0, 98.0]),
                     moments([101.0, 102.0, 100.0]), past[0].found]
    assert segments == [[n.found for n in past]]


def test_lookback_tonight_marked_starts_a_new_level():
    past = _history([100.0, 101.0])
    tonight = Session('t', 100 * DAY, intended_change='v3')
    level, segments, note, wild = _lookback(past, tonight)
    assert level == [] and wild == []
    assert segments == [[n.found for n in past]]
    assert note == ('tonight is marked as an intended change '
                    '(intended_change=v3): it starts a new level')
    # The same value as the newest night's is no new change.
    marked = _history([100.0, 101.0], extras={3: {'intended_change': 'v3'}})
    level, _, note, _ = _lookback(marked, tonight)
    assert note == '' and level == [n.found for n in marked[1:]]
    # An empty marker is none.
    level, _, note, _ = _lookback(past, Session('t', 1e9, intended_change=''))
    assert note == '' and len(level) == 2


def test_lookback_a_step_after_the_baseline_splits_the_noise_only():
    means = [100.0] * 4 + [150.0] * 4
    past = _history(means)
    level, segments, _, _ = _lookback(past)
    assert segments == [[n.found for n in past[:4]],
                        [n.found for n in past[4:]]]
    assert len(level) == 2
    # Not before the baseline's newest night: there the history is whole.
    late = {'sessions': [{'uuid': 'b0', 'time_start': 0.0},
                         {'uuid': 'b1', 'time_start': 6 * DAY}]}
    level, segments, _, _ = _lookback(past, baseline=late)
    assert segments == [[n.found for n in past]]
    assert level[2:] == [n.found for n in past[:5]]
    # A step smaller than min_change splits nothing.
    _, segments, _, _ = _lookback(past, min_change=0.6)
    assert len(segments) == 1


def test_lookback_a_short_or_not_positive_history_has_no_step():
    # Two segments need 2 x min_segment nights, every mean positive.
    past = _history([100.0] * 3 + [150.0] * 2)
    assert len(_lookback(past)[1]) == 1
    past = _history([100.0] * 3 + [150.0] * 3)
    assert len(_lookback(past)[1]) == 2
    past[0] = Night(past[0].session, Moments(0.0, 1.0, 3))
    assert len(_lookback(past)[1]) == 1
    cfg = GateConfig(changepoint_min_segment=4)
    assert len(_lookback(_history([100.0] * 3 + [150.0] * 3),
                         config=cfg)[1]) == 1
    cfg = GateConfig(changepoint_threshold=1e9)
    assert len(_lookback(_history([100.0] * 4 + [150.0] * 4),
                         config=cfg)[1]) == 1


def test_lookback_lists_wild_repeats_once_each():
    wild = night_moments(WILD)
    past = [Night(Session('b1', DAY), wild)] + \
        _history([100.0], found=wild)
    perfvar = {'values': WILD + [100.0, 101.0], 'session_index':
               [0] * 6 + [1, 1]}
    level, _, _, entries = _lookback(past, perfvar=perfvar)
    assert [(e['night'], e['session'], e['repeat']) for e in entries] == \
        [('history', 'h2', 6), ('baseline', 'b0', 6)]
    assert level[0] == wild
    # A session index the baseline lacks names the index.
    odd = dict(perfvar, session_index=[5] * 6 + [1, 1])
    entries = _lookback([], perfvar=odd)[3]
    assert [e['session'] for e in entries] == [5]
    odd = dict(perfvar, session_index=[-1] * 6 + [1, 1])
    assert [e['session'] for e in _lookback([], perfvar=odd)[3]] == [-1]
    # With level recent, every history night's wild repeats are listed.
    cfg = GateConfig(lookback_level='recent')
    entries = _lookback(past, config=cfg, perfvar=perfvar)[3]
    assert [e['session'] for e in entries] == ['b1', 'h2']


def test_lookback_a_baselines_short_night_uses_the_scale():
    perfvar = {'values': [100.0, 100.1, 300.0, 100.0], 'session_index':
               [0, 0, 0, 1]}
    level = _lookback([], perfvar=perfvar, scale=0.001)[0]
    assert level[0] == night_moments([100.0, 100.1, 300.0], 0.001)
    assert level[0].n == 2
    assert _lookback([], perfvar=perfvar)[0][0].n == 3


# recent_nights -----------------------------------------------------------

def _recent(past, tonight=None, config=None, disturbed=()):
    return samples.recent_nights(past, tonight or Session('t', 100 * DAY),
                                 BASE, VAR, config or GateConfig(),
                                 disturbed)


def test_recent_nights_since_the_baseline_before_tonight():
    past = [Night(Session('b1', 0.5 * DAY), moments([1.0]))] + \
        _history([100.0], start=0) + _history([101.0 + i for i in range(8)])
    past.append(Night(Session('late', 100 * DAY), moments([5.0])))
    past.insert(3, Night(Session('gone', 3.5 * DAY)))
    got = _recent(past)
    assert got == [(n.session.time_start, n.found) for n in past[5:11]]
    assert len(got) == 6
    cfg = GateConfig(lookback_pooled_nights=3)
    assert _recent(past, config=cfg) == \
        [(n.session.time_start, n.found) for n in past[9:11]]
    assert _recent(past, disturbed={'h9'}) == \
        [(n.session.time_start, n.found) for n in past[4:11]
         if n.session.uuid != 'h9']
    # Before tonight only: a night at tonight's start is not before it.
    assert _recent(past, Session('t', 9 * DAY)) == \
        [(n.session.time_start, n.found) for n in past[4:10]]


def test_recent_nights_none_where_the_level_moves():
    past = _history([100.0, 101.0, 102.0])
    assert len(_recent(past)) == 3
    assert _recent(past, config=GateConfig(lookback_level='recent')) == []
    assert _recent(past, config=GateConfig(lookback_pooled='off')) == []
    cfg = GateConfig(lookback_pooled_nights=1)
    assert _recent(past, config=cfg) == []
    assert len(_recent(past, config=GateConfig(
        lookback_pooled_nights=2))) == 1
    tonight = Session('t', 100 * DAY, intended_change='v2')
    assert _recent(past, tonight) == []
    # Tonight repeating the newest night's marker is no new change; a
    # marker since the baseline restarts the level.
    marked = _history([100.0, 101.0, 102.0],
                      extras={4: {'intended_change': 'v2'}})
    assert _recent(marked, tonight) == []
    assert _recent(marked) == []
    early = _history([100.0, 101.0, 102.0], start=1,
                     extras={1: {'intended_change': 'v2'}})
    assert len(_recent(early)) == 2
    assert _recent(early, tonight) == []
    kept = {d: {'intended_change': 'v2'} for d in (1, 2, 3)}
    early = _history([100.0, 101.0, 102.0], start=1, extras=kept)
    assert len(_recent(early, tonight)) == 2
    assert math.isfinite(_recent(early)[0][1].mean)


def test_wild_entries_round_the_robust_z_to_a_tenth():
    found = Moments(1.0, 0.0, 3, ((1, 9.0, 17.26),), 'x')
    [entry] = samples.wild_entries('tonight', 'u', found)
    assert entry['robust_z'] == 17.3 and entry['repeat'] == 2


def test_like_for_like_a_missing_extra_is_not_the_text_none():
    tonight = Session('t', 10.0)
    nights = [Night(Session('0', 0.0, fs='None')), Night(Session('1', 1.0))]
    got = samples.like_for_like(nights, tonight, (), ('fs',), 5)
    assert [n.session.uuid for n in got] == ['1']


def test_a_marked_tonight_without_history():
    tonight = Session('t', 100 * DAY, intended_change='v2')
    level, segments, note, _ = _lookback([], tonight)
    assert level == [] and segments == []
    assert note.startswith('tonight is marked as an intended change')
    assert _recent([], tonight) == []


def test_tonight_marked_as_the_newest_night_is_no_new_change():
    # The newest night's marker, not the second's or the second newest.
    kept = {4: {'intended_change': 'v3'}}
    past = _history([100.0, 101.0, 102.0], extras=kept)
    tonight = Session('t', 100 * DAY, intended_change='v3')
    level, _, note, _ = _lookback(past, tonight)
    assert note == '' and level == [past[2].found]
    # The second newest night's marker is not the newest's.
    past = _history([100.0, 101.0, 102.0], start=0,
                    extras={1: {'intended_change': 'v3'}})
    assert _recent(past, tonight) == []


def test_a_baseline_index_one_past_its_sessions_names_the_index():
    perfvar = {'values': WILD + [100.0, 101.0], 'session_index':
               [2] * 6 + [1, 1]}
    assert [e['session'] for e in _lookback([], perfvar=perfvar)[3]] == [2]


def test_lookback_steps_in_means_below_one():
    past = _history([0.5] * 4 + [0.8] * 4)
    for night, m in zip(past, [0.5] * 4 + [0.8] * 4):
        night.found = moments([m * 0.99, m, m * 1.01])
    assert len(_lookback(past)[1]) == 2


def test_lookback_steps_by_the_gates_min_segment():
    means = [100.0] * 3 + [150.0] * 5
    past = _history(means)
    _, segments, _, _ = _lookback(past)
    assert [len(s) for s in segments] == [3, 5]
    cfg = GateConfig(changepoint_min_segment=4)
    _, segments, _, _ = _lookback(past, config=cfg)
    assert [len(s) for s in segments] != [3, 5]
