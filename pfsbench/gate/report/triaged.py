# SPDX-License-Identifier: BSD-3-Clause
"""The site's own triage record in the gate's reports (docs/triage.md):
its pages over the last nights and how its people marked them, and, for
a case the report shows, the newest mark of its pages (who, why).  The
gate passes the record where it reads a results store; a report without
one shows nothing of it."""


#: A mark as the reports name it.
MARK_WORDS = {'invalid': 'invalid (noise)', 'ack': 'acknowledged'}


def record_line(rec):
    """``'triage record of hawk: 90 night(s) A .. B: 4 page(s), 3 marked
    invalid, ...'`` of a :func:`pfsbench.store.triage.record`."""
    counts = tally(rec)
    return (
        f"triage record of {rec['system']}: {rec['nights']} night(s) "
        f"{rec['first']} .. {rec['last']}: {counts['paged']} page(s), "
        f"{counts['invalid']} marked invalid, {counts['ack']} "
        f"acknowledged, {counts['open']} not triaged; {counts['held']} "
        'held (not paged)')


def marked_lines(rec, cases):
    """One line per case of ``cases`` whose pages the record holds
    marked: its newest marked page, with who marked it and why."""
    shown = {c.case for c in cases}
    newest = {}
    for page in rec['pages']:
        # The record lists the pages night by night: the last one wins.
        if page['mark'] and page['name'] in shown:
            newest[page['name']] = page
    return [f"{name} {p['figure']}: {p['kind']} on {p['night']} "
            f"(session {p['session'][:8]}), marked "
            f"{MARK_WORDS.get(p['mark'], p['mark'])} by {p['who']}: "
            f"{p['why']}" for name, p in sorted(newest.items())]


def lines(rec, cases):
    """The record's line, then the marks of the cases shown; ``[]``
    without a record."""
    if rec is None:
        return []
    return [record_line(rec)] + marked_lines(rec, cases)


def tally(rec):
    """``{'paged', 'held', 'invalid', 'ack', 'open'}`` of a
    :func:`record`: pages and held cases, and how the pages were marked
    (``open``: not yet)."""
    paged = [p for p in rec['pages'] if p['kind'] == 'paged']
    return {'paged': len(paged),
            'held': sum(p['kind'] == 'held' for p in rec['pages']),
            'invalid': sum(p['mark'] == 'invalid' for p in paged),
            'ack': sum(p['mark'] == 'ack' for p in paged),
            'open': sum(p['mark'] is None for p in paged)}
