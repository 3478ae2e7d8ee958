# SPDX-License-Identifier: BSD-3-Clause
"""The experiments of the catalogue (docs/experiments.md), each
defined once: its source, tool, default shape, time, sweeps, the checks
that encode it, and (where ``pfsbench render`` writes its job) how it
places its tasks and what it runs.

The ReFrame checks take their parameters from here
(``parameter(experiments.E1.values('active_cores'))``) and ``pfsbench
render`` walks the same points, so the two cannot drift;
``tests/test_experiments.py`` compares every check's parameter space with
its definition.  Plain data and small pure functions, no ReFrame import:
one record per experiment, as IO500 keeps one record per phase
(``include/io500-phase.h``).
"""

from pfsbench.experiments import jobs
from pfsbench.experiments.catalogue import (
    EXPERIMENTS, MAX_TARGETS, MAX_TRACERS, RENDERED, SEED001_NODE_COUNTS,
    SEED001_STREAMS_ON_ONE_NODE, SEED001_STREAMS_PER_NODE,
    SEED004_CLIENT_MODES, get, points, sweep_values)
from pfsbench.experiments.catalogue import (
    E1, E2, E3, E4, E5, E6, E7, E8, E9, E10, E11, E12, E13, E14, E15, E16,
    E17, E18, E19)
from pfsbench.experiments.model import Experiment, Sweep

__all__ = ['EXPERIMENTS', 'Experiment', 'MAX_TARGETS', 'MAX_TRACERS',
           'RENDERED', 'SEED001_NODE_COUNTS', 'SEED001_STREAMS_ON_ONE_NODE',
           'SEED001_STREAMS_PER_NODE', 'SEED004_CLIENT_MODES', 'Sweep', 'get',
           'jobs', 'points', 'sweep_values',
           'E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'E7', 'E8', 'E9', 'E10', 'E11',
           'E12', 'E13', 'E14', 'E15', 'E16', 'E17', 'E18', 'E19']
