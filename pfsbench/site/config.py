# SPDX-License-Identifier: BSD-3-Clause
"""Validation of pfsbench's own site-configuration keys and scratch paths.

ReFrame checks the shape of its configuration but accepts any key in a
partition's ``extras`` and any key in ``sched_options``.  pfsbench reads its
settings from ``extras``, so this module checks them against the schema
``pfsbench/schemas/extras.json`` (each entry of ``targets`` against
``target.json``) and names the file, the key and the value on error.

Partition ``extras`` understood by pfsbench (all optional; the schema holds
each key's type, range and default):

``targets``
    list of file-system targets to benchmark, each a dict with ``name``,
    ``path`` (``$VAR`` and ``~`` are expanded), optional ``fstype``,
    ``descr``, ``mount_points`` (the same directory through other
    mounts of its file system, for mdtest ``-d a@b@...``) and ``remount``
    (the command unmounting and mounting it again, seed 000's E1-E4).  Without
    targets, a check writes into its own ReFrame stage directory (the
    ``local`` laptop default).  What a path may be:
    :func:`check_scratch_dir`, :mod:`pfsbench.site.validate`.
``drop_caches_command``
    the command that drops a node's page cache; used when the partition has
    the ``drop_caches`` feature (default: ``sync && echo 3 >
    /proc/sys/vm/drop_caches``, which needs root).
``max_nodes``
    how many nodes a job may use; larger cases of a sweep are skipped.
``max_bytes_per_stream``
    caps the source's file sizes (a 50 GB dd file is not for a laptop); the
    capped size is logged with every figure.
``ior_max_bytes_per_task``
    caps what one IOR task writes per repetition (block x segments); the
    IOR checks fall back to ``max_bytes_per_stream`` without it.  The
    capped block size and ``size_capped`` are logged with every figure.
``mdtest_max_items``
    caps the items (files and directories) of all tasks of one mdtest run;
    ``items_run_per_task`` and ``items_capped`` are logged.
``tracers``
    metadata tracers, each a dict with ``name`` and the shell commands
    ``on`` and ``off`` (E12 runs mdtest with each on, then off).
``spack_env``, ``spack_view``
    the Spack environment (its ``spack.lock`` is the provenance of every
    result) and the view whose binaries the checks run.
``independent_targets``
    ``True``: the partition's targets may be measured by several test cases
    at once.  Default ``False``: pfsbench runs one case at a time per
    target, so that no case measures another's load.
``target_lock_timeout``
    seconds (> 0) a suite run waits for another run that holds the same
    scratch root before it refuses to start; default 3600.
``nightly_budget_hours``
    the nightly's window (>= 0): ``nightly-plan``, ``render nightly`` and
    ``scripts/nightly.sh`` plan the cases and repeats that fit it; default
    2; 0: no window.

The ``local`` and ``localslurm`` systems take some of these from the
environment instead (:func:`environment_extras`).
"""

import functools
import glob
import importlib.util
import json
import os
import pwd
import re
import stat

from pfsbench import schemas
from pfsbench.core import yamlfile
from pfsbench.core.errors import ConfigError, shown_path
from pfsbench.site import references, rundir, validate

#: The schema of a partition's ``extras`` (``pfsbench/schemas/``).
EXTRAS_SCHEMA = 'extras.json'


def extras_value(extras, key):
    """A partition's ``extras`` value, or the schema's default for it.

    Args:
        extras: the partition's ``extras`` dict (validated).
        key: a key with a ``default`` in the schema
            (``independent_targets``, ``target_lock_timeout``).

    Returns:
        ``extras[key]`` if set, else the default.
    """
    if key in extras:
        return extras[key]

    return schemas.default(EXTRAS_SCHEMA, key)


