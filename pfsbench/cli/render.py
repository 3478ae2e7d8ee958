# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench render EXPERIMENT``: an sbatch script without ReFrame."""

import os
import shlex
import sys

from pfsbench.cli import nightly_job, common
from pfsbench.commands import dd
from pfsbench.core.errors import ConfigError
from pfsbench.plan import planfile
from pfsbench.plan.budget import CALIBRATED_REPEATS
from pfsbench.render import (EXPERIMENTS, NOTE_PREFIX, JobSite, job_site,
                             points, render)
from pfsbench.runner import CACHE_DEFEAT_MODES, DEFAULT_DROP_CACHES
from pfsbench.site import validate

HELP = 'render an sbatch script for an experiment'
DESCRIPTION = ('Render the job script of one experiment with the same '
               'command lines the ReFrame checks use. Experiments: ' +
               '; '.join(f'{e.id}: {e.descr}' for e in EXPERIMENTS.values()))
EXAMPLES = (
    'pfsbench render E6 --system hawk:compute --nodes 64 -o e6.sbatch',
    ('pfsbench render E1 --system example_seed000:mds --point '
     'active_cores=12 -o e1-12.sbatch'),
    ('pfsbench render nightly --system hawk:compute --baseline '
     'pre-upgrade -o nightly.sbatch'),
)


#: <repo>/config, beside this package.
_CONFIG_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'config')


#: The options of both kinds of job, an experiment's and the nightly's.
_SHARED = ('--system', '--config-dir', '--target', '--time', '--output',
           '--nodes')


def _options(*groups):
    """``[(option, dest, default)]`` of the options in ``groups`` that
    only their kind of job takes (not :data:`_SHARED`)."""
    return [(action.option_strings[-1], action.dest, action.default)
            for group in groups for action in group._group_actions
            if action.option_strings and
            action.option_strings[-1] not in _SHARED]


def add_arguments(parser):
    parser.add_argument('experiment', metavar='EXPERIMENT',
                        help='experiment id: ' + ', '.join(EXPERIMENTS) +
                             "; or 'nightly': the nightly's own job "
                             '(--system NAME:PARTITION, the measured '
                             'partition; its extras.driver_partition runs '
                             'it)'),
    job = _job_arguments(parser.add_argument_group('job options'))
    dd_opts = _dd_arguments(parser.add_argument_group(
        'dd experiments (E6, E9, E10)'))
    iozone_opts = parser.add_argument_group('iozone (E8)')
    iozone_opts.add_argument('--processes', type=int, metavar='N',
                             help='iozone processes in the node\'s '
                                  'throughput group, -l N -u N -t N '
                                  '(default: 4; the checks sweep 1..12)')
    nightly = _nightly_arguments(parser.add_argument_group(
        "nightly (the nightly's driver job: scripts/nightly.sh on the "
        "partition's extras.driver_partition, docs/gate.md)"))
    parser.add_argument('-o', '--output', metavar='FILE',
                        help='write the script here (default: stdout)')
    # What the other kind of job would silently ignore is refused.
    parser.set_defaults(_experiment_only=_options(job, dd_opts, iozone_opts),
                        _nightly_only=_options(nightly))


def _job_arguments(job):
    """The options of every job: where and how it runs."""
    job.add_argument('--system', metavar='NAME:PARTITION',
                     help="take the scheduler options (access), modules, "
                          "environment variables, launcher, target, "
                          "drop-caches command, cache defeat, tools and "
                          "Python from this partition's config, as the "
                          "checks do (default: none: a bare srun job)")
    job.add_argument('--config-dir', default=_CONFIG_DIR, metavar='DIR',
                     help='with --system: the config directory (default: '
                          '%(default)s)')
    job.add_argument('--target', metavar='DIR',
                     help="scratch directory on the cluster (default: the "
                          "system's first target; required without "
                          "--system)")
    job.add_argument('--nodes', type=int, metavar='N',
                     help="node count (default: the experiment's); "
                          "nightly: the nodes its cases may use, not with "
                          "--budget 0 (default: the partition's "
                          "extras.max_nodes)")
    job.add_argument('--tasks-per-node', type=int, metavar='P',
                     help="streams, ranks or mdtest tasks per node "
                          "(default: the experiment's)")
    job.add_argument('--time', metavar='HH:MM:SS',
                     help='time limit (default: 02:00:00)')
    job.add_argument('--sbatch-option', action='append', default=[],
                     metavar='OPT',
                     help='extra #SBATCH option, repeatable, e.g. '
                          '--sbatch-option=--qos=io (default: none)')
    job.add_argument('--point', action='append', default=[],
                     metavar='NAME=VALUE',
                     help='swept experiments (E1-E4, E12, E15): the point '
                          "of the check's sweep, one per swept parameter, "
                          'repeatable, e.g. --point active_cores=12; it '
                          'sets the nodes, tasks and binding as the check '
                          'does (default: none; required for each swept '
                          'parameter without --output-dir)')
    job.add_argument('--output-dir', metavar='DIR',
                     help='write one script per point of the sweep (the '
                          'points --point leaves open) into DIR, named '
                          '<EXPERIMENT>-<name>-<value>....sbatch, and list '
                          'them on stdout; points the partition cannot '
                          'run are named on stderr (default: none)')
    job.add_argument('--python', metavar='PATH',
                     help='Python with pfsbench installed on the compute '
                          'nodes (default: with --system, the Python '
                          'running this command, as the checks; else '
                          'python3)')
    return job


