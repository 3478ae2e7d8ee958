# SPDX-License-Identifier: BSD-3-Clause
"""The one SVG plot builder of the reports (docs/history-pictures.md):
axes with readable ticks (values at steps of 1, 2, 2.5 or 5 times a power
of ten, with the unit on the axis; dates at whole days, weeks, months or
years), the frame, the heading and a legend, as inline SVG text.  No
image library: one plot costs microseconds, so a report holds hundreds.

A picture is made by :class:`Plot` (the axes and their scales) and its
marks, appended as SVG text in plot coordinates (:meth:`Plot.x`,
:meth:`Plot.y`)."""

import calendar
import datetime
import html
import math

from pfsbench.core.clock import utc_day as day

#: Colours of the series of one plot (matplotlib's tab10).
COLOURS = ('#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd',
           '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf')

#: Multiples of a power of ten a value axis steps by.
NICE = (1.0, 2.0, 2.5, 5.0, 10.0)

DAY = 86400.0

#: The attributes of a label drawn over marks: a white outline keeps it
#: readable where a line crosses it.
HALO = 'stroke="#fff" stroke-width="3" paint-order="stroke"'

#: Steps of a time axis: (seconds, kind, count), the smallest that keeps
#: the labels apart is taken.
TIME_STEPS = ((3600.0, 'hour', 1), (3 * 3600.0, 'hour', 3),
              (6 * 3600.0, 'hour', 6), (12 * 3600.0, 'hour', 12),
              (DAY, 'day', 1), (2 * DAY, 'day', 2), (7 * DAY, 'week', 1),
              (14 * DAY, 'week', 2), (30 * DAY, 'month', 1),
              (61 * DAY, 'month', 2), (91 * DAY, 'month', 3),
              (182 * DAY, 'month', 6), (365 * DAY, 'year', 1),
              (730 * DAY, 'year', 2), (1826 * DAY, 'year', 5))


def fmt(value):
    """A value as a tooltip shows it: four significant digits."""
    return f'{value:.4g}'


def nice_step(span, count):
    """The step of 1, 2, 2.5 or 5 times a power of ten that cuts ``span``
    into about ``count`` parts (never more)."""
    if span <= 0 or not math.isfinite(span):
        return 1.0
    raw = span / max(count, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    for m in NICE:
        if m * power >= raw * (1 - 1e-9):
            return m * power
    return 10.0 * power


def value_label(value, step):
    """A tick's text: as many decimals as the step needs, thousands as
    ``k``, millions as ``M``, milliards as ``G`` (``12.5k``)."""
    if value == 0:
        return '0'
    for scale, suffix in ((1e9, 'G'), (1e6, 'M'), (1e3, 'k')):
        if abs(value) >= scale and step >= scale / 100:
            return _decimals(value / scale, step / scale) + suffix
    return _decimals(value, step)


def _decimals(value, step):
    digits = max(0, -math.floor(math.log10(step) + 1e-9)) if step < 1 \
        else 0
    if step * 10 ** digits % 1 > 1e-6:
        digits += 1     # 2.5 steps
    return f'{value:.{digits}f}'


def value_ticks(lo, hi, count=5):
    """``[(value, label)]`` at a nice step inside ``lo..hi``."""
    step = nice_step(hi - lo, count)
    first = math.ceil(lo / step - 1e-9)
    out = []
    k = first
    while k * step <= hi + step * 1e-9:
        value = k * step
        out.append((value, value_label(value, step)))
        k += 1
    return out


def utc(t):
    """Seconds since the epoch as an aware UTC datetime."""
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc)


def time_ticks(t0, t1, count=6):
    """``[(time, label)]`` at whole hours, days, weeks (Mondays), months
    or years between ``t0`` and ``t1``: the finest step with at most
    ``count`` of them; the year is written on the first tick and where it
    turns."""
    span = max(t1 - t0, 1.0)
    for seconds, kind, n in TIME_STEPS:
        # Nights are days: a day or more is ticked at dates.
        if span / seconds <= count and (kind != 'hour' or span < DAY):
            break
    start = utc(t0)
    if kind == 'hour':
        at = start.replace(hour=start.hour - start.hour % n, minute=0,
                           second=0, microsecond=0)
    elif kind in ('day', 'week'):
        at = start.replace(hour=0, minute=0, second=0, microsecond=0)
        if kind == 'week':
            at -= datetime.timedelta(days=at.weekday())
    else:
        at = start.replace(day=1, hour=0, minute=0, second=0,
                           microsecond=0)
        if kind == 'year':
            at = at.replace(month=1)
    out, year = [], None
    while at.timestamp() <= t1 + 1e-6:
        if at.timestamp() >= t0 - 1e-6:
            out.append((at.timestamp(), _time_label(at, kind, year)))
            year = at.year
        at = _next(at, kind, n)
    return out


