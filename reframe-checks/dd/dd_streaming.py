# SPDX-License-Identifier: BSD-3-Clause
"""dd streaming experiments of seed 001 (E6, E9, E10 in EXPERIMENTS.md).

Seed 001 wrote and read back one large file per stream with dd, on 1..64
nodes at once, and found the aggregate peaks and then collapses; with several
streams per node it saw a peak at 4 processes.  Every stream here:

1. waits at a barrier with all others (the start skew is measured),
2. writes its own file in its own directory (``conv=fdatasync``),
3. waits, the page cache is defeated (``drop_caches`` on partitions with
   that feature, else O_DIRECT reads), waits again,
4. reads the file back, and removes it.

Figures: the aggregate over the wall time, the seed's sum of per-stream
rates, its conservative aggregate (slowest stream x streams), per-node rates
(the slowest node shows a straggler) and the spread between streams.
References: ``config/references/<system>.yaml``, keys ``dd_stream_per_node``
etc., indexed by ``$partition``, ``nodes`` and ``streams_per_node``.
"""

import reframe as rfm
from reframe.core.builtins import run_after, variable

from pfsbench.checks.base import tag_nightly_point

from pfsbench.checks.streams import (one_stream_per_node,
                                     streams_check_base, streams_on_one_node,
                                     twelve_streams_per_node)
from pfsbench.commands import dd, lfs
from pfsbench.parsers import dd as dd_output


class dd_streaming_base(streams_check_base):
    """What the three dd families share; not a test by itself."""

    tool = 'dd'
    stream_parser = dd_output
    # Seed 001 averaged 3 runs, and set its layout on +lustre partitions
    # (its lfs4 took 12: extras lustre_stripe_count, or -S stripe_count).
    repeats = dd.SEED001_REPEATS
    default_stripe_count = lfs.SEED001_STRIPE_COUNT
    stripe_size = lfs.SEED001_STRIPE_SIZE

    #: ``source``: seed 001's exact dd lines, the read right after the
    #: write; ``fdatasync``: the write flushed (``conv=fdatasync``), the
    #: page cache defeated before the read.
    #:
    #: :type: :class:`str`
    #: :default: ``'source'``
    dd_mode = variable(str, value=dd.MODE_SOURCE, loggable=True)

    #: Bytes per dd block (seed 001: 1024000).
    #:
    #: :type: :class:`int`
    #: :default: ``1024000``
    block_size = variable(int, value=dd.SEED001_BLOCK_SIZE, loggable=True)

    #: Blocks per stream at the source's scale; the partition's
    #: ``max_bytes_per_stream`` may lower it (see ``bytes_per_stream``).
    #:
    #: :type: :class:`int`
    #: :default: ``50000`` (50 GB files, seed 001)
    count = variable(int, value=dd.SEED001_COUNT_PER_NODE, loggable=True)

    def size_stream(self, cap):
        if cap is not None and self.count * self.block_size > cap:
            self.count = max(1, cap // self.block_size)

        return self.count * self.block_size

    def cache_defeat_mode(self):
        # The source read right after the write.
        if self.dd_mode == dd.MODE_SOURCE:
            return 'none'

        return super().cache_defeat_mode()

    def stream_phases(self, direct_read):
        return dd.stream_phases(self.block_size, self.count, direct_read,
                                mode=self.dd_mode)


@rfm.simple_test
class dd_stream_per_node(dd_streaming_base, one_stream_per_node):
    """E6: one stream per node, 1..64 nodes, 50 GB per stream."""

    experiment = 'E6'
    descr = 'E6 (seed 001): dd, one stream per node, all nodes together'
    tags = {'dd', 'E6'}

    @run_after('init')
    def tag_tier(self):
        # The nightly's one streaming case: 16 nodes, one stream each
        # (docs/nightly.md); the rest of the sweep is weekly.
        tag_nightly_point(self, nodes=16)


@rfm.simple_test
class dd_streams_one_node(dd_streaming_base, streams_on_one_node):
    """E9: 1..12 streams on one node, 50 GB per stream."""

    experiment = 'E9'
    descr = 'E9 (seed 001): dd, 1..12 streams on one node'
    tags = {'dd', 'E9', 'weekly'}


@rfm.simple_test
class dd_streams_per_node(dd_streaming_base, twelve_streams_per_node):
    """E10: 12 streams per node on 1..64 nodes, 5 GB per stream."""

    experiment = 'E10'
    descr = 'E10 (seed 001): dd, 12 streams per node on 1..64 nodes'
    count = dd.SEED001_COUNT_MULTI_STREAM
    tags = {'dd', 'E10', 'full'}
