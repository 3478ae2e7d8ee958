# SPDX-License-Identifier: BSD-3-Clause
"""The nightly's own job, as a site installs it (``pfsbench render
nightly``): an sbatch script, or a scrontab, that runs the driver
(``scripts/nightly.sh``: ReFrame, which submits the cases, then the gate)
on the measured partition's ``extras.driver_partition``, a login or
service partition (:mod:`pfsbench.plan.driver`), with that partition's
``access`` (partition, account, QoS) and a time within its ``time_limit``
that holds the nightly's plan (:mod:`pfsbench.plan.nightly`).
"""

import os
import shlex

from pfsbench.core.errors import ConfigError, shown_path
from pfsbench.plan import budget as budgets, driver as drivers
from pfsbench.plan.nightly import plan
from pfsbench.render import NOTE_PREFIX
from pfsbench.site import validate
from pfsbench.site.config import (find_partitions, load_site_configuration,
                                  load_system_file, system_files)

#: <repo>, beside this package.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

#: The driver job's --time beyond the plan's estimate: a first night's
#: estimate is a conservative guess, and history has its slow nights.
TIME_MARGIN = 0.25
#: Seconds more for ReFrame's start and the gate.
TIME_EXTRA_S = 60


def _system_file(config_dir, name):
    """The system file that defines system ``name`` (for messages)."""
    for path in system_files(config_dir):
        if any(s.get('name') == name for s in
               load_system_file(path).get('systems', [])):
            return shown_path(path)
    return shown_path(os.path.join(config_dir, 'systems'))


def plan_path(repo, system, part):
    """Where render nightly writes a budget's plan by default."""
    return os.path.join(repo, 'runs', 'nightly',
                        f'{system["name"]}-{part["name"]}.plan')


def _check_arguments(baseline, tag, repeat, time, command_line):
    """Refuse a command-line value that cannot reach the job."""
    source = '<command line>'
    validate.positive_int(repeat, source, '--repeat')
    validate.word(baseline, source, '--baseline')
    validate.word(tag, source, '--tags')
    if time is not None:
        validate.slurm_time(time, source, '--time')
    if command_line is not None:
        # The header's comment line must stay one line.
        validate.command(command_line, source, 'argv')


def _budget(part, budget, nodes, plan_file, write_plan):
    """``(hours or None, why)`` the plan is chosen within.

    Raises:
        ConfigError: options that contradict each other (--budget and
            --plan; --nodes or --write-plan without a budget or with
            --plan).
    """
    source = '<command line>'
    if budget is not None and plan_file:
        raise ConfigError(source, '--plan', plan_file,
                          'give --budget or --plan, not both')
    for option, value in (('--nodes', nodes), ('--write-plan', write_plan)):
        if value is not None and plan_file:
            raise ConfigError(source, option, value,
                              f'--plan {plan_file} sets the cases and '
                              f'repeats: give one or the other')
    if plan_file:
        return budget, ''
    budget, why = budgets.window(budget, part)
    for option, value in (('--nodes', nodes), ('--write-plan', write_plan)):
        if value is not None and budget is None:
            raise ConfigError(source, option, value,
                              f'needs a budget (there is none: {why}):'
                              f' --budget HOURS')
    return budget, why


def _job_time(the_plan, time, limit, system, driver):
    """``(--time, header line)`` of the driver job: ``time`` as given
    (refused above the driver's ``limit`` or below the plan), else the
    plan's estimate and a margin within ``limit``."""
    source = '<command line>'
    planned = the_plan.words
    if time is not None:
        asked = validate.time_seconds(time, source, '--time', slurm=True)
        if limit is not None and asked > limit:
            raise ConfigError(source, '--time', time,
                              f'is more than {system["name"]}:'
                              f'{driver["name"]}\'s time_limit '
                              f'({driver["time_limit"]})')
        if asked < the_plan.estimate_s:
            raise ConfigError(source, '--time', time,
                              f'{drivers.hours(asked)} is less than the '
                              f'nightly ({planned})')
        return time, '# --time: as given'
    # The plan's estimate and a margin (a first night's estimate is a
    # guess; nights vary), a minute for ReFrame's start and the gate,
    # within the driver partition's limit.
    seconds = the_plan.estimate_s * (1 + TIME_MARGIN) + TIME_EXTRA_S
    capped = limit is not None and seconds > limit
    return (validate.slurm_clock(limit if capped else seconds),
            f'# --time: the estimate + {TIME_MARGIN:.0%} + '
            f'{TIME_EXTRA_S // 60} min' +
            (f', capped to {system["name"]}:{driver["name"]}\'s '
             f'time_limit' if capped else ''))


