# SPDX-License-Identifier: BSD-3-Clause
"""The nightly's own job, as a site installs it (``pfsbench render
nightly``): an sbatch script, or a scrontab, that runs the driver
(``scripts/nightly.sh``: ReFrame, which submits the cases, then the gate)
on the measured partition's ``extras.driver_partition``, a login or
service partition, with that partition's ``access`` (partition, account,
QoS) and a time within its ``time_limit`` that holds the nightly's plan.

The driver is one light task for hours: on the measured partition it
would hold a node its own cases need (an exclusive 2-node case on a
2-node partition would never start), and its file-system traffic would
count as foreign load.
"""

import os
import shlex
from dataclasses import dataclass

from pfsbench.cli import nightly_plan
from pfsbench.core.errors import ConfigError
from pfsbench.site import validate
from pfsbench.site.config import (find_partitions, load_site_configuration,
                                  load_system_file, partition_key, shown_path,
                                  system_files)

#: <repo>, beside this package.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
#: Schedulers a driver job can be submitted to.
_SLURM = ('slurm', 'squeue')
#: Seconds between two nights: a longer nightly would meet the next one.
NIGHT_S = 24 * 3600


@dataclass(frozen=True)
class Plan:
    """What the nightly runs: cases, repeats and seconds."""

    cases: int
    repeat: int
    #: Seconds one case at a time: each case's median in earlier runs,
    #: else its first-night estimate (its work; docs/nightly.md).
    estimate_s: float
    #: Seconds with every case at its time limit (never more).
    at_most_s: float
    #: The targets the plan's cases run on (names; empty: the one).
    targets: tuple = ()
    #: The plan file nightly.sh --plan runs (a --budget or --plan job),
    #: or None: the tags and repeats alone.
    file: str = None
    #: The budget it was chosen within, hours, or None.
    budget: float = None
    #: Where the budget comes from (nightly_plan.window).
    why: str = ''


#: The driver job's --time beyond the plan's estimate: a first night's
#: estimate is a conservative guess, and history has its slow nights.
TIME_MARGIN = 0.25
#: Seconds more for ReFrame's start and the gate.
TIME_EXTRA_S = 60


def plan(config_dir, spec, system, part, tags, repeat, runs_dir,
         budget=None, nodes=None, plan_file=None, write_plan=None, why=''):
    """The :class:`Plan` of ``tags`` x ``repeat`` on partition ``part``:
    ``pfsbench nightly-plan``'s estimate (:func:`nightly_plan.select`: the
    cases a dry run of the selection would skip left out).  With
    ``budget`` (hours), the cases and repeats that fit it on ``nodes``
    (:func:`nightly_plan.choose`, every target its share), written to
    ``write_plan`` for nightly.sh --plan; with ``plan_file``, the cases and
    repeats of that plan (nightly-plan --write-plan's).

    Raises:
        ConfigError: a plan for another partition or naming a case the
            tags do not select; no case fits the budget.
    """
    if plan_file:
        system_name, repeat, tags, names = nightly_plan.read_plan(plan_file)
        if system_name != spec:
            raise ConfigError(plan_file, 'system', system_name,
                              f'the plan is for another partition than '
                              f'--system {spec}')
    sel = nightly_plan.select(config_dir, spec, system, part, tags,
                              runs_dir)
    runs = sel.runs
    if plan_file:
        known = {c['display_name'] for c in runs}
        for name in names:
            if name not in known:
                raise ConfigError(plan_file, 'case', name,
                                  f'not among the cases tags '
                                  f'{", ".join(tags)} run on {spec}')
        runs = [c for c in runs if c['display_name'] in names]
    elif budget is not None:
        have = nodes or nightly_plan.partition_nodes(part)
        fit = [c for c in runs if have is None or (c.get('nodes') or 1) <=
               have]
        seconds = {c['display_name']: sel.seconds(c) for c in fit}
        repeat, runs = nightly_plan.choose(fit, seconds, budget * 3600,
                                           repeat)
        if not runs:
            raise ConfigError('<command line>', '--budget', budget,
                              'no case fits: a larger budget or --nodes')
        plan_file = write_plan
        nightly_plan.write_plan_file(
            plan_file, spec, tags, repeat, runs,
            f'pfsbench render nightly --system {spec} --budget {budget:g}'
            f'{f" --nodes {nodes}" if nodes else ""}')
    targets = tuple(sorted({c.get('target') for c in runs} - {None, ''}))
    return Plan(len(runs), repeat,
                sum(sel.seconds(c) for c in runs) * repeat,
                sum(sel.limits[c['display_name']] for c in runs) * repeat,
                targets, plan_file, budget, why)


def _system_file(config_dir, name):
    """The system file that defines system ``name`` (for messages)."""
    for path in system_files(config_dir):
        if any(s.get('name') == name for s in
               load_system_file(path).get('systems', [])):
            return shown_path(path)
    return shown_path(os.path.join(config_dir, 'systems'))


