# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench nightly-plan``: what a nightly will run on a partition, and
what it costs, before it runs."""

import concurrent.futures
import math
import os
import re
import socket
import statistics
from dataclasses import dataclass

from pfsbench.cli.check_config import runs_here
from pfsbench.core.errors import ConfigError, PfsbenchError
from pfsbench.gate.judge import config as gate_config, sensitivity as sens
from pfsbench.gate.statistics.stats import (night_moments, night_spread,
                                            pooled_scale)
from pfsbench.gate.store import runreport
from pfsbench.gate.store.results import USABLE_FAIL_PHASES, read_database
from pfsbench.runs import cases, estimate
from pfsbench.site import validate
from pfsbench.site.config import (extras_value, find_partitions,
                                  load_site_configuration)

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
    "case at a time (every family and target first, at 2 repeats, the "
    "gate's minimum; then more repeats), the slowdown each case detects "
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
    parser.add_argument('--repeat', type=int, default=5,
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


#: Seconds a case is assumed to take when neither history nor its work
#: says (``--assume-minutes``).
DEFAULT_ASSUME_S = 300.0


@dataclass(frozen=True)
class Selection:
    """What a nightly's tags select on a partition, what the checks would
    skip there, and what each case that runs costs: the one estimate of
    ``pfsbench nightly-plan`` and ``pfsbench render nightly``."""

    #: The cases that run (``reframe --describe``'s dicts, in its order).
    runs: list
    #: ``{display_name: reason}`` of the cases a dry run skips.
    skips: dict
    #: Whether this host is the system (its tools were checked).
    here: bool
    #: ``{display_name: [seconds, ...]}`` of earlier runs (:func:`history`).
    past: dict
    #: ``{display_name: seconds}`` of each case's time limit, capped.
    limits: dict
    #: ``{display_name: (seconds, how)}`` of each case without history:
    #: its work at its target's rates (:mod:`pfsbench.runs.estimate`).
    first: dict

    def seconds(self, case):
        """One run of ``case``: its median in earlier runs, else its
        first-night estimate (its work; never above its time limit)."""
        took = self.past.get(case['display_name'])
        return statistics.median(took) if took else \
            self.first[case['display_name']][0]

    def source(self, case):
        """Where :meth:`seconds` comes from, for the plan's table."""
        took = self.past.get(case['display_name'])
        return (f'{len(took)} earlier run(s)' if took else
                f'first night: {self.first[case["display_name"]][1]}')

    @property
    def estimate_s(self):
        """Seconds of one repeat, one case at a time."""
        return sum(self.seconds(c) for c in self.runs)

    @property
    def at_most_s(self):
        """Seconds of one repeat with every case at its time limit."""
        return sum(self.limits[c['display_name']] for c in self.runs)

    @property
    def node_s(self):
        """Node-seconds of one repeat."""
        return sum((c.get('nodes') or 1) * self.seconds(c)
                   for c in self.runs)

    @property
    def known(self):
        """Cases that run whose estimate comes from earlier runs."""
        return sum(bool(self.past.get(c['display_name'])) for c in self.runs)


def _selects_nothing(tags, spec):
    return ConfigError('<command line>', '--tags', ' '.join(tags),
                       f'selects no case on {spec} (tags match exactly: E1 '
                       f'is E1 alone; reframe -c reframe-checks '
                       f'--list-tags lists them)')


def case_target(case, part):
    """The ``extras.targets[]`` entry a case runs on (its ``target``
    parameter under ``-P target=a,b``, else the first), or None."""
    targets = part.get('extras', {}).get('targets', [])
    name = case.get('target') or ''
    return next((t for t in targets if t['name'] == name),
                targets[0] if targets else None)


def first_night(case, part, limit, assume_s=DEFAULT_ASSUME_S):
    """``(seconds, how)`` of a case without history on partition
    ``part`` (:func:`pfsbench.runs.estimate.first_night_seconds`)."""
    target = case_target(case, part)
    return estimate.first_night_seconds(
        case, estimate.rates(target), assume_s,
        scope=(target or {}).get('scope', 'shared'),
        extras=part.get('extras', {}), limit=limit)


