# SPDX-License-Identifier: BSD-3-Clause
"""End to end on the real dd family: reframe runs ``dd_stream_per_node
%nodes=1`` on a loop-mounted ext4 whose device is capped with the cgroup
block-I/O controller; the gate then judges the runs.

baseline at cap B -> unchanged run at B -> exit 0; run at B/2 -> exit 1
naming the read variables; nothing selected -> exit 3; the HTML report
renders with images.  Needs root, a free loop device and a writable
cgroup v1 ``blkio`` (or v2 ``io``) controller; skipped otherwise.
"""

import os
import re
import shlex
import sys
from pathlib import Path

import pytest

import cappedfs
from pfsbench import cli
from pfsbench.gate import extras

pytestmark = pytest.mark.reframe

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DD_CHECK = os.path.join(REPO, 'reframe-checks', 'dd', 'dd_streaming.py')
REFRAME = os.path.join(os.path.dirname(sys.executable), 'reframe')
CAP = 40 * 2**20             # bytes/s of the unchanged target
GATE_VERBS = ['session-extras', 'baseline', 'gate', 'report']


@pytest.fixture(scope='module')
def capped_fs():
    if not os.path.exists(DD_CHECK):
        pytest.skip(f'{DD_CHECK} not written yet')

    if not os.path.exists(REFRAME):
        pytest.skip(f'no reframe next to {sys.executable}')

    with cappedfs.capped_loop_fs('gate-local') as fs:
        yield fs


def _reframe(fs, runs, bps, fs_version):
    cappedfs.cap(fs, bps)
    tags = extras.collect(fs['mnt'])
    tags['fs_version'] = fs_version
    argv = [REFRAME, '-C', 'config/settings.py', '-c', 'reframe-checks/dd',
            '-n', 'dd_stream_per_node', '-t', 'quick', '-r', '--repeat', '3',
            '--exec-policy', 'serial', '-S', 'count=16',
            # Flushed writes, reads from the device (the source's mode reads
            # the page cache, which the cap does not slow).
            '-S', 'dd_mode=fdatasync', '-S', 'repeats=1',
            '--session-extras', extras.format_extras(tags)]
    # The shell moves itself into the cgroup, then becomes reframe: every
    # dd it starts is capped.
    cmd = ['sh', '-c', f'echo $$ > {fs["cgroup"]}/cgroup.procs && exec "$@"',
           'sh', *argv]
    env = dict(os.environ, PFSBENCH_RUNS=str(runs),
               PFSBENCH_SCRATCH=fs['mnt'])
    proc = cappedfs.sh(cmd, cwd=REPO, env=env, capture_output=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert 'Ran 3/3 test case(s)' in proc.stdout


def _gate(argv, capsys):
    print('+ pfsbench ' + shlex.join(argv))
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_dd_baseline_unchanged_slowdown(capped_fs, monkeypatch, capsys):
    monkeypatch.setattr(cli, 'VERBS', GATE_VERBS)
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
    regressed = set(re.findall(
        r'^regression: dd_stream_per_node %nodes=1 @local:default\+builtin '
        r'(\w+):', out, re.M))
    assert {'read_bw', 'read_bw_sum', 'read_node_bw_mean'} <= regressed, out
    page = html.read_text()
    assert page.count('src="data:image/png;base64,') >= 1
    assert 'dd_stream_per_node %nodes=1' in page

    code, _, err = _gate(['gate', '-b', 'pre-upgrade', *common, '--name',
                          'no_such_check'], capsys)
    assert code == 3 and 'no test case selected' in err