def _dd_arguments(dd_opts):
    """The dd experiments' options (E6, E9, E10)."""
    dd_opts.add_argument('--block-size', type=int, metavar='BYTES',
                         help='dd block size (default: 1024000, seed 001)')
    dd_opts.add_argument('--count', type=int, metavar='N',
                         help="blocks per stream (default: the source's)")
    dd_opts.add_argument('--dd-mode', choices=dd.MODES, metavar='MODE',
                         help='source (seed 001\'s dd lines, the read right '
                              'after the write) or fdatasync (flushed '
                              'writes, the cache defeated before the read), '
                              "as the checks' dd_mode (default: source)")
    dd_opts.add_argument('--repeats', type=int, metavar='N',
                         help='runs of every stream in the job (default: '
                              "dd 3, seed 001's; bonnie++ and iozone, E7 "
                              'and E8: 1, as their checks)')
    dd_opts.add_argument('--cache-defeat', choices=CACHE_DEFEAT_MODES,
                         metavar='MODE',
                         help='between write and read: '
                              f'{", ".join(CACHE_DEFEAT_MODES)} '
                              '(default: none in the source mode; with '
                              'fdatasync, drop_caches if the partition has '
                              'that feature, else direct; without --system, '
                              'drop_caches)')
    dd_opts.add_argument('--drop-caches-command', metavar='CMD',
                         help='command dropping a node page cache '
                              "(default: the partition's "
                              'extras.drop_caches_command, else '
                              f'{DEFAULT_DROP_CACHES})')
    return dd_opts


def _nightly_arguments(nightly):
    """The options of render nightly, the nightly's driver job."""
    nightly.add_argument('--baseline', metavar='NAME',
                         help='the baseline the gate compares with '
                              '(required for nightly)')
    nightly.add_argument('--tags', default='nightly', metavar='TAG',
                         help="the nightly's cases, as nightly.sh --tags "
                              '(default: %(default)s)')
    nightly.add_argument('--repeat', type=int, default=CALIBRATED_REPEATS,
                         metavar='N',
                         help='repeats, as nightly.sh --repeat (default: '
                              '%(default)s)')
    nightly.add_argument('--budget', type=float, metavar='HOURS',
                         help='run the cases and repeats that fit HOURS on '
                              '--nodes, as nightly-plan --budget chooses '
                              'them (every target its share), written to '
                              '--write-plan; the job\'s --time is their '
                              'estimate and a margin; 0: no budget, the '
                              'tags and repeats whole (default: the '
                              "partition's night window, "
                              'extras.nightly_budget_hours, else 2)')
    nightly.add_argument('--no-budget', dest='budget', action='store_const',
                         const=0.0,
                         help='the tags and repeats whole, as --budget 0 '
                              '(default: off)')
    nightly.add_argument('--plan', metavar='FILE',
                         help='run this plan (nightly-plan --write-plan\'s)'
                              ' (default: none)')
    nightly.add_argument('--write-plan', metavar='FILE',
                         help='where the plan goes, a path the driver '
                              'node reads (not with --budget 0; default: '
                              'runs/nightly/NAME-PARTITION.plan of this '
                              'clone)')
    nightly.add_argument('--scrontab', action='store_true',
                         help='write a scrontab (#SCRON options and a cron '
                              'line at 02:00) instead of an sbatch script '
                              '(default: off)')
    nightly.add_argument('--runs', metavar='DIR',
                         help="where earlier runs' reports are, for the "
                              'time estimate (default: $PFSBENCH_RUNS, else '
                              'runs/ of this clone)')
    return nightly


def _refuse_given(args, options, why):
    """Refuse the first of ``options`` given a value (not its default)."""
    for option, dest, default in options:
        value = getattr(args, dest)
        if value != default:
            raise ConfigError('<command line>', option, value, why)


def _chosen(specs):
    """``{name: value}`` of the ``--point NAME=VALUE`` options."""
    chosen = {}
    for spec in specs:
        name, sep, value = spec.partition('=')
        if not sep or not name or not value:
            raise ConfigError('<command line>', '--point', spec,
                              'expected NAME=VALUE, e.g. active_cores=12')
        chosen[name] = value
    return chosen


