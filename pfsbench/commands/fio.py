# SPDX-License-Identifier: BSD-3-Clause
"""fio command lines: one fio per stream of the streams runner.

fio has parallel modes of its own (``--numjobs``, client/server), but they
start every job on one host or need a daemon per node; here each stream runs
one plain fio process, like dd in seed 001, and the runner
(:mod:`pfsbench.commands.streams`) starts them all together and times them.
Each stream writes one file sequentially, then reads it back, as dd does, so
the two tools' figures compare.
"""

from pfsbench.commands.streams import runner

#: Bytes per read or write call: 1 MiB.
DEFAULT_BLOCK_SIZE = 2**20
#: Bytes per stream: 1 GiB (partitions' ``max_bytes_per_stream`` may cap).
DEFAULT_BYTES_PER_STREAM = 2**30


def fio_sequential(path, rw, size, block_size=DEFAULT_BLOCK_SIZE,
                   direct=False):
    """argv of one fio job that writes or reads one file from start to end.

    Args:
        path: the file (may hold the runner's ``{stream_dir}``; no ``:``,
            which fio reads as a list of files).
        rw: ``write`` or ``read``.
        size: bytes to move.
        block_size: bytes per call.
        direct: O_DIRECT (the cache-defeat mode ``direct``, on reads).

    Returns:
        the argv list.
    """
    argv = ['fio',
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


def streams_argv(run_dir, size=DEFAULT_BYTES_PER_STREAM,
                 block_size=DEFAULT_BLOCK_SIZE, fan_out=1,
                 cache_defeat='direct', drop_caches_command=None,
                 barrier_timeout=3600, python=None):
    """argv of one launcher task of a fio streams run: write, then read.

    As with dd, the write is buffered and ends with an fsync, and only the
    read bypasses the page cache in the ``direct`` mode (``drop_caches``
    drops every node's cache between the phases instead).

    Args:
        run_dir: the run directory (may be a ``$VARIABLE`` in a template).
        size: bytes per stream.
        block_size: bytes per call.
        fan_out: streams this task runs.
        cache_defeat: ``drop_caches``, ``direct`` or ``none``.
        drop_caches_command: the partition's command for ``drop_caches``.
        barrier_timeout: seconds a barrier waits for its last stream.
        python: interpreter with pfsbench installed (default: this one).

    Returns:
        the argv list.
    """
    path = '{stream_dir}/fio.dat'
    return runner(
        run_dir=run_dir,
        phases=[('write', fio_sequential(path, 'write', size, block_size)),
                ('read', fio_sequential(path, 'read', size, block_size,
                                        direct=(cache_defeat == 'direct')))],
        fan_out=fan_out, cache_defeat=cache_defeat,
        drop_caches_command=drop_caches_command,
        barrier_timeout=barrier_timeout, python=python)
