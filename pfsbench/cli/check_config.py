# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench check-config``: validate site configs and reference files;
with ``--system``, also a system's targets, tools and limits."""

import collections
import glob
import os
import re
import shutil
import socket
import sys

from pfsbench.commands import diskstats as diskstats_steps
from pfsbench.core import tools
from pfsbench.core.errors import ConfigError, ParseError, shown_path
from pfsbench.load import attribution, contention, own_share
from pfsbench.parsers import diskstats
from pfsbench.parsers.text import probe
from pfsbench.plan import budget as budgets, cases, driver as drivers
from pfsbench.plan.nightly import plan
from pfsbench.plan.selection import runs_here
from pfsbench.site import binaries, perflog_http, spack, validate
from pfsbench.site.config import (check_scratch_dir, find_partitions,
                                  load_system_file, node_scratch_dir,
                                  partition_key, system_files,
                                  validate_reference_file)
from pfsbench.site.mounts import target_is_lustre

HELP = 'validate site configurations and references'
DESCRIPTION = (
    "Load every system file and every reference file and check them "
    "against ReFrame's schema and pfsbench's (ReFrame ignores unknown "
    "extras and sched_options keys silently). With --system, also check "
    "that partition's targets (they exist and are writable, when this "
    "host is one of the system's), the tools its cases run, and which "
    "cases its limits skip. One line per problem; exit 2 if any.")
EXAMPLES = (
    'pfsbench check-config',
    'pfsbench check-config --system hawk:compute --tags nightly',
    'pfsbench check-config --config-dir /site/pfsbench-config',
)

#: <repo>/config and <repo>/reframe-checks, beside this package.
_REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def add_arguments(parser):
    parser.add_argument('--config-dir', default=os.path.join(_REPO, 'config'),
                        metavar='DIR',
                        help='the config directory (default: %(default)s)')
    parser.add_argument('--system', metavar='NAME[:PARTITION]',
                        help='also check this system (every partition, or '
                             'one) where it would run (default: none)')
    parser.add_argument('--tags', action='append', default=[],
                        metavar='TAG',
                        help='with --system: the cases to check the limits '
                             'and tools against, as reframe -t (repeatable;'
                             ' default: every case)')


def run(args):
    problems, systems = [], {}
    for path in system_files(args.config_dir):
        try:
            site = load_system_file(path)
        except ConfigError as err:
            problems.append(str(err))
            continue
        for system in site.get('systems', []):
            systems[system['name']] = (system, shown_path(path))

    partitions = {f'{name}:{p["name"]}' for name, (s, _) in systems.items()
                  for p in s.get('partitions', [])}
    if args.system and not problems:
        # (ReFrame cannot load a configuration with a broken file.)
        problems += check_system(args, systems)
    elif not problems:
        print(f'systems: {", ".join(sorted(systems))} '
              f'({len(partitions)} partitions): ok')

    refs = sorted(glob.glob(os.path.join(args.config_dir, 'references',
                                         '*.yaml')))
    for path in refs:
        system = os.path.basename(path)[:-5]
        if args.system and system != args.system.split(':')[0]:
            continue
        try:
            count = validate_reference_file(path, partitions)
        except ConfigError as err:
            problems.append(str(err))
            continue
        note = '' if system in systems else ' (no such system: unused)'
        print(f'{shown_path(path)}: {count} reference(s): ok{note}')

    for handler in perflog_http.handlers():
        why = perflog_http.unanswered(handler)
        if why:
            print(f'pfsbench: warning: {perflog_http.URL_VARIABLE}: '
                  f'httpjson perflog handler: {why}: ReFrame drops the '
                  'handler at start with one warning and no record '
                  'reaches it', file=sys.stderr)
        else:
            print(f'{perflog_http.URL_VARIABLE}: httpjson perflog handler: '
                  f'{handler["url"]} answers: ok')

    for problem in problems:
        print(f'pfsbench: error: {problem}', file=sys.stderr)
    return 2 if problems else 0


