# SPDX-License-Identifier: BSD-3-Clause
"""Print, as one JSON line, what ``pfsbench check-spack`` needs to know.

Run by Spack itself (``spack python spack_facts.py``), so it sees the
interpreter, the merged configuration and the paths that Spack will use.
It imports nothing of pfsbench, loads no package repository (that is what
fails offline) and never bootstraps: it only reads.  Python 3.6 and Spack
0.22 to 1.1.
"""

import glob
import importlib.util
import json
import os
import sys

import spack
import spack.config
import spack.paths
import spack.util.hash
import spack.util.path


def _builtin_clone(descriptor):
    """Where Spack 1.x clones a ``git:`` repository, and whether a clone is
    there (a failed clone leaves an empty .git behind, so the repository's
    index is what tells)."""
    destination = descriptor.get('destination')
    if destination:
        destination = spack.util.path.canonicalize_path(destination)
    else:
        # what spack.repo does for a descriptor without a destination
        name = spack.util.hash.b32_hash(descriptor['git'])[-7:]
        destination = os.path.join(spack.paths.package_repos_path, name)
    return destination, os.path.isfile(os.path.join(destination,
                                                    'spack-repo-index.yaml'))


def _bootstrapped_clingo():
    """Whether an earlier ``spack bootstrap`` left clingo in its store."""
    try:
        from spack.bootstrap.config import _store_path
        store = _store_path()
    except (ImportError, AttributeError, RuntimeError):
        return False  # another layout, or bootstrapping disabled
    return bool(glob.glob(os.path.join(store, '**', 'clingo-bootstrap*'),
                          recursive=True))


def facts():
    repos = spack.config.get('repos')
    builtin = None
    if isinstance(repos, dict):  # Spack 1.x: {name: path or {git: ...}}
        builtin = repos.get('builtin')
        if isinstance(builtin, dict) and 'git' in builtin:
            destination, cloned = _builtin_clone(builtin)
            builtin = {'git': builtin['git'], 'destination': destination,
                       'cloned': cloned}
        elif isinstance(builtin, str):
            builtin = spack.util.path.canonicalize_path(builtin)
    return {
        'version': spack.__version__,
        'python': sys.executable,
        'clingo': importlib.util.find_spec('clingo') is not None,
        'bootstrapped_clingo': _bootstrapped_clingo(),
        'repos': repos,
        'builtin': builtin,
        'mirrors': spack.config.get('mirrors') or {},
        'user_config': spack.paths.user_config_path,
        # With SPACK_DISABLE_LOCAL_CONFIG Spack reads no user scope; the
        # site scope ($SPACK_ROOT/etc/spack) is then the one a fix names.
        'site_config': spack.paths.etc_path,
        'local_config_disabled': bool(
            os.environ.get('SPACK_DISABLE_LOCAL_CONFIG')),
    }


print(json.dumps(facts(), default=str))
