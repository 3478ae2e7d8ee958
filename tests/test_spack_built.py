# SPDX-License-Identifier: BSD-3-Clause
"""The checks run what a partition's Spack environment built, and say so.

The first tests run anywhere: a partition with a view takes its binaries from
the view only, a view older than its ``spack.lock`` is refused before
anything is submitted, and ``PFSBENCH_SPACK_ENV`` fills the ``local`` and
``localslurm`` partitions' extras.

The last ones need an installed environment: ``spack -e
spack-repo/environments/local/default install`` in this checkout, or any
installed pfsbench environment named by ``PFSBENCH_TEST_SPACK_ENV`` (see
docs/spack.md, "Building the local environment and running the checks with
it" and "Running the tests against a real Spack").
They run ``ior_bandwidth`` through the localhost Slurm cluster with that
environment's IOR and check that every result names the locked builds.
"""

import glob
import json
import os
import re
import subprocess

import pytest

from conftest import CHECKS, REPO, run_reframe
from pfsbench.core.errors import ConfigError
from pfsbench.site import binaries, config as siteconfig, spack

LOCAL_ENV = os.path.join(REPO, 'spack-repo', 'environments', 'local',
                         'default')
HASH_A = 'a' * 32
HASH_B = 'b' * 32


def _lock(env_dir, packages):
    """A minimal lock file naming ``packages`` ({name: hash}) as roots."""
    lock = {
        'roots': [{'hash': h, 'spec': name} for name, h in packages.items()],
        'concrete_specs': {
            h: {'name': name, 'version': '4.0.0', 'parameters': {}}
            for name, h in packages.items()},
    }
    os.makedirs(env_dir, exist_ok=True)
    with open(os.path.join(env_dir, 'spack.lock'), 'w') as out:
        json.dump(lock, out)


def _view_with_ior(root, prefix_name):
    """A view whose bin/ior links into ``<root>/opt/<prefix_name>``."""
    prefix_bin = root / 'opt' / prefix_name / 'bin'
    prefix_bin.mkdir(parents=True)
    ior = prefix_bin / 'ior'
    ior.write_text('#!/bin/sh\nexit 1\n')
    ior.chmod(0o755)
    view_bin = root / 'view' / 'bin'
    view_bin.mkdir(parents=True)
    (view_bin / 'ior').symlink_to(ior)
    return str(view_bin / 'ior')


def test_a_view_is_the_only_place_looked_at(tmp_path, monkeypatch):
    on_path = tmp_path / 'path'
    on_path.mkdir()
    (on_path / 'ior').write_text('#!/bin/sh\n')
    (on_path / 'ior').chmod(0o755)
    monkeypatch.setenv('PATH', str(on_path))
    assert binaries.candidates('ior') == [str(on_path / 'ior')]
    # With a view, PATH's ior is not a fallback: the results would carry the
    # view's provenance for a binary that did not come from it.
    view = str(tmp_path / 'view')
    assert binaries.candidates('ior', spack_view=view) == [
        f'{view}/bin/ior', f'{view}/sbin/ior']
    assert binaries.first_executable(
        binaries.candidates('ior', spack_view=view)) is None
    assert binaries.candidates('ior', '/x/ior', view) == ['/x/ior']


def test_view_bin_and_sbin(tmp_path):
    for path in ('bin/ior', 'sbin/bonnie++', 'bin/notes.txt'):
        (tmp_path / path).parent.mkdir(exist_ok=True)
        (tmp_path / path).write_text('#!/bin/sh\n')
    (tmp_path / 'bin' / 'ior').chmod(0o755)
    (tmp_path / 'sbin' / 'bonnie++').chmod(0o755)

    def found(tool, view=str(tmp_path)):
        return binaries.first_executable(
            binaries.candidates(tool, spack_view=view))

    assert found('ior') == str(tmp_path / 'bin' / 'ior')
    # bonnie++ installs to sbin
    assert found('bonnie++') == str(tmp_path / 'sbin' / 'bonnie++')
    assert found('notes.txt') is None       # not executable
    assert found('mdtest') is None
    assert found('ior', str(tmp_path / 'absent')) is None


