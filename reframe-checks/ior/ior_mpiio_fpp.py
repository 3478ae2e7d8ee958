# SPDX-License-Identifier: BSD-3-Clause
"""IOR MPI-IO, one file per process, of seed 002 (E11 in EXPERIMENTS.md).

Seed 002 benchmarked GlusterFS 3.2 from three client nodes with
``IOR -a MPIIO -b 4g -t 4m -i 1 -F`` at 36 tasks (12 per node) and 72
tasks (24 per node), and compared configurations: interconnect (InfiniBand
vs GigE), volume type (striped vs distributed), server memory and server
count.  Here a configuration is a partition (the client network) or a
file-system target (the volume): ``-P fs_target=striped,distributed``
runs both targets in one session, and every partition selected runs too.

By default the job runs exactly the source's command line (no cache
defeat: ``cache_defeat=none``): with this family's defaults the shared
builder emits the argv of :func:`pfsbench.commands.ior.seed002_mpiio_fpp`,
which ``pfsbench render E11`` uses.  Figures: Max Write / Max Read, as the
source published them.  References: key ``ior_mpiio_fpp_bandwidth``,
``$index: [$partition, target_name, tasks]`` (config/references/
example_seed002.yaml carries the source's figures).
"""

import reframe as rfm
from reframe.core.builtins import parameter, run_after, variable

from pfsbench import experiments
from pfsbench.checks.ior import ior_bandwidth_base
from pfsbench.commands import ior


@rfm.simple_test
class ior_mpiio_fpp_bandwidth(ior_bandwidth_base):
    """E11: IOR MPI-IO file per process, 36 and 72 tasks on 3 nodes."""

    experiment = 'E11'
    descr = ('E11 (seed 002): IOR -a MPIIO -b 4g -t 4m -i 1 -F, 36 and 72 '
             'tasks on 3 nodes')
    #: IOR tasks on the 3 nodes: 36 (12 per node) or 72 (24 per node).
    #:
    #: :type: :class:`int`
    #: :values: ``[36, 72]``
    tasks = parameter(experiments.E11.values('tasks'), type=int, loggable=True)

    #: File-system target to write (a name in the partition's
    #: ``extras['targets']``); empty: the first.  A parameter, so that two
    #: targets are compared in one run.
    #:
    #: :type: :class:`str`
    #: :values: ``['']``
    fs_target = parameter(
        experiments.E11.check_space('ior_mpiio_fpp_bandwidth')['fs_target'],
        type=str, loggable=True)

    nodes = variable(int, value=3, loggable=True)
    tasks_per_node = variable(int, value=0, loggable=True)
    api = variable(str, value='MPIIO', loggable=True)
    access = variable(str, value='fpp', loggable=True)
    transfer_size = variable(str, value='4m', loggable=True)
    block_size = '4g'
    repetitions = 1
    cache_defeat = 'none'
    test_file_name = 'output'     # seed 002: -o /gluster/output
    tags = {'E11', 'full'}

    @run_after('init')
    def place_the_tasks(self):
        self.tasks_per_node = ior.SEED002_SCALES[self.tasks]
        self.nodes = self.tasks // self.tasks_per_node

    @run_after('setup')
    def resolve_target(self):
        # Replaces the base class's hook of that name, in its place (before
        # the IOR hooks that size the job).  A sweep over targets skips the
        # partitions that lack one, where an unknown -S target would be a
        # configuration error.
        if self.fs_target:
            part = self.current_partition
            names = [t['name'] for t in part.extras.get('targets', [])]
            self.skip_if(self.fs_target not in names,
                         f'{part.fullname} has no target {self.fs_target!r} '
                         f'(it has {", ".join(names) or "none"})')
            self.target = self.fs_target

        super().resolve_target()
