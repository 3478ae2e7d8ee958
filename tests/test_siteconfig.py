# SPDX-License-Identifier: BSD-3-Clause
"""Validation of pfsbench's site-config keys, scratch paths and references."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import REPO
from pfsbench.core.errors import ConfigError
from pfsbench.site.config import (check_scratch_dir, load_site_configuration,
                                  validate_extras, validate_reference_file,
                                  validate_site_configuration)


def _site(extras=None, sched=None):
    part = {'name': 'p', 'scheduler': 'local', 'launcher': 'local',
            'extras': extras or {}}
    if sched:
        part['sched_options'] = sched
    return {'systems': [{'name': 's', 'hostnames': ['.*'],
                         'partitions': [part]}]}


@pytest.mark.parametrize('extras,field,why', [
    ({'scratch': '/x'}, 'extras.scratch', 'unknown pfsbench extras key'),
    ({'max_nodes': '4'}, 'extras.max_nodes', 'expected an integer'),
    ({'max_nodes': True}, 'extras.max_nodes', 'expected an integer'),
    ({'max_nodes': 0}, 'extras.max_nodes', 'must be at least 1'),
    ({'targets': [{'name': 'a'}]}, 'extras.targets[a].path', 'required'),
    ({'targets': [{'name': 'a', 'path': '/a', 'mount': '/'}]},
     'extras.targets[a].mount', 'unknown target key'),
    ({'targets': [{'name': 'a', 'path': '/a'}, {'name': 'a', 'path': '/b'}]},
     'extras.targets.1.name', 'duplicate target name'),
    # Seed 000's remount: one command line of the job script.
    ({'targets': [{'name': 'a', 'path': '/a', 'remount': ['umount /a']}]},
     'extras.targets[a].remount', 'expected a string'),
    ({'targets': [{'name': 'a', 'path': '/a', 'remount': ''}]},
     'extras.targets[a].remount', 'empty'),
    ({'targets': [{'name': 'a', 'path': '/a',
                   'remount': 'umount /a\nmount /a'}]},
     'extras.targets[a].remount', 'contains a newline'),
])
def test_bad_extras_name_file_field_value(extras, field, why):
    with pytest.raises(ConfigError) as info:
        validate_site_configuration(_site(extras), 'sys.py')
    msg = str(info.value)
    assert msg.startswith(f'sys.py:systems[s].partitions[p].{field}:')
    assert why in msg


def test_unknown_sched_option_is_refused():
    # ReFrame itself ignores it silently.
    with pytest.raises(ConfigError, match='use_node_option'):
        validate_site_configuration(_site(sched={'use_node_option': True}),
                                    'sys.py')
    validate_site_configuration(_site(sched={'use_nodes_option': True}),
                                'sys.py')


def test_good_extras_pass():
    validate_extras({'targets': [{'name': 'scratch', 'path': '/s',
                                  'fstype': 'lustre'}], 'max_nodes': 4},
                    'f', 'x')


def test_scratch_root_and_home_are_refused(tmp_path):
    with pytest.raises(ConfigError, match='is the root directory'):
        check_scratch_dir('/', 'part', 'path')
    with pytest.raises(ConfigError, match='is a home directory'):
        check_scratch_dir('~', 'part', 'path')
    # Even for a dry run rendered for another machine.
    with pytest.raises(ConfigError, match='is the root directory'):
        check_scratch_dir('/tmp/..', 'part', 'path', must_exist=False)


def test_scratch_missing_or_not_a_dir(tmp_path):
    with pytest.raises(ConfigError) as info:
        check_scratch_dir(str(tmp_path / 'nope'), 'local:default',
                          'extras.targets[scratch].path')
    assert str(info.value) == (
        f"local:default:extras.targets[scratch].path: "
        f"'{tmp_path / 'nope'}': does not exist")
    (tmp_path / 'file').write_text('x')
    with pytest.raises(ConfigError, match='is not a directory'):
        check_scratch_dir(str(tmp_path / 'file'), 'p', 'f')
    with pytest.raises(ConfigError, match='undefined environment variable'):
        check_scratch_dir('/scratch/$PFSBENCH_NO_SUCH_VAR', 'p', 'f')
    assert check_scratch_dir(str(tmp_path), 'p', 'f') == str(tmp_path)


def test_scratch_not_writable(open_tmp_path):
    tmp_path = open_tmp_path
    ro = tmp_path / 'ro'
    ro.mkdir(mode=0o500)
    hidden = tmp_path / 'hidden'
    (hidden / 'scratch').mkdir(parents=True)
    hidden.chmod(0o700)
    if os.geteuid() != 0:
        with pytest.raises(ConfigError, match='is not writable'):
            check_scratch_dir(str(ro), 'p', 'f')
        return

    # Root may write anywhere, so ask as an unprivileged user.
    if shutil.which('setpriv') is None:
        pytest.skip('running as root and setpriv is missing: cannot check '
                    'as an unprivileged user')
    # Every parent must be traversable by 'nobody' (pytest's are 0700).
    for parent in [tmp_path] + list(tmp_path.parents):
        if parent.stat().st_mode & 0o001 == 0:
            pytest.skip(f'{parent} is not traversable by an unprivileged '
                        f'user (mode {parent.stat().st_mode & 0o777:o})')

    def as_nobody(path):
        code = ('from pfsbench.site.config import check_scratch_dir as c; '
                f'c({str(path)!r}, "p", "f")')
        proc = subprocess.run(['setpriv', '--reuid=nobody',
                               '--regid=nogroup', '--clear-groups',
                               sys.executable, '-c', code],
                              cwd=str(REPO), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT,
                              universal_newlines=True,
                              env=dict(os.environ, PYTHONPATH=str(REPO)))
        if 'ConfigError' not in proc.stdout:
            pytest.skip(f'nobody cannot run {sys.executable}: '
                        f'{proc.stdout[-300:]}')
        return proc.stdout

    assert f"p:f: '{ro}': is not writable" in as_nobody(ro)
    assert (f"p:f: '{hidden / 'scratch'}': cannot be reached: permission "
            f"denied") in as_nobody(hidden / 'scratch')


def _write(tmp_path, text):
    path = tmp_path / 'sys.yaml'
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize('text,fragment', [
    ('a: [1, 2\n', 'not valid YAML'),
    ('- 1\n', 'expected a mapping of check names'),
    ('c:\n  $index: nodes\n', "c.$index: 'nodes': expected a list"),
    ('c:\n  "s:p":\n    bw: [100, 0.1, null, MB/s]\n',
     'c.s:p.bw: [100, 0.1, None, \'MB/s\']: the lower threshold'),
    ('c:\n  "s:p":\n    bw: [fast, -0.1, null, MB/s]\n',
     'the reference value must be a number'),
    ('c:\n  $index: [$partition, nodes]\n  "s:p":\n    bw: [1, -1, 1, x]\n',
     'c.s:p.bw'),
    ('c:\n  "x:y":\n    bw: [1, -0.1, 0.1, MB/s]\n',
     "unknown system:partition; known: s:p"),
])
def test_bad_reference_files(tmp_path, text, fragment):
    with pytest.raises(ConfigError) as info:
        validate_reference_file(_write(tmp_path, text), {'s:p'})
    assert fragment in str(info.value)
    assert 'sys.yaml' in str(info.value)


def test_good_reference_file(tmp_path):
    path = _write(tmp_path, 'c:\n  $index: [$partition, nodes]\n'
                            '  "s:p":\n    2:\n'
                            '      bw: [100, -0.3, null, MB/s]\n'
                            '      rd: [$xfail, slow disk, [1, -1, 1, s]]\n')
    assert validate_reference_file(path, {'s:p'}) == 2


def test_shipped_config_and_references_are_valid():
    config, _ = load_site_configuration(str(REPO / 'config'))
    names = [s['name'] for s in config['systems']]
    assert names[-1] == 'local'      # matches every host: must come last
    assert {'local', 'localslurm', 'example_lustre'} <= set(names)
    parts = {f'{s["name"]}:{p["name"]}' for s in config['systems']
             for p in s['partitions']}
    for ref in (REPO / 'config' / 'references').glob('*.yaml'):
        validate_reference_file(str(ref), parts)


def test_broken_system_file_names_file_and_key(tmp_path):
    shutil.copytree(REPO / 'config', tmp_path / 'config')
    path = tmp_path / 'config' / 'systems' / 'local.py'
    path.write_text(path.read_text().replace("'max_nodes': 1,",
                                             "'max_nodes': 'one',"))
    with pytest.raises(ConfigError) as info:
        load_site_configuration(str(tmp_path / 'config'))
    assert 'local.py:systems[local].partitions[default].extras.max_nodes:' \
        in str(info.value)
    assert "'one'" in str(info.value)
