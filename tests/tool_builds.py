# SPDX-License-Identifier: BSD-3-Clause
"""Where the tests look for IOR/mdtest builds (issue 21, item 2).

Sites run old IOR builds for years, so the checks are tested against each
build found, not only the newest.  By default the tests look at the three
prefixes below (``<prefix>/bin/ior``, ``<prefix>/bin/mdtest``);
``PFSBENCH_IOR_BUILDS`` overrides them with ``NAME=PREFIX`` words separated
by ``:`` (``3.3.0=/opt/ior-3.3.0:main=$HOME/ior``).  A build that is not
there is still listed, with the reason its cases skip.  Nothing here builds
IOR: docs/spack.md and docs/checks-ior.md say how.
"""

import os
import shutil
from typing import NamedTuple

#: Build name -> install prefix, when PFSBENCH_IOR_BUILDS is not set.
DEFAULT_BUILDS = (('3.3.0', '/opt/ior-3.3.0'), ('4.0.0', '/opt/ior-4.0.0'),
                  ('main', '/opt/ior'))
ENV_VAR = 'PFSBENCH_IOR_BUILDS'


class Build(NamedTuple):
    name: str
    prefix: str

    @property
    def ior(self):
        return os.path.join(self.prefix, 'bin', 'ior')

    @property
    def mdtest(self):
        return os.path.join(self.prefix, 'bin', 'mdtest')

    def missing_tool(self, tool):
        """Why this build's ``tool`` cannot run here, or ''."""
        path = os.path.join(self.prefix, 'bin', tool)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return ''
        return (f'IOR build {self.name}: no executable {path} (set '
                f'{ENV_VAR}=NAME=PREFIX:... to where your builds are)')

    @property
    def missing(self):
        """Why this build's ior cannot run here, or ''."""
        return self.missing_tool('ior')


def ior_builds(environ=None):
    """The builds to test, from ``PFSBENCH_IOR_BUILDS`` or the defaults.

    Raises:
        ValueError: a word of the variable is not ``NAME=PREFIX``.
    """
    environ = os.environ if environ is None else environ
    spec = environ.get(ENV_VAR, '').strip()
    if not spec:
        return [Build(n, p) for n, p in DEFAULT_BUILDS]
    builds = []
    for word in spec.split(':'):
        name, sep, prefix = word.partition('=')
        if not (sep and name and prefix):
            raise ValueError(f'{ENV_VAR}: {word!r}: expected NAME=PREFIX')
        builds.append(Build(name, os.path.expanduser(prefix)))
    return builds


#: Where the tests look for pfind (IO500's find phase) when
#: ``PFSBENCH_PFIND`` does not name it: PATH, then IO500's own build.
PFIND_DEFAULTS = ('/opt/io500/bin/pfind',)


def pfind(environ=None):
    """The pfind binary the tests give ``mdtest_io500_phases``
    (``PFSBENCH_PFIND``, else PATH, else :data:`PFIND_DEFAULTS`), or None.
    """
    environ = os.environ if environ is None else environ
    named = environ.get('PFSBENCH_PFIND')
    tried = [named] if named else [shutil.which('pfind'), *PFIND_DEFAULTS]
    return next((p for p in tried
                 if p and os.path.isfile(p) and os.access(p, os.X_OK)), None)
