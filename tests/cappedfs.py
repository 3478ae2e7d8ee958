# SPDX-License-Identifier: BSD-3-Clause
"""A steady target of known speed for the gate's end-to-end tests.

A loop-mounted ext4 whose device is capped with the cgroup block-I/O
controller (v1 ``blkio`` throttle or v2 ``io.max``): whatever runs in the
cgroup reads (and, partly, writes) at the cap, so a halved cap is a known
slowdown.  Needs root, a free loop device and a writable controller;
:func:`capped_loop_fs` skips the calling test with the reason otherwise.
"""

import contextlib
import os
import shutil
import subprocess
import tempfile

import pytest

V1 = '/sys/fs/cgroup/blkio'
V2 = '/sys/fs/cgroup/unified'


def sh(argv, **kwargs):
    print('+', ' '.join(str(a) for a in argv), flush=True)
    return subprocess.run(argv, universal_newlines=True, **kwargs)


def controller():
    """(cgroup root, is v2) of a writable block-I/O controller, or
    (None, None)."""
    if os.path.exists(os.path.join(V1, 'blkio.throttle.read_bps_device')):
        return V1, False
    try:
        with open(os.path.join(V2, 'cgroup.controllers')) as fp:
            if 'io' in fp.read().split():
                return V2, True
    except OSError:
        pass
    return None, None


@contextlib.contextmanager
def loop_fs(name, size='512M', mkfs=('mkfs.ext4', '-q', '-F')):
    """Yield {'work', 'mnt', 'loop', 'devno'}: a file system of ``size``
    made by ``mkfs`` on a loop device, mounted and writable by everyone.

    Skips the calling test (with the reason) without root, the tools or a
    free loop device; the file system is unmounted and the loop device
    freed afterwards.
    """
    if os.geteuid() != 0:
        pytest.skip('needs root for a loop device')
    for tool in ('losetup', mkfs[0], 'mount', 'umount'):
        if shutil.which(tool) is None:
            pytest.skip(f'{tool} not found')

    # Under /var/tmp with traversable parents: job steps of other users'
    # daemons (slurmd) and unprivileged tools must reach it.
    work = tempfile.mkdtemp(prefix=f'pfsbench-{name}-', dir='/var/tmp')
    os.chmod(work, 0o755)
    img, mnt = os.path.join(work, 'fs.img'), os.path.join(work, 'mnt')
    os.mkdir(mnt)
    sh(['truncate', '-s', size, img], check=True)
    sh([*mkfs, img], check=True)
    proc = sh(['losetup', '-f', '--show', img], stdout=subprocess.PIPE,
              stderr=subprocess.PIPE)
    if proc.returncode != 0:
        shutil.rmtree(work)
        pytest.skip(f'no free loop device: {proc.stderr.strip()}')

    loop = proc.stdout.strip()
    mounted = False
    try:
        sh(['mount', loop, mnt], check=True)
        mounted = True
        os.chmod(mnt, 0o777)
        with open(f'/sys/block/{os.path.basename(loop)}/dev') as fp:
            devno = fp.read().strip()
        yield {'work': work, 'mnt': mnt, 'loop': loop, 'devno': devno}
    finally:
        if mounted:
            sh(['umount', mnt])
        sh(['losetup', '-d', loop])
        shutil.rmtree(work, ignore_errors=True)


@contextlib.contextmanager
def capped_loop_fs(name):
    """Yield {'work', 'mnt', 'cgroup', 'root', 'devno', 'v2'}: a mounted
    512 MiB ext4 on a loop device (:func:`loop_fs`) and an empty cgroup to
    cap it in.

    Processes left in the cgroup are moved back to the root cgroup before
    it is removed.
    """
    if os.geteuid() != 0:
        pytest.skip('needs root for a loop device and a cgroup')
    root, v2 = controller()
    if root is None:
        pytest.skip('no writable cgroup block-I/O controller')

    with loop_fs(name) as fs:
        cgroup = os.path.join(root, f'pfsbench-{name}-{os.getpid()}')
        try:
            os.makedirs(cgroup)
            yield {'work': fs['work'], 'mnt': fs['mnt'], 'cgroup': cgroup,
                   'root': root, 'devno': fs['devno'], 'v2': v2}
        finally:
            if os.path.isdir(cgroup):
                with open(os.path.join(cgroup, 'cgroup.procs')) as fp:
                    stay = fp.read().split()
                for pid in stay:
                    with contextlib.suppress(OSError), \
                            open(os.path.join(root, 'cgroup.procs'),
                                 'w') as fp:
                        fp.write(pid)
                os.rmdir(cgroup)


def cap(fs, bps):
    """Cap reads and writes of the loop device in ``fs['cgroup']``."""
    bps = int(bps)
    if fs['v2']:
        settings = [('io.max', f'{fs["devno"]} rbps={bps} wbps={bps}')]
    else:
        settings = [('blkio.throttle.read_bps_device', f'{fs["devno"]} {bps}'),
                    ('blkio.throttle.write_bps_device',
                     f'{fs["devno"]} {bps}')]
    for name, text in settings:
        print(f'+ echo "{text}" > {fs["cgroup"]}/{name}', flush=True)
        with open(os.path.join(fs['cgroup'], name), 'w') as fp:
            fp.write(text)


def join(fs, pid):
    """Move process ``pid`` (and its future children) into the cgroup."""
    with open(os.path.join(fs['cgroup'], 'cgroup.procs'), 'w') as fp:
        fp.write(str(pid))


#: Gate settings for runs on the capped target: only reads follow the cap
#: (writeback escapes a v1 cgroup), so the uncapped write figures, which
#: swing past the tolerance between nights on a shared disk, are logged but
#: not gated.
READ_GATE_SETTINGS = ('tolerance: 0.25\n'
                      'variables:\n'
                      '  "write_*": {ignore: true}\n'
                      '  "*_spread": {ignore: true}\n'
                      '  start_skew: {ignore: true}\n')
