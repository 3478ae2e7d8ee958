# SPDX-License-Identifier: BSD-3-Clause
"""Parse the CPU samples of :func:`pfsbench.commands.procstat.sample_argv`.

Each line is ``pfsbench-cpu <host> cpu <user> <nice> <system> <idle>
<iowait> <irq> <softirq> <steal> [<guest> <guest_nice>]`` (``/proc/stat``,
jiffies since boot; guest time is already counted in user).  Several tasks
on one node print the same host: the last line of a host wins.  Busy time is
everything but idle and iowait.
"""

from dataclasses import dataclass

from pfsbench.commands.procstat import SAMPLE_PREFIX
from pfsbench.core.errors import ParseError
from pfsbench.parsers.common import last_line

#: /proc/stat's cpu fields that make up the total (guests are in user).
_TOTAL_FIELDS = 8
_IDLE, _IOWAIT = 3, 4


@dataclass(frozen=True)
class CpuSample:
    """One host's CPU counters, in jiffies."""

    host: str
    busy_jiffies: int
    total_jiffies: int


@dataclass(frozen=True)
class Result:
    """The samples of one step, one per host, in the order first seen."""

    samples: tuple

    def sample(self, host):
        return next((s for s in self.samples if s.host == host), None)


def parse(text, source='<text>'):
    """Parse one step's sample lines.

    Args:
        text: the step's output.
        source: the name quoted in error messages.

    Returns:
        A :class:`Result`.

    Raises:
        ParseError: no sample line, or one without the cpu counters.
    """
    by_host = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0] != SAMPLE_PREFIX:
            continue
        counters = words[3:3 + _TOTAL_FIELDS]
        if (len(words) < 4 or words[2] != 'cpu' or
                len(counters) < _IOWAIT + 1 or
                not all(c.isdigit() for c in counters)):
            raise ParseError(source, lineno, line.strip(),
                             "expected 'pfsbench-cpu <host> cpu <user> "
                             "<nice> <system> <idle> <iowait> ...' "
                             "(/proc/stat's first line)")
        values = [int(c) for c in counters]
        total = sum(values)
        idle = values[_IDLE] + values[_IOWAIT]
        by_host[words[1]] = CpuSample(words[1], total - idle, total)
    if not by_host:
        lineno, line = last_line(text.splitlines())
        raise ParseError(source, lineno, line,
                         f"expected '{SAMPLE_PREFIX}' lines")
    return Result(tuple(by_host.values()))


def utilisation_pct(before, after):
    """Each host's CPU utilisation between two samples, in %.

    Args:
        before, after: :class:`Result` of the samples around a phase.

    Returns:
        ``{host: percent}`` for every host sampled both times whose
        counters advanced.
    """
    percent = {}
    for end in after.samples:
        start = before.sample(end.host)
        if start is None or end.total_jiffies <= start.total_jiffies:
            continue
        percent[end.host] = (100 * (end.busy_jiffies - start.busy_jiffies) /
                             (end.total_jiffies - start.total_jiffies))
    return percent
