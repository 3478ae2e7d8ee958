# SPDX-License-Identifier: BSD-3-Clause
"""The pictures that answer the gate's question (docs/history-pictures.md):
the level and its noise band, the change points, the pooled window and the
night the shift began, the provenance that changed, tonight's verdict
marked by its shape; in the gate's HTML report and in ``pfsbench history
--format html``; and both pages as a real browser (Debian's chromium,
headless) loads them."""

import dataclasses
import importlib.util
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from conftest import REPO
from pfsbench.gate.judge.rows import case_rows
from pfsbench.gate.report import plots, render, svg, trends

NS = '{http://www.w3.org/2000/svg}'
BENCH = os.path.join(REPO, 'bench', 'history_pictures.py')


def _bench():
    spec = importlib.util.spec_from_file_location('history_pictures', BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pictures = _bench()


@pytest.fixture(scope='module')
def month(tmp_path_factory):
    """The docs' month: 30 nights, fs_version 1.8 -> 2.0 and -20 % from
    night 20 on; ``(reports, gate record, a directory for a store)``."""
    reports = pictures.month()
    return reports, pictures.gate_record(
        reports, str(tmp_path_factory.mktemp('month'))), \
        str(tmp_path_factory.mktemp('store'))


def histories(text):
    return [ET.fromstring(m) for m in re.findall(r'<svg .*?</svg>', text,
                                                 re.S)
            if '<title>history ' in m]


def one(root, css):
    found = [e for e in root.iter() if css in (e.get('class') or '').split()]
    assert len(found) == 1, (css, len(found))
    return found[0]


def test_gate_history_marks_level_step_change_pool_and_verdict(month):
    reports, record, _ = month
    step_day = svg.day(reports[pictures.STEP_AT]['session_info'][
        'time_start_unix'])
    last_day = svg.day(reports[-1]['session_info']['time_start_unix'])
    plotted = histories(render(record, 'html'))
    assert len(plotted) == 2
    for root in plotted:
        level = one(root, 'level')
        assert float(level.get('data-level')) == pytest.approx(100, rel=0.05)
        step = one(root, 'changepoint')
        assert step.get('data-night') == step_day
        assert float(step.get('data-change')) == pytest.approx(-0.2,
                                                              abs=0.03)
        flag = one(root, 'provenance')
        assert (flag.get('data-night'), flag.get('data-keys')) == \
            (step_day, 'fs_version')
        assert 'fs_version 1.8 \u2192 2.0' in ''.join(flag.itertext())
        window = one(root, 'pooled-window')
        assert step_day < window.get('data-first') <= last_day
        shift = one(root, 'shift-start')
        assert window.get('data-first') <= shift.get('data-night')
        tonight = one(root, 'verdict')
        assert (tonight.get('data-verdict'), tonight.get('data-night')) == \
            ('paged', last_day)
        assert tonight.get('d') == svg.SHAPES['triangle-down']
        keys = [''.join(k.itertext()) for k in root.iter(f'{NS}g')
                if k.get('class') == 'key']
        assert keys == ['night mean', 'tonight: paged (regression)']
        # A dot per earlier night, left of tonight's mark.
        nights = [e for e in root.iter()
                  if e.get('class') == 'night']
        assert len(nights) == pictures.NIGHTS - 1


def test_held_and_inconclusive_nights_are_marked_apart(month):
    _, record, _ = month
    hist = record['history'][0]
    row = next(c.primary for c in case_rows(record)
               if (c.case, c.primary.var) == (hist['case'], hist['var']))
    marks = {}
    for verdict, reason in (('inconclusive', 'held: foreign load seen'),
                            ('inconclusive', 'the interval holds -5 %'),
                            ('pass', ''), ('regression', '')):
        root = ET.fromstring(plots.history_svg(
            hist, dataclasses.replace(row, verdict=verdict, reason=reason)))
        mark = one(root, 'verdict')
        marks[mark.get('data-verdict')] = (mark.tag, mark.get('d'),
                                           mark.get('fill'))
    assert sorted(marks) == ['held', 'inconclusive', 'paged', 'pass']
    assert len(set(marks.values())) == 4        # shape and colour differ
    assert len({m[2] for m in marks.values()}) == 4


def test_the_night_marks_differ_in_shape_and_colour():
    shapes = [s for s, _, _ in plots.NIGHT_MARKS.values()]
    colours = [c for _, c, _ in plots.NIGHT_MARKS.values()]
    assert len(shapes) == len(set(shapes)) == len(plots.NIGHT_MARKS)
    assert len(colours) == len(set(colours))
    assert plots.night_kind('regression') == 'paged'
    assert plots.night_kind('inconclusive', 'held: foreign load') == 'held'
    # The budget's hold, behind what a blind figure cannot see.
    assert plots.night_kind('inconclusive', 'detects >= 40 % (blind); '
                            "held by the night's false-alarm budget: "
                            'p = 0.01') == 'held'
    assert plots.night_kind('inconclusive', 'cannot rule out') == \
        'inconclusive'


def test_store_history_marks_each_lines_levels_and_step(month):
    reports, _, directory = month
    rows, _ = pictures.history_rows(reports, directory)
    step_day = svg.day(reports[pictures.STEP_AT]['session_info'][
        'time_start_unix'])
    plotted = [ET.fromstring(m) for m in re.findall(
        r'<svg .*?</svg>', trends.render_html('write_bw', rows, 's'), re.S)]
    assert len(plotted) == 2
    for root in plotted:
        levels = [float(e.get('data-level')) for e in root.iter()
                  if e.get('class') == 'level']
        assert levels == [pytest.approx(100, rel=0.03),
                          pytest.approx(80, rel=0.03)]
        step = one(root, 'changepoint')
        assert step.get('data-night') == step_day
        assert float(step.get('data-change')) == pytest.approx(-0.2,
                                                              abs=0.03)
        band = one(root, 'noise-band')
        assert 0 < float(band.get('data-noise')) < 0.1


def test_a_flat_line_has_one_level_and_no_step():
    rows = [{'system': 'a', 'partition': 'p', 'target': '/s',
             'filesystem': 'lustre', 'name': 'dd', 'night': svg.day(t),
             'time': t, 'session': f's{i}', 'unit': 'MB/s', 'n': 3,
             'mean': m, 'min': m - 1, 'max': m + 1}
            for i, (t, m) in enumerate(
                (1.7e9 + i * 86400, 500.0 + (i % 3)) for i in range(20))]
    root = ET.fromstring(re.search(r'<svg .*?</svg>', trends.render_html(
        'write_bw', rows, 's'), re.S).group(0))
    assert [e for e in root.iter() if e.get('class') == 'changepoint'] == []
    assert float(one(root, 'level').get('data-level')) == \
        pytest.approx(501, rel=0.002)


CHROMIUM = shutil.which('chromium')


@pytest.mark.skipif(CHROMIUM is None, reason='no chromium on PATH (Debian: '
                    'apt-get install chromium)')
def test_a_browser_loads_both_pages_with_their_marks(tmp_path):
    paths, record = pictures.write_pages(str(tmp_path), str(tmp_path))
    last = svg.day(record['current_sessions'][-1]['time_start'])
    wanted = {'gate': ('level', 'changepoint', 'provenance',
                       'pooled-window', 'shift-start', 'verdict'),
              'history': ('level', 'noise-band', 'changepoint',
                          'provenance', 'verdict')}
    assert sorted(paths) == sorted(wanted), paths
    for name, page in sorted(paths.items()):
        # One launch: the DOM as the browser parsed it, and its picture
        # (kept in the test's tmp dir).  A probe script's console line,
        # added at the page's end, shows that chromium's log holds the
        # page's console: it must be the only one there.
        probe = tmp_path / f'{name}-probe.html'
        probe.write_text(open(page).read().replace(
            '</body>', '<script>console.log("pfsbench-probe")</script>'
            '</body>'))
        png = tmp_path / f'{name}.png'
        dom, log = _chromium(['--dump-dom', f'--screenshot={png}',
                              '--window-size=900,700'], str(probe),
                             tmp_path / name)
        console = re.findall(r'.*:CONSOLE.*', log)
        assert len(console) == 1 and 'pfsbench-probe' in console[0], \
            (name, console)
        for css in wanted[name]:
            assert re.search(rf'class="[^"]*\b{css}\b', dom), (name, css)
        # The store's page marks the night the gate paged (the month's
        # last), as the gate's page marks it tonight.
        assert re.search(r'class="night verdict paged" data-verdict="paged"'
                         rf' data-night="{last}"', dom), name
        assert png.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'


def _chromium(args, page, profile):
    done = subprocess.run(
        [CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu',
         '--enable-logging=stderr', '--v=0', f'--user-data-dir={profile}']
        + args + ['file://' + page], capture_output=True, text=True,
        timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, done.stderr
