# SPDX-License-Identifier: BSD-3-Clause
"""The nightly's own shape of a lasting loss (docs/gate-evidence.md,
"A lasting loss at 14 % night noise"): dd reads and writes on a target
whose cap moves night to night (about 14 % night noise, both phases
together), 8 level nights, then the cap 30 % lower.  The gate pages by
the loss's 4th night, with the repeats' spread of both phases judged the
same night (diagnostics: they never page and spend none of the budget);
an unchanged night after the level does not page."""

import contextlib
import io
import json
import math
import random
import re

import pytest

import synth
from pfsbench import cli

CASE = 'dd_stream_per_node %nodes=1'
DAY = 86400.0


def _night(rng, uuid_index, level, repeats, spread):
    """One session: ``repeats`` repeats of the case at ``level`` MB/s
    (2 % within the night), with the phases' repeat spread (%)."""
    session_uuid = f'00000000-0000-4000-8000-{uuid_index:012d}'
    cases = []
    for rep in range(repeats):
        perf = {}
        for phase in ('read', 'write'):
            perf[f'{phase}_bw'] = (level * (1 + rng.gauss(0.0, 0.02)),
                                   'MB/s')
            perf[f'{phase}_repeat_spread'] = (spread, '%')
        cases.append(synth.make_testcase(
            session_uuid, 0, rep, CASE, perf, repeat=rep,
            time=uuid_index * DAY + 1 + rep))
    return synth.make_report(cases, time_start=uuid_index * DAY,
                             session_uuid=session_uuid)


def month(seed, after, loss, repeats=3, tau=0.14, level_nights=8):
    """The sessions: ``level_nights`` nights at the level, then ``after``
    nights ``1 - loss`` times it, each night's cap moved by ``tau`` (log
    scale); the loss's nights have 4 times the repeat spread."""
    rng = random.Random(seed)
    out = []
    for i in range(level_nights + after):
        lower = i >= level_nights
        level = 500.0 * (1.0 - loss if lower else 1.0) * math.exp(
            rng.gauss(0.0, tau))
        out.append(_night(rng, i, level, repeats,
                          8.0 if lower and loss else 2.0))
    return out


def gate(work, reports):
    """Exit code and rows of the gate on the newest night against the
    baseline of the last level night (the level: it and the 7 before)."""
    # A directory of its own per night: the store's index is by path.
    db = work / f'night{len(reports)}' / 'results.db'
    db.parent.mkdir(parents=True)
    synth.write_database(str(db), reports)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(['baseline', 'record', 'base', '--db', str(db),
                         '--session', f'latest~{len(reports) - 8}']) == 0
        out.truncate(0)
        out.seek(0)
        code = cli.main(['gate', '-b', 'base', '--db', str(db),
                         '--format', 'json'])
    return code, {r['var']: r for r in json.loads(out.getvalue())['results']}


def first_page(work, seed, nights=4):
    """The loss's night (1-based) the gate first pages on, or ``None``,
    and the rows of the last night judged."""
    reports = month(seed, nights, 0.30)
    for night in range(1, nights + 1):
        code, rows = gate(work, reports[:8 + night])
        assert code in (0, 1)
        if code == 1:
            return night, rows
    return None, rows


# Over seeds 1-100 the loss paged by its 4th night in 58 (seeds 1-30:
# 22), above the bound of a calibrated test (docs/gate-method.md, "The
# bound of a lasting loss at the page rate": 43 % for the window of the
# 4 nights alone), and an unchanged night in 1 (python
# tests/test_gate_lasting_loss.py 1 101).
# These months page on the 4th night exactly: a weaker test fails them.
@pytest.mark.parametrize('seed', [16, 22, 23])
def test_a_lasting_30_percent_loss_pages_by_its_4th_night(tmp_path, seed):
    first, rows = first_page(tmp_path, seed)
    assert first == 4, {v: r['reason'] for v, r in rows.items()}
    assert rows['read_bw']['verdict'] == 'regression' or \
        rows['write_bw']['verdict'] == 'regression'
    for var in ('read_repeat_spread', 'write_repeat_spread'):
        assert rows[var]['role'] == 'diagnostic'
        assert rows[var]['verdict'] != 'regression', rows[var]['reason']


@pytest.mark.parametrize('seed', [1, 2, 3])
def test_an_unchanged_night_after_the_level_does_not_page(tmp_path, seed):
    code, rows = gate(tmp_path, month(seed, 1, 0.0))
    assert code == 0, {v: r['reason'] for v, r in rows.items()}


if __name__ == '__main__':
    # python tests/test_gate_lasting_loss.py FIRST_SEED END_SEED
    import sys
    import tempfile
    from pathlib import Path

    seeds = range(int(sys.argv[1]), int(sys.argv[2]))
    found, unchanged = [], 0
    for seed in seeds:
        with tempfile.TemporaryDirectory() as work:
            found.append(first_page(Path(work), seed, 6)[0])
            unchanged += gate(Path(work) / 'u', month(seed, 1, 0.0))[0]
    print('first night paged per seed:', found)
    print(f'by the 4th night: {sum(f is not None and f <= 4 for f in found)}'
          f' of {len(found)}; unchanged nights paged: {unchanged}')


def test_the_screen_says_which_figures_page_and_what_a_page_spends(
        tmp_path):
    # --all-figures: every figure; the spreads are marked, the budget stated once.
    gate(tmp_path, month(16, 4, 0.30))
    db = tmp_path / 'night12' / 'results.db'
    out = io.StringIO()
    with contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(['gate', '-b', 'base', '--db', str(db), '--all-figures']) == 1
    text = out.getvalue()
    assert re.search(r'read_repeat_spread .*\[diagnostic\]', text), text
    assert 'read_bw [diagnostic]' not in text
    assert text.count('a page spends at most 1% a night, Holm over 2 '
                      'headline figure families') == 1, text
    assert '[diagnostic]: a figure that explains the headline ones' in text
    # The case's first row is a headline figure.
    first = next(line for line in text.splitlines()
                 if line.startswith('regression'))
    assert '_bw' in first and 'spread' not in first, first
