# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench summary``: the figures of the last ReFrame run, one table per
check family."""

from pfsbench.gate.results import default_runs_dir
from pfsbench.summary import latest_report, render_text

HELP = 'summarise the last ReFrame run (a table per family)'
DESCRIPTION = __doc__
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
    print(render_text(args.report or latest_report(args.runs)), end='')
    return 0
