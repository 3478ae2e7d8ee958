# SPDX-License-Identifier: BSD-3-Clause
"""The JSON Schemas of pfsbench's files and the messages they give: file,
dotted key, value and why, as the hand-written checks they replace did."""

import copy
import json
from importlib import resources

import jsonschema
import pytest
import yaml

from pfsbench import schemas
from pfsbench.core.errors import ConfigError
from pfsbench.gate.judge import baseline, config as gate_config
from pfsbench.site.config import extras_value, validate_extras

SCHEMA_FILES = sorted(p.name for p in resources.files('pfsbench.schemas')
                      .iterdir() if p.name.endswith('.json'))


def test_the_five_schemas_are_valid_draft_2020_12():
    assert SCHEMA_FILES == ['baseline.json', 'extras.json', 'gate.json',
                            'references.json', 'target.json']
    for name in SCHEMA_FILES:
        jsonschema.Draft202012Validator.check_schema(schemas.load(name))


def _extras_error(extras):
    with pytest.raises(ConfigError) as info:
        validate_extras(extras, 'sys.py', 'extras')
    return str(info.value)


@pytest.mark.parametrize('extras,message', [
    ({'independent_targets': 'yes'},
     "sys.py:extras.independent_targets: 'yes': expected true or false"),
    ({'target_lock_timeout': 0},
     'sys.py:extras.target_lock_timeout: 0: must be greater than 0'),
    ({'target_lock_timeout': '1h'},
     "sys.py:extras.target_lock_timeout: '1h': expected a number"),
    # An integer is an int: 4.0 would reach a command line as "4.0".
    ({'max_nodes': 4.0}, 'sys.py:extras.max_nodes: 4.0: expected an integer'),
    ({'targets': [{'name': 'a', 'path': ''}]},
     "sys.py:extras.targets[a].path: '': must not be empty"),
    ({'targets': {'name': 'a'}},
     "sys.py:extras.targets: {'name': 'a'}: expected a list"),
    ({'nightly_budget_hours': -1},
     'sys.py:extras.nightly_budget_hours: -1: must be at least 0'),
    ({'nightly_budget_hours': '2h'},
     "sys.py:extras.nightly_budget_hours: '2h': expected a number"),
])
def test_extras_messages(extras, message):
    assert _extras_error(extras) == message


def test_the_first_problem_in_the_file_is_named():
    # Not the schema's order (max_nodes comes before spack_env there).
    assert 'extras.spack_env:' in _extras_error({'spack_env': 1,
                                                 'max_nodes': 0})
    assert 'extras.max_nodes:' in _extras_error({'max_nodes': 0,
                                                 'spack_env': 1})


def test_new_extras_defaults_come_from_the_schema():
    validate_extras({'independent_targets': True, 'target_lock_timeout': 90},
                    'sys.py', 'extras')
    assert extras_value({}, 'independent_targets') is False
    assert extras_value({}, 'target_lock_timeout') == 3600
    assert extras_value({'target_lock_timeout': 90},
                        'target_lock_timeout') == 90
    # The nightly's window (issue 36): 2 h where a partition sets none.
    assert extras_value({}, 'nightly_budget_hours') == 2
    validate_extras({'nightly_budget_hours': 0.5}, 'sys.py', 'extras')