def select(config_dir, spec, system, part, tags, runs_dir,
           assume_s=DEFAULT_ASSUME_S):
    """The :class:`Selection` of ``tags`` on partition ``spec``: the cases
    ``reframe --describe`` lists on every target, less those a ReFrame dry
    run of them skips (the checks' own hooks: node counts, node targets,
    tracers, declared tools; on the system itself also the tools this host
    lacks).

    Raises:
        ConfigError: the tags select no case; ReFrame refused the config.
    """
    settings = os.path.join(config_dir, 'settings.py')
    checks = os.path.join(_REPO, 'reframe-checks')
    targets = cases.every_target(part)
    here = runs_here(system)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        # A dry run elsewhere renders the job of another host and looks
        # for no tool; beside the listing, which takes as long.
        dry_run = pool.submit(
            cases.dry_run_skips, settings, spec, checks, tags,
            {'PFSBENCH_DRY_RUN_TOOLS': 'check'} if here else None, targets)
        selected = cases.describe(settings, spec, checks, tags,
                                  args=targets)
        skips = dry_run.result() if selected else {}
    if not selected:
        raise _selects_nothing(tags, spec)
    runs = [c for c in selected if c['display_name'] not in skips]
    if not runs:
        # A nightly of nothing would pass every night (and a budget is
        # not what left it empty).
        reasons = sorted(set(skips.values()))
        raise ConfigError(
            '<command line>', '--system', spec,
            f'every case --tags {" ".join(tags)} selects ({len(selected)})'
            f' would be skipped there: {reasons[0]}' +
            (f' (and {len(reasons) - 1} other reason(s))'
             if len(reasons) > 1 else '') +
            '; pfsbench check-config --system '
            f'{spec} names what is missing')
    # A case's time limit as its job will ask it: capped to the
    # partition's time_limit (pfsbench.checks.base).
    cap = (validate.time_seconds(part['time_limit'], spec, 'time_limit')
           if part.get('time_limit') else None)
    limits = {}
    for case in runs:
        limit = case.get('time_limit') or 0
        limits[case['display_name']] = min(limit, cap) if cap is not None \
            else limit
    first = {c['display_name']: first_night(
        c, part, limits[c['display_name']] or None, assume_s) for c in runs}
    return Selection(runs, skips, here,
                     history(runs_dir, system['name'], part['name']), limits,
                     first)


#: The extras key of a partition's night window, in hours.
WINDOW_KEY = 'nightly_budget_hours'


def window(budget, part):
    """The hours a nightly is planned within, and where they come from:
    ``(hours, why)``, ``hours`` None for no budget.

    Args:
        budget: ``--budget HOURS`` (0: none), or None: the partition's
            ``extras.nightly_budget_hours``, else the schema's default.
        part: the partition's config dict.
    """
    if budget is not None:
        return (budget, '--budget') if budget else (None, '--budget 0')
    extras = part.get('extras', {})
    hours = extras_value(extras, WINDOW_KEY)
    if WINDOW_KEY in extras:
        why = (f"the partition's night window (extras.{WINDOW_KEY}; "
               f"--budget to change)")
        return (hours, why) if hours else (None, f'extras.{WINDOW_KEY}: 0')
    return hours, (f'the default night window (extras.{WINDOW_KEY}; '
                   f'--budget to change)')


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
    _check_nodes(args, part)
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
            raise _selects_nothing(tags, args.system)
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
    allowed = _job_time_limit(NIGHTLY_JOB)
    if allowed and sel.estimate_s * args.repeat > allowed:
        print(f'warning: the estimate is more than the {_hours(allowed)} '
              f'that {os.path.relpath(NIGHTLY_JOB, _REPO)} allows: fewer '
              f'--repeat or --tags, or a longer --time there')
    if args.detect:
        detect_plan(args, system['name'], part['name'], sel.runs,
                    {c['display_name']: sel.seconds(c) for c in sel.runs},
                    args.repeat)
    return 0


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


def partition_nodes(part):
    """The nodes a partition's jobs may use: ``extras.max_nodes``, 1 on
    the local launcher, else None (unknown)."""
    max_nodes = part.get('extras', {}).get('max_nodes')
    if max_nodes is None and part.get('launcher') == 'local':
        return 1
    return max_nodes


def _check_nodes(args, part):
    """Refuse a --nodes the partition does not have."""
    have = partition_nodes(part)
    if args.nodes is not None and have is not None and args.nodes > have:
        raise ConfigError('<command line>', '--nodes', args.nodes,
                          f'{args.system} has {have} node(s) '
                          f'(extras.max_nodes): at most {have}')


def print_left_out(skips, here, system, runs):
    """Name the cases the checks would skip, and what was not checked."""
    for name, reason in skips.items():
        print(f'left out: {name}: the check would skip it: {reason}')
    if not here:
        tools = sorted({cases.case_tool(c) or '' for c in runs} - {''})
        print(f'tools not checked: this host ({socket.gethostname()}) is '
              f'not {system["name"]}: {", ".join(tools) or "none"} (run '
              f'nightly-plan there to leave out what it lacks)')


