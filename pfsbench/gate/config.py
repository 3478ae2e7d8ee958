# SPDX-License-Identifier: BSD-3-Clause
"""The gate's settings file (config/gate.yaml): schema, defaults, lookup.

Every key is checked; an error names the file, the dotted key and the
value.  The schema below doubles as the documentation of the file (IO500
style): config/gate.yaml is the commented sample.
"""

import fnmatch
import math
import os
from dataclasses import dataclass, field

import yaml

from pfsbench.errors import ConfigError

#: Where the file lives by default.
DEFAULT_PATH = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
        __file__)))), 'config', 'gate.yaml'
)

FORMAT_VERSION = 1

#: Units whose figure is better when higher (a rate) or lower (a time or a
#: spread).  Matching is exact after stripping spaces.
HIGHER_UNITS = frozenset({
    'B/s', 'KB/s', 'kB/s', 'MB/s', 'GB/s', 'TB/s', 'KiB/s', 'MiB/s',
    'GiB/s', 'TiB/s', 'ops/s', 'kops/s', 'Kops/s', 'Mops/s', 'IOPS',
    'iops', 'op/s', 'files/s', 'items/s', 'req/s',
})
LOWER_UNITS = frozenset({'s', 'ms', 'us', 'ns', 'min', 'h', '%'})
DIRECTIONS = ('higher', 'lower')


def direction_of_unit(unit):
    """``'higher'``, ``'lower'`` or ``None`` for a unit string."""
    unit = (unit or '').replace(' ', '')
    if unit in HIGHER_UNITS:
        return 'higher'

    if unit in LOWER_UNITS:
        return 'lower'

    return None


@dataclass
class Override:
    """Settings for the variables that match ``pattern``."""

    pattern: str
    tolerance: float = None
    direction: str = None
    ignore: bool = False


@dataclass
class GateConfig:
    """Validated gate settings (see config/gate.yaml for each key)."""

    path: str = '<defaults>'
    confidence: float = 0.95
    tolerance: float = 0.05
    inconclusive_exit: int = 0
    min_samples: int = 2
    sample_unit: str = 'repeat'
    night_noise: bool = True
    iteration_moments: bool = True
    changepoint_threshold: float = 5.0
    changepoint_min_segment: int = 3
    changepoint_min_change: float = None
    history_sessions: int = 400
    overrides: list = field(default_factory=list)

    def settings_for(self, check, var, unit):
        """Tolerance, direction and ignore flag of one variable.

        Overrides are tried in file order and later ones win; a pattern
        matches the variable name (``read_bw``) or ``<check>.<variable>``
        (``dd_streaming.read_bw``), with shell wildcards.

        Raises:
            ConfigError: the direction is neither set nor known from the
                unit.
        """
        tol, direction, ignore = self.tolerance, None, False
        for ov in self.overrides:
            if (fnmatch.fnmatchcase(var, ov.pattern) or
                    fnmatch.fnmatchcase(f'{check}.{var}', ov.pattern)):
                if ov.tolerance is not None:
                    tol = ov.tolerance

                if ov.direction is not None:
                    direction = ov.direction

                ignore = ignore or ov.ignore

        if direction is None:
            direction = direction_of_unit(unit)

        if direction is None and not ignore:
            raise ConfigError(
                self.path, f'variables.{check}.{var}.direction', unit,
                'unknown unit: set direction: higher or lower for this '
                'variable'
            )

        return tol, direction, ignore


def _num(path, key, value, lo, hi, integer=False, lo_open=False):
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if ok and integer:
        ok = float(value).is_integer()

    if ok:
        ok = math.isfinite(value) and (value > lo if lo_open else
                                       value >= lo) and value <= hi

    if not ok:
        kind = 'an integer' if integer else 'a number'
        left = '(' if lo_open else '['
        raise ConfigError(path, key, value,
                          f'expected {kind} in {left}{lo}, {hi}]')

    return int(value) if integer else float(value)


def _flag(path, key, value):
    if not isinstance(value, bool):
        raise ConfigError(path, key, value, 'expected true or false')

    return value


def _check_keys(path, prefix, mapping, known):
    """Refuse a key of ``mapping`` that is not in ``known``; ``prefix`` is
    the dotted key of ``mapping`` itself (``'changepoints.'``)."""
    for key in mapping:
        if key not in known:
            raise ConfigError(path, f'{prefix}{key}', mapping[key],
                              'unknown key (known: ' +
                              ', '.join(sorted(known)) + ')')


_TOP_KEYS = {'format_version', 'confidence', 'tolerance',
             'inconclusive_exit', 'min_samples', 'sample_unit',
             'night_noise', 'iteration_moments', 'changepoints',
             'history_sessions', 'variables'}
