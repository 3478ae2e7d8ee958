# SPDX-License-Identifier: BSD-3-Clause
"""IO500's score as io500 computes it (issue 21, items 3 and 4).

The recorded outputs are a real io500 run (tests/data/io500/run-2x1, its
command in ``io500.cmd``: 2 nodes x 1 task of the localhost Slurm cluster,
a 2 s stonewall, so io500 marks it invalid) and a real ``io500
--dry-run`` (tests/data/io500/dry-run).  The score the suite computes from
io500's own phase figures must be the score io500 printed.
"""

import os
import shutil
import subprocess

import pytest

from conftest import REPO
from pfsbench.checks.io500_phases import invalid_reasons
from pfsbench.commands import io500
from pfsbench.core.errors import ParseError
from pfsbench.gate.judge.config import direction_of_unit
from pfsbench.parsers import io500 as io500_parser, pfind as pfind_parser

DATA = REPO / 'tests' / 'data' / 'io500'
RUN = DATA / 'run-2x1'


@pytest.fixture(scope='module')
def recorded():
    return io500_parser.parse((RUN / 'result_summary.txt').read_text(),
                              'result_summary.txt')


def test_io500s_printed_score_is_recomputed_from_its_phase_figures(
        recorded):
    figures = {p.name: p.value for p in recorded.phases if p.scored}
    assert list(figures) == [p.name for p in io500.PHASES]
    score = io500.score(figures)
    # io500 prints %f: six decimals.
    assert score.bw == pytest.approx(recorded.bw_gib_s, abs=1e-6)
    assert score.md == pytest.approx(recorded.md_kiops, abs=1e-6)
    assert score.total == pytest.approx(recorded.total, abs=1e-6)


def test_the_same_from_stdout_and_from_the_summary_file(recorded):
    stdout = io500_parser.parse((RUN / 'io500.out').read_text(), 'io500.out')
    assert stdout == recorded


def test_validity_follows_io500s_rules(recorded):
    # The 2 s stonewall: every stonewalled write ran below 300 s, and
    # mdtest-easy-write and the hard writes below their stonewall too.
    assert not recorded.valid
    invalid = {p.name for p in recorded.phases if not p.valid}
    assert invalid == {p.name for p in io500.PHASES if p.stonewalled}
    figures = {p.name: p.value for p in recorded.phases}
    times = {p.name: p.time_s for p in recorded.phases}
    score = io500.score(figures, times, stonewall_s=2)
    assert {why.split(':')[0] for why in score.invalid} == invalid
    assert 'mdtest-easy-write: ran 1.657 s, below the stonewall of 2 s' in \
        score.invalid


def test_a_phase_at_zero_is_left_out_of_its_mean_and_invalid():
    # src/main.c calc_score: 't <= 0: continue'.
    figures = {p.name: 4.0 for p in io500.PHASES}
    figures['find'] = 0.0
    score = io500.score(figures)
    assert (score.bw, score.md, score.total) == pytest.approx((4, 4, 4))
    assert score.invalid == ("find: 0.0: the score should not be 0",)
    # A whole group at zero scores 0, and so does the total.
    bw_only = {p.name: 2.0 for p in io500.PHASES if p.group == 'bw'}
    assert io500.score(bw_only).total == 0.0


def test_geometric_means_not_arithmetic():
    figures = {p.name: 1.0 for p in io500.PHASES}
    figures['ior-easy-write'] = 16.0
    score = io500.score(figures)
    assert score.bw == pytest.approx(2.0)      # (16 * 1 * 1 * 1) ** (1/4)
    assert score.total == pytest.approx(2.0 ** 0.5)


def test_a_run_cut_short_is_refused_naming_the_line():
    text = (RUN / 'io500.out').read_text()
    cut = text[:text.index('[RESULT]        ior-easy-read')]
    with pytest.raises(ParseError, match=r"^io500.out:\d+: expected io500's "
                                         r"'\[SCORE \] Bandwidth"):
        io500_parser.parse(cut, 'io500.out')


def test_pfind_rate_line():
    # A real pfind -D rates (pfind-rates.cmd): 5 files scanned, 2 found.
    said = (DATA / 'pfind-rates.txt').read_text()
    found = pfind_parser.parse(said, 'pfind-rates.txt')
    assert (found.found, found.scanned) == (2, 5) and found.kiops > 0
    # Without -D rates pfind prints only its count: refused, quoted.
    plain = '\n'.join(ln for ln in said.splitlines()
                      if not ln.startswith('[DONE]'))
    with pytest.raises(ParseError, match="expected pfind's '\\[DONE\\] "
                                         "rate.*got: \"MATCHED 2/5\""):
        pfind_parser.parse(plain, 'find.out')


def test_the_gate_knows_which_way_io500s_figures_go():
    # An unknown unit stops the gate (config error): the IO500 figures are
    # rates and a score, higher is better.
    for unit in ('GiB/s', 'kIOPS', 'score'):
        assert direction_of_unit(unit) == 'higher', unit


