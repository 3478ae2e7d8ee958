# SPDX-License-Identifier: BSD-3-Clause
"""iozone experiments of seed 001 (E8, E10, E19 in EXPERIMENTS.md).

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

Seed 001 averaged its runs over 3 ("usually 3 measurements"): the E10
cases (``full``) run the group 3 times in one job, every figure the mean;
E8's nightly cases run once and ``iozone_averaged_one_node`` (``full``) is
E8 with the source's 3.

E19 (``iozone_single_per_node``): the source's first iozone experiment,
one plain iozone per node on 1..64 nodes (``iozone -s 25000000 -r 1024
-I -c -o``, every sub-test, fread/fwrite too; ``-I`` dropped on Panasas,
where it crashed iozone), one measurement; its aggregate is the slowest
node x nodes, ``t_bw_conservative``.

``iozone_cluster`` runs E10 in iozone's own cluster mode instead (``-+m``,
where the partition names a remote shell, ``extras['iozone_rsh']``): one
iozone on the job's first node starts 12 clients on every node and
synchronises every sub-test of every client itself; the figures are the
same, over the clients (``-C``), without a start skew.
"""

import os

import reframe as rfm
import reframe.utility.sanity as sn
import reframe.utility.typecheck as typ
from reframe.core.backends import getlauncher
from reframe.core.builtins import (parameter, run_after, run_before,
                                   sanity_function, variable)
from reframe.core.exceptions import SanityError

from pfsbench import experiments
from pfsbench.checks.base import tag_nightly_point
from pfsbench.checks.streams import (NODE_COUNTS, SEED001_AVERAGED_RUNS,
                                     seed001_averaged, streams_check_base,
                                     summary_figures, untimed)
from pfsbench.commands import iozone, lfs
from pfsbench.core import jobsteps
from pfsbench.core.errors import ParseError
from pfsbench.core.jobsteps import Step
from pfsbench.parsers import iozone as iozone_output, streams


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

    experiment = 'E8'
    descr = ('E8 (seed 001): iozone throughput mode, 1..12 processes, 1 node '
             '(1 run; the source averaged 3: iozone_averaged_one_node)')
    nodes = variable(int, value=1, loggable=True)
    processes = parameter(experiments.E8.values('processes'), type=int,
                          loggable=True)
    tags = {'iozone', 'E8'}

    @run_after('init')
    def tag_tier(self):
        # The nightly's one iozone case: 12 processes
        # (docs/nightly.md); the rest of the sweep is weekly.
        tag_nightly_point(self, processes=12)


@rfm.simple_test
class iozone_averaged_one_node(seed001_averaged, iozone_one_node):
    """E8 as the source measured it: 3 runs in one job, averaged."""

    experiment = 'E8'
    descr = ('E8 (seed 001): iozone throughput mode, 1..12 processes, 1 '
             'node, 3 runs averaged')
    repeats = SEED001_AVERAGED_RUNS
    tags = {'iozone', 'E8', 'full'}


@rfm.simple_test
class iozone_per_node(iozone_throughput_base):
    """E10: 12 iozone processes per node on 1..64 nodes, one group per
    node behind the barrier, summed."""

    experiment = 'E10'
    descr = ('E10 (seed 001): iozone throughput mode, 12 processes per node '
             'on 1..64 nodes')
    nodes = parameter(NODE_COUNTS, type=int, loggable=True)
    processes = parameter(experiments.E10.values('streams_per_node'),
                          type=int, loggable=True)
    file_size_kib = iozone.SEED001_FILE_KIB_MULTI
    repeats = SEED001_AVERAGED_RUNS
    tags = {'iozone', 'E10', 'full'}


@rfm.simple_test
class iozone_single_per_node(iozone_throughput_base):
    """E19: one single-file iozone per node on 1..64 nodes, all behind the
    barrier; every sub-test (fread/fwrite too), one measurement."""

    experiment = 'E19'
    descr = ('E19 (seed 001): iozone, one instance per node on 1..64 nodes, '
             'all together')
    nodes = parameter(NODE_COUNTS, type=int, loggable=True)
    processes = variable(int, value=1, loggable=True)
    tags = {'iozone', 'E19', 'full'}

    #: ``-I`` (O_DIRECT); None: on, except on a ``panfs`` target, where
    #: the source dropped it ("-I option caused Iozone to crash"; set at
    #: setup).
    #:
    #: :type: :class:`bool` or ``None``
    #: :default: ``None``
    direct_io = variable(typ.Bool, type(None), value=None, loggable=True)

    @run_after('init')
    def tag_quick_cases(self):
        # Overrides the base's: one 25 GB file per node, no quick case.
        return

    @run_after('setup')
    def choose_direct_io(self):
        if self.direct_io is None:
            self.direct_io = self.target_fstype != 'panfs'

    def stream_phases(self, direct_read):
        return iozone.single_stream_phases(
            self.file_size_kib, direct=self.direct_io,
            executable=self.tool_path or self.tool)


