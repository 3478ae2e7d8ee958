# SPDX-License-Identifier: BSD-3-Clause
"""bonnie++ experiments of seed 001 (E5, E7, E9, E10 in EXPERIMENTS.md).

Seed 001 ran bonnie in a directory of its own on every node (E7), and 1..12
times per node (E9, E10), and saw its figures scatter ("400 vs 1300 MB/s")
because its instances did not start together.  Here every instance is one
stream of the streams runner (:mod:`pfsbench.checks.streams`): all start
behind one barrier (the start skew is measured), each in its own directory,
with seed 001's ``bonnie -d $DIR -s 2000 -v 16 -y`` mapped to bonnie++
(:mod:`pfsbench.commands.bonnie` documents the mapping)::

    bonnie++ -d {stream_dir} -s 32000 -n 0 -r 0 [-u root] -q

Figures, for each bonnie++ test ``t`` in ``char_write``, ``block_write``,
``rewrite``, ``char_read``, ``block_read`` (MB/s) and ``seeks`` (/s):
``t_bw_sum`` (the sum over instances: the seed's aggregate),
``t_bw_conservative`` (slowest x instances), ``t_bw_trimmed`` (the seed's
trimming of questionable points), ``t_node_bw_min/mean/max`` (per node, the
sum of its instances), ``t_stream_spread`` (%), ``start_skew``, and the
slowest node of each test in ``slowest_nodes``.  A test bonnie++ printed as
``+++++`` (too fast to measure) has no figure in the perflog, never 0.
References: ``config/references/<system>.yaml``, keys
``bonnie_per_node`` etc.  See docs/checks-bonnie.md.

Seed 001 averaged its bonnie runs over 3 ("averaged over repeats"): the
E10 cases (``full``) run 3 times in one job, every figure the mean; E7's
nightly cases run once, and ``bonnie_averaged_per_node`` (``full``) is E7
with the source's 3.

E5 (``bonnie_lustre_stripe``): the source swept the Lustre layout with
bonnie on one node; the same one instance here, once per stripe count and
size (IOR's variant: ``ior_lustre_stripe_bandwidth``).
"""

import os

import reframe as rfm
from reframe.core.builtins import parameter, run_after, variable

from pfsbench import experiments
from pfsbench.checks.base import tag_nightly_point
from pfsbench.checks.streams import (SEED001_AVERAGED_RUNS,
                                     one_stream_per_node, seed001_averaged,
                                     streams_check_base, streams_on_one_node,
                                     twelve_streams_per_node)
from pfsbench.commands import bonnie, lfs
from pfsbench.parsers import bonnie as bonnie_output

MIB = 2**20


