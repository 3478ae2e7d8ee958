# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench check-spack``: the set-up mistakes Spack reports misleadingly.

The first tests feed :func:`problems_from_facts` what Spack would report.
The last ones run a real Spack (``/opt/spack-*``, see test_spack_repo.py)
in a throwaway configuration, once as Spack 1.x ships (builtin a git clone
that cannot happen offline, no clingo) and once set up as docs/spack.md
says; they skip when there is no Spack.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pfsbench import cli
from pfsbench.site import spack_check
from pfsbench.site.spack_check import Problem, problems_from_facts
from test_spack_repo import (SPACK_MIRROR, SPACK_PACKAGES, is_spack_1,
                             pristine_root, spack_roots)

BUILTIN = os.path.join(SPACK_PACKAGES, 'repos', 'spack_repo', 'builtin')
ENVIRONMENTS = Path(__file__).resolve().parents[1] / 'spack-repo' / \
    'environments'


def _facts(**changes):
    """Facts of a Spack 1.1 that is ready, changed by ``changes``."""
    facts = {'version': '1.1.0', 'python': '/venv/bin/python',
             'clingo': True, 'bootstrapped_clingo': False,
             'repos': {}, 'builtin': None, 'mirrors': {},
             'user_config': '/home/u/.spack'}
    facts.update(changes)
    return facts


def _spack_packages(tmp_path, name='spack-packages-v2025.11.0'):
    """A spack-packages checkout beside a Spack at tmp_path/spack-1.1.0."""
    builtin = tmp_path / name / 'repos' / 'spack_repo' / 'builtin'
    builtin.mkdir(parents=True)
    (builtin / 'repo.yaml').write_text('repo:\n  namespace: builtin\n')
    spack = tmp_path / 'spack-1.1.0' / 'bin' / 'spack'
    spack.parent.mkdir(parents=True)
    spack.write_text('#!/bin/sh\n')
    spack.chmod(0o755)
    return str(spack), str(builtin)


def test_ready_spack_has_no_problem(tmp_path):
    spack, builtin = _spack_packages(tmp_path)
    assert problems_from_facts(_facts(builtin=builtin), spack) == []


def test_git_builtin_not_cloned_names_the_local_tree(tmp_path):
    spack, builtin = _spack_packages(tmp_path)
    git = {'git': 'https://github.com/spack/spack-packages.git',
           'destination': '/home/u/.spack/package_repos/fncqgg4',
           'cloned': False}
    (problem,) = problems_from_facts(_facts(builtin=git), spack)
    assert problem.where == 'repos:builtin'
    assert "No module named 'spack_repo'" in problem.what
    assert '/home/u/.spack/package_repos/fncqgg4' in problem.what
    assert problem.fix.startswith('write to /home/u/.spack/repos.yaml')
    assert f'repos: {{builtin: {builtin}}}' in problem.fix
    # a clone that is there is fine
    assert problems_from_facts(_facts(builtin=dict(git, cloned=True)),
                               spack) == []


def test_builtin_pointing_at_the_checkout_top(tmp_path):
    spack, builtin = _spack_packages(tmp_path)
    top = str(tmp_path / 'spack-packages-v2025.11.0')
    (problem,) = problems_from_facts(_facts(builtin=top), spack)
    assert 'is the spack-packages checkout' in problem.what
    assert problem.fix.endswith(f'repos: {{builtin: {builtin}}}')


def test_builtin_that_is_no_repository(tmp_path):
    spack, builtin = _spack_packages(tmp_path)
    (problem,) = problems_from_facts(_facts(builtin=str(tmp_path)), spack)
    assert 'holds no repo.yaml' in problem.what
    assert builtin in problem.fix   # the checkout found beside Spack


def test_no_clingo_suggests_spack_python():
    (problem,) = problems_from_facts(
        _facts(version='0.23.1', clingo=False), '/opt/spack-0.23.1/bin/spack',
        python='/p/.venv/bin/python')
    assert problem.where == 'SPACK_PYTHON'
    assert problem.fix == ('/p/.venv/bin/python -m pip install clingo && '
                           'export SPACK_PYTHON=/p/.venv/bin/python')
    # a clingo that "spack bootstrap" installed earlier serves too
    assert problems_from_facts(
        _facts(version='0.23.1', clingo=False, bootstrapped_clingo=True),
        '/opt/spack-0.23.1/bin/spack') == []


