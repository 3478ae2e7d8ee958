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
import re
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


def _scopes():
    """``[[name, directory]]`` of the configuration scopes that have a
    directory, highest priority first (what ``spack config scopes -p``
    lists on 1.x; 0.2x has no such command).  Spack 1.1's ``site`` is
    ``$spack/etc/spack/site`` (``$spack/etc/spack`` is the ``spack``
    scope, above the user's); 0.2x's is ``$spack/etc/spack``."""
    found = []
    for scope in reversed(list(spack.config.CONFIG.scopes.values())):
        path = getattr(scope, 'path', None)
        if path:
            found.append([scope.name, os.path.normpath(path)])
    return found


def _namespace(path):
    """The namespace a repository's repo.yaml declares ('' for none)."""
    try:
        with open(os.path.join(path, 'repo.yaml')) as src:
            match = re.search(r'^\s*namespace:\s*[\'"]?([\w.-]+)',
                              src.read(), re.MULTILINE)
    except OSError:
        return ''
    return match.group(1) if match else ''


def _repositories(repos):
    """Each configured repository as ``{name, path | git, destination,
    state}``, in Spack's order: what a site engineer reads (a name, a
    path or git URL, and whether it is there)."""
    if isinstance(repos, dict):  # Spack 1.x: {name: path or {git: ...}}
        items = list(repos.items())
    else:  # Spack 0.2x: [path, ...], named by their repo.yaml
        items = [(None, entry) for entry in repos or []]
    found = []
    for name, entry in items:
        if isinstance(entry, dict) and 'git' in entry:
            destination, cloned = _builtin_clone(entry)
            found.append({'name': name or '', 'git': entry['git'],
                          'destination': destination,
                          'state': 'cloned' if cloned else 'not cloned'})
            continue
        if isinstance(entry, dict):
            entry = entry.get('path') or ''
        path = spack.util.path.canonicalize_path(str(entry))
        namespace = _namespace(path)
        found.append({'name': name or namespace or path, 'path': path,
                      'state': 'ok' if namespace or os.path.isfile(
                          os.path.join(path, 'repo.yaml'))
                      else 'no repo.yaml'})
    return found


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
    scopes = _scopes()
    return {
        'version': spack.__version__,
        'python': sys.executable,
        'clingo': importlib.util.find_spec('clingo') is not None,
        'bootstrapped_clingo': _bootstrapped_clingo(),
        'repos': repos,
        'builtin': builtin,
        'repositories': _repositories(repos),
        'mirrors': spack.config.get('mirrors') or {},
        'user_config': spack.paths.user_config_path,
        'scopes': scopes,
        # The scope a fix writes to when SPACK_DISABLE_LOCAL_CONFIG makes
        # Spack ignore the user's: "site", as this Spack defines it.
        'site_config': {name: path for name, path in scopes}.get('site',
                                                                  ''),
        'local_config_disabled': bool(
            os.environ.get('SPACK_DISABLE_LOCAL_CONFIG')),
    }


print(json.dumps(facts(), default=str))
