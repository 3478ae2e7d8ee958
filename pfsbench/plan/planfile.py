# SPDX-License-Identifier: BSD-3-Clause
"""A nightly's plan file (``nightly-plan --write-plan``, ``render
nightly``; ``scripts/nightly.sh --plan FILE`` runs it) and the time limit
of a job script."""

import os

from pfsbench.core.errors import ConfigError
from pfsbench.site import validate


def selection_name(case):
    """A case as ``reframe -n`` selects it alone (``NAME%param=value``)."""
    return case['display_name'].replace(' %', '%')


def plan_text(spec, tags, repeats, chosen, made_by):
    """The text of a plan for ``scripts/nightly.sh --plan FILE``."""
    return (f'# {made_by}\n'
            f'# scripts/nightly.sh --plan FILE runs it (docs/nightly.md)\n'
            f'system {spec}\nrepeat {repeats}\n' +
            ''.join(f'tag {tag}\n' for tag in tags) +
            ''.join(f'case {case["display_name"]}\n' for case in chosen))


def write_atomically(path, text, field):
    """Write ``text`` to ``path`` whole or not at all (a temporary file
    beside it, then a rename): a reader, or a job started meanwhile,
    never sees half of it, and a refusal before this leaves it as it was.

    Raises:
        ConfigError: naming ``field`` and ``path``: it cannot be written.
    """
    partial = f'{path}.partial-{os.getpid()}'
    try:
        with open(partial, 'w') as fp:
            fp.write(text)
        os.replace(partial, path)
    except OSError as err:
        if os.path.exists(partial):
            os.unlink(partial)
        raise ConfigError('<command line>', field, path,
                          f'cannot write it: {err.strerror}') from None


def write_plan_file(path, spec, tags, repeats, chosen, made_by):
    """Write a plan for ``scripts/nightly.sh --plan FILE``
    (:func:`plan_text`, :func:`write_atomically`)."""
    write_atomically(path, plan_text(spec, tags, repeats, chosen, made_by),
                     '--write-plan')


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


def job_time_limit(path):
    """Seconds of a job script's ``#SBATCH --time=`` in any Slurm format
    (:func:`pfsbench.site.validate.time_seconds`), or None: no such line,
    no such file, or a time in no Slurm format."""
    try:
        with open(path) as fp:
            for line in fp:
                if line.startswith('#SBATCH --time='):
                    return validate.time_seconds(
                        line.split('=', 1)[1].strip(), path, '--time',
                        slurm=True)
    except (OSError, ConfigError):
        return None
    return None
