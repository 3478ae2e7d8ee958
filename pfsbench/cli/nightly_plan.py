# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench nightly-plan``: what a nightly will run on a partition, and
what it costs, before it runs."""

import os
import statistics

from pfsbench import cases, runreport, validate
from pfsbench.errors import ConfigError, PfsbenchError
from pfsbench.siteconfig import find_partitions, load_site_configuration

HELP = 'print the cases, repeats and cost of a nightly'
DESCRIPTION = (
    "Print what scripts/nightly.sh --system NAME:PARTITION will run: the "
    "cases ReFrame selects (reframe --describe, the same selection), those "
    "the partition's extras.max_nodes skips, the repeats, the node-hours "
    "and a time estimate: each case's median duration in the run reports "
    "of earlier runs on that partition, else its time limit. A system "
    "without a partition is refused (its partitions would all run).")
EXAMPLES = (
    'pfsbench nightly-plan --system hawk:compute',
    'pfsbench nightly-plan --system hawk:compute --repeat 3 --tags E6',
)

#: <repo>, beside this package.
_REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def add_arguments(parser):
    parser.add_argument('--system', required=True, metavar='NAME:PARTITION',
                        help='the partition the nightly runs on (required)')
    parser.add_argument('--tags', action='append', metavar='TAG',
                        help="cases, as reframe -t and nightly.sh --tags "
                             "(repeatable; default: nightly)")
    parser.add_argument('--repeat', type=int, default=5,
                        metavar='N',
                        help='repeats, as nightly.sh --repeat (at least 1; '
                             'default: %(default)s)')
    parser.add_argument('--reframe-tags', action='store_true',
                        help="print only the reframe -t patterns of --tags "
                             "(a plain tag such as E1 matches exactly), one "
                             "per line, after checking that they select a "
                             "case (what nightly.sh runs by; default: off)")
    parser.add_argument('--config-dir', default=os.path.join(_REPO, 'config'),
                        metavar='DIR',
                        help='the config directory (default: %(default)s)')
    parser.add_argument('--runs', metavar='DIR',
                        default=os.environ.get('PFSBENCH_RUNS',
                                               os.path.join(_REPO, 'runs')),
                        help='where earlier runs left their reports '
                             '(default: $PFSBENCH_RUNS, else %(default)s)')


def history(runs_dir, system, partition):
    """Seconds each case took in earlier runs: ``{display_name: [s, ...]}``
    from every run report under ``runs_dir/reports`` (dry runs write
    theirs elsewhere)."""
    durations = {}
    reports = os.path.join(runs_dir, 'reports')
    names = sorted(os.listdir(reports)) if os.path.isdir(reports) else []
    for name in names:
        if not (name.startswith('run-report-') and name.endswith('.json')):
            continue
        try:
            report = runreport.read(os.path.join(reports, name))
        except PfsbenchError:
            continue
        for case in runreport.last_cases(report):
            took = case.get('time_total')
            if (case['system'] == system and
                    case['partition'] == partition and
                    case.get('result') == 'pass' and took):
                durations.setdefault(case['display_name'], []).append(took)
    return durations


def _hours(seconds):
    return f'{seconds / 3600:.1f} h'


def run(args):
    config, _ = load_site_configuration(args.config_dir,
                                        [args.system.split(':')[0]])
    system, (part,) = find_partitions(config['systems'], args.system,
                                      require_partition=True)
    if args.repeat < 1:
        raise ConfigError('<command line>', '--repeat', args.repeat,
                          'expected a whole number of at least 1')
    tags = args.tags or ['nightly']
    selected = cases.describe(os.path.join(args.config_dir, 'settings.py'),
                              args.system, os.path.join(_REPO,
                                                        'reframe-checks'),
                              tags)
    if not selected:
        raise ConfigError('<command line>', '--tags', ' '.join(tags),
                          f'selects no case on {args.system} (tags match '
                          f'exactly: E1 is E1 alone; reframe -c '
                          f'reframe-checks --list-tags lists them)')
    if args.reframe_tags:
        for tag in tags:
            print(cases.reframe_tag(tag))
        return 0
    max_nodes = part.get('extras', {}).get('max_nodes')
    if part.get('launcher') == 'local' and max_nodes is None:
        max_nodes = 1
    past = history(args.runs, system['name'], part['name'])
    # A case's time limit as its job will ask it: capped to the
    # partition's time_limit (pfsbench.checks.base).
    cap = (validate.time_seconds(part['time_limit'], args.system,
                                 'time_limit')
           if part.get('time_limit') else None)
    runs = [c for c in selected
            if max_nodes is None or (c.get('nodes') or 1) <= max_nodes]
    print(f'nightly on {args.system}: tags {", ".join(tags)}, '
          f'{args.repeat} repeat(s)')
    width = max([len(c['display_name']) for c in runs] + [4])
    print(f'{"case":{width}} {"nodes":>5} {"estimate":>9}  from')
    node_s = limit_s = estimate_s = 0.0
    known = 0
    for case in runs:
        nodes = case.get('nodes') or 1
        limit = case.get('time_limit') or 0
        if cap is not None:
            limit = min(limit, cap)
        took = past.get(case['display_name'])
        seconds = statistics.median(took) if took else limit
        known += bool(took)
        where = f'{len(took)} earlier run(s)' if took else 'time limit'
        print(f'{case["display_name"]:{width}} {nodes:5} '
              f'{seconds / 60:7.1f} m  {where}')
        node_s += nodes * seconds
        limit_s += limit
        estimate_s += seconds
    skipped = len(selected) - len(runs)
    if skipped:
        print(f'skipped: {skipped} case(s) need more than extras.max_nodes '
              f'= {max_nodes} node(s)')
    print(f'total: {len(runs)} case(s) x {args.repeat} repeat(s) = '
          f'{len(runs) * args.repeat} job(s); '
          f'{node_s * args.repeat / 3600:.1f} node-hours, '
          f'{_hours(estimate_s * args.repeat)} one case at a time '
          f'({known} of {len(runs)} case(s) from history, the others at '
          f'their time limit; at most {_hours(limit_s * args.repeat)})')
    allowed = _job_time_limit(NIGHTLY_JOB)
    if allowed and estimate_s * args.repeat > allowed:
        print(f'warning: the estimate is more than the {_hours(allowed)} '
              f'that {os.path.relpath(NIGHTLY_JOB, _REPO)} allows: fewer '
              f'--repeat or --tags, or a longer --time there')
    return 0


#: The nightly's Slurm job, whose time limit the estimate must fit.
NIGHTLY_JOB = os.path.join(_REPO, 'slurm-templates', 'nightly-gate.sbatch')


def _job_time_limit(path):
    """Seconds of a job script's ``#SBATCH --time=HH:MM:SS`` (or None)."""
    try:
        with open(path) as fp:
            for line in fp:
                if line.startswith('#SBATCH --time='):
                    h, m, s = line.split('=', 1)[1].strip().split(':')
                    return int(h) * 3600 + int(m) * 60 + int(s)
    except (OSError, ValueError):
        return None
    return None
