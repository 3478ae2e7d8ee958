# SPDX-License-Identifier: BSD-3-Clause
"""Every check that runs a tool finds its binary and its Spack package in
a Spack-built view, the run's Spack environment is decided in one place,
and results keep the build and the lock they were measured with.

tests/data/spack/spack-1.1-installed/ is a real install (README.md there
says the commands): its ``spack.lock`` and ``view.txt``, the view's
symlinks as ``find`` listed them.  The view is rebuilt here from that
listing (symlinks to the recorded prefixes, which need not exist:
:func:`pfsbench.site.spack.check_view_binary` compares the real path's hash
with the lock's).  With a real installed environment
(``PFSBENCH_TEST_SPACK_ENV``) the same walk runs on it.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import CHECKS, REPO
from pfsbench import cli
from pfsbench.core import fields, tools as tool_records
from pfsbench.core.errors import ConfigError
from pfsbench.gate.history import provenance
from pfsbench.site import binaries, spack, extras

DATA = os.path.join(os.path.dirname(__file__), 'data', 'spack')
LOCAL_ENV = os.path.join(REPO, 'spack-repo', 'environments', 'local',
                         'default')
INSTALLED = os.path.join(DATA, 'spack-1.1-installed')
#: The same environment, concretized again with IOR (and mdtest) 3.3.0
#: instead of 4.0.0: a rebuilt IOR and nothing else.
REBUILT_IOR = os.path.join(DATA, 'rebuilt-ior-3.3.0')

#: Tools no Spack view holds: the site's Lustre client installs them (an
#: external, or none in a view-only environment).
FROM_THE_OS = frozenset({'lustre'})

@pytest.fixture(scope='module')
def check_tools(described_checks):
    """``{check class: tool}`` of every check under reframe-checks/, as
    ReFrame's loader finds them (conftest.described_checks)."""
    return {name: check['tool'] for name, check in described_checks.items()}


def _recorded_view(tmp_path):
    """The recorded install's view, as symlinks under ``tmp_path``."""
    view = tmp_path / 'view'
    with open(os.path.join(INSTALLED, 'view.txt')) as listing:
        for line in listing:
            name, _, target = line.strip().partition(' -> ')
            if not target:
                continue
            (view / name).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target, view / name)
    return str(view)


def _tool_in_view(tool, view):
    return binaries.first_executable(binaries.candidates(tool, '', view)) \
        or next((p for p in binaries.candidates(tool, '', view)
                 if os.path.islink(p)), None)


def test_every_check_tool_has_its_package_declared(check_tools):
    tools = {tool for tool in check_tools.values() if tool}
    # bonnie++, iozone, fio, IOR and mdtest at least: a loader that
    # found nothing would make the walk below vacuous.
    assert {'bonnie++', 'iozone', 'fio', 'ior', 'mdtest'} <= tools
    undeclared = sorted(tools - set(tool_records.TOOLS))
    assert not undeclared, (f'{undeclared}: declare the tool (its Spack '
                            'package) in pfsbench.core.tools.TOOLS')


def test_no_check_declares_its_own_package(check_tools):
    # One place: a per-class declaration would again disagree with it.
    sources = sorted(CHECKS.rglob('*.py'))
    assert sources, CHECKS
    for path in sources:
        assert 'tool_package' not in path.read_text(), path


def test_every_view_tool_resolves_in_the_recorded_install(check_tools,
                                                          tmp_path):
    view = _recorded_view(tmp_path)
    locked = spack.provenance(INSTALLED)
    # io500: the driver's check lands separately; its binary is in the
    # view already.
    tools = {t for t in check_tools.values() if t} | {'io500'}
    resolved = {}
    for tool in sorted(tools):
        package = binaries.package_of(tool)
        if package in FROM_THE_OS or \
                tool_records.get(tool).found_by != tool_records.SPACK:
            continue
        assert package in locked, f'{tool}: {package} not in the lock'
        binary = _tool_in_view(tool, view)
        assert binary, f'{tool}: not in the view ({view}/bin, sbin)'
        real = spack.check_view_binary(binary, INSTALLED, package)
        assert locked[package]['hash'] in real
        resolved[tool] = package
    assert resolved == {'bonnie++': 'bonniepp', 'fio': 'fio',
                        'io500': 'io500', 'ior': 'ior', 'iozone': 'iozone',
                        'mdtest': 'ior'}


