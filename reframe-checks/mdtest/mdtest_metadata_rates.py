# SPDX-License-Identifier: BSD-3-Clause
"""mdtest metadata rates: the general sweep.

Files only, directories only, or both; a directory per task (``-u``) or
one shared directory; 1, 2 and 4 nodes of 1, 2, 4 and 16 tasks.  Every
other mdtest knob is a variable (``-S items_per_task=``, ``total_items``,
``depth``, ``branching``, ``stride``, ``sync_file``, ``pre_delay_s``,
``write_bytes``, ``read_bytes``, ``iterations``, ``stonewall_s``,
``md_phases``; :mod:`pfsbench.checks.mdtest`).

Figures: each phase's rate (Max over the iterations) with its mean, min
and stddev, in ops/s.  References: key ``mdtest_metadata_rates``,
``$index: [$partition, kind, access, nodes, tasks_per_node]``.
"""

import reframe as rfm
from reframe.core.builtins import parameter, run_after

from pfsbench.checks.base import tag_nightly_point
from pfsbench.checks.mdtest import mdtest_rates_base
from pfsbench.commands import mdtest


@rfm.simple_test
class mdtest_metadata_rates(mdtest_rates_base):
    """mdtest create/stat/read/remove rates over item kinds, directory
    layouts and task counts."""

    descr = 'mdtest metadata rates: item kind x directory layout x tasks'

    #: ``files`` (``-F``), ``dirs`` (``-D``) or ``both`` (sets
    #: ``item_kind``).
    #:
    #: :type: :class:`str`
    #: :values: ``['both', 'files', 'dirs']``
    kind = parameter(list(mdtest.ITEM_KINDS), type=str, loggable=True)

    #: ``unique``: a directory per task (``-u``); ``shared``: one for all.
    #:
    #: :type: :class:`str`
    #: :values: ``['unique', 'shared']``
    access = parameter(['unique', 'shared'], type=str, loggable=True)

    #: Nodes of the job.
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 2, 4]``
    nodes = parameter([1, 2, 4], type=int, loggable=True)

    #: mdtest tasks per node.
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 2, 4, 16]``
    tasks_per_node = parameter([1, 2, 4, 16], type=int, loggable=True)

    @run_after('init')
    def set_layout_and_tags(self):
        self.item_kind = self.kind
        self.unique_dir = self.access == 'unique'
        tasks = self.nodes * self.tasks_per_node
        if tasks <= 2:
            self.tags |= {'quick'}
        elif self.nodes <= 2:
            # The nightly's small-file case: empty files, a directory per
            # task, 2 x 16 tasks (docs/nightly.md).
            tag_nightly_point(self, kind='files', access='unique', nodes=2,
                              tasks_per_node=16)
        else:
            self.tags |= {'full'}
