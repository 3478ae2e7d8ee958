# SPDX-License-Identifier: BSD-3-Clause
"""srun's task-binding options for seed 000 (E1-E4): the tasks on the
first cores of a node only, or grouped per socket.  The mdtest checks and
``pfsbench render`` both take them from here.
"""


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