def check_system(args, systems):
    """Check ``args.system``'s partitions; print what is fine, return the
    problems (one line each)."""
    try:
        system, parts = find_partitions([s for s, _ in systems.values()],
                                        args.system)
    except ConfigError as err:
        return [str(err)]

    file = systems[system['name']][1]
    here = runs_here(system)
    problems = []
    for part in parts:
        fullname = f'{system["name"]}:{part["name"]}'
        # One verdict per partition: 'ok' only when nothing went wrong.
        found = []
        try:
            selected = cases.describe(
                os.path.join(args.config_dir, 'settings.py'), fullname,
                os.path.join(_REPO, 'reframe-checks'), args.tags)
        except ConfigError as err:
            found.append(str(err))
            selected = []
        found += partition_problems(system, part, file, here, selected)
        driver, driver_note = driver_problems(args.config_dir, system, part,
                                              file)
        found += driver
        problems += found
        if not found:
            where = ('' if here else
                     f'; targets and tools not checked: this host '
                     f'({socket.gethostname()}) is not {system["name"]}')
            print(f'{fullname}: ok ({len(selected)} case(s){where})')
        if driver_note:
            print(f'{fullname}: {driver_note}')
        for note in limit_notes(part, selected):
            print(f'{fullname}: note: {note}')
        for note in foreign_load_notes(part, here):
            print(f'{fullname}: note: {note}')
        for note in device_stats_notes(part, here):
            print(f'{fullname}: note: {note}')
        for warning in mpi_warnings(system, part, file, here):
            print(f'{fullname}: warning: {warning}')
    return problems


def driver_problems(config_dir, system, part, file):
    """``(problems, note)`` of a partition's ``extras.driver_partition``,
    checked as ``render nightly`` checks it (:mod:`pfsbench.plan.driver`:
    it exists, is not the measured partition, is Slurm's, and its
    time_limit holds the nightly ``render nightly`` would plan: the
    ``nightly`` tags at 5 repeats within the partition's night window).
    Nothing where it is not set (only render nightly needs it)."""
    if 'driver_partition' not in part.get('extras', {}):
        return [], ''
    spec = f'{system["name"]}:{part["name"]}'
    try:
        driver = drivers.driver_partition(system, part, file)
        hours, why = budgets.window(None, part)
        the_plan = plan(config_dir, spec, system, part, ['nightly'], 5,
                        os.environ.get('PFSBENCH_RUNS',
                                       os.path.join(_REPO, 'runs')),
                        budget=hours, why=why)
        limit = drivers.check_holds(the_plan.estimate_s, the_plan.words,
                                    system, driver, file, the_plan.repeat)
    except ConfigError as err:
        return [str(err)], ''
    return [], (f'driver: {system["name"]}:{driver["name"]} runs the '
                f'nightly ({the_plan.words}) within ' +
                (f'its time_limit ({driver["time_limit"]})' if limit
                 else 'no time_limit'))


def _mpi_type(part):
    return next((value for name, value in part.get('env_vars', [])
                 if name == 'SLURM_MPI_TYPE'), None)


def srun_mpi_plugins():
    """The MPI plugins this host's srun offers (``srun --mpi=list``), or
    None where there is no srun or it cannot answer."""
    text = probe(['srun', '--mpi=list'], timeout=30)
    if text is None or 'MPI plugin types are' not in text:
        return None
    plugins = set(re.findall(r'^\s+(\S+)\s*$', text, re.M))
    plugins |= set(re.findall(r'\b(pmix_v[0-9]+)\b', text))
    return plugins


def mpi_warnings(system, part, file, here):
    """A SLURM_MPI_TYPE that is no plugin name Slurm ships, off the
    cluster (it may be the site's own: srun on the cluster decides)."""
    value = _mpi_type(part)
    if here or value is None or value in validate.SLURM_MPI_PLUGINS or \
            re.fullmatch(r'pmix_v[0-9]+|\$.*', str(value)):
        return []
    return [f'{file}:{partition_key(system, part)}.env_vars.SLURM_MPI_TYPE:'
            f' {value!r}: not a plugin Slurm ships '
            f'({", ".join(validate.SLURM_MPI_PLUGINS)}); run check-config '
            f'on the cluster, where srun --mpi=list decides']


