# SPDX-License-Identifier: BSD-3-Clause
#
# Why this recipe exists: builtin bonniepp stops at 1.98; Debian 12 (where pfsbench's
# fixtures were recorded) ships bonnie++ 2.00a+nmu1, whose CSV and text output the
# parsers follow. This subclass adds 2.00a and Debian's 2.00a+nmu1 and keeps builtin's
# build (configure --enable-debug, sbin on PATH).
#
# Where each sha256 comes from:
# - 2.00a-nmu1 is Debian's source package bonnie++_2.00a+nmu1 (a native package by the
#   upstream author, so this tarball is the source): the sha256 is the one in bookworm's
#   main/source/Sources index, which the signed Release file covers, and was recomputed
#   from the tarball. Its changes over 2.00a are build fixes only (-std=c++11, which
#   gcc 11 and later need; AC_TRY_COMPILE for off64_t; DESTDIR); the output format is
#   2.00a's. Spack writes the version "2.00a-nmu1" because "+" starts a variant.
# - 2.00a: taken from Homebrew/homebrew-core Formula/b/bonnie++.rb (url
#   https://www.coker.com.au/bonnie++/bonnie++-2.00a.tgz); the upstream site is not
#   reachable from pfsbench's build machines to recompute it.

try:  # Spack >= 1.0: builtin is a Package API v2 repository
    from spack_repo.builtin.packages.bonniepp.package import Bonniepp as BuiltinBonniepp
except ImportError:  # Spack 0.22/0.23: builtin is a Package API v1 repository
    from spack.pkg.builtin.bonniepp import Bonniepp as BuiltinBonniepp

from spack.package import *


class Bonniepp(BuiltinBonniepp):
    """Bonnie++ file system benchmark (builtin's recipe plus the 2.00a releases)."""

    maintainers("pfsbench-maintainers")

    license("GPL-2.0-only")

    version(
        "2.00a-nmu1",
        sha256="0b5e4969a7aa1e895cdd6f8db54279da2e942a3264393d12441f8211eaea0414",
        url="https://deb.debian.org/debian/pool/main/b/bonnie++/bonnie++_2.00a+nmu1.tar.gz",
    )
    version("2.00a", sha256="a8d33bbd81bc7eb559ce5bf6e584b9b53faea39ccfb4ae92e58f27257e468f0e")

    # Builtin declares only a C++ compiler, but 2.00's configure also runs AC_PROG_CC;
    # without a C compiler Spack 1.x's wrapper fails "C compiler cannot create
    # executables".
    depends_on("c", type="build", when="@2.00a:")

    def flag_handler(self, name, flags):
        # 2.00's sources say "using namespace std" and declare a global "data", which
        # is ambiguous with C++17's std::data (g++ 11 and later default to C++17).
        # Debian builds with MORECFLAGS=-std=c++11; the Makefile sets its own CFLAGS,
        # so the flag goes through the compiler wrapper.
        if name == "cxxflags" and self.spec.satisfies("@2.00a:"):
            flags.append("-std=c++11")
        return (flags, None, None)
