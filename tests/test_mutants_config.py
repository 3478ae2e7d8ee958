# SPDX-License-Identifier: BSD-3-Clause
"""The gate's settings (pfsbench.gate.judge.config) through its public
functions, one test per mutant that bench/mutation.py found the rest of
the fast lane letting through (docs/mutation.md)."""

import pytest
import yaml

from pfsbench.core import yamlfile
from pfsbench.core.errors import ConfigError
from pfsbench.gate.judge import config


def test_a_unit_is_read_without_its_spaces():
    assert config.direction_of_unit('MiB / s') == 'higher'
    assert config.direction_of_unit(' ms ') == 'lower'
    assert config.direction_of_unit(None) is None


def test_an_override_matches_check_dot_variable():
    cfg = config.parse({'variables': {'dd.read_bw': {'tolerance': 0.2}}},
                       'g.yaml')
    assert cfg.settings_for('dd', 'read_bw', 'MB/s') == (0.2, 'higher',
                                                         False)
    assert cfg.settings_for('io', 'read_bw', 'MB/s') == (0.05, 'higher',
                                                         False)


def test_an_unknown_unit_is_named_with_the_file_and_variable():
    cfg = config.parse({}, 'g.yaml')
    with pytest.raises(ConfigError) as refused:
        cfg.settings_for('dd', 'odd', 'furlongs')
    assert str(refused.value) == (
        "g.yaml:variables.dd.odd.direction: 'furlongs': unknown unit: set "
        'direction: higher or lower for this variable')


def test_a_store_with_a_password_is_named_with_the_file():
    with pytest.raises(ConfigError) as refused:
        config.parse({'store': 'postgresql://u:secret@h/db'}, 'g.yaml')
    assert str(refused.value).startswith('g.yaml:store: ')
    assert 'secret' not in str(refused.value)
    assert str(refused.value).endswith(
        "holds a password: give it in PGPASSFILE (~/.pgpass) or a "
        "pg_service.conf service's passfile, never in the gate settings")


def test_lookback_pooled_sets_its_three_settings():
    cfg = config.parse({'lookback': {'pooled': {
        'rule': 'cusum', 'nights': 5, 'cusum_h': 4.0}, 'nights': 20}},
        'g.yaml')
    assert (cfg.lookback_pooled, cfg.lookback_pooled_nights,
            cfg.lookback_cusum_h, cfg.lookback_nights) == ('cusum', 5, 4.0,
                                                           20)
    # YAML reads a bare `off` as false.
    off = config.parse({'lookback': {'pooled': {'rule': False}}}, 'g.yaml')
    assert off.lookback_pooled == 'off'
    assert off.lookback_pooled_nights == 7


def test_every_section_lands_on_its_setting():
    cfg = config.parse({
        'format_version': 1, 'tolerance': 0.1,
        'changepoints': {'threshold': 4.0, 'min_segment': 5,
                         'min_change': 0.2},
        'lookback': {'nights': 30, 'level': 'recent', 'detect': 0.3,
                     'match': ['job_nodelist'], 'marker': 'why'},
        'variables': {'*_bw': {'ignore': True}}}, 'g.yaml')
    assert (cfg.tolerance, cfg.changepoint_threshold,
            cfg.changepoint_min_segment, cfg.changepoint_min_change) == \
        (0.1, 4.0, 5, 0.2)
    assert (cfg.lookback_nights, cfg.lookback_level, cfg.lookback_detect,
            cfg.lookback_match, cfg.lookback_marker) == \
        (30, 'recent', 0.3, ('job_nodelist',), 'why')
    assert cfg.overrides == [config.Override(pattern='*_bw', ignore=True)]
    assert cfg.path == 'g.yaml'


def test_detect_below_the_tolerance_is_named():
    with pytest.raises(ConfigError) as refused:
        config.parse({'tolerance': 0.1, 'lookback': {'detect': 0.05}},
                     'g.yaml')
    assert str(refused.value) == (
        "g.yaml:lookback.detect: 0.05: must be at least the tolerance "
        "(0.1): a pass rules out a loss of detect, a regression needs one "
        "beyond the tolerance")
    same = config.parse({'tolerance': 0.1, 'lookback': {'detect': 0.1}},
                        'g.yaml')
    assert same.lookback_detect == 0.1


def test_later_overrides_win_and_ignore_or_unstable_stick():
    cfg = config.parse({'variables': {
        'read_*': {'tolerance': 0.2, 'direction': 'lower', 'ignore': True,
                   'unstable': True},
        'read_bw': {'tolerance': 0.3}}}, 'g.yaml')
    assert cfg.variable('dd', 'read_bw', 'MB/s') == (0.3, 'lower', True,
                                                     True)
    assert cfg.variable('dd', 'write_bw', 'MB/s') == (0.05, 'higher',
                                                      False, False)
    # An ignored variable of an unknown unit has no direction, no error.
    quiet = config.parse({'variables': {'odd': {'ignore': True}}}, 'g.yaml')
    assert quiet.variable('dd', 'odd', 'furlongs') == (0.05, None, True,
                                                       False)


def test_load_names_a_missing_file_and_bad_yaml(tmp_path):
    missing = tmp_path / 'none.yaml'
    with pytest.raises(ConfigError) as refused:
        config.load(str(missing))
    assert str(refused.value) == f"{missing}:<file>: '{missing}': no such file"
    bad = tmp_path / 'bad.yaml'
    bad.write_text('tolerance: [1\n')
    with pytest.raises(ConfigError) as refused:
        config.load(str(bad))
    with open(bad) as fp, pytest.raises(yaml.YAMLError) as why:
        yamlfile.safe_load(fp)
    assert '\n' in str(why.value)
    assert str(refused.value) == \
        f"{bad}:<yaml>: None: {' '.join(str(why.value).splitlines())}"
    good = tmp_path / 'good.yaml'
    good.write_text('tolerance: 0.2\n')
    assert config.load(str(good)).tolerance == 0.2


def test_load_without_a_path_reads_the_default_file_or_the_defaults(
        tmp_path, monkeypatch):
    monkeypatch.setattr(config, 'DEFAULT_PATH', str(tmp_path / 'no.yaml'))
    assert config.load() == config.GateConfig()
    (tmp_path / 'no.yaml').write_text('tolerance: 0.3\n')
    assert config.load().tolerance == 0.3
    assert config.load().path == str(tmp_path / 'no.yaml')


def test_an_unreadable_store_url_is_named_redacted():
    with pytest.raises(ConfigError) as refused:
        config.parse({'store': 'postgresql://u:pw@h:notaport/db'}, 'g.yaml')
    text = str(refused.value)
    assert text.startswith('g.yaml:store: ') and 'pw' not in text
    assert text.endswith('expected postgresql://USER@HOST[:PORT]/DB'
                         '[?KEY=VALUE&...], a file or sqlite:///PATH')
