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

from pfsbench.parsers import text

#: Spack releases whose package API reads spack-repo/ (docs/spack.md,
#: "Repository format"): 0.22 and 0.23, 1.0 and 1.1.
SUPPORTED_SERIES = ((0, 22), (0, 23), (1, 0), (1, 1))

#: The script that Spack's own interpreter runs to report its set-up.
FACTS_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            'spack_facts.py')

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


def _builtin_problems(facts, spack):
    """Spack 1.x only: builtin has to be a local spack-packages tree."""
    builtin = facts.get('builtin')
    repos_yaml = os.path.join(facts.get('user_config') or '~/.spack',
                              'repos.yaml')

    def _repos_yaml_fix(builtin_path):
        return (f'write to {repos_yaml} (or the site scope):  '
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


def problems(spack=None, environ=None):
    """Check the Spack that pfsbench would build with.

    Args:
        spack: the ``spack`` executable (default: :func:`find_spack`).
        environ: the environment Spack runs in (default ``os.environ``).

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
    return facts, problems_from_facts(facts, spack)
