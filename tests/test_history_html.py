# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench history --format html`` (pfsbench.gate.report.trends): one
plot per test case, one line per cluster, partition and target over the
nights, as inline SVG, from rows as pfsbench.store.figure_history gives
them; and, from a SQLite store, the provenance changes and the paged
nights with their triage that the page marks."""

import random
import re
import xml.etree.ElementTree as ET

import synth
from pfsbench import cli, store
from pfsbench.gate.history.keys import CaseKey
from pfsbench.gate.report import svg as svgmod
from pfsbench.gate.report import trends
from pfsbench.store import triage

DAY = 86400.0
SVG = '{http://www.w3.org/2000/svg}'
HOSTILE = '<script>alert("x")</script> & 100% ; $(id) Grüße'


def row(system, target, name, night, mean, partition='default', n=3,
        spread=5.0):
    t = 1.7e9 + night * DAY
    return {'system': system, 'partition': partition, 'target': target,
            'filesystem': 'lustre', 'name': name,
            'night': trends._day(t), 'time': t,
            'session': f'{system}-{night:04d}-session', 'unit': 'MB/s',
            'n': n, 'mean': mean, 'min': mean - spread,
            'max': mean + spread}


def three_clusters(nights=3):
    rows = []
    for night in range(nights):
        for system, target, level in (('alpha', '/scratch', 500.0),
                                      ('beta', '/scratch', 400.0),
                                      ('gamma', '/scratch', 300.0),
                                      ('gamma', '/work', 200.0)):
            for name in ('dd %nodes=1', HOSTILE):
                rows.append(row(system, target, name, night,
                                level + 10 * night))
    return rows


def svgs(text):
    return [ET.fromstring(m) for m in
            re.findall(r'<svg .*?</svg>', text, re.S)]


def points(polyline):
    return [tuple(map(float, p.split(',')))
            for p in polyline.get('points').split()]


def test_one_plot_per_case_one_line_per_cluster_and_target():
    rows = three_clusters()
    random.Random(1).shuffle(rows)          # the order rows come in
    text = trends.render_html('write_bw', rows, 'store.sqlite')
    plots = svgs(text)
    assert len(plots) == 2
    for svg in plots:
        lines = svg.findall(f'{SVG}polyline')
        labels = [line.find(f'{SVG}title').text for line in lines]
        assert labels == ['alpha:default /scratch (lustre)',
                          'beta:default /scratch (lustre)',
                          'gamma:default /scratch (lustre)',
                          'gamma:default /work (lustre)']
        for line in lines:
            xs, ys = zip(*points(line))
            assert len(xs) == 3 and list(xs) == sorted(xs)  # oldest first
            assert ys[0] > ys[1] > ys[2]    # rising means: higher up
        # alpha's mean above beta's above gamma's, night by night
        firsts = [points(line)[0][1] for line in lines]
        assert firsts == sorted(firsts)
        assert len(svg.findall(f'{SVG}circle')) == 12   # a dot per night
    assert '1970' not in text and trends._day(1.7e9) in text
    assert '3 night(s) from 2023-11-14 to 2023-11-16' in text


def test_names_are_text_not_markup():
    text = trends.render_html(HOSTILE, three_clusters(), HOSTILE)
    assert '<script>' not in text
    assert '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; 100%' \
        in text
    for svg in svgs(text):                  # each plot is valid XML
        assert svg.tag == f'{SVG}svg'


def test_plots_are_capped_and_every_line_is_in_the_table():
    rows = three_clusters()
    rows += [row('alpha', '/scratch', f'case {i}', 0, 100.0)
             for i in range(5)]
    text = trends.render_html('write_bw', rows, 's', max_plots=2)
    plots = svgs(text)
    assert len(plots) == 2                  # the cases on 4 lines first
    assert all(len(p.findall(f'{SVG}polyline')) == 4 for p in plots)
    assert 'Plots of the first 2 of 7 cases' in text
    assert text.count('<tr><td>') == 2 * 4 + 5


def test_a_year_is_drawn_without_a_dot_per_night():
    rows = [row('alpha', '/scratch', 'dd', night, 500.0 + night % 7)
            for night in range(365)]
    svg, = svgs(trends.render_html('write_bw', rows, 's'))
    assert len(points(svg.find(f'{SVG}polyline'))) == 365
    assert svg.findall(f'{SVG}circle') == []


def test_more_lines_than_colours_are_named_not_drawn():
    rows = [row(f'c{i:02d}', '/scratch', 'dd', 0, 100.0 + i)
            for i in range(trends.MAX_LINES + 3)]
    svg, = svgs(trends.render_html('write_bw', rows, 's'))
    assert len(svg.findall(f'{SVG}polyline')) == trends.MAX_LINES
    assert f'(first {trends.MAX_LINES} of {trends.MAX_LINES + 3} lines)' \
        in svg.find(f'{SVG}title').text


# The store's marks: where a line's provenance changed, the nights the
# gate paged or held (pfsbench_pages) and how a person triaged them.

def store_of_three_nights(url):
    """A store (at ``url``) of three nights of one case (tests/synth.py: its
    session extras say fs_version 1.8, then 2.0 from the second night on,
    20 % lower), the third night's page kept and marked invalid;
    ``[night, ...]``."""
    reports = list(synth.nightly_history(3, 1, step_night=1, step=-0.2,
                                         noise=0.01))
    with store.open_store(url) as conn:
        for i, report in enumerate(reports):
            store.ingest_report(conn, report, f'night {i}')
        nights = [r['night'] for r in store.provenance_history(
            conn, 'write_bw')]
        last = reports[-1]['session_info']['uuid']
        (name, system, partition, environ), = {tuple(r) for r in conn.execute(
            'SELECT name, rf_system, partition, environ FROM pfsbench_cases '
            'WHERE session = ?', (last,))}
        case = str(CaseKey(name, system, partition, environ))
        assert triage.keep_pages(conn, store.choose_system(conn, None), [
            (nights[-1], last, case, 'write_bw', 'paged', -0.2)], 'now') == 1
        assert triage.mark(conn, last, '', '', 'invalid', 'alice',
                           'OST 3 rebuilding', 'later') == 1
    return nights


def history_page(url, tmp_path):
    out = tmp_path / 'history.html'
    assert cli.main(['history', 'write_bw', '--store', url, '--format',
                     'html', '-o', str(out)]) == 0
    root, = svgs(out.read_text())
    return root


def marked(root, css):
    return [e for e in root.iter() if css in (e.get('class') or '').split()]


def test_history_marks_the_provenance_change_and_the_paged_night(tmp_path):
    url = str(tmp_path / 'store.sqlite')
    nights = store_of_three_nights(url)
    root = history_page(url, tmp_path)
    flag, = marked(root, 'provenance')      # not on the night after it
    assert (flag.get('data-night'), flag.get('data-keys')) == \
        (nights[1], 'fs_version')
    assert 'fs_version 1.8 \u2192 2.0' in ''.join(flag.itertext())
    page, = marked(root, 'verdict')
    assert (page.get('data-verdict'), page.get('data-night')) == \
        ('paged', nights[2])
    assert page.get('d') == svgmod.SHAPES['triangle-down']
    assert page.get('data-triage') == 'invalid'
    title = page.find(f'{SVG}title').text
    assert 'paged (regression) -20.0%' in title
    assert 'marked invalid (noise) by alice: OST 3 rebuilding' in title
    keys = [''.join(k.itertext()) for k in marked(root, 'key')]
    assert keys == ['paged (regression)']


def test_a_store_without_pages_draws_the_flags_and_no_verdicts(tmp_path):
    url = str(tmp_path / 'store.sqlite')
    without_pages(url, store_of_three_nights(url), tmp_path)


def without_pages(url, nights, tmp_path):
    with store.open_store(url) as conn:
        # As before schema version 4 (PostgreSQL: the views on it too).
        conn.execute('DROP TABLE pfsbench_pages' +
                     (' CASCADE' if conn.postgres else ''))
        conn.commit()
    root = history_page(url, tmp_path)
    assert marked(root, 'verdict') == [] and marked(root, 'key') == []
    assert [f.get('data-night') for f in marked(root, 'provenance')] == \
        [nights[1]]


def test_postgresql_marks_the_pages_and_reads_a_store_without_them(
        tmp_path, pg_url):
    # PostgreSQL aborts a transaction whose query fails: the missing
    # table's must not cost the page its flags.
    nights = store_of_three_nights(pg_url)
    page, = marked(history_page(pg_url, tmp_path), 'verdict')
    assert (page.get('data-night'), page.get('data-triage')) == \
        (nights[2], 'invalid')
    without_pages(pg_url, nights, tmp_path)
    with store.open_store(pg_url, migrate=False) as conn:
        assert triage.figure_pages(conn, 'write_bw',
                               [store.choose_system(conn, None)]) == []
        # The failed query is rolled back: the connection still answers.
        assert conn.execute('SELECT count(*) FROM pfsbench_sessions'
                            ).fetchone()[0] == 3
