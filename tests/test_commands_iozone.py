# SPDX-License-Identifier: BSD-3-Clause
"""iozone command lines: seed 001's, exactly, plus its other modes."""

import subprocess

import pytest

from pfsbench.commands import iozone
from pfsbench.core.shell import shell_join
from pfsbench.runner import iozone_clients

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
    clients = iozone_clients.clients(['n1', 'n2'], 2, '/scratch/r')
    text = iozone_clients.cluster_file_text(clients, '/opt/iozone/bin/iozone')
    assert text == (
        'n1 /scratch/r/n1.1 /opt/iozone/bin/iozone\n'
        'n1 /scratch/r/n1.2 /opt/iozone/bin/iozone\n'
        'n2 /scratch/r/n2.1 /opt/iozone/bin/iozone\n'
        'n2 /scratch/r/n2.2 /opt/iozone/bin/iozone\n')


def test_seed001_cluster_mode():
    argv = iozone.seed001_cluster('/r/clients', 24, file_size_kib=2500000,
                                  executable='/opt/iozone/bin/iozone')
    assert argv == ['/opt/iozone/bin/iozone', '-s', '2500000', '-r', '1024',
                    '-I', '-c', '-o', '-l', '24', '-u', '24', '-t', '24',
                    '-C', '-+m', '/r/clients']
    with pytest.raises(ValueError, match='1025 processes: expected 1 to '
                                         '1024'):
        iozone.seed001_cluster('/r/clients', 1025)


def test_cluster_hosts_are_the_slurm_jobs_nodes(monkeypatch):
    assert iozone_clients.job_hosts({}) == ['localhost']
    calls = []

    def scontrol(argv, **kwargs):
        calls.append(argv)
        return subprocess.CompletedProcess(argv, 0, 'n1\nn2\n')

    monkeypatch.setattr(subprocess, 'run', scontrol)
    assert iozone_clients.job_hosts({'SLURM_JOB_NODELIST': 'n[1-2]'}) == \
        ['n1', 'n2']
    assert calls == [['scontrol', 'show', 'hostnames', 'n[1-2]']]


def test_cluster_client_file_is_written_with_a_dir_per_client(
        tmp_path, capsys, monkeypatch):
    monkeypatch.delenv('SLURM_JOB_NODELIST', raising=False)
    out = tmp_path / 'clients'
    assert iozone_clients.main(['--run-dir', str(tmp_path), '--per-host',
                                '3', '--iozone', '/x/iozone', '--output',
                                str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines == [f'localhost {tmp_path}/localhost.{i} /x/iozone'
                     for i in (1, 2, 3)]
    assert capsys.readouterr().out.splitlines() == lines
    assert all((tmp_path / f'localhost.{i}').is_dir() for i in (1, 2, 3))


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
