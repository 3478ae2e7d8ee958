# Copyright Spack Project Developers. See COPYRIGHT file for details.
#
# SPDX-License-Identifier: (Apache-2.0 OR MIT)
#
# Why this recipe exists: builtin bonniepp stops at 1.98; Debian 12 (where pfsbench's
# fixtures were recorded) ships bonnie++ 2.00a+nmu1, whose CSV and text output the
# parsers follow. This subclass adds that release and keeps builtin's build
# (configure --enable-debug, sbin on PATH).
#
# Where the sha256 comes from: 2.00a-nmu1 is Debian's source package bonnie++_2.00a+nmu1
# (a native package by the upstream author, so this tarball is the source). The sha256 is
# the one in bookworm's main/source/Sources index, which the signed Release file covers,
# and was recomputed from the tarball. Its changes over 2.00a are build fixes only
# (-std=c++11, which gcc 11 and later need; AC_TRY_COMPILE for off64_t; DESTDIR); the
# output format is 2.00a's. The version is spelled "2.00a-nmu1" because "+" starts a
# variant in a Spack spec.
#
# Upstream's own bonnie++-2.00a.tgz is not offered: the only sha256 found for it is
# Homebrew's, and coker.com.au was out of reach to recompute it.

try:  # Spack >= 1.0: builtin is a Package API v2 repository
    from spack_repo.builtin.packages.bonniepp.package import Bonniepp as BuiltinBonniepp
except ImportError:  # Spack 0.22/0.23: builtin is a Package API v1 repository
    from spack.pkg.builtin.bonniepp import Bonniepp as BuiltinBonniepp

from spack.package import *


class Bonniepp(BuiltinBonniepp):
    """Bonnie++ file system benchmark (builtin's recipe plus Debian's 2.00a+nmu1 release)."""

    license("GPL-2.0-only")

    version(
        "2.00a-nmu1",
        sha256="0b5e4969a7aa1e895cdd6f8db54279da2e942a3264393d12441f8211eaea0414",
        url="https://deb.debian.org/debian/pool/main/b/bonnie++/bonnie++_2.00a+nmu1.tar.gz",
    )

    # Builtin declares only a C++ compiler, but 2.00's configure also runs AC_PROG_CC;
    # without a C compiler Spack 1.x's wrapper fails "C compiler cannot create
    # executables".
    depends_on("c", type="build", when="@2:")

    def flag_handler(self, name, flags):
        # 2.00's sources say "using namespace std" and declare a global "data", which
        # is ambiguous with C++17's std::data (g++ 11 and later default to C++17).
        # Debian builds with MORECFLAGS=-std=c++11; the Makefile sets its own CFLAGS,
        # so the flag goes through the compiler wrapper.
        if name == "cxxflags" and self.spec.satisfies("@2:"):
            flags.append("-std=c++11")
        return (flags, None, None)