#: Repeats a case needs for the gate to see its spread within a night.
MIN_REPEATS = 2


def _family(case):
    """The check family of a case: its ``reframe-checks/`` directory."""
    return os.path.basename(os.path.dirname(case.get('@file', ''))) or \
        case['display_name'].split()[0]


#: Families whose cases measure metadata rates (io500 measures both).
_METADATA_FAMILIES = ('mdtest',)


def _kinds(case):
    """What a case measures: ``{'bandwidth'}``, ``{'metadata'}`` or both
    (IO500's ior and mdtest phases)."""
    family = _family(case)
    if family in _METADATA_FAMILIES:
        return {'metadata'}
    return {'bandwidth', 'metadata'} if family == 'io500' else {'bandwidth'}


def shares(cases_, seconds):
    """Each target's share, in the order a budget takes them: one case
    per family on each target (its cheapest), each target's cheapest
    bandwidth and metadata case first, then its other families cheapest
    first; the targets take turns (every target's first case, then every
    target's second, ...)."""
    firsts = {}
    for case in sorted(cases_, key=lambda c: seconds[c['display_name']]):
        firsts.setdefault((_family(case), case.get('target') or ''), case)
    per_target = {}
    for case in firsts.values():            # cheapest first
        per_target.setdefault(case.get('target') or '', []).append(case)
    ranked = []
    for mine in per_target.values():
        kinds, lead, rest = set(), [], []
        for case in mine:
            (lead if _kinds(case) - kinds else rest).append(case)
            kinds |= _kinds(case)
        ranked += [(rank, seconds[c['display_name']], len(ranked) + rank, c)
                   for rank, c in enumerate(lead + rest)]
    return [c for *_, c in sorted(ranked, key=lambda r: r[:3])]


def choose(cases_, seconds, budget_s, max_repeats):
    """The cases and the one repeat count that fit ``budget_s`` one case
    at a time: every case at the most repeats (at least
    :data:`MIN_REPEATS`, at most ``max_repeats``) that fit; else, at
    :data:`MIN_REPEATS`, every target's share (:func:`shares`: one case
    per family on each target, a bandwidth and a metadata case first) as
    far as it fits, then the other cases, cheapest first.  A night of
    fewer repeats than the gate's ``min_samples`` (2) can find a
    regression but never pass: 1 repeat only when no case fits twice.

    Returns:
        ``(repeats, chosen)``, ``chosen`` in the order of ``cases_``.
    """
    def cost(group):
        return sum(seconds[c['display_name']] for c in group)

    for repeats in range(max_repeats, MIN_REPEATS - 1, -1):
        if repeats * cost(cases_) <= budget_s:
            return repeats, list(cases_)
    first = shares(cases_, seconds)
    order = first + [c for c in sorted(
        cases_, key=lambda c: seconds[c['display_name']]) if c not in first]
    for repeats in sorted({min(MIN_REPEATS, max_repeats), 1}, reverse=True):
        chosen, used = [], 0.0
        for case in order:
            if repeats * (used + seconds[case['display_name']]) <= budget_s:
                chosen.append(case)
                used += seconds[case['display_name']]
        if chosen:
            return repeats, [c for c in cases_ if c in chosen]
    return 1, []


