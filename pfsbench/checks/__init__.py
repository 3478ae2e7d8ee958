# SPDX-License-Identifier: BSD-3-Clause
"""Importable bases of the pfsbench ReFrame checks.

A check family is a file under ``reframe-checks/<tool>/`` that imports its
base from here like any Python module and adds only its sweep (parameters),
its knobs (variables) and, where it has its own, its command line:

:class:`FileSystemCheck` (:mod:`pfsbench.checks.base`)
    what every check needs: the partition's target and a run directory of
    its own on it, one case at a time per target, the tool the family
    declares (``tool = 'mdtest'``: an explicit path, the partition's Spack
    view, then ``PATH``; a skip naming where it looked and how to build it;
    the Spack provenance of what ran), size caps, references from
    ``config/references/<system>.yaml``, sanity through the pure parsers.
:class:`SteppedJob` (:mod:`pfsbench.checks.steps`)
    a mixin for jobs made of several commands (write, drop caches, read,
    ``lfs getstripe``...): each step's output parsed on its own, and every
    failed step named with the tool's own error line.
:mod:`pfsbench.checks.ior`
    the IOR families' bases.
:mod:`pfsbench.checks.io500_phases`
    IO500's phases as job steps in IO500's order, their figures and
    validity, for the IO500 checks.
:mod:`pfsbench.checks.streams`
    the base of tools run once per stream through the streams runner
    (dd, fio): fan-out, the runner's command line, figures per phase.

Adding a family: a command builder in :mod:`pfsbench.commands`, a parser in
:mod:`pfsbench.parsers`, one check file, one docs page.
"""

from pfsbench.checks.base import FileSystemCheck
from pfsbench.checks.steps import SteppedJob

__all__ = ['FileSystemCheck', 'SteppedJob']
