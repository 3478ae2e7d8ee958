# SPDX-License-Identifier: BSD-3-Clause
"""The Spack package repository in spack-repo/ and its environments.

Static tests read every recipe with ``ast`` and run on any machine; ruff
lints the recipes with spack-packages' settings where it is installed.  Tests
that use the ``spack`` fixture run a real Spack: every root in
``PFSBENCH_SPACK_ROOTS`` (os.pathsep-separated), else every /opt/spack-*
that has a bin/spack.  They skip with the reason when there is none.  A
Spack 1.x root also needs the spack-packages tree (``PFSBENCH_SPACK_PACKAGES``,
default /opt/spack-packages, else the last /opt/spack-packages-*), because 1.x
would otherwise clone its builtin repository from the network.

With a source mirror (``PFSBENCH_SPACK_MIRROR``, default
/opt/pfsbench-spack/mirror; docs/spack.md says how to make one), the
example environment's IOR is staged and patched offline.  Installing the
local environment from that mirror takes minutes, so it runs only with
``PFSBENCH_TEST_SPACK_INSTALL=1``; concretizing (minutes too) only with
``PFSBENCH_TEST_SPACK_CONCRETIZE=1``.

Spack runs with its user and system scopes moved into a temporary directory
(``SPACK_USER_CONFIG_PATH``, ``SPACK_SYSTEM_CONFIG_PATH``), from a copy of
its instance without the instance's own settings (:func:`pristine_root`)
and on a copy of spack-repo/, so neither ~/.spack, the Spack instance nor
the work tree is written, and a site's settings in the instance do not
change what the tests see.  ``SPACK_DISABLE_LOCAL_CONFIG`` is deliberately not set: with it,
``spack repo add`` writes into $SPACK_ROOT/etc/spack.
"""

import ast
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from pfsbench.site.spack import provenance

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(os.path.dirname(HERE), 'spack-repo')
PACKAGES = os.path.join(REPO, 'packages')
ENVIRONMENTS = os.path.join(REPO, 'environments')

RECIPES = sorted(os.listdir(PACKAGES))
ENV_DIRS = sorted(
    os.path.relpath(os.path.dirname(os.path.join(root, 'spack.yaml')),
                    ENVIRONMENTS)
    for root, _, files in os.walk(ENVIRONMENTS) if 'spack.yaml' in files
)

#: Dependencies the recipes take from Spack's builtin repository, checked
#: against spack-packages v2025.11.0 and Spack 0.23.1's builtin (see
#: test_builtin_names_exist, which re-checks when those trees are present).
BUILTIN_PACKAGES = frozenset({
    'autoconf', 'automake', 'bonniepp', 'darshan-runtime', 'elbencho',
    'fio', 'gmake', 'ior', 'iozone', 'libtool', 'lustre', 'm4',
})
#: Virtual packages the recipes depend on (providers live in builtin).
VIRTUALS = frozenset({'c', 'cxx', 'fortran', 'mpi', 'pkgconfig'})
#: The header of every spack-packages recipe, so a recipe can go upstream
#: as it is.
SPACK_HEADER = ('# Copyright Spack Project Developers. See COPYRIGHT file '
                'for details.\n#\n'
                '# SPDX-License-Identifier: (Apache-2.0 OR MIT)\n')
#: builtin ior's Lustre patch (glennklockwood/ior@e49476be), for IOR 3 only
LUSTRE_PATCH_SHA256 = ('ee3527023ef70ea9aee2e6208f8be7126d5a48f2'
                       '6c587deed3d6238b4f848a06')

SHA256 = re.compile(r'[0-9a-f]{64}')
SPEC_NAME = re.compile(r'\s*([a-z0-9][a-z0-9-]*)')


def _default_spack_packages():
    if os.path.isdir('/opt/spack-packages'):
        return '/opt/spack-packages'
    trees = sorted(glob.glob('/opt/spack-packages-*'))
    return trees[-1] if trees else '/opt/spack-packages'


SPACK_PACKAGES = (os.environ.get('PFSBENCH_SPACK_PACKAGES') or
                  _default_spack_packages())
SPACK_MIRROR = os.environ.get('PFSBENCH_SPACK_MIRROR',
                              '/opt/pfsbench-spack/mirror')
#: A concretization on 2 cores takes 30-80 s; anything past this is a hang.
SPACK_TIMEOUT = 600
#: Installing the local environment took about a minute on 2 cores.
INSTALL_TIMEOUT = 1800