def test_the_tool_name_is_not_the_package_name(tmp_path):
    # What every bonnie++ check did before: asking the lock for a package
    # named after the binary.
    view = _recorded_view(tmp_path)
    with pytest.raises(ConfigError, match="'bonnie\\+\\+': not in the "
                                          'environment'):
        spack.check_view_binary(_tool_in_view('bonnie++', view), INSTALLED,
                                'bonnie++')


def test_a_view_of_another_build_is_refused(tmp_path):
    # The rebuilt-IOR lock against the view installed before it.
    view = _recorded_view(tmp_path)
    with pytest.raises(ConfigError, match='not the locked ior@3.3.0/.*'
                                          'the view is older than '
                                          'spack.lock'):
        spack.check_view_binary(_tool_in_view('mdtest', view), REBUILT_IOR,
                                'ior')


def test_tool_build_is_the_full_spec_and_hash():
    build = spack.tool_build(INSTALLED, 'bonniepp')
    spec, _, dag_hash = build.rpartition(' /')
    assert spec.startswith('bonniepp@2.00a-nmu1')
    assert len(dag_hash) == 32
    assert dag_hash == spack.provenance(INSTALLED)['bonniepp']['hash']
    assert spack.tool_build(INSTALLED, 'elbencho') == ''


def test_every_view_tool_resolves_in_a_real_install(check_tools):
    # The installed environment test_spack_built.py runs checks on.
    env_dir = os.environ.get('PFSBENCH_TEST_SPACK_ENV', LOCAL_ENV)
    env = spack.environment(environ={'PFSBENCH_SPACK_ENV': env_dir})
    if not (os.path.isfile(os.path.join(env_dir, 'spack.lock')) and
            os.path.isdir(env.view)):
        pytest.skip(f'no installed Spack environment at {env_dir}: build '
                    f'it with spack -e {env_dir} install (docs/spack.md), '
                    'or name one with PFSBENCH_TEST_SPACK_ENV')
    locked = spack.provenance(env.env_dir)
    resolved = {}
    for tool in sorted({t for t in check_tools.values() if t} | {'io500'}):
        package = binaries.package_of(tool)
        # dd is coreutils (found_by SYSTEM), the Lustre tools the site's
        # client: no view holds them, as in the recorded install above.
        if package in FROM_THE_OS or \
                tool_records.get(tool).found_by != tool_records.SPACK:
            continue
        assert package in locked, f'{tool}: {package} not in the lock'
        binary = binaries.first_executable(
            binaries.candidates(tool, '', env.view))
        assert binary, f'{tool}: not in {env.view}'
        spack.check_view_binary(binary, env.env_dir, package)
        resolved[tool] = package
    assert {'bonnie++', 'fio', 'ior', 'iozone', 'mdtest'} <= set(resolved)


# -- which environment a run used: one place --------------------------------

def test_environment_order(tmp_path):
    env = str(tmp_path)
    assert spack.environment({}, {}) is None
    assert spack.environment({}, {'SPACK_ENV': env}) == spack.Environment(
        env, os.path.join(env, '.spack-env', 'view'), 'SPACK_ENV')
    both = {'SPACK_ENV': '/a', 'PFSBENCH_SPACK_ENV': env,
            'PFSBENCH_SPACK_VIEW': '/v'}
    assert spack.environment({}, both) == spack.Environment(
        env, '/v', 'PFSBENCH_SPACK_ENV')
    # A partition's own setting wins over the environment variables.
    part = {'spack_env': '/site/env', 'spack_view': '/site/view'}
    assert spack.environment(part, both) == spack.Environment(
        '/site/env', '/site/view', 'extras.spack_env')
    assert spack.environment({'spack_view': '/v2'}, both) == \
        spack.Environment('', '/v2', 'extras.spack_view')


def test_environment_view_from_spack_yaml(tmp_path):
    # example/compute declares its view at a site path.
    example = os.path.join(REPO, 'spack-repo', 'environments', 'example',
                           'compute')
    assert spack.environment({}, {'SPACK_ENV': example}).view == \
        '/opt/site/pfsbench/view'
    (tmp_path / 'spack.yaml').write_text('spack:\n  view: myview\n')
    assert spack.view_of(str(tmp_path)) == str(tmp_path / 'myview')


