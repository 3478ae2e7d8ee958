# SPDX-License-Identifier: BSD-3-Clause
"""Where a partition's benchmark binaries are, and what Spack built them from.

A partition names its Spack environment and view in its ReFrame config
``extras`` (``spack_env``: the environment directory, ``spack_view``: the
view root; see docs/spack.md).  This module reads only files: it never
imports Spack and never runs it, so it works on a login node without Spack,
and on results copied off the machine together with their ``spack.lock``.
"""

import dataclasses
import hashlib
import json
import os
import re
import shutil

import yaml

from pfsbench.core import tools, yamlfile
from pfsbench.core.errors import ConfigError

#: Packages whose exact build is part of a result's provenance: the benchmark
#: tools, the pfsbench bundle that selects them, and what they link that moves
#: a figure (MPI, the Lustre client library, HDF5), as
#: :mod:`pfsbench.core.tools` declares them.
BENCHMARK_PACKAGES = tools.packages() | tools.LINKED_PACKAGES

#: Directories of a view that hold executables (bonnie++ installs to sbin).
VIEW_BIN_DIRS = ('bin', 'sbin')

#: A DAG hash as Spack's default install layout writes it into a prefix
#: (``.../ior-4.0.0-sx6uf2rkbcgfediujnwsnlaulitywwux/bin/ior``): 32 base32
#: characters ending a path component.
_PREFIX_HASH = re.compile(r'-([a-z2-7]{32})(?=/|$)')

#: Where an environment's view is when its ``spack.yaml`` names none (or
#: ``view: true``): Spack's default, relative to the environment directory.
DEFAULT_VIEW = os.path.join('.spack-env', 'view')

#: Where a run keeps the ``spack.lock`` files its results were measured
#: with, under the runs directory: one copy per distinct lock, named by
#: its content hash (:func:`keep_lock`).
LOCK_STORE = 'spack-locks'

#: Spec parameters that are compiler flags, not variants.
_FLAG_PARAMETERS = frozenset({
    'cflags', 'cppflags', 'cxxflags', 'fflags', 'ldflags', 'ldlibs',
})


def read_lock(env_dir):
    """Load an environment's ``spack.lock`` as a dict.

    Args:
        env_dir: the environment directory (a partition's ``spack_env``).

    Returns:
        The parsed lock file.

    Raises:
        ConfigError: the file is missing, is not JSON, or is not a Spack
            lock file with ``roots`` and ``concrete_specs``.
    """
    path = os.path.join(env_dir, 'spack.lock')
    try:
        with open(path) as lock_file:
            lock = json.load(lock_file)
    except FileNotFoundError:
        raise ConfigError(env_dir, 'spack.lock', path,
                          'no lock file: concretize the environment '
                          '(spack -e ENV concretize)') from None
    except json.JSONDecodeError as err:
        raise ConfigError(path, f'line {err.lineno}', err.msg,
                          'not JSON') from None

    for key in ('roots', 'concrete_specs'):
        if not isinstance(lock, dict) or key not in lock:
            raise ConfigError(path, key, None,
                              'missing: not a Spack lock file')

    return lock


def spec_string(node):
    """Render one ``concrete_specs`` entry as a short spec string.

    Args:
        node: the lock file's record of one concrete spec.

    Returns:
        ``name@version`` followed by its variants, booleans first
        (``ior@4.0.0~hdf5~lustre~ncmpi build_system=autotools``). Empty flag
        lists are left out.
    """
    params = node.get('parameters', {})
    bools = []
    values = []
    for key in sorted(params):
        value = params[key]
        if isinstance(value, bool):
            bools.append(('+' if value else '~') + key)
        elif key in _FLAG_PARAMETERS and not value:
            continue
        elif isinstance(value, list):
            values.append(f'{key}={",".join(str(v) for v in value)}')
        else:
            values.append(f'{key}={value}')

    spec = f"{node['name']}@{node['version']}" + ''.join(bools)
    return ' '.join([spec] + values)