def _recipe(name):
    with open(os.path.join(PACKAGES, name, 'package.py')) as src:
        text = src.read()
    return text, ast.parse(text)


def _package_class(tree):
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    assert len(classes) == 1, 'one package class per recipe'
    return classes[0]


def _directives(cls, name):
    """Calls of directive ``name`` in the class body."""
    return [stmt.value for stmt in cls.body
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Name)
            and stmt.value.func.id == name]


def _kwargs(call):
    return {kw.arg: kw.value for kw in call.keywords}


def _const(node):
    return node.value if isinstance(node, ast.Constant) else None


def _class_name(package):
    return ''.join(part.capitalize() for part in package.split('-'))


# -- static tests: any machine ------------------------------------------

def test_repo_yaml_is_package_api_v1():
    with open(os.path.join(REPO, 'repo.yaml')) as src:
        config = yaml.safe_load(src)
    assert config['repo']['namespace'] == 'pfsbench'
    # No "api:" = v1.0, the one format Spack 0.2x and 1.x both read.
    assert 'api' not in config['repo']


def test_expected_recipes():
    assert set(RECIPES) == {'bonniepp', 'io500', 'ior', 'iozone', 'mdtest',
                            'pfsbench-benchmarks'}


@pytest.mark.parametrize('name', RECIPES)
def test_recipe_header(name):
    text, tree = _recipe(name)
    assert text.startswith(SPACK_HEADER)
    # each recipe says why it exists instead of builtin's
    assert 'Why this recipe exists' in text
    cls = _package_class(tree)
    assert cls.name == _class_name(name)
    assert ast.get_docstring(cls)


@pytest.mark.parametrize('name', RECIPES)
def test_recipe_lines_fit_99_columns(name):
    text, _ = _recipe(name)
    # a URL is not split (ruff's formatter leaves them too, as builtin's ior)
    long_lines = [n for n, line in enumerate(text.splitlines(), 1)
                  if len(line) > 99 and '"https://' not in line]
    assert not long_lines


@pytest.mark.parametrize('name', RECIPES)
def test_license_and_no_placeholder_maintainers(name):
    _, tree = _recipe(name)
    cls = _package_class(tree)
    inherits_license = name in ('iozone',)  # builtin declares it
    assert _directives(cls, 'license') or inherits_license
    # maintainers() are GitHub accounts that Spack pings on every change;
    # a team name that is no account would ping nobody.
    for call in _directives(cls, 'maintainers'):
        for handle in call.args:
            assert 'pfsbench' not in _const(handle), handle


@pytest.mark.parametrize('name', RECIPES)
def test_one_url_per_recipe(name):
    """Versions take their URL from ``url`` or ``url_for_version``: at
    most one version (one from another host) names its own."""
    _, tree = _recipe(name)
    own_urls = [call for call in _directives(_package_class(tree), 'version')
                if 'url' in _kwargs(call)]
    assert len(own_urls) <= 1


def test_ruff_with_spack_packages_settings():
    ruff = shutil.which('ruff') or os.path.join(os.path.dirname(
        sys.executable), 'ruff')
    if not os.access(ruff, os.X_OK):
        pytest.skip('ruff is not installed (scripts/setup.sh --test '
                    'installs it)')
    for args in (['check'], ['format', '--check', '--diff']):
        cmd = [ruff, *args, '--config', os.path.join(REPO, 'ruff.toml'),
               PACKAGES]
        print('+', ' '.join(cmd))
        result = subprocess.run(cmd, capture_output=True, text=True,
                                cwd=REPO)
        assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize('name', RECIPES)
def test_versions_are_checksummed(name):
    _, tree = _recipe(name)
    cls = _package_class(tree)
    bases = {ast.unparse(base) for base in cls.bases}
    for call in _directives(cls, 'version'):
        kwargs = _kwargs(call)
        version = _const(call.args[0])
        if 'BundlePackage' in bases:
            # a bundle has no source: nothing to download or checksum
            assert not {'sha256', 'url', 'git'} & set(kwargs), version
        else:
            assert SHA256.fullmatch(_const(kwargs.get('sha256')) or ''), (
                f'{name}@{version} has no sha256')


@pytest.mark.parametrize('name', RECIPES)
def test_resources_are_checksummed(name):
    _, tree = _recipe(name)
    for call in _directives(_package_class(tree), 'resource'):
        kwargs = _kwargs(call)
        assert SHA256.fullmatch(_const(kwargs.get('sha256')) or '')
        assert 'when' in kwargs, 'a resource belongs to given versions'


