# SPDX-License-Identifier: BSD-3-Clause
"""From samples to a verdict: the gate settings, samples, lookback, rule,
sensitivity, baselines, sweeps, and the gate record.
"""