class bonnie_streams_base(streams_check_base):
    """What the three bonnie++ families share; not a test by itself."""

    tool = 'bonnie++'
    stream_parser = bonnie_output
    # One phase: bonnie++ reads back right after it writes, as the source
    # did; nothing to defeat between phases.
    cache_defeat = 'none'
    # Seed 001's layout on +lustre partitions: stripe size 1 MB, count 4
    # (lfs3, lfs5; its lfs4 took 12: extras lustre_stripe_count).
    default_stripe_count = lfs.SEED001_STRIPE_COUNT

    #: MiB of bulk I/O per instance (bonnie++ ``-s``; seed 001: 16 volumes
    #: of 2000 MiB); the partition's ``max_bytes_per_stream`` may lower it.
    #:
    #: :type: :class:`int`
    #: :default: ``32000``
    size_mib = variable(int, value=bonnie.SEED001_VOLUME_MIB *
                        bonnie.SEED001_VOLUMES, loggable=True)

    #: MiB for the per-char tests (bonnie++ ``-f N``); 0: bonnie++'s own
    #: default.
    #:
    #: :type: :class:`int`
    #: :default: ``0``
    char_io_mib = variable(int, value=0, loggable=True)

    #: ``-u`` (``root`` when run as root: bonnie++ refuses root without it;
    #: set at setup).
    run_as = variable(str, value='', loggable=True)

    @run_after('setup')
    def run_as_root_explicitly(self):
        if os.geteuid() == 0:
            self.run_as = 'root'

    def size_stream(self, cap):
        if cap is not None and self.size_mib * MIB > cap:
            self.size_mib = max(1, cap // MIB)

        return self.size_mib * MIB

    def stream_phases(self, direct_read):
        # The partition may set the per-char size where bonnie++'s default
        # takes too long (one FUSE round trip per byte); -S wins.
        char_io_mib = (self.char_io_mib or
                       self.current_partition.extras.get('bonnie_char_io_mib'))
        return bonnie.stream_phases(
            self.size_mib, user=self.run_as or None,
            char_io_mib=char_io_mib,
            executable=self.tool_path or self.tool)

    def bytes_moved(self):
        # Block write, rewrite (a read and a write) and block read: four
        # times the size (the per-char tests add a few MiB).
        return (4 * self.bytes_per_stream * self.nodes *
                self.streams_per_node * self.repeats)


@rfm.simple_test
class bonnie_per_node(bonnie_streams_base, one_stream_per_node):
    """E7: one bonnie++ per node, 1..64 nodes, all started together."""

    experiment = 'E7'
    descr = ('E7 (seed 001): bonnie++, one instance per node, all together '
             '(1 run; the source averaged 3: bonnie_averaged_per_node)')
    tags = {'bonnie', 'E7'}

    @run_after('init')
    def tag_tier(self):
        # The nightly's one bonnie++ case: 16 nodes, one each
        # (docs/nightly.md); the rest of the sweep is weekly.
        tag_nightly_point(self, nodes=16)


@rfm.simple_test
class bonnie_averaged_per_node(seed001_averaged, bonnie_per_node):
    """E7 as the source measured it: 3 runs in one job, averaged."""

    experiment = 'E7'
    descr = ('E7 (seed 001): bonnie++, one instance per node, all together, '
             '3 runs averaged')
    repeats = SEED001_AVERAGED_RUNS
    tags = {'bonnie', 'E7', 'full'}


@rfm.simple_test
class bonnie_streams_one_node(bonnie_streams_base, streams_on_one_node):
    """E9: 1..12 bonnie++ instances on one node."""

    experiment = 'E9'
    descr = 'E9 (seed 001): bonnie++, 1..12 instances on one node'
    tags = {'bonnie', 'E9', 'weekly'}


@rfm.simple_test
class bonnie_streams_per_node(bonnie_streams_base, twelve_streams_per_node):
    """E10: 12 bonnie++ instances per node on 1..64 nodes (16 x 200 MiB
    each, as the source)."""

    experiment = 'E10'
    descr = 'E10 (seed 001): bonnie++, 12 instances per node on 1..64 nodes'
    size_mib = bonnie.SEED001_VOLUME_MIB_MULTI * bonnie.SEED001_VOLUMES
    repeats = SEED001_AVERAGED_RUNS
    tags = {'bonnie', 'E10', 'full'}


@rfm.simple_test
class bonnie_lustre_stripe(bonnie_streams_base):
    """E5: one bonnie++ on one node, over Lustre stripe count x size."""

    experiment = 'E5'
    descr = ('E5 (seed 001): bonnie++ over Lustre stripe count x stripe '
             'size, one node')
    valid_systems = ['+lustre']
    nodes = variable(int, value=1, loggable=True)
    streams_per_node = variable(int, value=1, loggable=True)

    #: ``COUNTxSIZE``, the ``lfs setstripe -c``/``-S`` of the run
    #: directory (``-P layout=3x1m``): counts 1..32 (with 3: lfs3 peaked at
    #: 3 to 4), sizes 64k..4m and 0 (the file system's default).
    #:
    #: :type: :class:`str`
    layout = parameter(experiments.E5.values('layout'), type=str,
                       loggable=True)
    tags = {'bonnie', 'E5', 'lustre', 'full'}

    @run_after('init')
    def tag_quick_cases(self):
        # Overrides the streams base's: no case of this sweep is quick,
        # each moves the source's 32000 MiB.
        return

    @run_after('init')
    def set_layout(self):
        count, self.stripe_size = self.layout.split('x')
        self.stripe_count = int(count)

    @run_after('setup')
    def need_lustre_target(self):
        self.skip_if(not self.target_lustre,
                     f'target {self.target_name} is {self.target_fstype}, '
                     f'not Lustre: it takes no stripe layout')