def _without(argv, options):
    """``argv`` without ``options`` and their values."""
    out, skip = [], False
    for word in argv:
        if skip:
            skip = False
        elif word in options:
            skip = True
        elif not word.startswith(tuple(f'{o}=' for o in options)):
            out.append(word)
    return out


def run(args):
    # The header records how to render the script again, quoted for a shell.
    verb = args.argv.index('render')
    shown = 'pfsbench ' + shlex.join(args.argv[verb:])
    if args.experiment == 'nightly':
        return _nightly(args, shown)
    _refuse_given(args, args._nightly_only,
                  f'an option of render nightly, not of an experiment '
                  f'({args.experiment})')
    site = job_site(args.config_dir, args.system) if args.system \
        else JobSite()
    chosen = _chosen(args.point)
    options = dict(nodes=args.nodes, tasks_per_node=args.tasks_per_node,
                   time=args.time, sbatch_options=args.sbatch_option,
                   block_size=args.block_size, count=args.count,
                   cache_defeat=args.cache_defeat, dd_mode=args.dd_mode,
                   repeats=args.repeats,
                   drop_caches_command=args.drop_caches_command,
                   python=args.python, site=site,
                   processes=args.processes)
    if args.output_dir:
        return _every_point(args, chosen, options, verb)

    text = render(args.experiment, args.target, command_line=shown,
                  point=chosen, **options)
    _print_notes(text)
    common.write_output(args.output, text)

    return 0


def _nightly(args, shown):
    """``render nightly``: the nightly's driver job (pfsbench.cli.nightly_job);
    the experiments' options do not apply to it."""
    _refuse_given(args, args._experiment_only,
                  "not an option of render nightly (the driver job's "
                  "options come from extras.driver_partition)")
    if not args.system:
        raise ConfigError('<command line>', '--system', None,
                          'required for nightly: NAME:PARTITION, the '
                          'measured partition')
    if not args.baseline:
        raise ConfigError('<command line>', '--baseline', None,
                          'required for nightly (pfsbench baseline list '
                          'shows the recorded ones)')
    if args.budget is not None:
        validate.budget_hours(args.budget, '<command line>', '--budget')
    if args.nodes is not None:
        validate.positive_int(args.nodes, '<command line>', '--nodes')
    text, plan = nightly_job.render_nightly(
        args.config_dir, args.system, args.baseline, target=args.target,
        tag=args.tags, repeat=args.repeat, runs_dir=args.runs,
        time=args.time, scrontab=args.scrontab, command_line=shown,
        budget=args.budget, nodes=args.nodes, plan_file=args.plan,
        write_plan=args.write_plan)
    # Slurm opens the job's output file before the job runs: its
    # directory must exist.
    os.makedirs(os.path.join(nightly_job.REPO, 'runs', 'nightly'),
                exist_ok=True)
    # Only now, the job accepted: the plan it runs, then the job itself,
    # each whole or not at all (a refused render leaves both as they were).
    if plan.text is not None:
        if args.write_plan is None:
            # The default, runs/nightly/ of this clone (made above).
            os.makedirs(os.path.dirname(plan.file), exist_ok=True)
        planfile.write_atomically(plan.file, plan.text, '--write-plan')
    _print_notes(text)
    if args.output:
        planfile.write_atomically(args.output, text, '--output')
    else:
        common.write_output(None, text)
    return 0


def _print_notes(text, prefix=''):
    """Repeat on stderr what the script's header notes (a capped time)."""
    for line in text.splitlines():
        if line.startswith('# ' + NOTE_PREFIX):
            print(f'pfsbench: {prefix}{line[2:]}', file=sys.stderr)
        elif not line.startswith('#'):
            break


def _every_point(args, chosen, options, verb):
    """``--output-dir``: one script per point; each header renders that
    script alone (``--point`` for every swept name, ``-o`` its file)."""
    if args.output:
        raise ConfigError('<command line>', '--output', args.output,
                          'give --output or --output-dir, not both')
    base = _without(args.argv[verb:], ('--output-dir', '--point'))
    written, refused = [], []
    for point in points(args.experiment, chosen, options['site']):
        name = '-'.join([args.experiment] + [f'{k}-{v}' for k, v in
                                             point.items()]) + '.sbatch'
        argv = base + [f'--point={k}={v}' for k, v in point.items()] + \
            ['-o', name]
        try:
            text = render(args.experiment, args.target, point=point,
                          command_line='pfsbench ' + shlex.join(argv),
                          **options)
        except ConfigError as err:
            refused.append(err)
            print(f'pfsbench: skipped {name}: {err}', file=sys.stderr)
            continue
        _print_notes(text, f'{name}: ')
        os.makedirs(args.output_dir, exist_ok=True)
        path = os.path.join(args.output_dir, name)
        with open(path, 'w') as fp:
            fp.write(text)
        written.append(path)
        print(path)
    if not written:
        # Nothing to run: the first reason is the error.
        raise refused[0]
    return 0