def environment_extras():
    """Partition ``extras`` set from environment variables.

    For the systems that live on a developer's machine (``local``,
    ``localslurm``), whose scratch directory and Spack build differ per
    machine:

    ``PFSBENCH_SCRATCH``
        a directory to benchmark (target ``scratch``); without it the checks
        write into their stage directory.
    ``PFSBENCH_SPACK_ENV``
        a Spack environment directory (``spack_env``), for example
        ``spack-repo/environments/local/default`` after ``spack install``.
    ``PFSBENCH_SPACK_VIEW``
        its view (``spack_view``); default ``<env>/.spack-env/view``, the
        view root the pfsbench environments declare.
    ``PFSBENCH_TARGET_LOCK_TIMEOUT``
        seconds a run waits for another run on the same scratch root
        (``target_lock_timeout``; a number).

    Returns:
        a dict to merge into a partition's ``extras``.
    """
    extras = {}
    timeout = os.environ.get('PFSBENCH_TARGET_LOCK_TIMEOUT')
    if timeout:
        try:
            extras['target_lock_timeout'] = float(timeout)
        except ValueError:
            raise ConfigError('environment', 'PFSBENCH_TARGET_LOCK_TIMEOUT',
                              timeout, 'expected a number of seconds') \
                from None
    scratch = os.environ.get('PFSBENCH_SCRATCH')
    if scratch:
        extras['targets'] = [{'name': 'scratch', 'path': scratch,
                              'descr': 'PFSBENCH_SCRATCH'}]
    env_dir = os.environ.get('PFSBENCH_SPACK_ENV')
    if env_dir:
        extras['spack_env'] = env_dir
        extras['spack_view'] = (os.environ.get('PFSBENCH_SPACK_VIEW') or
                                os.path.join(env_dir, '.spack-env', 'view'))
    return extras


@functools.lru_cache(maxsize=None)
def reframe_schema():
    """ReFrame's own configuration schema (``reframe/schemas/config.json``
    of the installed ReFrame)."""
    import reframe
    schema = os.path.join(os.path.dirname(reframe.__file__), 'schemas',
                          'config.json')
    with open(schema) as fp:
        return json.load(fp)


def _sched_option_keys():
    """The ``sched_options`` keys ReFrame's own schema knows."""
    return set(reframe_schema()['defs']['sched_options']['properties'])


def _named(entries, index):
    """``[name]`` of ``entries[index]`` if it has a string name, else
    ``.index``: how messages name a system or a partition."""
    try:
        name = entries[index].get('name')
    except (IndexError, TypeError, AttributeError):
        name = None
    return f'[{name}]' if isinstance(name, str) else f'.{index}'


def named_key(site_configuration, path):
    """The dotted key of ``path`` in a ``site_configuration``, with systems
    and partitions named by name: ``['systems', 0, 'partitions', 1,
    'max_jobs']`` is ``systems[hawk].partitions[login].max_jobs``.

    Args:
        site_configuration: the dict the path points into.
        path: the keys and indexes from its top.

    Returns:
        the key as a string.
    """
    text, node = '', site_configuration
    for i, step in enumerate(path):
        prev = path[i - 1] if i else None
        if isinstance(step, int) and prev in ('systems', 'partitions'):
            text += _named(node, step)
        else:
            text += ('.' if text else '') + str(step)
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            node = None
    return text


def find_partitions(systems, spec, require_partition=False):
    """The system and partitions ``NAME[:PARTITION]`` selects.

    Args:
        systems: the system dicts (``site_configuration['systems']``).
        spec: ``NAME`` (every partition) or ``NAME:PARTITION``.
        require_partition: refuse a bare ``NAME`` (a nightly, a job
            script: each partition is a different job).

    Returns:
        ``(system, [partition, ...])``.

    Raises:
        ConfigError: no such system or partition, naming the known ones.
    """
    name, _, part_name = spec.partition(':')
    by_name = {s['name']: s for s in systems}
    if name not in by_name:
        raise ConfigError('<command line>', '--system', spec,
                          'no such system; known: ' +
                          ', '.join(sorted(by_name)))
    parts = by_name[name].get('partitions', [])
    if not part_name and require_partition:
        raise ConfigError('<command line>', '--system', spec,
                          'give NAME:PARTITION (' +
                          ', '.join(f'{name}:{p["name"]}' for p in parts) +
                          "): a system's partitions run different jobs")
    chosen = [p for p in parts if p['name'] == part_name or not part_name]
    if not chosen:
        raise ConfigError('<command line>', '--system', spec,
                          f'no partition {part_name!r} in {name}; known: ' +
                          ', '.join(p['name'] for p in parts))
    return by_name[name], chosen


def partition_key(system, partition):
    """``systems[NAME].partitions[NAME]``: a partition in messages."""
    return f'systems[{system["name"]}].partitions[{partition["name"]}]'