def test_ini_writes_only_what_differs_from_io500s_defaults():
    ini = io500.ini_text('/scratch/run/data', '/stage/results')
    assert '[debug]' not in ini and 'blockSize' not in ini
    assert 'datadir = /scratch/run/data' in ini.splitlines()
    capped = io500.ini_text('/d', '/r', stonewall_s=5,
                            ior_easy_block_size='128m',
                            ior_hard_segments=2000, mdtest_easy_files=100,
                            mdtest_hard_files=100)
    assert '[debug]\nstonewall-time = 5\n' in capped
    assert '[ior-easy]\nblockSize = 128m\n' in capped
    assert '[ior-hard]\nsegmentCount = 2000\n' in capped
    assert capped.count('\nn = 100\n') == 2


def test_io500_reads_the_ini_the_suite_writes(tmp_path):
    # The real io500 (where installed) parses the generated ini: a dry run
    # with it names the capped sizes in its command lines.
    binary = next((p for p in ('/opt/io500/bin/io500',)
                   if os.access(p, os.X_OK)), shutil.which('io500'))
    if binary is None:
        pytest.skip('no io500 binary (PATH or /opt/io500/bin); spack '
                    'install io500')
    ini = tmp_path / 'io500.ini'
    ini.write_text(io500.ini_text(f'{tmp_path}/data', f'{tmp_path}/results',
                                  stonewall_s=5, ior_easy_block_size='128m',
                                  ior_hard_segments=2000,
                                  mdtest_easy_files=100,
                                  mdtest_hard_files=100))
    proc = subprocess.run([binary, str(ini), '--dry-run'], cwd=tmp_path,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout
    result = (tmp_path / 'results' / 'result.txt').read_text()
    assert ' -b 128m ' in result and ' -s 2000 ' in result
    assert result.count(' -n 100 ') == 7 and ' -W 5 ' in result


def test_the_suite_runs_validity_adds_io500s_run_rules():
    # pfsbench.checks.io500_phases.invalid_reasons (io500_suite_run): the
    # phases' rules of io500.score, plus src/phase_dbg.c's stonewall and
    # src/phase_find.c's empty find.
    figures = {p.name: 1.0 for p in io500.PHASES}
    long_enough = {p.name: 300.5 for p in io500.PHASES if p.stonewalled}
    valid = io500.score(figures, long_enough, stonewall_s=300)
    assert invalid_reasons(valid, 300, found=3) == []
    assert invalid_reasons(valid, 300, found=0) == [
        'find: it found no file']
    short = io500.score(figures, dict(long_enough, **{
        'mdtest-hard-write': 0.8}), stonewall_s=1)
    assert invalid_reasons(short, 1, found=3) == [
        "stonewall_s: 1 s, not the list's 300 s",
        'mdtest-hard-write: ran 0.8 s, below the stonewall of 1 s']


def test_one_group_is_scored_and_judged_alone():
    # A family runs one group (mdtest_io500_phases: md): the other group's
    # phases are not missing phases at 0, and the writes' rule is io500's.
    md = {p.name: 2.0 for p in io500.PHASES if p.group == 'md'}
    score = io500.score(md, {'mdtest-easy-write': 301.0,
                             'mdtest-hard-write': 4.5}, 300, group='md')
    assert (score.bw, score.md, score.total) == (0.0, pytest.approx(2.0),
                                                 0.0)
    assert score.invalid == (
        'mdtest-hard-write: ran 4.5 s, below the stonewall of 300 s',)
    assert io500.stonewall_invalid('ior-easy-write', 40.0, 30) == (
        "ior-easy-write: ran 40.0 s, below the list's minimum of 300 s")
    assert io500.stonewall_invalid('ior-easy-write', 300.0, 300) == ''


def test_a_group_without_find_is_judged_by_the_same_rules():
    # ior_io500_phases: the bw group, no find phase (found None): its
    # stonewalled writes and a phase at 0 are invalid, nothing of md's.
    bw = {p.name: 3.0 for p in io500.PHASES if p.group == 'bw'}
    times = {'ior-easy-write': 300.2, 'ior-hard-write': 12.5}
    score = io500.score(dict(bw, **{'ior-hard-read': 0.0}), times, 300,
                        group='bw')
    assert score.md == 0.0 and score.bw == pytest.approx(3.0)
    assert invalid_reasons(score, 300) == [
        'ior-hard-write: ran 12.5 s, below the stonewall of 300 s',
        'ior-hard-read: 0.0: the score should not be 0']
    assert invalid_reasons(io500.score(bw, dict(times, **{
        'ior-hard-write': 301.0}), 300, group='bw'), 300) == []


def test_stonewalled_writes_are_io500s():
    from pfsbench.checks.io500_phases import stonewalled_writes
    assert (stonewalled_writes(), stonewalled_writes('ior'),
            stonewalled_writes('mdtest')) == (4, 2, 2)
