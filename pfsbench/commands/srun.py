# SPDX-License-Identifier: BSD-3-Clause
"""srun's task-binding options for seed 000 (E1-E4): the tasks on the
first cores of a node only, or grouped per socket; and the batch option
a job needs when its tasks outnumber a node's CPUs (seed 000's 2 processes
per core, seed 004's NP 32 and 64 on one 16-core client).  The checks and
``pfsbench render`` all take them from here.
"""

#: The sbatch option that lets Slurm place more tasks on a node than it has
#: CPUs; without it Slurm refuses the job ("Requested node configuration is
#: not available").
OVERCOMMIT = '--overcommit'


def overcommit(tasks_per_node, node_cpus):
    """The batch options of a job running ``tasks_per_node`` tasks on
    nodes of ``node_cpus`` CPUs: ``['--overcommit']`` when the tasks
    outnumber the CPUs, else none (and none where the node's CPUs are not
    described: Slurm then judges alone).

    Args:
        tasks_per_node: the job's tasks on each node.
        node_cpus: the partition's ``processor.num_cpus``, or None.

    Returns:
        the option list.
    """
    if node_cpus and tasks_per_node > node_cpus:
        return [OVERCOMMIT]
    return []


def first_cores(cores):
    """srun options running a step's tasks round robin on cores
    ``0..cores-1`` (seed 000's "active cores").

    Args:
        cores: how many cores are active.

    Returns:
        the option list.
    """
    cpus = ','.join(str(c) for c in range(cores))
    return [f'--cpu-bind=map_cpu:{cpus}']       # tasks on these cores only


def per_socket(tasks_per_node, sockets):
    """srun options spreading a node's tasks evenly over ``sockets``
    sockets, each task bound to its socket (seed 000, E2).

    Args:
        tasks_per_node: the tasks on each node.
        sockets: sockets the tasks use.

    Returns:
        ``(tasks per socket, option list)``; the job needs
        ``--ntasks-per-socket`` too.

    Raises:
        ValueError: the tasks do not spread evenly.
    """
    if tasks_per_node % sockets:
        raise ValueError(f'{tasks_per_node} tasks do not spread evenly over '
                         f'{sockets} sockets')
    count = tasks_per_node // sockets
    return count, [f'--ntasks-per-socket={count}',   # tasks per socket
                   '--distribution=block:block',     # fill socket by socket
                   '--cpu-bind=sockets']             # each on its socket
