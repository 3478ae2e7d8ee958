# SPDX-License-Identifier: BSD-3-Clause
"""Finding the benchmark binaries a check runs, and what they support.

Where a tool comes from: an explicit path (a check variable) if one is given;
else the partition's Spack view (``extras['spack_view']``, its ``bin`` and
``sbin``) if the partition names one; else ``PATH``.  A partition with a view
never falls back to ``PATH``: its results carry the view's provenance, which
would then describe a binary that did not run.
"""

import functools
import os
import re
import shutil

from pfsbench.core import tools
from pfsbench.core.tools import BUILD_ADVICE
from pfsbench.parsers import text
from pfsbench.site import spack

def package_of(tool):
    """The Spack package that installs ``tool`` (its record in
    :data:`pfsbench.core.tools.TOOLS`; a tool not declared there is taken to be
    its own package; '' for a tool of the system).  ``tests/
    test_spack_tools.py`` resolves every check's tool in a real
    ``spack.lock``."""
    return tools.get(tool).package


#: How the advice for a missing tool starts (``pfsbench summary`` looks
#: for it in skip reasons).
def build_hint(tool):
    """What to do about a missing ``tool``: the sentence every skip ends
    with."""
    key = tools.get(tool).extras_key
    if key:
        # A site's own build (mdsrate): no Spack package has it.
        return (f"set the partition's extras.{key} to its path, or run "
                f"with -S tool_binary=/path/to/{tool}")
    return (f"{BUILD_ADVICE} (spack -e "
            "spack-repo/environments/<system>/<partition> install; see "
            "docs/spack.md) and set the partition's extras.spack_env and "
            "spack_view (PFSBENCH_SPACK_ENV on local and localslurm), or "
            f"run with -S tool_binary=/path/to/{tool}")


def declared(tool, extras):
    """The path a partition's ``extras`` declare for ``tool`` (its record's
    ``extras_key``: mdsrate, a site's own build that no Spack view or
    ``PATH`` is searched for), ``~`` and ``$VARIABLES`` expanded as the
    check expands them; '' where the tool has no such key or the partition
    sets none."""
    key = tools.get(tool).extras_key
    path = extras.get(key, '') if key else ''
    return os.path.expandvars(os.path.expanduser(path)) if path else ''


def candidates(tool, explicit='', spack_view=''):
    """Paths to try for ``tool``, in order: the explicit path alone, else
    the view's ``bin``/``sbin`` alone, else what ``PATH`` finds (or none)."""
    if explicit:
        return [explicit]

    if spack_view:
        view = os.path.expandvars(os.path.expanduser(spack_view))
        return [os.path.join(view, bin_dir, tool)
                for bin_dir in spack.VIEW_BIN_DIRS]

    on_path = shutil.which(tool)
    return [on_path] if on_path else []


def for_job(tool, explicit='', spack_view=''):
    """The path a job script runs ``tool`` by: the first executable of
    :func:`candidates`, else the first candidate, else the bare name (a
    job rendered for another machine shows what that machine would run).
    """
    tried = candidates(tool, explicit, spack_view)
    return first_executable(tried) or (tried[0] if tried else tool)


def describe(paths):
    """The paths tried for a tool and why none runs, for a skip message:
    ``/opt/ior/bin/ior: not executable (mode 0644)``; '' for no paths."""
    said = []
    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except OSError as err:
            said.append(f'{path}: {err.strerror.lower()}')
            continue
        if not os.path.isfile(path):
            said.append(f'{path}: not a file')
        elif not os.access(path, os.X_OK):
            said.append(f'{path}: not executable (mode {mode & 0o7777:04o})')
        else:
            said.append(path)
    return ', '.join(said)


def first_executable(paths):
    """The first of ``paths`` that is an executable file, or None."""
    return next((p for p in paths
                 if os.path.isfile(p) and os.access(p, os.X_OK)), None)


@functools.lru_cache(maxsize=None)
def help_text(path):
    """What ``path -h`` prints (stdout and stderr), or None when the binary
    cannot be run here (a remote partition's build)."""
    # Read as bytes: IOR 3.3.0's -h prints uninitialised memory (different
    # bytes on every run), which a strict decode refuses.
    return text.probe([path, '-h'])


def missing_options(path, options):
    """The ``options`` (words such as ``--dataPacketType``) that the help
    of the binary at ``path`` does not mention; [] when it cannot be run
    here (the job will then report the tool's own error)."""
    said = help_text(path)
    if said is None:
        return []
    return [option for option in options if option not in said]


def io500_unusable(path, options, tool):
    """Why the ``tool`` (IOR or mdtest) at ``path`` cannot run IO500's
    command lines: the IO500 ``options`` its help does not mention (IOR
    and mdtest 3.3.0 lack them); '' when it has them all."""
    missing = missing_options(path, options)
    if not missing:
        return ''
    return (f"{path} lacks IO500's options {', '.join(missing)} ({tool} "
            f'3.3.0 and older; IO500 builds its own IOR): run the IO500 '
            f'phases with an IOR 4.0.0 or newer build')


@functools.lru_cache(maxsize=None)
def ior_apis(path):
    """The I/O APIs an IOR binary was built with (its ``-h`` modules).

    Returns None when the binary cannot be run here (a remote partition's
    build): the job will then report IOR's own error.
    """
    said = help_text(path)
    if said is None:
        return None

    # IOR prints one 'Module <API>' heading per compiled-in backend.
    apis = frozenset(re.findall(r'^Module (\w+)$', said, re.M))
    return apis or None
