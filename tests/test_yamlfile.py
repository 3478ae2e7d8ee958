# SPDX-License-Identifier: BSD-3-Clause
"""pfsbench/core/yamlfile.py: libyaml's parser where PyYAML has it, the
same documents as PyYAML's own, and bytes that are not UTF-8 named."""

import glob
import os

import pytest
import yaml
from conftest import REPO

from pfsbench.core import yamlfile
from pfsbench.core.errors import ConfigError
from pfsbench.gate.judge import config as gate_config
from pfsbench.site import config as site_config

#: Every YAML file the package and the site configuration read.
FILES = sorted(glob.glob(str(REPO / 'pfsbench' / 'papers' / '*.yaml')) +
               glob.glob(str(REPO / 'config' / '**' / '*.yaml'),
                         recursive=True))


@pytest.mark.parametrize('path', FILES, ids=os.path.basename)
def test_the_same_document_as_pyyaml_reads(path):
    with open(path, encoding='utf-8') as fp:
        ours = yamlfile.safe_load(fp)
    with open(path, encoding='utf-8') as fp:
        theirs = yaml.load(fp, Loader=yaml.SafeLoader)
    assert ours == theirs


def test_a_file_that_is_not_utf8_is_named_not_a_traceback(tmp_path):
    bad = tmp_path / 'gate.yaml'
    bad.write_bytes(b'tolerance: 0.05\nname: caf\xe9\n')
    with open(bad) as fp, pytest.raises(yamlfile.NotUtf8,
                                        match='byte 0xe9 at offset 25'):
        yamlfile.safe_load(fp)
    # Each reader turns it into its own error: file, field, why.
    with pytest.raises(ConfigError, match='not UTF-8') as err:
        gate_config.load(str(bad))
    assert str(bad) in str(err.value)
    with pytest.raises(ConfigError, match='not UTF-8') as err:
        site_config.validate_reference_file(str(bad))
    assert 'gate.yaml' in str(err.value)
