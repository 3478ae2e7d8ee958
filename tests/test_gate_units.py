# SPDX-License-Identifier: BSD-3-Clause
"""Every figure a check can log has a direction the gate knows from its
unit (higher or lower is better): a unit the gate does not know stops the
whole gate (exit 2, "unknown unit: set direction"). Found in CI's MooseFS
run: bonnie++ timed its seeks (29515 /s; on a quicker night it prints
``+++++`` and logs none) and the gate refused ``/s``.
"""

import importlib.util
import json
import sys

import pytest

import synth
from conftest import REPO
from pfsbench import cli
from pfsbench.checks import streams as streams_check
from pfsbench.core.errors import ParseError
from pfsbench.gate.judge.config import direction_of_unit
from pfsbench.parsers import bonnie, dd, fio, iozone
from recorded import outputs

STREAM_TOOLS = {'bonnie++': bonnie, 'dd': dd, 'fio': fio, 'iozone': iozone}


def _check_classes():
    """Every class of every file under reframe-checks/ with performance
    functions (imported as ReFrame's loader does, one module each)."""
    for path in sorted((REPO / 'reframe-checks').rglob('*.py')):
        name = f'pfsbench_units_{path.parent.name}_{path.stem}'
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        for obj in vars(module).values():
            if isinstance(obj, type) and getattr(obj, '_rfm_perf_fns', None):
                yield obj


def test_every_declared_figure_of_every_check_has_a_direction():
    units = {}
    for cls in _check_classes():
        for name, fn in cls._rfm_perf_fns.items():
            # Deferred: calling it builds the expression, never the value.
            units.setdefault(fn(None).unit, f'{cls.__name__}.{name}')
    assert len(units) >= 5, units
    unknown = {u: where for u, where in units.items()
               if direction_of_unit(u) is None}
    assert not unknown, unknown


@pytest.mark.parametrize('tool', sorted(STREAM_TOOLS))
def test_every_measure_of_a_real_output_has_a_direction(tool):
    parser = STREAM_TOOLS[tool]
    ok, _ = outputs(tool, at_least=1)
    seen = set()
    for path in ok:
        try:
            measures = parser.stream_measures(path.read_text(), path.name,
                                              'write')
        except ParseError:
            continue    # several runs in one output: not one stream's
        seen.update(m.unit for m in measures)
    assert seen, f'no {tool} output gave one stream\'s measures'
    # The streams' own figures: their spreads (%) and start skew (s).
    seen.update(unit for group in streams_check.FIGURE_GROUPS
                for _, _, unit in group if unit)
    seen.add('s')
    assert {u: direction_of_unit(u) for u in seen} == {
        u: ('lower' if u in ('%', 's') else 'higher') for u in seen}


CASE = 'bonnie_per_node %nodes=2'


def _bonnie_night(day, seeks, untimed_on=(), other=None):
    """One night of 3 repeats of the two-node bonnie++ case: seeks timed
    at ``seeks`` /s (1 % apart), or untimed (None) and named so on the
    repeats in ``untimed_on``; ``other``: the other figures."""
    uuid = f'{day:08d}-0000-4000-8000-000000000000'
    cases = []
    for r in range(3):
        perf = dict(other or {'start_skew': (0.0004, 's')})
        if seeks is not None:
            perf['seeks_bw_sum'] = (seeks * (1 + r / 100), '/s')
        cases.append(synth.make_testcase(
            uuid, 0, r, CASE, perf, repeat=r, time=day * 86400.0 + r,
            loggable={'untimed_figures': 'seeks_bw_sum seeks_bw_'
                      'conservative' if r in untimed_on else ''}))
    return synth.make_report(cases, time_start=day * 86400.0,
                             session_uuid=uuid)


def _gate_tonight(tmp_path, capsys, nights, *argv):
    """Baseline 'b' from the first night, then the gate on the last:
    its exit code and output."""
    tmp_path.mkdir(exist_ok=True)
    db = tmp_path / 'results.db'
    synth.write_database(str(db), nights)
    assert cli.main(['baseline', 'record', 'b', '--db', str(db), '--session',
                     nights[0]['session_info']['uuid']]) == 0
    capsys.readouterr()
    code = cli.main(['gate', '-b', 'b', '--db', str(db), *argv])
    out, err = capsys.readouterr()
    return code, out + err


