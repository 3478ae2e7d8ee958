# SPDX-License-Identifier: BSD-3-Clause
"""A node's CPU counters, printed from a job step (seed 000 reports client
CPU utilisation beside each metadata rate).

Each task of the step prints one line: the marker, its host name, and the
first line of ``/proc/stat`` (the ``cpu`` totals, in jiffies);
:mod:`pfsbench.parsers.procstat` reads them back, one sample per host.
"""

#: What each sample line starts with.
SAMPLE_PREFIX = 'pfsbench-cpu'


def sample_argv():
    """argv printing ``pfsbench-cpu <host> cpu <user> <nice> ...``."""
    return ['sh', '-c',
            f'echo "{SAMPLE_PREFIX} $(hostname) $(head -n 1 /proc/stat)"']


#: The host name a server's sample is filed under.
SERVER_HOST = 'server'


def server_sample_argv(command):
    """argv printing one ``pfsbench-cpu server cpu ...`` line from a
    site-supplied ``command`` that prints the first line of the metadata
    server's ``/proc/stat`` (``ssh mds1 head -n 1 /proc/stat``: seed 000
    sampled the MDS's CPU beside each rate).

    Args:
        command: the site's shell command (a partition's
            ``extras.server_cpu_command``).

    Returns:
        the argv (run once, not launched on every node).
    """
    return ['sh', '-c',
            f'echo "{SAMPLE_PREFIX} {SERVER_HOST} $({command})"']