def test_versions_newest_first():
    _, tree = _recipe('io500')
    versions = [_const(call.args[0])
                for call in _directives(_package_class(tree), 'version')]
    assert versions == sorted(versions, reverse=True)


@pytest.mark.parametrize('name', RECIPES)
def test_variants_have_descriptions(name):
    _, tree = _recipe(name)
    for call in _directives(_package_class(tree), 'variant'):
        description = _const(_kwargs(call).get('description'))
        assert description, f'{name}: variant {_const(call.args[0])}'


@pytest.mark.parametrize('name', RECIPES)
def test_conflicts_and_requires_have_msg(name):
    _, tree = _recipe(name)
    cls = _package_class(tree)
    for call in _directives(cls, 'conflicts') + _directives(cls, 'requires'):
        assert _const(_kwargs(call).get('msg'))


def _dependency_names(name):
    _, tree = _recipe(name)
    for call in _directives(_package_class(tree), 'depends_on'):
        spec = _const(call.args[0])
        yield SPEC_NAME.match(spec).group(1)


@pytest.mark.parametrize('name', RECIPES)
def test_dependencies_exist(name):
    known = set(RECIPES) | BUILTIN_PACKAGES | VIRTUALS
    unknown = set(_dependency_names(name)) - known
    assert not unknown, f'{name} depends on unknown packages {unknown}'


def _builtin_package_dirs():
    """(label, set of package names) for each builtin tree on disk."""
    trees = []
    v2 = os.path.join(SPACK_PACKAGES, 'repos', 'spack_repo', 'builtin',
                      'packages')
    if os.path.isdir(v2):
        # API v2 directories are module names: '-' -> '_', '_' before a digit
        names = {d.lstrip('_').replace('_', '-') for d in os.listdir(v2)}
        trees.append((v2, names))
    for root in spack_roots():
        v1 = os.path.join(root, 'var', 'spack', 'repos', 'builtin',
                          'packages')
        if os.path.isdir(v1):
            trees.append((v1, set(os.listdir(v1))))
    return trees


def test_builtin_names_exist():
    trees = _builtin_package_dirs()
    if not trees:
        pytest.skip('no builtin package tree here (/opt/spack-packages, '
                    '/opt/spack-0.2x): BUILTIN_PACKAGES stays unchecked')
    for label, names in trees:
        missing = BUILTIN_PACKAGES - names
        assert not missing, f'{label} lacks {missing}'


def test_gaps_still_exist_in_builtin():
    """Each added recipe answers a gap; fail once builtin closes one."""
    trees = _builtin_package_dirs()
    if not trees:
        pytest.skip('no builtin package tree here')
    for label, names in trees:
        assert 'io500' not in names, f'{label} now has io500'


@pytest.mark.parametrize('env', ENV_DIRS)
def test_environment_layout(env):
    system_partition = env.split(os.sep)
    assert len(system_partition) == 2, '<system>/<partition>/spack.yaml'
    with open(os.path.join(ENVIRONMENTS, env, 'spack.yaml')) as src:
        config = yaml.safe_load(src)['spack']
    assert config['include'] == ['../../common.yaml']
    assert config['view']
    packages = config['packages']
    # the site MPI is an external that nothing else can replace
    assert packages['mpi']['buildable'] is False
    openmpi = packages['openmpi']
    assert openmpi['buildable'] is False and openmpi['externals']
    assert 'schedulers=slurm' in openmpi['externals'][0]['spec']
    assert packages['slurm']['externals']
    known = set(RECIPES) | BUILTIN_PACKAGES
    for spec in config['specs']:
        assert SPEC_NAME.match(spec).group(1) in known


def test_common_yaml():
    with open(os.path.join(ENVIRONMENTS, 'common.yaml')) as src:
        common = yaml.safe_load(src)
    assert common['repos'] == ['$env/../../..']
    assert common['concretizer']['unify'] is True
    assert common['packages']['ior']['require'] == '@4.0.0'


def test_production_example_pins_site_stack():
    with open(os.path.join(ENVIRONMENTS, 'example', 'compute',
                           'spack.yaml')) as src:
        config = yaml.safe_load(src)['spack']
    packages = config['packages']
    assert packages['mpi']['require']
    assert packages['lustre']['buildable'] is False
    assert packages['gcc']['externals']
    assert config['concretizer']['unify'] is True
    assert '+lustre' in config['specs'][0]


