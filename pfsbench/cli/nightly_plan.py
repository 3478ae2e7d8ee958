# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench nightly-plan``: what a nightly will run on a partition, and
what it costs, before it runs."""

import math
import os
import re
import statistics

from pfsbench import cases, runreport, validate
from pfsbench.errors import ConfigError, PfsbenchError
from pfsbench.gate import config as gate_config
from pfsbench.gate import lookback as lb
from pfsbench.gate import sensitivity as sens
from pfsbench.gate.results import USABLE_FAIL_PHASES, read_database
from pfsbench.siteconfig import find_partitions, load_site_configuration

HELP = 'print the cases, repeats and cost of a nightly'
DESCRIPTION = (
    "Print what scripts/nightly.sh --system NAME:PARTITION will run: the "
    "cases ReFrame selects (reframe --describe, the same selection), those "
    "the partition's extras.max_nodes skips, the repeats, the node-hours "
    "and a time estimate: each case's median duration in the run reports "
    "of earlier runs on that partition, else its time limit. A system "
    "without a partition is refused (its partitions would all run). With "
    "--detect, also the repeats each case needs for the gate to find a "
    "slowdown that large 9 times in 10 at its false-alarm level, from the "
    "noise of the case's nights in the results database, and what the "
    "nightly costs at those repeats.")
EXAMPLES = (
    'pfsbench nightly-plan --system hawk:compute',
    'pfsbench nightly-plan --system hawk:compute --repeat 3 --tags E6',
    'pfsbench nightly-plan --system hawk:compute --detect 5%',
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
    parser.add_argument('--detect', metavar='PERCENT',
                        help='the slowdown the gate must find 9 times in '
                             '10 (e.g. 5%%): repeats per case from the '
                             'history in RUNS/results.db (default: none)')
    parser.add_argument('--gate-config', metavar='FILE',
                        help='gate settings for --detect (default: '
                             'config/gate.yaml)')


def _fraction(text):
    """``'5%'`` or ``'0.05'`` as 0.05; refused outside (0, 100 %)."""
    try:
        value = (float(text[:-1]) / 100.0 if text.endswith('%')
                 else float(text))
    except ValueError:
        value = None
    if value is None or not 0.0 < value < 1.0:
        raise ConfigError('<command line>', '--detect', text,
                          'expected a slowdown between 0 and 100 %, '
                          'e.g. 5%')
    return value


#: What ``reframe --repeat`` appends to every case's display name.
_REPEAT_NO = re.compile(r'\s*%\.repeat_no=\d+')


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
                # A --repeat run names its cases '... %.repeat_no=N'.
                name = _REPEAT_NO.sub('', case['display_name'])
                durations.setdefault(name, []).append(took)
    return durations


def _hours(seconds):
    return f'{seconds / 3600:.1f} h'


def run(args):
    if args.detect is not None:
        args.detect = _fraction(args.detect)
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
    if args.detect:
        seconds = {c['display_name']: statistics.median(
            past[c['display_name']]) if past.get(c['display_name'])
            else (c.get('time_limit') or 0) for c in runs}
        detect_plan(args, system['name'], part['name'], runs, seconds)
    return 0


def case_nights(db, system, partition, names, config):
    """``{case name: {var: [Moments, ...]}}``: each case's nights on the
    partition (sessions oldest first; failed and contended repeats left
    out), the newest ``lookback.nights`` of them, gated figures only."""
    results = read_database(db, newest=config.history_sessions)
    out = {}
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
                    # Each night as the lookback rule sees it.
                    out.setdefault(key.name, {}).setdefault(var, []).append(
                        lb.night_moments(vals))
    return {name: {var: nights[-config.lookback_nights:]
                   for var, nights in figs.items()}
            for name, figs in out.items()}


def detect_plan(args, system, partition, runs, seconds):
    """Print, per case, the repeats the gate needs to find a slowdown of
    ``args.detect`` and what the nightly costs at them."""
    config = gate_config.load(args.gate_config)
    db = os.path.join(args.runs, 'results.db')
    alpha = (1.0 - config.lookback_confidence) / 2.0
    names = {c['display_name'] for c in runs}
    history = case_nights(db, system, partition, names, config) \
        if os.path.exists(db) else {}
    print()
    print(f'to find a {args.detect:.0%} slowdown 9 times in 10 at '
          f'{alpha:.0%} false alarms (lookback rule, level of '
          f'{sens.PLAN_LEVEL_NIGHTS} nights; noise from {db}):')
    width = max([len(c['display_name']) for c in runs] + [4])
    print(f'{"case":{width}} {"repeats":>7}  set by')
    chosen = {}
    for case in runs:
        name = case['display_name']
        plans = sens.plan_case(history.get(name, {}), args.detect, alpha,
                               config.lookback_outlier_z)
        reach = [p for p in plans if p.repeats is not None]
        never = [p.var for p in plans if p.repeats is None]
        if not plans:
            print(f'{name:{width}} {"?":>7}  fewer than 3 nights in the '
                  f'history: counted at --repeat {args.repeat}')
            continue
        if reach:
            worst = reach[0]
            need = worst.repeats
            shown = (f'> {sens.MAX_REPEATS}' if need > sens.MAX_REPEATS
                     else str(need))
            why = (f'{worst.var} (night noise {worst.tau:.1%}, repeats '
                   f'{worst.cv:.1%}, {worst.nights} nights)')
            chosen[name] = min(need, sens.MAX_REPEATS)
        else:
            shown, why = 'never', ''
        if never:
            why += ('; ' if why else '') + (
                f'never for {len(never)} figure(s), the night-to-night '
                f'noise alone hides it: {", ".join(never[:3])}' +
                (f' (+{len(never) - 3} more)' if len(never) > 3 else ''))
        print(f'{name:{width}} {shown:>7}  {why}')
    node_s = wall_s = 0.0
    jobs = 0
    for case in runs:
        repeats = chosen.get(case['display_name'], args.repeat)
        jobs += repeats
        wall_s += repeats * seconds[case['display_name']]
        node_s += repeats * seconds[case['display_name']] * (
            case.get('nodes') or 1)
    print(f'total at these repeats: {jobs} job(s); {node_s / 3600:.1f} '
          f'node-hours, {_hours(wall_s)} one case at a time ({len(chosen)} '
          f'of {len(runs)} case(s) at their own repeats, the others at '
          f'--repeat {args.repeat}); nightly.sh takes one --repeat for all: '
          f'{max(chosen.values(), default=args.repeat)}')
    tol = config.tolerance
    # At the repeats found, t(0.99) se is about 60 % of the target: a
    # tolerance below that does not raise what the gate needs.
    if tol > args.detect * 0.6:
        print(f'note: the gate calls a regression only beyond the '
              f'tolerance ({tol:.0%}): to find {args.detect:.0%} losses, '
              f'set tolerance to at most {args.detect * 0.6:.1%} in '
              f'{config.path or "config/gate.yaml"}')


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
