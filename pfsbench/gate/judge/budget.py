# SPDX-License-Identifier: BSD-3-Clause
"""The night's false-alarm budget: how often an unchanged night pages.

A nightly judges many figures (about 20 per case over 6 cases); each
at the lookback rule's one-sided 0.5 % would page on far more than 1
unchanged night in 100.  What a site lives with is the night, so the
gate corrects over the figures it judged:

* figures that move together are one *family* and count once: the
  twins of one phase's rate (``write_bw``, ``write_bw_sum``,
  ``write_bw_trimmed``, ``write_bw_conservative``,
  ``write_node_bw_min/mean/max``: the same bytes over nearly the same
  time), and any figures with exactly the same samples on both sides;
* a family's p-value is its smallest one-sided p (tonight's or the
  pooled nights', :mod:`pfsbench.gate.judge.rule`);
* Holm's step-down over the night's families at ``night_false_alarms``
  (gate.yaml, 1 % by default): the smallest p must be below ``alpha /
  m``, the next below ``alpha / (m - 1)``, ...  A regression whose
  family does not survive is reported as inconclusive, with why.

A night that brings a change the provenance names (``+data=journal``,
a new server version, another IOR build: new since the case's previous
night) is not an unchanged night for that case: its families are judged
at their own level, outside Holm's, so that a collapse with a named
cause is never held green (docs/gate-method.md, "The night's budget":
a -69 % journalled night at p = 0.0063 held over 9 families).  What
this costs is one night per change at the figures' own level; the
nights after are unchanged again, and a loss that lasts is then the
pooled nights'.

Holm rather than Benjamini-Hochberg: BH bounds the share of false
findings among the findings, which on an unchanged night (no true
finding) is the same as the chance of any; but on a night with one real
loss it lets others through at a higher level, and a page names every
figure.  Holm bounds the chance that an unchanged night pages at all,
the rate the site lives with (bench/gate_quality.py, ``--night``).
"""

import re

from pfsbench.core.fields import figure_role
from pfsbench.gate.judge import pooled
from pfsbench.gate.judge.sensitivity import at_level, label

#: A rate figure's twin suffixes: the same phase's bytes over its time,
#: summed, trimmed, the slowest stream's, or per node.
_TWIN = re.compile(r'^(?P<phase>.+?)(_bw(_sum|_trimmed|_conservative)?|'
                   r'_node_bw_(min|mean|max))$')


def family_of(row):
    """``(case, family)`` of a row (a dict of the record)."""
    found = _TWIN.match(row['var'])
    name = f'{found.group("phase")}_bw*' if found else row['var']
    return row['case'], name


def families(rows):
    """``{(case, family): [row, ...]}`` of the rows the lookback rule
    judged with a p-value; rows with the same samples on both sides join
    the first family that holds such a row.  Diagnostic figures
    (:func:`pfsbench.core.fields.figure_role`) are in none: they never
    page, so they spend none of the night's budget."""
    out = {}
    same = {}
    for row in rows:
        p = (row.get('lookback') or {}).get('p')
        if (p is None or row['verdict'] == 'ignored' or
                figure_role(row['var'], row['unit']) == 'diagnostic'):
            continue

        key = family_of(row)
        values = (row['case'], row['unit'], tuple(row['base']['values']),
                  tuple(row['cur']['values']))
        if any(values[2]) or any(values[3]):
            key = same.setdefault(values, key)

        out.setdefault(key, []).append(row)

    return out


def holm(pvalues, alpha):
    """Which of ``pvalues`` Holm's step-down rejects at ``alpha``
    (a list of booleans, in the given order)."""
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    reject = [False] * len(pvalues)
    m = len(pvalues)
    for rank, i in enumerate(order):
        if pvalues[i] > alpha / (m - rank):
            break

        reject[i] = True

    return reject


#: Headline figure families a planned case without nights is taken to
#: have (a rate's read and write phases).
PLAN_FAMILIES = 2


def plan_families(nights_by_case):
    """The headline figure families of a planned night: per case, those
    of its figures' nights (``{case: {var: nights}}``), or
    :data:`PLAN_FAMILIES` where it has none."""
    total = 0
    for case, figs in nights_by_case.items():
        found = {family_of({'var': var, 'case': case}) for var in figs
                 if figure_role(var) == 'headline'}
        total += len(found) or PLAN_FAMILIES

    return total


def plan_level(nights_by_case, alpha):
    """The one-sided level a planned night's figure must reach to page
    when the night's other families are quiet: Holm's first bound,
    ``alpha`` (``night_false_alarms``) over :func:`plan_families`."""
    return alpha / max(plan_families(nights_by_case), 1)


#: What a diagnostic figure's loss is reported as.
DIAGNOSTIC_NOTE = ('diagnostic figure: shown and trended, never pages and '
                   'not counted in the night\'s false-alarm budget '
                   '(docs/gate.md, "Headline and diagnostic figures"); ')


