# SPDX-License-Identifier: BSD-3-Clause
"""Lustre's ``mdsrate`` command lines (E16, seed 004).

mdsrate (lustre-release ``lustre/tests/mpi/mdsrate.c``, commit
``b8afd0dcd3834a88b0ceead18c71d37052a00a8d``) runs one operation per
invocation, so seed 004's create/stat/unlink is three runs over the same
files.  The flags are the source's ``longOpts`` table; lustre-release's
``lustre/tests/mdsrate-create-small.sh`` runs it the same way
(``--create ... --nfiles N --dir DIR --filefmt 'f%%d'``, then
``--unlink``), where ``--dir`` is getopt_long's abbreviation of
``--dirfmt``.  The check and ``pfsbench render`` take the lines from here.
"""

#: Seed 004's phases, in order: mdsrate's long option for each.
PHASES = ('create', 'stat', 'unlink')
#: The file-name format: mdsrate sprintf()s the option with the rank first
#: (``sprintf(filefmt, optarg, myrank)``), so ``%%d`` leaves the ``%d``
#: that numbers the files; all ranks share one numbering (rank r takes
#: files r, r + ranks, ...).
FILE_FORMAT = 'f%%d'


def mdsrate_argv(operation, test_dir, files, *, executable='mdsrate'):
    """One mdsrate run over ``files`` files in the one directory
    ``test_dir`` (seed 004's E16: all ranks in one directory).

    Args:
        operation: a phase of :data:`PHASES`.
        test_dir: the directory; mdsrate creates it (``mkdir -p``).
        files: files of all ranks together (mdsrate splits them).
        executable: the mdsrate binary.

    Returns:
        the argv list.
    """
    if operation not in PHASES:
        raise ValueError(f'mdsrate operation {operation!r}: expected one of '
                         f'{", ".join(PHASES)}')
    if files < 1:
        raise ValueError(f'mdsrate --nfiles {files}: expected 1 or more')
    return [
        executable,
        f'--{operation}',               # the one operation timed
        '--nfiles', str(files),         # files of all ranks
        '--dirfmt', test_dir,           # one directory: --ndirs stays 1
        '--filefmt', FILE_FORMAT,       # f0, f1, ... shared numbering
    ]


def job_argvs(test_dir, files, executable='mdsrate'):
    """Seed 004's three runs, in order: ``(phase, argv)`` pairs.

    ``--stat`` finds the files ``--create`` left (it pre-creates only
    missing ones); ``--unlink`` removes them.
    """
    return [(phase, mdsrate_argv(phase, test_dir, files,
                                 executable=executable))
            for phase in PHASES]