def validate_reframe_schema(site_configuration, file):
    """Check a system file's ``systems`` against ReFrame's own schema,
    which ReFrame applies only to the merged configuration, with a
    message naming neither file nor key.

    Raises:
        ConfigError: the first problem, naming file, key and value
            (``...partitions[compute].max_jobs: 'eight': expected a
            number``).
    """
    schema = reframe_schema()
    systems_schema = dict(schema['properties']['systems'],
                          defs=schema['defs'])
    document = site_configuration.get('systems', [])
    schemas.check_foreign(
        document, systems_schema, file,
        lambda path: [named_key(site_configuration, ['systems'] +
                                list(path))])


def validate_extras(extras, file, where):
    """Check a partition's ``extras`` against its schema.

    Types, ranges and known keys come from ``extras.json`` and
    ``target.json``; target names must also be unique in the partition.

    Args:
        extras: the dict.
        file: the configuration file, for the message.
        where: the dotted key of the extras
            (``systems[hawk].partitions[compute].extras``).

    Raises:
        ConfigError: an unknown key, a wrong type or range, a malformed
            target or a duplicate target name.
    """
    schemas.check(extras, EXTRAS_SCHEMA, file, where)
    names = set()
    for i, target in enumerate(extras.get('targets', [])):
        if target['name'] in names:
            raise ConfigError(file, f'{where}.targets.{i}.name',
                              target['name'], 'duplicate target name (the '
                              'first is targets[' + target['name'] + '])')

        names.add(target['name'])


def validate_site_configuration(site_configuration, file):
    """Validate pfsbench's keys in a ReFrame ``site_configuration`` dict.

    Checks every partition's ``extras`` and every ``sched_options`` key of
    systems and partitions (ReFrame ignores unknown ones silently), and
    what partitions and environments put into job scripts (``access``,
    ``env_vars``, ``modules``, target paths: :mod:`pfsbench.site.validate`).

    Args:
        site_configuration: the dict ReFrame will load.
        file: the file it came from, for messages.

    Returns:
        the same dict, so a config file can end with
        ``site_configuration = validate_site_configuration({...}, __file__)``.

    Raises:
        ConfigError: the first problem found.
    """
    sched_keys = _sched_option_keys()

    def check_sched_options(entry, key):
        for name, value in entry.get('sched_options', {}).items():
            if name not in sched_keys:
                raise ConfigError(file, f'{key}.sched_options.{name}', value,
                                  'unknown sched_options key (ReFrame would '
                                  'ignore it)')

    validate_reframe_schema(site_configuration, file)
    for system in site_configuration.get('systems', []):
        check_sched_options(system, f'systems[{system["name"]}]')
        for part in system.get('partitions', []):
            pkey = partition_key(system, part)
            check_sched_options(part, pkey)
            validate_extras(part.get('extras', {}), file, f'{pkey}.extras')
            # What the partition writes into every job script.
            validate.site_partition(part, file, pkey)
            _check_launcher(part.get('launcher'), file, f'{pkey}.launcher')
            if part.get('time_limit') is not None:
                # ReFrame takes any string; the checks cap their jobs to
                # it, so a form no one reads must stop here, named.
                validate.time_limit(part['time_limit'], file,
                                    f'{pkey}.time_limit')
    for env in site_configuration.get('environments', []):
        validate.site_partition(env, file, f'environments[{env["name"]}]')

    return site_configuration


def _check_launcher(launcher, file, key):
    """A launcher is a name ReFrame knows, without arguments (ReFrame
    says only "no such launcher" at the first case, after check-config's
    other checks)."""
    if not isinstance(launcher, str) or len(launcher.split()) <= 1:
        return
    mpi = re.search(r'--mpi[= ](\S+)', launcher)
    where = (f"; srun's --mpi={mpi[1]} belongs in the partition's env_vars:"
             f" ['SLURM_MPI_TYPE', '{mpi[1]}']" if mpi else
             '; options of the launcher belong in env_vars (SLURM_* '
             'variables for srun) or the partition\'s access')
    raise ConfigError(file, key, launcher,
                      f"a launcher is one of ReFrame's launcher names "
                      f"(srun, mpirun, local, ...), without arguments"
                      f"{where}")


def one_case_at_a_time(site_configuration, file):
    """Give every partition ``max_jobs: 1`` unless its targets are
    independent (``extras.independent_targets``): ReFrame's default of
    several jobs at once would have cases measure each other's load
    (:mod:`pfsbench.site.exclusive`).

    Raises:
        ConfigError: a partition asks for more than one job at a time
            without saying that its targets are independent.
    """
    for system in site_configuration.get('systems', []):
        for part in system.get('partitions', []):
            if extras_value(part.get('extras', {}), 'independent_targets'):
                continue

            max_jobs = part.setdefault('max_jobs', 1)
            if max_jobs != 1:
                raise ConfigError(
                    file, f'{partition_key(system, part)}.max_jobs',
                    max_jobs, 'more than one case at a time would measure '
                    'contention on the same targets; set '
                    'extras.independent_targets: True if the partition\'s '
                    'targets are independent')


