# SPDX-License-Identifier: BSD-3-Clause
"""Lustre ``lfs`` command lines for the stripe sweep (E5, seed 001).

Seed 001 set "Stripesize 1MB; Stripecount 4" per test directory before
running; E5 sweeps both and verifies that the layout really applied.
"""

#: Seed 001's layout on Lustre for E6-E10: stripe count 4 (lfs3, lfs5; 12
#: on lfs4), stripe size 1 MB.
SEED001_STRIPE_COUNT, SEED001_STRIPE_SIZE = 4, '1m'
#: E5's sweep: stripe counts 1..32, with 3 (lfs3 peaked at 3 to 4) ...
SEED001_STRIPE_COUNTS = [1, 2, 3, 4, 8, 12, 16, 32]
#: ... and stripe sizes 64k..4M; 0 is the file system's default (1 MiB).
SEED001_STRIPE_SIZES = ['64k', '128k', '256k', '512k', '1m', '2m', '4m',
                        '0']


def setstripe(path, count, size):
    """argv setting the default layout of ``path`` (a directory: files
    created in it inherit the layout).

    Args:
        path: the directory.
        count: OSTs per file (``-1``: all of them).
        size: bytes per stripe, IOR size syntax (``1m``); ``0`` keeps the
            file system's default.

    Returns:
        the argv list.
    """
    return ['lfs', 'setstripe',
            '-c', str(count),       # stripe count: OSTs per file
            '-S', str(size),        # stripe size: bytes per OST chunk
            path]


def getstripe(path):
    """argv printing the layout of ``path`` (parsed by
    :mod:`pfsbench.parsers.lfs`)."""
    return ['lfs', 'getstripe', path]


#: The file whose layout shows what a run directory's files inherit.
LAYOUT_PROBE = '.pfsbench-layout'


def layout_steps(run_dir, count, size):
    """Job steps that set a run directory's Lustre layout (``lfs setstripe
    -c count -S size``), create a file in it, and print that file's layout
    (parsed by :mod:`pfsbench.parsers.lfs` after the run): seed 001's
    directories, for the streams checks and ``pfsbench render`` alike.

    Returns:
        a list of :class:`pfsbench.core.jobsteps.Step`, run once, in the batch
        script.
    """
    from pfsbench.core.jobsteps import Step

    probe = f'{run_dir}/{LAYOUT_PROBE}'
    return [
        Step('setstripe', 'shell', tuple(setstripe(run_dir, count, size)),
             launched=False),
        Step('layout probe', 'shell', ('touch', probe), launched=False),
        Step('getstripe', 'lfs', tuple(getstripe(probe)), launched=False),
    ]