def test_view_binary_of_the_locked_build(tmp_path):
    binary = _view_with_ior(tmp_path, f'ior-4.0.0-{HASH_A}')
    _lock(tmp_path / 'env', {'ior': HASH_A})
    real = spack.check_view_binary(binary, str(tmp_path / 'env'), 'ior')
    assert real == str(tmp_path / 'opt' / f'ior-4.0.0-{HASH_A}' / 'bin' /
                       'ior')


def test_view_older_than_the_lock_is_refused(tmp_path):
    binary = _view_with_ior(tmp_path, f'ior-4.0.0-{HASH_A}')
    _lock(tmp_path / 'env', {'ior': HASH_B})
    with pytest.raises(ConfigError) as err:
        spack.check_view_binary(binary, str(tmp_path / 'env'), 'ior')
    message = str(err.value)
    assert binary in message and HASH_A in message
    assert f'not the locked ior@4.0.0/{HASH_B[:7]}' in message
    assert f'spack -e {tmp_path / "env"} install' in message


def test_view_binary_of_a_package_not_in_the_lock(tmp_path):
    binary = _view_with_ior(tmp_path, f'ior-4.0.0-{HASH_A}')
    _lock(tmp_path / 'env', {'fio': HASH_A})
    with pytest.raises(ConfigError, match=r"spack.lock:concrete_specs: "
                                          r"'ior': not in the environment"):
        spack.check_view_binary(binary, str(tmp_path / 'env'), 'ior')


def test_projection_without_full_hash_is_not_checked(tmp_path):
    # A site projection such as {name}/{version}/{hash:7} leaves nothing to
    # compare; the binary is accepted as it is.
    binary = _view_with_ior(tmp_path, 'ior/4.0.0/bbbbbbb')
    _lock(tmp_path / 'env', {'ior': HASH_A})
    assert spack.check_view_binary(binary, str(tmp_path / 'env'),
                                   'ior').endswith('ior/4.0.0/bbbbbbb/bin/ior')


def test_environment_extras(monkeypatch):
    for name in ('PFSBENCH_SCRATCH', 'PFSBENCH_SPACK_ENV',
                 'PFSBENCH_SPACK_VIEW'):
        monkeypatch.delenv(name, raising=False)
    assert siteconfig.environment_extras() == {}
    monkeypatch.setenv('PFSBENCH_SPACK_ENV', '/e')
    assert siteconfig.environment_extras() == {
        'spack_env': '/e', 'spack_view': '/e/.spack-env/view'}
    monkeypatch.setenv('PFSBENCH_SPACK_VIEW', '/v')
    monkeypatch.setenv('PFSBENCH_SCRATCH', '/s')
    extras = siteconfig.environment_extras()
    assert extras['spack_view'] == '/v'
    assert extras['targets'][0]['path'] == '/s'


def test_stale_view_stops_the_check_before_submission(tmp_path):
    binary = _view_with_ior(tmp_path, f'ior-4.0.0-{HASH_A}')
    _lock(tmp_path / 'env', {'ior': HASH_B})
    proc = run_reframe(['--system', 'local', '-c', str(CHECKS / 'ior'),
                        '-n', 'ior_bandwidth', '-P', 'api=POSIX',
                        '-P', 'access=fpp', '-P', 'transfer_size=1m',
                        '-P', 'scale=1x1', '-r'], tmp_path / 'runs',
                       env={'PFSBENCH_SPACK_ENV': str(tmp_path / 'env'),
                            'PFSBENCH_SPACK_VIEW': str(tmp_path / 'view')})
    assert proc.returncode != 0, proc.stdout
    assert ('local:default: extras.spack_view: ' + binary) in proc.stdout
    assert 'the view is older than spack.lock' in proc.stdout
    assert not glob.glob(f'{tmp_path}/runs/stage/**/rfm_job.sh',
                         recursive=True)


# -- with an installed environment ------------------------------------------

@pytest.fixture(scope='module')
def installed_env():
    env_dir = os.environ.get('PFSBENCH_TEST_SPACK_ENV', LOCAL_ENV)
    ior = os.path.join(env_dir, '.spack-env', 'view', 'bin', 'ior')
    if not (os.path.isfile(os.path.join(env_dir, 'spack.lock')) and
            os.access(ior, os.X_OK)):
        pytest.skip(f'no installed Spack environment at {env_dir} (no '
                    f'spack.lock or no {ior}): build it with spack -e '
                    f'{env_dir} install, see docs/spack.md; or name one '
                    'with PFSBENCH_TEST_SPACK_ENV')
    return env_dir


