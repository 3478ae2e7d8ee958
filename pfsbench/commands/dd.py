# SPDX-License-Identifier: BSD-3-Clause
"""dd command lines for the streaming experiments (E6, E9, E10; seed 001).

Seed 001 ran, on every node at once::

    dd if=/dev/zero of=$DIR/XX1 bs=1024000 count=50000
    dd of=/dev/zero if=$DIR/XX1 bs=1024000 count=50000

(the read line writes to /dev/zero, which works but reads as a typo; we read
into /dev/null).  Two modes (:data:`MODES`):

- ``source``: those lines as the source ran them, the read right after the
  write (nothing flushed, no cache dropped: the write's figure may include
  data still in the client's page cache, the read's may come from it);
- ``fdatasync``: ``conv=fdatasync`` on the write, so that the time dd
  reports includes getting the data to the file system, and the page cache
  defeated before the read (the caller's ``cache_defeat``).
"""

from pfsbench.commands.lfs import (  # noqa: F401 (the dd checks' layout)
    SEED001_STRIPE_COUNT, SEED001_STRIPE_SIZE)
from pfsbench.commands.streams import repeated, runner

#: Block size of seed 001 (bytes): 1024000, not 1 MiB.
SEED001_BLOCK_SIZE = 1024000
#: Blocks per stream in seed 001: 50 GB files for one stream per node (E6).
SEED001_COUNT_PER_NODE = 50000
#: Blocks per stream in seed 001: 5 GB files for 12 streams per node (E10).
SEED001_COUNT_MULTI_STREAM = 5000
#: How the write is timed: as the source ran it, or flushed (see above).
MODE_SOURCE, MODE_FDATASYNC = 'source', 'fdatasync'
#: Seed 001 averaged 3 runs of every point.
SEED001_REPEATS = 3
MODES = (MODE_SOURCE, MODE_FDATASYNC)


def dd_write(path, block_size=SEED001_BLOCK_SIZE,
             count=SEED001_COUNT_PER_NODE, direct=False, fdatasync=True):
    """argv of a streaming write of ``block_size * count`` zero bytes.

    Args:
        path: the file to write (may hold the runner's ``{stream_dir}``).
        block_size: bytes per write call.
        count: number of blocks.
        direct: write with O_DIRECT as well.
        fdatasync: ``conv=fdatasync`` (False: as seed 001 ran it).

    Returns:
        the argv list.
    """
    argv = ['dd',
            'if=/dev/zero',            # no source I/O: only the target counts
            f'of={path}',
            f'bs={block_size}',        # seed 001: bs=1024000
            f'count={count}']          # file size = bs x count
    if fdatasync:
        argv.append('conv=fdatasync')  # time includes flushing to the FS
    if direct:
        argv.append('oflag=direct')    # bypass the client page cache
    return argv


def dd_read(path, block_size=SEED001_BLOCK_SIZE,
            count=SEED001_COUNT_PER_NODE, direct=False):
    """argv of a streaming read of the file :func:`dd_write` wrote.

    Args:
        path: the file to read.
        block_size: bytes per read call.
        count: number of blocks.
        direct: read with O_DIRECT (the cache-defeat mode ``direct``).

    Returns:
        the argv list.
    """
    argv = ['dd',
            f'if={path}',
            'of=/dev/null',            # seed 001: of=/dev/zero, same effect
            f'bs={block_size}',
            f'count={count}']
    if direct:
        argv.append('iflag=direct')    # defeat the page cache on read
    return argv


def stream_phases(block_size=SEED001_BLOCK_SIZE,
                  count=SEED001_COUNT_PER_NODE, direct_read=False,
                  mode=MODE_FDATASYNC):
    """The runner's phases of one dd stream: write its file, read it back.

    Each stream writes ``{stream_dir}/XX1`` (seed 001's file name) in its
    own directory.

    Args:
        block_size: bytes per dd block.
        count: blocks per stream.
        direct_read: read with O_DIRECT (the cache-defeat mode ``direct``).
        mode: one of :data:`MODES`.

    Returns:
        ``[(name, argv), ...]`` for :func:`pfsbench.commands.streams.runner`.

    Raises:
        ValueError: an unknown mode.
    """
    if mode not in MODES:
        raise ValueError(f'dd_mode: {mode!r}: expected one of '
                         f'{", ".join(MODES)}')

    path = '{stream_dir}/XX1'
    return [('write', dd_write(path, block_size, count,
                               fdatasync=(mode == MODE_FDATASYNC))),
            ('read', dd_read(path, block_size, count, direct=direct_read))]


def streams_argv(run_dir, block_size=SEED001_BLOCK_SIZE,
                 count=SEED001_COUNT_PER_NODE, fan_out=1,
                 cache_defeat='direct', drop_caches_command=None,
                 barrier_timeout=3600, python=None, mode=MODE_FDATASYNC,
                 repeats=1):
    """argv of one launcher task of a dd streaming experiment.

    ``pfsbench render`` calls this; the ReFrame checks
    (:mod:`pfsbench.checks.streams`) pass the same :func:`stream_phases` to
    the same runner, so their job scripts run the same command.

    Args:
        run_dir: the run directory (may be a ``$VARIABLE`` in a template).
        block_size: bytes per dd block.
        count: blocks per stream.
        fan_out: streams this task runs.
        cache_defeat: ``drop_caches``, ``direct`` or ``none``.
        drop_caches_command: the partition's command for ``drop_caches``.
        barrier_timeout: seconds a barrier waits for its last stream.
        python: interpreter with pfsbench installed (default: this one).
        mode: one of :data:`MODES` (the checks' ``dd_mode`` and
            ``pfsbench render --dd-mode`` default to ``source``).
        repeats: runs of the write and read in the job (seed 001 averaged
            3: :data:`SEED001_REPEATS`).

    Returns:
        the argv list.
    """
    return runner(
        run_dir=run_dir,
        phases=repeated(stream_phases(block_size, count,
                                      direct_read=(cache_defeat == 'direct'),
                                      mode=mode), repeats),
        fan_out=fan_out, cache_defeat=cache_defeat,
        drop_caches_command=drop_caches_command,
        barrier_timeout=barrier_timeout, python=python)
