# SPDX-License-Identifier: BSD-3-Clause
"""fio streams: one fio process per stream, a sequential write of one file
per stream, then its read, all streams of the job together.

Not an experiment of the catalogue: the second tool through the streams
runner that synchronises dd's streams (E6, E9, E10), with dd's shape (one
file per stream in its own directory, 1 MiB calls, the write's time
including an fsync, O_DIRECT reads or dropped caches between the phases),
so that its figures cross-check dd's from a tool that times its own I/O and
counts its own bytes.  See docs/checks-fio.md.

Figures (as dd's): ``write_bw``/``read_bw`` (all bytes over the wall time),
``*_bw_sum`` (the streams' own fio rates added), ``*_bw_conservative``
(slowest stream x streams), ``*_node_bw_min/mean/max``,
``*_stream_spread``, ``start_skew``.  References:
``config/references/<system>.yaml``, key ``fio_streams``, indexed by
``$partition``, ``nodes`` and ``streams_per_node``.
"""

import reframe as rfm
from reframe.core.builtins import parameter, run_after, variable

from pfsbench.checks.base import tag_nightly_point

from pfsbench.checks.streams import NODE_COUNTS, streams_check_base
from pfsbench.commands import fio
from pfsbench.parsers import fio as fio_output


@rfm.simple_test
class fio_streams(streams_check_base):
    """fio, one process per stream: write then read one file each."""

    descr = ('fio streams: one fio per stream, sequential write then read '
             'of one file per stream, all nodes together')
    tool = 'fio'
    stream_parser = fio_output
    nodes = parameter(NODE_COUNTS, type=int, loggable=True)
    streams_per_node = parameter([1, 4], type=int, loggable=True)

    #: Bytes each stream writes, then reads; the partition's
    #: ``max_bytes_per_stream`` may lower it (see ``bytes_per_stream``).
    #:
    #: :type: :class:`int`
    #: :default: ``1073741824`` (1 GiB)
    size = variable(int, value=fio.DEFAULT_BYTES_PER_STREAM, loggable=True)

    #: Bytes per read or write call (fio ``--bs``).
    #:
    #: :type: :class:`int`
    #: :default: ``1048576``
    block_size = variable(int, value=fio.DEFAULT_BLOCK_SIZE, loggable=True)

    tags = {'fio'}

    @run_after('init')
    def tag_tier(self):
        # The nightly's one fio case: dd's E6 point, 16 nodes
        # (docs/nightly.md); the rest of the sweep is weekly.
        tag_nightly_point(self, nodes=16,
                          streams_per_node=1)

    def size_stream(self, cap):
        if cap is not None and self.size > cap:
            # Whole calls only: fio would otherwise round the size itself.
            self.size = max(self.block_size,
                            cap // self.block_size * self.block_size)

        return self.size

    def stream_phases(self, direct_read):
        return fio.stream_phases(self.size, self.block_size, direct_read,
                                 binary=self.tool_path or self.tool)