def provenance(env_dir, packages=BENCHMARK_PACKAGES):
    """What an environment's benchmark tools were built from.

    Walks the lock's roots and all their dependencies and keeps the
    packages named in ``packages``.

    Args:
        env_dir: the environment directory holding ``spack.lock``.
        packages: package names to report (default: the benchmark tools,
            MPI, Lustre and HDF5).

    Returns:
        ``{name: {'version': str, 'hash': str, 'spec': str,
        'namespace': str, 'external': bool}}``, where ``hash`` is Spack's
        DAG hash and ``spec`` comes from :func:`spec_string`.

    Raises:
        ConfigError: the lock file is unreadable or refers to a hash it
            does not hold.
    """
    lock = read_lock(env_dir)
    lock_path = os.path.join(env_dir, 'spack.lock')
    specs = lock['concrete_specs']

    found = {}
    seen = set()
    pending = [root['hash'] for root in lock['roots']]
    while pending:
        dag_hash = pending.pop()
        if dag_hash in seen:
            continue

        seen.add(dag_hash)
        try:
            node = specs[dag_hash]
        except KeyError:
            raise ConfigError(lock_path, 'concrete_specs', dag_hash,
                              'hash referenced but not defined') from None

        if node['name'] in packages:
            found[node['name']] = {
                'version': str(node['version']),
                'hash': dag_hash,
                'spec': spec_string(node),
                'namespace': node.get('namespace', ''),
                'external': 'external' in node,
            }

        pending.extend(dep['hash'] for dep in node.get('dependencies', []))

    return found


def check_view_binary(binary, env_dir, package):
    """Check that a binary in an environment's view is the locked build.

    A view is regenerated by ``spack install``; after a re-concretization
    without one, the view still holds the old build while ``spack.lock``
    (and so the recorded provenance) names the new one.  The binary's real
    path is compared with the lock's hash of ``package``.

    Args:
        binary: the tool's path in the view (a symlink into its prefix).
        env_dir: the environment directory holding ``spack.lock``.
        package: the package that installs the binary (``ior`` for ``ior``
            and ``mdtest``).

    Returns:
        The binary's real path.  An install layout whose prefixes carry no
        full hash (a site projection with ``{hash:7}``) cannot be checked;
        the real path is returned as it is.

    Raises:
        ConfigError: the package is not in the lock, or the binary comes
            from another build than the locked one.
    """
    real = os.path.realpath(binary)
    locked = provenance(env_dir, packages={package}).get(package)
    if locked is None:
        raise ConfigError(os.path.join(env_dir, 'spack.lock'),
                          'concrete_specs', package,
                          f'not in the environment, which {binary} belongs '
                          'to: add it to the specs and install')
    hashes = _PREFIX_HASH.findall(real)
    if hashes and locked['hash'] not in hashes:
        raise ConfigError(binary, 'real path', real,
                          f'not the locked {package}@{locked["version"]}/'
                          f'{locked["hash"][:7]}: the view is older than '
                          f'spack.lock; run spack -e {env_dir} install')
    return real


@dataclasses.dataclass(frozen=True)
class Environment:
    """The Spack environment a run takes its benchmark binaries from.

    Attributes:
        env_dir: the environment directory (holds ``spack.lock``); empty
            for a partition that names only a view.
        view: the view root whose ``bin``/``sbin`` hold the tools.
        source: what named it: ``extras.spack_env`` (or
            ``extras.spack_view``), ``PFSBENCH_SPACK_ENV`` or ``SPACK_ENV``.
    """

    env_dir: str
    view: str
    source: str


def _expanded(path):
    return os.path.expandvars(os.path.expanduser(path)) if path else path


def view_of(env_dir):
    """The view root an environment declares in its ``spack.yaml``
    (``view: PATH``, or ``view: {default: {root: PATH}}``; a relative path
    is relative to the environment), else ``<env>/.spack-env/view``."""
    try:
        with open(os.path.join(env_dir, 'spack.yaml')) as fp:
            view = (yamlfile.safe_load(fp) or {}).get('spack', {}).get('view')
    except (OSError, yaml.YAMLError, AttributeError):
        view = None
    if isinstance(view, dict):
        view = (view.get('default') or {}).get('root')
    if not isinstance(view, str) or not view:
        view = DEFAULT_VIEW
    return os.path.join(env_dir, _expanded(view))


