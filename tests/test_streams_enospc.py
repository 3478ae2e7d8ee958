# SPDX-License-Identifier: BSD-3-Clause
"""A target that fills up mid-run: every stream stops at once, the check
fails naming ENOSPC, and nothing is left on the target.

Once, a stream hit ENOSPC while writing a barrier marker and its peers
waited for the 3600 s barrier timeout: the run hung for 12 minutes.  Here
four dd (or fio) streams of 16 MiB each write to a 24 MiB tmpfs (root only:
it is mounted for the test).
"""

import contextlib
import glob
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from conftest import CHECKS, run_reframe

TARGET_MIB = 24


@contextlib.contextmanager
def mounted_tmpfs(options):
    """A tmpfs mounted with ``options`` (``size=24m``), unmounted
    afterwards; skips the calling test without root."""
    if os.geteuid() != 0:
        pytest.skip('mounting a small tmpfs needs root')
    mnt = tempfile.mkdtemp(prefix='pfsbench-tiny-', dir='/var/tmp')
    cmd = ['mount', '-t', 'tmpfs', '-o', options, 'tmpfs', mnt]
    print('+', ' '.join(cmd))
    proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)
    if proc.returncode != 0:
        os.rmdir(mnt)
        pytest.skip(f'cannot mount a tmpfs here: {proc.stdout.strip()}')
    try:
        yield mnt
    finally:
        subprocess.run(['umount', mnt])
        os.rmdir(mnt)


@pytest.fixture
def tiny_target():
    """A mounted 24 MiB tmpfs, unmounted afterwards."""
    with mounted_tmpfs(f'size={TARGET_MIB}m') as mnt:
        yield mnt


#: family -> (check, its options for 16 MiB per stream, its error line).
CASES = {
    'dd': ('dd_streams_one_node', ['-S', 'count=16',
                                   '-S', 'block_size=1048576'],
           r"dd: error writing '[^']*': No space left on device"),
    'fio': ('fio_streams', ['-P', 'nodes=1', '-S', f'size={2**24}'],
            r'fio: io_u error on file [^:]*: No space left on device: '
            r'write offset=\d+, buflen=\d+'),
}


@pytest.mark.parametrize('family', sorted(CASES))
def test_full_target_stops_every_stream_and_names_enospc(tmp_path,
                                                         tiny_target,
                                                         family):
    fill_target(tmp_path, tiny_target, family)
    # The job removed its run directory; the streams their files.
    assert os.listdir(tiny_target) == []


def fill_target(tmp_path, tiny_target, family):
    """Run ``family``'s 4 streams of 16 MiB on ``tiny_target``: the check
    fails naming ENOSPC and every stream stops within 10 s of the first
    failure (the fault matrix runs it on a planted target)."""
    check, options, error = CASES[family]
    if shutil.which(family) is None:
        pytest.skip(f'{family} not on PATH')
    proc = run_reframe(['-c', str(CHECKS / family), '-n', check,
                        '-P', 'streams_per_node=4', *options, '-r'],
                       tmp_path, env={'PFSBENCH_SCRATCH': tiny_target},
                       timeout=300)
    assert proc.returncode != 0
    assert re.search(r'Reason: sanity error: rfm_job\.out:\d+: stream \d '
                     rf'write exited with 1, got: "{error}"', proc.stdout), \
        proc.stdout
    out = glob.glob(f'{tmp_path}/stage/local/default/builtin/'
                    f'{check}_*/rfm_job.out')
    text = open(out[0]).read()
    records = [dict(re.findall(r'(\w+)=(\S+)', ln)) for ln in
               text.splitlines() if ln.startswith('pfsbench-stream: stream=')]
    failures = [float(r['end']) for r in records
                if 'phase' in r and r['exit'] != '0' and 'stopped' not in r]
    ends = [float(r['end']) for r in records if 'status' in r]
    assert failures and len(ends) == 4
    print(f'{family}: every stream ended within '
          f'{max(ends) - min(failures):.3f} s of the first failure')
    assert max(ends) - min(failures) < 10
