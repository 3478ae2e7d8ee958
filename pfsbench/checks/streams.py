# SPDX-License-Identifier: BSD-3-Clause
"""What every streams family shares: a tool with no parallel mode of its
own, one process per stream, run through the streams runner.

The runner (:mod:`pfsbench.runner`) starts every stream of the job at each
phase together, behind a barrier that costs the target nothing, defeats the
page cache between phases, and stops every stream within seconds when one
fails.  A family (dd, fio) subclasses :class:`streams_check_base` and adds
only its sweep (``nodes``, ``streams_per_node``), its knobs and:

- ``stream_parser``: its tool's parser module, whose ``stream_measures``
  turns one stream-phase's output into measures
  (:mod:`pfsbench.parsers.streams`);
- :meth:`streams_check_base.size_stream`: its size per stream, under the
  partition's cap;
- :meth:`streams_check_base.stream_phases`: its phases' command lines, from
  :mod:`pfsbench.commands`.

Figures, for every phase (or measure) ``p`` the tool reported: ``p_bw``
(all bytes over the wall time), ``p_bw_sum`` (the sum of the streams' own
rates), ``p_bw_conservative`` (slowest stream x streams), ``p_node_bw_min``,
``p_node_bw_mean``, ``p_node_bw_max`` (per node, the sum of its streams),
``p_stream_spread`` (%), ``p_repeat_spread`` (%, the sum's between
repeats, with ``repeats`` > 1: every other figure is then the mean over
the repeats), ``p_bw_trimmed`` (seed 001's trimmed aggregate,
:func:`pfsbench.core.aggregate.trimmed`), and ``start_skew`` (s, the first
phase).  A measure in another unit than MB/s (bonnie++'s seeks, ``/s``)
keeps the names; a figure the tool could not measure (bonnie++'s ``+++++``)
is left out of the perflog, never logged as 0, and named in the loggable
``untimed_figures``.
"""

import shutil

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import (parameter, run_after, run_before,
                                   sanity_function, variable)
from reframe.core.exceptions import SanityError

from pfsbench import experiments
from pfsbench.checks.base import FileSystemCheck
from pfsbench.commands import ior, lfs as lfs_commands
from pfsbench.commands.streams import repeated, runner
from pfsbench.core import jobsteps
from pfsbench.core.shell import shell_join
from pfsbench.parsers import lfs, streams
from pfsbench.runner import CACHE_DEFEAT_MODES


#: The figures of each phase, as (name suffix, PhaseSummary field, unit;
#: None: the measure's own), in the perflog's order: group by group, each
#: group once per phase (``write_bw, read_bw, write_bw_sum, ...``, as the
#: dd family always logged them).
FIGURE_GROUPS = (
    (('_bw', 'aggregate_mb_s', None),),
    (('_bw_sum', 'sum_of_streams_mb_s', None),),
    (('_bw_conservative', 'conservative_mb_s', None),),
    (('_node_bw_min', 'node_min_mb_s', None),
     ('_node_bw_mean', 'node_mean_mb_s', None),
     ('_node_bw_max', 'node_max_mb_s', None)),
    (('_stream_spread', 'stream_spread_pct', '%'),),
    (('_bw_trimmed', 'trimmed_mb_s', None),),
    (('_repeat_spread', 'repeat_spread_pct', '%'),),
)


#: Seed 001's node counts (E6, E7, E10).
NODE_COUNTS = list(experiments.SEED001_NODE_COUNTS)
#: Seed 001's streams on one node (E9).
STREAMS_ON_ONE_NODE = list(experiments.SEED001_STREAMS_ON_ONE_NODE)


#: Seed 001's runs per figure: "averaged over usually 3 measurements".
SEED001_AVERAGED_RUNS = 3


class seed001_averaged(rfm.RegressionTestPlugin):
    """A nightly family's ``full`` variant with seed 001's 3 runs in one job,
    every figure their mean (the nightly runs once to save its time; the
    variant costs 3 times as much).  The variant sets ``repeats =
    SEED001_AVERAGED_RUNS`` in its body (a variable of the family, which
    ``-S repeats=N`` still overrides)."""

    @run_after('init')
    def tag_full_only(self):
        # After the family's own hooks: no averaged case is quick or
        # nightly, whatever its size.
        self.tags -= {'quick', 'nightly', 'weekly'}
        self.tags |= {'full'}


class one_stream_per_node(rfm.RegressionTestPlugin):
    """Seed 001's E6/E7 shape: one stream per node, 1..64 nodes."""

    nodes = parameter(NODE_COUNTS, type=int, loggable=True)
    streams_per_node = variable(int, value=1, loggable=True)


class streams_on_one_node(rfm.RegressionTestPlugin):
    """Seed 001's E9 shape: 1..12 streams on one node."""

    nodes = variable(int, value=1, loggable=True)
    streams_per_node = parameter(STREAMS_ON_ONE_NODE, type=int,
                                 loggable=True)


