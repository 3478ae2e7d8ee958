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

Holm rather than Benjamini-Hochberg: BH bounds the share of false
findings among the findings, which on an unchanged night (no true
finding) is the same as the chance of any; but on a night with one real
loss it lets others through at a higher level, and a page names every
figure.  Holm bounds the chance that an unchanged night pages at all,
the rate the site lives with (bench/gate_quality.py, ``--night``).
"""

import re

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
    the first family that holds such a row."""
    out = {}
    same = {}
    for row in rows:
        p = (row.get('lookback') or {}).get('p')
        if p is None or row['verdict'] == 'ignored':
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


def apply(rows, alpha):
    """Holds every regression whose family does not survive Holm's
    correction at ``alpha``: its verdict becomes ``inconclusive`` and
    its reason says why.  Every judged row gets ``lookback['family']``
    and ``lookback['families']`` (how many the night judged).

    Args:
        rows: the record's row dicts (changed in place).
        alpha: ``night_false_alarms``.

    Returns:
        ``{'families', 'figures', 'alpha', 'held'}``.
    """
    fams = families(rows)
    keys = list(fams)
    pvalues = [min(r['lookback']['p'] for r in fams[k]) for k in keys]
    reject = holm(pvalues, alpha)
    held = 0
    for key, p, ok in zip(keys, pvalues, reject):
        for row in fams[key]:
            row['lookback'] = dict(row['lookback'], family=key[1],
                                   families=len(keys))
            if row['verdict'] == 'regression' and not ok:
                held += 1
                row['verdict'] = 'inconclusive'
                row['reason'] = (
                    f'held by the night\'s false-alarm budget: p = {p:.2g}'
                    f' for {key[1]} is not below Holm\'s bound over '
                    f'{len(keys)} independent figure(s) judged tonight '
                    f'(night_false_alarms {alpha:g}); ' + row['reason'])

    return {'families': len(keys),
            'figures': sum(len(v) for v in fams.values()),
            'alpha': alpha, 'held': held}
