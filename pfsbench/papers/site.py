# SPDX-License-Identifier: BSD-3-Clause
"""A site's figures beside the seeds' published ones: which checks,
parameters and figure a paper record matches (:data:`COMPARISONS`), the
site's means read from the gate's results, and ReFrame references built
from the published figures (see :mod:`pfsbench.papers`)."""

import dataclasses
from dataclasses import dataclass

from pfsbench.papers.published import figures_of

#: Units a site's figure is converted from, to compare with a paper's.
UNIT_SCALE = {('GB/s', 'MB/s'): 1000.0, ('MB/s', 'MB/s'): 1.0,
              ('MiB/s', 'MiB/s'): 1.0, ('ops/s', 'ops/s'): 1.0}


# What a paper record is compared with: the checks that encode the
# experiment, the record keys that are check parameters (same name, same
# value), and per operation the figure name (plus any parameter the
# operation itself fixes).  ``peak_over``: the record is a sweep's peak,
# compared with the peak of the site's sweep over that parameter.
@dataclass(frozen=True)
class Comparison:
    checks: tuple
    params: tuple
    figures: dict
    peak_over: str = None


_MDTEST_FIGURES = {op: (op.replace(' ', '_'), {}) for op in (
    'dir create', 'dir stat', 'dir remove', 'file create', 'file stat',
    'file remove')}
_METABENCH_FIGURES = {
    f'{verb} {where}': (figure, {'directory': directory})
    for verb, figure in (('create', 'file_create'), ('STAT', 'file_stat'),
                         ('del', 'file_remove'))
    # 'same di': the source's own truncation, kept verbatim.
    for where, directory in (('diff dir', 'different'),
                             ('same dir', 'same'), ('same di', 'same'))}

COMPARISONS = {
    'E6': Comparison(('dd_stream_per_node',), ('file_system',),
                     {'write': ('write_bw_sum', {}),
                      'read': ('read_bw_sum', {})}, peak_over='nodes'),
    'E7': Comparison(('bonnie_per_node', 'bonnie_averaged_per_node'),
                     ('file_system',),
                     {'write': ('block_write_bw_trimmed', {}),
                      'read': ('block_read_bw_trimmed', {})},
                     peak_over='nodes'),
    'E11': Comparison(('ior_mpiio_fpp_bandwidth',), ('tasks',),
                      {'write': ('write_bw', {}), 'read': ('read_bw', {})}),
    'E15': Comparison(('mdtest_e15_metabench_standin',), ('clients', 'np'),
                      _METABENCH_FIGURES),
    'E16': Comparison(('mdsrate_e16', 'mdtest_e16_mdsrate_standin'),
                      ('clients', 'np'),
                      {'create': ('file_create', {}),
                       'stat': ('file_stat', {}),
                       'unlink': ('file_remove', {})}),
    'E17': Comparison(('mdtest_e17_stride_sync',), ('clients', 'np'),
                      _MDTEST_FIGURES),
}


def _same(param_value, record_value):
    return str(param_value) == str(record_value)


def site_means(results, session_uuids, name_filter=None):
    """Each case's figures as the gate reads them
    (:func:`pfsbench.gate.history.results.session_figures` of the latest
    current session holding it), except that repeats measured under foreign load
    are kept, and counted: beside a paper, a site's figure is its figure,
    marked, where the gate leaves it out of a verdict.

    Returns:
        ``{CaseKey: ({var: (mean, values)}, {var: unit}, contended)}``.
    """
    from pfsbench.gate.history.results import session_figures

    start = {u: results.sessions[u].time_start for u in set(session_uuids)}
    latest = {}
    for uuid in sorted(start, key=start.get):
        for key, records in results.case_records(uuid).items():
            if name_filter is None or name_filter.search(key.name):
                latest[key] = records
    out = {}
    for key, records in latest.items():
        kept = [dataclasses.replace(r, contended=False) for r in records]
        groups = session_figures(kept).get(key)
        if groups:
            units = {var: unit for r in records
                     for var, (_, unit) in r.perf.items()}
            out[key] = (groups[-1][1], units,
                        sum(r.contended for r in records))
    return out