# -- with a real Spack ----------------------------------------------------

def spack_roots():
    roots = os.environ.get('PFSBENCH_SPACK_ROOTS')
    if roots:
        return [root for root in roots.split(os.pathsep) if root]
    found = {}
    for spack in sorted(glob.glob('/opt/spack-*/bin/spack')):
        root = os.path.dirname(os.path.dirname(spack))
        found.setdefault(os.path.realpath(root), root)  # a link is one root
    return list(found.values())


#: What a Spack release ships in its own etc/spack besides defaults/: 1.x's
#: include.yaml (which defines the user, site and system scopes).  Any
#: other file there, or in etc/spack/site, is a site's setting.
SHIPPED_ETC = frozenset({'include.yaml', 'README.md'})


def pristine_root(root, workdir):
    """The Spack instance at ``root`` as shipped, whatever a site wrote
    into its own scopes (1.x's ``spack`` scope ``etc/spack`` and ``site``
    scope ``etc/spack/site``, 0.2x's ``site`` scope ``etc/spack``; where
    docs/spack.md says to set builtin and the mirror under
    ``SPACK_DISABLE_LOCAL_CONFIG``): a directory under ``workdir`` with a
    copy of ``bin/`` and ``lib/spack/spack_installable`` (Spack finds its
    prefix from their real paths), links to everything else but
    ``etc/``, and an
    ``etc/spack`` holding only what the release ships.  Returns it."""
    root = os.path.realpath(root)
    shadow = os.path.join(workdir, 'spack-root')
    shutil.copytree(os.path.join(root, 'bin'), os.path.join(shadow, 'bin'),
                    symlinks=True)
    for name in os.listdir(root):
        if name not in ('bin', 'etc', 'lib'):
            os.symlink(os.path.join(root, name), os.path.join(shadow, name))
    # 0.2x's spack_installable/main.py also takes the prefix from its own
    # real path: copied; the rest of lib/spack is linked.
    lib = os.path.join(root, 'lib', 'spack')
    os.makedirs(os.path.join(shadow, 'lib', 'spack'))
    for name in os.listdir(lib):
        source, copy = os.path.join(lib, name), os.path.join(
            shadow, 'lib', 'spack', name)
        if name == 'spack_installable':
            shutil.copytree(source, copy)
        else:
            os.symlink(source, copy)
    etc, shadow_etc = (os.path.join(root, 'etc', 'spack'),
                       os.path.join(shadow, 'etc', 'spack'))
    os.makedirs(shadow_etc)
    for name in os.listdir(etc):
        source, copy = os.path.join(etc, name), os.path.join(shadow_etc, name)
        if name == 'defaults':
            os.symlink(source, copy)
        elif os.path.isdir(source):
            os.mkdir(copy)  # 1.x's site/, 0.2x's <platform>/: kept empty
        elif name in SHIPPED_ETC:
            shutil.copy(source, copy)
    return shadow


def is_spack_1(root):
    # Spack 1.x ships no builtin packages; they live in spack-packages
    return not os.path.isdir(os.path.join(root, 'var', 'spack', 'repos',
                                          'builtin'))