def selection_name(case):
    """A case as ``reframe -n`` selects it alone (``NAME%param=value``)."""
    return case['display_name'].replace(' %', '%')


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
    repeats, chosen = choose(fit, seconds, budget_s, args.repeat)
    config = gate_config.load(args.gate_config)
    alpha = (1.0 - config.lookback_confidence) / 2.0
    db = os.path.join(args.runs, 'results.db')
    noise = (case_nights(db, system['name'], part['name'],
                         set(seconds), config)
             if os.path.exists(db) else {})
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
        found, var = sens.plan_detects(noise.get(name, {}), repeats, alpha,
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
    if len(cases.every_target(part)) > 1:
        # Which cases each target got (each case runs on one target).
        for target in part['extras']['targets']:
            got = [c for c in chosen if (c.get('target') or '') ==
                   target['name']]
            print(f'target {target["name"]}: {len(got)} case(s): '
                  f'{", ".join(sorted({_family(c) for c in got})) or "none"}'
                  f' ({target.get("fstype") or "fstype not declared"})')
    families = sorted({_family(c) for c in runs})
    missing = sorted(set(families) - {_family(c) for c in chosen})
    print(f'total: {len(chosen)} case(s) x {repeats} repeat(s) = '
          f'{len(chosen) * repeats} job(s); {node_s / 3600:.1f} node-hours, '
          f'{_hours(wall_s)} one case at a time; families: '
          f'{len(families) - len(missing)} of {len(families)}' +
          (f' (not {", ".join(missing)})' if missing else ''))
    print(f'detects: the smallest slowdown found 9 times in 10 at '
          f'{alpha:.0%} false alarms at {repeats} repeat(s); "default '
          f'noise": nights {sens.DEFAULT_NIGHT_NOISE:.0%} apart, repeats '
          f'{sens.DEFAULT_REPEAT_NOISE:.0%} (docs/nightly.md)')
    if not chosen:
        raise ConfigError('<command line>', '--budget', hours,
                          f'no case fits ({why}): a larger budget or '
                          f'--nodes')
    if repeats < MIN_REPEATS <= args.repeat:
        print(f'warning: {repeats} repeat(s): no case fits {hours:g} h '
              f'twice, and the gate passes a case only on '
              f'{config.min_samples} repeats a night (min_samples): this '
              f'night can find a regression, never a pass; a larger budget')
    base = (f'scripts/nightly.sh --system {args.system} --baseline NAME '
            f'--target DIR')
    # nightly.sh plans the same within the same window each night, with
    # the nights' durations (more repeats fit once they are known).
    print(f'run it: {base}' +
          ''.join(f' --tags {t}' for t in tags if tags != ['nightly']) +
          (f' --repeat {args.repeat}' if args.repeat != 5 else '') +
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
    write_plan_file(args.write_plan, args.system, tags, repeats, chosen,
                    f'pfsbench nightly-plan --system {args.system} '
                    f'--budget {hours:g}'
                    f'{f" --nodes {args.nodes}" if args.nodes else ""}')


def write_plan_file(path, spec, tags, repeats, chosen, made_by):
    """Write a plan for ``scripts/nightly.sh --plan FILE``."""
    try:
        with open(path, 'w') as fp:
            fp.write(f'# {made_by}\n'
                     f'# scripts/nightly.sh --plan FILE runs it '
                     f'(docs/nightly.md)\n'
                     f'system {spec}\nrepeat {repeats}\n')
            for tag in tags:
                fp.write(f'tag {tag}\n')
            for case in chosen:
                fp.write(f'case {case["display_name"]}\n')
    except OSError as err:
        raise ConfigError('<command line>', '--write-plan', path,
                          f'cannot write it: {err.strerror}') from None


def read_plan(path):
    """``(system, repeats, tags, case names)`` of a --write-plan file."""
    try:
        with open(path) as fp:
            lines = fp.read().splitlines()
    except OSError as err:
        raise ConfigError('<command line>', '--plan', path,
                          f'cannot read it: {err.strerror}') from None
    except UnicodeDecodeError as err:
        raise ConfigError('<command line>', '--plan', path,
                          f'not UTF-8 text (byte {err.object[err.start]:#x} '
                          f'at offset {err.start}): not a plan --write-plan '
                          f'wrote') from None
    plan = {'system': [], 'repeat': [], 'tag': [], 'case': []}
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith('#'):
            continue
        key, _, value = line.partition(' ')
        if key not in plan or not value.strip():
            raise ConfigError(path, f'line {number}', line,
                              'expected system, repeat, tag or case and a '
                              'value')
        plan[key].append(value.strip())
    for key in ('system', 'repeat'):
        if len(plan[key]) != 1:
            raise ConfigError(path, key, plan[key],
                              f'expected one {key} line')
    repeat = plan['repeat'][0]
    if not repeat.isdigit() or int(repeat) < 1:
        raise ConfigError(path, 'repeat', repeat,
                          'expected a whole number of at least 1')
    if not plan['case']:
        raise ConfigError(path, 'case', '', 'expected at least one case')
    return plan['system'][0], int(repeat), plan['tag'] or ['nightly'], \
        plan['case']


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


def case_nights(db, system, partition, names, config):
    """``{case name: {var: [Moments, ...]}}``: each case's nights on the
    partition (sessions oldest first; failed and contended repeats left
    out), the newest ``lookback.nights`` of them, gated figures only."""
    results = read_database(db, newest=config.history_sessions)
    out = {}
    spreads = {}
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
                    # Each night as the lookback rule sees it (a short
                    # night measured by the nights before it, as the
                    # history's columns are).
                    before = spreads.setdefault((key.name, var), [])
                    out.setdefault(key.name, {}).setdefault(var, []).append(
                        night_moments(vals, pooled_scale(before)))
                    before.append(night_spread(vals))
    return {name: {var: nights[-config.lookback_nights:]
                   for var, nights in figs.items()}
            for name, figs in out.items()}


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
                  f'history: counted at --repeat {repeat}')
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