def test_spack_0_23_needs_no_builtin_setting():
    assert problems_from_facts(_facts(version='0.23.1', repos=[
        '$spack/var/spack/repos/builtin']), '/x/bin/spack') == []


def test_unsupported_series():
    found = problems_from_facts(_facts(version='0.21.2'), '/x/bin/spack')
    assert [p.where for p in found] == ['spack --version']
    assert '0.22, 0.23, 1.0, 1.1' in found[0].what


def test_find_spack_prefers_spack_root(tmp_path):
    spack, _ = _spack_packages(tmp_path)
    other = tmp_path / 'path'
    other.mkdir()
    (other / 'spack').write_text('#!/bin/sh\n')
    (other / 'spack').chmod(0o755)
    root = os.path.dirname(os.path.dirname(spack))
    assert spack_check.find_spack({'SPACK_ROOT': root,
                                   'PATH': str(other)}) == spack
    assert spack_check.find_spack({'PATH': str(other)}) == str(
        other / 'spack')
    assert spack_check.find_spack({'PATH': str(tmp_path)}) is None


def test_cli_without_spack(monkeypatch, capsys, tmp_path):
    monkeypatch.delenv('SPACK_ROOT', raising=False)
    monkeypatch.setenv('PATH', str(tmp_path))
    assert cli.main(['check-spack']) == 2
    err = capsys.readouterr().err
    assert err.startswith('pfsbench: error: PATH: no spack on PATH')
    assert 'fix: install a Spack release' in err


def test_fixes_name_the_site_scope_without_local_config(tmp_path):
    # SPACK_DISABLE_LOCAL_CONFIG=1: Spack ignores ~/.spack, and
    # "--scope user" is refused ("invalid choice: 'user'").
    spack, builtin = _spack_packages(tmp_path)
    # Spack 1.1: $SPACK_ROOT/etc/spack is the "spack" scope, above the
    # user's; the site scope is etc/spack/site ("spack config scopes -p").
    facts = _facts(builtin=None, local_config_disabled=True,
                   site_config='/opt/spack-1.1.0/etc/spack/site')
    (problem,) = problems_from_facts(facts, spack)
    assert problem.fix.startswith(
        'write to /opt/spack-1.1.0/etc/spack/site/repos.yaml (the site '
        'scope: SPACK_DISABLE_LOCAL_CONFIG is set')
    (problem,) = spack_check.environment_problems(
        _environment(tmp_path), dict(facts, mirrors={
            'pfsbench': 'file:///nowhere/mirror'}))
    assert problem.where == 'mirrors:pfsbench'
    assert '--scope site pfsbench' in problem.fix
    assert '--scope user' not in problem.fix
    (problem,) = spack_check.environment_problems(
        _environment(tmp_path), _facts(mirrors={'m': '/nowhere'}))
    assert '--scope user m' in problem.fix


def test_site_scope_is_the_one_each_spack_defines():
    # What each Spack reports is used as it is; without it, the version
    # decides: 1.x etc/spack/site, 0.2x etc/spack.
    assert spack_check.site_scope(_facts(site_config='/s/etc/spack/site')) \
        == '/s/etc/spack/site'
    assert spack_check.site_scope(_facts()) == '$SPACK_ROOT/etc/spack/site'
    assert spack_check.site_scope(_facts(version='0.23.1')) == \
        '$SPACK_ROOT/etc/spack'
    # The user-scope fix names the site scope for every user, not
    # $SPACK_ROOT/etc/spack (1.1's "spack" scope overrides the user's).
    (problem,) = problems_from_facts(_facts(
        site_config='/opt/spack-1.1.0/etc/spack/site'), '/x/bin/spack')
    assert 'site scope: /opt/spack-1.1.0/etc/spack/site/repos.yaml' in \
        problem.fix
    assert '/opt/spack-1.1.0/etc/spack/repos.yaml' not in problem.fix


