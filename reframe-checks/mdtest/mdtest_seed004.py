# SPDX-License-Identifier: BSD-3-Clause
"""MDS performance of Lustre 1.6, 1.8 and 2.0, seed 004 (E15-E17).

Seed 004 (Kondekar, Sun, 2009) ran three metadata benchmarks from one
client and from 70 clients (16 cores each) against one MDS, 304,000 files
or directories per run:

- E15 ``mdtest_e15_metabench_standin``: metabench's file create, stat and
  delete in the same directory vs in different directories, NP 1, 3, 7,
  15, 31, 63;
- E16 ``mdtest_e16_mdsrate_standin``: mdsrate ``--create --stat
  --unlink`` (one shared directory), NP 1..64;
- E17 ``mdtest_e17_stride_sync``: mdtest directory and file create, stat
  and remove with ``-N`` (stat the neighbour's items), ``-p`` (a pause
  before each iteration) and ``-y`` (fsync after each write), NP 1..64.

metabench and mdsrate are not built here: mdtest runs the same operations
and the names say that it stands in.  NP is the run's total process count
(:mod:`pfsbench.checks.seed004`): a single-client case runs NP tasks on one
node, a multi-client case one task per client on ``min(NP, 70)`` nodes
(capped by the partition's ``max_nodes``, ``clients_capped`` saying so).
E15's NP are metabench's workers (1, 3, 7 .. 63: the source's columns at
NP 1, 2, 4 .. 64, one rank being metabench's master), the tasks mdtest
runs.  The source does not give ``-N`` and ``-p`` values: ``-N 1`` (one
node away, as IO500) and ``-p 1``.  The 304,000 items are shared among
all tasks (304,000 / NP each; ``mdtest_max_items`` caps them on small
partitions).

Every case is one pass (``-i 1``), as the source's one run; the spread
comes from repeated runs (``reframe --repeat``).  E15 and E16 (files
only) run each phase as its own mdtest (``-C``, ``-T``, ``-r``, back to
back, nothing dropped in between) with ``/proc/stat`` sampled on every
client node before and after it: the source watched the clients' CPU
(dstat: "cpu get saturated at NP 16").  E17 is one mdtest run, as the
source's (directories, then files: never both in the tree), and syncs
every created file: ``-w 1 -y``, since IOR's mdtest syncs only what ``-w``
writes (the source's LLNL mdtest synced under ``-y`` alone).  NP above
a client's CPUs (NP 32, 64 on its 16 cores) asks for ``--overcommit``
(:class:`pfsbench.checks.seed004.Seed004Clients`).  The command lines
are :func:`pfsbench.commands.mdtest.seed004_argv`'s, which ``pfsbench
render`` uses too.

Figures: each phase's rate (ops/s); the client CPU utilisation during each
phase (``create_cpu_util``: the nodes' mean; ``create_cpu_util_max``: the
busiest node's, %).  References: keys
``mdtest_e15_metabench_standin`` (``$index: [$partition, clients,
directory, np]``), ``mdtest_e16_mdsrate_standin`` and
``mdtest_e17_stride_sync`` (``[$partition, clients, np]``), e.g. Lustre
2.0's multi-client mdsrate stat of 237k ops/s at NP 16.
"""

import reframe as rfm
from reframe.core.builtins import parameter, run_after

from pfsbench import experiments
from pfsbench.checks.mdtest import mdtest_rates_base
from pfsbench.checks.seed004 import Seed004Clients
from pfsbench.commands import mdtest

#: metabench's process counts (E15).
METABENCH_NP = experiments.E15.values('np')
#: mdsrate's and mdtest's process counts (E16, E17).
MDTEST_NP = experiments.E17.values('np')


class seed004_mdtest_base(Seed004Clients, mdtest_rates_base):
    """Seed 004's item count and phases; not a test by itself."""

    total_items = mdtest.SEED004_ITEMS
    md_phases = list(mdtest.SEED004_PHASES)
    # One pass, as the source's one run (-i 3 made 3 x 304,000 items and
    # reported the best); the spread comes from repeated runs.
    iterations = mdtest.SEED004_ITERATIONS
    # One mdtest run per phase, for the clients' CPU during each.
    split_phases = True
    drop_caches_between_phases = False


@rfm.simple_test
class mdtest_e15_metabench_standin(seed004_mdtest_base):
    """E15: file create/stat/delete, same vs different directories
    (mdtest standing in for metabench)."""

    descr = ('E15 (seed 004): metabench-style file create/stat/delete, '
             'same vs different directories, NP 1..63 (mdtest stands in)')
    experiment = 'E15'
    item_kind = 'files'

    #: metabench's workers: the processes of the whole run.
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 3, 7, 15, 31, 63]``
    np = parameter(METABENCH_NP, type=int, loggable=True)

    #: ``same``: one shared directory; ``different``: one per process
    #: (``-u``).
    #:
    #: :type: :class:`str`
    #: :values: ``['same', 'different']``
    directory = parameter(experiments.E15.values('directory'), type=str,
                          loggable=True)

    @run_after('init')
    def set_directory(self):
        self.unique_dir = self.directory == 'different'


@rfm.simple_test
class mdtest_e16_mdsrate_standin(seed004_mdtest_base):
    """E16: create/stat/unlink in one directory (mdtest standing in for
    mdsrate)."""

    descr = ('E16 (seed 004): mdsrate-style create/stat/unlink in one '
             'directory, NP 1..64 (mdtest stands in)')
    experiment = 'E16'
    item_kind = 'files'
    unique_dir = False

    #: Processes of the whole run.
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 2, 4, 8, 16, 32, 64]``
    np = parameter(MDTEST_NP, type=int, loggable=True)


@rfm.simple_test
class mdtest_e17_stride_sync(seed004_mdtest_base):
    """E17: mdtest directory and file create/stat/remove with -N, -p, -y."""

    descr = ('E17 (seed 004): mdtest dir + file create/stat/remove, -N 1 '
             '-p 1, every file synced (-w 1 -y), NP 1..64')
    experiment = 'E17'
    item_kind = 'both'
    unique_dir = False
    stride = mdtest.SEED004_STRIDE
    pre_delay_s = mdtest.SEED004_PRE_DELAY_S
    sync_file = True
    # IOR's mdtest syncs a file only inside its -w write (the source's LLNL
    # mdtest synced every file under -y): one byte, the smallest write.
    write_bytes = mdtest.SEED004_SYNC_WRITE_BYTES
    # One mdtest, as the source's: directories made, stat-ed and removed,
    # then files, never both in the tree (split by phase, -C would make
    # both): no per-phase CPU figures.
    split_phases = mdtest.seed004_split('E17')

    #: Processes of the whole run.
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 2, 4, 8, 16, 32, 64]``
    np = parameter(MDTEST_NP, type=int, loggable=True)