def test_keep_lock_copies_once_by_content(tmp_path):
    runs = tmp_path / 'runs'
    digest, copy = spack.keep_lock(INSTALLED, str(runs))
    assert copy == str(runs / 'spack-locks' / f'{digest}.spack.lock')
    with open(copy, 'rb') as kept, \
            open(os.path.join(INSTALLED, 'spack.lock'), 'rb') as lock:
        assert kept.read() == lock.read()
    assert spack.keep_lock(INSTALLED, str(runs)) == (digest, copy)
    other = spack.keep_lock(REBUILT_IOR, str(runs))
    assert other[0] != digest
    assert sorted(os.listdir(runs / 'spack-locks')) == sorted(
        [os.path.basename(copy), os.path.basename(other[1])])
    assert spack.keep_lock(str(tmp_path), str(runs)) is None


def test_session_extras_records_the_environment_and_its_lock(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setenv('PFSBENCH_SPACK_ENV', INSTALLED)
    monkeypatch.delenv('SPACK_ENV', raising=False)
    runs = tmp_path / 'runs'
    assert cli.main(['session-extras', '--target', str(tmp_path),
                     '--runs', str(runs), '--format', 'json']) == 0
    tags = json.loads(capsys.readouterr().out)
    digest = spack.lock_digest(INSTALLED)
    assert tags['spack_env'] == INSTALLED
    assert tags['spack_lock'] == digest[:12]
    assert tags['spack_lock_copy'] == str(
        runs / 'spack-locks' / f'{digest}.spack.lock')
    assert os.path.isfile(tags['spack_lock_copy'])


def test_session_extras_takes_the_partitions_environment(tmp_path, capsys):
    # A site partition names its environment in extras.spack_env.
    config = tmp_path / 'config'
    shutil.copytree(REPO / 'config', config)
    site = config / 'systems' / 'example_seed001.py'
    site.write_text(site.read_text().replace(
        "'spack_view': '/opt/pfsbench/view',",
        f"'spack_view': '/opt/pfsbench/view', 'spack_env': '{INSTALLED}',"))
    env = dict(os.environ, PFSBENCH_RUNS=str(tmp_path / 'runs'))
    for name in ('PFSBENCH_SPACK_ENV', 'SPACK_ENV'):
        env.pop(name, None)
    proc = subprocess.run(
        [sys.executable, '-m', 'pfsbench.cli', 'session-extras', '--target',
         str(tmp_path), '--config-dir', str(config), '--system',
         'example_seed001:lfs3', '--format', 'json'],
        cwd=REPO, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    tags = json.loads(proc.stdout)
    assert tags['spack_env'] == INSTALLED
    assert os.path.isfile(tags['spack_lock_copy'])


def test_session_extras_without_spack_records_none(tmp_path):
    tags = extras.collect(str(tmp_path), environ={}, runs_dir=str(tmp_path))
    assert not [key for key in tags if key.startswith('spack')]
    assert not (tmp_path / 'spack-locks').exists()


# -- the gate names a rebuilt tool ------------------------------------------

def test_gate_names_a_rebuilt_ior():
    before = spack.tool_build(INSTALLED, 'ior')
    after = spack.tool_build(REBUILT_IOR, 'ior')
    old = spack.provenance(INSTALLED)['ior']['hash'][:7]
    new = spack.provenance(REBUILT_IOR)['ior']['hash'][:7]
    [change] = provenance.differences([{fields.TOOL_SPACK_BUILD: before}],
                                      {fields.TOOL_SPACK_BUILD: after})
    assert change.describe() == (
        f'tool_spack_build: ior: version 4.0.0 -> 3.3.0, hash {old} -> '
        f'{new} (benchmark build (Spack))')


def test_build_change_names_variants_and_packages():
    assert provenance.build_change(
        ['ior@4.0.0~hdf5~lustre build_system=autotools /aaaaaaaa'],
        'ior@4.0.0~hdf5+lustre build_system=autotools /bbbbbbbb') == \
        'ior: variants ~lustre -> +lustre, hash aaaaaaa -> bbbbbbb'
    assert provenance.build_change(
        ['fio@3.33/t5vb6ty ior@4.0.0/zrvssz4'],
        'fio@3.33/t5vb6ty io500@2025.10/sty75m4') == \
        '+io500@2025.10; -ior@4.0.0'
    # Nothing parseable: the change falls back to before -> after.
    assert provenance.build_change(['?'], '!') == ''
