# SPDX-License-Identifier: BSD-3-Clause
"""iozone command lines: seed 001's, exactly, plus its other modes."""

import pytest

from pfsbench.commands import iozone, shell_join

SEED_THROUGHPUT = ['iozone', '-s', '25000000', '-r', '1024', '-I', '-c',
                   '-o', '-l', '12', '-u', '12', '-t', '12']


def test_seed001_throughput_e8():
    """``iozone -s 25000000 -r 1024 -I -c -o -l N -u N -t N``, N = 12,
    and one -F file per process in the stream's directory."""
    argv = iozone.seed001_throughput('/scratch/run/s1', 12)
    assert argv[:14] == SEED_THROUGHPUT
    assert argv[14] == '-F'
    assert argv[15:] == [f'/scratch/run/s1/iozone.{i}'
                         for i in range(1, 13)]


def test_seed001_throughput_e10_file_size():
    argv = iozone.seed001_throughput(
        '{stream_dir}', 12, file_size_kib=iozone.SEED001_FILE_KIB_MULTI)
    assert argv[1:3] == ['-s', '2500000']
    assert shell_join(argv).startswith(
        'iozone -s 2500000 -r 1024 -I -c -o -l 12 -u 12 -t 12 -F '
        '{stream_dir}/iozone.1 ')


def test_seed001_single_lustre_and_panasas():
    assert iozone.seed001_single('$DIR/f') == [
        'iozone', '-s', '25000000', '-r', '1024', '-I', '-c', '-o',
        '-f', '$DIR/f']
    # "-I option caused Iozone to crash" on Panasas: the source dropped it.
    assert '-I' not in iozone.seed001_single('$DIR/f', direct=False)


def test_throughput_options_and_cluster_mode():
    argv = iozone.throughput_argv(['a', 'b'], file_size_kib=1024,
                                  record_size_kib=64, include_fsync=True,
                                  tests=['write', 'random'], ops_mode=True,
                                  stonewall=False, per_process=True,
                                  excel=True, cluster_file='/r/clients')
    assert argv == ['iozone', '-s', '1024', '-r', '64', '-e',
                    '-l', '2', '-u', '2', '-t', '2', '-i', '0', '-i', '2',
                    '-O', '-R', '-x', '-C', '-+m', '/r/clients']


def test_cluster_file_lines():
    assert iozone.cluster_file_text(['n1', 'n1', 'n2'], '/scratch/r',
                                    '/opt/iozone/bin/iozone') == (
        'n1 /scratch/r /opt/iozone/bin/iozone\n'
        'n1 /scratch/r /opt/iozone/bin/iozone\n'
        'n2 /scratch/r /opt/iozone/bin/iozone\n')


def test_auto_mode():
    assert iozone.auto_argv('/d/auto.tmp', min_file_size_kib=1024,
                            max_file_size_kib=16384, tests=['write', 'read'],
                            excel=True) == [
        'iozone', '-a', '-n', '1024', '-g', '16384', '-i', '0', '-i', '1',
        '-R', '-f', '/d/auto.tmp']


def test_stream_limit():
    iozone.throughput_argv(['f'] * iozone.MAX_STREAMS, file_size_kib=1)
    with pytest.raises(ValueError, match='1 to 1024'):
        iozone.throughput_argv(['f'] * (iozone.MAX_STREAMS + 1),
                               file_size_kib=1)
    with pytest.raises(ValueError):
        iozone.throughput_argv([], file_size_kib=1)


def test_unknown_test_refused():
    with pytest.raises(ValueError, match='iozone test'):
        iozone.single_argv('f', file_size_kib=1, tests=['rewrite'])