def _environment(tmp_path, edit=None):
    """A copy of spack-repo/environments with local/default's spack.yaml
    changed by ``edit(text)``; returns local/default's directory."""
    envs = tmp_path / 'environments'
    if not envs.exists():
        shutil.copytree(ENVIRONMENTS, envs)
    env = envs / 'local' / 'default'
    if edit:
        (env / 'spack.yaml').write_text(edit((env / 'spack.yaml')
                                             .read_text()))
    return str(env)


def test_the_environments_need_nothing_missing_here():
    # gfortran is gone from them: no benchmark needs Fortran.
    for name in ('local/default', 'example/compute'):
        text = (ENVIRONMENTS / name / 'spack.yaml').read_text()
        assert 'gfortran' not in text and 'fortran:' not in text, name
    assert spack_check.environment_problems(
        str(ENVIRONMENTS / 'local' / 'default')) == []


def test_missing_compiler_executables_are_named_with_their_file(tmp_path):
    gfortran = str(tmp_path / 'no' / 'gfortran')
    env = _environment(tmp_path, lambda text: text.replace(
        'f77: null', f'f77: {gfortran}').replace(
        'cxx: /usr/bin/g++\n      operating', 'cxx: /usr/bin/g++\n'
        '      operating').replace(
        '            cxx: /usr/bin/g++\n',
        f'            cxx: /usr/bin/g++\n            fortran: {gfortran}\n'))
    found = spack_check.environment_problems(env)
    spack_yaml = os.path.join(env, 'spack.yaml')
    assert [p.where for p in found] == [
        f'{spack_yaml}: compilers[gcc@=12.2.0].paths.f77',
        f'{spack_yaml}: packages.gcc.externals[gcc@12.2.0 languages=c,c++]'
        '.extra_attributes.compilers.fortran']
    assert found[0].what == (f'{gfortran}: missing: Spack 0.2x stops every '
                             'install (CompilerAccessError)')
    assert 'f77/fc: null' in found[0].fix


def test_missing_external_prefix(tmp_path):
    env = _environment(tmp_path, lambda text: text.replace(
        '- spec: slurm@22-05-8-1\n        prefix: /usr',
        '- spec: slurm@22-05-8-1\n        prefix: /opt/no-slurm'))
    (problem,) = spack_check.environment_problems(env)
    assert problem.where.endswith(
        'spack.yaml: packages.slurm.externals[slurm@22-05-8-1].prefix')
    assert problem.what.startswith('/opt/no-slurm: no such directory')


def test_missing_sources_are_named(tmp_path):
    mirror = tmp_path / 'mirror'
    have, lack = 'ab' + '1' * 62, 'cd' + '2' * 62
    (mirror / '_source-cache' / 'archive' / 'ab').mkdir(parents=True)
    (mirror / '_source-cache' / 'archive' / 'ab' / f'{have}.tar.gz').touch()
    facts = _facts(mirrors={'pfsbench': f'file://{mirror}'}, sources=[
        ['ior@4.0.0', 'source', have], ['fio@3.33', 'source', lack]])
    (problem,) = spack_check.missing_sources(_environment(tmp_path), facts)
    assert problem.what.startswith(f'has no source of fio@3.33 (sha256 '
                                   f'{lack})')
    assert f'_source-cache/archive/cd/{lack}.<ext>' in problem.fix


@pytest.mark.parametrize('mirrors', [
    {'spack-public': {'url': 'https://mirror.spack.io'}}, {}],
    ids=['remote-only', 'none'])
