# SPDX-License-Identifier: BSD-3-Clause
"""fio command lines: one sequential job per stream and phase."""

from pfsbench.commands import fio


def test_sequential_write_then_read_of_one_file():
    assert fio.fio_sequential('{stream_dir}/fio.dat', 'write', 2**20) == [
        'fio', '--name=stream', '--filename={stream_dir}/fio.dat',
        '--rw=write', '--bs=1048576', '--size=1048576', '--ioengine=psync',
        '--output-format=json', '--end_fsync=1']
    read = fio.fio_sequential('f', 'read', 4096, block_size=4096,
                              direct=True)
    assert read[-2:] == ['--output-format=json', '--direct=1']
    assert '--end_fsync=1' not in read


def test_stream_phases_read_direct_only_when_asked():
    (write_name, write), (read_name, read) = fio.stream_phases(
        size=2**27, direct_read=True, binary='/view/bin/fio')
    assert (write_name, read_name) == ('write', 'read')
    assert write[0] == read[0] == '/view/bin/fio'
    assert '--rw=write' in write and '--filename={stream_dir}/fio.dat' in write
    assert '--size=134217728' in write and '--direct=1' not in write
    assert '--rw=read' in read and read[-1] == '--direct=1'
    assert all('--direct=1' not in argv
               for _, argv in fio.stream_phases(direct_read=False))
