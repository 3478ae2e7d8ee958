# SPDX-License-Identifier: BSD-3-Clause
"""Values that reach a job script: each stays one inert word, or is refused.

One module for ``pfsbench render``, the checks' ``-S``/``-P`` values
(:func:`check_variables`) and the site configuration
(:func:`site_partition`), so the three cannot disagree.  Every refusal is a
:class:`pfsbench.core.errors.ConfigError` naming where the value came from, the
field and the value, and saying what is allowed.

The rules (docs/hostile-values.md explains them for site admins):

words
    names, sizes, paths of tools, tags, module names: letters, digits and
    ``_ @ % + = : , . / ~ -``.  Nothing a shell treats specially (no
    spaces, quotes, ``$``, ``;``, ``&``, ``|``, ``<``, ``>``, ``*``,
    ``?``, brackets, backslashes, control characters).
paths of targets
    the same characters, plus ``$NAME`` and ``${NAME}``: a site writes
    ``/lustre/scratch/$USER/pfsbench`` once for every user, and the job
    expands it on the cluster.  Command substitution (``$(...)``,
    backticks), ``${NAME:-...}`` and every other ``$`` form are refused.
values of environment variables
    as paths of targets (``PATH=/opt/x/bin:$PATH`` stays possible).
``#SBATCH`` options
    one option (``-x`` or ``--name``, then ``=value`` or `` value``, the
    value without spaces: sbatch reads every option of a line); no
    control characters (a newline would start a line above the
    ``#SBATCH`` lines, so Slurm would ignore them), no quotes, no
    backslash, no ``$``, no backtick and no ``;``.  ``&``, ``|``, ``*``
    and brackets stay allowed: ``--constraint`` uses them, and ``#SBATCH``
    lines are read by sbatch, never run by a shell.
numbers
    node, task, stream and process counts, sizes, counts and repeats are
    whole numbers of at least 1; other whole-number knobs at least 0.
times
    Slurm's formats: ``MM``, ``MM:SS``, ``HH:MM:SS``, ``D-HH``,
    ``D-HH:MM``, ``D-HH:MM:SS``, more than zero (Slurm reads 0 as no
    limit).
"""

import difflib
import math
import re

from pfsbench.commands.srun import OVERCOMMIT
from pfsbench.core.errors import ConfigError

#: Characters of a word (see the module docstring).
WORD_CHARS = '_@%+=:,./~-'
#: ``$NAME`` or ``${NAME}``: expanded by the job's shell on the cluster.
_NAME = r'[A-Za-z_][A-Za-z0-9_]*'
_VARIABLE = re.compile(rf'\$(?:{_NAME}|\{{{_NAME}\}})')
_CHAR_NAMES = {'\n': 'a newline', '\r': 'a carriage return',
               '\t': 'a tab', ' ': 'a space', '\x00': 'a NUL byte'}
_ENV_NAME = re.compile(_NAME + r'\Z')
_SBATCH_OPTION = re.compile(r'(?:-[A-Za-z]|--[A-Za-z][A-Za-z0-9-]*)'
                            r'(?:[= ](?P<value>.*))?\Z', re.S)
#: What an ``#SBATCH`` option's value must not contain.
_SBATCH_REFUSED = '"\'\\$`;'
_SIZE = re.compile(r'(?P<number>[0-9]+)(?P<unit>[kKmMgGtT]?)\Z')
_TIME_FORMATS = (
    re.compile(r'(?P<m>\d+)\Z'),
    re.compile(r'(?P<m>\d+):(?P<s>\d+)\Z'),
    re.compile(r'(?P<h>\d+):(?P<m>\d+):(?P<s>\d+)\Z'),
    re.compile(r'(?P<d>\d+)-(?P<h>\d+)\Z'),
    re.compile(r'(?P<d>\d+)-(?P<h>\d+):(?P<m>\d+)\Z'),
    re.compile(r'(?P<d>\d+)-(?P<h>\d+):(?P<m>\d+):(?P<s>\d+)\Z'),
)
SLURM_TIME_FORMATS = 'MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS'


def _describe(char):
    if char in _CHAR_NAMES:
        return _CHAR_NAMES[char]

    if ord(char) < 0x20 or ord(char) == 0x7f:
        return f'the control character {char!r}'

    return repr(char)


