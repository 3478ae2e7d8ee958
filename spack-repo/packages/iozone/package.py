# SPDX-License-Identifier: BSD-3-Clause
#
# Why this recipe exists: builtin iozone always builds the makefile target "linux-AMD64"
# (its own "TODO: Add support for other architectures"), so it cannot build on aarch64
# or ppc64le nodes. This subclass picks the makefile target from the spec's target family
# and keeps everything else (versions, sha256, flag_handler) from builtin.

try:  # Spack >= 1.0: builtin is a Package API v2 repository
    from spack_repo.builtin.packages.iozone.package import Iozone as BuiltinIozone
except ImportError:  # Spack 0.22/0.23: builtin is a Package API v1 repository
    from spack.pkg.builtin.iozone import Iozone as BuiltinIozone

from spack.package import *

#: iozone makefile target per archspec target family: linux-AMD64 is builtin's choice;
#: linux-arm and linux-powerpc64 are the makefile's Linux targets for those families
#: (threads, largefiles and async I/O, like linux-AMD64).
MAKEFILE_TARGETS = {"x86_64": "linux-AMD64", "aarch64": "linux-arm", "ppc64le": "linux-powerpc64"}


class Iozone(BuiltinIozone):
    """IOzone filesystem benchmark, built for the node's architecture (builtin's recipe
    with the makefile target chosen per target family)."""

    maintainers("pfsbench-maintainers")

    requires(
        "target=x86_64:",
        "target=aarch64:",
        "target=ppc64le:",
        policy="one_of",
        msg="iozone's makefile has Linux targets for x86_64, aarch64 and ppc64le only here",
    )

    @property
    def build_targets(self):
        return [MAKEFILE_TARGETS[str(self.spec.target.family)]]
