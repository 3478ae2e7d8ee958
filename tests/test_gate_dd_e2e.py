# SPDX-License-Identifier: BSD-3-Clause
"""End to end on the real dd family: reframe runs ``dd_stream_per_node
%nodes=1`` on a loop-mounted ext4 whose device is capped with the cgroup
block-I/O controller; the gate then judges the runs.

baseline at cap B -> unchanged run at B -> exit 0; run at B/2 -> exit 1
naming the read variables; nothing selected -> exit 3; the HTML report
renders with images.  Needs root, a free loop device and a writable
cgroup v1 ``blkio`` (or v2 ``io``) controller; skipped otherwise.

And on an uncapped loop ext4 remounted with ``data=journal,nodelalloc``
between the baseline and the night: the write regression is reported
with the changed superblock options next to it.

And a site's first week (issue 19): the quick dd cases (1 and 2 streams
on one node, one stream per node), a baseline, four more nights, a sixth:
the lookback rule takes over with figures that are 0 every night (the
skew and spreads of one stream) and never crashes; then ``data=journal``
is found and named.
"""

import json
import os
import re
import shlex
import sys
from pathlib import Path

import pytest

import cappedfs
from pfsbench import cli
from pfsbench.site import extras

pytestmark = pytest.mark.reframe

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DD_CHECK = os.path.join(REPO, 'reframe-checks', 'dd', 'dd_streaming.py')
REFRAME = os.path.join(os.path.dirname(sys.executable), 'reframe')
CAP = 40 * 2**20             # bytes/s of the unchanged target
GATE_VERBS = ['session-extras', 'baseline', 'gate', 'report']


def _need_dd_and_reframe():
    if not os.path.exists(DD_CHECK):
        pytest.skip(f'{DD_CHECK} not written yet')

    if not os.path.exists(REFRAME):
        pytest.skip(f'no reframe next to {sys.executable}')


@pytest.fixture(scope='module')
def capped_fs():
    _need_dd_and_reframe()
    with cappedfs.capped_loop_fs('gate-local') as fs:
        yield fs


def _reframe(fs, runs, bps, fs_version):
    cappedfs.cap(fs, bps)
    _run_dd(fs, runs, {'fs_version': fs_version}, fs['cgroup'])


