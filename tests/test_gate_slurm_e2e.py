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

import pytest

import cappedfs
from conftest import CHECKS, run_reframe
from pfsbench.cli import main

CAP = 40 * 2**20             # bytes/s of the unchanged target
SLURM_DIR = os.environ.get('PFSBENCH_SLURM_DIR',
                           '/var/tmp/pfsbench-localslurm')


def _slurmd_pids():
    pids = []
    for path in glob.glob(os.path.join(SLURM_DIR, 'run', 'slurmd-*.pid')):
        with open(path) as fp:
            pids.append(fp.read().strip())
    return pids


@pytest.fixture(scope='module')
def capped_slurm(localslurm):
    pids = _slurmd_pids()
    if not pids:
        pytest.skip(f'no slurmd pid files under {SLURM_DIR}/run')

    with cappedfs.capped_loop_fs('gate-slurm') as fs:
        for pid in pids:
            cappedfs.join(fs, pid)
        yield dict(fs, env=localslurm)


def _night(fs, runs, bps, fs_version):
    cappedfs.cap(fs, bps)
    proc = run_reframe(
        ['--system', 'localslurm:srun', '-c', str(CHECKS / 'dd'),
         '-n', 'dd_stream_per_node', '-P', 'nodes=2', '-S', 'count=24',
         # Flushed writes, reads from the device (the source's mode reads
         # the page cache, which the cap does not slow).
         '-S', 'dd_mode=fdatasync', '-S', 'repeats=1',
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
    settings = tmp_path / 'gate.yaml'
    settings.write_text(cappedfs.READ_GATE_SETTINGS)
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
    html = tmp_path / 'g.html'
    code, out, err = _pfsbench(gate + ['--junit', str(tmp_path / 'g.xml'),
                                       '--html', str(html)])
    assert code == 1, out + err
    page = html.read_text()
    assert page.count('<svg ') == 1          # one history, one case
    assert 'dd_stream_per_node %nodes=2' in page
    # One note for the case: its worst figure, those equal to it, the
    # others that regressed too.
    note = re.search(
        r'^regression: dd_stream_per_node %nodes=2 @localslurm:srun\+builtin '
        r'(\w+):.*\n(?:  equal by construction: (.*)\n)?'
        r'(?:  also regression: (.*)\n)?', out, re.M)
    assert note, out
    regressed = {note.group(1), *(note.group(2) or '').split(', '),
                 *(f.split()[0] for f in (note.group(3) or '').split(', ')
                   if f)}
    assert 'read_bw' in regressed, out
    # The per-node minimum is a diagnostic (core/fields.figure_role): it
    # never pages (docs/gate.md).
    assert 'read_node_bw_min' not in regressed, out
    assert '<failure' in (tmp_path / 'g.xml').read_text()

    code, _, err = _pfsbench(gate + ['--name', 'no_such_check'])
    assert code == 3 and 'no test case selected' in err

    # The slurmds ran every dd of these nights inside the capped cgroup.
    with open(os.path.join(fs['cgroup'], 'cgroup.procs')) as fp:
        assert set(_slurmd_pids()) <= set(fp.read().split())
