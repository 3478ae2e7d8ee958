# SPDX-License-Identifier: BSD-3-Clause
"""The samples a verdict compares: the current session's records of each
case, every tool iteration rebuilt from a run's mean and standard
deviation, a baseline variable's session means.
"""

import statistics
from collections import defaultdict

from pfsbench.fields import MEAN_SUFFIX, STDDEV_SUFFIX
from pfsbench.gate.stats import moments_from_summaries


def iteration_moments(case, var, records):
    """Moments of every tool iteration behind ``var`` on both sides, or
    ``None`` when ``var`` is not such a mean or a count is missing.

    Args:
        case: the baseline case (its ``perfvars`` hold the sibling).
        var: the variable, ``<x>_mean``.
        records: the current session's records of the case.

    Returns:
        ``(baseline Moments, current Moments)`` or ``None``.
    """
    if not var.endswith(MEAN_SUFFIX):
        return None

    sibling = var[:-len(MEAN_SUFFIX)] + STDDEV_SUFFIX
    pv, sd = case['perfvars'][var], case['perfvars'].get(sibling)
    if sd is None or 'iterations' not in pv or \
            len(sd['values']) != len(pv['values']):
        return None

    cur = [(r.perf[var][0], r.perf[sibling][0], r.iterations)
           for r in records if var in r.perf and sibling in r.perf]
    if not cur or len(cur) != len(records) or \
            any(v is None or s is None or n is None for v, s, n in cur):
        return None

    return (moments_from_summaries(pv['values'], sd['values'],
                                   pv['iterations']),
            moments_from_summaries(*zip(*cur)))


def session_means(perfvar):
    """Per-session means of a baseline variable, in session order."""
    groups = defaultdict(list)
    for value, idx in zip(perfvar['values'], perfvar['session_index']):
        groups[idx].append(value)

    return [statistics.fmean(groups[i]) for i in sorted(groups)]


def select_current(results, session_uuids, keys):
    """The latest session's records of each case among ``session_uuids``.

    Returns:
        ``{CaseKey: (session uuid, [Record, ...])}``.
    """
    start = {u: results.sessions[u].time_start for u in set(session_uuids)}
    latest = {}
    for uuid in sorted(start, key=start.get):
        for key in results.case_records(uuid):
            prev = latest.get(key)
            if key in keys and (prev is None or start[uuid] > start[prev]):
                latest[key] = uuid

    return {key: (uuid, list(results.case_records(uuid)[key]))
            for key, uuid in latest.items()}
