# SPDX-License-Identifier: BSD-3-Clause
"""bonnie++ command lines: seed 001's mapped to bonnie++ 2.x, and the
flags bonnie++ would refuse."""

import pytest

from pfsbench.commands import bonnie
from pfsbench.core.shell import shell_join


def test_seed001_per_node_e7():
    """``bonnie -d $DIR -s 2000 -v 16 -y`` -> 16 x 2000 MiB in bonnie++."""
    assert bonnie.seed001_bonnie('$DIR', machine='n001', user='root') == [
        'bonnie++', '-d', '$DIR', '-s', '32000', '-n', '0', '-r', '0',
        '-m', 'n001', '-u', 'root', '-q']


def test_seed001_twelve_per_node_e10():
    """``bonnie -d $DIR -s 200 -v 16 -y`` -> 3200 MiB per instance."""
    argv = bonnie.seed001_bonnie(
        '{stream_dir}',
        bonnie.SEED001_VOLUME_MIB_MULTI * bonnie.SEED001_VOLUMES)
    assert argv[argv.index('-s') + 1] == '3200'
    assert '-u' not in argv and '-m' not in argv
    assert '-y' not in argv        # the source ran unsynchronised


def test_seed_command_renders_for_a_job_script():
    line = shell_join(bonnie.seed001_bonnie('$RUN_DIR/s1', machine='n1'))
    assert line == ('bonnie++ -d "$RUN_DIR/s1" -s 32000 -n 0 -r 0 -m n1 '
                    '-q')


def test_chunk_seeks_and_seekers_share_the_size_flag():
    argv = bonnie.bonnie_argv('/d', 1024, chunk_bytes=65536, seeks=4000,
                              seek_procs=3)
    assert argv[argv.index('-s') + 1] == '1024:65536:4000:3'
    argv = bonnie.bonnie_argv('/d', 1024, seeks=4000)
    assert argv[argv.index('-s') + 1] == '1024::4000'
    argv = bonnie.bonnie_argv('/d', 1024, chunk_bytes=4096)
    assert argv[argv.index('-s') + 1] == '1024:4096'


def test_optional_flags():
    argv = bonnie.bonnie_argv('/d', 512, files_k=4, char_io_mib=0,
                              fsync_writes=True, direct=True,
                              semaphore_sync=True, repeats=3, quiet=False)
    assert argv[:7] == ['bonnie++', '-d', '/d', '-s', '512', '-n', '4']
    assert argv[7:] == ['-f0', '-b', '-D', '-y', 's', '-x', '3']


def test_semaphores_for_synchronised_instances():
    assert bonnie.semaphore_argv(12, user='root') == [
        'bonnie++', '-p', '12', '-u', 'root']
    assert bonnie.semaphore_argv(-1) == ['bonnie++', '-p', '-1']


@pytest.mark.parametrize('kwargs', [
    dict(size_mib=0, files_k=0), dict(size_mib=-1),
    dict(size_mib=64, chunk_bytes=3000), dict(size_mib=64, chunk_bytes=128),
    dict(size_mib=64, chunk_bytes=2**21)])
def test_refused_sizes(kwargs):
    with pytest.raises(ValueError):
        bonnie.bonnie_argv('/d', **kwargs)
