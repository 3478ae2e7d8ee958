# SPDX-License-Identifier: BSD-3-Clause
"""A site file copied from an older pfsbench that imports a moved module
stops with one line naming the file and the new home (docs/systems.md,
"Upgrading a site file")."""

import pytest

from conftest import REPO
from pfsbench.core.errors import ConfigError
from pfsbench.site.config import load_system_file

NEW = 'from pfsbench.load.attribution import lustre_job_stats_command'
OLD = NEW.replace('pfsbench.load', 'pfsbench.runs')


def _copied(tmp_path, old, new):
    text = (REPO / 'config' / 'systems' / 'example_lustre.py').read_text()
    assert old in text
    path = tmp_path / 'mysite.py'
    path.write_text(text.replace(old, new))
    return path


def test_an_old_import_names_the_file_and_the_new_module(tmp_path):
    path = _copied(tmp_path, NEW, OLD)
    with pytest.raises(ConfigError) as info:
        load_system_file(str(path))
    message = str(info.value)
    assert message.startswith(f"{path}:import: 'pfsbench.runs': moved: ")
    assert 'pfsbench.load.attribution' in message
    assert '\n' not in message


def test_a_module_that_never_existed_is_not_called_moved(tmp_path):
    path = _copied(tmp_path, NEW, 'from pfsbench.nowhere import x')
    with pytest.raises(ModuleNotFoundError):
        load_system_file(str(path))


def test_the_shipped_example_loads():
    path = REPO / 'config' / 'systems' / 'example_lustre.py'
    assert load_system_file(str(path))['systems'][0]['name'] == \
        'example_lustre'
