# SPDX-License-Identifier: BSD-3-Clause
"""The gate's settings file (config/gate.yaml): defaults, checks, lookup.

Every key is checked against the schema ``pfsbench/schemas/gate.json``
(keys, types, ranges); an error names the file, the dotted key and the
value.  config/gate.yaml is the commented sample of every key (IO500
style); the defaults are :class:`GateConfig`'s.
"""

import fnmatch
import io
import os
from dataclasses import dataclass, field

import yaml

from pfsbench import schemas
from pfsbench.core import secrets, yamlfile
from pfsbench.core.errors import ConfigError

#: Where the file lives by default.
DEFAULT_PATH = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))), 'config', 'gate.yaml'
)

#: The schema of the settings file (``pfsbench/schemas/``).
SCHEMA = 'gate.json'

#: Units whose figure is better when higher (a rate) or lower (a time or a
#: spread).  Matching is exact after stripping spaces.
HIGHER_UNITS = frozenset({
    'B/s', 'KB/s', 'kB/s', 'MB/s', 'GB/s', 'TB/s', 'KiB/s', 'MiB/s',
    'GiB/s', 'TiB/s', 'ops/s', 'kops/s', 'Kops/s', 'Mops/s', 'IOPS',
    'iops', 'op/s', 'files/s', 'items/s', 'req/s',
    '/s',           # bonnie++'s random seeks per second (its own unit)
    'kIOPS',        # IO500's metadata phases and score (mdtest_io500_phases)
    'score',        # IO500's total, sqrt(GiB/s x kIOPS) (io500_list_run)
})
LOWER_UNITS = frozenset({'s', 'ms', 'us', 'ns', 'min', 'h', '%'})


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
    unstable: bool = False


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
    # Until the history holds the 5 sessions night_noise needs: the
    # repeats of one night alone call a night-to-night wobble a regression.
    assumed_night_cv: float = 0.10
    iteration_moments: bool = True
    changepoint_threshold: float = 5.0
    changepoint_min_segment: int = 3
    changepoint_min_change: float = None
    history_sessions: int = 400
    #: The results store the gate reads (pfsbench.store), or None: the
    #: runs directory.
    store: str = None
    rule: str = 'lookback'
    lookback_nights: int = 60
    lookback_confidence: float = 0.99
    lookback_level: str = 'baseline'
    lookback_detect: float = None
    lookback_outlier_z: float = 3.5
    lookback_match: tuple = ('job_nodelist', 'spack_provenance',
                             'target_path', 'target_fstype', 'io500_valid')
    lookback_marker: str = 'intended_change'
    # The nights since the level began, judged together
    # (pfsbench.gate.judge.pooled): the rule, the most nights (tonight
    # included) and the CUSUM's decision interval.
    lookback_pooled: str = 'window'
    lookback_pooled_nights: int = 7
    lookback_cusum_h: float = 5.0
    # Unchanged nights a site accepts paging it (all figures of all
    # cases): Holm's correction over the night's independent figures.
    night_false_alarms: float = 0.01
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
        tol, direction, ignore, _ = self.variable(check, var, unit)
        return tol, direction, ignore

    def variable(self, check, var, unit):
        """:meth:`settings_for` and whether the variable is in the
        unstable tier (``unstable: true``): ``(tolerance, direction,
        ignore, unstable)``."""
        tol, direction, ignore, unstable = self.tolerance, None, False, False
        for ov in self.overrides:
            if (fnmatch.fnmatchcase(var, ov.pattern) or
                    fnmatch.fnmatchcase(f'{check}.{var}', ov.pattern)):
                if ov.tolerance is not None:
                    tol = ov.tolerance

                if ov.direction is not None:
                    direction = ov.direction

                ignore = ignore or ov.ignore
                unstable = unstable or ov.unstable

        if direction is None:
            direction = direction_of_unit(unit)

        if direction is None and not ignore:
            raise ConfigError(
                self.path, f'variables.{check}.{var}.direction', unit,
                'unknown unit: set direction: higher or lower for this '
                'variable'
            )

        return tol, direction, ignore, unstable