def environment(extras=None, environ=None):
    """Which Spack environment a run used: the one place that decides it,
    for the checks, ``pfsbench session-extras``, the nightly and the gate.

    In order: the partition's ``extras`` (``spack_env``, ``spack_view``;
    on ``local`` and ``localslurm`` these come from ``PFSBENCH_SPACK_ENV``
    and ``PFSBENCH_SPACK_VIEW``), else ``PFSBENCH_SPACK_ENV`` (with
    ``PFSBENCH_SPACK_VIEW``), else an activated environment (``SPACK_ENV``,
    as ``spack env activate`` sets it).  Without ``spack_view`` the view is
    the one the environment's ``spack.yaml`` declares (:func:`view_of`).

    Args:
        extras: the partition's ``extras`` (None outside a partition).
        environ: the environment (default ``os.environ``).

    Returns:
        An :class:`Environment` with paths ``~`` and ``$VAR`` expanded, or
        None when nothing names one.
    """
    extras = extras or {}
    environ = os.environ if environ is None else environ
    if extras.get('spack_env') or extras.get('spack_view'):
        env_dir = _expanded(extras.get('spack_env') or '')
        view = _expanded(extras.get('spack_view') or '') or view_of(env_dir)
        source = ('extras.spack_env' if extras.get('spack_env')
                  else 'extras.spack_view')
        return Environment(env_dir, view, source)

    for name, view_name in (('PFSBENCH_SPACK_ENV', 'PFSBENCH_SPACK_VIEW'),
                            ('SPACK_ENV', None)):
        env_dir = _expanded(environ.get(name, ''))
        if env_dir:
            view = _expanded(environ.get(view_name, '') if view_name
                             else '') or view_of(env_dir)
            return Environment(env_dir, view, name)

    return None


def lock_digest(env_dir):
    """The sha256 (hex) of ``<env>/spack.lock``: one value that changes
    whenever any concretized package does; None without a lock."""
    try:
        with open(os.path.join(env_dir, 'spack.lock'), 'rb') as fp:
            return hashlib.sha256(fp.read()).hexdigest()
    except OSError:
        return None


def keep_lock(env_dir, runs_dir):
    """Keep a copy of the environment's ``spack.lock`` with the results.

    The copy is ``<runs>/spack-locks/<sha256>.spack.lock``: a lock that
    many nights share is kept once, and a night names its copy by the hash
    it records.  An existing copy is left as it is (same name, same
    content).

    Args:
        env_dir: the environment directory.
        runs_dir: the runs directory (``$PFSBENCH_RUNS``).

    Returns:
        ``(sha256, path of the copy)``, or None without a lock.

    Raises:
        ConfigError: the copy cannot be written.
    """
    digest = lock_digest(env_dir)
    if digest is None:
        return None

    store = os.path.join(runs_dir, LOCK_STORE)
    copy = os.path.join(store, f'{digest}.spack.lock')
    if os.path.exists(copy):
        return digest, copy

    partial = f'{copy}.{os.getpid()}.partial'
    try:
        os.makedirs(store, exist_ok=True)
        shutil.copyfile(os.path.join(env_dir, 'spack.lock'), partial)
        os.replace(partial, copy)      # readers never see half a copy
    except OSError as err:
        raise ConfigError(store, 'spack.lock copy', copy,
                          err.strerror or str(err)) from None
    return digest, copy


def tool_build(env_dir, package):
    """What ``package`` (the one that installs a tool) was built as, for a
    result: ``'<spec> /<full hash>'`` (``ior@4.0.0~hdf5~lustre~ncmpi
    build_system=autotools /zrvssz4...``), or '' when the environment does
    not hold it.

    Raises:
        ConfigError: the lock file is unreadable.
    """
    built = provenance(env_dir, packages={package}).get(package)
    return f"{built['spec']} /{built['hash']}" if built else ''