def _first_refused(value, allowed):
    """The first character of ``value`` that ``allowed`` (a compiled
    pattern of one allowed token) does not cover, or None."""
    pos = 0
    while pos < len(value):
        match = allowed.match(value, pos)
        if not match or match.end() == pos:
            return value[pos:pos + 2]

        pos = match.end()
    return None


_WORD_TOKEN = re.compile(r'[A-Za-z0-9' + re.escape(WORD_CHARS) + r']+')
_PATH_TOKEN = re.compile(_WORD_TOKEN.pattern + '|' + _VARIABLE.pattern)


def _refuse_chars(value, source, field, allowed, what):
    bad = _first_refused(value, allowed)
    if bad is None:
        return

    if bad.startswith('$(') or bad[0] == '`':
        why = 'command substitution'
    elif bad[0] == '$' and allowed is _PATH_TOKEN:
        why = "'$' not followed by NAME or {NAME}"
    else:
        why = _describe(bad[0])
    raise ConfigError(source, field, value, f'contains {why}; {what}')


def _text(value, source, field):
    if not isinstance(value, str):
        raise ConfigError(source, field, value, 'expected a string')

    return value


def word(value, source, field):
    """A name, size, tool path or tag: one word a shell leaves alone.

    Args:
        value: the value.
        source: where it was given (a file, ``<command line>``, a test).
        field: the key or option that holds it.

    Returns:
        ``value``.

    Raises:
        ConfigError: anything but the characters of a word.
    """
    _text(value, source, field)
    if value:
        _refuse_chars(value, source, field, _WORD_TOKEN,
                      f'allowed: letters, digits and {WORD_CHARS}')
    return value


def words(value, source, field):
    """Words separated by single spaces (a list the job splits).

    Raises:
        ConfigError: a word with other characters, or other white space.
    """
    _text(value, source, field)
    for part in value.split(' ') if value else ():
        if not part:
            raise ConfigError(source, field, value,
                              'contains an empty word (two spaces in a row, '
                              'or a space at an end)')
        _refuse_chars(part, source, field, _WORD_TOKEN,
                      f'allowed: words of letters, digits and {WORD_CHARS}'
                      f', separated by single spaces')
    return value


def path(value, source, field):
    """A target path: word characters plus ``$NAME``/``${NAME}``, which the
    job expands on the cluster.

    Raises:
        ConfigError: empty, or any other character or ``$`` form.
    """
    _text(value, source, field)
    if not value:
        raise ConfigError(source, field, value, 'empty path')

    _refuse_chars(value, source, field, _PATH_TOKEN,
                  f'allowed: letters, digits, {WORD_CHARS} and $NAME or '
                  f'${{NAME}} (expanded on the cluster)')
    # A job runs in its own stage directory, on another node: a relative
    # path would name a different directory in every job.
    if not value.startswith(('/', '~', '$')):
        raise ConfigError(source, field, value,
                          'is a relative path, which no job could use; '
                          'give an absolute path (or one starting with '
                          '$VARIABLE, e.g. $SCRATCH/pfsbench)')
    return value


def command(value, source, field):
    """A shell command the site configures on purpose (the drop-caches
    command): passed as one quoted word, so only control characters, which
    would break the job script's lines, are refused.

    Raises:
        ConfigError: a control character.
    """
    _text(value, source, field)
    for char in value:
        if ord(char) < 0x20 or ord(char) == 0x7f:
            raise ConfigError(source, field, value,
                              f'contains {_describe(char)}')
    return value


#: Options of srun that sbatch does not take, and where they belong.
SRUN_ONLY_OPTIONS = {
    '--mpi': "the MPI plugin belongs in the partition's env_vars: "
             "['SLURM_MPI_TYPE', '{value}'] (srun reads it)",
    '--cpu-bind': "srun's binding belongs in env_vars: "
                  "['SLURM_CPU_BIND', '{value}']",
}


