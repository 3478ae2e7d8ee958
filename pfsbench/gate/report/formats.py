# SPDX-License-Identifier: BSD-3-Clause
"""The formats of a gate report record: ``render`` picks the renderer,
``load_record`` reads a record written as JSON."""

import json

from pfsbench.core.errors import ConfigError, MissingData
from pfsbench.gate.history.past import plain
from pfsbench.gate.judge.record import REPORT_FORMAT_VERSION, REPORT_KIND
from pfsbench.gate.judge.rows import rendering
from pfsbench.gate.statistics.forked import ordered_map

FORMATS = ('text', 'json', 'markdown', 'junit', 'html')


def render(record, fmt, max_plots=60, all_figures=False, triage=None):
    """Render the report record in one format.

    Args:
        record: the gate report record.
        fmt: one of :data:`FORMATS`.
        max_plots: the HTML report plots at most this many histories, one
            per case (the most severe cases first).
        all_figures: text, Markdown and HTML list every figure of a case,
            not only its primary one.
        triage: the site's triage record
            (:func:`pfsbench.store.triage.record`) that text, Markdown and
            HTML show, or None (the gate read no results store).

    Returns:
        The rendered text.
    """
    if fmt == 'json':
        return json.dumps(record, indent=1, default=plain) + '\n'
    if fmt not in FORMATS:
        raise ConfigError('<command line>', 'format', fmt,
                          f'expected one of {", ".join(FORMATS)}')

    # Each part of a report asks for the case rows: taken once.
    with rendering(record):
        return _render(record, fmt, max_plots, all_figures, triage)


#: The formats in the order :func:`render_all` hands them out, the
#: longest to render first: the first part, this process's, is HTML
#: alone.
_BY_COST = ('html', 'json', 'junit', 'markdown', 'text')


def render_all(record, fmts, jobs=1, **options):
    """``[render(record, fmt, **options) for fmt in fmts]``, ``jobs``
    processes rendering contiguous parts of them
    (:func:`~pfsbench.gate.statistics.forked.ordered_map`), the longest
    first, HTML's history plots last: the same texts."""
    order = sorted(range(len(fmts)), key=lambda i: _BY_COST.index(fmts[i]))
    # HTML (this process's) is drawn apart from its history plots, which
    # the last part draws (half of HTML's time: docs/gate-evidence.md,
    # "Speed: a year of nightlies").
    apart = jobs > 1 and 'html' in fmts
    items = order + [_PLOTS] if apart else order

    def render_part(part):
        return [_render_item(record, fmts, i, apart, options) for i in part]

    done = dict(zip(items, (text for part in ordered_map(
        render_part, items, jobs) for text in part)))
    if apart:
        from pfsbench.gate.report.html import fill
        svgs = done.pop(_PLOTS)
        done = {i: fill(text, svgs) if isinstance(text, list) else text
                for i, text in done.items()}
    return [done[i] for i in range(len(fmts))]


#: :func:`render_all`'s item of HTML's history plots.
_PLOTS = -1


def _render_item(record, fmts, i, apart, options):
    """:func:`render_all`'s item ``i``: ``fmts[i]`` rendered, or with
    ``apart`` HTML's lines without its plots, or the plots' SVGs
    (``_PLOTS``)."""
    if not apart or (i != _PLOTS and fmts[i] != 'html'):
        return render(record, fmts[i], **options)

    from pfsbench.gate.report.html import drawn_plots, html_parts
    with rendering(record):
        return (drawn_plots if i == _PLOTS else html_parts)(record,
                                                            **options)


def _render(record, fmt, max_plots, all_figures, triage):
    """:func:`render` in a format other than JSON."""
    if fmt == 'text':
        from pfsbench.gate.report.tables import render_text
        return render_text(record, all_figures, triage)

    if fmt == 'markdown':
        from pfsbench.gate.report.tables import render_markdown
        return render_markdown(record, all_figures, triage)

    if fmt == 'junit':
        from pfsbench.gate.report.junit import render_junit
        return render_junit(record)

    from pfsbench.gate.report.html import render_html
    return render_html(record, max_plots=max_plots,
                       all_figures=all_figures, triage=triage)


def load_record(path):
    """Read a record written with ``pfsbench gate --format json``."""
    try:
        with open(path) as fp:
            record = json.load(fp)
    except FileNotFoundError:
        raise MissingData(f'{path}: gate record not found') from None
    except ValueError as err:
        raise ConfigError(path, '<json>', None, f'not JSON: {err}') from None

    if not isinstance(record, dict) or record.get('kind') != REPORT_KIND:
        raise ConfigError(path, 'kind', record.get('kind') if
                          isinstance(record, dict) else None,
                          f'expected {REPORT_KIND!r} (write it with '
                          'pfsbench gate --format json)')

    if record.get('format_version') != REPORT_FORMAT_VERSION:
        raise ConfigError(path, 'format_version',
                          record.get('format_version'),
                          'this pfsbench reads report format '
                          f'{REPORT_FORMAT_VERSION}')

    return record
