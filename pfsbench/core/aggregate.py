# SPDX-License-Identifier: BSD-3-Clause
"""Seed 001's ways of turning per-stream figures into one figure.

Seed 001 ran dd, bonnie and iozone as independent streams (one per node,
or 12 per node) and aggregated them four ways, all kept here side by side
so that a check reports each under its own name:

* :func:`mean_over_repeats`: "Averaging over 3 repeats";
* :func:`plain_sum`: "aggregating the read and write speeds reported by
  ALL nodes";
* :func:`conservative`: "the lowest data point in each data set, averaged
  over usually 3 measurements and multiplied by the number of streams";
* :func:`trimmed`: the bonnie correction: "Starting from the lowest 4
  measurements subsequently higher points were added and new values for
  average and standard deviation computed.  If all points were still in
  the range of Average +/- Stdv, the next higher data point was added."

plus the spread between streams and the slowest node, which the source
names when its figures scatter.

These are pure functions of numbers, shared by the parsers (which know one
run) and the checks (which know the repeats): neither a parser nor the
gate (which compares histories) is their place.  A missing figure (None,
e.g. bonnie++'s "too fast to measure") makes an aggregate None: summing
the others would report a smaller figure as if it were measured.
"""

import statistics


def _complete(values):
    values = list(values)
    if not values:
        raise ValueError('no figures to aggregate')
    return None if any(v is None for v in values) else values


def mean(values):
    """The mean of figures (streams, nodes), None if one is missing."""
    values = _complete(values)
    return None if values is None else statistics.fmean(values)


def mean_over_repeats(repeats):
    """The mean of one figure over its repeats (None if one is missing).

    Args:
        repeats: the figure of each repeat.
    """
    return mean(repeats)


def plain_sum(streams):
    """The sum over streams (None if one is missing)."""
    values = _complete(streams)
    return None if values is None else sum(values)


def conservative(repeats):
    """Seed 001's conservative aggregate: the lowest stream of each repeat,
    averaged over the repeats, times the number of streams.

    Args:
        repeats: per repeat, the figure of every stream (same count each).

    Returns:
        the aggregate, or None if a figure is missing.

    Raises:
        ValueError: no repeats, or repeats with different stream counts.
    """
    repeats = [list(r) for r in repeats]
    if not repeats or not repeats[0]:
        raise ValueError('no figures to aggregate')
    counts = {len(r) for r in repeats}
    if len(counts) != 1:
        raise ValueError(f'repeats with different stream counts: '
                         f'{sorted(counts)}')
    lowest = []
    for streams in repeats:
        values = _complete(streams)
        if values is None:
            return None
        lowest.append(min(values))
    return statistics.fmean(lowest) * counts.pop()


def trimmed_points(values, start=4):
    """The points seed 001 kept of a scattered set (its bonnie trimming).

    Sorted ascending, the ``start`` lowest are kept; then the next higher
    point is added as long as, with it, every kept point lies within the
    mean +/- the standard deviation of the kept points (the sample
    standard deviation, as a spreadsheet's STDEV).

    Args:
        values: one figure per stream (node).
        start: how many of the lowest points are kept unconditionally.

    Returns:
        the kept points, ascending; None if a figure is missing.
    """
    values = _complete(values)
    if values is None:
        return None
    points = sorted(values)
    kept = points[:start]
    for candidate in points[start:]:
        trial = kept + [candidate]
        mean = statistics.fmean(trial)
        sd = statistics.stdev(trial)
        if all(mean - sd <= v <= mean + sd for v in trial):
            kept = trial
        else:
            break
    return kept


def trimmed(values, start=4):
    """Seed 001's trimmed aggregate: the mean of :func:`trimmed_points`
    times the number of streams (the questionable points replaced by the
    mean of the trustworthy ones)."""
    kept = trimmed_points(values, start)
    return None if kept is None else statistics.fmean(kept) * len(values)


def spread_pct(values):
    """(max - min) / mean of the streams, in percent (None if one is
    missing)."""
    values = _complete(values)
    if values is None:
        return None
    mean = statistics.fmean(values)
    return (max(values) - min(values)) / mean * 100 if mean else None


def slowest(figures):
    """The name of the slowest stream or node.

    Args:
        figures: name -> figure (missing figures are skipped: a node that
            was too fast to measure is not the slowest).

    Returns:
        the name with the lowest figure (the first in sorted order on a
        tie), or None if no figure is known.
    """
    known = {k: v for k, v in figures.items() if v is not None}
    if not known:
        return None
    return min(sorted(known), key=known.get)
