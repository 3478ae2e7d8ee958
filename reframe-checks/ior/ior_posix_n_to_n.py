# SPDX-License-Identifier: BSD-3-Clause
"""IOR POSIX N-to-N with several clients per node, of seed 003 (E14).

Seed 003 (Team Saffron, Lustre on SR-IOV virtual clients) ran IOR POSIX,
one file per client, 44.7 GiB per client, with 10K, 100K and 1M transfers
and 1 to 11 clients per node, and dropped caches between phases.  A client
here is an IOR task; the sweep shows where adding clients per node stops
adding bandwidth.

Figures: Max/mean/min/stddev write and read over the repetitions (the
source published plots only, so no reference figures).  References: key
``ior_posix_n_to_n_bandwidth``, ``$index: [$partition, transfer_size,
tasks_per_node]``.
"""

import reframe as rfm
from reframe.core.builtins import parameter, run_after, variable

from pfsbench import experiments
from pfsbench.checks.ior import ior_bandwidth_base
from pfsbench.commands import ior


@rfm.simple_test
class ior_posix_n_to_n_bandwidth(ior_bandwidth_base):
    """E14: IOR POSIX file per client, 1..11 clients per node."""

    experiment = 'E14'
    descr = ('E14 (seed 003): IOR POSIX N-to-N, 10K/100K/1M transfers, '
             '1..11 clients per node')
    #: Bytes per I/O call (``-t``), seed 003's three.
    #:
    #: :type: :class:`str`
    #: :values: ``['10k', '100k', '1m']``
    transfer_size = parameter(experiments.E14.values('transfer_size'), type=str,
                              loggable=True)

    #: Clients (IOR tasks) per node.
    #:
    #: :type: :class:`int`
    #: :values: ``1..11``
    tasks_per_node = parameter(experiments.E14.values('tasks_per_node'),
                               type=int,
                               loggable=True)

    #: Client nodes (seed 003's PROBE cluster had two).
    #:
    #: :type: :class:`int`
    #: :default: ``2``
    nodes = variable(int, value=2, loggable=True)
    api = variable(str, value='POSIX', loggable=True)
    access = variable(str, value='fpp', loggable=True)
    block_size = ior.SEED003_BLOCK_SIZE
    tags = {'E14', 'weekly'}

    @run_after('init')
    def tag_quick_cases(self):
        if self.tasks_per_node == 1 and self.transfer_size == '1m':
            self.tags |= {'quick'}
