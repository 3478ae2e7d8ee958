# SPDX-License-Identifier: BSD-3-Clause
"""pfsbench.commands.ior: exact argv of the presets and the flag rules."""

import pytest

from pfsbench.commands import ior
from pfsbench.core.shell import shell_join


def test_seed002_is_the_published_command():
    # Seed 002 ran: IOR -a MPIIO -b 4g -t 4m -i 1 -F -o /gluster/output
    assert ior.seed002_mpiio_fpp('/gluster/output', executable='IOR') == [
        'IOR', '-a', 'MPIIO', '-b', '4g', '-t', '4m', '-i', '1', '-F',
        '-o', '/gluster/output']


def test_seed002_scales():
    assert ior.SEED002_SCALES == {36: 12, 72: 24}
    assert shell_join(ior.seed002_mpiio_fpp('$SCRATCH/ior/output')) == \
        'ior -a MPIIO -b 4g -t 4m -i 1 -F -o "$SCRATCH/ior/output"'


def test_seed003_block_is_44_7_gib():
    assert round(ior.size_bytes(ior.SEED003_BLOCK_SIZE) / 2**30, 1) == 44.7
    # IOR refuses a block that is not whole transfers.
    for transfer in ior.SEED003_TRANSFER_SIZES:
        assert ior.size_bytes(ior.SEED003_BLOCK_SIZE) % \
            ior.size_bytes(transfer) == 0


def test_io500_ior_easy():
    assert ior.io500_ior_easy('/d', '/r', 'write') == [
        'ior', '-a', 'POSIX', '-b', '9920000m', '-t', '2m', '-F', '-C',
        '-Q', '1', '-g', '-G', '271', '-e', '-D', '300',
        '-O', 'stoneWallingWearOut=1',
        '-O', 'stoneWallingStatusFile=/r/ior-easy.stonewall', '-w', '-k',
        '--dataPacketType=timestamp',
        '-O', 'saveRankPerformanceDetailsCSV=/r/ior-easy-write.csv',
        '-o', '/d/ior-easy/ior_file_easy']
    assert ior.io500_ior_easy('/d', '/r', 'read') == [
        'ior', '-a', 'POSIX', '-b', '9920000m', '-t', '2m', '-F', '-C',
        '-Q', '1', '-g', '-G', '271', '-e',
        '-O', 'stoneWallingStatusFile=/r/ior-easy.stonewall', '-r', '-R',
        '-k', '--dataPacketType=timestamp',
        '-O', 'saveRankPerformanceDetailsCSV=/r/ior-easy-read.csv',
        '-o', '/d/ior-easy/ior_file_easy']


def test_io500_ior_hard():
    assert ior.io500_ior_hard('/d', '/r', 'write', segments=1000,
                              stonewall_s=30) == [
        'ior', '-a', 'POSIX', '-b', '47008', '-t', '47008', '-s', '1000',
        '-C', '-Q', '1', '-g', '-G', '271', '-e', '-D', '30',
        '-O', 'stoneWallingWearOut=1',
        '-O', 'stoneWallingStatusFile=/r/ior-hard.stonewall', '-w', '-k',
        '--dataPacketType=timestamp',
        '-O', 'saveRankPerformanceDetailsCSV=/r/ior-hard-write.csv',
        '-o', '/d/ior-hard/file']
    assert '-F' not in ior.io500_ior_hard('/d', '/r', 'read')
    with pytest.raises(ValueError, match='phase'):
        ior.io500_ior_hard('/d', '/r', 'delete')


def test_cache_defeat_odirect_json_and_phases():
    argv = ior.ior_argv('/s/f', transfer_size='1m', block_size='32m',
                        odirect=True, reorder_tasks=True,
                        task_per_node_offset=1, fsync=True, read=False,
                        summary_json=True, summary_file='/s/sum.json',
                        keep_file=True)
    assert argv == [
        'ior', '-a', 'POSIX', '-b', '32m', '-t', '1m', '--posix.odirect',
        '-C', '-Q', '1', '-e', '-w', '-k', '-O', 'summaryFormat=JSON',
        '-O', 'summaryFile=/s/sum.json', '-o', '/s/f']


def test_stonewall_without_wear_out():
    argv = ior.ior_argv('/s/f', stonewall_s=1, stonewall_wear_out=False)
    assert argv[argv.index('-D'):argv.index('-o')] == ['-D', '1']


def test_hdf5_collective():
    argv = ior.ior_argv('/s/h5', api='HDF5', collective=True)
    assert argv[:3] == ['ior', '-a', 'HDF5'] and '-c' in argv


@pytest.mark.parametrize('params, match', [
    (dict(api='NOSUCHAPI'), 'api'),
    (dict(block_size='4m', transfer_size='3m'), 'multiple'),
    (dict(block_size='4x'), 'suffix'),
    (dict(api='MPIIO', odirect=True), 'POSIX'),
    (dict(collective=True), 'MPIIO'),
    (dict(write=False, read=False), 'neither'),
])
def test_refused(params, match):
    with pytest.raises(ValueError, match=match):
        ior.ior_argv('/s/f', **params)


def test_size_bytes():
    assert ior.size_bytes('4m') == 4 * 2**20
    assert ior.size_bytes('47008') == 47008
    assert ior.size_bytes('9920000m') == 9920000 * 2**20
    assert ior.size_bytes(4096) == 4096


def test_size_text_is_the_inverse_of_size_bytes():
    assert [ior.size_text(n) for n in (4 * 2**30, 128 * 2**20, 10240,
                                       47008)] == ['4g', '128m', '10k',
                                                   '47008']
    for text in ('4g', '45775m', '100k', '47008'):
        assert ior.size_text(ior.size_bytes(text)) == text


def test_whole_transfers():
    assert ior.whole_transfers(128 * 2**20, '47008') == \
        128 * 2**20 // 47008 * 47008
    assert ior.whole_transfers(2**20, '1m') == 2**20
    # Never below one transfer, even under a smaller cap.
    assert ior.whole_transfers(1000, '47008') == 47008
