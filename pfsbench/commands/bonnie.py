# SPDX-License-Identifier: BSD-3-Clause
"""bonnie++ command lines for E7, E9 and E10 (seed 001).

Seed 001 ran the old bonnie (bonnie-64) in a directory of its own, on every
node (E7) and 1..12 times per node (E9, E10)::

    bonnie -d $DIR -s 2000 -v 16 -y    # "16 volumes at 2GB each for 32GB"
    bonnie -d $DIR -s 200 -v 16 -y     # E10, 12 instances per node

bonnie++ 2.x has no such flags; :func:`seed001_bonnie` maps them so::

    bonnie++ -d $DIR -s 32000 -n 0 -r 0 -m <node> -u root -q

=================  ======================  ==================================
old bonnie         bonnie++ 2.x            why
=================  ======================  ==================================
``-d $DIR``        ``-d DIR``              the same: the instance's own dir
``-s 2000 -v 16``  ``-s 32000``            bonnie++'s ``-s`` is the total in
                                           MiB (the old one's "Mb" was MiB
                                           too); it splits the data itself
                                           into files of at most 1 GiB: 32
                                           files, not 16 of 2000 MiB.  The
                                           file count cannot be set.
``-y``             (none)                  the seed does not say what it
                                           did, only that its processes were
                                           *not* synchronised; bonnie++'s
                                           ``-y s`` (wait on a semaphore
                                           before each test) is the fix the
                                           source lacked, so it is offered
                                           (``semaphore_sync``) but left out
                                           of the seed's command.
(none)             ``-n 0``                the old bonnie had no small-file
                                           tests; bonnie++ runs 16x1024
                                           files by default.
(none)             ``-r 0``                bonnie++ refuses a size below
                                           twice the RAM it finds; the seed's
                                           sizes (32000 MiB on 24 GiB nodes,
                                           12 x 3200 MiB in E10) must run.
(none)             ``-u root``             bonnie++ refuses root without it.
(none)             ``-m <node>``           names the node in the CSV row.
(none)             ``-q``                  the CSV row alone on stdout.
per-char: the      1 ``write(2)``/         not comparable: bonnie++ times a
whole file with    ``read(2)`` per byte,   system call per byte, not stdio;
``putc``/``getc``  3 MiB (``-f`` size)     kept as bonnie++ does it.
seeks: 4000 by 3   8192 by 5 processes     bonnie++'s defaults kept (1990
processes          (``-s s:c:seeks:n``)    Bonnie's figures; bonnie-64's are
                                           not published).
chunk 8192 bytes   8192 (default)          the same.
=================  ======================  ==================================
"""

#: Seed 001: MiB per volume (E7, E9) and per volume with 12 per node (E10).
SEED001_VOLUME_MIB = 2000
SEED001_VOLUME_MIB_MULTI = 200
#: Seed 001: volumes per instance (``-v 16``).
SEED001_VOLUMES = 16
#: bonnie++'s chunk size limits (``-s size:chunk``), bytes.
CHUNK_MIN, CHUNK_MAX = 256, 2**20


