# SPDX-License-Identifier: BSD-3-Clause
"""IOR bandwidth sweep: API x access x transfer size x scale.

The general IOR family: write and read bandwidth of POSIX, MPI-IO and HDF5
(where the IOR build has it), one file per process or one shared file,
transfer sizes from 4 KiB to 16 MiB including seed 003's 10K/100K/1M and
IO500's 47008 bytes, over a few scales (nodes x tasks per node).  Caches
are defeated between write and read (see ``ior_base``); stonewalling
with wear-out, O_DIRECT, block size and repetitions are variables
(``-S``).

Figures: Max/mean/min/stddev of write and read over the repetitions.
References: ``config/references/<system>.yaml``, key ``ior_bandwidth``,
``$index: [$partition, api, access, transfer_size, nodes, tasks_per_node]``.
"""

import reframe as rfm
from reframe.core.builtins import parameter, run_after, variable

from pfsbench.checks.ior import ior_bandwidth_base


@rfm.simple_test
class ior_bandwidth(ior_bandwidth_base):
    """IOR write/read bandwidth over API, access, transfer size and scale."""

    descr = 'IOR bandwidth sweep: API, access, transfer size, nodes, tasks'
    #: IOR's I/O interface (``-a``); HDF5 runs where the build has it.
    #:
    #: :type: :class:`str`
    #: :values: ``['POSIX', 'MPIIO', 'HDF5']``
    api = parameter(['POSIX', 'MPIIO', 'HDF5'], type=str, loggable=True)

    #: ``fpp``: one file per task (``-F``); ``shared``: one file for all.
    #:
    #: :type: :class:`str`
    #: :values: ``['fpp', 'shared']``
    access = parameter(['fpp', 'shared'], type=str, loggable=True)

    #: Bytes per I/O call (``-t``), IOR size syntax.
    #:
    #: :type: :class:`str`
    #: :values: ``['4k', '10k', '47008', '64k', '100k', '1m', '4m', '16m']``
    transfer_size = parameter(['4k', '10k', '47008', '64k', '100k', '1m',
                               '4m', '16m'], type=str, loggable=True)

    #: Nodes x tasks per node, ``'NxT'``: one parameter rather than two so
    #: the sweep stays small enough to list quickly (``-P scale=2x2,4x4``).
    #:
    #: :type: :class:`str`
    #: :values: ``['1x1', '1x4', '2x2', '4x4', '8x12']``
    scale = parameter(['1x1', '1x4', '2x2', '4x4', '8x12'], type=str)
    nodes = variable(int, value=1, loggable=True)
    tasks_per_node = variable(int, value=1, loggable=True)
    tags = {'full'}

    @run_after('init')
    def set_the_scale(self):
        nodes, _, tasks = self.scale.partition('x')
        if not (nodes.isdigit() and tasks.isdigit()):
            raise ValueError(f'scale: {self.scale!r}: expected '
                             f'<nodes>x<tasks per node>, e.g. 2x2')

        self.nodes, self.tasks_per_node = int(nodes), int(tasks)

    @run_after('init')
    def tag_quick_cases(self):
        # The smallest POSIX cases are the quick suite.
        if (self.api == 'POSIX' and self.transfer_size == '1m'
                and self.nodes * self.tasks_per_node <= 4):
            self.tags |= {'quick'}