#: Settings keys -> :class:`GateConfig` attributes, where they differ.
_CHANGEPOINT_ATTRS = {'threshold': 'changepoint_threshold',
                      'min_segment': 'changepoint_min_segment',
                      'min_change': 'changepoint_min_change'}


def parse(data, path, checked=None):
    """Validate a decoded gate.yaml and return a :class:`GateConfig`.

    Args:
        data: the decoded YAML (``None`` for an empty file).
        path: the file, for messages.
        checked: ``(content, mark)``: the file's bytes and the mark that
            spares the schema check of bytes that passed it before
            (:func:`pfsbench.schemas.check_once`); the other checks run
            each time.

    Raises:
        ConfigError: a key, type or range the schema refuses.
    """
    _check_store(data, path)
    if checked is None:
        schemas.check(data, SCHEMA, path)
    else:
        schemas.check_once(data, SCHEMA, path, *checked)
    data = data or {}
    cfg = GateConfig(path=path)
    for key, value in data.items():
        if key not in ('format_version', 'changepoints', 'variables',
                       'lookback'):
            setattr(cfg, key, value)

    for key, value in (data.get('changepoints') or {}).items():
        setattr(cfg, _CHANGEPOINT_ATTRS[key], value)

    for key, value in (data.get('lookback') or {}).items():
        if key == 'pooled':
            for sub, val in (value or {}).items():
                # YAML reads a bare `off` as false.
                val = 'off' if val is False else val
                setattr(cfg, {'rule': 'lookback_pooled',
                              'nights': 'lookback_pooled_nights',
                              'cusum_h': 'lookback_cusum_h'}[sub], val)
            continue

        setattr(cfg, f'lookback_{key}',
                tuple(value) if key == 'match' else value)

    if cfg.lookback_detect is not None and \
            cfg.lookback_detect < cfg.tolerance:
        raise ConfigError(path, 'lookback.detect', cfg.lookback_detect,
                          'must be at least the tolerance '
                          f'({cfg.tolerance}): a pass rules out a loss of '
                          'detect, a regression needs one beyond the '
                          'tolerance')

    for pattern, spec in (data.get('variables') or {}).items():
        cfg.overrides.append(Override(pattern=str(pattern), **spec))

    return cfg


def _check_store(data, path):
    """``store:`` names a store, never with a password: the settings are
    a file of the repository (docs/results-store.md).  The URL is shown
    redacted."""
    url = data.get('store') if isinstance(data, dict) else None
    if isinstance(url, str) and secrets.unreadable(url):
        raise ConfigError(path, 'store', secrets.redact(url),
                          'expected postgresql://USER@HOST[:PORT]/DB'
                          '[?KEY=VALUE&...], a file or sqlite:///PATH')
    if isinstance(url, str) and secrets.holds_password(url):
        raise ConfigError(path, 'store', secrets.redact(url),
                          'holds a password: give it in PGPASSFILE '
                          "(~/.pgpass) or a pg_service.conf service's "
                          'passfile, never in the gate settings')


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
        with open(path, 'rb') as fp:
            content = fp.read()
        data = yamlfile.safe_load(_text_stream(content, path))
    except FileNotFoundError:
        raise ConfigError(path, '<file>', path, 'no such file') from None
    except yaml.YAMLError as err:
        raise ConfigError(path, '<yaml>', None,
                          str(err).replace('\n', ' ')) from None

    return parse(data, path, (content, checked_mark(path)))


def _text_stream(content, path):
    """``content`` read as ``open(path)`` reads the file (the same
    decoding, and the name YAML's messages give): the bytes parsed are
    the bytes whose check the mark records."""
    raw = io.BytesIO(content)
    raw.name = path
    return io.TextIOWrapper(raw)


def checked_mark(path):
    """The file beside the settings recording that their bytes passed
    the schema (:func:`pfsbench.schemas.check_once`), as a baseline's
    (docs/gate-method.md)."""
    directory, name = os.path.split(path)
    return os.path.join(directory, f'.{name}.checked')
