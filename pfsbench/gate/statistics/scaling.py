# SPDX-License-Identifier: BSD-3-Clause
"""Scaling efficiency and the saturation point of a sweep
(docs/gate-method.md, "5. Reports").

Seed 004 sees metadata rates stop scaling at NP 16 (its 16-core clients
saturate) and seed 001 sees streams peak at 4 processes: a scaling sweep
must say, step by step, how much each added process still brings, and
where that collapses.  Pure functions of ``(processes, rate)`` points, one
point per case of a sweep (a report collects them from the cases' results;
no single case sees the others).
"""

from dataclasses import dataclass

#: A larger process count must add at least this fraction to the best
#: rate so far to move the saturation point (5 %: within run-to-run noise
#: below that).
MIN_GAIN = 0.05


@dataclass(frozen=True)
class ScalingStep:
    """One point of a sweep against its smallest one."""

    processes: int
    rate: float
    #: rate / the smallest count's rate.
    speedup: float
    #: speedup / (processes / the smallest count): 1.0 is linear.
    efficiency: float


def scaling_steps(points):
    """The :class:`ScalingStep` of each point, by process count.

    Args:
        points: ``(processes, rate)`` pairs (any order; rates > 0).

    Returns:
        a tuple of :class:`ScalingStep`, smallest process count first.

    Raises:
        ValueError: no points, a repeated process count, or a rate or
            count that is not positive.
    """
    ordered = sorted(points)
    if not ordered:
        raise ValueError('no points to scale')
    counts = [p for p, _ in ordered]
    if len(set(counts)) != len(counts):
        raise ValueError(f'repeated process counts in {counts}')
    if any(p <= 0 or r is None or r <= 0 for p, r in ordered):
        raise ValueError(f'process counts and rates must be positive: '
                         f'{ordered}')
    base_p, base_rate = ordered[0]
    return tuple(ScalingStep(p, r, r / base_rate,
                             (r / base_rate) / (p / base_p))
                 for p, r in ordered)


def saturation_point(points, min_gain=MIN_GAIN):
    """Where the sweep stops scaling: the step after which no larger
    process count beats its rate by ``min_gain`` or more.

    Args:
        points: ``(processes, rate)`` pairs.
        min_gain: the relative gain that counts as still scaling.

    Returns:
        the :class:`ScalingStep` of that point (the largest count when the
        sweep never stopped scaling).
    """
    steps = scaling_steps(points)
    for i, step in enumerate(steps):
        if all(later.rate < step.rate * (1 + min_gain)
               for later in steps[i + 1:]):
            return step
    return steps[-1]