def site_figures(experiment, figures, results, session_uuids,
                 name_filter=None):
    """The site's figure beside each paper figure both have.

    Args:
        experiment: ``'E16'``.
        figures: the paper's :class:`Figure` tuple of it.
        results: the gate's :class:`~pfsbench.gate.history.results.Results`.
        session_uuids: the sessions that make up the site's run.
        name_filter: optional compiled regex on the case name.

    Returns:
        a list of dicts: ``check``, ``system``, ``partition``, ``case``,
        ``var``, ``value`` (in the paper's unit), ``unit``, ``n``
        (repeats), ``contended`` (of them, under foreign load), ``at`` (a
        peak's count, or None), ``paper`` (the :class:`Figure`), ``ratio``
        (site / paper).
    """
    how = COMPARISONS.get(experiment)
    if how is None:
        return []
    means = {key: found for key, found in site_means(
        results, session_uuids, name_filter).items()
        if key.check in how.checks}
    out = []
    for fig in figures:
        var, fixed = how.figures.get(fig.operation, (None, {}))
        candidates = []
        for key, (values, units, contended) in means.items():
            scale = UNIT_SCALE.get((fig.unit, units.get(var)))
            params = key.params
            wanted = {**{p: fig.get(p) for p in how.params
                         if p in params}, **fixed}
            if var not in values or scale is None or not all(
                    _same(params.get(p), v) for p, v in wanted.items()):
                continue
            mean, samples = values[var]
            candidates.append((key, mean / scale, len(samples), contended))
        if how.peak_over:
            # The published figure is the peak of a sweep: the site's is
            # the peak of its sweep (per check, partition and the other
            # parameters), and where it fell.
            best = {}
            for cand in candidates:
                key = cand[0]
                group = (key.check, key.system, key.partition, key.environ,
                         tuple((k, v) for k, v in key.params.items()
                               if k != how.peak_over))
                if group not in best or cand[1] > best[group][1]:
                    best[group] = cand
            candidates = list(best.values())
        for key, value, n, contended in candidates:
            out.append({
                'check': key.check, 'system': key.system,
                'partition': key.partition, 'case': key.name, 'var': var,
                'value': value, 'unit': fig.unit, 'n': n,
                'contended': contended,
                'at': (key.params.get(how.peak_over) if how.peak_over
                       else None),
                'paper': fig, 'ratio': value / fig.value})
    return out


def reference(experiment, where, index, lower=-0.10, upper=None):
    """A ReFrame reference built from the paper's figures (references
    come from the data, never retyped).

    Args:
        experiment: ``'E16'``.
        where: ``{record key: value or [values]}`` the figures must match
            (``{'lustre': '2.0'}``; a list: any of them).
        index: the record keys that are the check's ``$index`` after
            ``$partition``, in order (``['clients', 'np']``).
        lower, upper: the bounds of every figure.

    Returns:
        ``{index value: ... {figure: [value, lower, upper, unit]}}``, the
        nesting of a reference file entry below its partition.

    Raises:
        KeyError: an index key the figures do not have.
        ValueError: two selected figures at one point.
    """
    how = COMPARISONS[experiment]
    _, figures = figures_of(experiment)
    out = {}
    for fig in figures:
        if not all(str(fig.get(k)) in (
                [str(x) for x in v] if isinstance(v, list) else [str(v)])
                for k, v in where.items()):
            continue
        var, fixed = how.figures[fig.operation]
        point = {**dict(fig.point), **fixed}
        node = out
        for key in index:
            node = node.setdefault(point[key], {})
        if var in node:
            raise ValueError(f'two figures for {var} at '
                             f'{[point[k] for k in index]}: lines '
                             f'{node[var][-1]} and {fig.lineno}')
        node[var] = [fig.value, lower, upper, fig.unit, fig.lineno]
    _drop_linenos(out)
    return out


def _drop_linenos(node):
    for key, sub in node.items():
        if isinstance(sub, list):
            node[key] = sub[:4]
        else:
            _drop_linenos(sub)
