# SPDX-License-Identifier: BSD-3-Clause
"""Command-line builders: the one place that knows every tool's flags.

Each tool has a module (``dd``, ``ior``, ``mdtest``, ...) whose functions take
the experiment's parameters and return an argv list.  The ReFrame checks and
``pfsbench render`` (Slurm templates) both call these builders, so a ReFrame
run and a hand-submitted job script cannot drift apart.  Every flag carries a
short trailing comment saying why it is there, as IO500's argv builder does.
"""

