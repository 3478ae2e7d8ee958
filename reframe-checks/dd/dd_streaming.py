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
import reframe.utility.sanity as sn
from reframe.core.builtins import (parameter, performance_function,
                                   run_after, run_before, sanity_function,
                                   variable)

from pfsbench.checks import FileSystemCheck
from pfsbench.commands import dd, shell_join
from pfsbench.parsers import dd as dd_output
from pfsbench.parsers import streams
from pfsbench.runner import CACHE_DEFEAT_MODES

#: The runner's output, each stream's phases parsed as dd statistics.
DD_STREAMS = streams.for_tool(dd_output)


class dd_streaming_base(FileSystemCheck):
    """What the three dd families share; not a test by itself."""

    # dd needs no MPI: any partition that can hold a file-system target.
    valid_systems = ['+pfs']

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

    #: ``drop_caches``, ``direct`` or ``none``; empty: ``drop_caches`` where
    #: the partition has that feature, else ``direct``.
    #:
    #: :type: :class:`str`
    #: :default: ``''``
    cache_defeat = variable(str, value='', loggable=True)

    #: Bytes each stream writes and reads in this run (after any cap).
    bytes_per_stream = variable(int, value=0, loggable=True)

    #: Seconds a barrier waits for its last stream before it stops them
    #: all.
    #:
    #: :type: :class:`float`
    #: :default: ``3600``
    barrier_timeout = variable(float, value=3600.0)

    #: Node with the lowest write/read rate (set after the run).
    slowest_write_node = variable(str, value='', loggable=True)
    slowest_read_node = variable(str, value='', loggable=True)

    #: Streams each launcher task runs (set at setup: 1 under srun/mpirun,
    #: every stream of the node under the local launcher).
    fan_out = variable(int, value=1, loggable=True)

    time_limit = '2h'

    @run_after('init')
    def tag_quick_cases(self):
        # The smallest cases of every family are the quick suite.
        if self.nodes == 1 and self.streams_per_node <= 2:
            self.tags |= {'quick'}

    @run_after('setup')
    def size_the_job(self):
        if self.cache_defeat not in ('',) + CACHE_DEFEAT_MODES:
            raise ValueError(f'cache_defeat: {self.cache_defeat!r}: expected '
                             f'{", ".join(CACHE_DEFEAT_MODES)}')

        self.cache_defeat = self.cache_defeat or self.cache_defeat_mode()
        cap = self.current_partition.extras.get('max_bytes_per_stream')
        if cap is not None and self.count * self.block_size > cap:
            self.count = max(1, cap // self.block_size)

        self.bytes_per_stream = self.count * self.block_size
        if self.current_partition.launcher_type.registered_name == 'local':
            # The local launcher starts one process: it runs every stream.
            self.num_tasks = 1
            self.fan_out = self.streams_per_node
        else:
            self.num_tasks = self.nodes * self.streams_per_node
            self.num_tasks_per_node = self.streams_per_node
            self.fan_out = 1

    @run_before('run')
    def set_command_line(self):
        self.executable = shell_join(dd.streams_argv(
            run_dir=self.run_dir, block_size=self.block_size,
            count=self.count, fan_out=self.fan_out,
            cache_defeat=self.cache_defeat,
            drop_caches_command=self.drop_caches_command(),
            barrier_timeout=self.barrier_timeout))

    @sanity_function
    def assert_streams_completed(self):
        # The parser also requires every task's end line.
        return sn.all([
            self.assert_parsed(DD_STREAMS),
            self.assert_job_exit_zero(),
        ])

    @run_before('performance')
    def name_the_slowest_nodes(self):
        if self.is_dry_run():
            return

        result = self.parsed(DD_STREAMS)
        self.slowest_write_node = result.write.slowest_node
        self.slowest_read_node = result.read.slowest_node

    @performance_function('MB/s')
    def write_bw(self):
        return self.parsed(DD_STREAMS).write.aggregate_mb_s

    @performance_function('MB/s')
    def read_bw(self):
        return self.parsed(DD_STREAMS).read.aggregate_mb_s

    @performance_function('MB/s')
    def write_bw_sum(self):
        return self.parsed(DD_STREAMS).write.sum_of_streams_mb_s

    @performance_function('MB/s')
    def read_bw_sum(self):
        return self.parsed(DD_STREAMS).read.sum_of_streams_mb_s

    @performance_function('MB/s')
    def write_bw_conservative(self):
        return self.parsed(DD_STREAMS).write.conservative_mb_s

    @performance_function('MB/s')
    def read_bw_conservative(self):
        return self.parsed(DD_STREAMS).read.conservative_mb_s

    @performance_function('MB/s')
    def write_node_bw_min(self):
        return self.parsed(DD_STREAMS).write.node_min_mb_s

    @performance_function('MB/s')
    def write_node_bw_mean(self):
        return self.parsed(DD_STREAMS).write.node_mean_mb_s

    @performance_function('MB/s')
    def read_node_bw_min(self):
        return self.parsed(DD_STREAMS).read.node_min_mb_s

    @performance_function('MB/s')
    def read_node_bw_mean(self):
        return self.parsed(DD_STREAMS).read.node_mean_mb_s

    @performance_function('%')
    def write_stream_spread(self):
        return self.parsed(DD_STREAMS).write.stream_spread_pct

    @performance_function('%')
    def read_stream_spread(self):
        return self.parsed(DD_STREAMS).read.stream_spread_pct

    @performance_function('s')
    def start_skew(self):
        return self.parsed(DD_STREAMS).write.start_skew_s


@rfm.simple_test
class dd_stream_per_node(dd_streaming_base):
    """E6: one stream per node, 1..64 nodes, 50 GB per stream."""

    descr = 'E6 (seed 001): dd, one stream per node, all nodes together'
    nodes = parameter([1, 2, 4, 8, 16, 32, 64], type=int, loggable=True)
    streams_per_node = variable(int, value=1, loggable=True)
    tags = {'dd', 'E6', 'nightly'}


@rfm.simple_test
class dd_streams_one_node(dd_streaming_base):
    """E9: 1..12 streams on one node, 50 GB per stream."""

    descr = 'E9 (seed 001): dd, 1..12 streams on one node'
    nodes = variable(int, value=1, loggable=True)
    streams_per_node = parameter(list(range(1, 13)), type=int, loggable=True)
    tags = {'dd', 'E9', 'nightly'}


@rfm.simple_test
class dd_streams_per_node(dd_streaming_base):
    """E10: 12 streams per node on 1..64 nodes, 5 GB per stream."""

    descr = 'E10 (seed 001): dd, 12 streams per node on 1..64 nodes'
    nodes = parameter([1, 2, 4, 8, 16, 32, 64], type=int, loggable=True)
    streams_per_node = parameter([12], type=int, loggable=True)
    count = dd.SEED001_COUNT_MULTI_STREAM
    tags = {'dd', 'E10', 'full'}