#: Directories of the operating system: never a scratch root, nor anything
#: below them (but :data:`TEMPORARY_DIRECTORIES`).
SYSTEM_DIRECTORIES = ('/bin', '/boot', '/dev', '/etc', '/lib', '/lib32',
                      '/lib64', '/libx32', '/proc', '/run', '/sbin', '/sys',
                      '/usr', '/var')
#: Shared temporary directories: a directory below one may be a scratch
#: root, the directory itself holds every user's files and may not.
TEMPORARY_DIRECTORIES = ('/tmp', '/var/tmp', '/dev/shm')
#: Directories whose every sub-directory is a home, whether or not this
#: host's passwd knows the user (a job script rendered for a cluster).
HOME_PARENTS = ('/home', '/Users')
#: Entries of a scratch root that pfsbench itself creates (run directories
#: are recognised by their marker, :mod:`pfsbench.site.rundir`), or that a
#: fresh file system holds.
OWN_ENTRIES = ('.pfsbench-lock', 'lost+found')
#: How many entries of a scratch root are looked at for foreign files: a
#: root with more is refused anyway (a directory of one's own for the
#: suite does not grow that big; it is emptied after every run).
SCAN_LIMIT = 1000


def home_directories():
    """Every home directory this host knows of (passwd and ``$HOME``)."""
    homes = {os.path.realpath(os.path.expanduser('~'))}
    try:
        homes.update(os.path.realpath(p.pw_dir) for p in pwd.getpwall()
                     if p.pw_dir not in ('', '/'))
    except OSError:
        pass

    homes.discard('/')
    return homes


def _below(path, directory):
    return path == directory or path.startswith(directory + '/')


def system_directory(real):
    """The system directory ``real`` is or lies below, or None.

    Args:
        real: a resolved absolute path.
    """
    if any(_below(real, t) and real != t for t in TEMPORARY_DIRECTORIES):
        return None

    return next((d for d in SYSTEM_DIRECTORIES if _below(real, d)), None)


def foreign_entry(real, uid=None):
    """Why ``real`` holds files that are not the suite's, or None.

    A scratch root must be a directory of the user running the suite: the
    suite writes only its own marked run directories there, and a root
    shared with other users (mode 1777 and another user's, or entries
    owned by another user) is where a wrong path does most harm.  Files
    of the same user are the user's business and stay untouched, as do
    other users' pfsbench run directories and lock (a team may share one
    root for the suite).

    Args:
        real: an existing directory (resolved).
        uid: the user the suite runs as (default: this process's).

    Returns:
        a reason, or None.
    """
    uid = os.geteuid() if uid is None else uid
    info = os.stat(real)
    if (info.st_mode & stat.S_ISVTX and info.st_mode & stat.S_IWOTH and
            info.st_uid != uid):
        # A fresh tmpfs mount is 1777 too, but its mounter's own.
        return (f'is shared by every user (mode 1777, owner uid '
                f'{info.st_uid}, as /tmp); give a directory of your own '
                f'below it')

    with os.scandir(real) as entries:
        for count, entry in enumerate(entries):
            if count >= SCAN_LIMIT:
                return (f'holds more than {SCAN_LIMIT} entries; give a '
                        f'directory of its own to pfsbench')
            if entry.name in OWN_ENTRIES or rundir.is_run_dir(entry.path):
                continue
            owner = entry.stat(follow_symlinks=False).st_uid
            if owner != uid:
                return (f'holds {entry.name!r} of another user (uid '
                        f'{owner}); give a directory of your own to '
                        f'pfsbench')
    return None


#: What a node target's path may name, expanded on each node of a job
#: (pfsbench.site.rundir.NODE_NAME_VAR); a placeholder while checked here.
_NODE_NAME = re.compile(r'\$(?:SLURMD_NODENAME\b|\{SLURMD_NODENAME\})')
_NODE_NAME_HELD = '@pfsbench-node-name@'


