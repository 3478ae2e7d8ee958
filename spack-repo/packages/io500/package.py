# Copyright Spack Project Developers. See COPYRIGHT file for details.
#
# SPDX-License-Identifier: (Apache-2.0 OR MIT)
#
# Why this recipe exists: builtin (Spack 0.23 and spack-packages v2025.11) has no io500.
# Upstream's prepare.sh clones IOR, pfind and the schema tools from GitHub at build time;
# here the two sources that are compiled in are pinned resources with sha256, so the build
# is mirrorable ("spack mirror create") and runs air-gapped.
#
# Where the sha256 values come from: each one is the sha256 of GitHub's /archive/ tarball.
# They were computed from the upstream git objects with
#   git archive --format=tar --prefix=<repo>-<ref>/ <ref> | gzip -n | sha256sum
# and that method was first checked against the sha256 builtin's ior recipe carries for
# ior 3.2.1, 3.3.0 and 4.0.0 (all three reproduced exactly). See docs/spack.md.

from spack.package import *

#: upstream tag of each version. Spack's version is the tag's year.month, because the tag
#: names do not sort ("isc26" < "sc25" as strings). The tag also becomes the binary's
#: VERSION string (the Makefile would otherwise run "git describe" in a tree without .git).
UPSTREAM_TAGS = {
    "2026.04": "io500-isc26_v1",
    "2025.10": "io500-sc25_v1",
    "2025.05": "io500-isc25_v2",
}

#: IOR commit (prepare.sh's IOR_HASH, in full) and the sha256 of its archive, per version
IOR_COMMITS = {
    "2026.04": (
        "5fcf0ba995fd92164d50e344597e2d8203298c08",
        "dd6fbc172c7759da4a4174fa9d2921a4ad4a4270e1bfeca70b105b3acb998aba",
    ),
    "2025.10": (
        "8ab8f69b32b919889015122f351914ec12bc84a2",
        "5e7b6020577cf8865947340f550d29e6973794aee0edc329fb6332cc6e3cf417",
    ),
    "2025.05": (
        "348572ccfe8963b5e0dfecd26af345c2f3ec9c17",
        "ea0c202d4d2612ef8cc43f526a5aaea98e1ebb49e8345c4338cd61a394866efc",
    ),
}

#: prepare.sh's PFIND_HASH, the same in every release above
PFIND_COMMIT = "aaba722a178d38799125a271a7f554d004713363"


class Io500(Package):
    """The IO500 benchmark driver: IOR easy/hard, mdtest easy/hard, parallel find and
    md-workbench phases in one MPI program that computes the IO500 score. IOR (with
    mdtest) and pfind are compiled into the io500 binary at the commits the IO500
    release pins in its prepare.sh."""

    homepage = "https://io500.org"
    url = "https://github.com/IO500/io500/archive/refs/tags/io500-sc25_v1.tar.gz"
    git = "https://github.com/IO500/io500.git"

    license("MIT")

    version("2026.04", sha256="f5984f3488a463aa134800f15f9fe92a573add1fb81563d2f5c9307ab2cf80ce")
    version(
        "2025.10",
        sha256="d6b087e383d54fda46658cd61e95821739ab0177f117ada1f7b5a76f6d272960",
        preferred=True,
    )
    version("2025.05", sha256="a47f005b39a79b115d94f818c171b4ea4a7a83e117b9516eaa31d50efe28b9c2")

    variant("lustre", default=False, description="Build the bundled IOR with Lustre striping")

    depends_on("c", type="build")
    # IOR's ./bootstrap runs autoreconf on a configure.ac that calls PKG_CHECK_MODULES,
    # which needs pkg.m4 from a pkg-config implementation.
    depends_on("autoconf", type="build")
    depends_on("automake", type="build")
    depends_on("libtool", type="build")
    depends_on("m4", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("gmake", type="build")
    depends_on("mpi")
    depends_on("lustre", when="+lustre")

    for _version, (_commit, _sha256) in IOR_COMMITS.items():
        resource(
            name="ior",
            url=f"https://github.com/hpc/ior/archive/{_commit}.tar.gz",
            sha256=_sha256,
            destination="build",
            placement="ior",
            when=f"@{_version}",
        )
    resource(
        name="pfind",
        url=f"https://github.com/VI4IO/pfind/archive/{PFIND_COMMIT}.tar.gz",
        sha256="41de99254b3f2ecde2564b32996e2aac39ab2e10c45dfc41fb96c6418b34dc17",
        destination="build",
        placement="pfind",
        when="@2025.05:2026.04",
    )

    def url_for_version(self, version):
        tag = UPSTREAM_TAGS[str(version)]
        return f"https://github.com/IO500/io500/archive/refs/tags/{tag}.tar.gz"

    def install(self, spec, prefix):
        mpicc = spec["mpi"].mpicc

        # IOR: the io500 Makefile links build/ior/src/libaiori.a and reads the flags
        # IOR was configured with from build/ior/src/build.conf ("make" writes both).
        with working_dir(join_path("build", "ior")):
            Executable("./bootstrap")()
            configure_args = [f"--prefix={join_path(self.stage.path, 'ior-prefix')}"]
            if spec.satisfies("+lustre"):
                configure_args.append("--with-lustre")
            else:
                configure_args.append("--without-lustre")
            # IOR's optional backends are probed by configure; switch off the ones
            # Spack does not provide so the link line cannot pick up host libraries.
            configure_args.extend(["--without-hdf5", "--without-ncmpi"])
            Executable("./configure")(*configure_args, f"CC={mpicc}")
            with working_dir("src"):
                make()

        # pfind: only compile.sh; upstream's prepare.sh would clone lz4 from GitHub,
        # and compile.sh builds without it when ./lz4 is absent.
        with working_dir(join_path("build", "pfind")):
            set_executable("compile.sh")
            Executable("./compile.sh")(extra_env={"CC": mpicc})

        tag = UPSTREAM_TAGS[str(spec.version)]
        make(f"CC={mpicc}", f"VERSION={tag}", "io500", "io500-verify")

        mkdirp(prefix.bin)
        install("io500", prefix.bin)
        install("io500-verify", prefix.bin)
        # pfind alone: the suite's own IO500 find phase (mdtest_io500_phases) runs it.
        install(join_path("build", "pfind", "pfind"), prefix.bin)
        # The sample configs are the option reference (config-sample-all.ini is only in
        # some tags); keep whichever this release ships.
        mkdirp(prefix.share.io500)
        for ini in find(".", "config-*.ini", recursive=False):
            install(ini, prefix.share.io500)
