# SPDX-License-Identifier: BSD-3-Clause
"""iozone command lines for E8 and E10 (seed 001), and iozone's other modes.

Seed 001 ran, on every node (Lustre; without ``-I`` on Panasas, where it
crashed iozone)::

    iozone -s 25000000 -r 1024 -I -c -o

and, in throughput mode, N processes on one node (E8, N = 1..12) and 12 per
node on 1..64 nodes (E10, ``-s 2500000``)::

    iozone -s 25000000 -r 1024 -I -c -o -l N -u N -t N

Sizes are iozone's: a bare number is KiB (``-s 25000000`` is 23.8 GiB, the
source's "25G"), ``-r 1024`` is 1 MiB.  pfsbench adds ``-F`` with one file
per process in the stream's own directory (iozone would otherwise write
``iozone.DUMMY.*`` into the working directory), or ``-f`` for one file.

The source's 256-process limit was iozone's MAXSTREAMS before revision
3.470; 3.470 and later allow 1024 (:data:`MAX_STREAMS`).
"""

import sys

#: iozone's MAXSTREAMS: processes of one throughput test (revision >= 3.470).
MAX_STREAMS = 1024
#: Seed 001: file size (KiB) with one process per node and in E8.
SEED001_FILE_KIB = 25000000
#: Seed 001: file size (KiB) with 12 processes per node (E10).
SEED001_FILE_KIB_MULTI = 2500000
#: Seed 001: record size (KiB).
SEED001_RECORD_KIB = 1024
#: iozone's ``-i`` test numbers.
TESTS = {'write': 0, 'read': 1, 'random': 2, 'backward read': 3,
         'record rewrite': 4, 'stride read': 5, 'fwrite': 6, 'fread': 7,
         'random mix': 8, 'pwrite': 9, 'pread': 10}


def _sizes_and_timing(file_size_kib, record_size_kib, direct, include_close,
                      sync_writes, include_fsync, executable):
    """What every mode shares, in the seed's order (-s -r -I -c -o)."""
    argv = [executable,
            '-s', str(file_size_kib),     # file size per process, KiB
            '-r', str(record_size_kib)]   # record (I/O call) size, KiB
    if direct:
        argv += ['-I']                    # O_DIRECT: bypass the page cache
    if include_close:
        argv += ['-c']                    # close() inside the write timing
    if sync_writes:
        argv += ['-o']                    # O_SYNC writes
    if include_fsync:
        argv += ['-e']                    # fsync() inside the write timing
    return argv


def _options(tests, ops_mode, excel):
    argv = []
    for test in tests or ():
        if test not in TESTS:
            raise ValueError(f'iozone test {test!r}: expected one of '
                             f'{sorted(TESTS)}')
        argv += ['-i', str(TESTS[test])]  # only these (0 writes the files)
    if ops_mode:
        argv += ['-O']                    # operations/s instead of kB/s
    if excel:
        argv += ['-R']                    # report tables after the run
    return argv


def file_names(directory, processes):
    """One file per process in ``directory`` (``-F``)."""
    return [f'{directory}/iozone.{i}' for i in range(1, processes + 1)]


def throughput_argv(files, *, file_size_kib, record_size_kib=1024,
                    direct=False, include_close=False, sync_writes=False,
                    include_fsync=False, tests=None, ops_mode=False,
                    stonewall=True, per_process=False, excel=False,
                    cluster_file=None, executable='iozone'):
    """argv of an iozone throughput test: ``len(files)`` processes (or
    cluster clients) that start each sub-test together.

    Args:
        files: ``-F``, one file per process; in cluster mode, one name per
            client line (only the count is used: ``-+m`` names the dirs).
        file_size_kib: ``-s``, KiB per process.
        record_size_kib: ``-r``, KiB per I/O call.
        direct: ``-I`` (O_DIRECT).
        include_close: ``-c``.
        sync_writes: ``-o`` (O_SYNC).
        include_fsync: ``-e``.
        tests: ``-i``: names from :data:`TESTS`; None runs them all.
        ops_mode: ``-O``.
        stonewall: False adds ``-x``: every process moves its whole file
            instead of stopping when the first one finishes.
        per_process: ``-C``, print each process's figures.
        excel: ``-R``.
        cluster_file: ``-+m FILE``, iozone's cluster mode (one client per
            line: host, directory, iozone path).
        executable: the iozone binary.

    Returns:
        the argv list.

    Raises:
        ValueError: more processes than iozone allows, or an unknown test.
    """
    processes = len(files)
    if not 1 <= processes <= MAX_STREAMS:
        raise ValueError(f'iozone throughput test with {processes} '
                         f'processes: expected 1 to {MAX_STREAMS}')
    argv = _sizes_and_timing(file_size_kib, record_size_kib, direct,
                             include_close, sync_writes, include_fsync,
                             executable)
    n = str(processes)
    argv += ['-l', n,                     # at least N processes
             '-u', n,                     # at most N: one run, N processes
             '-t', n]                     # throughput mode, N processes
    argv += _options(tests, ops_mode, excel)
    if not stonewall:
        argv += ['-x']                    # no stonewalling
    if per_process:
        argv += ['-C']                    # each process's moved/rate
    if cluster_file is not None:
        argv += ['-+m', cluster_file]     # clients on other nodes
    else:
        argv += ['-F', *files]            # each process's own file
    return argv