def node_scratch_dir(path, source, field, must_exist=True):
    """Resolve a node target's directory (``scope: node``): as
    :func:`check_scratch_dir`, but it is a directory of each node of a job,
    not of this host, so it need not exist here, and ``$SLURMD_NODENAME``
    stays for the node to expand (written ``$SLURMD_NODENAME`` whatever
    this host's own value: a driver inside a Slurm job has one).

    Args:
        must_exist: every other ``$VARIABLE`` must be set here (a real
            run; a dry run renders the path as it is).
    """
    held = _NODE_NAME.sub(_NODE_NAME_HELD, path)
    expanded = os.path.expandvars(os.path.expanduser(held))
    if '$' in expanded and must_exist:
        raise ConfigError(source, field, path,
                          'has an undefined environment variable')

    real = check_scratch_dir(expanded, source, field, must_exist=False)
    return real.replace(_NODE_NAME_HELD, '$SLURMD_NODENAME')


def check_scratch_dir(path, source, field, must_exist=True):
    """Resolve a scratch directory and refuse a dangerous or unusable one.

    pfsbench creates its own marked run directories under the scratch
    directory and deletes only those (:mod:`pfsbench.site.rundir`), but a wrong
    path is refused before any job is submitted: it must be neither ``/``,
    a home directory (a passwd home, or any directory directly under
    :data:`HOME_PARENTS`), a system directory or anything below one
    (:data:`SYSTEM_DIRECTORIES`, but below :data:`TEMPORARY_DIRECTORIES`),
    nor a shared temporary directory itself; where it must exist, it must
    be a writable directory of the user running the suite
    (:func:`foreign_entry`).

    Args:
        path: the configured path (``$VAR`` and ``~`` are expanded).
        source: where the path was configured (file or partition name).
        field: the key that holds it.
        must_exist: also check that it exists, is writable and holds no
            foreign files here (off for job scripts rendered for another
            machine).

    Returns:
        the resolved absolute path.

    Raises:
        ConfigError: naming source, field and value.
    """
    expanded = os.path.expandvars(os.path.expanduser(path))
    if '$' in expanded and must_exist:
        raise ConfigError(source, field, path,
                          'has an undefined environment variable')

    real = os.path.realpath(expanded)
    if real == '/':
        raise ConfigError(source, field, path, 'is the root directory')

    if real in TEMPORARY_DIRECTORIES:
        raise ConfigError(source, field, path,
                          'is shared by every user; give a directory of '
                          'your own below it')

    system = system_directory(real)
    if system is not None:
        raise ConfigError(source, field, path,
                          f'is {"below " if real != system else ""}the '
                          f'system directory {system}; give a scratch '
                          f'directory')

    if (real in home_directories() or
            os.path.dirname(real) in HOME_PARENTS):
        raise ConfigError(source, field, path,
                          'is a home directory; give a scratch directory')

    if not must_exist:
        return real

    try:
        os.stat(real)
    except PermissionError:
        raise ConfigError(source, field, path, 'cannot be reached: '
                          'permission denied on it or a parent '
                          'directory') from None
    except OSError:
        raise ConfigError(source, field, path, 'does not exist') from None

    if not os.path.isdir(real):
        raise ConfigError(source, field, path, 'is not a directory')

    if not os.access(real, os.W_OK | os.X_OK):
        if os.statvfs(real).f_flag & os.ST_RDONLY:
            raise ConfigError(source, field, path,
                              'is on a read-only file system')
        raise ConfigError(source, field, path, 'is not writable (permission '
                          'denied for this user)')

    foreign = foreign_entry(real)
    if foreign is not None:
        raise ConfigError(source, field, path, foreign)

    return real


#: Packages a site file copied from an older pfsbench may import, and
#: where what it took from them lives now (docs/systems.md, "Upgrading a
#: site file").
MOVED = {
    'pfsbench.runs': 'lustre_job_stats_command is in '
                     'pfsbench.load.attribution',
}


def _load_module(path):
    name = 'pfsbench_config_' + os.path.basename(path)[:-3]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ModuleNotFoundError as err:
        if err.name not in MOVED:
            raise
        raise ConfigError(shown_path(path), 'import', err.name,
                          f'moved: {MOVED[err.name]} (docs/systems.md, '
                          f'"Upgrading a site file")') from None
    return module


def system_files(config_dir):
    """The system files of a config directory, ``systems/*.py``, sorted."""
    return sorted(glob.glob(os.path.join(config_dir, 'systems', '*.py')))


