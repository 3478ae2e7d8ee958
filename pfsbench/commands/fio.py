# SPDX-License-Identifier: BSD-3-Clause
"""fio command lines: one fio per stream of the streams runner.

fio has parallel modes of its own (``--numjobs``, client/server), but they
start every job on one host or need a daemon per node; here each stream runs
one plain fio process, like dd in seed 001, and the streams runner
(:mod:`pfsbench.runner`, its argv from :mod:`pfsbench.commands.streams`)
starts them all together and times them.  Each stream writes one file
sequentially, then reads it back, as dd does, so the two tools' figures
compare.
"""

#: Bytes per read or write call: 1 MiB.
DEFAULT_BLOCK_SIZE = 2**20
#: Bytes per stream: 1 GiB (partitions' ``max_bytes_per_stream`` may cap).
DEFAULT_BYTES_PER_STREAM = 2**30


def fio_sequential(path, rw, size, block_size=DEFAULT_BLOCK_SIZE,
                   direct=False, binary='fio'):
    """argv of one fio job that writes or reads one file from start to end.

    Args:
        path: the file (may hold the runner's ``{stream_dir}``; no ``:``,
            which fio reads as a list of files).
        rw: ``write`` or ``read``.
        size: bytes to move.
        block_size: bytes per call.
        direct: O_DIRECT (the cache-defeat mode ``direct``, on reads).
        binary: the fio executable.

    Returns:
        the argv list.
    """
    argv = [binary,
            '--name=stream',               # the JSON's jobname
            f'--filename={path}',          # one file per stream, its own dir
            f'--rw={rw}',                  # sequential, like dd
            f'--bs={block_size}',
            f'--size={size}',
            '--ioengine=psync',            # plain read/write calls, like dd
            '--output-format=json']        # parsed by pfsbench.parsers.fio
    if rw == 'write':
        argv.append('--end_fsync=1')       # time includes flushing to the FS
    if direct:
        argv.append('--direct=1')          # bypass the client page cache
    return argv


def stream_phases(size=DEFAULT_BYTES_PER_STREAM,
                  block_size=DEFAULT_BLOCK_SIZE, direct_read=False,
                  binary='fio'):
    """The runner's phases of one fio stream: write its file, read it back.

    As with dd, the write is buffered and ends with an fsync, and only the
    read bypasses the page cache in the ``direct`` mode (``drop_caches``
    drops every node's cache between the phases instead).

    Args:
        size: bytes per stream.
        block_size: bytes per call.
        direct_read: read with O_DIRECT (the cache-defeat mode ``direct``).
        binary: the fio executable.

    Returns:
        ``[(name, argv), ...]`` for :func:`pfsbench.commands.streams.runner`.
    """
    path = '{stream_dir}/fio.dat'
    return [('write', fio_sequential(path, 'write', size, block_size,
                                     binary=binary)),
            ('read', fio_sequential(path, 'read', size, block_size,
                                    direct=direct_read, binary=binary))]