def single_argv(test_file, *, file_size_kib, record_size_kib=1024,
                direct=False, include_close=False, sync_writes=False,
                include_fsync=False, tests=None, ops_mode=False,
                excel=False, executable='iozone'):
    """argv of one iozone process on one file and record size (the table
    has one row).  Arguments as for :func:`throughput_argv`; ``test_file``
    is ``-f``."""
    argv = _sizes_and_timing(file_size_kib, record_size_kib, direct,
                             include_close, sync_writes, include_fsync,
                             executable)
    return argv + _options(tests, ops_mode, excel) + [
        '-f', test_file]                  # the one test file


def auto_argv(test_file, *, max_file_size_kib=None, min_file_size_kib=None,
              include_close=False, include_fsync=False, tests=None,
              ops_mode=False, excel=False, executable='iozone'):
    """argv of iozone's auto mode: every file size (``-n``..``-g``) with
    every record size, one table row each.

    Args:
        test_file: ``-f``.
        max_file_size_kib: ``-g``; iozone's default is 512 MiB.
        min_file_size_kib: ``-n``; iozone's default is 64 KiB.
        include_close, include_fsync, tests, ops_mode, excel, executable:
            as for :func:`throughput_argv`.
    """
    argv = [executable, '-a']             # auto mode
    if min_file_size_kib is not None:
        argv += ['-n', str(min_file_size_kib)]  # smallest file, KiB
    if max_file_size_kib is not None:
        argv += ['-g', str(max_file_size_kib)]  # largest file, KiB
    if include_close:
        argv += ['-c']
    if include_fsync:
        argv += ['-e']
    return argv + _options(tests, ops_mode, excel) + ['-f', test_file]


def cluster_clients_argv(run_dir, per_host, executable, client_file,
                         python=None):
    """argv writing the ``-+m`` file of the job's nodes
    (:mod:`pfsbench.runner.iozone_clients`), run once in the batch script.

    Args:
        run_dir: the run directory; client ``i`` of host ``h`` works in
            ``run_dir/h.i``.
        per_host: clients on every node.
        executable: iozone's path on the nodes.
        client_file: the file to write (``-+m``).
        python: the interpreter with pfsbench installed (default: this
            one).
    """
    return [python or sys.executable, '-m', 'pfsbench.runner.iozone_clients',
            '--run-dir', run_dir,
            '--per-host', str(per_host),      # clients on every node
            '--iozone', executable,
            '--output', client_file]


def seed001_single(test_file, direct=True, file_size_kib=SEED001_FILE_KIB,
                   executable='iozone'):
    """Seed 001: ``iozone -s 25000000 -r 1024 -I -c -o`` (``direct=False``
    drops ``-I``, as the source did on Panasas), on ``test_file``."""
    return single_argv(test_file, file_size_kib=file_size_kib,
                       record_size_kib=SEED001_RECORD_KIB, direct=direct,
                       include_close=True, sync_writes=True,
                       executable=executable)


def seed001_throughput(directory, processes, file_size_kib=SEED001_FILE_KIB,
                       executable='iozone', tests=None):
    """Seed 001 (E8, E10): ``iozone -s S -r 1024 -I -c -o -l N -u N -t N``
    with N files in ``directory`` (``tests``: only these, ``-i``; None:
    all, as the source)."""
    return throughput_argv(file_names(directory, processes),
                           file_size_kib=file_size_kib,
                           record_size_kib=SEED001_RECORD_KIB, direct=True,
                           include_close=True, sync_writes=True,
                           tests=tests, executable=executable)


def seed001_cluster(client_file, clients, file_size_kib=SEED001_FILE_KIB,
                    executable='iozone', tests=None):
    """Seed 001's throughput test in iozone's cluster mode: ``iozone -s S
    -r 1024 -I -c -o -l N -u N -t N -C -+m FILE``, N the clients of the
    file (``-C``: each client's own figures, to find the slowest).

    The clients start through ``$RSH`` (rsh by default; the caller sets
    e.g. ``RSH=ssh``)."""
    return throughput_argv([None] * clients, file_size_kib=file_size_kib,
                           record_size_kib=SEED001_RECORD_KIB, direct=True,
                           include_close=True, sync_writes=True,
                           tests=tests, per_process=True,
                           cluster_file=client_file, executable=executable)


def single_stream_phases(file_size_kib=SEED001_FILE_KIB, direct=True,
                         executable='iozone'):
    """The streams runner's one phase of seed 001's E19 on a node: one
    iozone on one file in the stream's own directory, every sub-test.

    Args:
        file_size_kib: ``-s``, KiB.
        direct: ``-I``; the source dropped it on Panasas.
        executable: the iozone binary.

    Returns:
        ``[('iozone', argv)]`` for :func:`pfsbench.commands.streams.runner`.
    """
    return [('iozone', seed001_single('{stream_dir}/iozone.tmp', direct,
                                      file_size_kib, executable))]


def stream_phases(processes, file_size_kib=SEED001_FILE_KIB, tests=None,
                  executable='iozone'):
    """The streams runner's one phase of a node's throughput group: seed
    001's throughput test with ``processes`` files in the stream's own
    directory.

    Args:
        processes: N of ``-l N -u N -t N`` (one group per node).
        file_size_kib: ``-s``, KiB per process.
        tests: ``-i`` names from :data:`TESTS`; None: every test.
        executable: the iozone binary.

    Returns:
        ``[('iozone', argv)]`` for :func:`pfsbench.commands.streams.runner`.
    """
    return [('iozone', seed001_throughput('{stream_dir}', processes,
                                          file_size_kib, executable,
                                          tests))]
