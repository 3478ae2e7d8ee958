# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench nightly-plan``: what a nightly will run on a partition, and
what it costs, before it runs."""

import math
import os
import socket

from pfsbench.core.errors import ConfigError
from pfsbench.gate.judge import config as gate_config, sensitivity
from pfsbench.gate.judge.budget import plan_families, plan_level
from pfsbench.plan import budget as budgets, cases, planfile
from pfsbench.plan.budget import (CALIBRATED_REPEATS, below_calibration,
                                  choose, window)
from pfsbench.plan.estimate import family
from pfsbench.plan.nights import case_nights
from pfsbench.plan.planfile import read_plan, selection_name
from pfsbench.plan.selection import select, selects_nothing
from pfsbench.site import validate
from pfsbench.site.config import find_partitions, load_site_configuration

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
    "nightly costs at those repeats. Cases the checks would skip on the "
    "partition (its node count, tracers, a declared tool, and on the "
    "system itself the tools this host lacks) are left out and named, as "
    "a ReFrame dry run of the selection decides. The plan fits the "
    "nightly's window, the partition's extras.nightly_budget_hours "
    "(default 2) or --budget HOURS: the cases and repeats that fit one "
    "case at a time (every family and target first, at 5 repeats, the "
    "fewest that keep the page budget on quiet nights; then more repeats; "
    "fewer only by an explicit --repeat), the slowdown each case detects "
    "at those repeats, and the command that runs the plan (--write-plan "
    "FILE: for nightly.sh --plan FILE). --budget 0 (--no-budget) plans "
    "the whole selection at --repeat.")
EXAMPLES = (
    'pfsbench nightly-plan --system hawk:compute --tags E6 --no-budget',
    'pfsbench nightly-plan --system hawk:compute --detect 5%',
    'pfsbench nightly-plan --system hawk:compute --budget 2 --nodes 16 '
    '--write-plan nightly.plan',
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
    parser.add_argument('--repeat', type=int, default=CALIBRATED_REPEATS,
                        metavar='N',
                        help='repeats, as nightly.sh --repeat (at least 1; '
                             'default: %(default)s)')
    parser.add_argument('--reframe-tags', action='store_true',
                        help="print only the reframe -t patterns of --tags "
                             "(a plain tag such as E1 matches exactly), one "
                             "per line, after checking that they select a "
                             "case (what nightly.sh runs by; default: off)")
    parser.add_argument('--reframe-targets', action='store_true',
                        help="print only the reframe -P value that runs "
                             "every case on each of the partition's "
                             "targets (target=a,b), or nothing with one "
                             "target (what nightly.sh runs by; default: "
                             "off)")
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
                        help='gate settings for --detect and --budget '
                             '(default: config/gate.yaml)')
    parser.add_argument('--budget', type=float, metavar='HOURS',
                        help='choose the cases and repeats (at most '
                             '--repeat) that fit HOURS, one case at a time;'
                             ' 0: no budget, plan the whole selection '
                             "(default: the partition's night window, "
                             'extras.nightly_budget_hours, else 2)')
    parser.add_argument('--no-budget', dest='budget', action='store_const',
                        const=0.0,
                        help='plan the whole selection at --repeat, as '
                             '--budget 0 (default: off)')
    parser.add_argument('--nodes', type=int, metavar='N',
                        help='the nodes the nightly may use; larger cases '
                             'are left out (not with --budget 0; default: '
                             "the partition's extras.max_nodes)")
    parser.add_argument('--assume-minutes', type=float, default=5.0,
                        metavar='M',
                        help='minutes a case takes that has neither '
                             'history nor work pfsbench can count (bytes, '
                             'items, a stonewall: docs/nightly.md; '
                             'default: %(default)s)')
    parser.add_argument('--write-plan', metavar='FILE',
                        help='write the plan to FILE for '
                             'scripts/nightly.sh --plan FILE (not with '
                             '--budget 0; default: none)')
    parser.add_argument('--check-plan', metavar='FILE',
                        help='check a --write-plan FILE against --system '
                             'and print the reframe arguments that run it, '
                             'one per line (what nightly.sh --plan runs '
                             'by; default: none)')


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
    _check_budget_args(args, part)
    budgets.check_nodes(args.nodes, part, args.system)
    if args.check_plan:
        return check_plan(args, part)
    tags = args.tags or ['nightly']
    targets = cases.every_target(part)
    if args.reframe_targets:
        print(*targets[1:])
        return 0
    if args.reframe_tags:
        if not cases.describe(os.path.join(args.config_dir, 'settings.py'),
                              args.system,
                              os.path.join(_REPO, 'reframe-checks'), tags,
                              args=targets):
            raise selects_nothing(tags, args.system)
        for tag in tags:
            print(cases.reframe_tag(tag))
        return 0
    sel = select(args.config_dir, args.system, system, part, tags, args.runs,
                 args.assume_minutes * 60)
    hours, why = window(args.budget, part)
    if hours is not None:
        return budget_plan(args, system, part, tags, sel, hours, why)
    print(f'nightly on {args.system}: tags {", ".join(tags)}, '
          f'{args.repeat} repeat(s)')
    print(f'budget: none ({why}): the whole selection')
    if targets:
        print(f'targets: every case on each of '
              f'{targets[1].split("=", 1)[1].replace(",", ", ")} '
              f'(reframe -P {targets[1]})')
    width = max([len(c['display_name']) for c in sel.runs] + [4])
    print(f'{"case":{width}} {"nodes":>5} {"estimate":>9}  from')
    for case in sel.runs:
        print(f'{case["display_name"]:{width}} {case.get("nodes") or 1:5} '
              f'{sel.seconds(case) / 60:7.1f} m  {sel.source(case)}')
    print_left_out(sel.skips, sel.here, system, sel.runs)
    runs = len(sel.runs)
    print(f'total: {runs} case(s) x {args.repeat} repeat(s) = '
          f'{runs * args.repeat} job(s); '
          f'{sel.node_s * args.repeat / 3600:.1f} node-hours, '
          f'{_hours(sel.estimate_s * args.repeat)} one case at a time '
          f'({sel.known} of {runs} case(s) from history, the others at '
          f'first-night estimates: their work at conservative rates, '
          f'docs/nightly.md; at most {_hours(sel.at_most_s * args.repeat)} '
          f'at their time limits)')
    for line in sel.killed():
        print(f'warning: {line}')
    _warn_below_calibration(args.repeat)
    allowed = planfile.job_time_limit(NIGHTLY_JOB)
    if allowed and sel.estimate_s * args.repeat > allowed:
        print(f'warning: the estimate is more than the {_hours(allowed)} '
              f'that {os.path.relpath(NIGHTLY_JOB, _REPO)} allows: fewer '
              f'--repeat or --tags, or a longer --time there')
    if args.detect:
        detect_plan(args, system['name'], part['name'], sel.runs,
                    {c['display_name']: sel.seconds(c) for c in sel.runs},
                    args.repeat)
    return 0


def _warn_repeats(asked, repeats, hours, min_samples):
    """Say what a budgeted night of ``repeats`` (``asked``: --repeat)
    cannot do: fewer than the floor fit (1 repeat: never a pass), and
    a --repeat below the calibrated one."""
    floor = min(CALIBRATED_REPEATS, asked)
    if repeats < floor:
        print(f'warning: {repeats} repeat(s): no case fits {hours:g} h '
              f'{floor} times, and the gate passes a case only on '
              f'{min_samples} repeats a night (min_samples): this '
              f'night can find a regression, never a pass; a larger budget')
    _warn_below_calibration(asked)


def _warn_below_calibration(repeat):
    """Say so when an explicit ``--repeat`` is below the calibrated one."""
    line = below_calibration(repeat)
    if line:
        print(f'warning: {line}')


def _check_budget_args(args, part):
    """Refuse what --budget and its options cannot mean."""
    if args.budget is not None:
        validate.budget_hours(args.budget, '<command line>', '--budget')
    if args.nodes is not None and args.nodes < 1:
        raise ConfigError('<command line>', '--nodes', args.nodes,
                          'expected a whole number of at least 1')
    if not (math.isfinite(args.assume_minutes) and args.assume_minutes > 0):
        raise ConfigError('<command line>', '--assume-minutes',
                          args.assume_minutes, 'expected minutes above 0')
    hours, why = window(args.budget, part)
    for option in ('nodes', 'write_plan'):
        if getattr(args, option) is not None and hours is None:
            raise ConfigError('<command line>',
                              '--' + option.replace('_', '-'),
                              getattr(args, option),
                              f'needs a budget (there is none: {why}): '
                              f'--budget HOURS')


def print_left_out(skips, here, system, runs):
    """Name the cases the checks would skip, and what was not checked."""
    for name, reason in skips.items():
        print(f'left out: {name}: the check would skip it: {reason}')
    if not here:
        tools = sorted({cases.case_tool(c) or '' for c in runs} - {''})
        print(f'tools not checked: this host ({socket.gethostname()}) is '
              f'not {system["name"]}: {", ".join(tools) or "none"} (run '
              f'nightly-plan there to leave out what it lacks)')


def budget_plan(args, system, part, tags, sel, hours, why):
    """Print (and write) the cases and repeats of :class:`Selection`
    ``sel`` that fit ``hours`` (:func:`window`: ``why``)."""
    runs = sel.runs
    nodes = args.nodes or part.get('extras', {}).get('max_nodes')
    fit = [c for c in runs if nodes is None or (c.get('nodes') or 1) <= nodes]
    seconds, source = {}, {}
    for case in fit:
        name = case['display_name']
        seconds[name] = sel.seconds(case)
        source[name] = sel.source(case)
    budget_s = hours * 3600
    repeats, chosen = choose(fit, seconds, budget_s, args.repeat,
                             budgets.node_targets(part))
    config = gate_config.load(args.gate_config)
    db = os.path.join(args.runs, 'results.db')
    noise = (case_nights(db, system['name'], part['name'],
                         set(seconds), config)
             if os.path.exists(db) else {})
    # What the night detects within its false-alarm budget.
    planned = {c['display_name']: noise.get(c['display_name'], {})
               for c in chosen}
    alpha = plan_level(planned, config.night_false_alarms)
    where = f' on {nodes} node(s)' if nodes else ''
    print(f'nightly on {args.system} within {hours:g} h{where}: tags '
          f'{", ".join(tags)}, {repeats} repeat(s)')
    print(f'budget: {hours:g} h, {why}')
    width = max([len(c['display_name']) for c in chosen] + [4])
    print(f'{"case":{width}} {"nodes":>5} {"minutes":>7}  {"detects":>7}  '
          f'from')
    wall_s = node_s = 0.0
    for case in chosen:
        name = case['display_name']
        found, var = sensitivity.plan_detects(noise.get(name, {}), repeats,
                                              alpha,
                                              config.lookback_outlier_z)
        by = (f'{var} over {len(noise[name][var])} night(s)' if var else
              'default noise')
        print(f'{name:{width}} {case.get("nodes") or 1:5} '
              f'{seconds[name] / 60:7.1f}  {found:>6.0%}   {source[name]}; '
              f'detects: {by}')
        wall_s += repeats * seconds[name]
        node_s += repeats * seconds[name] * (case.get('nodes') or 1)
    for case in runs:
        if case not in fit:
            print(f'left out: {case["display_name"]}: needs '
                  f'{case.get("nodes")} node(s), more than --nodes {nodes}')
        elif case not in chosen:
            print(f'left out: {case["display_name"]}: does not fit '
                  f'{hours:g} h at {repeats} repeat(s)')
    print_left_out(sel.skips, sel.here, system, runs)
    for line in sel.killed(chosen):
        print(f'warning: {line}')
    if len(cases.every_target(part)) > 1:
        # Which cases each target got (each case runs on one target).
        for target in part['extras']['targets']:
            got = [c for c in chosen if (c.get('target') or '') ==
                   target['name']]
            print(f'target {target["name"]}: {len(got)} case(s): '
                  f'{", ".join(sorted({family(c) for c in got})) or "none"}'
                  f' ({target.get("fstype") or "fstype not declared"})')
    families = sorted({family(c) for c in runs})
    missing = sorted(set(families) - {family(c) for c in chosen})
    print(f'total: {len(chosen)} case(s) x {repeats} repeat(s) = '
          f'{len(chosen) * repeats} job(s); {node_s / 3600:.1f} node-hours, '
          f'{_hours(wall_s)} one case at a time; families: '
          f'{len(families) - len(missing)} of {len(families)}' +
          (f' (not {", ".join(missing)})' if missing else ''))
    print(f'detects: the smallest slowdown found 9 times in 10 at '
          f'{repeats} repeat(s) within the night\'s false-alarm budget '
          f'({config.night_false_alarms:.0%} a night, Holm over '
          f'{plan_families(planned)} headline figure families: p < '
          f'{alpha:.2g}); smaller ones the night cannot detect; "default '
          f'noise": nights {sensitivity.DEFAULT_NIGHT_NOISE:.0%} apart, '
          f'repeats {sensitivity.DEFAULT_REPEAT_NOISE:.0%} (docs/nightly.md)')
    if not chosen:
        raise ConfigError('<command line>', '--budget', hours,
                          f'no case fits ({why}): a larger budget or '
                          f'--nodes')
    _warn_repeats(args.repeat, repeats, hours, config.min_samples)
    base = (f'scripts/nightly.sh --system {args.system} --baseline NAME '
            f'--target DIR')
    # nightly.sh plans the same within the same window each night, with
    # the nights' durations (more repeats fit once they are known).
    print(f'run it: {base}' +
          ''.join(f' --tags {t}' for t in tags if tags != ['nightly']) +
          (f' --repeat {args.repeat}' if args.repeat != CALIBRATED_REPEATS
           else '') +
          (f' --budget {hours:g}' if why == '--budget' else '') +
          (f' --nodes {args.nodes}' if args.nodes else ''))
    if args.write_plan:
        write_plan(args, tags, repeats, chosen, hours)
        print(f'   or: {base} --plan {args.write_plan}')
    if args.detect:
        detect_plan(args, system['name'], part['name'], chosen,
                    {c['display_name']: seconds[c['display_name']]
                     for c in chosen}, repeats)
    return 0


def write_plan(args, tags, repeats, chosen, hours):
    planfile.write_plan_file(
        args.write_plan, args.system, tags, repeats, chosen,
        f'pfsbench nightly-plan --system {args.system} --budget {hours:g}'
        f'{f" --nodes {args.nodes}" if args.nodes else ""}')


def check_plan(args, part):
    """Check a plan against ``args.system`` and what its tags select on
    every target of ``part`` (the names --budget wrote); print the
    ``reframe`` arguments that run it, one per line."""
    system, repeats, tags, names = read_plan(args.check_plan)
    if system != args.system:
        raise ConfigError(args.check_plan, 'system', system,
                          f'the plan is for another partition than '
                          f'--system {args.system}')
    selected = {c['display_name']: c for c in cases.describe(
        os.path.join(args.config_dir, 'settings.py'), args.system,
        os.path.join(_REPO, 'reframe-checks'), tags,
        args=cases.every_target(part))}
    for name in names:
        if name not in selected:
            raise ConfigError(args.check_plan, 'case', name,
                              f'not among the cases tags '
                              f'{", ".join(tags)} select on {args.system} '
                              f'(pfsbench nightly-plan --budget ... '
                              f'--write-plan writes a new plan)')
    out = ['--repeat', str(repeats)]
    for tag in tags:
        out += ['-t', cases.reframe_tag(tag)]
    for name in names:
        out += ['-n', selection_name(selected[name])]
    print('\n'.join(out))
    return 0


def detect_plan(args, system, partition, runs, seconds, repeat):
    """Print, per case, the repeats the gate needs to find a slowdown of
    ``args.detect`` and what the nightly costs at them (``repeat``: the
    plan's, for the cases without history)."""
    config = gate_config.load(args.gate_config)
    db = os.path.join(args.runs, 'results.db')
    alpha = (1.0 - config.lookback_confidence) / 2.0
    names = {c['display_name'] for c in runs}
    history = case_nights(db, system, partition, names, config) \
        if os.path.exists(db) else {}
    print()
    print(f'to find a {args.detect:.0%} slowdown 9 times in 10 at '
          f'{alpha:.0%} false alarms (lookback rule, level of '
          f'{sensitivity.PLAN_LEVEL_NIGHTS} nights; noise from {db}):')
    width = max([len(c['display_name']) for c in runs] + [4])
    print(f'{"case":{width}} {"repeats":>7}  set by')
    chosen = {}
    for case in runs:
        name = case['display_name']
        plans = sensitivity.plan_case(history.get(name, {}), args.detect,
                                      alpha, config.lookback_outlier_z)
        reach = [p for p in plans if p.repeats is not None]
        never = [p.var for p in plans if p.repeats is None]
        if not plans:
            print(f'{name:{width}} {"?":>7}  fewer than 3 nights in the '
                  f'history: counted at --repeat {repeat}')
            continue
        if reach:
            worst = reach[0]
            need = worst.repeats
            shown = (f'> {sensitivity.MAX_REPEATS}'
                     if need > sensitivity.MAX_REPEATS else str(need))
            why = (f'{worst.var} (night noise {worst.tau:.1%}, repeats '
                   f'{worst.cv:.1%}, {worst.nights} nights)')
            chosen[name] = min(need, sensitivity.MAX_REPEATS)
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
        repeats = chosen.get(case['display_name'], repeat)
        jobs += repeats
        wall_s += repeats * seconds[case['display_name']]
        node_s += repeats * seconds[case['display_name']] * (
            case.get('nodes') or 1)
    print(f'total at these repeats: {jobs} job(s); {node_s / 3600:.1f} '
          f'node-hours, {_hours(wall_s)} one case at a time ({len(chosen)} '
          f'of {len(runs)} case(s) at their own repeats, the others at '
          f'--repeat {repeat}); nightly.sh takes one --repeat for all: '
          f'{max(chosen.values(), default=repeat)}')
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
