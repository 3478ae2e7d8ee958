# Copyright Spack Project Developers. See COPYRIGHT file for details.
#
# SPDX-License-Identifier: (Apache-2.0 OR MIT)
#
# Why this recipe exists: builtin iozone always builds the makefile target "linux-AMD64"
# (its own "TODO: Add support for other architectures"), so it cannot build on aarch64
# or ppc64le nodes. This subclass picks the makefile target from the spec's target family
# and keeps everything else (versions, sha256, flag_handler) from builtin.
#
# It also adds 3_487, the version pfsbench's iozone fixtures were recorded with, as a
# fallback: the official release archive (https://www.iozone.org/src/current/
# iozone3_487.tar) was out of reach of pfsbench's build machine, and no registry it
# reaches ships a copy with a verifiable checksum, so the source is the GitHub import
# Jason1108/iozone-3.487 (commit b75ae15, "initial commit. Version 3.487"). That tree is
# iozone's src/current alone, so the build runs at the top and there are no docs. Its
# sha256 is the one of GitHub's /archive/<commit>.tar.gz, computed from the git objects
#   git archive --format=tar --prefix=iozone-3.487-<commit>/ <commit> | gzip -n | sha256sum
# (the method reproduces builtin's sha256 of ior 4.0.0 and fio 3.33 exactly). Sites build
# builtin's 3_506 from the official archive (spack-repo/environments/common.yaml).

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

    requires(
        "target=x86_64:",
        "target=aarch64:",
        "target=ppc64le:",
        policy="one_of",
        msg="iozone's makefile has Linux targets for x86_64, aarch64 and ppc64le only here",
    )

    version(
        "3_487",
        sha256="e99c2f2a1240ba7a8fb6958660e86247f4f237f1ac478a4efbbcd3cd5fdb55d9",
        url="https://github.com/Jason1108/iozone-3.487/archive/b75ae15e5d90a96fe18c28b4bc10ca8c19218275.tar.gz",
    )

    @property
    def build_directory(self):
        # iozone.org tarballs keep the sources in src/current; the 3_487 import has
        # them at the top
        return "." if self.spec.satisfies("@3_487") else "src/current"

    def install(self, spec, prefix):
        if spec.satisfies("@3_487"):
            # what the makefile's Linux targets link; no docs in this tree
            mkdirp(prefix.bin)
            for program in ("iozone", "fileop", "pit_server"):
                install(program, prefix.bin)
        else:
            super().install(spec, prefix)

    def flag_handler(self, name, flags):
        # iozone defines globals in several files ("junk"), which gcc 10 and later
        # refuse to link without -fcommon. Builtin's recipe adds it from Spack 1.0's
        # builtin on; Spack 0.23's builtin does not, so it is added here once.
        flags, env_flags, build_system_flags = super().flag_handler(name, flags)
        if name == "cflags" and self.spec.satisfies("%gcc@10:") and "-fcommon" not in flags:
            flags.append("-fcommon")
        return (flags, env_flags, build_system_flags)

    @property
    def build_targets(self):
        return [MAKEFILE_TARGETS[str(self.spec.target.family)]]
