# SPDX-License-Identifier: BSD-3-Clause
"""IOR command lines (E11 from seed 002, E14's sizes from seed 003, IO500
phases).

:func:`ior_argv` is the only place that knows IOR's flags; the presets below
call it with the parameters of their source.  The task count is not an IOR
flag: the launcher (``srun``, ``mpirun``) sets it, so the presets export
their scales as constants for the checks' ``num_tasks``.
"""

import re

from pfsbench.commands import options

#: APIs pfsbench runs (IOR knows more; these are the ones built by Spack).
APIS = ('POSIX', 'MPIIO', 'HDF5')

#: Seed 002 (E11): tasks -> tasks per node (3 client nodes).
SEED002_SCALES = {36: 12, 72: 24}
#: Seed 003 (E14): transfer sizes of the N-to-N sweep.
SEED003_TRANSFER_SIZES = ('10k', '100k', '1m')
#: Seed 003: 44.7 GiB per client, as 45775 MiB, the nearest size that is a
#: multiple of every transfer size above (IOR refuses the rest).
SEED003_BLOCK_SIZE = '45775m'
#: Seed 003: clients per node, 1..11.
SEED003_CLIENTS_PER_NODE = tuple(range(1, 12))

#: IO500 defaults (IO500/io500 src/phase_ior_easy.c, phase_ior_hard.c).
IO500_EASY_TRANSFER_SIZE = '2m'
IO500_EASY_BLOCK_SIZE = '9920000m'
IO500_HARD_TRANSFER_SIZE = '47008'
IO500_HARD_SEGMENTS = 10000000
IO500_STONEWALL_S = 300
#: Data signature (-G) of the IO500 phases: ior-easy uses 271; ior-hard
#: derives one per run, and any value works while write and read share it
#: (without one, IOR refuses the verifying read).
IO500_SIGNATURE = 271
#: What IO500 fills its buffers with (``--dataPacketType``), for IOR and
#: mdtest alike: a timestamp, so a verifying read tells stale data apart.
IO500_DATA_PACKET_TYPE = 'timestamp'
#: Options of IO500's IOR command lines that IOR 3.3.0 and older lack
#: (IOR 4.0.0 has them): a build without them cannot run the IO500 phases.
IO500_IOR_OPTIONS = ('--dataPacketType', 'saveRankPerformanceDetailsCSV')

_SIZE_RE = re.compile(r'(\d+)([kmgt]?)', re.IGNORECASE)
_UNIT = {'': 1, 'k': 2**10, 'm': 2**20, 'g': 2**30, 't': 2**40}


def size_bytes(size):
    """IOR's size syntax (``4m``, ``47008``, or an int) in bytes.

    Raises:
        ValueError: the size is not a whole number with an optional
            k/m/g/t suffix.
    """
    m = _SIZE_RE.fullmatch(str(size))
    if not m:
        raise ValueError(f'IOR size {size!r}: expected digits with an '
                         f'optional k, m, g or t suffix')
    return int(m.group(1)) * _UNIT[m.group(2).lower()]


def size_text(nbytes):
    """``nbytes`` in IOR's size syntax, with the largest exact suffix
    (the inverse of :func:`size_bytes`)."""
    for suffix, unit in (('g', 2**30), ('m', 2**20), ('k', 2**10)):
        if nbytes % unit == 0:
            return f'{nbytes // unit}{suffix}'

    return str(nbytes)