def _slurm_partition(part):
    """The Slurm partition a ReFrame partition's ``access`` names, or None
    (an option is one item: ``--partition=X``, ``--partition X``, ``-p X``
    or ``-pX``; pfsbench.site.validate.sbatch_option)."""
    for opt in part.get('access', []):
        for prefix in ('--partition=', '--partition ', '-p ', '-p'):
            if opt.startswith(prefix) and opt[len(prefix):].strip():
                return opt[len(prefix):].strip()
    return None


def driver_partition(system, part, file):
    """The partition whose node runs the driver of ``part``'s nightly.

    Raises:
        ConfigError: ``extras.driver_partition`` unset, the measured
            partition itself (or the same Slurm partition), unknown, not a
            Slurm partition, or naming no Slurm partition in its access.
    """
    key = f'{partition_key(system, part)}.extras.driver_partition'
    name = part.get('extras', {}).get('driver_partition')
    if not name:
        raise ConfigError(file, key, None,
                          'required by render nightly: the login or '
                          'service partition whose node runs ReFrame and '
                          'the gate (the measured nodes are for the cases; '
                          'docs/gate.md)')
    parts = {p['name']: p for p in system.get('partitions', [])}
    if name not in parts:
        raise ConfigError(file, key, name, 'no such partition in '
                          f'{system["name"]}; known: '
                          f'{", ".join(sorted(parts))}')
    driver = parts[name]
    if name == part['name']:
        raise ConfigError(file, key, name,
                          'is the measured partition: the driver would '
                          'hold one of the nodes its cases need')
    if driver.get('scheduler') not in _SLURM:
        raise ConfigError(file, key, name,
                          f'its scheduler is {driver.get("scheduler")!r}: '
                          f'the driver is a Slurm job; give a Slurm '
                          f'partition (a login node\'s cron can run '
                          f'scripts/nightly.sh itself)')
    slurm = _slurm_partition(driver)
    if slurm is None:
        raise ConfigError(file, f'{partition_key(system, driver)}.access',
                          driver.get('access', []),
                          'names no --partition: the driver would go to '
                          "Slurm's default partition, perhaps the measured "
                          'one')
    if slurm == _slurm_partition(part):
        raise ConfigError(file, key, name,
                          f'is Slurm partition {slurm!r}, as the measured '
                          f'partition: the driver would hold one of the '
                          f'nodes its cases need')
    return driver


def _hours(seconds):
    return f'{seconds / 3600:.1f} h'


