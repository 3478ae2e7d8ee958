# SPDX-License-Identifier: BSD-3-Clause
"""The one SVG plot builder (pfsbench.gate.report.svg): nice value ticks
with units, date ticks at whole days, weeks, months, and every picture of
the reports drawn with its axes."""

import datetime
import xml.etree.ElementTree as ET

import pytest

from pfsbench.gate.report import svg

NS = '{http://www.w3.org/2000/svg}'
DAY = 86400.0


def utc(*args):
    return datetime.datetime(*args, tzinfo=datetime.timezone.utc).timestamp()


@pytest.mark.parametrize('lo, hi, want', [
    (372.1, 531.3, ['400', '450', '500']),
    (0.0, 23712.0, ['0', '5k', '10k', '15k', '20k']),
    (0.011, 0.077, ['0.02', '0.04', '0.06']),
    (1.2e6, 3.4e6, ['1.5M', '2.0M', '2.5M', '3.0M']),
    (0.0, 10.0, ['0', '2', '4', '6', '8', '10']),
    (0.0, 12.0, ['0', '2.5', '5.0', '7.5', '10.0']),
])
def test_value_ticks_are_round_steps_inside_the_range(lo, hi, want):
    ticks = svg.value_ticks(lo, hi, 5)
    assert [label for _, label in ticks] == want
    values = [v for v, _ in ticks]
    assert lo <= values[0] and values[-1] <= hi
    steps = {round(b - a, 9) for a, b in zip(values, values[1:])}
    assert len(steps) == 1                  # evenly spaced


def test_a_month_is_ticked_at_mondays_with_the_year_once():
    ticks = svg.time_ticks(utc(2026, 11, 1, 2), utc(2026, 11, 30, 2), 6)
    assert [label for _, label in ticks] == [
        'Nov 2 2026', 'Nov 9', 'Nov 16', 'Nov 23', 'Nov 30']
    for t, _ in ticks:
        at = datetime.datetime.fromtimestamp(t, datetime.timezone.utc)
        assert (at.weekday(), at.hour, at.minute) == (0, 0, 0)


def test_a_year_is_ticked_at_months_and_the_turn_of_the_year_named():
    ticks = svg.time_ticks(utc(2025, 7, 15), utc(2026, 7, 15), 6)
    assert [label for _, label in ticks] == [
        'Sep 2025', 'Nov', 'Jan 2026', 'Mar', 'May', 'Jul']


def test_a_few_nights_are_ticked_at_days():
    ticks = svg.time_ticks(utc(2026, 11, 27, 1), utc(2026, 11, 29, 1), 6)
    labels = [label for _, label in ticks]
    assert labels == ['Nov 28 2026', 'Nov 29']


def plot(**kw):
    p = svg.Plot('t', 'heading', svg.Axis([utc(2026, 11, 1),
                                           utc(2026, 11, 30)], kind='time'),
                 svg.Axis([420.0, 515.0], label='MB/s'), **kw)
    p.add(f'<circle cx="{p.x(utc(2026, 11, 15)):.1f}" '
          f'cy="{p.y(500.0):.1f}" r="2"/>')
    return ET.fromstring(p.render())


def test_a_plot_has_its_ticks_inside_its_frame_and_its_unit():
    root = plot()
    frame = root.find(f'{NS}rect[@class="frame"]')
    x0 = float(frame.get('x'))
    x1 = x0 + float(frame.get('width'))
    y0 = float(frame.get('y'))
    y1 = y0 + float(frame.get('height'))
    xticks = root.findall(f'{NS}text[@class="xtick"]')
    yticks = root.findall(f'{NS}text[@class="ytick"]')
    assert len(xticks) >= 3 and len(yticks) >= 3
    assert all(x0 <= float(t.get('x')) <= x1 for t in xticks)
    assert all(y0 <= float(t.get('y')) - 3 <= y1 for t in yticks)
    # Higher values higher up.
    ys = [float(t.get('y')) for t in yticks]
    assert [float(t.text) for t in yticks] == sorted(
        float(t.text) for t in yticks)
    assert ys == sorted(ys, reverse=True)
    assert 'MB/s' in [t.text for t in root.iter(f'{NS}text')]
    dot = root.find(f'{NS}circle')
    assert x0 < float(dot.get('cx')) < x1 and y0 < float(dot.get('cy')) < y1


def test_the_legend_sits_above_the_frame():
    root = plot(legend=[('#000', 'one'), ('#111', 'two')])
    frame = root.find(f'{NS}rect[@class="frame"]')
    legend = root.findall(f'{NS}text[@class="legend"]')
    assert [t.text for t in legend] == ['one', 'two']
    assert all(float(t.get('y')) < float(frame.get('y')) for t in legend)


def test_a_single_night_has_a_range():
    axis = svg.Axis([utc(2026, 11, 1)], kind='time')
    assert axis.hi - axis.lo == DAY
    assert 0 < axis.fraction(utc(2026, 11, 1)) < 1