def test_cli_without_a_local_mirror_names_every_source(
        tmp_path, monkeypatch, capsys, mirrors):
    # An offline site with only Spack's default remote mirror heard "7
    # sources, all in the mirror" and exit 0, then failed at install.
    sha = 'cd' + '2' * 62
    monkeypatch.setattr(spack_check, 'spack_facts', lambda spack,
                        environ=None: _facts(version='0.23.1',
                                             mirrors=mirrors))
    monkeypatch.setattr(spack_check, 'env_sources', lambda *args:
                        [['fio@3.33', 'source', sha],
                         ['io500@2023', 'resource ior', 'ef' + '3' * 62]])
    assert cli.main(['check-spack', '--spack', '/x/bin/spack',
                     '--env', _environment(tmp_path)]) == 2
    out = capsys.readouterr()
    assert out.out == ''
    where = ('mirrors (spack-public: none local)' if mirrors else
             'mirrors (none)')
    errors = [line for line in out.err.splitlines()
              if line.startswith('pfsbench: error: ')]
    assert errors == [
        f'pfsbench: error: {where}: no local mirror holds the source of '
        f'fio@3.33 (sha256 {sha}): install would fetch it from the network',
        f'pfsbench: error: {where}: no local mirror holds the resource ior '
        f'of io500@2023 (sha256 {"ef" + "3" * 62}): install would fetch it '
        f'from the network']
    assert 'spack mirror add --scope site pfsbench file://<mirror>' in \
        out.err


def test_cli_says_which_local_mirror_holds_the_sources(
        tmp_path, monkeypatch, capsys):
    mirror = tmp_path / 'mirror'
    sha = 'ab' + '1' * 62
    (mirror / '_source-cache' / 'archive' / 'ab').mkdir(parents=True)
    (mirror / '_source-cache' / 'archive' / 'ab' / f'{sha}.tar.gz').touch()
    monkeypatch.setattr(spack_check, 'spack_facts', lambda spack,
                        environ=None: _facts(version='0.23.1', mirrors={
                            'pfsbench': f'file://{mirror}',
                            'spack-public': 'https://mirror.spack.io'}))
    monkeypatch.setattr(spack_check, 'env_sources', lambda *args:
                        [['ior@4.0.0', 'source', sha]])
    env = _environment(tmp_path)
    assert cli.main(['check-spack', '--spack', '/x/bin/spack',
                     '--env', env]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        f'{env}: compilers and externals: ok; mirrors: pfsbench, '
        f'spack-public; 1 sources, all in the local mirror {mirror}')


def test_cli_fails_naming_the_file_of_a_missing_compiler(
        tmp_path, monkeypatch, capsys):
    env = _environment(tmp_path, lambda text: text.replace(
        'fc: null', 'fc: /usr/bin/no-such-gfortran'))
    monkeypatch.setattr(spack_check, 'spack_facts',
                        lambda spack, environ=None: _facts(version='0.23.1'))
    assert cli.main(['check-spack', '--spack', '/x/bin/spack',
                     '--env', env]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f'pfsbench: error: {env}/spack.yaml: '
                          'compilers[gcc@=12.2.0].paths.fc: '
                          '/usr/bin/no-such-gfortran: missing')
    # local/default as committed (a copy: an install in the checkout
    # adds a spack.lock, whose sources would be asked of /x/bin/spack)
    assert cli.main(['check-spack', '--spack', '/x/bin/spack',
                     '--env', _environment(tmp_path / 'clean')]) == 0