class twelve_streams_per_node(rfm.RegressionTestPlugin):
    """Seed 001's E10 shape: 12 streams per node on 1..64 nodes."""

    nodes = parameter(NODE_COUNTS, type=int, loggable=True)
    streams_per_node = parameter(list(experiments.SEED001_STREAMS_PER_NODE),
                                 type=int, loggable=True)


class streams_check_base(FileSystemCheck):
    """Base of the streams families; not a test by itself.

    A family declares ``nodes`` and ``streams_per_node`` (``parameter``
    where it sweeps them, ``variable`` otherwise; seed 001's shapes are the
    mixins above), ``stream_parser``, and overrides :meth:`size_stream` and
    :meth:`stream_phases`.
    """

    # No MPI needed: any partition that can hold a file-system target.
    valid_systems = ['+pfs']

    # The runner expands $SLURMD_NODENAME in --run-dir on each node.
    expands_node_name = True

    #: The tool's parser module (with ``stream_measures``).
    stream_parser = None

    #: ``drop_caches``, ``direct`` or ``none``; empty: ``drop_caches`` where
    #: the partition has that feature, else ``direct``.
    #:
    #: :type: :class:`str`
    #: :default: ``''``
    cache_defeat = variable(str, value='', loggable=True)

    #: Bytes each stream writes and reads in this run (after any cap).
    bytes_per_stream = variable(int, value=0, loggable=True)

    #: Runs of the phases in one job, every figure the mean over them (seed
    #: 001 averaged 3 runs).
    #:
    #: :type: :class:`int`
    #: :default: ``1``
    repeats = variable(int, value=1, loggable=True)

    #: Seconds a barrier waits for its last stream before it stops them
    #: all.
    #:
    #: :type: :class:`float`
    #: :default: ``3600``
    barrier_timeout = variable(float, value=3600.0)

    #: ``lfs setstripe -c`` of the run directory on partitions with the
    #: ``lustre`` feature (every stream's directory and file inherit it);
    #: 0: the file system's default layout, nothing set; None: the
    #: partition's ``extras['lustre_stripe_count']``, else the family's
    #: :attr:`default_stripe_count` (set at setup; a family whose default
    #: is 0, fio, sets no layout).
    #:
    #: :type: :class:`int` or ``None``
    #: :default: ``None``
    stripe_count = variable(int, type(None), value=None, loggable=True)

    #: The family's stripe count where neither the case nor the partition
    #: sets one (seed 001's families: 4).
    default_stripe_count = 0

    #: ``lfs setstripe -S`` with :attr:`stripe_count`.
    #:
    #: :type: :class:`str`
    #: :default: ``'1m'``
    stripe_size = variable(str, value='1m', loggable=True)

    #: Node with the lowest write/read rate (set after the run).
    slowest_write_node = variable(str, value='', loggable=True)
    slowest_read_node = variable(str, value='', loggable=True)

    #: The slowest node of every measure, ``measure=node`` space-separated
    #: (set after the run; a tool with several measures, as bonnie++).
    slowest_nodes = variable(str, value='', loggable=True)

    #: The figures the tool could not time, space-separated (set after the
    #: run): a measure one of whose streams printed bonnie++'s ``+++++``
    #: (over before its clock could time it) has no figure in the perflog,
    #: never 0; the gate reads a figure listed here on every repeat as too
    #: fast to time, not as missing data.
    untimed_figures = variable(str, value='', loggable=True)

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
        if self.stripe_count is None and self.default_stripe_count:
            # The partition's count replaces seed 001's; a family without
            # a layout of its own (fio) sets none.
            self.stripe_count = self.current_partition.extras.get(
                'lustre_stripe_count', self.default_stripe_count)
        elif self.stripe_count is None:
            self.stripe_count = 0
        self.bytes_per_stream = self.size_stream(self.size_cap())
        if self.local_launcher():
            # The local launcher starts one process: it runs every stream.
            self.num_tasks = 1
            self.fan_out = self.streams_per_node
        else:
            self.num_tasks = self.nodes * self.streams_per_node
            self.num_tasks_per_node = self.streams_per_node
            self.fan_out = 1

    def size_stream(self, cap):
        """Fit the family's size per stream under the partition's cap.

        Args:
            cap: the most bytes one stream may write, or None.

        Returns:
            the bytes each stream writes (and reads) in this run.
        """
        raise NotImplementedError

    def stream_phases(self, direct_read):
        """The family's phases, from its command builder.

        Args:
            direct_read: whether reads must bypass the page cache (the
                cache-defeat mode ``direct``).

        Returns:
            ``[(name, argv), ...]`` for the runner, in order.
        """
        raise NotImplementedError

    def sets_layout(self):
        """Whether this case sets (and verifies) a Lustre layout."""
        return self.stripe_count != 0 and self.target_lustre

    @run_after('setup')
    def need_lfs(self):
        self.skip_if(self.sets_layout() and not self.renders_only() and
                     shutil.which('lfs') is None,
                     'lfs (the Lustre client utilities) is not on PATH: '
                     'this partition cannot set or verify the stripe '
                     'layout (-S stripe_count=0 runs without one)')

    def layout_steps(self):
        """Seed 001's layout of the run directory, then the layout a new
        file in it gets (parsed and compared after the run)."""
        return lfs_commands.layout_steps(self.run_dir, self.stripe_count,
                                         self.stripe_size)

    @run_before('run')
    def set_command_line(self):
        if self.sets_layout():
            streams_step = jobsteps.Step('streams', 'streams', ('true',))
            self.prerun_cmds = jobsteps.script(
                self.layout_steps() + [streams_step], '')[0]
        self.executable = shell_join(runner(
            run_dir=self.run_dir,
            # A node target's run directories are not shared: the
            # barrier's rendezvous goes through the stage directory.
            rendezvous_dir=(self.stagedir if self.target_scope == 'node'
                            else None),
            phases=repeated(
                self.stream_phases(self.cache_defeat == 'direct'),
                self.repeats),
            fan_out=self.fan_out, cache_defeat=self.cache_defeat,
            drop_caches_command=self.drop_caches_command(),
            barrier_timeout=self.barrier_timeout))

    def bytes_moved(self):
        return (self.bytes_per_stream * self.nodes * self.streams_per_node *
                len(self.stream_phases(False)) * self.repeats)

    def streams_parser(self):
        """The runner's output parser, with this family's tool."""
        return streams.for_tool(self.stream_parser)

    @sanity_function
    def assert_streams_completed(self):
        # The parser also requires every task's end line, and quotes the
        # failing stream's own tool error.
        return sn.all([
            self.assert_layout(),
            self.assert_parsed(self.streams_parser()),
            self.assert_job_exit_zero(),
        ])

    @sn.deferrable
    def assert_layout(self):
        if not self.sets_layout():
            return True

        exits = self.step_outputs().exits
        for step in self.layout_steps():
            if exits.get(step.label) != 0:
                raise SanityError(f'step {step.label!r} exited with '
                                  f'{exits.get(step.label)}: the Lustre '
                                  f'layout was not set')

        layout = self.parsed(lfs, step='getstripe').layouts[0]
        # (the probe file's: a new file in the run directory)
        problems = lfs.layout_mismatches(layout, self.stripe_count,
                                         ior.size_bytes(self.stripe_size))
        if problems:
            raise SanityError('the Lustre layout did not apply: ' +
                              '; '.join(problems))

        return True

    @run_before('performance')
    def set_figures(self):
        if self.is_dry_run():
            return

        result = self.parsed(self.streams_parser())
        self.slowest_write_node = getattr(result.summaries.get('write'),
                                          'slowest_node', '')
        self.slowest_read_node = getattr(result.summaries.get('read'),
                                         'slowest_node', '')
        self.slowest_nodes = ' '.join(
            f'{name}={summary.slowest_node}'
            for name, summary in result.summaries.items()
            if summary.slowest_node)
        self.perf_variables = figures(result)
        self.untimed_figures = ' '.join(untimed(result.summaries))