@pytest.mark.parametrize('text,message', [
    ('min_samples: 2.5\n',
     'gate.yaml:min_samples: 2.5: expected an integer in [1, 1000]'),
    ('confidence: .nan\n',
     'gate.yaml:confidence: nan: expected a number in [0.5, 0.9999]'),
    ('inconclusive_exit: 1\n', 'gate.yaml:inconclusive_exit: 1: expected 0 '
     '(report only) or 3 (missing data)'),
    ('sample_unit: night\n',
     "gate.yaml:sample_unit: 'night': expected repeat or session"),
    ('format_version: 2\n',
     'gate.yaml:format_version: 2: this pfsbench reads format 1'),
    ('changepoints:\n  thresh: 3\n', 'gate.yaml:changepoints.thresh: 3: '
     'unknown changepoints key; known: min_change, min_segment, threshold'),
    ('variables:\n  w:\n    tol: 1\n', 'gate.yaml:variables.w.tol: 1: '
     'unknown variable setting key; known: direction, ignore, tolerance, '
     'unstable'),
    ('variables:\n  w: 5\n', 'gate.yaml:variables.w: 5: expected a mapping '
     'with tolerance, direction or ignore'),
    ('- 1\n', 'gate.yaml:<top>: [1]: expected a mapping'),
    ('rule: zscore\n',
     "gate.yaml:rule: 'zscore': expected lookback or interval"),
    ('lookback:\n  level: yesterday\n',
     "gate.yaml:lookback.level: 'yesterday': expected baseline or recent"),
    ('lookback:\n  match: job_nodelist\n', "gate.yaml:lookback.match: "
     "'job_nodelist': expected a list of tag names"),
    ('lookback:\n  nights: 2\n',
     'gate.yaml:lookback.nights: 2: expected an integer in [3, 100000]'),
    ('lookback:\n  detect: 0.02\n', 'gate.yaml:lookback.detect: 0.02: '
     'must be at least the tolerance (0.05): a pass rules out a loss of '
     'detect, a regression needs one beyond the tolerance'),
    ('variables:\n  read_bw:\n    unstable: 1\n',
     'gate.yaml:variables.read_bw.unstable: 1: expected true or false'),
])
def test_gate_settings_messages(text, message):
    with pytest.raises(ConfigError) as info:
        gate_config.parse(yaml.safe_load(text), 'gate.yaml')
    assert str(info.value) == message


def test_gate_settings_are_applied():
    cfg = gate_config.parse(yaml.safe_load(
        'confidence: 0.9\nmin_samples: 3\nchangepoints:\n  min_segment: 4\n'
        'variables:\n  "*_x":\n    tolerance: 0.5\n    ignore: true\n'),
        'gate.yaml')
    assert (cfg.confidence, cfg.min_samples, cfg.changepoint_min_segment) \
        == (0.9, 3, 4)
    [override] = cfg.overrides
    assert (override.pattern, override.tolerance, override.ignore) == \
        ('*_x', 0.5, True)
    assert gate_config.parse(None, 'empty.yaml').tolerance == \
        gate_config.GateConfig().tolerance


GOOD_BASELINE = {
    'format_version': 1, 'kind': 'pfsbench-baseline', 'name': 'pre',
    'sessions': [{'uuid': 'u0', 'time_start': 0.0}],
    'cases': [{'name': 'c', 'system': 's', 'partition': 'p',
               'environ': 'e', 'perfvars': {'bw': {
                   'unit': 'MB/s', 'values': [1.0, 2.0],
                   'session_index': [0, 0], 'iterations': [3, 3]}}}],
}


def _baseline_error(path, value):
    data = copy.deepcopy(GOOD_BASELINE)
    node = data
    for key in path[:-1]:
        node = node[key]
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    with pytest.raises(ConfigError) as info:
        baseline.validate(data, 'b.json')
    return str(info.value)


PV = ['cases', 0, 'perfvars', 'bw']


@pytest.mark.parametrize('path,value,message', [
    (['kind'], 'x', "b.json:kind: 'x': expected 'pfsbench-baseline'"),
    (['cases'], None, 'b.json:cases: None: required'),
    (PV + ['values'], [], 'b.json:cases.0.perfvars.bw.values: []: '
     'expected a non-empty list of numbers'),
    (PV + ['values'], [1.0, 'x'],
     "b.json:cases.0.perfvars.bw.values.1: 'x': expected a number"),
    (PV + ['iterations'], [3, 0],
     'b.json:cases.0.perfvars.bw.iterations.1: 0: must be at least 1'),
    # Cross-field rules, in code.
    (PV + ['session_index'], [0, 1], 'b.json:cases.0.perfvars.bw.'
     'session_index: [0, 1]: expected 2 indexes into sessions (0..0)'),
    (PV + ['iterations'], [3], 'b.json:cases.0.perfvars.bw.iterations: '
     '[3]: expected 2 iteration counts >= 1'),
])
def test_baseline_messages(path, value, message):
    assert _baseline_error(path, value) == message


def test_good_baseline_and_the_versions_come_from_the_schema():
    baseline.validate(json.loads(json.dumps(GOOD_BASELINE)), 'b.json')
    assert (baseline.FORMAT_VERSION, baseline.KIND) == (1, 'pfsbench-baseline')