def hold_diagnostics(rows):
    """Marks each row's ``role`` (``'headline'`` or ``'diagnostic'``); a
    diagnostic figure's regression becomes ``inconclusive``, its reason
    saying why.  Returns how many were held."""
    held = 0
    for row in rows:
        row['role'] = figure_role(row['var'], row['unit'])
        if row['role'] == 'diagnostic' and row['verdict'] == 'regression':
            held += 1
            row['verdict'] = 'inconclusive'
            row['reason'] = DIAGNOSTIC_NOTE + row['reason']

    return held


def apply(rows, alpha, causes=None):
    """Holds every regression whose family does not survive Holm's
    correction at ``alpha``: its verdict becomes ``inconclusive`` and
    its reason says why.  Every judged row gets ``lookback['family']``
    and ``lookback['families']`` (how many Holm's correction counted).

    Args:
        rows: the record's row dicts (changed in place).
        alpha: ``night_false_alarms``.
        causes: ``{case: what tonight brings}`` for the cases whose
            night brings a change the provenance names: their families
            are judged at their own level (the module's docstring), and
            a regression's reason says so.

    Returns:
        ``{'families', 'figures', 'alpha', 'held', 'own_level',
        'diagnostics'}`` (``diagnostics``: diagnostic regressions held,
        :func:`hold_diagnostics`).
    """
    causes = causes or {}
    diagnostics = hold_diagnostics(rows)
    fams = families(rows)
    own = [k for k in fams if k[0] in causes]
    keys = [k for k in fams if k[0] not in causes]
    pvalues = [min(r['lookback']['p'] for r in fams[k]) for k in keys]
    reject = holm(pvalues, alpha)
    held = 0
    for key in own:
        for row in fams[key]:
            row['lookback'] = dict(row['lookback'], family=key[1],
                                   families=len(keys), own_level=True)
            if row['verdict'] == 'regression':
                row['reason'] = (
                    'judged at its own level, outside the night\'s '
                    'false-alarm budget: tonight brings '
                    f'{causes[key[0]]}; ' + row['reason'])
    for key, p, ok in zip(keys, pvalues, reject):
        for row in fams[key]:
            row['lookback'] = dict(row['lookback'], family=key[1],
                                   families=len(keys))
            if row['verdict'] == 'regression' and not ok:
                held += 1
                row['lookback']['held'] = True
                row['verdict'] = 'inconclusive'
                row['reason'] = (
                    f'held by the night\'s false-alarm budget: p = {p:.2g}'
                    f' for {key[1]} is not below Holm\'s bound over '
                    f'{len(keys)} independent figure(s) judged tonight '
                    f'(night_false_alarms {alpha:g}); ' + row['reason'])

    return {'families': len(keys),
            'figures': sum(len(v) for v in fams.values()),
            'alpha': alpha, 'held': held, 'own_level': len(own),
            'diagnostics': diagnostics}


def budget_level(row, found):
    """The one-sided level a row's loss must reach to page tonight: Holm's
    first bound over the night's families (a lone loss), or the rule's
    own for a row judged at its own level; ``None`` for a diagnostic."""
    if row.get('role') == 'diagnostic':
        return None
    if (row.get('lookback') or {}).get('own_level') or not found['families']:
        return 1.0

    return found['alpha'] / found['families']


def detects_text(row, level):
    """``'detects >= 48% tonight, >= 22% over the 4 nights since ...'``
    of a row at the night's budget ``level`` (``None``: its rule's own):
    its sensitivity and pooled dicts are set to the budgeted ones."""
    sens = row['sensitivity'] if level is None else \
        at_level(row['sensitivity'], level)
    row['sensitivity'] = sens
    text = label(sens)
    together = row.get('pooled')
    if together and together.get('detect_inputs') and level is not None:
        together['detects'] = pooled.detects_at(
            together['detect_inputs'], min(level, together['alpha']))
    if together and together.get('detects') is not None:
        # What tonight alone finds and what the nights since the level
        # began find together.
        head, _, rest = text.partition(':')
        since = (f' since {together["first"]}' if together.get('first')
                 else '')
        text = (f'{head} tonight, >= {together["detects"]:.0%} over the '
                f'{together["count"]} nights{since}' +
                (f':{rest}' if rest else ''))
    return text


def label_detects(rows, found):
    """Adds to each judged row's reason what it can detect after the
    night's correction (``found``: :func:`apply`'s result): what a blind
    figure cannot see first where that is why it is inconclusive, else
    last."""
    for row in rows:
        if not row.get('sensitivity') or row['verdict'] == 'ignored':
            continue

        text = detects_text(row, budget_level(row, found))
        held = (row.get('lookback') or {}).get('held') or \
            row.get('role') == 'diagnostic'
        if row['sensitivity']['blind'] and not held and \
                row['verdict'] == 'inconclusive':
            row['reason'] = f'{text}; {row["reason"]}'
        else:
            row['reason'] = f'{row["reason"]}; {text}'