def partition_problems(system, part, file, here, selected):
    """The problems of one partition: its targets and its cases' tools,
    checked only where they can be (``here``)."""
    key = partition_key(system, part)
    extras = part.get('extras', {})
    problems = []
    value = _mpi_type(part)
    offered = srun_mpi_plugins() if here and value is not None else None
    if offered is not None and str(value) not in offered:
        problems.append(f'{file}:{key}.env_vars.SLURM_MPI_TYPE: {value!r}: '
                        f'this cluster\'s srun does not offer it (srun '
                        f'--mpi=list: {", ".join(sorted(offered))})')
    for target in extras.get('targets', []):
        field = f'{key}.extras.targets[{target["name"]}].path'
        try:
            if (target.get('scope') == 'node' and
                    part.get('launcher') != 'local'):
                # Each node's own directory: the job makes its run
                # directory there, and says so when it cannot.
                node_scratch_dir(target['path'], file, field,
                                 must_exist=here)
            else:
                check_scratch_dir(target['path'], file, field,
                                  must_exist=here)
        except ConfigError as err:
            problems.append(str(err))
    if not here:
        return problems

    # The server-side hooks answer from here as they will for every case.
    hooks = (('fs_counters_command', contention.parse_fs_counters),
             ('server_provenance_command', contention.parse_provenance)) + \
        tuple((key, parse) for key, (_, parse) in attribution.METHODS.items())
    for hook, parse in hooks:
        if hook in extras:
            try:
                parse(contention.run_site_command(extras[hook]),
                      extras[hook])
            except contention.CommandFailed as err:
                problems.append(f'{file}:{key}.extras.{hook}: {err}')

    env = spack.environment(extras)     # where the checks will look
    helpers = {}
    for case in selected:
        for tool in cases.helper_tools(case, part):
            helpers.setdefault(tool, []).append(case['display_name'])
    if 'lfs' in helpers and shutil.which('lfs') is None:
        # As the checks look for it (on PATH: the Lustre client's).
        lustre = [t['name'] for t in extras.get('targets', [])
                  if target_is_lustre(t, part.get('features', []))]
        problems.append(
            f"{file}:{key}: 'lfs': not on PATH; {len(helpers['lfs'])} "
            f"case(s) set a Lustre layout on target(s) "
            f"{', '.join(lustre) or 'stage'} (the lustre feature; e.g. "
            f"{helpers['lfs'][0]}): install the Lustre client utilities, "
            f"or declare each non-Lustre target's fstype")
    for tool in sorted(({cases.case_tool(c) for c in selected} |
                        set(helpers) - {'lfs'}) - {None}):
        # Where the check looks (pfsbench.core.tools): the path a
        # partition's extras key declares (mdsrate, expanded as the check
        # expands it), and nowhere else; else its Spack view, else PATH;
        # the system's tools (dd) on PATH only.
        record = tools.get(tool)
        if record.found_by == tools.NONE:
            continue
        if record.extras_key:
            path = binaries.declared(tool, extras)
            tried = [path] if path else []
            unset = f'extras.{record.extras_key} not set'
        else:
            tried = binaries.candidates(
                tool, '', env.view if env and record.found_by == tools.SPACK
                else '')
            unset = 'no spack_view, nothing on PATH'
        if binaries.first_executable(tried) is None:
            where = ', '.join(tried) or unset
            needed = (f' (IO500\'s find phase of {len(helpers[tool])} '
                      f'case(s), e.g. {helpers[tool][0]})'
                      if tool in helpers else '')
            problems.append(f'{file}:{key}: {tool!r}: no binary ({where})'
                            f'{needed}; {binaries.build_hint(tool)}')
    return problems


def foreign_load_method(extras):
    """``(method, extras key)``: what judges foreign load on a
    partition's shared targets, the best it declares
    (:mod:`pfsbench.checks.fs_probe`), or ``(None, None)``."""
    key = attribution.method_of(extras)
    if key:
        return attribution.METHODS[key][0], key
    if extras.get('fs_counters_command'):
        return (f'whole-fs counters (own share from the case\'s quiet '
                f'runs; a fixed bound until it has '
                f'{own_share.MIN_QUIET_RUNS})', 'fs_counters_command')
    return None, None


def _local_judge(target, part):
    """What judges foreign load on a target without server-side counters:
    its block device where the client has one (not a node target's, not a
    network file system's: diskstats.has_no_client_device)."""
    if target.get('scope', 'shared') == 'node':
        return 'nothing (a node target)'
    fstype = target.get('fstype', '')
    if target_is_lustre(target, part.get('features', [])) or \
            diskstats_steps.has_no_client_device(fstype):
        return (f'nothing: {fstype or "lustre"} has no block device on the '
                f'client')
    return 'the block device, when the target is on one here'


