# SPDX-License-Identifier: BSD-3-Clause
"""Lustre ``lfs`` command lines for the stripe sweep (E5, seed 001).

Seed 001 set "Stripesize 1MB; Stripecount 4" per test directory before
running; E5 sweeps both and verifies that the layout really applied.
"""


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
        a list of :class:`pfsbench.jobsteps.Step`, run once, in the batch
        script.
    """
    from pfsbench.jobsteps import Step

    probe = f'{run_dir}/{LAYOUT_PROBE}'
    return [
        Step('setstripe', 'shell', tuple(setstripe(run_dir, count, size)),
             launched=False),
        Step('layout probe', 'shell', ('touch', probe), launched=False),
        Step('getstripe', 'lfs', tuple(getstripe(probe)), launched=False),
    ]