@rfm.simple_test
class iozone_cluster(iozone_throughput_base):
    """E10 in iozone's cluster mode (``-+m``): 12 clients per node on 1..64
    nodes, started and synchronised by one iozone on the first node."""

    experiment = 'E10'
    descr = ('E10 (seed 001): iozone cluster mode (-+m), 12 clients per '
             'node on 1..64 nodes')
    # iozone's master writes the client file with every node's directory
    # itself: a path naming the node would reach it literally.
    expands_node_name = False
    nodes = parameter(NODE_COUNTS, type=int, loggable=True)
    #: Clients on every node (seed 001: 12, one per core).
    #:
    #: :type: :class:`int`
    #: :default: ``12``
    processes = variable(int, value=12, loggable=True)
    file_size_kib = iozone.SEED001_FILE_KIB_MULTI
    tags = {'iozone', 'E10', 'full'}

    #: The remote shell iozone starts its clients with, exported as
    #: ``RSH`` (the partition's ``extras['iozone_rsh']``; set at setup).
    remote_shell = variable(str, value='', loggable=True)

    @run_after('setup')
    def need_remote_shell(self):
        part = self.current_partition
        self.remote_shell = part.extras.get('iozone_rsh', '')
        self.skip_if(not self.remote_shell,
                     f"{part.fullname} has no extras.iozone_rsh: iozone's "
                     f'cluster mode starts its clients through a remote '
                     f"shell (e.g. 'iozone_rsh': 'ssh', passwordless from "
                     f'the first node to every node)')
        self.env_vars['RSH'] = self.remote_shell

    def client_file(self):
        return os.path.join(self.run_dir, 'iozone.clients')

    def cluster_steps(self):
        """Write the client file of the job's nodes, then run iozone's
        master on it (both once, in the batch script)."""
        tool = self.tool_path or self.tool
        return [
            Step('clients', 'shell', tuple(iozone.cluster_clients_argv(
                self.run_dir, self.processes, tool, self.client_file())),
                launched=False),
            Step('iozone', 'iozone', tuple(iozone.seed001_cluster(
                self.client_file(), self.nodes * self.processes,
                self.file_size_kib, tool, self.iozone_tests or None)),
                launched=False),
        ]

    @run_before('run')
    def set_command_line(self):
        # Overrides the streams base's: no streams runner; the master runs
        # on the first node and iozone itself starts the clients ($RSH).
        self.job.launcher = getlauncher('local')()
        steps = self.layout_steps() if self.sets_layout() else []
        self.prerun_cmds, self.executable = jobsteps.script(
            steps + self.cluster_steps(), '')

    def client_samples(self):
        """Every client's figure of every sub-test (parsed once)."""
        hosts = [line.split()[0] for line in
                 self.step_outputs().outputs.get('clients', (0, []))[1]
                 if line.strip()]
        result = self.parsed(iozone_output, step='iozone')
        try:
            return iozone_output.client_samples(result, hosts,
                                                'rfm_job.out')
        except ParseError as err:
            raise SanityError(f"step 'iozone': {err}") from None

    @sanity_function
    def assert_streams_completed(self):
        # Overrides the streams base's: the client file was written, and
        # iozone reported every client of every sub-test.
        return sn.all([
            self.assert_layout(),
            self.assert_clients_measured(),
            self.assert_job_exit_zero(),
        ])

    @sn.deferrable
    def assert_clients_measured(self):
        status = self.step_outputs().exits.get('clients')
        if status != 0:
            raise SanityError(f"step 'clients' exited with {status}: no "
                              f'client file for iozone -+m')

        self.client_samples()
        return True

    @run_before('performance')
    def set_figures(self):
        # Overrides the streams base's: the clients' figures, summarised
        # as the streams' are (no start skew: iozone synchronises them).
        if self.is_dry_run():
            return

        by_name = {}
        for sample in self.client_samples():
            by_name.setdefault(sample.name, []).append(sample)
        summaries = {name: streams.summarise(name, group, 'MB/s')
                     for name, group in by_name.items()}
        self.slowest_nodes = ' '.join(
            f'{name}={summary.slowest_node}'
            for name, summary in summaries.items() if summary.slowest_node)
        self.perf_variables = summary_figures(summaries)
        self.untimed_figures = ' '.join(untimed(summaries))
