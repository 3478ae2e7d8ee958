# SPDX-License-Identifier: BSD-3-Clause
"""The seeds' published figures as data, and a site's beside them (issue
24, item 6).

One YAML file per seed (``seed001.yaml`` .. ``seed004.yaml`` here): every
figure the seed prints, one record each, with the point it belongs to
(Lustre version, client mode, NP, configuration...), the operation, the
value and unit as printed, and the exact source line (``line``, verbatim,
and ``lineno``).  Seed 000 publishes charts only (axis ticks, no values):
it has no file.

A site's figures come from the gate's own reading of the results
(:func:`pfsbench.gate.store.results.session_figures`): the latest session
holding each case, its mean over the usable repeats (those measured under
foreign load kept, and counted).  :data:`COMPARISONS` says, per
experiment, which checks, which parameters and which figure a paper record
matches.  Where a seed published the peak of a sweep (seed 001's
aggregates), the site's figure is its sweep's peak, with the count it
fell at.
"""

import dataclasses
import functools
import os
from dataclasses import dataclass, field

import yaml

from pfsbench.core import yamlfile
from pfsbench.core.errors import ConfigError, MissingData

#: The seeds with published figures, and their data files.
SEEDS = ('001', '002', '003', '004')
HERE = os.path.dirname(__file__)

#: Keys every record has; every other key is part of its point.
RECORD_KEYS = ('experiment', 'tool', 'operation', 'value', 'unit',
               'lineno', 'line')
#: Keys that describe how the figure was made, not where it is.
NOTE_KEYS = ('statistic', 'over', 'approximate')

#: Units a site's figure is converted from, to compare with a paper's.
UNIT_SCALE = {('GB/s', 'MB/s'): 1000.0, ('MB/s', 'MB/s'): 1.0,
              ('MiB/s', 'MiB/s'): 1.0, ('ops/s', 'ops/s'): 1.0}


@dataclass(frozen=True)
class Figure:
    """One published figure."""

    seed: str
    experiment: str
    tool: str
    operation: str
    value: float
    unit: str
    lineno: int
    line: str
    #: ``((key, value), ...)``: Lustre version, client mode, NP...
    point: tuple = ()
    #: ``((key, value), ...)``: statistic (``peak``), over, approximate.
    notes: tuple = ()

    def get(self, key, default=None):
        return dict(self.point + self.notes).get(key, default)

    def as_dict(self):
        return {'seed': self.seed, 'experiment': self.experiment,
                'tool': self.tool, **dict(self.point), **dict(self.notes),
                'operation': self.operation, 'value': self.value,
                'unit': self.unit, 'lineno': self.lineno, 'line': self.line}


@dataclass(frozen=True)
class Paper:
    seed: str
    source: str
    title: str
    path: str
    figures: tuple = field(default=())


def _check_record(path, i, rec):
    where = f'figures.{i}'
    if not isinstance(rec, dict):
        raise ConfigError(path, where, rec, 'expected a mapping')
    for key in RECORD_KEYS:
        if key not in rec:
            raise ConfigError(path, f'{where}.{key}', None, 'missing')
    value = rec['value']
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(path, f'{where}.value', value, 'expected a number')
    if not isinstance(rec['lineno'], int) or rec['lineno'] < 1:
        raise ConfigError(path, f'{where}.lineno', rec['lineno'],
                          'expected a line number (>= 1)')
    for key in ('experiment', 'tool', 'operation', 'unit', 'line'):
        if not isinstance(rec[key], str) or not rec[key]:
            raise ConfigError(path, f'{where}.{key}', rec[key],
                              'expected a non-empty string')


@functools.lru_cache(maxsize=None)
def load(seed, directory=HERE):
    """The :class:`Paper` of one seed (``'004'``).

    Raises:
        ConfigError: the file is not valid (file, field, value, why).
        MissingData: the seed has no data file.
    """
    path = os.path.join(directory, f'seed{seed}.yaml')
    if not os.path.exists(path):
        raise MissingData(f'{path}: no published figures for seed {seed} '
                          f'(seeds with figures: {", ".join(SEEDS)})')
    with open(path, encoding='utf-8') as fp:
        try:
            data = yamlfile.safe_load(fp)
        except yaml.YAMLError as err:
            raise ConfigError(path, '<file>', None,
                              f'not YAML: {err}') from None
    if not isinstance(data, dict) or not isinstance(data.get('figures'),
                                                    list):
        raise ConfigError(path, 'figures', None, 'expected a list')
    figures = []
    for i, rec in enumerate(data['figures']):
        _check_record(path, i, rec)
        rest = {k: v for k, v in rec.items() if k not in RECORD_KEYS}
        figures.append(Figure(
            seed=str(data.get('seed', seed)), experiment=rec['experiment'],
            tool=rec['tool'], operation=rec['operation'],
            value=float(rec['value']), unit=rec['unit'],
            lineno=rec['lineno'], line=rec['line'],
            point=tuple((k, v) for k, v in rest.items()
                        if k not in NOTE_KEYS),
            notes=tuple((k, v) for k, v in rest.items() if k in NOTE_KEYS)))
    return Paper(seed=str(data.get('seed', seed)),
                 source=str(data.get('source', '')),
                 title=str(data.get('title', '')), path=path,
                 figures=tuple(figures))


def experiments():
    """Every experiment id with published figures, in catalogue order."""
    ids = {f.experiment for seed in SEEDS for f in load(seed).figures}
    return sorted(ids, key=lambda e: int(e[1:]))


def figures_of(experiment):
    """``(paper, figures)`` of one experiment (``'E16'``).

    Raises:
        MissingData: no seed publishes a figure of it.
    """
    for seed in SEEDS:
        paper = load(seed)
        found = tuple(f for f in paper.figures
                      if f.experiment == experiment)
        if found:
            return paper, found
    raise MissingData(f'{experiment}: no seed publishes a figure of it '
                      f'(experiments with figures: '
                      f'{", ".join(experiments())})')


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
    (:func:`pfsbench.gate.store.results.session_figures` of the latest current
    session holding it), except that repeats measured under foreign load
    are kept, and counted: beside a paper, a site's figure is its figure,
    marked, where the gate leaves it out of a verdict.

    Returns:
        ``{CaseKey: ({var: (mean, values)}, {var: unit}, contended)}``.
    """
    from pfsbench.gate.store.results import session_figures

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
        results: the gate's :class:`~pfsbench.gate.store.results.Results`.
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