def sbatch_option(value, source, field):
    """One ``#SBATCH`` option (``--qos=io``, ``-A proj``).

    Raises:
        ConfigError: not an option, an option of srun that sbatch does not
            take (:data:`SRUN_ONLY_OPTIONS`), or a character the module
            docstring lists as refused.
    """
    command(value, source, field)
    match = _SBATCH_OPTION.match(value)
    if not match:
        raise ConfigError(source, field, value,
                          'expected one option: -x or --name, then =value '
                          'or a space and the value')
    name = value.split('=', 1)[0].split(' ', 1)[0]
    if name in SRUN_ONLY_OPTIONS:
        where = SRUN_ONLY_OPTIONS[name].format(
            value=(match['value'] or 'VALUE').strip())
        raise ConfigError(source, field, value,
                          f'an srun option, not an #SBATCH one; {where}')
    for char in match['value'] or '':
        if char == ' ':
            raise ConfigError(source, field, value,
                              'contains a space in its value: sbatch would '
                              'read a second option; give one option each')
        if char in _SBATCH_REFUSED:
            raise ConfigError(source, field, value,
                              f'contains {_describe(char)}; refused in '
                              f'#SBATCH options: quotes, backslash, $, '
                              f'backtick and ;')
    return value


#: MPI plugin names of Slurm's srun --mpi (20.11-24.05): a value close to
#: one of these but not one is a typo (SLURM_MPI_TYPE=pmx).  Others may be
#: a site's own plugin: check-config asks srun --mpi=list on the cluster.
SLURM_MPI_PLUGINS = ('none', 'pmi2', 'pmix', 'pmix_v2', 'pmix_v3',
                     'pmix_v4', 'pmix_v5', 'cray_shasta')


def slurm_mpi_type(value, source, field):
    """A ``SLURM_MPI_TYPE`` value: a known plugin, or not a near miss of
    one.

    Raises:
        ConfigError: a value within two letters of a known plugin name.
    """
    value = str(value)
    if (value in SLURM_MPI_PLUGINS or re.fullmatch(r'pmix_v[0-9]+', value)
            or '$' in value):
        return value
    close = difflib.get_close_matches(value.lower(), SLURM_MPI_PLUGINS,
                                      n=1, cutoff=0.6)
    if close:
        raise ConfigError(source, field, value,
                          f"not a Slurm MPI plugin; did you mean "
                          f"'{close[0]}'? (srun --mpi=list lists a "
                          f"cluster's: {', '.join(SLURM_MPI_PLUGINS)} are "
                          f"Slurm's own)")
    return value


def env_var(name, value, source, field):
    """An environment variable the job exports: a shell name, and a value
    of path characters (``$NAME`` allowed).

    Raises:
        ConfigError: a bad name or value.
    """
    if not isinstance(name, str) or not _ENV_NAME.match(name):
        raise ConfigError(source, field, name,
                          'not an environment variable name '
                          '([A-Za-z_][A-Za-z0-9_]*)')
    value = str(value)
    if value:
        _refuse_chars(value, source, f'{field}.{name}', _PATH_TOKEN,
                      f'allowed: letters, digits, {WORD_CHARS} and $NAME '
                      f'or ${{NAME}}')
    return name, value


def positive_int(value, source, field):
    """A count or size: a whole number of at least 1.

    Raises:
        ConfigError: anything else (``0`` included: no silent default).
    """
    return _int_at_least(value, 1, source, field)


def non_negative_int(value, source, field):
    """A whole number of at least 0 (0 often means the tool's default).

    Raises:
        ConfigError: a negative number or not a whole number.
    """
    return _int_at_least(value, 0, source, field)


def _int_at_least(value, low, source, field):
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(source, field, value, 'expected a whole number')

    if value < low:
        raise ConfigError(source, field, value, f'must be at least {low}')

    return value


def positive_number(value, source, field):
    """A duration or ratio: a number above 0.

    Raises:
        ConfigError: anything else.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(source, field, value, 'expected a number')

    if not value > 0:
        raise ConfigError(source, field, value, 'must be more than 0')

    return value


def budget_hours(value, source, field):
    """A night window in hours: a finite number of at least 0 (0: no
    window, the whole selection).  ``--budget`` of ``nightly-plan`` and
    ``render nightly`` both take it.

    Raises:
        ConfigError: a negative number, ``nan`` or infinity.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(source, field, value, 'expected a number of hours')

    if not (math.isfinite(value) and value >= 0):
        raise ConfigError(source, field, value,
                          'expected hours, 0 or more, e.g. 2 (0: no '
                          'budget, the whole selection)')

    return value


