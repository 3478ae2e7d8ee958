# Copyright Spack Project Developers. See COPYRIGHT file for details.
#
# SPDX-License-Identifier: (Apache-2.0 OR MIT)
#
# Why this recipe exists: builtin "mdtest" is LLNL's mdtest 1.9.3, pinned to one 2013-era
# commit and unmaintained. mdtest has been part of IOR since IOR 3.2, and builtin "ior"
# installs bin/mdtest too, so installing both puts two different mdtest binaries in one
# view (a view conflict, or the stale one on PATH). This recipe shadows builtin's: the
# name "mdtest" resolves to IOR's mdtest, at the IOR release of the same version.

from spack.package import *

#: ior releases that carry mdtest, newest first (their sha256 live in ior's recipe)
IOR_RELEASES = ("4.0.0", "3.3.0", "3.2.1", "3.2.0")


class Mdtest(BundlePackage):
    """mdtest, the MPI-coordinated metadata benchmark, as maintained and shipped inside
    IOR since IOR 3.2. Installing it installs that IOR release; bin/mdtest is IOR's."""

    homepage = "https://github.com/hpc/ior"

    license("GPL-2.0-only")

    # Each version is the ior release of the same number.
    for _ior_release in IOR_RELEASES:
        version(_ior_release, preferred=_ior_release == "3.3.0")

    variant("lustre", default=False, description="IOR/mdtest with Lustre striping support")

    for _ior_release in IOR_RELEASES:
        depends_on(f"ior@{_ior_release}", type="run", when=f"@{_ior_release}")
    depends_on("ior+lustre", type="run", when="+lustre")
    depends_on("ior~lustre", type="run", when="~lustre")
