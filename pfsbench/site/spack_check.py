# SPDX-License-Identifier: BSD-3-Clause
"""Find the Spack set-up mistakes that make Spack fail with a misleading
message, and say the fix.

Offline, a Spack 1.x whose builtin repository is still the default
``git:`` clone fails every ``spack info``/``spec`` of this repository's
recipes with ``No module named 'spack_repo'`` (they subclass builtin's
classes), which blames spack-repo/.  Without clingo in the Python that
Spack runs, ``spack spec`` spends over a minute trying to bootstrap it and
then fails.  :func:`problems` asks Spack itself (``spack python``, which
needs neither) and returns each mistake with its fix (docs/spack.md,
"Air-gapped sites").
"""

import dataclasses
import glob
import json
import os
import shutil
import subprocess
import sys

import yaml

from pfsbench.core import yamlfile
from pfsbench.core.errors import ConfigError
from pfsbench.parsers import text

#: Spack releases whose package API reads spack-repo/ (docs/spack.md,
#: "Repository format"): 0.22 and 0.23, 1.0 and 1.1.
SUPPORTED_SERIES = ((0, 22), (0, 23), (1, 0), (1, 1))

#: The script that Spack's own interpreter runs to report its set-up.
FACTS_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            'spack_facts.py')

#: The script that lists the checksummed sources of a concretized
#: environment (:func:`missing_sources`).
SOURCES_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              'spack_sources.py')

#: Where builtin lives inside a spack-packages checkout (Spack >= 1.0).
BUILTIN_IN_SPACK_PACKAGES = os.path.join('repos', 'spack_repo', 'builtin')

#: ``spack python`` of the facts script; a default git builtin makes
#: Spack 1.x try a clone first, which can hang on an air-gapped DNS.
FACTS_TIMEOUT = 300


@dataclasses.dataclass(frozen=True)
class Problem:
    """One mistake in how Spack is set up for pfsbench.

    Attributes:
        where: the setting or file at fault (``repos:builtin``).
        what: what is wrong, and what Spack would do because of it.
        fix: the exact change that repairs it.
    """

    where: str
    what: str
    fix: str

    def __str__(self):
        return f'{self.where}: {self.what}\n  fix: {self.fix}'


def find_spack(environ=None):
    """The ``spack`` executable a user would run.

    Args:
        environ: the environment to look in (default ``os.environ``).

    Returns:
        ``$SPACK_ROOT/bin/spack`` when ``SPACK_ROOT`` is set and has one,
        else ``spack`` on ``PATH``, else None.
    """
    environ = os.environ if environ is None else environ
    root = environ.get('SPACK_ROOT')
    if root and os.access(os.path.join(root, 'bin', 'spack'), os.X_OK):
        return os.path.join(root, 'bin', 'spack')
    return shutil.which('spack', path=environ.get('PATH'))


