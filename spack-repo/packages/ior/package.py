# Copyright Spack Project Developers. See COPYRIGHT file for details.
#
# SPDX-License-Identifier: (Apache-2.0 OR MIT)
#
# Why this recipe exists: builtin ior (spack-packages up to v2025.11.0, and Spack 0.23's
# builtin) cannot build ior@4+lustre. It applies glennklockwood/ior@e49476be for every
# "+lustre", and that patch fails on IOR 4.0.0 ("Hunk #1 FAILED at 244"): it touches only
# src/parse_options.c, whose HAVE_LUSTRE_LUSTRE_USER_H guards IOR 4 no longer has (its
# configure.ac defines HAVE_LUSTRE_USER for either Lustre header, which is what the patch
# adds to 3.x; https://github.com/hpc/ior/issues/353). IOR 4's configure.ac also calls
# PKG_CHECK_MODULES, so "./bootstrap" needs pkg.m4 from a pkg-config. spack-packages fixed
# both later, in https://github.com/spack/spack-packages/pull/3932 (commit 3611e2cc,
# first released in v2026.06.0). This subclass applies the same two fixes to the builtin
# recipe of the Spack versions pfsbench supports; drop it once every supported
# spack-packages release contains #3932.

try:  # Spack >= 1.0: builtin is a Package API v2 repository
    from spack_repo.builtin.packages.ior.package import Ior as BuiltinIor
except ImportError:  # Spack 0.22/0.23: builtin is a Package API v1 repository
    from spack.pkg.builtin.ior import Ior as BuiltinIor

from spack.package import *

#: builtin's Lustre patch (https://github.com/glennklockwood/ior/commit/e49476be), for 3.x only
LUSTRE_PATCH_SHA256 = "ee3527023ef70ea9aee2e6208f8be7126d5a48f26c587deed3d6238b4f848a06"


class Ior(BuiltinIor):
    """The IOR software is used for benchmarking parallel file systems using POSIX, MPI-IO,
    or HDF5 interfaces (builtin's recipe, with +lustre building on IOR 4)."""

    license("GPL-2.0-only")

    depends_on("pkgconfig", type="build", when="@4:")


def _limit_patch_to_ior3(package, sha256):
    """Re-key every patch with this sha256 whose condition admits IOR 4 under the same
    condition plus "@:3", as spack-packages#3932 does ("+lustre" becomes "+lustre @:3").

    Directives have no way to withdraw a patch a base class declared, and a subclass gets
    its own copy of the base's patches dictionary (directives run again for each package
    class), so changing it here leaves builtin's ior untouched."""
    for when, patches in list(package.patches.items()):
        if when.satisfies("@:3"):
            continue
        limited = [patch for patch in patches if patch.sha256 == sha256]
        if not limited:
            continue
        package.patches[when] = [patch for patch in patches if patch.sha256 != sha256]
        if not package.patches[when]:
            del package.patches[when]
        ior3 = when.copy()
        ior3.constrain("@:3")
        package.patches.setdefault(ior3, []).extend(limited)


_limit_patch_to_ior3(Ior, LUSTRE_PATCH_SHA256)
