# SPDX-License-Identifier: BSD-3-Clause
"""Which logged values are measurements the gate can compute with.

A run report or a baseline file may hold any number JSON can spell: NaN
and infinity (a division by a zero time, a tool's ``inf``), ``1e308``, a
subnormal such as ``5e-324``, an iteration count of ``10**400``.  The
gate's arithmetic (means, variances, ratios, their logarithms and
exponentials) overflows on some of them, and none is a measurement of a
file system: a rate of 1e100 bytes per second, or a time of 1e-100
seconds, is a broken tool or a damaged file.  So a value counts only
within ``MAGNITUDE`` (or is 0, signed or not), and an iteration count
only up to ``MAX_ITERATIONS``; everything else is refused at the door,
one line naming the field and the value.
"""

import math

#: Smallest and largest magnitude of a non-zero measurement.  Far beyond
#: any rate, time or count a benchmark logs (a nanosecond is 1e-9 s, an
#: exabyte per second 1e18 B/s), and near enough to 1 that the squares,
#: sums and ratios of thousands of them stay finite.
MAGNITUDE = (1e-100, 1e100)
#: Largest believable tool iteration count (IOR's ``-i``, mdtest's).
MAX_ITERATIONS = 10 ** 9


def number_or_none(value):
    """``value`` as a float, or ``None`` where it is no number (a sweep's
    parameter that is a word, a missing one)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def value_problem(value):
    """Why ``value`` is no measurement, or ``''``.

    Returns:
        ``"<value>: not a finite number"`` (NaN, infinity),
        ``"<value>: not a number"``, or ``"<value>: beyond the magnitude
        of a measurement (1e-100 to 1e+100, or 0)"``.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f'{value!r}: not a number'

    try:
        number = float(value)
    except OverflowError:          # an int beyond any float
        number = math.inf if value > 0 else -math.inf
    else:
        if not math.isfinite(number):
            return f'{value!r}: not a finite number'

    low, high = MAGNITUDE
    if number and not low <= abs(number) <= high:
        return (f'{_short(value)}: beyond the magnitude of a measurement '
                f'({low:g} to {high:g}, or 0)')

    return ''


def iterations_problem(count):
    """Why ``count`` is no tool iteration count, or ``''``."""
    if isinstance(count, bool) or not isinstance(count, int) or \
            not 1 <= count <= MAX_ITERATIONS:
        return (f'{_short(count)}: not an iteration count (1 to '
                f'{MAX_ITERATIONS:,})')

    return ''


def _short(value):
    """A value as a message shows it: a huge int by its digits' count."""
    if isinstance(value, int) and not isinstance(value, bool) and \
            abs(value) >= 10 ** 30:
        return f'an integer of {len(str(abs(value)))} digits'

    return repr(value)


def expm1(x):
    """``math.expm1`` that says infinity where the float range ends (an
    interval's end at ``d + half`` when a night of 1e40 among 200s made
    the noise huge), instead of raising ``OverflowError``."""
    return math.expm1(x) if x < 709.0 else math.inf


#: Seconds since 1970 of the first and last moments a date can show
#: (0001-01-01 and 9999-12-31 23:59:59 UTC).
TIMES = (-62135596800.0, 253402300799.0)


def time_problem(stamp):
    """Why ``stamp`` is not seconds since 1970 a date can show, or
    ``''``."""
    if isinstance(stamp, bool) or not isinstance(stamp, (int, float)) or \
            not TIMES[0] <= stamp <= TIMES[1]:
        return 'not a time (seconds since 1970, years 1 to 9999)'

    return ''
