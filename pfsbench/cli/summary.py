# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench summary``: the figures of the last ReFrame run, one table per
check family."""

import sys

from pfsbench.gate.history.results import default_runs_dir
from pfsbench.gate.history.runreport import latest
from pfsbench.gate.report.summary import load_cases, render_text

HELP = 'summarise the last ReFrame run (a table per family)'
DESCRIPTION = (
    "The figures of the last ReFrame run, one table per check family. "
    "Exit 0 when no case failed, 1 when any case failed (as the gate: a "
    "nightly that stops at the summary still fails), 2 when the report "
    "cannot be read.")
EXAMPLES = (
    'pfsbench summary',
    'pfsbench summary --report runs/reports/run-report-3f2a....json',
)


def add_arguments(parser):
    parser.add_argument('--runs', default=default_runs_dir(), metavar='DIR',
                        help='the runs directory (default: $PFSBENCH_RUNS '
                             'or runs/: %(default)s)')
    parser.add_argument('--report', metavar='FILE',
                        help='a run report (default: the newest under '
                             'RUNS/reports)')


def run(args):
    report = args.report or latest(args.runs)
    print(render_text(report), end='')
    _, cases = load_cases(report)
    failed = [c for c in cases if c.get('result') == 'fail']
    if failed:
        print(f'pfsbench: {len(failed)} of {len(cases)} case(s) failed',
              file=sys.stderr)
        return 1
    return 0
