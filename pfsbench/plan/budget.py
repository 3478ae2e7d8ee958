# SPDX-License-Identifier: BSD-3-Clause
"""A nightly's budget: the night window it is planned within, the nodes it
may use, and the cases and repeats that fit (every target's share first:
docs/nightly.md)."""

from pfsbench.core.errors import ConfigError
from pfsbench.plan.estimate import family
from pfsbench.site.config import extras_value


#: The extras key of a partition's night window, in hours.
WINDOW_KEY = 'nightly_budget_hours'


def window(budget, part):
    """The hours a nightly is planned within, and where they come from:
    ``(hours, why)``, ``hours`` None for no budget.

    Args:
        budget: ``--budget HOURS`` (0: none), or None: the partition's
            ``extras.nightly_budget_hours``, else the schema's default.
        part: the partition's config dict.
    """
    if budget is not None:
        return (budget, '--budget') if budget else (None, '--budget 0')
    extras = part.get('extras', {})
    hours = extras_value(extras, WINDOW_KEY)
    if WINDOW_KEY in extras:
        why = (f"the partition's night window (extras.{WINDOW_KEY}; "
               f"--budget to change)")
        return (hours, why) if hours else (None, f'extras.{WINDOW_KEY}: 0')
    return hours, (f'the default night window (extras.{WINDOW_KEY}; '
                   f'--budget to change)')


def partition_nodes(part):
    """The nodes a partition's jobs may use: ``extras.max_nodes``, 1 on
    the local launcher, else None (unknown)."""
    max_nodes = part.get('extras', {}).get('max_nodes')
    if max_nodes is None and part.get('launcher') == 'local':
        return 1
    return max_nodes


def check_nodes(nodes, part, spec, source='<command line>'):
    """Refuse a ``--nodes`` the partition does not have (nightly-plan and
    render nightly: one rule).

    Raises:
        ConfigError: ``nodes`` above :func:`partition_nodes`.
    """
    have = partition_nodes(part)
    if nodes is not None and have is not None and nodes > have:
        raise ConfigError(source, '--nodes', nodes,
                          f'{spec} has {have} node(s) '
                          f'(extras.max_nodes): at most {have}')


def node_targets(part):
    """The names of a partition's targets of scope ``node`` (each node's
    own directory), '' too when the first is one (a case without a
    ``target`` parameter runs there)."""
    targets = part.get('extras', {}).get('targets', [])
    names = {t['name'] for t in targets if t.get('scope') == 'node'}
    if targets and targets[0].get('scope') == 'node':
        names.add('')
    return names


#: The repeats a nightly plans on its own: the fewest at which unchanged
#: quiet nights of a whole nightly page within the night's budget
#: (measured: docs/gate-evidence.md#at-the-nightlys-repeats-2-3-and-5-issue-45).
#: Fewer only by a user's explicit ``--repeat``.
CALIBRATED_REPEATS = 5

#: Where the calibration is measured, for the plan's warnings.
CALIBRATION_DOC = ('docs/gate-evidence.md'
                   '#at-the-nightlys-repeats-2-3-and-5-issue-45')


def below_calibration(repeat):
    """The warning for a ``--repeat`` below :data:`CALIBRATED_REPEATS`,
    else None."""
    if repeat >= CALIBRATED_REPEATS:
        return None
    return (f'--repeat {repeat}: {repeat} repeat(s) do not keep the page '
            f'budget on quiet nights (measured: {CALIBRATED_REPEATS} do; '
            f'{CALIBRATION_DOC})')


#: Families whose cases measure metadata rates (io500 measures both).
_METADATA_FAMILIES = ('mdtest',)


def _kinds(case):
    """What a case measures: ``{'bandwidth'}``, ``{'metadata'}`` or both
    (IO500's ior and mdtest phases)."""
    name = family(case)
    if name in _METADATA_FAMILIES:
        return {'metadata'}
    return {'bandwidth', 'metadata'} if name == 'io500' else {'bandwidth'}


def shares(cases_, seconds, nodes_only=()):
    """Each target's share, in the order a budget takes them: one case
    per family on each target (its cheapest), each target's cheapest
    bandwidth and metadata case first, then its other families cheapest
    first; the targets take turns (every target's first case, then every
    target's second, ...).  Coverage first: the bandwidth and metadata
    cases of every shared target come before any case of a target in
    ``nodes_only`` (:func:`node_targets`: a node's own directory, which
    no other job shares) and before a shared target's other families."""
    firsts = {}
    for case in sorted(cases_, key=lambda c: seconds[c['display_name']]):
        firsts.setdefault((family(case), case.get('target') or ''), case)
    per_target = {}
    for case in firsts.values():            # cheapest first
        per_target.setdefault(case.get('target') or '', []).append(case)
    ranked = []
    for target, mine in per_target.items():
        kinds, lead, rest = set(), [], []
        for case in mine:
            (lead if _kinds(case) - kinds else rest).append(case)
            kinds |= _kinds(case)
        later = target in nodes_only
        ranked += [(later or rank >= len(lead), rank,
                    seconds[c['display_name']], len(ranked) + rank, c)
                   for rank, c in enumerate(lead + rest)]
    return [c for *_, c in sorted(ranked, key=lambda r: r[:4])]


def choose(cases_, seconds, budget_s, max_repeats, nodes_only=()):
    """The cases and the one repeat count that fit ``budget_s`` one case
    at a time: every case at the most repeats (at least
    :data:`CALIBRATED_REPEATS`, at most ``max_repeats``) that fit; else, at
    :data:`CALIBRATED_REPEATS` (``max_repeats`` if a user asked for fewer),
    every target's share (:func:`shares`: one case
    per family on each target, a bandwidth and a metadata case first) as
    far as it fits, then the other cases, cheapest first (``nodes_only``:
    the targets whose share comes after the shared ones' coverage).  A night of
    fewer repeats than the gate's ``min_samples`` (2) can find a
    regression but never pass: 1 repeat only when no case fits at that
    floor.

    Returns:
        ``(repeats, chosen)``, ``chosen`` in the order of ``cases_``.
    """
    def cost(group):
        return sum(seconds[c['display_name']] for c in group)

    floor = min(CALIBRATED_REPEATS, max_repeats)
    for repeats in range(max_repeats, floor - 1, -1):
        if repeats * cost(cases_) <= budget_s:
            return repeats, list(cases_)
    first = shares(cases_, seconds, nodes_only)
    order = first + [c for c in sorted(
        cases_, key=lambda c: seconds[c['display_name']]) if c not in first]
    for repeats in sorted({floor, 1}, reverse=True):
        chosen, used = [], 0.0
        for case in order:
            if repeats * (used + seconds[case['display_name']]) <= budget_s:
                chosen.append(case)
                used += seconds[case['display_name']]
        if chosen:
            return repeats, [c for c in cases_ if c in chosen]
    return 1, []

