# SPDX-License-Identifier: BSD-3-Clause
"""fio command lines: one sequential job per stream and phase."""

import shlex

from pfsbench.commands import fio


def _phases(argv):
    return dict(argv[i + 1].split('=', 1) for i, word in enumerate(argv)
                if word == '--phase')


def test_sequential_write_then_read_of_one_file():
    assert fio.fio_sequential('{stream_dir}/fio.dat', 'write', 2**20) == [
        'fio', '--name=stream', '--filename={stream_dir}/fio.dat',
        '--rw=write', '--bs=1048576', '--size=1048576', '--ioengine=psync',
        '--output-format=json', '--end_fsync=1']
    read = fio.fio_sequential('f', 'read', 4096, block_size=4096,
                              direct=True)
    assert read[-2:] == ['--output-format=json', '--direct=1']
    assert '--end_fsync=1' not in read


def test_streams_argv_reads_direct_only_in_direct_mode():
    argv = fio.streams_argv('/scratch/run', size=2**27, fan_out=2,
                            cache_defeat='direct', python='python3')
    assert argv[:3] == ['python3', '-m', 'pfsbench.runner']
    phases = _phases(argv)
    assert list(phases) == ['write', 'read']
    write, read = (shlex.split(phases[p]) for p in ('write', 'read'))
    assert write[0] == 'fio' and '--rw=write' in write
    assert '--size=134217728' in write and '--direct=1' not in write
    assert '--rw=read' in read and read[-1] == '--direct=1'
    for mode in ('drop_caches', 'none'):
        argv = fio.streams_argv('/r', cache_defeat=mode)
        assert '--direct=1' not in ' '.join(argv)