def foreign_load_notes(part, here):
    """Per target: which method will judge foreign load, its command,
    and whether it runs from here (run only where ``here``)."""
    extras = part.get('extras', {})
    method, key = foreign_load_method(extras)
    notes = []
    for target in extras.get('targets', []):
        if method is None:
            local = _local_judge(target, part)
            notes.append(f'target {target["name"]}: foreign load judged '
                         f'by {local}; no server-side counters '
                         f'(extras.fs_clients_command, fs_job_stats_'
                         f'command or fs_counters_command)')
            continue
        if not here:
            runs = 'not run: this host is not one of the system\'s'
        else:
            try:
                parse = (attribution.METHODS[key][1]
                         if key in attribution.METHODS
                         else contention.parse_fs_counters)
                found = parse(contention.run_site_command(extras[key]),
                              extras[key])
                runs = ('runs' + (f', {len(found)} source(s) now'
                                  if isinstance(found, dict) else ''))
            except contention.CommandFailed as err:
                runs = f'FAILS: {err}'
        notes.append(f'target {target["name"]}: foreign load judged by '
                     f'{method} (extras.{key}: {extras[key]!r}; {runs})')
    return notes


def device_stats_notes(part, here):
    """Per target: where E1-E4's block-device figures come from
    (:mod:`pfsbench.checks.device_probe`), and whether a server command
    runs from here and prints device lines (run only where ``here``)."""
    extras = part.get('extras', {})
    notes = []
    for target in extras.get('targets', []):
        fstype = target.get('fstype', '')
        client, command = diskstats_steps.sample_sources(
            target['path'], fstype,
            target_is_lustre(target, part.get('features', [])),
            target.get('device_stats_command'),
            extras.get('device_stats_command'))
        key = ('targets[].device_stats_command'
               if target.get('device_stats_command') else
               'device_stats_command')
        name = f'target {target["name"]}: block-device figures (E1-E4)'
        if command is None:
            notes.append(f'{name}: ' + (
                f'none: {fstype or "lustre"} has no block device on the '
                f'client and no extras.device_stats_command is declared'
                if client is None else
                '/proc/diskstats on the client, the device of the '
                'target\'s directory'))
            continue
        runs = 'not run: this host is not one of the system\'s'
        if here:
            try:
                out = contention.run_site_command(command)
                devices = diskstats.parse(
                    f'{diskstats_steps.SAMPLE_PREFIX} '
                    f'{diskstats_steps.SERVER_HOST} 0 -\n{out}',
                    f'extras.{key}').counters
                runs = (f'runs, {len(devices)} device(s): '
                        f'{", ".join(c.name for c in devices.values())}'
                        if devices else 'FAILS: it printed no '
                        '/proc/diskstats line')
            except (contention.CommandFailed, ParseError) as err:
                runs = f'FAILS: {err}'
        notes.append(f'{name}: from the servers (extras.{key}: '
                     f'{command!r}; {runs})')
    return notes


def limit_notes(part, selected):
    """What the partition's limits skip, or cap, of the selected cases."""
    notes = time_limit_notes(part, selected)
    max_nodes = part.get('extras', {}).get('max_nodes')
    if part.get('launcher') == 'local':
        max_nodes = 1 if max_nodes is None else max_nodes
    if max_nodes is None:
        return notes
    skipped = collections.Counter(c['name'].split('%')[0].strip()
                                  for c in selected
                                  if (c.get('nodes') or 1) > max_nodes)
    if not skipped:
        return notes
    return notes + [
        f'{sum(skipped.values())} case(s) need more than '
        f'extras.max_nodes = {max_nodes} node(s) and are skipped: ' +
        ', '.join(f'{n} x {name}' for name, n in skipped.items())]


def time_limit_notes(part, selected):
    """The cases whose time limit the partition's ``time_limit`` caps (as
    the checks cap it when they run)."""
    limit = part.get('time_limit')
    if limit is None:
        return []
    allowed = validate.time_seconds(limit, part['name'], 'time_limit')
    capped = collections.Counter(c['name'].split('%')[0].strip()
                                 for c in selected
                                 if (c.get('time_limit') or 0) > allowed)
    if not capped:
        return []
    return [f'{sum(capped.values())} case(s) ask more than the partition\'s '
            f'time_limit ({limit}) and are capped to it: ' +
            ', '.join(f'{n} x {name}' for name, n in capped.items())]
