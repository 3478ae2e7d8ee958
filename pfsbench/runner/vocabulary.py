# SPDX-License-Identifier: BSD-3-Clause
"""The vocabulary the streams runner writes and its parser reads
(:mod:`pfsbench.runner`): the output prefix, phase names, labelled lines,
the cache-defeat modes, and the line that says why a tool failed."""

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
