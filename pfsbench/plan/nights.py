# SPDX-License-Identifier: BSD-3-Clause
"""Each case's nights in the results database, as the gate's lookback rule
sees them: the noise ``nightly-plan`` sizes repeats and detection by."""

import math

from pfsbench.gate.history.results import USABLE_FAIL_PHASES
from pfsbench.gate.statistics.stats import (night_moments, night_spread,
                                            pooled_scale)
from pfsbench.store.runs import read_database


def case_nights(db, system, partition, names, config):
    """``{case name: {var: [Moments, ...]}}``: each case's nights on the
    partition (sessions oldest first; failed and contended repeats left
    out), the newest ``lookback.nights`` of them, gated figures only."""
    results = read_database(db, newest=config.history_sessions)
    out = {}
    spreads = {}
    for session in results.ordered_sessions():
        for key, records in results.case_records(session.uuid).items():
            if (key.name not in names or key.system != system or
                    key.partition != partition):
                continue
            values = {}
            for rec in records:
                if rec.fail_phase not in USABLE_FAIL_PHASES or \
                        rec.contended:
                    continue
                for var, (value, unit) in rec.perf.items():
                    if value is not None and math.isfinite(value):
                        values.setdefault((var, unit), []).append(value)
            for (var, unit), vals in values.items():
                _, _, ignore, unstable = config.variable(key.check, var, unit)
                if not (ignore or unstable):
                    # Each night as the lookback rule sees it (a short
                    # night measured by the nights before it, as the
                    # history's columns are).
                    before = spreads.setdefault((key.name, var), [])
                    out.setdefault(key.name, {}).setdefault(var, []).append(
                        night_moments(vals, pooled_scale(before)))
                    before.append(night_spread(vals))
    return {name: {var: nights[-config.lookback_nights:]
                   for var, nights in figs.items()}
            for name, figs in out.items()}

