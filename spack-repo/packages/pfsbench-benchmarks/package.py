# Copyright Spack Project Developers. See COPYRIGHT file for details.
#
# SPDX-License-Identifier: (Apache-2.0 OR MIT)
#
# Why this recipe exists: one spec that installs every tool the pfsbench ReFrame checks
# run, so a partition's Spack environment has a single root and its spack.lock records
# the whole tool set. dd (coreutils) and dbench are taken from the OS: neither is in
# builtin, and dbench has no upstream release tarball with a sha256 we could verify.

from spack.package import *


class PfsbenchBenchmarks(BundlePackage):
    """The benchmark tools run by the pfsbench checks: IOR and its mdtest, iozone,
    bonnie++, fio, and optionally IO500, darshan-runtime and elbencho. The variants
    pass through to the tools, so "+lustre" gives Lustre-aware IOR/mdtest and IO500."""

    license("BSD-3-Clause")

    # The version of pfsbench itself (pyproject.toml): the tool set belongs to a release
    # of the checks that run it.
    version("0.1.0")

    variant("lustre", default=False, description="Lustre striping support in IOR and IO500")
    variant("hdf5", default=False, description="IOR with its HDF5 backend")
    variant("io500", default=False, description="Add the IO500 driver")
    variant("darshan", default=False, description="Add darshan-runtime for I/O traces")
    variant("elbencho", default=False, description="Add elbencho (pulls in Boost)")

    # type="run": "spack load pfsbench-benchmarks" and a view with "link: run" then put
    # every tool on PATH.
    depends_on("ior@3.2:", type="run")  # IOR ships mdtest from 3.2 on
    depends_on("ior+lustre", type="run", when="+lustre")
    depends_on("ior~lustre", type="run", when="~lustre")
    depends_on("mdtest", type="run")  # pfsbench's mdtest is IOR's; see its recipe
    depends_on("mdtest+lustre", type="run", when="+lustre")
    depends_on("mdtest~lustre", type="run", when="~lustre")
    depends_on("ior+hdf5", type="run", when="+hdf5")
    depends_on("ior~hdf5", type="run", when="~hdf5")
    depends_on("iozone", type="run")
    depends_on("bonniepp@2.00a:", type="run")
    depends_on("fio", type="run")
    depends_on("io500", type="run", when="+io500")
    depends_on("io500+lustre", type="run", when="+io500+lustre")
    depends_on("darshan-runtime+mpi", type="run", when="+darshan")
    depends_on("darshan-runtime+lustre", type="run", when="+darshan+lustre")
    depends_on("elbencho", type="run", when="+elbencho")
