# SPDX-License-Identifier: BSD-3-Clause
"""Where a partition's benchmark binaries are, and what Spack built them from.

A partition names its Spack environment and view in its ReFrame config
``extras`` (``spack_env``: the environment directory, ``spack_view``: the
view root; see docs/spack.md).  This module reads only files: it never
imports Spack and never runs it, so it works on a login node without Spack,
and on results copied off the machine together with their ``spack.lock``.
"""

import json
import os
import re

from pfsbench.errors import ConfigError

#: Packages whose exact build is part of a result's provenance: the benchmark
#: tools, the pfsbench bundle that selects them, and what they link that moves
#: a figure (MPI, the Lustre client library, HDF5).
BENCHMARK_PACKAGES = frozenset({
    'pfsbench-benchmarks',
    'ior', 'mdtest', 'io500', 'pfind', 'iozone', 'bonniepp', 'fio',
    'elbencho', 'darshan-runtime', 'dbench',
    'mpi', 'openmpi', 'mpich', 'cray-mpich', 'intel-oneapi-mpi', 'mvapich2',
    'mvapich', 'lustre', 'hdf5',
})

#: Directories of a view that hold executables (bonnie++ installs to sbin).
VIEW_BIN_DIRS = ('bin', 'sbin')

#: A DAG hash as Spack's default install layout writes it into a prefix
#: (``.../ior-4.0.0-sx6uf2rkbcgfediujnwsnlaulitywwux/bin/ior``): 32 base32
#: characters ending a path component.
_PREFIX_HASH = re.compile(r'-([a-z2-7]{32})(?=/|$)')

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
