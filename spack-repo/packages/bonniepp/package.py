# SPDX-License-Identifier: BSD-3-Clause
#
# Why this recipe exists: builtin bonniepp stops at 1.98; Debian 12 (where pfsbench's
# fixtures were recorded) ships bonnie++ 2.00a, whose CSV and text output the parsers
# follow. This subclass adds 2.00a and keeps builtin's build (configure --enable-debug,
# sbin on PATH).
#
# sha256 of bonnie++-2.00a.tgz: taken from Homebrew/homebrew-core Formula/b/bonnie++.rb
# (url https://www.coker.com.au/bonnie++/bonnie++-2.00a.tgz); the upstream site is not
# reachable from pfsbench's build machines to recompute it.

try:  # Spack >= 1.0: builtin is a Package API v2 repository
    from spack_repo.builtin.packages.bonniepp.package import Bonniepp as BuiltinBonniepp
except ImportError:  # Spack 0.22/0.23: builtin is a Package API v1 repository
    from spack.pkg.builtin.bonniepp import Bonniepp as BuiltinBonniepp

from spack.package import *


class Bonniepp(BuiltinBonniepp):
    """Bonnie++ file system benchmark (builtin's recipe plus the 2.00a release)."""

    maintainers("pfsbench-maintainers")

    license("GPL-2.0-only")

    version("2.00a", sha256="a8d33bbd81bc7eb559ce5bf6e584b9b53faea39ccfb4ae92e58f27257e468f0e")