def test_cli_prints_repositories_as_read_not_a_dict(
        tmp_path, monkeypatch, capsys):
    # What Spack 1.1 reports after "spack repo set --destination": a git
    # builtin, cloned.
    git = {'name': 'builtin',
           'git': 'https://github.com/spack/spack-packages.git',
           'destination': '/srv/spack-packages', 'state': 'cloned'}
    repos = [git, {'name': 'pfsbench', 'path': '/p/spack-repo',
                   'state': 'ok'}]
    monkeypatch.setattr(spack_check, 'spack_facts', lambda spack,
                        environ=None: _facts(
                            builtin={'git': git['git'], 'destination':
                                     git['destination'], 'cloned': True},
                            repositories=repos))
    assert cli.main(['check-spack', '--spack', '/x/bin/spack',
                     '--env', _environment(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [
        'spack 1.1.0: python /venv/bin/python (clingo): ok',
        '  repository builtin: git https://github.com/spack/spack-packages'
        '.git, cloned at /srv/spack-packages',
        '  repository pfsbench: /p/spack-repo: ok']
    assert not any('{' in line for line in out), out
    assert spack_check.describe_repository(dict(git, state='not cloned')) \
        .endswith('not cloned (would be /srv/spack-packages)')


def test_problem_text():
    text = str(Problem('repos:builtin', 'is wrong', 'do this'))
    assert text == 'repos:builtin: is wrong\n  fix: do this'


# -- with a real Spack ----------------------------------------------------

@pytest.fixture(params=spack_roots() or [None])
def spack_env(request, tmp_path):
    """(spack executable, environment with a throwaway configuration)."""
    root = request.param
    if root is None:
        pytest.skip('no Spack: set PFSBENCH_SPACK_ROOTS or unpack a Spack '
                    'release as /opt/spack-<version> (docs/spack.md)')
    env = dict(os.environ)
    for scope in ('user', 'system', 'cache'):
        (tmp_path / scope).mkdir()
    # As shipped, even where a site set builtin in the instance's scopes
    # (docs/spack.md, under SPACK_DISABLE_LOCAL_CONFIG).
    root = pristine_root(root, str(tmp_path))
    env.update(SPACK_USER_CONFIG_PATH=str(tmp_path / 'user'),
               SPACK_SYSTEM_CONFIG_PATH=str(tmp_path / 'system'),
               SPACK_USER_CACHE_PATH=str(tmp_path / 'cache'),
               SPACK_ROOT=root)
    env.pop('SPACK_DISABLE_LOCAL_CONFIG', None)
    return os.path.join(root, 'bin', 'spack'), env, tmp_path


def _python_without_clingo():
    for python in ('/usr/bin/python3', '/usr/local/bin/python3'):
        if os.access(python, os.X_OK) and subprocess.run(
                [python, '-c', 'import clingo'],
                capture_output=True).returncode != 0:
            return python
    pytest.skip('no Python 3 without clingo to run Spack with')


def test_real_spack_as_shipped(spack_env):
    spack, env, _ = spack_env
    env['SPACK_PYTHON'] = _python_without_clingo()
    facts, found = spack_check.problems(spack, env)
    where = [problem.where for problem in found]
    assert 'SPACK_PYTHON' in where
    if is_spack_1(os.path.dirname(os.path.dirname(spack))):
        assert 'repos:builtin' in where
        assert facts['builtin']['git'].endswith('spack-packages.git')


def test_real_spack_set_up_as_documented(spack_env):
    spack, env, tmp_path = spack_env
    env['SPACK_PYTHON'] = sys.executable
    if subprocess.run([sys.executable, '-c', 'import clingo'],
                      capture_output=True).returncode != 0:
        pytest.skip(f'clingo is not importable by {sys.executable}')
    if is_spack_1(os.path.dirname(os.path.dirname(spack))):
        if not os.path.isdir(BUILTIN):
            pytest.skip(f'no spack-packages at {SPACK_PACKAGES}')
        with open(tmp_path / 'user' / 'repos.yaml', 'w') as out:
            yaml.safe_dump({'repos': {'builtin': BUILTIN}}, out)
    facts, found = spack_check.problems(spack, env)
    assert found == []
    assert facts['python'] == sys.executable and facts['clingo'] is True


def test_real_spack_lists_the_sources_the_mirror_lacks(spack_env):
    # The lock of a real install (Spack 1.1, lockfile v6: 0.23 cannot
    # read it), in a copy of spack-repo/: Spack itself lists the sources,
    # the mirror of docs/spack.md holds them all, a copy without fio's
    # tarball lacks exactly that one.
    spack, env, tmp_path = spack_env
    if not is_spack_1(os.path.dirname(os.path.dirname(spack))):
        pytest.skip('the recorded lock is Spack 1.1\'s (lockfile v6)')
    if not os.path.isdir(BUILTIN) or not os.path.isdir(SPACK_MIRROR):
        pytest.skip(f'no spack-packages at {SPACK_PACKAGES} or no source '
                    f'mirror at {SPACK_MIRROR} (docs/spack.md)')
    env['SPACK_PYTHON'] = sys.executable
    with open(tmp_path / 'user' / 'repos.yaml', 'w') as out:
        yaml.safe_dump({'repos': {'builtin': BUILTIN}}, out)
    repo = tmp_path / 'spack-repo'
    shutil.copytree(ENVIRONMENTS.parent, repo,
                    ignore=shutil.ignore_patterns('.spack-env', 'spack.lock'))
    env_dir = repo / 'environments' / 'local' / 'default'
    shutil.copy(Path(__file__).parent / 'data' / 'spack' /
                'spack-1.1-installed' / 'spack.lock', env_dir)
    sources = spack_check.env_sources(spack, str(env_dir), env)
    assert sources, 'Spack listed no sources'
    assert {name.split('@')[0] for name, _, _ in sources} == {
        'bonniepp', 'fio', 'io500', 'ior', 'iozone'}
    assert [what for name, what, _ in sources if name.startswith('io500')] \
        == ['source', 'resource ior', 'resource pfind']
    mirror = tmp_path / 'mirror'
    shutil.copytree(SPACK_MIRROR, mirror)
    facts = _facts(mirrors={'pfsbench': f'file://{mirror}'}, sources=sources)
    assert spack_check.missing_sources(str(env_dir), facts) == []
    fio = next(sha for name, _, sha in sources if name.startswith('fio'))
    for stored in (mirror / '_source-cache' / 'archive' / fio[:2]).glob(
            fio + '*'):
        stored.unlink()
    (problem,) = spack_check.missing_sources(str(env_dir), facts)
    assert problem.what.startswith(f'has no source of fio@3.33 (sha256 '
                                   f'{fio})')


def test_real_spack_advice_writes_the_site_scope(spack_env, tmp_path):
    # Under SPACK_DISABLE_LOCAL_CONFIG the fixes name the site scope as
    # this Spack defines it (1.1: etc/spack/site, 0.23: etc/spack); doing
    # what they say (and docs/spack.md's "spack mirror add --scope site")
    # leaves nothing to fix, and a user's own setting still wins over it.
    spack, env, _ = spack_env
    root = os.path.dirname(os.path.dirname(spack))
    site = os.path.join(root, 'etc', 'spack', 'site') if is_spack_1(root) \
        else os.path.join(root, 'etc', 'spack')
    env.update(SPACK_DISABLE_LOCAL_CONFIG='1', SPACK_PYTHON=sys.executable)
    if subprocess.run([sys.executable, '-c', 'import clingo'],
                      capture_output=True).returncode != 0:
        pytest.skip(f'clingo is not importable by {sys.executable}')
    facts, found = spack_check.problems(spack, env)
    assert facts['site_config'] == site
    if is_spack_1(root):
        if not os.path.isdir(BUILTIN):
            pytest.skip(f'no spack-packages at {SPACK_PACKAGES}')
        (problem,) = found
        assert problem.fix.startswith(
            f'write to {site}/repos.yaml (the site scope')
        with open(os.path.join(site, 'repos.yaml'), 'w') as out:
            yaml.safe_dump({'repos': {'builtin': BUILTIN}}, out)
    else:
        assert found == []
    mirror = tmp_path / 'mirror'
    mirror.mkdir()
    subprocess.run([spack, 'mirror', 'add', '--scope', 'site', 'pfsbench',
                    f'file://{mirror}'], env=env, check=True,
                   capture_output=True)
    assert os.path.isfile(os.path.join(site, 'mirrors.yaml'))
    facts, found = spack_check.problems(spack, env)
    assert found == []
    assert 'pfsbench' in facts['mirrors']
    if is_spack_1(root):
        assert facts['builtin'] == BUILTIN
        assert {'name': 'builtin', 'path': BUILTIN, 'state': 'ok'} in \
            facts['repositories']
        # The site scope is below the user's: a user's builtin wins.
        del env['SPACK_DISABLE_LOCAL_CONFIG']
        other = tmp_path / 'other'
        with open(tmp_path / 'user' / 'repos.yaml', 'w') as out:
            yaml.safe_dump({'repos': {'builtin': str(other)}}, out)
        facts, _ = spack_check.problems(spack, env)
        assert facts['builtin'] == str(other)
