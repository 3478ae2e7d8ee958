# SPDX-License-Identifier: BSD-3-Clause
"""Seed 004's client layout (E15-E17), whatever tool runs the case.

Seed 004 (Kondekar, Sun, 2009) ran its metadata benchmarks from one client
and from 70 clients of 16 cores.  NP is read as processes per client (the
source saw the 16-core clients saturate at NP 16), so a multi-client case
runs NP tasks on each of ``multi_clients`` nodes (70, or the partition's
``max_nodes`` where it has fewer).  The mdtest families
(``reframe-checks/mdtest/mdtest_seed004.py``) and the real mdsrate
(``reframe-checks/mdtest/mdsrate_e16.py``) share it.
"""

import reframe as rfm
from reframe.core.builtins import parameter, run_after, variable

from pfsbench.commands.mdtest import SEED004_CLIENTS


class Seed004Clients(rfm.RegressionTestPlugin):
    """Mixin of seed 004's families (before
    :class:`~pfsbench.checks.FileSystemCheck` in the bases): the family
    declares ``experiment`` and an ``np`` parameter."""

    nodes = variable(int, value=1, loggable=True)
    tasks_per_node = variable(int, value=1, loggable=True)

    #: ``single``: one client node; ``multi``: :attr:`multi_clients`.
    #:
    #: :type: :class:`str`
    #: :values: ``['single', 'multi']``
    clients = parameter(['single', 'multi'], type=str, loggable=True)

    #: Client nodes of a multi-client case (capped at the partition's
    #: ``max_nodes``).
    #:
    #: :type: :class:`int`
    #: :default: ``70``
    multi_clients = variable(int, value=SEED004_CLIENTS, loggable=True)

    @run_after('init')
    def set_processes_and_tags(self):
        self.tasks_per_node = self.np
        self.tags |= {self.experiment}
        if self.clients == 'single' and self.np == 1:
            self.tags |= {'quick'}
        elif self.clients == 'single' and self.np <= 16:
            self.tags |= {'nightly'}
        else:
            self.tags |= {'full'}

    @run_after('setup')
    def resolve_target(self):
        # Replaces the base class's hook of that name, in its place: the
        # node count must be known before it checks max_nodes.
        if self.clients == 'multi':
            part = self.current_partition
            max_nodes = part.extras.get('max_nodes')
            self.nodes = min(self.multi_clients,
                             max_nodes or self.multi_clients)
            self.skip_if(self.nodes < 2,
                         f'{part.fullname} has {self.nodes} node(s); a '
                         f'multi-client case needs 2 or more')
        super().resolve_target()
