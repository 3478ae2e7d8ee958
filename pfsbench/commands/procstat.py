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