def _next(at, kind, n):
    if kind == 'hour':
        return at + datetime.timedelta(hours=n)
    if kind in ('day', 'week'):
        return at + datetime.timedelta(days=n * (7 if kind == 'week' else 1))
    months = at.month - 1 + (12 * n if kind == 'year' else n)
    return at.replace(year=at.year + months // 12, month=months % 12 + 1)


def _time_label(at, kind, year):
    if kind == 'hour':
        return at.strftime('%H:%M') if at.hour and year else \
            at.strftime('%b %d %H:%M')
    if kind == 'year':
        return str(at.year)
    if kind == 'month':
        return at.strftime('%b %Y' if at.year != year else '%b')
    text = f'{calendar.month_abbr[at.month]} {at.day}'
    return f'{text} {at.year}' if at.year != year else text


class Axis:
    """One axis: its range, scale and ticks.

    Args:
        values: the values it must show (``None`` left out).
        kind: ``'linear'``, ``'log2'`` (process counts doubling), or
            ``'time'`` (seconds since the epoch, ticks at dates).
        label: its title (a value axis: the figure and its unit).
        zero: the range starts at 0 (rates whose ratio matters).
        pad: the fraction of the range added at both ends (not to
            ``zero``'s 0, nor to a time axis).
        ticks: ``[(value, label)]`` in place of computed ones (the
            parameter values of a scaling plot).
    """

    def __init__(self, values, kind='linear', label='', zero=False,
                 pad=0.08, ticks=None):
        values = [v for v in values if v is not None]
        lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
        if zero:
            lo = min(lo, 0.0)
        if hi > lo and kind == 'log2':
            extra = (math.log2(hi) - math.log2(lo)) * pad
            lo, hi, extra = lo / 2 ** extra, hi * 2 ** extra, 0.0
        elif hi > lo:
            extra = 0.0 if kind == 'time' else (hi - lo) * pad
        elif kind == 'time':
            extra = DAY / 2
        elif kind == 'log2':
            lo, hi, extra = lo / 2, hi * 2, 0.0
        else:
            extra = abs(hi) * 0.05 or 1.0
        self.lo = lo if zero and lo == 0 else lo - extra
        self.hi = hi + extra
        self.kind, self.label, self._ticks = kind, label, ticks

    def fraction(self, v):
        """Where ``v`` lies on the axis, 0 at its low end, 1 at its high."""
        if self.kind == 'log2':
            lo, hi = math.log2(self.lo), math.log2(self.hi)
            return (math.log2(v) - lo) / ((hi - lo) or 1.0)
        return (v - self.lo) / ((self.hi - self.lo) or 1.0)

    def ticks(self, count):
        """``[(value, label)]`` of the axis, about ``count`` of them."""
        if self._ticks is not None:
            return self._ticks
        if self.kind == 'time':
            return time_ticks(self.lo, self.hi, count)
        return value_ticks(self.lo, self.hi, count)


class Plot:
    """An SVG plot with axes: the frame, grid, ticks and titles are drawn
    by :meth:`render`; marks are SVG text added with :meth:`add` in the
    coordinates :meth:`x` and :meth:`y` give.

    Args:
        title: the ``<title>`` of the SVG (tooltips and tests find a plot
            by it).
        heading: the text above the plot.
        legend: lines of legend above the plot, ``(colour, text)``.
        css: the SVG element's class (pages style and tests find it).
        keys: a row under the plot naming its markers, ``(shape, colour,
            text)`` (:func:`marker`).
    """

    def __init__(self, title, heading, xaxis, yaxis, width=640,
                 height=240, legend=(), css=None, left=62, right=12,
                 keys=()):
        self.title, self.heading = title, heading
        self.xaxis, self.yaxis = xaxis, yaxis
        self.width, self.height, self.css = width, height, css
        self.legend = list(legend)
        self.left, self.right = left, right
        self.top = 22 + 12 * len(self.legend)
        self.keys = list(keys)
        self.bottom = (34 if xaxis.label else 22) + 16 * bool(self.keys)
        self.height += 12 * len(self.legend) + 16 * bool(self.keys)
        self.marks = []

    def x(self, v):
        return self.left + self.xaxis.fraction(v) * (
            self.width - self.left - self.right)

    def y(self, v):
        return self.top + (1 - self.yaxis.fraction(v)) * (
            self.height - self.top - self.bottom)

    @property
    def floor(self):
        """The y of the plot area's bottom edge."""
        return self.height - self.bottom

    def add(self, *svg):
        """Marks, as SVG text (drawn over the axes, in order)."""
        self.marks.extend(svg)

    def render(self):
        """The plot as an ``<svg>`` element (text)."""
        esc = html.escape
        css = f' class="{esc(self.css)}"' if self.css else ''
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" '
               f'width="{self.width}" height="{self.height}" role="img" '
               f'font-family="sans-serif" font-size="10"{css}>',
               f'<title>{esc(self.title)}</title>',
               f'<text x="{self.left}" y="12" font-size="11">'
               f'{esc(self.heading)}</text>']
        out += self._legend() + self._axes() + self.marks + self._keys()
        out.append('</svg>')
        return ''.join(out)

    def _keys(self):
        out, x = [], self.left + 6
        y = self.height - 8
        for shape, colour, text in self.keys:
            out.append(f'<g class="key" data-shape="{shape}">' +
                       marker(shape, x, y - 3, colour) +
                       f'<text x="{x + 8}" y="{y}">{html.escape(text)}'
                       '</text></g>')
            x += 20 + 5.5 * len(text)
        return out

    def _legend(self):
        esc = html.escape
        return [f'<text class="legend" x="{self.width - self.right}" '
                f'y="{24 + 12 * i}" text-anchor="end" fill="{colour}">'
                f'{esc(text)}</text>'
                for i, (colour, text) in enumerate(self.legend)]

    def _axes(self):
        esc = html.escape
        left, right = self.left, self.width - self.right
        top, floor = self.top, self.floor
        out = [f'<rect class="frame" x="{left}" y="{top}" '
               f'width="{right - left}" height="{floor - top}" '
               'fill="none" stroke="#ccc"/>']
        # The grid: one path, drawn under the marks.
        grid, labels = [], []
        for value, label in self.yaxis.ticks(max(2, (floor - top) // 30)):
            y = self.y(value)
            grid.append(f'M{left},{y:.1f}H{right}')
            labels.append(f'<text class="ytick" x="{left - 4}" '
                          f'y="{y + 3:.1f}" text-anchor="end">{esc(label)}'
                          '</text>')
        for value, label in self.xaxis.ticks(max(2, (right - left) // 80)):
            x = self.x(value)
            grid.append(f'M{x:.1f},{top}V{floor}')
            # A label at the right edge ends there (not past the plot).
            anchor = 'end' if x > right - 3 * len(label) else 'middle'
            labels.append(f'<text class="xtick" x="{x:.1f}" '
                          f'y="{floor + 12}" text-anchor="{anchor}">'
                          f'{esc(label)}</text>')
        out.append(f'<path class="grid" d="{"".join(grid)}" '
                   'stroke="#eee" fill="none"/>')
        out += labels
        if self.xaxis.label:
            out.append(f'<text x="{(left + right) / 2:.1f}" '
                       f'y="{self.height - 4}" text-anchor="middle">'
                       f'{esc(self.xaxis.label)}</text>')
        if self.yaxis.label:
            middle = (top + floor) / 2
            out.append(f'<text x="11" y="{middle:.1f}" '
                       f'transform="rotate(-90 11 {middle:.1f})" '
                       f'text-anchor="middle">{esc(self.yaxis.label)}'
                       '</text>')
        return out


#: Shapes :func:`marker` draws, as paths of a unit size around 0,0.
SHAPES = {
    'square': 'M-1,-1H1V1H-1Z',
    'diamond': 'M0,-1.3L1.3,0L0,1.3L-1.3,0Z',
    'triangle-down': 'M-1.2,-1H1.2L0,1.2Z',
    'triangle-up': 'M-1.2,1H1.2L0,-1.2Z',
    'cross': 'M-1,-1L1,1M1,-1L-1,1',
}


def marker(shape, x, y, colour, size=4.0, attrs='', title=None):
    """A marker centred at ``x, y``: a ``circle`` or one of
    :data:`SHAPES`, filled with ``colour``; ``attrs`` (text) is added to
    the element, ``title`` becomes its tooltip."""
    tip = f'<title>{html.escape(title)}</title>' if title else ''
    end = f'>{tip}</{{}}>' if tip else '/>'
    if shape == 'circle':
        return (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{size * 0.9:.1f}" '
                f'fill="{colour}"{attrs}' + end.format('circle'))
    stroke = f' stroke="{colour}" stroke-width="{1.5 / size:.2f}"' \
        if shape == 'cross' else ''
    return (f'<path d="{SHAPES[shape]}" fill="{colour}"{stroke} '
            f'transform="translate({x:.1f} {y:.1f}) scale({size})"'
            f'{attrs}' + end.format('path'))


def provenance_flag(plot, when, diff, line='', row=0):
    """A flag on the time axis at ``when`` where the provenance changed,
    labelled ``fs_version 1.8 -> 2.0`` (``diff``: ``{key: (before,
    after)}``); class ``provenance``, ``data-night`` and ``data-keys``.
    ``line`` (a plot line's label) begins its tooltip; ``row`` puts its
    label that many lines lower (flags of several lines in one plot)."""
    esc = html.escape
    x = plot.x(when)
    text = '; '.join(f'{k} {a} \u2192 {b}' for k, (a, b) in
                     sorted(diff.items()))
    tip = f'{line}: {text}' if line else text
    # The label on the side the shift's marks (which follow it) are not.
    side, anchor = (-1, 'end') if x > plot.width / 2 else (1, 'start')
    return (f'<g class="provenance" data-night="{day(when)}" '
            f'data-keys="{esc(" ".join(sorted(diff)))}">'
            f'<path d="M{x:.1f},{plot.floor}l-5,8h10z" fill="#555"/>'
            f'<text x="{x + 4 * side:.1f}" y="{plot.top + 10 + 11 * row}" '
            f'text-anchor="{anchor}" fill="#333" {HALO}>'
            f'{esc(text)}</text><title>{esc(tip)}</title></g>')
