# SPDX-License-Identifier: BSD-3-Clause
"""The test-case fields the gate reads (pfsbench.core.fields) are loggable
variables of the real checks, as ReFrame's loader finds them under
reframe-checks/: a check that renames one fails here, not silently in
next month's gate."""

import json
import os
import subprocess
import sys

import pytest

from conftest import CHECKS, CONFIG, REPO
from pfsbench.core import fields

#: Run in a fresh interpreter: ReFrame's runtime is process-global.
LOADER = '''
import json, sys
import reframe.core.config as config
import reframe.core.runtime as runtime
from reframe.frontend.loader import RegressionCheckLoader

site = config.load_config(sys.argv[1])
site.select_subconfig('local')
runtime.init_runtime(site)
described = {}
for check in RegressionCheckLoader([sys.argv[2]], recurse=True).load_all():
    cls = type(check)
    described.setdefault(cls.__name__, {
        'loggable': sorted(alt or name for name, alt in cls.loggable_attrs()),
        'perf': sorted(check.perf_variables),
        'tool': check.tool})
print(json.dumps(described))
'''


@pytest.fixture(scope='module')
def checks(tmp_path_factory):
    """``{check class: {'loggable': [...], 'perf': [...]}}``."""
    env = dict(os.environ, PFSBENCH_RUNS=str(tmp_path_factory.mktemp('runs')))
    cmd = [sys.executable, '-c', LOADER, str(CONFIG), str(CHECKS)]
    print('+', ' '.join(cmd[:2]), '<LOADER>', *cmd[3:])
    proc = subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    assert proc.returncode == 0, proc.stderr
    described = json.loads(proc.stdout.splitlines()[-1])
    assert described, f'no checks found under {CHECKS}'
    return described


def test_every_check_logs_what_the_gate_reads_of_every_case(checks):
    wanted = (fields.CASE_TAG_FIELDS + fields.CONFIG_FIELDS +
              (fields.CONTENDED, fields.CONTENTION))
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