def test_bonnie_seeks_per_second_are_judged_higher_is_better(tmp_path,
                                                              capsys,
                                                              monkeypatch):
    # The CI night's figures, then a night whose seeks fell by half.
    monkeypatch.setattr(cli.entry, 'VERBS', ['baseline', 'gate'])
    block = {'block_write_bw_sum': (110.4, 'MB/s')}
    code, out = _gate_tonight(tmp_path, capsys, [
        _bonnie_night(0, 29515.0, other=block),
        _bonnie_night(1, 14000.0, other=block)])
    # Was: exit 2, "'/s': unknown unit: set direction".
    assert code == 1, out
    assert 'regression: ' + CASE in out and 'seeks_bw_sum' in out, out


@pytest.mark.parametrize('untimed_on,code,verdict', [
    ((0, 1, 2), 0, 'PASS'), ((0, 1), 3, 'MISSING DATA'), ((), 3,
                                                          'MISSING DATA')],
    ids=['every-repeat', 'two-of-three', 'not-said'])
def test_a_figure_too_fast_to_time_passes_where_every_repeat_says_so(
        tmp_path, capsys, monkeypatch, untimed_on, code, verdict):
    # bonnie++ timed its seeks on the baseline's night (CI: 29515 /s) and
    # printed +++++ tonight: the check logs no figure and names it in
    # untimed_figures. Was: MISSING DATA, "variable seeks_bw_sum not
    # reported", exit 3, on the nights the file system was quickest.
    monkeypatch.setattr(cli.entry, 'VERBS', ['baseline', 'gate'])
    nights = [_bonnie_night(0, 29515.0), _bonnie_night(1, None, untimed_on)]
    got, out = _gate_tonight(tmp_path, capsys, nights)
    assert got == code, out
    assert out.startswith(f'pfsbench gate: {verdict}'), out
    if code == 0:
        row = next(line for line in out.splitlines()
                   if 'seeks_bw_sum' in line)
        assert row.split()[0] == 'pass' and 'too fast to time' in row, out
    else:
        assert 'variable seeks_bw_sum not reported' in out, out
    got, out = _gate_tonight(tmp_path / 'json', capsys, nights,
                             '--format', 'json')
    assert got == code, out
    rows = json.loads(out)['results']
    seeks = [r for r in rows if r['var'] == 'seeks_bw_sum']
    assert [r.get('untimed') for r in seeks] == ([True] if code == 0
                                                 else [])


def test_a_month_with_untimed_nights_between_timed_ones(tmp_path, capsys,
                                                        monkeypatch):
    # A site's month: seeks timed most nights (about 29,500 /s, 2 % apart
    # from night to night), +++++ on every repeat of nights 9 and 12.
    # The untimed nights pass; the timed nights after them are judged by
    # the lookback rule over the timed history, and a halving on the last
    # night is still found.
    monkeypatch.setattr(cli.entry, 'VERBS', ['baseline', 'gate'])
    levels = [29515.0 * (1 + 0.02 * ((d * 7) % 5 - 2) / 2)
              for d in range(15)]
    untimed_nights = (9, 12)
    nights = [_bonnie_night(d, None if d in untimed_nights else levels[d],
                            (0, 1, 2) if d in untimed_nights else ())
              for d in range(15)]
    for tonight in (9, 11, 12, 14):
        got, out = _gate_tonight(tmp_path / str(tonight), capsys,
                                 nights[:tonight + 1], '--format', 'json')
        assert got == 0, (tonight, out)
        (row,) = [r for r in json.loads(out)['results']
                  if r['var'] == 'seeks_bw_sum']
        assert row['verdict'] == 'pass', (tonight, row['reason'])
        assert row.get('untimed', False) == (tonight in untimed_nights), \
            (tonight, row['reason'])
        if tonight not in untimed_nights:
            # Judged against the timed nights (the history's, not the
            # baseline's one night alone).
            assert row['change'] is not None and row.get('lookback'), row
    halved = nights[:14] + [_bonnie_night(14, levels[14] / 2)]
    got, out = _gate_tonight(tmp_path / 'halved', capsys, halved)
    assert got == 1 and 'regression: ' + CASE in out, out
