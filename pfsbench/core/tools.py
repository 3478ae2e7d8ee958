# SPDX-License-Identifier: BSD-3-Clause
"""Every tool pfsbench runs or reads, declared once: its parser, its
stream adapter, the Spack package that installs it, and how a check finds
its binary.

A check names its tool (the ReFrame variable ``tool``); ``pfsbench parse``,
the streams parser, :mod:`pfsbench.site.binaries`, :mod:`pfsbench.site.spack`
and ``pfsbench check-config`` look it up here.  A new tool is one record.
Imports nothing of pfsbench: the parsers and the site modules read it.
"""

import dataclasses

#: What to do about a tool the suite builds but this site lacks: the
#: sentence every skip and run summary begins with.
BUILD_ADVICE = "build it with the suite's Spack environment"

#: How a check finds a tool's binary.
#: The check variable ``tool_binary``, else the partition's Spack view
#: (``bin``, ``sbin``), else ``PATH``
#: (:func:`pfsbench.site.binaries.candidates`).
SPACK = 'spack'
#: The operating system's, run by name on the compute node (dd is
#: coreutils): never looked for, never in a Spack view.
SYSTEM = 'system'
#: Not a binary a check runs: pfsbench's own stream runner, or a file
#: (``/proc/stat``) or a site's command whose output is parsed.
NONE = 'none'


@dataclasses.dataclass(frozen=True)
class Tool:
    """One tool."""

    #: The name checks give as ``tool``, and the executable's name.
    name: str
    #: The module offering ``parse(text, source)``, or '' for none.
    parser: str = ''
    #: The output formats that parser reads (it tells them apart itself).
    formats: tuple = ('text',)
    #: ``pfsbench parse NAME`` where it differs from :attr:`name`
    #: (``bonnie`` for bonnie++).
    parse_name: str = ''
    #: Whether the streams parser reads this program's per-stream output
    #: with :attr:`parser` when a run names no tool (the stream adapter).
    stream_adapter: bool = False
    #: The Spack package that installs it ('' for none: the system's, or
    #: the site's own build).  The binary's real path in a view is
    #: compared with this package's locked hash, and its spec and hash go
    #: into every result.
    package: str = ''
    #: How a check finds its binary: :data:`SPACK`, :data:`SYSTEM`,
    #: :data:`NONE`.
    found_by: str = SPACK
    #: The partition's ``extras`` key naming the binary's path, looked at
    #: before the Spack view ('' for none: mdsrate is a site's own build).
    extras_key: str = ''


TOOLS = {t.name: t for t in [
    Tool('dd', 'pfsbench.parsers.dd', stream_adapter=True, found_by=SYSTEM),
    Tool('fio', 'pfsbench.parsers.fio', ('json', 'text', 'terse'),
         stream_adapter=True, package='fio'),
    Tool('bonnie++', 'pfsbench.parsers.bonnie', ('csv', 'text'),
         parse_name='bonnie', stream_adapter=True, package='bonniepp'),
    Tool('iozone', 'pfsbench.parsers.iozone', package='iozone'),
    # IOR's package installs mdtest; pfsbench's mdtest package is a bundle
    # of it.
    Tool('ior', 'pfsbench.parsers.ior', ('text', 'json', 'csv'),
         package='ior'),
    Tool('mdtest', 'pfsbench.parsers.mdtest', package='ior'),
    Tool('io500', 'pfsbench.parsers.io500', package='io500'),
    # pfsbench's io500 package installs pfind beside io500.
    Tool('pfind', 'pfsbench.parsers.pfind', package='io500'),
    # The Lustre tools come from the site's Lustre client (an external in
    # the environment, or none).
    Tool('mdsrate', 'pfsbench.parsers.mdsrate', package='lustre',
         extras_key='mdsrate'),
    Tool('mds-survey', 'pfsbench.parsers.mds_survey', package='lustre'),
    Tool('lfs', 'pfsbench.parsers.lfs', package='lustre'),
    Tool('elbencho', package='elbencho'),
    Tool('dbench', package='dbench'),
    Tool('streams', 'pfsbench.parsers.streams', found_by=NONE),
    Tool('procstat', 'pfsbench.parsers.procstat', found_by=NONE),
    Tool('diskstats', 'pfsbench.parsers.diskstats', found_by=NONE),
]}

#: Packages whose exact build is part of a result's provenance beside the
#: tools' own: the pfsbench bundle that selects them, pfsbench's mdtest
#: bundle, and what they link that moves a figure (MPI, HDF5).
LINKED_PACKAGES = frozenset({
    'pfsbench-benchmarks', 'mdtest', 'darshan-runtime',
    'mpi', 'openmpi', 'mpich', 'cray-mpich', 'intel-oneapi-mpi', 'mvapich2',
    'mvapich', 'hdf5',
})


def get(name):
    """The :class:`Tool` called ``name`` (a tool not declared: one found
    through Spack that is its own package)."""
    return TOOLS.get(name) or Tool(name, package=name)


def parsers():
    """``{pfsbench parse name: Tool}`` of every tool with a parser."""
    return {t.parse_name or t.name: t for t in TOOLS.values() if t.parser}


def stream_adapters():
    """``{program name: parser module}`` the streams parser reads a
    program's per-stream output with."""
    return {t.name: t.parser for t in TOOLS.values() if t.stream_adapter}


def packages():
    """Every Spack package a tool comes from."""
    return frozenset(t.package for t in TOOLS.values() if t.package)