def bonnie_argv(directory, size_mib, *, machine=None, user=None,
                ram_mib=None, files_k=0, char_io_mib=None, chunk_bytes=None,
                seeks=None, seek_procs=None, fsync_writes=False,
                direct=False, semaphore_sync=False, repeats=None,
                quiet=True, executable='bonnie++'):
    """argv of one bonnie++ run.

    Args:
        directory: ``-d``, the instance's own directory (may hold the
            stream runner's ``{stream_dir}``).
        size_mib: ``-s``, MiB of bulk I/O (0 skips the bulk tests).
        machine: ``-m``, the name the results carry (the node).
        user: ``-u``; bonnie++ refuses to run as root without it.
        ram_mib: ``-r``; None lets bonnie++ find the RAM and refuse a size
            below twice that; 0 turns that check off.
        files_k: ``-n``, thousands (x1024) of files for the small-file
            tests; 0 skips them.
        char_io_mib: ``-f N``, MiB for the per-char tests; 0 skips them.
        chunk_bytes: ``-s size:chunk``, bytes per block I/O call.
        seeks: ``-s size:chunk:seeks``, random seeks (bonnie++ >= 1.98).
        seek_procs: ``-s ...:seekers``, seeker processes (>= 1.98).
        fsync_writes: ``-b``, fsync after every write.
        direct: ``-D``, O_DIRECT for the bulk tests.
        semaphore_sync: ``-y s``, every instance on the node waits for the
            others before each test (after :func:`semaphore_argv`).
        repeats: ``-x N``, runs in a row (CSV rows only).
        quiet: ``-q``, the CSV alone on stdout, the text on stderr.
        executable: the bonnie++ binary.

    Returns:
        the argv list.

    Raises:
        ValueError: a size bonnie++ would refuse.
    """
    if size_mib < 0 or files_k < 0 or (size_mib == 0 and files_k == 0):
        raise ValueError(f'bonnie++ -s {size_mib} -n {files_k}: nothing to '
                         f'run (both must be >= 0, one > 0)')
    if chunk_bytes is not None and (
            chunk_bytes & (chunk_bytes - 1)
            or not CHUNK_MIN <= chunk_bytes <= CHUNK_MAX):
        raise ValueError(f'bonnie++ chunk size {chunk_bytes}: expected a '
                         f'power of two from {CHUNK_MIN} to {CHUNK_MAX}')
    size = [str(size_mib)]
    if chunk_bytes is not None or seeks is not None or seek_procs is not None:
        size.append('' if chunk_bytes is None else str(chunk_bytes))
    if seeks is not None or seek_procs is not None:
        size += ['' if seeks is None else str(seeks),
                 '' if seek_procs is None else str(seek_procs)]

    argv = [executable,
            '-d', directory,                  # this instance's own directory
            '-s', ':'.join(size).rstrip(':'),  # MiB (files of <= 1 GiB)
            '-n', str(files_k)]               # small-file tests, x1024
    if ram_mib is not None:
        argv += ['-r', str(ram_mib)]          # 0: no size-vs-RAM refusal
    if char_io_mib is not None:
        argv += [f'-f{char_io_mib}']          # per-char MiB (optional arg)
    if machine is not None:
        argv += ['-m', machine]               # the node, in every CSV row
    if user is not None:
        argv += ['-u', user]                  # required when run as root
    if fsync_writes:
        argv += ['-b']                        # fsync() after every write
    if direct:
        argv += ['-D']                        # O_DIRECT bulk I/O
    if semaphore_sync:
        argv += ['-y', 's']                   # wait for the node's others
    if repeats is not None:
        argv += ['-x', str(repeats)]          # N runs, N CSV rows
    if quiet:
        argv += ['-q']                        # CSV alone on stdout
    return argv


def semaphore_argv(processes, user=None, executable='bonnie++'):
    """argv that creates (or, with -1, removes) the semaphores ``-y s``
    waits on: one set per node, for ``processes`` instances.

    Args:
        processes: instances that will run with ``semaphore_sync``; -1
            removes the semaphores.
        user: ``-u``, as for the runs (bonnie++ asks for it as root).
        executable: the bonnie++ binary.
    """
    argv = [executable, '-p', str(processes)]  # SysV semaphores, key 4711
    if user is not None:
        argv += ['-u', user]
    return argv


def seed001_bonnie(directory, size_mib=SEED001_VOLUME_MIB * SEED001_VOLUMES,
                   machine=None, user=None, char_io_mib=None,
                   executable='bonnie++'):
    """Seed 001's ``bonnie -d $DIR -s 2000 -v 16 -y`` for bonnie++ 2.x.

    See the module docstring for the mapping.  E10 passes ``size_mib=
    SEED001_VOLUME_MIB_MULTI * SEED001_VOLUMES``.

    Args:
        directory: ``$DIR``.
        size_mib: the old ``-s`` x ``-v``: MiB of bulk I/O.
        machine: the node's name (``-m``).
        user: ``root`` when run as root.
        char_io_mib: ``-f N``, MiB for the per-char tests (None: bonnie++'s
            default).
        executable: the bonnie++ binary.
    """
    return bonnie_argv(directory, size_mib, machine=machine, user=user,
                       ram_mib=0, files_k=0, char_io_mib=char_io_mib,
                       executable=executable)


def stream_phases(size_mib, *, user=None, char_io_mib=None,
                  executable='bonnie++'):
    """The streams runner's one phase of a bonnie++ instance: seed 001's
    run (:func:`seed001_bonnie`'s flags) in the stream's own directory.

    Args:
        size_mib: ``-s``, MiB of bulk I/O (the seed's 16 x 2000 = 32000).
        user: ``-u``, ``root`` when run as root.
        char_io_mib: ``-f N``, MiB for the per-char tests (None: bonnie++'s
            default).
        executable: the bonnie++ binary.

    Returns:
        ``[('bonnie', argv)]`` for :func:`pfsbench.commands.streams.runner`.
    """
    return [('bonnie', seed001_bonnie('{stream_dir}', size_mib, user=user,
                                      char_io_mib=char_io_mib,
                                      executable=executable))]