def whole_transfers(nbytes, transfer_size):
    """``nbytes`` rounded down to whole transfers, and at least one: IOR
    refuses a block that is not a multiple of the transfer size."""
    transfer = size_bytes(transfer_size)
    return max(transfer, nbytes // transfer * transfer)


def ior_argv(test_file, *, api='POSIX', block_size='1m', transfer_size='256k',
             segments=None, iterations=None, file_per_process=False,
             collective=False, odirect=False, reorder_tasks=False,
             task_per_node_offset=None, fsync=False, barriers=False,
             signature=None, stonewall_s=None, stonewall_wear_out=True,
             stonewall_status_file=None, write=True, read=True,
             verify_read=False, keep_file=False, summary_json=False,
             summary_file=None, data_packet_type=None, rank_details_csv=None,
             executable='ior'):
    """argv of one IOR run.

    Args:
        test_file: ``-o``; may start with a shell variable (``$SCRATCH/x``).
        api: one of :data:`APIS`.
        block_size: ``-b``, bytes per task per segment (``'4g'``).
        transfer_size: ``-t``; ``block_size`` must be a multiple of it.
        segments: ``-s``; None leaves IOR's default (1).
        iterations: ``-i``; None leaves IOR's default (1).
        file_per_process: ``-F`` (N-to-N) instead of one shared file.
        collective: ``-c``, collective I/O (MPIIO, HDF5 only).
        odirect: ``--posix.odirect`` (POSIX only).
        reorder_tasks: ``-C``, read what a task on another node wrote.
        task_per_node_offset: ``-Q N``, how far ``-C`` shifts.
        fsync: ``-e``, fsync on close so writes reach the servers.
        barriers: ``-g``, barrier between open, I/O and close.
        signature: ``-G N``, data signature checked by ``verify_read``.
        stonewall_s: ``-D N``, stop writing after N seconds.
        stonewall_wear_out: with ``stonewall_s``, let every task catch up
            to the furthest (``stoneWallingWearOut=1``); without it a
            shared-file read after a stonewalled write runs off the end.
        stonewall_status_file: where the write saves the pairs done so that
            a later read (``read`` only) reads just those.
        write: run the write phase.
        read: run the read phase.
        verify_read: ``-R``, check the data read.
        keep_file: ``-k``, keep the file (for a later read-only run).
        summary_json: ``-O summaryFormat=JSON``.
        summary_file: ``-O summaryFile=PATH``.
        data_packet_type: ``--dataPacketType`` (what fills the buffers).
        rank_details_csv: ``-O saveRankPerformanceDetailsCSV=PATH``, each
            rank's own figures.
        executable: the IOR binary.

    Returns:
        the argv list.

    Raises:
        ValueError: an unknown API, a size IOR would refuse, or an option
            the API lacks.
    """
    given = dict(locals())
    _validate(api, block_size, transfer_size, odirect, collective, write,
              read)
    return [executable] + options.words(_OPTIONS, given)


def _validate(api, block_size, transfer_size, odirect, collective, write,
              read):
    """Refuse what IOR would refuse, or a run that measures nothing."""
    if api not in APIS:
        raise ValueError(f'IOR api {api!r}: expected one of {APIS}')
    if size_bytes(block_size) % size_bytes(transfer_size):
        raise ValueError(f'IOR block size {block_size!r} is not a multiple '
                         f'of the transfer size {transfer_size!r}')
    if odirect and api != 'POSIX':
        raise ValueError(f'--posix.odirect needs api POSIX, not {api!r}')
    if collective and api == 'POSIX':
        raise ValueError('collective I/O (-c) needs api MPIIO or HDF5')
    if not (write or read):
        raise ValueError('IOR run with neither write nor read phase')


#: IOR's options as :func:`ior_argv` writes them, in its argv's order.
_OPTIONS = (
    options.valued('api', '-a'),            # I/O interface
    options.valued('block_size', '-b'),     # bytes per task per segment
    options.valued('transfer_size', '-t'),  # bytes per I/O call
    options.switch('odirect', '--posix.odirect'),  # bypass the page cache
    options.valued('segments', '-s'),       # blocks per task, strided
    options.valued('iterations', '-i'),     # repetitions: gives the spread
    options.switch('file_per_process', '-F'),  # N-to-N: one file per task
    options.switch('collective', '-c'),     # collective MPI-IO calls
    options.switch('reorder_tasks', '-C'),  # read another node's data
    options.valued('task_per_node_offset', '-Q'),  # shift for -C, in nodes
    options.switch('barriers', '-g'),       # time phases, not skew
    options.valued('signature', '-G'),      # data pattern seed for -R
    options.switch('fsync', '-e'),          # fsync at close: on servers
    options.valued('stonewall_s', '-D'),    # stop writing after N s
    # ... and all tasks do equal work, catching up to the furthest
    lambda given: (['-O', 'stoneWallingWearOut=1']
                   if given['stonewall_s'] is not None and
                   given['stonewall_wear_out'] else []),
    options.setting('stonewall_status_file', 'stoneWallingStatusFile'),
    options.unless('read', '-w'),           # write phase only
    options.unless('write', '-r'),          # read phase only
    options.switch('verify_read', '-R'),    # check what was read
    options.switch('keep_file', '-k'),      # keep the file for a later -r
    options.switch('summary_json', '-O', 'summaryFormat=JSON'),  # readable
    options.setting('summary_file', 'summaryFile'),  # summary to a file
    options.joined('data_packet_type', '--dataPacketType'),  # buffers' data
    options.setting('rank_details_csv', 'saveRankPerformanceDetailsCSV'),
    options.valued('test_file', '-o'),      # test file (prefix with -F)
)


def seed002_mpiio_fpp(test_file, executable='ior'):
    """Seed 002 (E11): ``IOR -a MPIIO -b 4g -t 4m -i 1 -F -o <file>``.

    Run at 36 and 72 tasks (:data:`SEED002_SCALES`); the argv is the same
    at both scales.  No cache defeat, as in the source.
    """
    return ior_argv(test_file, api='MPIIO', block_size='4g',
                    transfer_size='4m', iterations=1, file_per_process=True,
                    executable=executable)


def _io500(name, datadir, resultdir, test_file, phase, stonewall_s,
           **params):
    """What every IO500 IOR phase shares: -C -Q 1 -g -e -k, the signature,
    timestamped buffers, the status file in the results that the
    stonewalled write fills and the verifying read follows, and each
    phase's per-rank figures beside it (``<resultdir>/<name>-<phase>.csv``),
    as ``io500 --dry-run`` prints them."""
    if phase not in ('write', 'read'):
        raise ValueError(f"IO500 phase {phase!r}: expected 'write' or 'read'")
    write = phase == 'write'
    return ior_argv(f'{datadir}/{test_file}', reorder_tasks=True,
                    task_per_node_offset=1, barriers=True,
                    signature=IO500_SIGNATURE, fsync=True, keep_file=True,
                    stonewall_s=stonewall_s if write else None,
                    stonewall_status_file=f'{resultdir}/{name}.stonewall',
                    write=write, read=not write, verify_read=not write,
                    data_packet_type=IO500_DATA_PACKET_TYPE,
                    rank_details_csv=f'{resultdir}/{name}-{phase}.csv',
                    **params)


def io500_ior_easy(datadir, resultdir, phase, api='POSIX',
                   stonewall_s=IO500_STONEWALL_S, executable='ior',
                   block_size=IO500_EASY_BLOCK_SIZE):
    """IO500 ``ior-easy-write`` / ``ior-easy-read`` (phase 'write'/'read').

    File per process, 2 MiB transfers, a block too large to finish so that
    the stonewall ends the write; the read reads what the write recorded in
    the status file and verifies it.  ``block_size`` caps what a task may
    write where the stonewall alone would fill a small file system.
    """
    return _io500('ior-easy', datadir, resultdir, 'ior-easy/ior_file_easy',
                  phase, stonewall_s, api=api, block_size=block_size,
                  transfer_size=IO500_EASY_TRANSFER_SIZE,
                  file_per_process=True, executable=executable)


def io500_ior_hard(datadir, resultdir, phase, api='POSIX',
                   segments=IO500_HARD_SEGMENTS,
                   stonewall_s=IO500_STONEWALL_S, executable='ior'):
    """IO500 ``ior-hard-write`` / ``ior-hard-read`` (phase 'write'/'read').

    One shared file, 47008-byte transfers and blocks (not aligned to any
    stripe), many segments, stonewalled write.
    """
    return _io500('ior-hard', datadir, resultdir, 'ior-hard/file', phase,
                  stonewall_s, api=api, block_size=IO500_HARD_TRANSFER_SIZE,
                  transfer_size=IO500_HARD_TRANSFER_SIZE, segments=segments,
                  executable=executable)
