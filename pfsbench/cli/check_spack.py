# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench check-spack``: is Spack set up to build pfsbench's tools?

Asks Spack for its version, interpreter and builtin repository, and names
each set-up mistake with its fix before Spack reports it misleadingly
(docs/spack.md, 'Air-gapped sites'). Then checks what installing the
environment will need: every compiler executable and external prefix its
spack.yaml names, its local mirrors, and (once it is concretized) which of
its sources those mirrors lack. Fixes name the configuration scope that
works, the site scope when SPACK_DISABLE_LOCAL_CONFIG is set. Exit 0 when
ready, 2 otherwise.
"""

import os
import sys

from pfsbench.site import spack
from pfsbench.site.spack_check import (describe_repository, local_mirrors,
                                      problems)

HELP = ('check the Spack set-up (offline builtin, clingo) and what '
        'installing the environment needs (compilers, externals, mirror)')
DESCRIPTION = __doc__.split('\n\n', 1)[1]
EXAMPLES = (
    'pfsbench check-spack',
    'pfsbench check-spack --spack /opt/spack-1.1.0/bin/spack '
    '--env spack-repo/environments/hawk/compute',
    'SPACK_PYTHON=.venv/bin/python pfsbench check-spack',
)

#: The environment checked when none is named: the one quickstart builds.
DEFAULT_ENV = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'spack-repo', 'environments', 'local',
    'default')


def add_arguments(parser):
    parser.add_argument('--spack', metavar='EXE',
                        help='the spack executable (default: '
                             '$SPACK_ROOT/bin/spack, else spack on PATH)')
    parser.add_argument('--env', metavar='DIR',
                        help='the Spack environment to check (default: '
                             'PFSBENCH_SPACK_ENV, else SPACK_ENV, else '
                             'spack-repo/environments/local/default)')


def run(args):
    env = spack.environment()
    env_dir = args.env or (env.env_dir if env else '') or DEFAULT_ENV
    facts, found = problems(args.spack, env_dir=env_dir)
    for problem in found:
        print(f'pfsbench: error: {problem}', file=sys.stderr)
    if found:
        return 2
    sources = facts.get('sources')
    mirrors = ', '.join(sorted(facts.get('mirrors') or {})) or 'none'
    print(f"spack {facts['version']}: python {facts['python']} (clingo): "
          'ok')
    for repo in facts.get('repositories') or []:
        print(f'  repository {describe_repository(repo)}')
    local, _ = local_mirrors(env_dir, facts)
    if sources is None:
        checked = 'sources not checked (no spack.lock)'
    elif local:
        checked = (f'{len(sources)} sources, all in the local mirror '
                   f'{", ".join(local)}')
    else:
        checked = 'no sources to fetch'
    print(f'{env_dir}: compilers and externals: ok; mirrors: {mirrors}; '
          f'{checked}')
    return 0
