# SPDX-License-Identifier: BSD-3-Clause
#
# Why this recipe exists: builtin "mdtest" is LLNL's mdtest 1.9.3, pinned to one 2013-era
# commit and unmaintained. mdtest has been part of IOR since IOR 3.2, and builtin "ior"
# installs bin/mdtest too, so installing both puts two different mdtest binaries in one
# view (a view conflict, or the stale one on PATH). This recipe shadows builtin's: the
# name "mdtest" resolves to IOR's mdtest, at the IOR release of the same version.

from spack.package import *


class Mdtest(BundlePackage):
    """mdtest, the MPI-coordinated metadata benchmark, as maintained and shipped inside
    IOR since IOR 3.2. Installing it installs that IOR release; bin/mdtest is IOR's."""

    homepage = "https://github.com/hpc/ior"

    maintainers("pfsbench-maintainers")

    license("GPL-2.0-only")

    # One version per builtin ior release that carries mdtest (the sha256 live there).
    version("4.0.0")
    version("3.3.0", preferred=True)
    version("3.2.1")
    version("3.2.0")

    variant("lustre", default=False, description="IOR/mdtest with Lustre striping support")

    depends_on("ior@4.0.0", type="run", when="@4.0.0")
    depends_on("ior@3.3.0", type="run", when="@3.3.0")
    depends_on("ior@3.2.1", type="run", when="@3.2.1")
    depends_on("ior@3.2.0", type="run", when="@3.2.0")
    depends_on("ior+lustre", type="run", when="+lustre")
    depends_on("ior~lustre", type="run", when="~lustre")
