# SPDX-License-Identifier: BSD-3-Clause
"""The nightly's driver: the partition whose node runs ReFrame and the
gate for a measured partition (its ``extras.driver_partition``), and
whether that partition's ``time_limit`` holds the nightly.  One rule for
``pfsbench render nightly`` and ``pfsbench check-config``.

The driver is one light task for hours: on the measured partition it
would hold a node its own cases need (an exclusive 2-node case on a
2-node partition would never start), and its file-system traffic would
count as foreign load.
"""

from pfsbench.core.errors import ConfigError
from pfsbench.site import validate
from pfsbench.site.config import partition_key

#: Schedulers a driver job can be submitted to.
_SLURM = ('slurm', 'squeue')
#: Seconds between two nights: a longer nightly would meet the next one.
NIGHT_S = 24 * 3600


def slurm_partition(part):
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
    slurm = slurm_partition(driver)
    if slurm is None:
        raise ConfigError(file, f'{partition_key(system, driver)}.access',
                          driver.get('access', []),
                          'names no --partition: the driver would go to '
                          "Slurm's default partition, perhaps the measured "
                          'one')
    if slurm == slurm_partition(part):
        raise ConfigError(file, key, name,
                          f'is Slurm partition {slurm!r}, as the measured '
                          f'partition: the driver would hold one of the '
                          f'nodes its cases need')
    return driver


def hours(seconds):
    """Seconds as the plans print them (``1.7 h``)."""
    return f'{seconds / 3600:.1f} h'


def time_limit(system, driver, file):
    """``(seconds or None, key)`` of the driver partition's
    ``time_limit``."""
    key = f'{partition_key(system, driver)}.time_limit'
    return (validate.time_seconds(driver['time_limit'], file, key)
            if driver.get('time_limit') else None), key


def check_holds(estimate_s, planned, system, driver, file, repeat):
    """Refuse a nightly of ``estimate_s`` seconds (``planned``: its cases,
    repeats and hours in words) that its driver cannot hold: longer than
    the time between two nights, or than the driver partition's
    ``time_limit``.  Returns that limit's seconds (None: none).

    Raises:
        ConfigError: naming the limit and both numbers.
    """
    limit, key = time_limit(system, driver, file)
    if estimate_s > NIGHT_S:
        raise ConfigError('<command line>', '--repeat', repeat,
                          f'the nightly ({planned}) is longer than the '
                          f'{hours(NIGHT_S)} between two nights: fewer '
                          f'--repeat or --tags')
    if limit is not None and estimate_s > limit:
        raise ConfigError(file, key, driver['time_limit'],
                          f'{hours(limit)} is less than the nightly '
                          f'({planned}): fewer --repeat or --tags, or a '
                          f'longer time_limit')
    return limit