class Spack:
    """One Spack root with a throwaway configuration and repository copy."""

    def __init__(self, root, workdir):
        self.workdir = workdir
        # The instance's own scopes may set builtin (docs/spack.md says
        # so under SPACK_DISABLE_LOCAL_CONFIG; 1.1's etc/spack overrides
        # the user scope): run it as shipped.
        self.root = pristine_root(root, workdir)
        self.concretized = set()
        self.repo = os.path.join(workdir, 'spack-repo')
        shutil.copytree(REPO, self.repo,
                        ignore=shutil.ignore_patterns('.spack-env',
                                                      'spack.lock'))
        self.env = dict(os.environ)
        for name in ('user', 'system', 'cache'):
            os.makedirs(os.path.join(workdir, name))
        self.env.update(
            SPACK_USER_CONFIG_PATH=os.path.join(workdir, 'user'),
            SPACK_SYSTEM_CONFIG_PATH=os.path.join(workdir, 'system'),
            SPACK_USER_CACHE_PATH=os.path.join(workdir, 'cache'),
            # the interpreter that has clingo, so nothing is bootstrapped
            SPACK_PYTHON=sys.executable,
        )
        self.env.pop('SPACK_DISABLE_LOCAL_CONFIG', None)
        self.env.pop('SPACK_ENV', None)
        if is_spack_1(root):
            builtin = os.path.join(SPACK_PACKAGES, 'repos', 'spack_repo',
                                   'builtin')
            self._write_config('repos', {'builtin': builtin})
        # Sources, stages and installs stay in the throwaway directory.
        self._write_config('config', {
            'build_stage': [os.path.join(workdir, 'stage')],
            'source_cache': os.path.join(workdir, 'source-cache'),
            'install_tree': {'root': os.path.join(workdir, 'opt')},
        })
        self.has_mirror = os.path.isdir(os.path.join(SPACK_MIRROR,
                                                     '_source-cache'))
        if self.has_mirror:
            self._write_config('mirrors', {
                'pfsbench': f'file://{os.path.abspath(SPACK_MIRROR)}'})

    def _write_config(self, section, content):
        path = os.path.join(self.workdir, 'user', f'{section}.yaml')
        with open(path, 'w') as out:
            yaml.safe_dump({section: content}, out)

    def __call__(self, *args, timeout=SPACK_TIMEOUT):
        cmd = [os.path.join(self.root, 'bin', 'spack'), *args]
        print('+', ' '.join(cmd))  # every command can be rerun by hand
        result = subprocess.run(cmd, env=self.env, capture_output=True,
                                text=True, timeout=timeout,
                                cwd=os.path.dirname(self.repo))
        assert result.returncode == 0, (
            f'{" ".join(cmd)} failed:\n{result.stdout}\n{result.stderr}')
        return result.stdout

    def concretize(self, env):
        """Concretize ``env`` (relative to environments/) once; its dir.

        Concretizing takes 4 to 17 minutes per environment and Spack on
        two cores, which no CI run can afford on a machine that keeps a
        Spack in /opt: it runs with ``PFSBENCH_TEST_SPACK_CONCRETIZE=1``.
        """
        if os.environ.get('PFSBENCH_TEST_SPACK_CONCRETIZE') != '1':
            pytest.skip('concretizing takes minutes per environment: set '
                        'PFSBENCH_TEST_SPACK_CONCRETIZE=1')
        env_dir = os.path.join(self.repo, 'environments', env)
        if env not in self.concretized:
            self('-e', env_dir, 'concretize', '-f')
            self.concretized.add(env)
        return env_dir


@pytest.fixture(scope='module', params=spack_roots() or [None])
def spack(request, tmp_path_factory):
    root = request.param
    if root is None:
        pytest.skip('no Spack: set PFSBENCH_SPACK_ROOTS or unpack a Spack '
                    'release as /opt/spack-<version> (docs/spack.md)')
    if not os.path.isfile(os.path.join(root, 'bin', 'spack')):
        pytest.skip(f'{root}: no bin/spack')
    if importlib.util.find_spec('clingo') is None:
        pytest.skip(f'clingo is not importable by {sys.executable}; '
                    'pip install clingo (Spack would bootstrap it online)')
    if is_spack_1(root) and not os.path.isdir(SPACK_PACKAGES):
        pytest.skip(f'{root} is Spack 1.x and {SPACK_PACKAGES} (its builtin '
                    'packages) is absent; set PFSBENCH_SPACK_PACKAGES')

    spack = Spack(root, str(tmp_path_factory.mktemp('spack')))
    spack('repo', 'add', '--scope', 'user', spack.repo)
    if not is_spack_1(root):
        # Spack 0.2x drops configured compilers whose executables are absent
        # (the example's /opt/site/gcc), and then has none at all; register
        # the host's, as any 0.2x installation has them (docs/spack.md).
        spack('compiler', 'find', '--scope', 'user')
    return spack


def test_repo_add_precedes_builtin(spack):
    listing = spack('repo', 'list').splitlines()
    namespaces = [line.split()[1] if line.startswith('[') else
                  line.split()[0] for line in listing if line.strip()]
    assert namespaces.index('pfsbench') < namespaces.index('builtin')


@pytest.mark.parametrize('name', RECIPES)
def test_spack_info(spack, name):
    out = spack('info', name)
    # The description is this recipe's docstring: Spack found pfsbench's
    # recipe, not builtin's of the same name (iozone, bonniepp, mdtest).
    _, tree = _recipe(name)
    docstring = ' '.join(ast.get_docstring(_package_class(tree)).split())
    assert docstring[:60] in ' '.join(out.split())