def _run_dd(fs, runs, extra, cgroup=None, repeats=3, count=16,
            select=('-n', 'dd_stream_per_node'), cases=1):
    """reframe runs the ``select``ed quick dd cases (``cases`` of them)
    ``repeats`` times on ``fs`` (in ``cgroup`` if given), with this
    host's session extras plus ``extra``."""
    tags = extras.collect(fs['mnt'])
    tags.update(extra)
    argv = [REFRAME, '-C', 'config/settings.py', '-c', 'reframe-checks/dd',
            *select, '-t', 'quick', '-r', '--repeat',
            str(repeats), '--exec-policy', 'serial', '-S', f'count={count}',
            # Flushed writes, reads from the device (the source's mode reads
            # the page cache, which the cap does not slow).
            '-S', 'dd_mode=fdatasync', '-S', 'repeats=1',
            # Other engineers' work on this shared VM's CPUs would mark
            # the cases contended and leave the gate nothing to judge;
            # this test is about the gate (tests/test_client_cpu.py is
            # about the probe).
            '-S', 'client_cpu_share=1',
            '--session-extras',
            extras.format_extras(tags)]
    cmd = argv
    if cgroup is not None:
        # The shell moves itself into the cgroup, then becomes reframe:
        # every dd it starts is capped.
        cmd = ['sh', '-c', f'echo $$ > {cgroup}/cgroup.procs && exec "$@"',
               'sh', *argv]

    env = dict(os.environ, PFSBENCH_RUNS=str(runs),
               PFSBENCH_SCRATCH=fs['mnt'])
    proc = cappedfs.sh(cmd, cwd=REPO, env=env, capture_output=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    ran = repeats * cases
    assert f'Ran {ran}/{ran} test case(s)' in proc.stdout


def _gate(argv, capsys):
    print('+ pfsbench ' + shlex.join(argv))
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_dd_baseline_unchanged_slowdown(capped_fs, monkeypatch, capsys):
    monkeypatch.setattr(cli.entry, 'VERBS', GATE_VERBS)
    work = Path(capped_fs['work'])
    runs = work / 'runs'
    db = str(runs / 'results.db')
    # This VM's disk moves 30 % between runs; the cap makes reads steady.
    settings = work / 'gate.yaml'
    settings.write_text(cappedfs.READ_GATE_SETTINGS)
    common = ['--db', db, '--config', str(settings)]

    _reframe(capped_fs, runs, CAP, '1.8')
    code, out, err = _gate(['baseline', 'record', 'pre-upgrade', '--db', db],
                           capsys)
    assert code == 0, err
    assert re.search(r"baseline 'pre-upgrade': 1 case\(s\), \d+ sample\(s\)"
                     r' from 1 session', out)

    _reframe(capped_fs, runs, CAP, '1.8')
    code, out, err = _gate(['gate', '-b', 'pre-upgrade', *common], capsys)
    assert code == 0, out + err
    assert 'regression' not in out

    _reframe(capped_fs, runs, CAP / 2, '2.0')
    html = work / 'gate.html'
    code, out, err = _gate(['gate', '-b', 'pre-upgrade', *common, '--html',
                            str(html)], capsys)
    assert code == 1, out + err
    # One stream: read_bw, read_bw_sum, read_node_bw_mean... are one
    # figure (equal by construction), named once with its aliases.
    note = re.search(
        r'^regression: dd_stream_per_node %nodes=1 @local:default\+builtin '
        r'(read_\w+):.*\n  equal by construction: (.*)$', out, re.M)
    assert note, out
    figure = {note.group(1), *note.group(2).split(', ')}
    assert {'read_bw_sum', 'read_node_bw_mean', 'read_node_bw_min'} <= \
        figure, out
    assert "fs_version: '1.8' -> '2.0'" in out
    page = html.read_text()
    assert page.count('<svg ') == 1          # one history, one case
    assert 'dd_stream_per_node %nodes=1' in page

    code, _, err = _gate(['gate', '-b', 'pre-upgrade', *common, '--name',
                          'no_such_check'], capsys)
    assert code == 3 and 'no test case selected' in err


@pytest.fixture(scope='module')
def loop_ext4():
    _need_dd_and_reframe()
    with cappedfs.loop_fs('gate-remount') as fs:
        yield fs


def _workspace(fs, tolerance, reads_and_spreads):
    """``(work, runs, db, gate.yaml)`` in ``fs``'s work directory, the
    settings giving ``tolerance`` and marking the reads, the spreads and
    the skew ``reads_and_spreads`` (``ignore`` or ``unstable``)."""
    work = Path(fs['work'])
    runs = work / 'runs'
    settings = work / 'gate.yaml'
    settings.write_text(
        f'{tolerance}\nvariables:\n' + ''.join(
            f'  {pattern}: {{{reads_and_spreads}: true}}\n'
            for pattern in ('"read_*"', '"*_spread"', 'start_skew')))
    return work, runs, str(runs / 'results.db'), settings


def test_remount_options_named_next_to_the_regression(loop_ext4, monkeypatch,
                                                      capsys):
    monkeypatch.setattr(cli.entry, 'VERBS', GATE_VERBS)
    fs = loop_ext4
    # Journalled data is written twice: writes slow down far beyond any
    # tolerance; reads are not what this test is about.
    work, runs, db, settings = _workspace(fs, 'tolerance: 0.25', 'ignore')
    _run_dd(fs, runs, {}, repeats=5, count=64)
    code, out, err = _gate(['baseline', 'record', 'ordered', '--db', db],
                           capsys)
    assert code == 0, err

    cappedfs.sh(['umount', fs['mnt']], check=True)
    cappedfs.sh(['mount', '-o', 'data=journal,nodelalloc', fs['loop'],
                 fs['mnt']], check=True)
    _run_dd(fs, runs, {}, repeats=5, count=64)
    md, xml = work / 'gate.md', work / 'gate.xml'
    html = work / 'gate.html'
    code, out, err = _gate(['gate', '-b', 'ordered', '--db', db, '--config',
                            str(settings), '--markdown', str(md), '--junit',
                            str(xml), '--html', str(html)], capsys)
    assert code == 1, out + err
    # The regression's note, then what changed, on the lines after it.
    match = re.search(r'^regression: dd_stream_per_node %nodes=1 \S+ '
                      r'(write_\w+): .*\n(?:  .*\n)*?  changed since the '
                      r'baseline: (.*)$', out, re.M)
    assert match, out
    changed = match.group(2)
    assert changed.startswith('fs_super_opts: '), changed
    assert '+data=journal' in changed and '+nodelalloc' in changed
    assert '(superblock options)' in changed
    for path in (md, xml, html):
        assert '+data=journal' in path.read_text(), path


@pytest.fixture
def week_ext4():
    _need_dd_and_reframe()
    with cappedfs.loop_fs('gate-week') as fs:
        yield fs


def test_first_week_of_quick_dd_nights_then_data_journal(week_ext4,
                                                         monkeypatch, capsys):
    monkeypatch.setattr(cli.entry, 'VERBS', GATE_VERBS)
    fs = week_ext4
    # Every figure is judged (the zeros too); those this shared VM cannot
    # hold steady (page-cache reads, the skew and spread of two streams
    # started together) are reported, never gating, and the tolerance is
    # wide (journalled data is written twice: -77 % in the remount test
    # above), so that an unchanged night is not failed by another
    # engineer's load (the interval rule of the first nights judges from
    # the repeats alone, which share their night's state).
    _, runs, db, settings = _workspace(fs, 'tolerance: 0.4', 'unstable')
    quick = {'select': (), 'cases': 3, 'repeats': 2}
    gate = ['gate', '-b', 'before', '--session', 'latest', '--db', db,
            '--config', str(settings)]
    _run_dd(fs, runs, {}, **quick)
    code, out, err = _gate(['baseline', 'record', 'before', '--db', db],
                           capsys)
    assert code == 0, err
    for night in range(2, 7):
        _run_dd(fs, runs, {}, **quick)
        code, out, err = _gate([*gate, '--format', 'json'], capsys)
        assert '{' in out, err
        # After the command lines printed before it.
        rows = json.loads(out[out.index('\n{') + 1:])['results']
        assert code in (0, 3), (night, [
            (r['case'], r['var'], r['change'], r['reason']) for r in rows
            if r['verdict'] == 'regression'])
        assert {r['case'].split(' @')[0] for r in rows} == {
            'dd_stream_per_node %nodes=1',
            'dd_streams_one_node %streams_per_node=1',
            'dd_streams_one_node %streams_per_node=2'}
        assert all(r['verdict'] != 'missing' and r['reason'] for r in rows)
        one = [r for r in rows if r['var'] == 'start_skew' and
               '%streams_per_node=1' in r['case']]
        assert one and one[0]['verdict'] == 'pass', one
        if night >= 5:
            # Three like-for-like nights before tonight: the lookback rule
            # judges the bandwidths, the zeros beside them.
            assert any(r['lookback'] for r in rows if r['var'] ==
                       'write_bw'), rows

    cappedfs.sh(['umount', fs['mnt']], check=True)
    cappedfs.sh(['mount', '-o', 'data=journal', fs['loop'], fs['mnt']],
                check=True)
    # Six repeats tonight, not two: on a loaded CI machine the journalled
    # writes of one night spread about +-45 % (read back from the width of
    # the interval), and two repeats give tonight's interval
    # one degree of freedom (t = 31.8 at 98 %): a -75 % night was then
    # inconclusive, "about 2 repeats per night would settle it".
    _run_dd(fs, runs, {}, **dict(quick, repeats=6))
    code, out, err = _gate(gate, capsys)
    assert code == 1, out + err
    assert re.search(r'^regression: dd_\w+ %\S+ @\S+ write_\w+', out, re.M), \
        out
    assert '+data=journal' in out, out
    # The night brings the change: the night's false-alarm budget, which
    # bounds unchanged nights, does not hold it (CI of 2026-11-27 held a
    # -69 % night so, exit 0).
    assert 'tonight brings fs_super_opts (superblock options)' in out, out
