# SPDX-License-Identifier: BSD-3-Clause
"""The record of an experiment of the catalogue (:class:`Experiment`) and
of its sweeps (:class:`Sweep`): plain data, no ReFrame import; one record
per experiment, as IO500 keeps one record per phase
(``include/io500-phase.h``)."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class Sweep:
    """One swept name of an experiment and its values."""

    name: str
    values: tuple
    #: ``site -> n``: the partition has only the first ``n`` values (E4's
    #: targets, E12's tracers); ReFrame's parameter space is fixed when the
    #: check loads, so the check sweeps every value and skips those past
    #: the partition's, and render walks only the partition's.  None: all.
    available: object = None
    #: The ``pfsbench render`` option that picks the value
    #: (``--nodes``, ``--tasks-per-node``, ``--processes``), where render
    #: sets it as the job's shape instead of as a ``--point``; None: a
    #: point.
    option: str = None


@dataclasses.dataclass(frozen=True)
class Experiment:
    """An experiment of the catalogue, as the checks run it and render
    writes it."""

    id: str
    #: The seed it reproduces (``'001'``: ``tests/data/seeds/001_*.txt``).
    source: str
    #: The tool it runs (a name of :data:`pfsbench.core.tools.TOOLS`), or ''
    #: where it runs no tool of its own (E18 compares stored results).
    tool: str
    descr: str
    #: The default shape of its job (0 tasks per node: set by the point).
    nodes: int
    tasks_per_node: int
    #: The time limit of its job, in ReFrame's form (``'6h'``).
    time: str = '2h'
    sweeps: tuple = ()
    #: ``{check class name: (sweep name, ...)}``: the parameter space of
    #: every check that encodes it, its parameters named as the sweeps; or
    #: ``{check parameter: sweep name or values}`` where the check names
    #: one otherwise, or sweeps values of its own (a tuple).
    checks: dict = dataclasses.field(default_factory=dict)
    #: ``(options, run_dir) -> [Step]``: the job's steps, as its check runs
    #: them; None where ``pfsbench render`` does not write the experiment.
    steps: object = None
    #: Whether its check announces the steps (:mod:`pfsbench.core.jobsteps`);
    #: the streams checks run one command without.
    stepped: bool = False
    #: ``(point, site) -> jobs.Layout`` of a swept experiment.
    layout: object = None
    #: ``site -> [(name, value), ...]``: variables the job exports after
    #: the partition's (E13's mds-survey reads only its environment).
    environment: object = None
    #: One task and no ``--ntasks-per-node``, as a check that sets only
    #: ``num_tasks = 1`` (E13).
    single_task: bool = False

    def sweep(self, name):
        """The :class:`Sweep` called ``name``."""
        for sweep in self.sweeps:
            if sweep.name == name:
                return sweep
        raise KeyError(f'{self.id} sweeps no {name!r}')

    def values(self, name):
        """Every value of the sweep ``name``, as a check's ``parameter``
        takes them (a list)."""
        return list(self.sweep(name).values)

    def points_sweeps(self):
        """The sweeps render takes as ``--point`` (not as an option)."""
        return tuple(s for s in self.sweeps if s.option is None)

    def check_params(self, check):
        """``{parameter: sweep name or values}`` of the check class
        ``check``."""
        params = self.checks[check]
        if isinstance(params, dict):
            return params
        return {name: name for name in params}

    def check_space(self, check):
        """``{parameter: [values]}`` the check class ``check`` must
        sweep."""
        return {param: list(self.sweep(source).values
                            if isinstance(source, str) else source)
                for param, source in self.check_params(check).items()}
