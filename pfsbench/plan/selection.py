# SPDX-License-Identifier: BSD-3-Clause
"""What a nightly's tags select on a partition and what each case costs:
the one estimate of ``pfsbench nightly-plan`` and ``pfsbench render
nightly`` (the cases ``reframe --describe`` lists, less those a dry run
skips; each at its median in earlier runs, else its first-night estimate,
:mod:`pfsbench.plan.estimate`)."""

import concurrent.futures
import os
import re
import socket
import statistics
from dataclasses import dataclass

from pfsbench.core.errors import ConfigError, PfsbenchError
from pfsbench.gate.history import runreport
from pfsbench.load.own_share import same_case
from pfsbench.plan import cases, estimate
from pfsbench.site import validate


#: <repo>, beside this package.
_REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def runs_here(system):
    """Whether this host is one of the system's (ReFrame's own test: a
    ``hostnames`` pattern matches the host name)."""
    host = socket.gethostname()
    return any(re.match(pattern, host)
               for pattern in system.get('hostnames', []))


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
                name = same_case(case['display_name'])
                durations.setdefault(name, []).append(took)
    return durations


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
    #: its work at its target's rates (:mod:`pfsbench.plan.estimate`),
    #: never above its time limit.
    first: dict
    #: ``{display_name: (seconds, limit, whose)}`` of each case whose
    #: first-night estimate is more than its time limit (``whose``: the
    #: check's or the partition's): its job would be killed at the limit.
    over_limit: dict = None

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

    def killed(self, cases_=None):
        """One line per case of ``cases_`` (default: every case that
        runs) without history whose first-night estimate its time limit
        cuts: the job would be killed there, not measured."""
        over = self.over_limit or {}
        out = []
        for case in self.runs if cases_ is None else cases_:
            name = case['display_name']
            if name in over and not self.past.get(name):
                wanted, limit, whose = over[name]
                out.append(f'{name}: its first-night estimate, '
                           f'{wanted / 60:.1f} m, is more than {whose} '
                           f'({limit / 60:.1f} m): the case would be killed'
                           f' at the limit, not measured (a longer '
                           f'time_limit or a smaller case)')
        return out

    @property
    def known(self):
        """Cases that run whose estimate comes from earlier runs."""
        return sum(bool(self.past.get(c['display_name'])) for c in self.runs)


def selects_nothing(tags, spec):
    """The error of tags that select no case on ``spec``."""
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
    ``part`` (:func:`pfsbench.plan.estimate.first_night_seconds`)."""
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
        raise selects_nothing(tags, spec)
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
    limits, whose = {}, {}
    for case in runs:
        limit = case.get('time_limit') or 0
        name = case['display_name']
        limits[name] = min(limit, cap) if cap is not None else limit
        whose[name] = ("the partition's time_limit" if cap is not None and
                       (not limit or cap < limit) else
                       "the check's time_limit")
    first, over = {}, {}
    for case in runs:
        name = case['display_name']
        wanted, how = first_night(case, part, None, assume_s)
        first[name] = (min(wanted, limits[name]) if limits[name] else
                       wanted, how)
        if limits[name] and wanted > limits[name]:
            over[name] = (wanted, limits[name], whose[name])
    return Selection(runs, skips, here,
                     history(runs_dir, system['name'], part['name']), limits,
                     first, over)