def size(value, source, field, zero=False):
    """A tool size: digits and an optional k/m/g/t, more than 0
    (``4k``, ``1m``, ``47008``).

    Args:
        zero: also allow ``0`` (Lustre's "the file system's default").

    Raises:
        ConfigError: anything else.
    """
    _text(value, source, field)
    match = _SIZE.match(value)
    if not match or (int(match['number']) == 0 and not
                     (zero and value == '0')):
        raise ConfigError(source, field, value,
                          f'expected a size {"of 0 or " if zero else ""}'
                          f'above 0: digits and an optional unit k, m, g or '
                          f't (4k, 1m, 47008)')
    return value


def slurm_time(value, source, field):
    """A Slurm time limit in one of :data:`SLURM_TIME_FORMATS`.

    Raises:
        ConfigError: another format, minutes or seconds above 59 where
            they follow a larger unit, hours above 23 after days, or zero.
    """
    _text(value, source, field)
    for pattern in _TIME_FORMATS:
        match = pattern.match(value)
        if not match:
            continue

        parts = {k: int(v) for k, v in match.groupdict().items()
                 if v is not None}
        # The first field of a format may be any size (90 minutes);
        # the ones after a larger unit are clock fields.
        limits = {'h': 24 if 'd' in parts else None,
                  'm': 60 if ('h' in parts) else None,
                  's': 60}
        for key, limit in limits.items():
            if limit is not None and parts.get(key, 0) >= limit:
                raise ConfigError(source, field, value,
                                  f'a Slurm time ({SLURM_TIME_FORMATS}) '
                                  f'with a field out of range')
        if not any(parts.values()):
            raise ConfigError(source, field, value,
                              'must be more than zero (Slurm reads 0 as '
                              'no limit)')
        return value

    raise ConfigError(source, field, value,
                      f'expected a Slurm time: {SLURM_TIME_FORMATS}')


def module_name(value, source, field):
    """A module the job loads (``gcc/12.2.0``, ``ior@3.3.0``).

    Raises:
        ConfigError: not a word.
    """
    if isinstance(value, dict):
        value = value.get('name', '')
    return word(value, source, field)


def site_partition(partition, source, key):
    """Check what a partition (or environment) of a site configuration
    puts into job scripts: ``access`` (``#SBATCH`` options: partition,
    account, QoS...), ``env_vars``, ``modules``, ``prepare_cmds`` aside
    (site commands, run as written).

    Args:
        partition: the partition or environment dict.
        source: the configuration file.
        key: its dotted key (``systems[hawk].partitions[compute]``;
            empty: the fields are named alone).

    Raises:
        ConfigError: naming the file, key and value.
    """
    def at(sub):
        return f'{key}.{sub}' if key else sub

    for i, option in enumerate(partition.get('access', [])):
        sbatch_option(option, source, at(f'access.{i}'))
    for i, pair in enumerate(partition.get('env_vars', [])):
        if len(pair) != 2:
            raise ConfigError(source, at(f'env_vars.{i}'), pair,
                              'expected [name, value]')
        env_var(pair[0], pair[1], source, at('env_vars'))
        if pair[0] == 'SLURM_MPI_TYPE':
            slurm_mpi_type(pair[1], source, at('env_vars.SLURM_MPI_TYPE'))
    for i, module in enumerate(partition.get('modules', [])):
        module_name(module, source, at(f'modules.{i}'))
    extras = partition.get('extras', {})
    for i, target in enumerate(extras.get('targets', [])):
        if isinstance(target, dict) and 'path' in target:
            name = target.get('name') or i
            path(target['path'], source,
                 at(f'extras.targets[{name}].path'))
        if isinstance(target, dict) and 'remount' in target:
            name = target.get('name') or i
            command(target['remount'], source,
                    at(f'extras.targets[{name}].remount'))
    if 'drop_caches_command' in extras:
        command(extras['drop_caches_command'], source,
                at('extras.drop_caches_command'))