def env_sources(spack, env_dir, environ=None):
    """The checksummed sources a concretized environment's install
    fetches (:data:`SOURCES_SCRIPT`), or None when Spack cannot say (no
    lock, or Spack failed: :func:`problems` names the set-up mistake).
    """
    if not os.path.isfile(os.path.join(env_dir, 'spack.lock')):
        return None
    try:
        result = text.run(
            [spack, '-e', env_dir, 'python', SOURCES_SCRIPT],
            env=dict(os.environ if environ is None else environ),
            timeout=FACTS_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        return None
    try:
        return json.loads(lines[-1])
    except json.JSONDecodeError:
        return None


def spack_facts(spack, environ=None):
    """Ask Spack for its version, interpreter, clingo and repositories.

    Args:
        spack: the ``spack`` executable.
        environ: the environment Spack runs in (default ``os.environ``).

    Returns:
        The dict that ``spack_facts.py`` prints (``version``, ``python``,
        ``clingo``, ``bootstrapped_clingo``, ``repos``, ``builtin``,
        ``mirrors``).

    Raises:
        RuntimeError: Spack did not run, with its last error line.
    """
    result = text.run(
        [spack, 'python', FACTS_SCRIPT],
        env=dict(os.environ if environ is None else environ),
        timeout=FACTS_TIMEOUT)
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        errors = result.stderr.strip().splitlines() or ['no output']
        raise RuntimeError(f'{spack} python {FACTS_SCRIPT}: exit '
                           f'{result.returncode}: {errors[-1]}')
    return json.loads(lines[-1])


def _series(version):
    parts = version.split('.')
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return None


def _builtin_candidates(spack):
    """spack-packages checkouts beside the Spack installation (the layout
    docs/spack.md uses: /opt/spack-1.1.0 and /opt/spack-packages-...)."""
    root = os.path.dirname(os.path.dirname(os.path.realpath(spack)))
    trees = sorted(glob.glob(os.path.join(os.path.dirname(root),
                                          'spack-packages*')))
    return [os.path.join(tree, BUILTIN_IN_SPACK_PACKAGES) for tree in trees
            if os.path.isfile(os.path.join(tree, BUILTIN_IN_SPACK_PACKAGES,
                                           'repo.yaml'))]


def site_scope(facts):
    """The directory of Spack's *site* scope, as that Spack defines it:
    ``$SPACK_ROOT/etc/spack/site`` on 1.x (where ``$SPACK_ROOT/etc/spack``
    is the ``spack`` scope, above the user's: a setting there overrides
    every user's), ``$SPACK_ROOT/etc/spack`` on 0.2x.  Spack reports it
    (``site_config``); the version decides where it did not."""
    if facts.get('site_config'):
        return facts['site_config']
    series = _series(str(facts.get('version', '')))
    if series is not None and series >= (1, 0):
        return '$SPACK_ROOT/etc/spack/site'
    return '$SPACK_ROOT/etc/spack'


def config_scope(facts):
    """``(scope, directory)`` a fix writes to: the user scope, or the site
    scope (:func:`site_scope`) when ``SPACK_DISABLE_LOCAL_CONFIG`` makes
    Spack ignore the user's (``--scope user`` is then refused:
    ``invalid choice: 'user'``)."""
    if facts.get('local_config_disabled'):
        return 'site', site_scope(facts)
    return 'user', facts.get('user_config') or '~/.spack'


def describe_repository(repo):
    """One configured repository as a site engineer reads it: ``name:
    path: state`` or ``name: git URL, cloned at DIR`` (the ``repositories``
    that ``spack_facts.py`` reports)."""
    name = repo.get('name') or '?'
    if 'git' in repo:
        where = repo.get('destination') or '?'
        state = ('cloned at ' + where if repo.get('state') == 'cloned'
                 else f'not cloned (would be {where})')
        return f"{name}: git {repo['git']}, {state}"
    return f"{name}: {repo.get('path') or '?'}: {repo.get('state') or '?'}"


def _builtin_problems(facts, spack):
    """Spack 1.x only: builtin has to be a local spack-packages tree."""
    builtin = facts.get('builtin')
    scope, directory = config_scope(facts)
    repos_yaml = os.path.join(directory, 'repos.yaml')
    site = os.path.join(site_scope(facts), 'repos.yaml')
    why = (' (the site scope: SPACK_DISABLE_LOCAL_CONFIG is set, so Spack '
           'ignores the user scope)' if scope == 'site' else
           f' (the user scope; for every user of this Spack, the site '
           f'scope: {site})')

    def _repos_yaml_fix(builtin_path):
        return (f'write to {repos_yaml}{why}:  '
                f'repos: {{builtin: {builtin_path}}}')

    candidates = _builtin_candidates(spack)
    suggested = candidates[-1] if candidates else os.path.join(
        '<spack-packages checkout>', BUILTIN_IN_SPACK_PACKAGES)

    if isinstance(builtin, dict):
        if builtin.get('cloned'):
            return []
        return [Problem(
            'repos:builtin',
            f"is a git clone of {builtin.get('git')} and there is none at "
            f"{builtin.get('destination')}: offline, Spack cannot clone "
            "it, and every recipe of spack-repo/ then fails with \"No "
            "module named 'spack_repo'\" (the recipes are fine: they "
            "subclass builtin's)",
            _repos_yaml_fix(suggested) + ' (the spack-packages release '
            f"that goes with Spack {facts['version']}, e.g. v2025.11.0 for "
            '1.1)')]

    if not isinstance(builtin, str):
        return [Problem('repos:builtin', 'is not configured: Spack 1.x has '
                        'no builtin packages of its own',
                        _repos_yaml_fix(suggested))]

    if os.path.isfile(os.path.join(builtin, 'repo.yaml')):
        return []
    nested = os.path.join(builtin, BUILTIN_IN_SPACK_PACKAGES)
    if os.path.isfile(os.path.join(nested, 'repo.yaml')):
        return [Problem('repos:builtin',
                        f'{builtin} is the spack-packages checkout, not the '
                        'builtin repository inside it',
                        _repos_yaml_fix(nested))]
    return [Problem('repos:builtin',
                    f'{builtin} holds no repo.yaml: not a package repository',
                    _repos_yaml_fix(suggested))]


def problems_from_facts(facts, spack, python=sys.executable):
    """The set-up mistakes that ``facts`` show.

    Args:
        facts: what :func:`spack_facts` returned.
        spack: the ``spack`` executable (its neighbours are searched for a
            spack-packages checkout to name in a fix).
        python: the interpreter to suggest for ``SPACK_PYTHON`` (this
            one: pfsbench's virtual environment).

    Returns:
        A list of :class:`Problem`, empty when Spack is ready.
    """
    found = []
    series = _series(facts['version'])
    if series not in SUPPORTED_SERIES:
        supported = ', '.join(f'{major}.{minor}'
                              for major, minor in SUPPORTED_SERIES)
        found.append(Problem(
            'spack --version', f"{facts['version']}: spack-repo/ is tested "
            f'with {supported} only', 'use a Spack release of one of those '
            'series (docs/spack.md, "Repository format")'))

    if not facts['clingo'] and not facts['bootstrapped_clingo']:
        found.append(Problem(
            'SPACK_PYTHON', f"{facts['python']} cannot import clingo: Spack "
            'would first try to bootstrap it from the network (over a '
            'minute, then a failure when offline)',
            f'{python} -m pip install clingo && export '
            f'SPACK_PYTHON={python}'))

    if series is not None and series >= (1, 0):
        found.extend(_builtin_problems(facts, spack))
    return found


def problems(spack=None, environ=None, env_dir=None):
    """Check the Spack that pfsbench would build with, and what installing
    ``env_dir`` will need.

    Args:
        spack: the ``spack`` executable (default: :func:`find_spack`).
        environ: the environment Spack runs in (default ``os.environ``).
        env_dir: the Spack environment to check (None: Spack only).

    Returns:
        ``(facts, problems)``: what Spack reported (None when it could not
        run) and the list of :class:`Problem`.
    """
    spack = spack or find_spack(environ)
    if spack is None:
        return None, [Problem(
            'PATH', 'no spack on PATH and no $SPACK_ROOT/bin/spack',
            'install a Spack release (docs/spack.md) and export '
            'SPACK_ROOT=<its directory>')]
    try:
        facts = spack_facts(spack, environ)
    except (RuntimeError, OSError, subprocess.TimeoutExpired,
            json.JSONDecodeError) as err:
        return None, [Problem(spack, f'does not run: {err}',
                              'run it by hand to see why; SPACK_PYTHON '
                              'must name a Python 3 interpreter')]
    found = problems_from_facts(facts, spack)
    if env_dir:
        found += environment_problems(env_dir, facts)
        if not found:
            facts['sources'] = env_sources(spack, env_dir, environ)
            found += missing_sources(env_dir, facts)
    return facts, found


def _load_yaml(path):
    try:
        with open(path) as fp:
            return yamlfile.safe_load(fp) or {}
    except OSError as err:
        raise ConfigError(path, '<file>', path,
                          err.strerror or str(err)) from None
    except yaml.YAMLError as err:
        raise ConfigError(path, '<file>', path, f'not YAML: {err}') from None


def environment_config(env_dir):
    """An environment's ``spack.yaml`` and the files it includes, as
    ``[(path, its spack: section)]``, the environment's own first."""
    path = os.path.join(env_dir, 'spack.yaml')
    own = (_load_yaml(path) or {}).get('spack') or {}
    found = [(path, own)]
    for include in own.get('include') or []:
        if isinstance(include, dict):
            include = include.get('path', '')
        included = os.path.normpath(os.path.join(
            env_dir, os.path.expandvars(os.path.expanduser(include))))
        if os.path.isfile(included):
            found.append((included, _load_yaml(included) or {}))
    return found


def _executable_problem(where, path, why):
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return None
    state = 'not executable' if os.path.exists(path) else 'missing'
    return Problem(where, f'{path}: {state}: {why}',
                   'install it, correct the path, or, where no package '
                   'needs that language (no pfsbench benchmark has Fortran '
                   'code), remove the entry (f77/fc: null; the external\'s '
                   'languages without it)')


def _mirror_directory(url):
    """The local directory of a ``file://`` (or plain path) mirror URL,
    None for a remote one."""
    if isinstance(url, dict):
        url = url.get('fetch') or url.get('url') or ''
        if isinstance(url, dict):
            url = url.get('url', '')
    url = str(url)
    if url.startswith('file://'):
        return url[len('file://'):]
    if '://' not in url:
        return os.path.expanduser(url)
    return None


def environment_problems(env_dir, facts=None):
    """What ``spack -e ENV install`` will need that is not there.

    Reads the environment's ``spack.yaml`` (and its includes) without
    Spack: every compiler executable it names (``compilers:`` for Spack
    0.2x, an external compiler's ``extra_attributes.compilers`` for 1.x;
    Spack 0.23 stops every install with ``CompilerAccessError`` when one
    is missing, even a Fortran one no package uses), every external's
    prefix, and every local mirror (the environment's and Spack's).

    Args:
        env_dir: the environment directory.
        facts: what :func:`spack_facts` returned (its ``mirrors``), or
            None.

    Returns:
        A list of :class:`Problem`, each naming the file and the entry.
    """
    found = []
    mirrors = dict((facts or {}).get('mirrors') or {})
    for path, config in environment_config(env_dir):
        for entry in config.get('compilers') or []:
            compiler = (entry or {}).get('compiler') or {}
            for lang, exe in sorted((compiler.get('paths') or {}).items()):
                if exe:
                    found.append(_executable_problem(
                        f"{path}: compilers[{compiler.get('spec')}]"
                        f'.paths.{lang}', exe,
                        'Spack 0.2x stops every install '
                        '(CompilerAccessError)'))
        for name, package in sorted((config.get('packages') or {}).items()):
            for external in (package or {}).get('externals') or []:
                where = (f"{path}: packages.{name}.externals"
                         f"[{external.get('spec')}]")
                prefix = external.get('prefix')
                if prefix and not os.path.isdir(prefix):
                    found.append(Problem(
                        f'{where}.prefix', f'{prefix}: no such directory: '
                        'every package that depends on it fails to build',
                        'install it, or correct the prefix (and the '
                        'version in the spec)'))
                compilers = ((external.get('extra_attributes') or {})
                             .get('compilers') or {})
                for lang, exe in sorted(compilers.items()):
                    found.append(_executable_problem(
                        f'{where}.extra_attributes.compilers.{lang}', exe,
                        'Spack 1.x cannot compile that language with it'))
        for name, url in (config.get('mirrors') or {}).items():
            mirrors.setdefault(name, url)

    scope, _ = config_scope(facts or {})
    for name, url in sorted(mirrors.items()):
        directory = _mirror_directory(url)
        if directory is not None and not os.path.isdir(directory):
            found.append(Problem(
                f'mirrors:{name}', f'{url}: no such directory: every '
                'fetch from it fails, and offline Spack has no other '
                'source',
                f'carry the mirror there, or: spack mirror remove --scope '
                f'{scope} {name} && spack mirror add --scope {scope} '
                f'{name} file:///path/to/mirror'))
    return [problem for problem in found if problem]


def local_mirrors(env_dir, facts):
    """``(directories, names)``: the local mirror directories that exist
    (``file://`` or plain paths), and the names of every mirror Spack and
    the environment configure (remote ones too, such as the default
    ``spack-public``)."""
    mirrors = dict(facts.get('mirrors') or {})
    for _, config in environment_config(env_dir):
        mirrors.update(config.get('mirrors') or {})
    directories = [d for d in map(_mirror_directory, mirrors.values())
                   if d and os.path.isdir(d)]
    return directories, sorted(mirrors)


def missing_sources(env_dir, facts):
    """The sources a concretized environment needs that none of its local
    mirrors holds (Spack's layout: ``_source-cache/archive/<2 hex>/
    <sha256>.<ext>``).  A remote mirror (``spack-public``) holds nothing
    an offline install can reach: with no local mirror, every source is
    missing.

    Args:
        env_dir: the environment directory; its ``spack.lock`` names the
            specs (no lock: nothing is checked).
        facts: what :func:`spack_facts` returned, with ``sources``: the
            ``[(spec, what, sha256)]`` that :func:`env_sources` returned.

    Returns:
        A list of :class:`Problem`, one per missing source.
    """
    directories, names = local_mirrors(env_dir, facts)
    if directories:
        where = f'mirror {", ".join(directories)}'
        why = 'has no'
    else:
        where = (f'mirrors ({", ".join(names)}: none local)' if names else
                 'mirrors (none)')
        why = 'no local mirror holds the'
    found = []
    for spec, what, sha256 in facts.get('sources') or []:
        stored = [glob.glob(os.path.join(d, '_source-cache', 'archive',
                                         sha256[:2], sha256 + '*'))
                  for d in directories]
        if not any(stored):
            found.append(Problem(
                where, f'{why} {what} of {spec} (sha256 {sha256}): '
                'install would fetch it from the network',
                f'copy it to <mirror>/_source-cache/archive/{sha256[:2]}/'
                f'{sha256}.<ext> (docs/spack.md, "A mirror made by hand")'
                + ('' if directories else
                   '; then spack mirror add --scope site pfsbench '
                   'file://<mirror>')))
    return found