def render_nightly(config_dir, spec, baseline, target=None, tag='nightly',
                   repeat=5, runs_dir=None, time=None, scrontab=False,
                   repo=REPO, command_line=None, at='0 2 * * *',
                   budget=None, nodes=None, plan_file=None, write_plan=None):
    """The nightly's job script (or scrontab) for partition ``spec``.

    Args:
        config_dir: the config directory.
        spec: ``NAME:PARTITION``, the measured partition.
        baseline: the baseline the gate compares with.
        target: the ``--target`` of nightly.sh (default: the partition's
            first target).
        tag, repeat: the nightly's selection, as nightly.sh's --tags and
            --repeat.
        runs_dir: where earlier runs' reports are (the estimate).
        time: the driver job's ``--time`` (default: the plan's upper
            bound, capped to the driver partition's ``time_limit``).
        scrontab: a scrontab (``#SCRON`` options and a cron line) instead
            of an sbatch script.
        repo: the clone the driver runs from, on the driver's node.
        at: the cron schedule of the scrontab.
        budget, nodes: choose the cases and repeats that fit ``budget``
            hours on ``nodes`` (``pfsbench nightly-plan --budget``; None:
            the partition's night window, extras.nightly_budget_hours,
            else 2 h; 0: none, the tags and repeats whole), write them to
            ``write_plan`` (default:
            ``<repo>/runs/nightly/<system>-<partition>.plan``) and run
            that plan (nightly.sh --plan).
        plan_file: run this plan (nightly-plan --write-plan's) instead.

    Raises:
        ConfigError: one line naming file (or the command line), key and
            value: no driver partition, a wrong one, a plan that does not
            fit its time limit (with both numbers).
    """
    source = '<command line>'
    validate.positive_int(repeat, source, '--repeat')
    validate.word(baseline, source, '--baseline')
    validate.word(tag, source, '--tags')
    asked_time = time
    if time is not None:
        validate.slurm_time(time, source, '--time')
    if command_line is not None:
        # The header's comment line must stay one line.
        validate.command(command_line, source, 'argv')
    config, _ = load_site_configuration(config_dir, [spec.split(':')[0]])
    system, (part,) = find_partitions(config['systems'], spec,
                                      require_partition=True)
    file = _system_file(config_dir, system['name'])
    driver = driver_partition(system, part, file)
    targets = part.get('extras', {}).get('targets', [])
    target = target or (targets[0]['path'] if targets else None)
    if not target:
        raise ConfigError(source, '--target', None,
                          f'required ({spec} has no extras.targets)')
    validate.path(target, source, '--target')

    if budget is not None and plan_file:
        raise ConfigError(source, '--plan', plan_file,
                          'give --budget or --plan, not both')
    why = ''
    for option, value in (('--nodes', nodes), ('--write-plan', write_plan)):
        if value is not None and plan_file:
            raise ConfigError(source, option, value,
                              f'--plan {plan_file} sets the cases and '
                              f'repeats: give one or the other')
    if not plan_file:
        budget, why = nightly_plan.window(budget, part)
        for option, value in (('--nodes', nodes),
                              ('--write-plan', write_plan)):
            if value is not None and budget is None:
                raise ConfigError(source, option, value,
                                  f'needs a budget (there is none: {why}):'
                                  f' --budget HOURS')
    if budget is not None and write_plan is None:
        write_plan = os.path.join(
            repo, 'runs', 'nightly',
            f'{system["name"]}-{part["name"]}.plan')
        os.makedirs(os.path.dirname(write_plan), exist_ok=True)
    the_plan = plan(config_dir, spec, system, part, [tag], repeat,
                    runs_dir or os.environ.get('PFSBENCH_RUNS',
                                               os.path.join(repo, 'runs')),
                    budget=budget, nodes=nodes, plan_file=plan_file,
                    write_plan=write_plan, why=why)
    repeat = the_plan.repeat
    limit_key = f'{partition_key(system, driver)}.time_limit'
    limit = (validate.time_seconds(driver['time_limit'], file, limit_key)
             if driver.get('time_limit') else None)
    on = (f' on targets {", ".join(the_plan.targets)}' if the_plan.targets
          else '')
    planned = (f'{the_plan.cases} case(s) x {repeat} repeat(s){on}: about '
               f'{_hours(the_plan.estimate_s)}, at most '
               f'{_hours(the_plan.at_most_s)}')
    if the_plan.estimate_s > NIGHT_S:
        raise ConfigError(source, '--repeat', repeat,
                          f'the nightly ({planned}) is longer than the '
                          f'{_hours(NIGHT_S)} between two nights: fewer '
                          f'--repeat or --tags')
    if limit is not None and the_plan.estimate_s > limit:
        raise ConfigError(file, limit_key, driver['time_limit'],
                          f'{_hours(limit)} is less than the nightly '
                          f'({planned}): fewer --repeat or --tags, or a '
                          f'longer time_limit')
    if time is not None:
        asked = validate.time_seconds(time, source, '--time', slurm=True)
        if limit is not None and asked > limit:
            raise ConfigError(source, '--time', time,
                              f'is more than {system["name"]}:'
                              f'{driver["name"]}\'s time_limit '
                              f'({driver["time_limit"]})')
        if asked < the_plan.estimate_s:
            raise ConfigError(source, '--time', time,
                              f'{_hours(asked)} is less than the nightly '
                              f'({planned})')
    else:
        # The plan's estimate and a margin (a first night's estimate is a
        # guess; nights vary), a minute for ReFrame's start and the gate,
        # within the driver partition's limit.
        seconds = the_plan.estimate_s * (1 + TIME_MARGIN) + TIME_EXTRA_S
        time = validate.slurm_clock(seconds if limit is None
                                    else min(limit, seconds))

    driver_spec = f'{system["name"]}:{driver["name"]}'
    argv = [os.path.join(repo, 'scripts', 'nightly.sh'), '--system', spec,
            '--baseline', baseline, '--target', target]
    # The job runs the plan it was sized for: the same file nightly.sh
    # checks before its first case.
    argv += (['--plan', os.path.abspath(the_plan.file)] if the_plan.file
             else ['--tags', tag, '--repeat', str(repeat)])
    # $USER and the like in the target expand when the job runs.
    command = ' '.join(f'"{w}"' if '$' in w else shlex.quote(w)
                       for w in argv)
    prefix = '#SCRON' if scrontab else '#SBATCH'
    output = os.path.join(repo, 'runs', 'nightly', 'pfsbench-nightly-%j.out')
    lines = [
        *([] if scrontab else ['#!/bin/bash']),
        f'# pfsbench nightly of {spec}: ReFrame and the gate run on '
        f'{driver_spec} (extras.driver_partition), the cases on {spec}',
        f'# Rendered by: {command_line or "pfsbench render nightly"}',
        '# Do not edit: change the config and render again.',
        f'# The plan: {planned}' +
        (f', within {the_plan.budget:g} h: {the_plan.why}'
         if the_plan.budget else f' (budget: none, {the_plan.why})'
         if the_plan.why else ''),
        f'# --time: the estimate + {TIME_MARGIN:.0%} + '
        f'{TIME_EXTRA_S // 60} min' +
        (f', capped to {driver_spec}\'s time_limit' if limit is not None
         and the_plan.estimate_s * (1 + TIME_MARGIN) + TIME_EXTRA_S > limit
         else '') if not asked_time else '# --time: as given',
        f'{prefix} --job-name=pfsbench-nightly',
        f'{prefix} --nodes=1',
        f'{prefix} --ntasks=1',
        f'{prefix} --time={time}',
        f'{prefix} --output={output}',
        *[f'{prefix} {opt}' for opt in driver.get('access', [])],
    ]
    if scrontab:
        # scrontab runs the entry as a batch job with the options above.
        lines.append(f'{at} {command}')
    else:
        lines.append(f'exec {command}')
    return '\n'.join(lines) + '\n'
