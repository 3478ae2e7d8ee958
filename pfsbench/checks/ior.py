# SPDX-License-Identifier: BSD-3-Clause
"""What every IOR check shares (no test here; the families in
``reframe-checks/ior/`` import it).

An IOR check runs one job made of *steps* (:mod:`pfsbench.core.jobsteps`): IOR
invocations, and between them the partition's drop-caches command or a
layout query.  Each step is announced in the job's stdout and its exit status
recorded, so the output of every IOR run is parsed on its own by
:mod:`pfsbench.parsers.ior` and a failure names the step that failed,
quoting IOR's own ``ERROR`` line.

Cache defeat (``cache_defeat``; empty picks ``drop_caches`` where the
partition has that feature, else ``direct`` for POSIX with 4 KiB-aligned
transfers, else ``reorder``):

``drop_caches``
    for each repetition: write (``-w -k -e``), drop the page cache on every
    task's node, read (``-r -C -Q 1``): every read follows a drop.
``direct``
    as above without the drop, the read with ``--posix.odirect``
    (POSIX only), as dd's direct reads.
``reorder``
    one IOR run with ``-C -Q 1 -e``: each task reads what a task one node
    away wrote, and writes are fsynced.
``none``
    the flags of the source only (seed 002 ran none).

``-Q`` counts nodes, not tasks: IOR multiplies it by the tasks on node 0
when tasks are placed in blocks (hpc/ior ``src/ior.c``), so ``-Q 1`` is
"one node away" at any tasks per node, and ``-Q <tasks per node>`` would
read a task's own node's data whenever nodes divides it.

Where IOR comes from, in order: the check variable ``ior_binary`` (an
explicit choice; ``tool_binary`` is the same variable), the partition's
Spack view (``extras['spack_view']/bin``), ``PATH``
(:meth:`pfsbench.checks.FileSystemCheck.find_tool`).  A missing IOR skips
the check and says how to build it.
"""

import os
import statistics
from dataclasses import dataclass

import reframe.utility.typecheck as typ
from reframe.core.builtins import performance_function, run_after, variable
from reframe.core.exceptions import SanityError

from pfsbench.checks.base import FileSystemCheck
from pfsbench.checks.steps import SteppedJob
from pfsbench.commands import ior
from pfsbench.core.jobsteps import Step
from pfsbench.parsers import ior as ior_parser
from pfsbench.site import binaries

CACHE_DEFEAT_MODES = ('drop_caches', 'direct', 'reorder', 'none')
#: Bytes O_DIRECT transfers must be a multiple of (4 KiB sectors; 512-byte
#: devices accept more, but the automatic choice must work everywhere).
O_DIRECT_ALIGNMENT = 4096
ACCESS_MODES = ('fpp', 'shared')


@dataclass(frozen=True)
class PhaseFigures:
    """One phase's bandwidth over the repetitions, in MiB/s."""

    max_mib_s: float
    min_mib_s: float
    mean_mib_s: float
    stddev_mib_s: float
    samples: tuple