def load_system_file(path):
    """One system file's ``site_configuration``, validated
    (:func:`validate_site_configuration`, :func:`one_case_at_a_time`).

    Raises:
        ConfigError: naming the file, key and value.
    """
    try:
        site = _load_module(path).site_configuration
    except AttributeError:
        raise ConfigError(shown_path(path), 'site_configuration',
                          None, 'missing') from None

    validate_site_configuration(site, shown_path(path))
    one_case_at_a_time(site, shown_path(path))
    return site


def load_site_configuration(config_dir, systems=None):
    """Merge ``common.py`` and ``systems/*.py`` of a config directory.

    Every system file is validated with :func:`validate_site_configuration`;
    ``local`` (which matches every host) is placed last.

    Args:
        config_dir: the directory holding ``common.py`` and ``systems/``.
        systems: names of the systems to keep (default: all).

    Returns:
        (the merged ``site_configuration`` dict, the common module).

    Raises:
        ConfigError: naming the system file, key and value.
    """
    common = _load_module(os.path.join(config_dir, 'common.py'))
    config = dict(common.site_configuration)
    for env in config.get('environments', []):
        # What an environment puts into every job script.
        validate.site_partition(env, shown_path(common.__file__),
                                f'environments[{env.get("name")}]')
    merged = []
    for path in system_files(config_dir):
        for system in load_system_file(path).get('systems', []):
            if not systems or system['name'] in systems:
                system.setdefault('prefix', common.RUNS)
                merged.append(system)

    merged.sort(key=lambda s: s['name'] == 'local')
    config['systems'] = merged
    return config, common


#: The schema of a reference file, and of one reference in it.
REFERENCES_SCHEMA = 'references.json'
REFERENCE_TUPLE_SCHEMA = 'references.json#/$defs/reference'


def validate_reference_file(path, partitions=None):
    """Check a ``config/references/<system>.yaml`` file.

    Each top-level key is a check class; under it an optional ``$index``
    (a list of attribute names) and as many levels of keys as the index has
    entries, then ``variable: [value, lower, upper, unit]`` with ``lower <=
    0 <= upper`` (either may be null), or ``['$xfail', reason, [...]]``.
    The schema ``references.json`` defines the file and each reference;
    the depth of the levels and the partition names are checked here.

    Args:
        path: the YAML file.
        partitions: known ``system:partition`` names, to check a
            ``$partition`` index level against (optional).

    Returns:
        the number of reference tuples found.

    Raises:
        ConfigError: naming the file, the dotted key and the value.
    """
    import yaml

    rel = shown_path(path)
    try:
        with open(path) as fp:
            data = yamlfile.safe_load(fp)
    except yaml.YAMLError as err:
        mark = getattr(err, 'problem_mark', None)
        where = f'line {mark.line + 1}' if mark else '?'
        raise ConfigError(rel, where, getattr(err, 'problem', str(err)),
                          'not valid YAML') from None
    except OSError as err:
        raise ConfigError(rel, '-', path, err.strerror) from None

    # A partition's {'$paper': ...} becomes the figures it selects first.
    data = references.expand_papers(data, rel)
    schemas.check(data, REFERENCES_SCHEMA, rel)
    count = 0
    for check, body in (data or {}).items():
        levels = body.get('$index') or ['$partition']
        entries = {k: v for k, v in body.items() if k != '$index'}
        count += _validate_ref_level(rel, check, entries, levels,
                                     partitions)

    return count


def _validate_ref_level(rel, key, node, levels, partitions):
    """Walk one level of a check's references: as deep as its ``$index``,
    then ``variable: reference``; return the number of references."""
    if not levels:
        if not isinstance(node, dict):
            raise ConfigError(rel, key, node,
                              'expected variable: [value, lower, upper, '
                              'unit]')
        for var, ref in node.items():
            schemas.check(ref, REFERENCE_TUPLE_SCHEMA, rel, f'{key}.{var}',
                          whole=True)
        return len(node)

    if not isinstance(node, dict):
        raise ConfigError(rel, key, node,
                          f'expected a mapping keyed by {levels[0]}')

    count = 0
    for subkey, sub in node.items():
        if (levels[0] == '$partition' and partitions is not None and
                subkey not in partitions and subkey != '*'):
            raise ConfigError(rel, f'{key}.{subkey}', subkey,
                              'unknown system:partition; known: ' +
                              ', '.join(sorted(partitions)))
        count += _validate_ref_level(rel, f'{key}.{subkey}', sub, levels[1:],
                                     partitions)
    return count