def figures(result):
    """The performance variables of a streams run.

    Args:
        result: a :class:`pfsbench.parsers.streams.StreamsResult`.

    Returns:
        name -> ReFrame performance function, in the perflog's order (a
        figure the tool cannot give, e.g. an aggregate without byte counts,
        is left out).
    """
    made = summary_figures(result.summaries)
    first = next(iter(result.summaries.values()))
    made['start_skew'] = sn.make_performance_function(
        sn.defer(first.start_skew_s), 's')
    return made


def summary_figures(summaries):
    """The performance variables of every measure's summary, without the
    start skew (:func:`figures`; iozone's cluster mode has no start times).

    Args:
        summaries: measure name -> :class:`pfsbench.parsers.streams.
            PhaseSummary`, in order.

    Returns:
        name -> ReFrame performance function, in the perflog's order.
    """
    made = {}
    for group in FIGURE_GROUPS:
        for name, summary in summaries.items():
            for suffix, field, unit in group:
                value = getattr(summary, field)
                if value is not None:
                    made[f'{name}{suffix}'] = sn.make_performance_function(
                        sn.defer(value), unit or summary.unit)

    return made


def untimed(summaries):
    """The figures :func:`summary_figures` leaves out because the tool
    could not time a stream's rate (bonnie++'s ``+++++``), in the
    perflog's order; not those no run of the measure gives (an aggregate
    over wall time without byte counts, a repeat spread of one repeat).

    Args:
        summaries: measure name -> :class:`pfsbench.parsers.streams.
            PhaseSummary`, in order.
    """
    out = []
    for group in FIGURE_GROUPS:
        for name, summary in summaries.items():
            if summary.sum_of_streams_mb_s is not None:
                continue    # every stream timed
            for suffix, field, _ in group:
                never = ((field == 'aggregate_mb_s' and summary.bytes is None)
                         or (field == 'repeat_spread_pct' and
                             summary.repeats < 2))
                if getattr(summary, field) is None and not never:
                    out.append(f'{name}{suffix}')

    return out