#: Whole-number check variables and parameters that count or size
#: something: at least 1 (0 nodes or tasks is ReFrame's flexible
#: allocation, every idle node of the partition).
CHECK_COUNTS = frozenset({
    'nodes', 'tasks_per_node', 'streams_per_node', 'tasks', 'np',
    'processes', 'count', 'block_size', 'size', 'size_mib',
    'file_size_kib', 'repetitions', 'repeats', 'segments', 'items_per_task',
    'iterations', 'threads_low', 'threads_high', 'file_count', 'dir_count',
    'multi_clients', 'mount_point_count', 'active_cores', 'sockets',
    'mounts', 'processes_per_core', 'fan_out',
})
#: Durations that must pass (a barrier that times out at once never
#: lets the streams start); other durations may be 0 (no wait).
CHECK_POSITIVE_DURATIONS = frozenset({'barrier_timeout'})
#: Whole numbers with a meaningful negative value: Lustre's stripe count
#: -1 is "every OST".
CHECK_LOWEST = {'stripe_count': -1}
#: String check variables that hold a tool size (``4k``, ``1m``).
CHECK_SIZES = frozenset({'block_size', 'transfer_size', 'stripe_size',
                         'easy_block_size'})
#: ... where ``0`` means the file system's default layout.
CHECK_SIZES_OR_ZERO = frozenset({'stripe_size'})
#: String check variables that hold words separated by spaces.
CHECK_SPACED = frozenset({'mdt_targets'})


def check_value(name, value, source):
    """One check variable or parameter, as set with ``-S``/``-P`` or by
    the check: numbers in range, strings one word (see the module
    docstring).

    Args:
        name: the variable's name (picks the rule: :data:`CHECK_COUNTS`,
            :data:`CHECK_SIZES`...).
        value: its value.
        source: the test case, for the message.

    Raises:
        ConfigError: naming the case, the variable and the value.
    """
    if isinstance(value, bool) or value is None:
        return

    if isinstance(value, int):
        if name in CHECK_COUNTS:
            positive_int(value, source, name)
        else:
            _int_at_least(value, CHECK_LOWEST.get(name, 0), source, name)
    elif isinstance(value, float):
        if name in CHECK_POSITIVE_DURATIONS:
            positive_number(value, source, name)
        elif not 0 <= value < float('inf'):
            raise ConfigError(source, name, value,
                              'must be a finite number, 0 or more')
    elif isinstance(value, str):
        if name in CHECK_SIZES:
            size(value, source, name, zero=name in CHECK_SIZES_OR_ZERO)
        elif name in CHECK_SPACED:
            words(value, source, name)
        else:
            word(value, source, name)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            check_value(name, item, source)


def check_variables(test, framework_names):
    """Every variable and parameter a pfsbench check declares, and its
    tags, as the case is set up: a hostile ``-S``/``-P`` value fails the
    case before its job script exists.

    Args:
        test: the ReFrame test (duck-typed: its class's ``var_space`` and
            ``param_space``; no ReFrame import here).
        framework_names: ReFrame's own variable names, left to ReFrame
            (the task count and time limit are checked by
            :func:`check_job_shape`).

    Raises:
        ConfigError: naming the case, the variable and the value.
    """
    cls = type(test)
    names = [n for n in list(cls.var_space.vars) + list(
        cls.param_space.params) if n not in framework_names]
    for name in names:
        check_value(name, getattr(test, name), test.unique_name)
    for tag in sorted(test.tags):
        word(tag, test.unique_name, 'tags')


def check_job_shape(test):
    """The job's task layout, time limit and options, as the case's job
    script will get them: at least one task (ReFrame reads 0 or fewer as
    flexible allocation, which takes every idle node), no per-node count
    below 1, a time limit above zero (Slurm reads 0 as no limit), and
    each job option (``reframe -J``) one ``#SBATCH`` option
    (:func:`sbatch_option`).

    Raises:
        ConfigError: naming the case, the variable and the value.
    """
    positive_int(test.num_tasks, test.unique_name, 'num_tasks')
    for name in ('num_tasks_per_node', 'num_cpus_per_task'):
        if getattr(test, name, None) is not None:
            positive_int(getattr(test, name), test.unique_name, name)
    if test.time_limit is not None:
        positive_number(test.time_limit, test.unique_name, 'time_limit')
    # The job's own options and reframe -J ones: #SBATCH lines as well.
    # ReFrame writes a '#'-prefixed one (a burst-buffer directive) as is.
    for option in _job_options(test):
        if option.startswith('#'):
            command(option, test.unique_name, 'job option')
        else:
            sbatch_option(option, test.unique_name, 'job option')


def _job_options(test):
    """The options of a case's job and ``reframe -J``'s."""
    job = getattr(test, 'job', None)
    return (list(job.options) + list(job.cli_options)
            if job is not None else [])