_CP_KEYS = {'threshold', 'min_segment', 'min_change'}
_VAR_KEYS = {'tolerance', 'direction', 'ignore'}


def parse(data, path):
    """Validate a decoded gate.yaml and return a :class:`GateConfig`."""
    cfg = GateConfig(path=path)
    if data is None:
        return cfg

    if not isinstance(data, dict):
        raise ConfigError(path, '<top>', type(data).__name__,
                          'expected a mapping')

    _check_keys(path, '', data, _TOP_KEYS)

    version = data.get('format_version', FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise ConfigError(path, 'format_version', version,
                          f'this pfsbench reads format {FORMAT_VERSION}')

    if 'confidence' in data:
        cfg.confidence = _num(path, 'confidence', data['confidence'], 0.5,
                              0.9999)

    if 'tolerance' in data:
        cfg.tolerance = _num(path, 'tolerance', data['tolerance'], 0.0, 10.0,
                             lo_open=True)

    if 'inconclusive_exit' in data:
        val = data['inconclusive_exit']
        if val not in (0, 3) or isinstance(val, bool):
            raise ConfigError(path, 'inconclusive_exit', val,
                              'expected 0 (report only) or 3 (missing data)')

        cfg.inconclusive_exit = val

    if 'min_samples' in data:
        cfg.min_samples = _num(path, 'min_samples', data['min_samples'], 1,
                               1000, integer=True)

    if 'sample_unit' in data:
        if data['sample_unit'] not in ('repeat', 'session'):
            raise ConfigError(path, 'sample_unit', data['sample_unit'],
                              'expected repeat or session')

        cfg.sample_unit = data['sample_unit']

    if 'night_noise' in data:
        cfg.night_noise = _flag(path, 'night_noise', data['night_noise'])

    if 'iteration_moments' in data:
        cfg.iteration_moments = _flag(path, 'iteration_moments',
                                      data['iteration_moments'])

    if 'history_sessions' in data:
        cfg.history_sessions = _num(path, 'history_sessions',
                                    data['history_sessions'], 2, 100000,
                                    integer=True)

    cps = data.get('changepoints', {}) or {}
    if not isinstance(cps, dict):
        raise ConfigError(path, 'changepoints', cps, 'expected a mapping')

    _check_keys(path, 'changepoints.', cps, _CP_KEYS)

    if 'threshold' in cps:
        cfg.changepoint_threshold = _num(path, 'changepoints.threshold',
                                         cps['threshold'], 1.0, 100.0)

    if 'min_segment' in cps:
        cfg.changepoint_min_segment = _num(path, 'changepoints.min_segment',
                                           cps['min_segment'], 1, 1000,
                                           integer=True)

    if 'min_change' in cps:
        cfg.changepoint_min_change = _num(path, 'changepoints.min_change',
                                          cps['min_change'], 0.0, 10.0)

    variables = data.get('variables', {}) or {}
    if not isinstance(variables, dict):
        raise ConfigError(path, 'variables', variables, 'expected a mapping '
                          'of variable patterns')

    for pattern, spec in variables.items():
        where = f'variables.{pattern}'
        if not isinstance(spec, dict):
            raise ConfigError(path, where, spec, 'expected a mapping with '
                              'tolerance, direction or ignore')

        ov = Override(pattern=str(pattern))
        _check_keys(path, f'{where}.', spec, _VAR_KEYS)

        if 'tolerance' in spec:
            ov.tolerance = _num(path, f'{where}.tolerance', spec['tolerance'],
                                0.0, 10.0, lo_open=True)

        if 'direction' in spec:
            if spec['direction'] not in DIRECTIONS:
                raise ConfigError(path, f'{where}.direction',
                                  spec['direction'],
                                  'expected higher or lower')

            ov.direction = spec['direction']

        if 'ignore' in spec:
            ov.ignore = _flag(path, f'{where}.ignore', spec['ignore'])

        cfg.overrides.append(ov)

    return cfg


def load(path=None):
    """Read and validate the gate settings.

    Args:
        path: the YAML file; ``None`` means config/gate.yaml if it exists,
            else the built-in defaults.

    Raises:
        ConfigError: a missing file named explicitly, bad YAML, or a bad
            key or value.
    """
    if path is None:
        if not os.path.exists(DEFAULT_PATH):
            return GateConfig()

        path = DEFAULT_PATH

    try:
        with open(path) as fp:
            data = yaml.safe_load(fp)
    except FileNotFoundError:
        raise ConfigError(path, '<file>', path, 'no such file') from None
    except yaml.YAMLError as err:
        raise ConfigError(path, '<yaml>', None,
                          str(err).replace('\n', ' ')) from None

    return parse(data, path)
