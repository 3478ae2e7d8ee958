# SPDX-License-Identifier: BSD-3-Clause
"""The Spack package repository in spack-repo/ and its environments.

Static tests read every recipe with ``ast`` and run on any machine.  Tests
marked by the ``spack_root`` fixture run a real Spack: every root in
``PFSBENCH_SPACK_ROOTS`` (os.pathsep-separated), else those of
/opt/spack-1.1 and /opt/spack-0.23 that exist.  They skip with the reason
when there is none.  A Spack 1.x root also needs the spack-packages tree
(``PFSBENCH_SPACK_PACKAGES``, default /opt/spack-packages), because 1.x
would otherwise clone its builtin repository from the network.

Spack runs with its user and system scopes moved into a temporary directory
(``SPACK_USER_CONFIG_PATH``, ``SPACK_SYSTEM_CONFIG_PATH``) and on a copy of
spack-repo/, so neither ~/.spack, the Spack instance nor the work tree is
written.  ``SPACK_DISABLE_LOCAL_CONFIG`` is deliberately not set: with it,
``spack repo add`` writes into $SPACK_ROOT/etc/spack.
"""

import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from pfsbench.spack import provenance

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
VIRTUALS = frozenset({'c', 'cxx', 'fortran', 'mpi'})

SHA256 = re.compile(r'[0-9a-f]{64}')
SPEC_NAME = re.compile(r'\s*([a-z0-9][a-z0-9-]*)')

DEFAULT_ROOTS = ('/opt/spack-1.1', '/opt/spack-0.23')
SPACK_PACKAGES = os.environ.get('PFSBENCH_SPACK_PACKAGES',
                                '/opt/spack-packages')
#: A concretization on 2 cores takes 30-80 s; anything past this is a hang.
SPACK_TIMEOUT = 600


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
    assert set(RECIPES) == {'bonniepp', 'io500', 'iozone', 'mdtest',
                            'pfsbench-benchmarks'}


@pytest.mark.parametrize('name', RECIPES)
def test_recipe_header(name):
    text, tree = _recipe(name)
    assert text.startswith('# SPDX-License-Identifier: ')
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
def test_maintainers_and_license(name):
    _, tree = _recipe(name)
    cls = _package_class(tree)
    assert _directives(cls, 'maintainers')
    inherits_license = name in ('iozone',)  # builtin declares it
    assert _directives(cls, 'license') or inherits_license


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
    for root in _spack_roots():
        v1 = os.path.join(root, 'var', 'spack', 'repos', 'builtin',
                          'packages')
        if os.path.isdir(v1):
            trees.append((v1, set(os.listdir(v1))))
    return trees


def test_builtin_names_exist():
    trees = _builtin_package_dirs()
    if not trees:
        pytest.skip('no builtin package tree here (/opt/spack-packages, '
                    '/opt/spack-0.23): BUILTIN_PACKAGES stays unchecked')
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

def _spack_roots():
    roots = os.environ.get('PFSBENCH_SPACK_ROOTS')
    if roots:
        return [root for root in roots.split(os.pathsep) if root]
    return [root for root in DEFAULT_ROOTS if os.path.isdir(root)]


def _is_spack_1(root):
    # Spack 1.x ships no builtin packages; they live in spack-packages
    return not os.path.isdir(os.path.join(root, 'var', 'spack', 'repos',
                                          'builtin'))


class Spack:
    """One Spack root with a throwaway configuration and repository copy."""

    def __init__(self, root, workdir):
        self.root = root
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
        if _is_spack_1(root):
            builtin = os.path.join(SPACK_PACKAGES, 'repos', 'spack_repo',
                                   'builtin')
            with open(os.path.join(workdir, 'user', 'repos.yaml'), 'w') as f:
                yaml.safe_dump({'repos': {'builtin': builtin}}, f)

    def __call__(self, *args):
        cmd = [os.path.join(self.root, 'bin', 'spack'), *args]
        print('+', ' '.join(cmd))  # every command can be rerun by hand
        result = subprocess.run(cmd, env=self.env, capture_output=True,
                                text=True, timeout=SPACK_TIMEOUT,
                                cwd=os.path.dirname(self.repo))
        assert result.returncode == 0, (
            f'{" ".join(cmd)} failed:\n{result.stdout}\n{result.stderr}')
        return result.stdout


@pytest.fixture(scope='module', params=_spack_roots() or [None])
def spack(request, tmp_path_factory):
    root = request.param
    if root is None:
        pytest.skip('no Spack: set PFSBENCH_SPACK_ROOTS or install Spack at '
                    f'{" or ".join(DEFAULT_ROOTS)} (docs/spack.md)')
    if not os.path.isfile(os.path.join(root, 'bin', 'spack')):
        pytest.skip(f'{root}: no bin/spack')
    if importlib.util.find_spec('clingo') is None:
        pytest.skip(f'clingo is not importable by {sys.executable}; '
                    'pip install clingo (Spack would bootstrap it online)')
    if _is_spack_1(root) and not os.path.isdir(SPACK_PACKAGES):
        pytest.skip(f'{root} is Spack 1.x and {SPACK_PACKAGES} (its builtin '
                    'packages) is absent; set PFSBENCH_SPACK_PACKAGES')

    spack = Spack(root, str(tmp_path_factory.mktemp('spack')))
    spack('repo', 'add', '--scope', 'user', spack.repo)
    if not _is_spack_1(root):
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
    env_dir = os.path.join(spack.repo, 'environments', env)
    spack('-e', env_dir, 'concretize', '-f')
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
    if env.startswith('example'):
        assert prov['lustre']['external'] is True
        assert '+lustre' in prov['ior']['spec']
        assert '+lustre' in prov['io500']['spec']
