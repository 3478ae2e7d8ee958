# SPDX-License-Identifier: BSD-3-Clause
"""What the nightly posts: the gate's one-screen verdict, as a chat
message (Slack, Mattermost: ``{"text": ...}``) or as alerts
(Alertmanager's ``POST /api/v2/alerts``), and when (docs/notify.md)."""

from pfsbench.core.errors import ConfigError
from pfsbench.gate.judge.rows import case_rows
from pfsbench.gate.report.plots import night_kind
from pfsbench.gate.report.tables import change_cells, headline
from pfsbench.store import night_of

#: What may make the nightly post: a regression (a page), a loss the gate
#: held back as inconclusive, a store that did not take the night.
TRIGGERS = ('regression', 'hold', 'store')

#: The payload forms.
FORMS = ('slack', 'alertmanager')

#: The cases a message lists before it says how many more there are.
MAX_CASES = 10


def parse_triggers(text, where='--on'):
    """``'regression,hold'`` -> ``('regression', 'hold')``; a name not in
    :data:`TRIGGERS` is a ConfigError naming it."""
    names = tuple(t.strip() for t in text.split(',') if t.strip())
    for name in names:
        if name not in TRIGGERS:
            raise ConfigError('<command line>', where, name,
                              f'expected a comma-separated list of '
                              f'{", ".join(TRIGGERS)}')
    if not names:
        raise ConfigError('<command line>', where, text,
                          f'expected one or more of {", ".join(TRIGGERS)}')
    return names


def _noted(record):
    """``[(kind, case row)]`` of the cases that paged or were held."""
    if record is None:
        return []
    out = []
    for case in case_rows(record):
        kind = night_kind(case.primary.verdict, case.primary.reason or '')
        if kind in ('paged', 'held'):
            out.append((kind, case))
    return out


def pages(record):
    """``[(night, session, name, figure, kind, change)]`` of the cases
    that paged (``paged``) or were held (``held``) in a gate ``record``,
    as :mod:`pfsbench.store.triage` keeps them."""
    starts = {s['uuid']: s['time_start']
              for s in record.get('current_sessions') or ()}
    return [(night_of(starts.get(case.session, 0.0)), case.session,
             case.case, case.primary.var, kind, case.primary.change)
            for kind, case in _noted(record)]


def fired(record, store_down, triggers):
    """The triggers among ``triggers`` tonight's ``record`` (the gate's
    JSON record, None where the gate wrote none) and the store meet."""
    kinds = {kind for kind, _ in _noted(record)}
    met = {'regression': 'paged' in kinds, 'hold': 'held' in kinds,
           'store': bool(store_down)}
    return tuple(t for t in triggers if met[t])


def text_of(record, cluster, store_down, link=None, note=None):
    """The one-screen verdict: the gate's headline, one line per case
    that paged or was held (the first :data:`MAX_CASES`), the store's
    state, a ``note`` (the nightly's: the site's triage record) and where
    the reports are."""
    on = f' on {cluster}' if cluster else ''
    lines = []
    if record is not None:
        verdict, counts = headline(record)
        lines.append(f'pfsbench gate{on}: {verdict}: {counts}')
        noted = _noted(record)
        for kind, case in noted[:MAX_CASES]:
            change, interval = change_cells(case.primary)
            label = 'regression' if kind == 'paged' else 'held (not paged)'
            lines.append(f'{label}: {case.case} {case.primary.var} '
                         f'{change} {interval}')
        if len(noted) > MAX_CASES:
            lines.append(f'... and {len(noted) - MAX_CASES} more cases')
    else:
        lines.append(f'pfsbench nightly{on}: the gate wrote no record')
    if store_down:
        lines.append(f'results store: {store_down}')
    if note:
        lines.append(note)
    if link:
        lines.append(f'reports: {link}')
    return '\n'.join(lines)


def compose(record, form, *, cluster='', store_down='', link=None,
            note=None, triggers=()):
    """The payload (JSON-serialisable) of ``form`` (:data:`FORMS`)."""
    text = text_of(record, cluster, store_down, link, note)
    if form == 'slack':
        return {'text': text}
    summary = text.splitlines()[0]
    labels = {'alertname': 'PfsbenchNightly', 'severity': 'warning',
              'cluster': cluster or 'unknown'}
    alerts = []
    for trigger in triggers or ('regression',):
        alert = {'labels': dict(labels, reason=trigger),
                 'annotations': {'summary': summary, 'description': text}}
        if link and link.startswith(('http://', 'https://')):
            alert['generatorURL'] = link
        alerts.append(alert)
    return alerts
