# SPDX-License-Identifier: BSD-3-Clause
"""A history plot finds its pooled window's nights from the newest point
back (docs/gate-evidence.md, "Speed: a year of nightlies"): the same
time as a look-up of every point's day, which keeps a day's newest."""

from pfsbench.core.clock import utc_day
from pfsbench.gate.report import plots

DAY = 86400.0


def _points():
    # Two sessions on some days (the later one kept), a gap of a day.
    times = [1.7e9 + n * DAY + extra for n in range(40) if n != 20
             for extra in ((0.0, 3600.0) if n % 7 == 0 else (0.0,))]
    return [{'time': t, 'mean': 1.0} for t in times]


def test_the_time_of_a_day_is_its_newest_point():
    pts = _points()
    every = {utc_day(p['time']): p['time'] for p in pts}
    days = [utc_day(1.7e9 + n * DAY) for n in (0, 7, 14, 20, 21, 39)]
    days += [utc_day(1.7e9 + 60 * DAY), None]
    found = [plots._time_of_day(pts, day) for day in days]
    assert found == [every.get(day) for day in days]
    assert found[1] == 1.7e9 + 7 * DAY + 3600.0
    assert found[3] is None and found[-2] is None and found[-1] is None
    assert plots._time_of_day([], days[0]) is None
