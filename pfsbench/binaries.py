# SPDX-License-Identifier: BSD-3-Clause
"""Finding the benchmark binaries a check runs, and what they support.

Where a tool comes from, in order: an explicit path (a check variable), the
partition's Spack view (``extras['spack_view']/bin``), ``PATH``.
"""

import functools
import os
import re
import shutil
import subprocess

BUILD_HINT = ("build it with the suite's Spack environment (spack -e "
              "spack-repo/environments/<system>/<partition> install; see "
              "docs/spack.md) and set the partition's extras.spack_view, or "
              "run with -S {variable}=/path/to/{tool}")


def candidates(tool, explicit='', spack_view=''):
    """Paths to try for ``tool``, in order (an explicit path alone)."""
    if explicit:
        return [explicit]

    found = []
    if spack_view:
        found.append(os.path.join(os.path.expandvars(spack_view), 'bin',
                                  tool))
    on_path = shutil.which(tool)
    if on_path:
        found.append(on_path)

    return found


def first_executable(paths):
    """The first of ``paths`` that is an executable file, or None."""
    return next((p for p in paths
                 if os.path.isfile(p) and os.access(p, os.X_OK)), None)


@functools.lru_cache(maxsize=None)
def ior_apis(path):
    """The I/O APIs an IOR binary was built with (its ``-h`` modules).

    Returns None when the binary cannot be run here (a remote partition's
    build): the job will then report IOR's own error.
    """
    try:
        proc = subprocess.run([path, '-h'], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT,
                              universal_newlines=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None

    # IOR prints one 'Module <API>' heading per compiled-in backend.
    apis = frozenset(re.findall(r'^Module (\w+)$', proc.stdout, re.M))
    return apis or None
