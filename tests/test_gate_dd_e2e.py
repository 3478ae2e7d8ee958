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
import shutil
import subprocess
import sys

import pytest

from pfsbench import cli
from pfsbench.gate import extras

pytestmark = pytest.mark.reframe

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DD_CHECK = os.path.join(REPO, 'reframe-checks', 'dd', 'dd_streaming.py')
REFRAME = os.path.join(os.path.dirname(sys.executable), 'reframe')
CAP = 40 * 2**20             # bytes/s of the unchanged target
GATE_VERBS = ['cli_session_extras', 'cli_baseline', 'cli_gate', 'cli_report']


def _blkio_dir():
    v1 = '/sys/fs/cgroup/blkio'
    if os.path.exists(os.path.join(v1, 'blkio.throttle.read_bps_device')):
        return v1, False

    v2 = '/sys/fs/cgroup/unified'
    try:
        with open(os.path.join(v2, 'cgroup.controllers')) as fp:
            if 'io' in fp.read().split():
                return v2, True
    except OSError:
        pass

    return None, None


def _sh(argv, **kwargs):
    print('+ ' + shlex.join(argv), flush=True)
    return subprocess.run(argv, text=True, **kwargs)


@pytest.fixture(scope='module')
def capped_fs(tmp_path_factory):
    if not os.path.exists(DD_CHECK):
        pytest.skip(f'{DD_CHECK} not written yet')

    if not os.path.exists(REFRAME):
        pytest.skip(f'no reframe next to {sys.executable}')

    if os.geteuid() != 0:
        pytest.skip('needs root for a loop device and a cgroup')

    base, v2 = _blkio_dir()
    if base is None:
        pytest.skip('no writable cgroup block-I/O controller')

    for tool in ('losetup', 'mkfs.ext4', 'mount', 'umount'):
        if shutil.which(tool) is None:
            pytest.skip(f'{tool} not found')

    work = tmp_path_factory.mktemp('dd-e2e')
    img, mnt = work / 'fs.img', work / 'mnt'
    mnt.mkdir()
    _sh(['truncate', '-s', '512M', str(img)], check=True)
    _sh(['mkfs.ext4', '-q', '-F', str(img)], check=True)
    proc = _sh(['losetup', '-f', '--show', str(img)], capture_output=True)
    if proc.returncode != 0:
        pytest.skip(f'no free loop device: {proc.stderr.strip()}')

    loop = proc.stdout.strip()
    cgroup = os.path.join(base, f'pfsbench-gate-test-{os.getpid()}')
    try:
        _sh(['mount', loop, str(mnt)], check=True)
        os.makedirs(cgroup)
        with open(f'/sys/block/{os.path.basename(loop)}/dev') as fp:
            devno = fp.read().strip()

        yield {'work': work, 'mnt': str(mnt), 'cgroup': cgroup,
               'devno': devno, 'v2': v2}
    finally:
        _sh(['umount', str(mnt)])
        _sh(['losetup', '-d', loop])
        if os.path.isdir(cgroup):
            os.rmdir(cgroup)


def _cap(fs, bps):
    if fs['v2']:
        settings = [('io.max', f'{fs["devno"]} rbps={bps} wbps={bps}')]
    else:
        settings = [('blkio.throttle.read_bps_device', f'{fs["devno"]} {bps}'),
                    ('blkio.throttle.write_bps_device',
                     f'{fs["devno"]} {bps}')]

    for name, text in settings:
        print(f'+ echo "{text}" > {fs["cgroup"]}/{name}')
        with open(os.path.join(fs['cgroup'], name), 'w') as fp:
            fp.write(text)


def _reframe(fs, runs, bps, fs_version):
    _cap(fs, int(bps))
    tags = extras.collect(fs['mnt'])
    tags['fs_version'] = fs_version
    argv = [REFRAME, '-C', 'config/pfsbench.py', '-c', 'reframe-checks/dd',
            '-n', 'dd_stream_per_node', '-t', 'quick', '-r', '--repeat', '3',
            '--exec-policy', 'serial', '-S', 'count=16', '--session-extras',
            extras.format_extras(tags)]
    # The shell moves itself into the cgroup, then becomes reframe: every
    # dd it starts is capped.
    cmd = ['sh', '-c', f'echo $$ > {fs["cgroup"]}/cgroup.procs && exec "$@"',
           'sh', *argv]
    env = dict(os.environ, PFSBENCH_RUNS=str(runs),
               PFSBENCH_SCRATCH=fs['mnt'])
    proc = _sh(cmd, cwd=REPO, env=env, capture_output=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert 'Ran 3/3 test case(s)' in proc.stdout


def _gate(argv, capsys):
    print('+ pfsbench ' + shlex.join(argv))
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_dd_baseline_unchanged_slowdown(capped_fs, monkeypatch, capsys):
    monkeypatch.setattr(cli, 'VERBS', GATE_VERBS)
    runs = capped_fs['work'] / 'runs'
    db = str(runs / 'results.db')
    # This VM's disk moves 30 % between runs; the cap makes the target
    # steady, and a 25 % tolerance keeps write figures (whose page-cache
    # writeback the cgroup does not fully charge) from flaking.
    settings = capped_fs['work'] / 'gate.yaml'
    settings.write_text('tolerance: 0.25\n')
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
    html = capped_fs['work'] / 'gate.html'
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
