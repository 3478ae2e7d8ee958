# SPDX-License-Identifier: BSD-3-Clause
"""iozone throughput experiments of seed 001 (E8, E10 in EXPERIMENTS.md).

Seed 001 ran iozone's throughput mode, N processes on one node (E8,
N = 1..12) and 12 per node on 1..64 nodes (E10)::

    iozone -s 25000000 -r 1024 -I -c -o -l N -u N -t N   # E10: -s 2500000

Here each node runs one throughput group (one stream of the streams
runner, its N files in the stream's own directory): every group starts
behind the barrier (the start skew is measured), and the nodes' figures
are summed.  One group per node also keeps every group far below iozone's
process limit (256 before revision 3.470), whatever the node count.

Figures, for each iozone sub-test ``t`` (``initial_writers``,
``rewriters``, ``readers``, ``re_readers``, ``random_readers``, ... as
iozone names them): ``t_bw_sum`` (the nodes' ``Children see throughput``
summed: the source's aggregate), ``t_bw_conservative`` (slowest node x
nodes), ``t_bw_trimmed``, ``t_node_bw_min/mean/max``, ``t_stream_spread``
(%, between nodes), ``start_skew``, and the slowest node of each sub-test
in ``slowest_nodes``.  References: ``config/references/<system>.yaml``,
keys ``iozone_one_node``, ``iozone_per_node``.  See docs/checks-iozone.md.
"""

import reframe as rfm
import reframe.utility.typecheck as typ
from reframe.core.builtins import parameter, run_after, variable

from pfsbench.checks.streams import (NODE_COUNTS, STREAMS_ON_ONE_NODE,
                                     streams_check_base)
from pfsbench.commands import iozone, lfs
from pfsbench.parsers import iozone as iozone_output


class iozone_throughput_base(streams_check_base):
    """What the iozone families share; not a test by itself."""

    tool = 'iozone'
    stream_parser = iozone_output
    # iozone runs every sub-test itself, O_DIRECT (-I): one phase.
    cache_defeat = 'none'
    # Seed 001's layout on +lustre partitions: stripe size 1 MB, count 4
    # (lfs3, lfs5; its lfs4 took 12: extras lustre_stripe_count).
    default_stripe_count = lfs.SEED001_STRIPE_COUNT
    #: One throughput group (one launcher task) per node.
    streams_per_node = variable(int, value=1, loggable=True)

    #: KiB each iozone process writes (``-s``; seed 001: 25000000); the
    #: partition's ``max_bytes_per_stream`` may lower it.
    #:
    #: :type: :class:`int`
    #: :default: ``25000000``
    file_size_kib = variable(int, value=iozone.SEED001_FILE_KIB,
                             loggable=True)

    #: iozone sub-tests to run (``-i``, names of
    #: :data:`pfsbench.commands.iozone.TESTS`); empty: all, as the source.
    #:
    #: :type: :class:`List[str]`
    #: :default: ``[]``
    iozone_tests = variable(typ.List[str], value=[], loggable=True)

    @run_after('init')
    def tag_quick_cases(self):
        # Overrides the streams base's: a group's size is its processes.
        if self.nodes == 1 and self.processes <= 2:
            self.tags |= {'quick'}

    def size_stream(self, cap):
        if cap is not None and self.file_size_kib * 1024 > cap:
            self.file_size_kib = max(1024, cap // 1024)

        return self.file_size_kib * 1024

    def stream_phases(self, direct_read):
        return iozone.stream_phases(self.processes, self.file_size_kib,
                                    tests=self.iozone_tests or None,
                                    executable=self.tool_path or self.tool)

    def bytes_moved(self):
        # iozone stonewalls (the first process to finish stops the others)
        # and runs sub-tests chosen at run time: no byte count to expect.
        return None


@rfm.simple_test
class iozone_one_node(iozone_throughput_base):
    """E8: 1..12 iozone processes in one throughput group on one node."""

    descr = 'E8 (seed 001): iozone throughput mode, 1..12 processes, 1 node'
    nodes = variable(int, value=1, loggable=True)
    processes = parameter(STREAMS_ON_ONE_NODE, type=int, loggable=True)
    tags = {'iozone', 'E8', 'nightly'}


@rfm.simple_test
class iozone_per_node(iozone_throughput_base):
    """E10: 12 iozone processes per node on 1..64 nodes, one group per
    node behind the barrier, summed."""

    descr = ('E10 (seed 001): iozone throughput mode, 12 processes per node '
             'on 1..64 nodes')
    nodes = parameter(NODE_COUNTS, type=int, loggable=True)
    processes = parameter([12], type=int, loggable=True)
    file_size_kib = iozone.SEED001_FILE_KIB_MULTI
    tags = {'iozone', 'E10', 'full'}