class ior_check_base(SteppedJob, FileSystemCheck):
    """Base of the IOR families; not a test by itself.

    A family declares, as ``parameter`` where it sweeps them and
    ``variable`` otherwise: ``nodes``, ``tasks_per_node``, ``api``
    (POSIX, MPIIO, HDF5), ``access`` (``fpp`` or ``shared``) and
    ``transfer_size`` (IOR size syntax: ``4m``, ``47008``).
    """

    # IOR is an MPI program, but the local launcher's single process runs
    # it as an MPI singleton, so a laptop can run the 1-task cases.
    valid_systems = ['+pfs']
    tool = 'ior'
    tool_label = 'IOR'
    step_parsers = {'ior': ior_parser}

    #: The IOR binary (``tool_binary`` under its family's name); empty: the
    #: partition's Spack view, then ``PATH``.
    #:
    #: :type: :class:`str`
    #: :default: ``''``
    ior_binary = variable(alias=FileSystemCheck.tool_binary)

    #: Bytes per task per segment (``-b``), at the source's scale.  It is
    #: rounded down to whole transfers, and the partition's
    #: ``ior_max_bytes_per_task`` (else ``max_bytes_per_stream``) caps it;
    #: the size run is logged.
    #:
    #: :type: :class:`str`
    #: :default: ``'1g'``
    block_size = variable(str, value='1g', loggable=True)

    #: Segments (``-s``): blocks per task, interleaved between tasks.
    #:
    #: :type: :class:`int`
    #: :default: ``1``
    segments = variable(int, value=1, loggable=True)

    #: Repetitions of each phase (``-i``, or one write/read pair each when
    #: the caches are dropped); they give every figure its spread.
    #:
    #: :type: :class:`int`
    #: :default: ``3``
    repetitions = variable(int, value=3, loggable=True)

    #: O_DIRECT for every transfer (``--posix.odirect``; POSIX only).
    #:
    #: :type: :class:`bool`
    #: :default: ``False``
    odirect = variable(typ.Bool, value=False, loggable=True)

    #: ``drop_caches``, ``direct``, ``reorder`` or ``none`` (see the module
    #: docstring); empty: ``drop_caches`` where the partition has that
    #: feature, else ``direct`` (POSIX, 4 KiB-aligned sizes), else
    #: ``reorder``.
    #:
    #: :type: :class:`str`
    #: :default: ``''``
    cache_defeat = variable(str, value='', loggable=True)

    #: Stonewall: stop each phase after this many seconds (``-D``), then
    #: let every task catch up to the furthest (wear-out); 0: off.
    #:
    #: :type: :class:`int`
    #: :default: ``0``
    stonewall_s = variable(int, value=0, loggable=True)

    #: File name under the run directory (``-o``; IOR appends the rank
    #: with ``-F``).
    #:
    #: :type: :class:`str`
    #: :default: ``'ior.dat'``
    test_file_name = variable(str, value='ior.dat')

    #: The IOR binary this run used (``tool_path``; set at setup).
    ior_path = variable(alias=FileSystemCheck.tool_path, loggable=True)

    #: Bytes each task wrote per repetition, after rounding and capping.
    bytes_per_task = variable(int, value=0, loggable=True)

    #: True when the partition's cap lowered the source's size.
    size_capped = variable(typ.Bool, value=False, loggable=True)

    time_limit = '2h'

    @run_after('init')
    def check_choices(self):
        if self.api not in ior.APIS:
            raise ValueError(f'api: {self.api!r}: expected one of '
                             f'{", ".join(ior.APIS)}')

        if self.access not in ACCESS_MODES:
            raise ValueError(f'access: {self.access!r}: expected fpp or '
                             f'shared')

        if self.cache_defeat not in ('',) + CACHE_DEFEAT_MODES:
            raise ValueError(f'cache_defeat: {self.cache_defeat!r}: expected '
                             f'{", ".join(CACHE_DEFEAT_MODES)}')

        self.tags |= {'ior'}

    def tool_unusable(self, path):
        apis = binaries.ior_apis(path)
        if apis is None or self.api in apis:
            return ''

        return (f'{path} was built without the {self.api} API (it has '
                f'{", ".join(sorted(apis))}); rebuild IOR with it (Spack: '
                f'ior+hdf5 for HDF5)')

    @run_after('setup')
    def size_the_job(self):
        if not self.cache_defeat:
            # As dd: drop the caches where the partition can, else read
            # with O_DIRECT, else rely on -C -Q 1 -e alone.  O_DIRECT is
            # POSIX-only in IOR and needs transfers aligned to the device's
            # block (IOR's 47008-byte reads fail with EINVAL).
            self.cache_defeat = self.cache_defeat_mode()
            aligned = all(ior.size_bytes(s) % O_DIRECT_ALIGNMENT == 0
                          for s in (self.transfer_size, self.block_size))
            if self.cache_defeat == 'direct' and (self.api != 'POSIX' or
                                                  not aligned):
                self.cache_defeat = 'reorder'

        self.skip_if(self.api != 'POSIX' and (
            self.odirect or self.cache_defeat == 'direct'),
            f'O_DIRECT (odirect, cache_defeat=direct) is a POSIX option of '
            f'IOR; api is {self.api}')

        self.place_mpi_tasks(self.nodes, self.tasks_per_node)
        self.cap_sizes(self.size_cap('ior_max_bytes_per_task'))

    def cap_sizes(self, cap):
        """Round the block to whole transfers and apply the partition's cap.

        The source's spelling (``4g``) is kept when the size is unchanged,
        so the job script shows the source's command line.
        """
        block = ior.whole_transfers(ior.size_bytes(self.block_size),
                                    self.transfer_size)
        if cap is not None and block * self.segments > cap:
            self.size_capped = True
            if block <= cap:
                self.segments = max(1, cap // block)
            else:
                self.segments = 1
                block = ior.whole_transfers(cap, self.transfer_size)

        if block != ior.size_bytes(self.block_size):
            self.block_size = ior.size_text(block)

        self.bytes_per_task = block * self.segments

    def bytes_moved(self):
        # Every repetition writes and reads each task's bytes once.
        return 2 * self.bytes_per_task * self.num_tasks * self.repetitions

    # The job script ------------------------------------------------------

    def test_file(self):
        return os.path.join(self.run_dir, self.test_file_name)

    def ior_options(self):
        """Keyword arguments of :func:`pfsbench.commands.ior.ior_argv`
        shared by every IOR step of this check."""
        return dict(api=self.api, block_size=self.block_size,
                    transfer_size=self.transfer_size,
                    segments=self.segments if self.segments != 1 else None,
                    file_per_process=self.access == 'fpp',
                    executable=self.tool_path)

    def split_write_read(self):
        """Whether each repetition writes and reads in separate IOR runs."""
        return self.cache_defeat in ('drop_caches', 'direct')

    def after_write_steps(self, repetition):
        """Steps between a write and its read (split runs only)."""
        return []

    def job_steps(self):
        """The job's steps, in order; the last one is an IOR run."""
        test_file = self.test_file()
        opts = self.ior_options()
        status_file = os.path.join(self.run_dir, 'stonewall')
        stonewall = {}
        if self.stonewall_s:
            stonewall = dict(stonewall_s=self.stonewall_s,
                             stonewall_status_file=status_file)

        if not self.split_write_read():
            defeat = self.cache_defeat != 'none'
            argv = ior.ior_argv(
                test_file, iterations=self.repetitions, odirect=self.odirect,
                reorder_tasks=defeat,
                task_per_node_offset=1 if defeat else None, fsync=defeat,
                **stonewall, **opts)
            return [Step('write+read', 'ior', tuple(argv))]

        steps = []
        for rep in range(1, self.repetitions + 1):
            write = ior.ior_argv(test_file, iterations=1, odirect=self.odirect,
                                 fsync=True, read=False, keep_file=True,
                                 **stonewall, **opts)
            steps.append(Step(f'write {rep}', 'ior', tuple(write)))
            steps += self.after_write_steps(rep)
            if self.cache_defeat == 'drop_caches':
                # Under the launcher, so every node of the job drops its
                # cache (each of its tasks does; the repeats are harmless).
                steps.append(Step(f'drop caches {rep}', 'shell',
                                  ('sh', '-c', self.drop_caches_command())))
            read = ior.ior_argv(
                test_file, iterations=1,
                odirect=self.odirect or self.cache_defeat == 'direct',
                reorder_tasks=True, task_per_node_offset=1, write=False,
                stonewall_status_file=(status_file if self.stonewall_s
                                       else None),
                # IOR reads a status file only with -k (ior.c); the job
                # script removes the run directory anyway.
                keep_file=bool(self.stonewall_s), **opts)
            steps.append(Step(f'read {rep}', 'ior', tuple(read)))

        return steps

    # Reading the output --------------------------------------------------

    def step_problems(self, step):
        if step.kind != 'ior':
            return []

        result = self.parsed(ior_parser, step=step.label)
        return self.task_count_problem(step, result.params.tasks)

    def ior_results(self):
        """Parsed results of every IOR step, in job order."""
        return self.step_results('ior')

    def phase(self, operation):
        """:class:`PhaseFigures` of ``'write'`` or ``'read'``.

        One IOR run with ``-i N``: IOR's own summary.  One run per
        repetition: the same statistics over the runs (population stddev,
        as IOR computes it).
        """
        results = [r for r in self.ior_results()
                   if r.summary(operation) is not None]
        if not results:
            raise SanityError(f'no IOR run reported a {operation} phase')

        if len(results) == 1:
            s = results[0].summary(operation)
            samples = tuple(i.bw_mib_s for i in
                            results[0].iterations_of(operation))
            return PhaseFigures(s.bw_max_mib_s, s.bw_min_mib_s,
                                s.bw_mean_mib_s, s.bw_stddev_mib_s, samples)

        samples = tuple(r.summary(operation).bw_max_mib_s for r in results)
        return PhaseFigures(max(samples), min(samples),
                            statistics.fmean(samples),
                            statistics.pstdev(samples), samples)


class ior_bandwidth_base(ior_check_base):
    """IOR bandwidth figures (write and read, each with its spread)."""

    @performance_function('MiB/s')
    def write_bw(self):
        """IOR's Max Write, the figure the sources publish."""
        return self.phase('write').max_mib_s

    @performance_function('MiB/s')
    def write_bw_mean(self):
        return self.phase('write').mean_mib_s

    @performance_function('MiB/s')
    def write_bw_min(self):
        return self.phase('write').min_mib_s

    @performance_function('MiB/s')
    def write_bw_stddev(self):
        return self.phase('write').stddev_mib_s

    @performance_function('MiB/s')
    def read_bw(self):
        """IOR's Max Read."""
        return self.phase('read').max_mib_s

    @performance_function('MiB/s')
    def read_bw_mean(self):
        return self.phase('read').mean_mib_s

    @performance_function('MiB/s')
    def read_bw_min(self):
        return self.phase('read').min_mib_s

    @performance_function('MiB/s')
    def read_bw_stddev(self):
        return self.phase('read').stddev_mib_s