def check_tasks_fit(test):
    """A case's tasks per node within its partition's CPUs, or its job
    overcommits (:func:`tasks_fit_cpus`); judged once every hook has set
    the job's layout and options.

    Raises:
        ConfigError: naming the case, ``num_tasks_per_node``, the value,
            the partition and its CPUs.
    """
    part = test.current_partition
    tasks_fit_cpus(test.num_tasks_per_node, part.processor.num_cpus,
                   _job_options(test), part.fullname, test.unique_name,
                   'num_tasks_per_node')


def tasks_fit_cpus(tasks_per_node, num_cpus, options, partition, source,
                   field):
    """More tasks on a node than its ``processor.num_cpus`` only with
    ``--overcommit`` among the job's ``options``: Slurm refuses such a job
    otherwise ("Requested node configuration is not available").  Nothing
    is judged where either number is unknown (None).

    Raises:
        ConfigError: naming ``source``, ``field``, the value, the
            partition and its CPUs.
    """
    if not (tasks_per_node and num_cpus) or tasks_per_node <= num_cpus or \
            OVERCOMMIT in options:
        return
    raise ConfigError(source, field, tasks_per_node,
                      f'more tasks per node than {partition}\'s '
                      f'processor.num_cpus ({num_cpus}): Slurm refuses the '
                      f'job; at most {num_cpus}')


_REFRAME_DURATION = re.compile(r'(?:(?P<d>[0-9]+)d)?(?:(?P<h>[0-9]+)h)?'
                               r'(?:(?P<m>[0-9]+)m)?(?:(?P<s>[0-9]+)s)?\Z')


def time_seconds(value, source, field, slurm=False):
    """Seconds of a time limit written as ReFrame writes them (``30m``,
    ``2h``, ``1d12h``, a number of seconds) or as Slurm does
    (``HH:MM:SS``, ``D-HH:MM``...: :func:`slurm_time`); with ``slurm``,
    only Slurm's forms (a bare number is then minutes, as sbatch reads
    it).

    Raises:
        ConfigError: none of those forms.
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    text = str(value).strip()
    match = None if slurm else _REFRAME_DURATION.match(text)
    if text and match and any(match.groupdict().values()):
        units = {'d': 86400, 'h': 3600, 'm': 60, 's': 1}
        return float(sum(int(v) * units[k]
                         for k, v in match.groupdict().items() if v))
    if not slurm:
        try:
            return float(text)
        except ValueError:
            pass
    slurm_time(text, source, field)
    days, _, clock = text.rpartition('-')
    fields = [int(f) for f in clock.split(':')]
    if days:
        # D-HH, D-HH:MM, D-HH:MM:SS
        fields += [0] * (3 - len(fields))
        hours, minutes, seconds = fields
        return float(int(days) * 86400 + hours * 3600 + minutes * 60 +
                     seconds)
    # MM, MM:SS, HH:MM:SS
    if len(fields) == 1:
        return float(fields[0] * 60)
    if len(fields) == 2:
        return float(fields[0] * 60 + fields[1])
    return float(fields[0] * 3600 + fields[1] * 60 + fields[2])


#: The forms a partition's ``time_limit`` may take (:func:`time_limit`).
TIME_LIMIT_FORMS = ("ReFrame's 30m, 12h, 1d12h or a number of seconds "
                    "(43200), or Slurm's " + SLURM_TIME_FORMATS)


def time_limit(value, source, field):
    """A partition's ``time_limit``: seconds of one of
    :data:`TIME_LIMIT_FORMS`.

    Raises:
        ConfigError: naming ``source``, ``field`` and the value, and the
            forms accepted (``'12 hours'`` is none of them).
    """
    try:
        seconds = time_seconds(value, source, field)
    except ConfigError:
        seconds = None
    if seconds is None or not math.isfinite(seconds) or seconds <= 0:
        raise ConfigError(source, field, value,
                          f'expected a time limit above 0: '
                          f'{TIME_LIMIT_FORMS}')
    return seconds


def slurm_clock(seconds):
    """``HH:MM:SS`` of a number of seconds, as #SBATCH --time takes it."""
    seconds = int(seconds)
    return (f'{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:'
            f'{seconds % 60:02d}')
