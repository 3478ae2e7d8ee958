# SPDX-License-Identifier: BSD-3-Clause
"""What a nightly runs on a partition, and what it costs: the plan
``pfsbench render nightly`` sizes its driver job by and ``pfsbench
check-config`` checks the driver partition against (the same selection
and estimate as ``pfsbench nightly-plan``: :mod:`pfsbench.plan.selection`,
:mod:`pfsbench.plan.budget`)."""

from dataclasses import dataclass

from pfsbench.core.errors import ConfigError
from pfsbench.plan import budget as budgets, planfile, selection
from pfsbench.plan.driver import hours


@dataclass(frozen=True)
class Plan:
    """What the nightly runs: cases, repeats and seconds."""

    cases: int
    repeat: int
    #: Seconds one case at a time: each case's median in earlier runs,
    #: else its first-night estimate (its work; docs/nightly.md).
    estimate_s: float
    #: Seconds with every case at its time limit (never more).
    at_most_s: float
    #: The targets the plan's cases run on (names; empty: the one).
    targets: tuple = ()
    #: The plan file nightly.sh --plan runs (a --budget or --plan job),
    #: or None: the tags and repeats alone.
    file: str = None
    #: The budget it was chosen within, hours, or None.
    budget: float = None
    #: Where the budget comes from (:func:`pfsbench.plan.budget.window`).
    why: str = ''
    #: The text to write to :attr:`file` (a budget's plan), or None: the
    #: file is given (``--plan``) or there is none.  Written only once the
    #: job is accepted (:func:`pfsbench.plan.planfile.write_atomically`).
    text: str = None
    #: One line per case whose first-night estimate its time limit cuts
    #: (:meth:`pfsbench.plan.selection.Selection.killed`).
    killed: tuple = ()

    @property
    def words(self):
        """The plan in words: cases, repeats, targets, hours."""
        on = (f' on targets {", ".join(self.targets)}' if self.targets
              else '')
        return (f'{self.cases} case(s) x {self.repeat} repeat(s){on}: '
                f'about {hours(self.estimate_s)}, at most '
                f'{hours(self.at_most_s)}')


def _planned_cases(plan_file, spec, tags, runs):
    """The cases of ``runs`` a plan file names.

    Raises:
        ConfigError: it names a case the tags do not select.
    """
    known = {c['display_name'] for c in runs}
    for name in plan_file[1]:
        if name not in known:
            raise ConfigError(plan_file[0], 'case', name,
                              f'not among the cases tags '
                              f'{", ".join(tags)} run on {spec}')
    return [c for c in runs if c['display_name'] in plan_file[1]]


def plan(config_dir, spec, system, part, tags, repeat, runs_dir,
         budget=None, nodes=None, plan_file=None, write_plan=None, why=''):
    """The :class:`Plan` of ``tags`` x ``repeat`` on partition ``part``:
    ``pfsbench nightly-plan``'s estimate (:func:`selection.select`: the
    cases a dry run of the selection would skip left out).  With
    ``budget`` (hours), the cases and repeats that fit it on ``nodes``
    (:func:`budget.choose`, every shared target's coverage first), its
    text for ``write_plan`` (nightly.sh --plan); with ``plan_file``, the
    cases and repeats of that plan (nightly-plan --write-plan's).  Writes
    nothing.

    Raises:
        ConfigError: a plan for another partition or naming a case the
            tags do not select; ``nodes`` more than the partition has; no
            case fits the budget.
    """
    budgets.check_nodes(nodes, part, spec)
    names = None
    if plan_file:
        system_name, repeat, tags, names = planfile.read_plan(plan_file)
        if system_name != spec:
            raise ConfigError(plan_file, 'system', system_name,
                              f'the plan is for another partition than '
                              f'--system {spec}')
    sel = selection.select(config_dir, spec, system, part, tags, runs_dir)
    runs, text = sel.runs, None
    if plan_file:
        runs = _planned_cases((plan_file, names), spec, tags, runs)
    elif budget is not None:
        have = nodes or budgets.partition_nodes(part)
        fit = [c for c in runs if have is None or (c.get('nodes') or 1) <=
               have]
        seconds = {c['display_name']: sel.seconds(c) for c in fit}
        repeat, runs = budgets.choose(fit, seconds, budget * 3600, repeat,
                                      budgets.node_targets(part))
        if not runs:
            raise ConfigError('<command line>', '--budget', budget,
                              'no case fits: a larger budget or --nodes')
        plan_file = write_plan
        text = planfile.plan_text(
            spec, tags, repeat, runs,
            f'pfsbench render nightly --system {spec} --budget {budget:g}'
            f'{f" --nodes {nodes}" if nodes else ""}')
    targets = tuple(sorted({c.get('target') for c in runs} - {None, ''}))
    return Plan(len(runs), repeat,
                sum(sel.seconds(c) for c in runs) * repeat,
                sum(sel.limits[c['display_name']] for c in runs) * repeat,
                targets, plan_file, budget, why, text, tuple(sel.killed(runs)))