def render_nightly(config_dir, spec, baseline, target=None, tag='nightly',
                   repeat=budgets.CALIBRATED_REPEATS, runs_dir=None, time=None, scrontab=False,
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

    Returns:
        ``(text, plan)``: the script and its
        :class:`pfsbench.plan.nightly.Plan` (whose ``text``, if any, the caller writes to its ``file`` once
        the script is accepted: nothing is written here).

    Raises:
        ConfigError: one line naming file (or the command line), key and
            value: no driver partition, a wrong one, a plan that does not
            fit its time limit (with both numbers).
    """
    _check_arguments(baseline, tag, repeat, time, command_line)
    config, _ = load_site_configuration(config_dir, [spec.split(':')[0]])
    system, (part,) = find_partitions(config['systems'], spec,
                                      require_partition=True)
    file = _system_file(config_dir, system['name'])
    driver = drivers.driver_partition(system, part, file)
    targets = part.get('extras', {}).get('targets', [])
    target = target or (targets[0]['path'] if targets else None)
    if not target:
        raise ConfigError('<command line>', '--target', None,
                          f'required ({spec} has no extras.targets)')
    validate.path(target, '<command line>', '--target')
    budget, why = _budget(part, budget, nodes, plan_file, write_plan)
    if budget is not None and write_plan is None:
        write_plan = plan_path(repo, system, part)
    the_plan = plan(config_dir, spec, system, part, [tag], repeat,
                    runs_dir or os.environ.get('PFSBENCH_RUNS',
                                               os.path.join(repo, 'runs')),
                    budget=budget, nodes=nodes, plan_file=plan_file,
                    write_plan=write_plan, why=why)
    limit = drivers.check_holds(the_plan.estimate_s, the_plan.words, system,
                                driver, file, the_plan.repeat)
    time, time_line = _job_time(the_plan, time, limit, system, driver)
    text = _job_text(spec, system, driver, the_plan, time, time_line,
                     dict(baseline=baseline, target=target, tag=tag,
                          scrontab=scrontab, repo=repo, at=at,
                          command_line=command_line,
                          repeat=the_plan.repeat if plan_file else repeat))
    return text, the_plan


def _job_text(spec, system, driver, the_plan, time, time_line, job):
    """The driver job's script (or scrontab) text."""
    repo = job['repo']
    driver_spec = f'{system["name"]}:{driver["name"]}'
    argv = [os.path.join(repo, 'scripts', 'nightly.sh'), '--system', spec,
            '--baseline', job['baseline'], '--target', job['target']]
    # The job runs the plan it was sized for: the same file nightly.sh
    # checks before its first case.
    argv += (['--plan', os.path.abspath(the_plan.file)] if the_plan.file
             else ['--tags', job['tag'], '--repeat', str(the_plan.repeat)])
    # $USER and the like in the target expand when the job runs.
    command = ' '.join(f'"{w}"' if '$' in w else shlex.quote(w)
                       for w in argv)
    prefix = '#SCRON' if job['scrontab'] else '#SBATCH'
    output = os.path.join(repo, 'runs', 'nightly', 'pfsbench-nightly-%j.out')
    lines = [
        *([] if job['scrontab'] else ['#!/bin/bash']),
        f'# pfsbench nightly of {spec}: ReFrame and the gate run on '
        f'{driver_spec} (extras.driver_partition), the cases on {spec}',
        f'# Rendered by: {job["command_line"] or "pfsbench render nightly"}',
        '# Do not edit: change the config and render again.',
        f'# The plan: {the_plan.words}' +
        (f', within {the_plan.budget:g} h: {the_plan.why}'
         if the_plan.budget else f' (budget: none, {the_plan.why})'
         if the_plan.why else ''),
        *[f'# {NOTE_PREFIX}{line}' for line in the_plan.killed],
        *[f'# {NOTE_PREFIX}{line}'
          for line in [budgets.below_calibration(job['repeat'])] if line],
        time_line,
        f'{prefix} --job-name=pfsbench-nightly',
        f'{prefix} --nodes=1',
        f'{prefix} --ntasks=1',
        f'{prefix} --time={time}',
        f'{prefix} --output={output}',
        *[f'{prefix} {opt}' for opt in driver.get('access', [])],
    ]
    # scrontab runs the entry as a batch job with the options above.
    lines.append(f'{job["at"]} {command}' if job['scrontab'] else
                 f'exec {command}')
    return '\n'.join(lines) + '\n'
