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
nothing but the Python that runs ReFrame.  The vocabulary the runner
writes and the parser reads is :mod:`pfsbench.runner.vocabulary`.
"""

from pfsbench.runner.vocabulary import (  # noqa: F401 (the face)
    CACHE_DEFEAT_MODES, DEFAULT_DROP_CACHES, LABELLED_LINE, PHASE_NAME,
    PREFIX, RENDEZVOUS_ENV, stream_label, tool_error_line)
