# SPDX-License-Identifier: BSD-3-Clause
"""The test-case fields the gate reads (pfsbench.core.fields) are loggable
variables of the real checks, as ReFrame's loader finds them under
reframe-checks/: a check that renames one fails here, not silently in
next month's gate."""

import pytest

from pfsbench.core import fields


@pytest.fixture(scope='module')
def checks(described_checks):
    """``{check class: {'loggable': [...], 'perf': [...], 'tool': ...}}``
    (conftest.described_checks: one loader run for every module)."""
    return described_checks


def test_every_check_logs_what_the_gate_reads_of_every_case(checks):
    wanted = (fields.CASE_TAG_FIELDS + fields.CONFIG_FIELDS +
              (fields.CONTENDED, fields.CONTENTION))
    # Every family's checks: an empty catalogue would check nothing.
    assert len(checks) >= 10, checks.keys()
    for name, check in checks.items():
        absent = [f for f in wanted if f not in check['loggable']]
        assert not absent, f'{name} does not log {absent}'


def test_every_io500_check_logs_its_validity(checks):
    # The gate matches IO500 nights on io500_valid (lookback.match): a
    # check that scores IO500 and does not log it compares invalid runs
    # with valid ones.
    scored = [name for name, check in checks.items()
              if any(v.startswith('io500_') for v in check['perf'])]
    assert len(scored) >= 3, checks.keys()
    for name in scored:
        assert fields.IO500_VALID in checks[name]['loggable'], name


def test_iteration_means_come_with_an_iteration_count(checks):
    # The gate counts every tool iteration behind a <x>_mean/<x>_stddev
    # pair only when the case logs how many there were.
    with_pairs = 0
    for name, check in checks.items():
        pairs = [v for v in check['perf'] if v.endswith(fields.MEAN_SUFFIX)
                 and v[:-len(fields.MEAN_SUFFIX)] + fields.STDDEV_SUFFIX
                 in check['perf']]
        if not pairs:
            continue

        with_pairs += 1
        counts = [f for f in fields.ITERATION_COUNT_FIELDS
                  if f in check['loggable']]
        assert counts, (f'{name} reports {pairs} but logs none of '
                        f'{fields.ITERATION_COUNT_FIELDS}')

    # The IOR families report such pairs: without them this test would
    # check nothing.
    assert with_pairs >= 1


def test_every_bonnie_check_names_the_figures_it_could_not_time(checks):
    # bonnie++ prints +++++ for a test over before its clock could time
    # it; the gate passes such a figure only when the case names it in
    # untimed_figures (else the night is missing data).
    timed_by_bonnie = [name for name, check in checks.items()
                       if check['tool'] == 'bonnie++']
    assert len(timed_by_bonnie) >= 3, checks.keys()
    for name in timed_by_bonnie:
        assert fields.UNTIMED in checks[name]['loggable'], name
