# SPDX-License-Identifier: BSD-3-Clause
"""Seed 004's client layout (E15-E17), whatever tool runs the case.

Seed 004 (Kondekar, Sun, 2009) ran its metadata benchmarks from one client
and from 70 clients of 16 cores.  NP is the run's total process count: the
source's tables give the same figure at NP 1 on one client and on 70
(mdsrate stat 20876 vs 20723 on Lustre 2.0), which 70 processes could not.
A single-client case runs NP tasks on one node (the 16-core client
"saturated at NP 16"); a multi-client case spreads them one per client over
``min(NP, multi_clients)`` nodes (70, or fewer where the partition's
``max_nodes`` caps them: then several per node, and ``clients_capped``
says so).  The mdtest families (``reframe-checks/mdtest/mdtest_seed004.py``)
and the real mdsrate (``reframe-checks/mdtest/mdsrate_e16.py``) share it;
``pfsbench render`` places the tasks with the same
:func:`pfsbench.commands.mdtest.seed004_layout`.
"""

import reframe as rfm
import reframe.utility.typecheck as typ
from reframe.core.builtins import parameter, run_after, run_before, variable
from reframe.core.logging import getlogger

from pfsbench import experiments
from pfsbench.commands import srun
from pfsbench.commands.mdtest import SEED004_CLIENTS, seed004_layout


class Seed004Clients(rfm.RegressionTestPlugin):
    """Mixin of seed 004's families (before
    :class:`~pfsbench.checks.FileSystemCheck` in the bases): the family
    declares ``experiment`` and an ``np`` parameter (processes of the
    whole run)."""

    nodes = variable(int, value=1, loggable=True)
    tasks_per_node = variable(int, value=1, loggable=True)

    #: ``single``: all NP processes on one client node; ``multi``: one per
    #: client on up to :attr:`multi_clients` nodes.
    #:
    #: :type: :class:`str`
    #: :values: ``['single', 'multi']``
    clients = parameter(list(experiments.SEED004_CLIENT_MODES), type=str,
                        loggable=True)

    #: Client nodes a multi-client case may spread over (capped at the
    #: partition's ``max_nodes``).
    #:
    #: :type: :class:`int`
    #: :default: ``70``
    multi_clients = variable(int, value=SEED004_CLIENTS, loggable=True)

    #: True when the partition's ``max_nodes`` put more than one process
    #: on a client of a multi-client case (set at setup).
    clients_capped = variable(typ.Bool, value=False, loggable=True)

    @run_after('init')
    def set_processes_and_tags(self):
        self.tasks_per_node = self.np
        self.tags |= {self.experiment}
        if self.clients == 'single' and self.np == 1:
            self.tags |= {'quick'}
        elif self.clients == 'single' and self.np <= 16:
            self.tags |= {'weekly'}
        else:
            self.tags |= {'full'}

    @run_after('setup')
    def resolve_target(self):
        # Replaces the base class's hook of that name, in its place: the
        # node count must be known before it checks max_nodes.
        part = self.current_partition
        self.nodes, self.tasks_per_node, self.clients_capped = \
            seed004_layout(self.clients, self.np, self.multi_clients,
                           part.extras.get('max_nodes'))
        if self.clients_capped:
            getlogger().warning(
                f'{self.unique_name}: {part.fullname} has '
                f'{part.extras.get("max_nodes")} node(s): NP {self.np} runs '
                f'{self.tasks_per_node} per node on {self.nodes}, not one per '
                f'client (seed 004); clients_capped is logged')
        super().resolve_target()

    @run_before('run', always_last=True)
    def overcommit_the_clients(self):
        # NP 32 and 64 on one 16-core client: the source ran them (its
        # saturation curve goes on past NP 16); Slurm refuses more tasks
        # than a node's CPUs unless the job says --overcommit, and Slurm
        # 22.05 refuses an --ntasks-per-node above them even then
        # (localslurm, measured): the job gives --nodes and --ntasks,
        # which Slurm spreads evenly (NP is a multiple of the nodes).
        # With no tasks per node ReFrame's use_nodes_option writes
        # --nodes=<tasks>.  Under srun, which takes the count from the
        # job, num_tasks None has ReFrame write neither (its documented
        # reading of None) and the job's options carry the only ones; a
        # launcher that spells the count (mpirun -np N) needs num_tasks, so
        # there the job's later --nodes overrides ReFrame's (sbatch keeps
        # the last).  Last of the hooks: the others read the layout
        # (docs/checks-mdtest.md).
        options = srun.overcommit(self.tasks_per_node,
                                  self.current_partition.processor.num_cpus)
        if not options or self.local_launcher():
            return

        self.num_tasks_per_node = None
        self.job.options += options + [f'--nodes={self.nodes}']
        if self.current_partition.launcher_type.registered_name == 'srun':
            self.job.options += [f'--ntasks={self.num_tasks}']
            self.num_tasks = None

    @run_after('run')
    def restore_task_count(self):
        # The job is written: sanity, the figures and the perflog's
        # num_tasks read the run's processes again.
        if self.num_tasks is None:
            self.num_tasks = self.nodes * self.tasks_per_node