def test_spack_ior_links_the_system_mpi(installed_env):
    view_bin = os.path.join(installed_env, '.spack-env', 'view', 'bin')
    prov = spack.provenance(installed_env)
    assert prov['openmpi']['external'] is True
    ior_real = spack.check_view_binary(os.path.join(view_bin, 'ior'),
                                       installed_env, 'ior')
    # mdtest is IOR's: both come from the one locked ior prefix
    mdtest_real = spack.check_view_binary(os.path.join(view_bin, 'mdtest'),
                                          installed_env, 'ior')
    assert os.path.dirname(ior_real) == os.path.dirname(mdtest_real)
    for binary in (ior_real, mdtest_real):
        libs = subprocess.run(['ldd', binary], stdout=subprocess.PIPE,
                              universal_newlines=True, check=True).stdout
        libmpi = re.search(r'libmpi\.so\S* => (\S+)', libs)
        assert libmpi, libs
        # the external Open MPI's library, not one Spack built
        assert os.path.realpath(libmpi.group(1)).startswith(
            ('/usr/lib/', '/lib/')), libs


@pytest.mark.slurm
@pytest.mark.parametrize('partition', ['srun', 'mpirun'])
def test_spack_built_ior_through_slurm(installed_env, localslurm, tmp_path,
                                       partition):
    proc = run_reframe(['--system', f'localslurm:{partition}',
                        '-c', str(CHECKS / 'ior'), '-n', 'ior_bandwidth',
                        '-P', 'api=POSIX', '-P', 'access=fpp',
                        '-P', 'transfer_size=1m', '-P', 'scale=2x2', '-r'],
                       tmp_path, env=dict(localslurm,
                                          PFSBENCH_SPACK_ENV=installed_env))
    assert proc.returncode == 0, proc.stdout
    assert 'Ran 1/1 test case(s)' in proc.stdout, proc.stdout

    view_ior = os.path.join(installed_env, '.spack-env', 'view', 'bin', 'ior')
    (script,) = glob.glob(f'{tmp_path}/*/localslurm/{partition}/builtin/'
                          f'ior_bandwidth_*/rfm_job.sh')
    launched = [line for line in open(script).read().splitlines()
                if ' -a POSIX ' in line]
    assert launched and all(view_ior in line for line in launched)

    with open(f'{tmp_path}/perflogs/localslurm/{partition}/'
              f'ior_bandwidth.log') as log:
        header, *records = log.read().splitlines()
    fields = header.split('|')
    prov = spack.provenance(installed_env)
    for record in records:
        values = dict(zip(fields, record.split('|')))
        assert values['ior_path'] == view_ior
        tools = values['spack_provenance'].split()
        assert (f'ior@{prov["ior"]["version"]}/{prov["ior"]["hash"][:7]}'
                in tools)
        assert (f'openmpi@{prov["openmpi"]["version"]}/'
                f'{prov["openmpi"]["hash"][:7]}' in tools)


def test_spack_built_bonnie_on_local(installed_env, tmp_path):
    # Every bonnie++ check failed on a view (issue 28): the lock was asked
    # for a package named after the binary.  Now bonnie++ comes from
    # bonniepp, and each result names that build in full.
    proc = run_reframe(['--system', 'local', '-c', str(CHECKS / 'bonnie'),
                        '-n', 'bonnie_per_node', '-t', 'quick', '-r'],
                       tmp_path, env={'PFSBENCH_SPACK_ENV': installed_env})
    assert proc.returncode == 0, proc.stdout
    assert 'Ran 1/1 test case(s)' in proc.stdout, proc.stdout
    with open(f'{tmp_path}/perflogs/local/default/bonnie_per_node.log') as log:
        header, *records = log.read().splitlines()
    bonniepp = spack.provenance(installed_env)['bonniepp']
    digest = spack.lock_digest(installed_env)
    for record in records:
        values = dict(zip(header.split('|'), record.split('|')))
        assert values['tool_path'] == os.path.join(
            installed_env, '.spack-env', 'view', 'sbin', 'bonnie++')
        assert values['tool_spack_build'] == \
            f"{bonniepp['spec']} /{bonniepp['hash']}"
        assert values['spack_lock'] == digest
    assert os.path.isfile(tmp_path / 'spack-locks' / f'{digest}.spack.lock')
