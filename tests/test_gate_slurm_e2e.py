# SPDX-License-Identifier: BSD-3-Clause
"""The nightly gate end to end through the localhost Slurm cluster.

dd runs as 2 nodes x 1 stream (``dd_stream_per_node %nodes=2``) on a
loop-mounted ext4 whose device is capped with the cgroup block-I/O
controller.  The slurmd daemons are moved into that cgroup, so every job
step they start (and so every dd) is capped; they are moved back after.

baseline at cap B -> unchanged run at B -> gate exit 0; run at B/2 -> exit 1
naming the read figures; nothing selected -> exit 3.  (Writes are flushed by
the kernel's writeback threads, which a v1 cgroup does not charge, so only
the read figures, read after the page cache is dropped, follow the cap.)
Needs root, the Slurm cluster, a loop device and a writable cgroup
block-I/O controller; skipped with the reason otherwise.
"""

import contextlib
import glob
import io
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from conftest import CHECKS, run_reframe
from pfsbench.cli import main

CAP = 40 * 2**20             # bytes/s of the unchanged target
SLURM_DIR = os.environ.get('PFSBENCH_SLURM_DIR',
                           '/var/tmp/pfsbench-localslurm')
V1 = '/sys/fs/cgroup/blkio'
V2 = '/sys/fs/cgroup/unified'


def _sh(argv, **kwargs):
    print('+', ' '.join(argv))
    return subprocess.run(argv, universal_newlines=True, **kwargs)


def _controller():
    if os.path.exists(os.path.join(V1, 'blkio.throttle.read_bps_device')):
        return V1, False
    try:
        with open(os.path.join(V2, 'cgroup.controllers')) as fp:
            if 'io' in fp.read().split():
                return V2, True
    except OSError:
        pass
    return None, None


def _slurmd_pids():
    pids = []
    for path in glob.glob(os.path.join(SLURM_DIR, 'run', 'slurmd-*.pid')):
        with open(path) as fp:
            pids.append(fp.read().strip())
    return pids


@pytest.fixture(scope='module')
def capped_slurm(localslurm):
    base, v2 = _controller()
    if base is None:
        pytest.skip('no writable cgroup block-I/O controller')
    for tool in ('losetup', 'mkfs.ext4', 'mount', 'umount'):
        if shutil.which(tool) is None:
            pytest.skip(f'{tool} not found')
    pids = _slurmd_pids()
    if not pids:
        pytest.skip(f'no slurmd pid files under {SLURM_DIR}/run')

    work = tempfile.mkdtemp(prefix='pfsbench-gate-slurm-', dir='/var/tmp')
    os.chmod(work, 0o755)
    img, mnt = os.path.join(work, 'fs.img'), os.path.join(work, 'mnt')
    os.mkdir(mnt)
    _sh(['truncate', '-s', '512M', img], check=True)
    _sh(['mkfs.ext4', '-q', '-F', img], check=True)
    proc = _sh(['losetup', '-f', '--show', img], stdout=subprocess.PIPE,
               stderr=subprocess.PIPE)
    if proc.returncode != 0:
        shutil.rmtree(work)
        pytest.skip(f'no free loop device: {proc.stderr.strip()}')
    loop = proc.stdout.strip()
    cgroup = os.path.join(base, f'pfsbench-gate-slurm-{os.getpid()}')
    try:
        _sh(['mount', loop, mnt], check=True)
        os.chmod(mnt, 0o777)
        os.makedirs(cgroup)
        with open(f'/sys/block/{os.path.basename(loop)}/dev') as fp:
            devno = fp.read().strip()
        for pid in pids:
            with open(os.path.join(cgroup, 'cgroup.procs'), 'w') as fp:
                fp.write(pid)
        yield {'work': work, 'mnt': mnt, 'cgroup': cgroup, 'devno': devno,
               'v2': v2, 'env': localslurm}
    finally:
        # Everything still in the cgroup (the slurmds, stray job steps)
        # goes back to the root cgroup before it is removed.
        if os.path.isdir(cgroup):
            with open(os.path.join(cgroup, 'cgroup.procs')) as fp:
                stay = fp.read().split()
            for pid in stay:
                with contextlib.suppress(OSError), \
                        open(os.path.join(base, 'cgroup.procs'), 'w') as fp:
                    fp.write(pid)
            os.rmdir(cgroup)
        _sh(['umount', mnt])
        _sh(['losetup', '-d', loop])
        shutil.rmtree(work, ignore_errors=True)


def _cap(fs, bps):
    bps = int(bps)
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


def _night(fs, runs, bps, fs_version):
    _cap(fs, bps)
    proc = run_reframe(
        ['--system', 'localslurm:srun', '-c', str(CHECKS / 'dd'),
         '-n', 'dd_stream_per_node', '-P', 'nodes=2', '-S', 'count=24',
         '--repeat', '3', '--exec-policy', 'serial', '-r',
         '--session-extras', f'fs_version={fs_version}'],
        runs, env=dict(fs['env'], PFSBENCH_SCRATCH=fs['mnt']))
    assert proc.returncode == 0, proc.stdout[-4000:]
    assert 'Ran 3/3 test case(s)' in proc.stdout


def _pfsbench(argv):
    out, err = io.StringIO(), io.StringIO()
    print('+ pfsbench', ' '.join(argv))
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_gate_through_slurm(capped_slurm, tmp_path):
    fs = capped_slurm
    runs = tmp_path / 'runs'
    db = str(runs / 'results.db')
    # 25 %: the cap makes the target steady; writes are only partly capped.
    settings = tmp_path / 'gate.yaml'
    settings.write_text('tolerance: 0.25\n')
    gate = ['gate', '-b', 'pre-upgrade', '--db', db, '--config',
            str(settings)]

    _night(fs, runs, CAP, '1.8')
    code, out, err = _pfsbench(['baseline', 'record', 'pre-upgrade',
                                '--db', db])
    assert code == 0, err

    _night(fs, runs, CAP, '1.8')
    code, out, err = _pfsbench(gate)
    assert code == 0, out + err

    _night(fs, runs, CAP / 2, '2.0')
    code, out, err = _pfsbench(gate + ['--junit', str(tmp_path / 'g.xml')])
    assert code == 1, out + err
    regressed = set(re.findall(
        r'^regression: dd_stream_per_node %nodes=2 @localslurm:srun\+builtin '
        r'(\w+):', out, re.M))
    assert {'read_bw', 'read_node_bw_min'} <= regressed, out
    assert '<failure' in (tmp_path / 'g.xml').read_text()

    code, _, err = _pfsbench(gate + ['--name', 'no_such_check'])
    assert code == 3 and 'no test case selected' in err

    # The slurmds ran every dd of these nights inside the capped cgroup.
    with open(os.path.join(fs['cgroup'], 'cgroup.procs')) as fp:
        assert set(_slurmd_pids()) <= set(fp.read().split())
