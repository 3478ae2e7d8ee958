# SPDX-License-Identifier: BSD-3-Clause
"""The seeds' published figures as data: one YAML file per seed
(``seed001.yaml`` .. ``seed004.yaml`` beside this module), every figure
the seed prints, one record each, with the point it belongs to, the
operation, the value and unit as printed, and the exact source line (see
:mod:`pfsbench.papers`)."""

import functools
import os
from dataclasses import dataclass, field

import yaml

from pfsbench.core import yamlfile
from pfsbench.core.errors import ConfigError, MissingData

#: The seeds with published figures (seed 000 publishes charts only).
SEEDS = ('001', '002', '003', '004')
HERE = os.path.dirname(__file__)

#: Keys every record has; every other key is part of its point.
RECORD_KEYS = ('experiment', 'tool', 'operation', 'value', 'unit',
               'lineno', 'line')
#: Keys that describe how the figure was made, not where it is.
NOTE_KEYS = ('statistic', 'over', 'approximate')

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
