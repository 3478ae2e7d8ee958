# SPDX-License-Identifier: BSD-3-Clause
"""Synchronised parallel streams: what every task of a streams job runs.

Seed 001 trusted dd "as we could ensure all clients started the test at the
same time" and blamed its bonnie/iozone scatter on unsynchronised starts.  So
every stream here runs the same named phases (``--phase write=CMD --phase
read=CMD``), any tool per phase, and waits at a barrier with every other
stream of the job before each one; it records when it really started, so the
start skew is measured, not assumed::

    start -> write -> write.done -> [drop caches, read.ready] -> read
          -> read.done

The barrier (:mod:`pfsbench.runner.barrier`) is a socket rendezvous on the
job's first task: waiting costs the file system nothing.  A stream whose
tool fails stops every other stream of the job within seconds, with the
failing stream's own error line.  One launcher task may run several streams
(``--fan-out``), which is how the ``local`` launcher, which starts one
process, gets P streams.

Output, one line each, parsed by :mod:`pfsbench.parsers.streams`::

    pfsbench-stream: begin streams=4 tasks=2 fan_out=2 cache_defeat=direct \
phases=write,read
    pfsbench-stream: phase name=write command=dd if=/dev/zero ...
    s0001/n1/write: 268435456 bytes (268 MB, 256 MiB) copied, 1.12 s, ...
    pfsbench-stream: stream=1 node=n1 phase=write start=... end=... exit=0
    pfsbench-stream: stream=1 node=n1 end=... status=ok
    pfsbench-stream: end task=0 node=n1 status=ok

Run ``python -m pfsbench.runner --help`` for the options.  Only the standard
library is used, and the package parses as Python 3.6: compute nodes need
nothing but the Python that runs ReFrame.  This module holds the vocabulary
the runner writes and the parser reads.
"""

import re

PREFIX = 'pfsbench-stream:'
#: How the page cache is defeated between consecutive phases: dropped on
#: every node, bypassed by O_DIRECT (the tool's command carries the flag),
#: or not at all (reads may come from client memory).
CACHE_DEFEAT_MODES = ('drop_caches', 'direct', 'none')
#: Drops a node's page cache; needs root (sites configure a sudo helper as
#: the partition's ``drop_caches_command``).
DEFAULT_DROP_CACHES = 'sync && echo 3 > /proc/sys/vm/drop_caches'
#: The environment variable a rendered job sets to a directory every node
#: sees when its run directories are per node (pfsbench.render): the
#: runner's --rendezvous-dir default.
RENDEZVOUS_ENV = 'PFSBENCH_RENDEZVOUS_DIR'
#: A phase name: it becomes part of figure names (``write_bw``).
PHASE_NAME = re.compile(r'^[a-z][a-z0-9_]*$')
#: A labelled line of a stream's tool output: ``s0001/n1/write: ...``.
LABELLED_LINE = re.compile(r'^(s\d+/[^/\s:]+/[a-z][a-z0-9_]*): ?')


def stream_label(stream, node, phase):
    """The prefix of a stream's tool output lines: ``s0001/n1/write``."""
    return f's{stream:04d}/{node}/{phase}'


def tool_error_line(program, lines):
    """The line of a failed tool's output that says why it failed.

    Args:
        program: the tool's name (``dd``, ``fio``).
        lines: its output lines (stderr, then stdout).

    Returns:
        its first line starting with ``<program>:`` (how dd and fio report
        errors), else the first ``<name>: ...`` line (a tool run by a
        wrapper such as ``sh -c``), else its last non-empty line, else
        ``''``.
    """
    lines = [ln.strip() for ln in lines if ln.strip()]
    for pattern in (re.compile(re.escape(program) + ':'), _TOOL_SAYS):
        for line in lines:
            if pattern.match(line):
                return line

    return lines[-1] if lines else ''


_TOOL_SAYS = re.compile(r'^[A-Za-z][\w.+-]*: ')
