# SPDX-License-Identifier: BSD-3-Clause
"""ReFrame run reports (``reports/run-report-<session>.json``): finding
and reading them, for ``pfsbench summary`` and the gate."""

import glob
import json
import os

from pfsbench.core.errors import MissingData, ResultsError


def latest(runs_dir):
    """The newest ``reports/run-report-*.json`` under ``runs_dir``.

    Raises:
        MissingData: there is none.
    """
    paths = glob.glob(os.path.join(runs_dir, 'reports', 'run-report-*.json'))
    if not paths:
        raise MissingData(f'{runs_dir}/reports: no ReFrame run report')
    return max(paths, key=os.path.getmtime)


def read(path):
    """The decoded run report at ``path``.

    Raises:
        MissingData: the file does not exist.
        ResultsError: it is not JSON, or has no ``runs``.
    """
    try:
        with open(path) as fp:
            report = json.load(fp)
    except FileNotFoundError:
        raise MissingData(f'{path}: run report not found') from None
    except (OSError, ValueError) as err:
        raise ResultsError(f'{path}: cannot read run report: {err}') \
            from None

    if not isinstance(report, dict) or not isinstance(report.get('runs'),
                                                        list):
        raise ResultsError(f'{path}: runs: missing: not a ReFrame run report')
    return report


def last_cases(report):
    """The test cases of a report as its last run left them (a case that
    was retried appears once, with its last result)."""
    cases = {}
    for run in report['runs']:
        for case in run['testcases']:
            key = (case['display_name'], case['system'], case['partition'],
                   case['environ'])
            cases[key] = case
    return list(cases.values())
