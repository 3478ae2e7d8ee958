# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench report``: render a saved gate record in another format."""

from pfsbench.cli import common
from pfsbench.gate.report import FORMATS, load_record, render

HELP = ('render a gate record (pfsbench gate --format json) as text, '
        'markdown, junit or html')
DESCRIPTION = ('Render one gate record, written by pfsbench gate --format '
               'json (or --json FILE), in another format. Exits with the '
               "record's own exit code, so a CI step can render and gate in "
               'one go.')
EXAMPLES = (
    'pfsbench report runs/gate.json --format html --output runs/gate.html',
    'pfsbench report runs/gate.json --format markdown >> '
    '"$GITHUB_STEP_SUMMARY"',
)


def add_arguments(parser):
    parser.add_argument('record', metavar='FILE',
                        help='the gate record (JSON; required)')
    common.add_format_and_output(parser, FORMATS)
    parser.add_argument(
        '--max-plots', metavar='N', type=int, default=60,
        help='history plots in the HTML report, one per case '
             '(default: %(default)s)')
    parser.add_argument(
        '--all-figures', action='store_true',
        help='list every figure of a case, not only its worst one '
             '(default: off)')


def run(args):
    record = load_record(args.record)
    text = render(record, args.format, max_plots=args.max_plots,
                  all_figures=args.all_figures)
    common.write_output(args.output, text)

    return int(record.get('exit_code', 0))