@pytest.mark.parametrize('env', ENV_DIRS)
def test_concretize_environment(spack, env):
    env_dir = spack.concretize(env)
    prov = provenance(env_dir)
    assert prov['ior']['version'] == '4.0.0'
    assert prov['iozone']['namespace'] == 'pfsbench'
    assert prov['bonniepp']['namespace'] == 'pfsbench'
    assert prov['io500']['namespace'] == 'pfsbench'
    assert prov['openmpi']['external'] is True
    assert prov['bonniepp']['version'] == '2.00a-nmu1'
    # common.yaml pins iozone@3_506; local/default overrides it with 3_487
    assert prov['iozone']['version'] == ('3_487' if env.startswith('local')
                                         else '3_506')
    assert prov['ior']['namespace'] == 'pfsbench'
    # mdtest is IOR's, at the same release
    assert prov['mdtest']['version'] == prov['ior']['version']
    if env.startswith('example'):
        assert prov['lustre']['external'] is True
        assert '+lustre' in prov['ior']['spec']
        assert '+lustre' in prov['io500']['spec']
        # builtin's Lustre patch is for IOR 3 and fails on 4.0.0
        assert 'patches=' not in prov['ior']['spec']


#: Prints, per ior version, the sha256 of each patch the recipe applies
#: with +lustre (run by "spack python").
LUSTRE_PATCHES_SCRIPT = """
import json
import spack.repo
from spack.spec import Spec
result = {}
for name in ("ior", "builtin.ior"):
    cls = spack.repo.PATH.get_pkg_class(name)
    for version in ("3.3.0", "4.0.0"):
        spec = Spec(f"ior@{version}+lustre")
        result[f"{name}@{version}"] = sorted(
            patch.sha256 for when, patches in cls.patches.items()
            if spec.satisfies(when) for patch in patches)
print(json.dumps(result))
"""


def test_lustre_patch_only_for_ior3(spack, tmp_path):
    script = tmp_path / 'lustre_patches.py'
    script.write_text(LUSTRE_PATCHES_SCRIPT)
    patches = json.loads(spack('python', str(script)).splitlines()[-1])
    assert patches['ior@3.3.0'] == [LUSTRE_PATCH_SHA256]
    assert patches['ior@4.0.0'] == []
    # The gap this recipe fills: builtin patches 4.0.0 too.  Once this
    # fails, every supported builtin has spack-packages#3932 and
    # spack-repo/packages/ior can go.
    assert patches['builtin.ior@4.0.0'] == [LUSTRE_PATCH_SHA256]


def test_example_ior_stages_and_patches_offline(spack):
    """The production example's ior (+lustre) fetches from the mirror and
    every patch its concretized spec carries applies."""
    if not spack.has_mirror:
        pytest.skip(f'no source mirror at {SPACK_MIRROR} (set '
                    'PFSBENCH_SPACK_MIRROR; docs/spack.md, "A source '
                    'mirror")')
    env_dir = spack.concretize(os.path.join('example', 'compute'))
    out = spack('-e', env_dir, 'patch', 'ior')
    staged = glob.glob(os.path.join(spack.workdir, 'stage', '*ior-4.0.0-*',
                                    'spack-src', 'configure.ac'))
    assert staged, out
    with open(staged[0]) as configure:
        # what the Lustre patch would add is already in IOR 4
        assert 'HAVE_LUSTRE_USER' in configure.read()


def test_local_environment_installs_from_the_mirror(spack):
    """Every recipe's build steps, offline: the local environment holds
    all of them (pfsbench-benchmarks +io500 and its mdtest)."""
    if os.environ.get('PFSBENCH_TEST_SPACK_INSTALL') != '1':
        pytest.skip('installs take minutes: set PFSBENCH_TEST_SPACK_INSTALL=1')
    if not spack.has_mirror:
        pytest.skip(f'no source mirror at {SPACK_MIRROR}')
    env_dir = spack.concretize(os.path.join('local', 'default'))
    spack('-e', env_dir, 'install', '--fail-fast', timeout=INSTALL_TIMEOUT)
    view = os.path.join(env_dir, '.spack-env', 'view')
    for program in ('bin/ior', 'bin/mdtest', 'bin/io500', 'bin/iozone',
                    'bin/fio', 'sbin/bonnie++'):
        assert os.access(os.path.join(view, program), os.X_OK), program
    installed = spack('-e', env_dir, 'find', '--format', '{name}')
    assert set(RECIPES) <= set(installed.split())
