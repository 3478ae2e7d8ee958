# SPDX-License-Identifier: BSD-3-Clause
"""What every IOR check shares (no test here; the families import it).

An IOR check runs one job made of *steps*: IOR invocations, and between
them the partition's drop-caches command or a layout query.  Each step is
announced in the job's stdout (``pfsbench-ior: begin <label>``) and its exit
status recorded (``pfsbench-ior: end <label> exit=N``), so the output of
every IOR run is parsed on its own by :mod:`pfsbench.parsers.ior` and a
failure names the step that failed, quoting IOR's own ``ERROR`` line.

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
explicit choice), the partition's Spack view (``extras['spack_view']/bin``),
``PATH``.  A missing IOR skips the check and says how to build it.
"""

import functools
import os
import re
import shutil
import statistics
import subprocess
from dataclasses import dataclass

import reframe.utility.sanity as sn
from reframe.core.builtins import (performance_function, run_after,
                                   run_before, sanity_function, variable)
from reframe.core.exceptions import SanityError

from pfsbench.checks import JOB_EXIT_PREFIX, FileSystemCheck
from pfsbench.commands import ior, shell_join
from pfsbench.errors import ParseError
from pfsbench.parsers import ior as ior_parser

STEP_BEGIN = 'pfsbench-ior: begin '
STEP_END = 'pfsbench-ior: end '
CACHE_DEFEAT_MODES = ('drop_caches', 'direct', 'reorder', 'none')
#: Bytes O_DIRECT transfers must be a multiple of (4 KiB sectors; 512-byte
#: devices accept more, but the automatic choice must work everywhere).
O_DIRECT_ALIGNMENT = 4096
ACCESS_MODES = ('fpp', 'shared')
BUILD_HINT = ('build it with the suite\'s Spack environment (spack -e '
              'spack-repo/environments/<system>/<partition> install; see '
              'docs/spack.md) and set the partition\'s extras.spack_view, or '
              'run with -S ior_binary=/path/to/ior')

_END_RE = re.compile(r'^' + re.escape(STEP_END) + r'(.*) exit=(\d+)$')

#: Step outputs of a job's stdout, keyed by (file, mtime, size); kept
#: outside the test object, which ReFrame serialises into its reports.
_STEP_OUTPUTS = {}
#: Parsed step outputs, keyed by (file, mtime, size, label, parser).
_PARSED_STEPS = {}


@dataclass(frozen=True)
class Step:
    """One command of the job script.

    ``kind`` names what reads its output: ``ior`` (the IOR parser),
    ``lfs`` (the getstripe parser) or ``shell`` (only its exit status).
    ``launched`` steps run under the job launcher (every task), the others
    once, in the batch script.
    """

    label: str
    kind: str
    argv: tuple
    launched: bool = True


@dataclass(frozen=True)
class PhaseFigures:
    """One phase's bandwidth over the repetitions, in MiB/s."""

    max_mib_s: float
    min_mib_s: float
    mean_mib_s: float
    stddev_mib_s: float
    samples: tuple


@functools.lru_cache(maxsize=None)
def ior_apis(path):
    """The I/O APIs an IOR binary was built with (its ``-h`` modules).

    Returns None when the binary cannot be run here (a remote partition's
    build): the job will then report IOR's own error.
    """
    try:
        proc = subprocess.run([path, '-h'], capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None

    # IOR prints one 'Module <API>' heading per compiled-in backend.
    apis = frozenset(re.findall(r'^Module (\w+)$', proc.stdout, re.M))
    return apis or None


def _ior_size(nbytes):
    """``nbytes`` in IOR's size syntax, with the largest exact suffix."""
    for suffix, unit in (('g', 2**30), ('m', 2**20), ('k', 2**10)):
        if nbytes % unit == 0:
            return f'{nbytes // unit}{suffix}'

    return str(nbytes)


class ior_check_base(FileSystemCheck):
    """Base of the IOR families; not a test by itself.

    A family declares, as ``parameter`` where it sweeps them and
    ``variable`` otherwise: ``nodes``, ``tasks_per_node``, ``api``
    (POSIX, MPIIO, HDF5), ``access`` (``fpp`` or ``shared``) and
    ``transfer_size`` (IOR size syntax: ``4m``, ``47008``).
    """

    # IOR is an MPI program, but the local launcher's single process runs
    # it as an MPI singleton, so a laptop can run the 1-task cases.
    valid_systems = ['+pfs']

    #: The IOR binary; empty: the partition's Spack view, then ``PATH``.
    #:
    #: :type: :class:`str`
    #: :default: ``''``
    ior_binary = variable(str, value='')

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
    odirect = variable(bool, value=False, loggable=True)

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

    #: The IOR binary this run used (set at setup).
    ior_path = variable(str, value='', loggable=True)

    #: Name of the file-system target written (set at setup).
    target_name = variable(str, value='', loggable=True)

    #: Bytes each task wrote per repetition, after rounding and capping.
    bytes_per_task = variable(int, value=0, loggable=True)

    #: True when the partition's cap lowered the source's size.
    size_capped = variable(bool, value=False, loggable=True)

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

    @run_after('setup')
    def find_ior(self):
        extras = self.current_partition.extras
        if self.ior_binary:
            candidates = [self.ior_binary]
        else:
            candidates = []
            if extras.get('spack_view'):
                candidates.append(os.path.join(extras['spack_view'], 'bin',
                                               'ior'))
            if shutil.which('ior'):
                candidates.append(shutil.which('ior'))

        found = next((c for c in candidates
                      if os.path.isfile(c) and os.access(c, os.X_OK)), None)
        if self.is_dry_run():
            # A dry run renders the job script of another system: show the
            # binary that system would run.
            self.ior_path = found or (candidates[0] if candidates else 'ior')
            return

        where = ', '.join(candidates) or 'no spack_view, nothing on PATH'
        self.skip_if(found is None,
                     f'no IOR binary ({where}); {BUILD_HINT}')
        self.ior_path = found
        apis = ior_apis(found)
        self.skip_if(apis is not None and self.api not in apis,
                     f'{found} was built without the {self.api} API (it has '
                     f'{", ".join(sorted(apis or ()))}); rebuild IOR with it '
                     f'(Spack: ior+hdf5 for HDF5)')

    @run_after('setup')
    def size_the_job(self):
        part = self.current_partition
        targets = part.extras.get('targets', [])
        self.target_name = self.target or (targets[0]['name'] if targets
                                           else 'stage')
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

        if part.launcher_type.registered_name == 'local':
            self.skip_if(self.nodes * self.tasks_per_node > 1,
                         f'{part.fullname} runs one process (local '
                         f'launcher); {self.nodes} x {self.tasks_per_node} '
                         f'IOR tasks need srun or mpirun')
            self.num_tasks = 1
        else:
            self.num_tasks = self.nodes * self.tasks_per_node
            self.num_tasks_per_node = self.tasks_per_node

        extras = part.extras
        self.cap_sizes(extras.get('ior_max_bytes_per_task',
                                  extras.get('max_bytes_per_stream')))

    def cap_sizes(self, cap):
        """Round the block to whole transfers and apply the partition's cap.

        The source's spelling (``4g``) is kept when the size is unchanged,
        so the job script shows the source's command line.
        """
        transfer = ior.size_bytes(self.transfer_size)
        block = ior.size_bytes(self.block_size)
        block = max(transfer, block // transfer * transfer)
        if cap is not None and block * self.segments > cap:
            self.size_capped = True
            if block <= cap:
                self.segments = max(1, cap // block)
            else:
                self.segments = 1
                block = max(transfer, cap // transfer * transfer)

        if block != ior.size_bytes(self.block_size):
            self.block_size = _ior_size(block)

        self.bytes_per_task = block * self.segments

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
                    executable=self.ior_path)

    def split_write_read(self):
        """Whether each repetition writes and reads in separate IOR runs."""
        return self.cache_defeat in ('drop_caches', 'direct')

    def after_write_steps(self, repetition):
        """Steps between a write and its read (split runs only)."""
        return []

    def ior_steps(self):
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

    @run_before('run')
    def set_command_line(self):
        steps = self.ior_steps()
        # ReFrame copies the task counts into the job only after this hook;
        # launchers that spell them out (mpirun -np N) need them now.
        self.job.num_tasks = self.num_tasks
        self.job.num_tasks_per_node = self.num_tasks_per_node
        launcher = self.job.launcher.run_command(self.job)
        cmds = []
        for step in steps[:-1]:
            cmd = shell_join(step.argv)
            if step.launched and launcher:
                cmd = f'{launcher} {cmd}'

            cmds += [f"echo '{STEP_BEGIN}{step.label}'", cmd,
                     f'echo "{STEP_END}{step.label} exit=$?"']

        # The last step is ReFrame's own launcher line; the base class's
        # post-run command records its exit status.
        cmds.append(f"echo '{STEP_BEGIN}{steps[-1].label}'")
        self.prerun_cmds = cmds
        self.executable = shell_join(steps[-1].argv)

    # Reading the output --------------------------------------------------

    def step_outputs(self):
        """{label: (first line number - 1, output lines)} of the job's
        stdout, plus {label: exit status} (the last step has none)."""
        path = os.path.join(self.stagedir, self.stdout.evaluate())
        stat = os.stat(path)
        key = (path, stat.st_mtime_ns, stat.st_size)
        if key not in _STEP_OUTPUTS:
            outputs, exits, current = {}, {}, None
            with open(path) as fp:
                for lineno, line in enumerate(fp.read().splitlines()):
                    if line.startswith(STEP_BEGIN):
                        current = line[len(STEP_BEGIN):]
                        outputs[current] = (lineno + 1, [])
                    elif m := _END_RE.match(line):
                        exits[m.group(1)] = int(m.group(2))
                        current = None
                    elif line.startswith(JOB_EXIT_PREFIX):
                        current = None
                    elif current is not None:
                        outputs[current][1].append(line)

            _STEP_OUTPUTS[key] = (outputs, exits)

        return _STEP_OUTPUTS[key]

    def parsed_step(self, label, parser):
        """One step's output parsed by ``parser.parse``.

        Line numbers in error messages are those of the job's stdout.

        Raises:
            SanityError: the step did not run, or quoting the parser's
                message (IOR's own ERROR line when IOR failed).
        """
        outputs, _ = self.step_outputs()
        if label not in outputs:
            raise SanityError(f'step {label!r} did not start')

        path = os.path.join(self.stagedir, self.stdout.evaluate())
        stat = os.stat(path)
        key = (path, stat.st_mtime_ns, stat.st_size, label, parser.__name__)
        if key not in _PARSED_STEPS:
            offset, lines = outputs[label]
            text = '\n' * offset + '\n'.join(lines)
            try:
                _PARSED_STEPS[key] = parser.parse(text,
                                                  os.path.basename(path))
            except ParseError as err:
                _PARSED_STEPS[key] = err

        result = _PARSED_STEPS[key]
        if isinstance(result, ParseError):
            raise SanityError(f'step {label!r}: {result}')

        return result

    def step_problems(self, step):
        """Family-specific checks of a step's output: a list of messages."""
        return []

    @sanity_function
    def assert_steps_completed(self):
        return sn.all([self.assert_every_step(),
                       self.assert_job_exit_zero()])

    @sn.deferrable
    def assert_every_step(self):
        # Every failure is reported, not just the first (hpctestlib's
        # mnt_opts does the same).
        steps = self.ior_steps()
        _, exits = self.step_outputs()
        problems = []
        for step in steps:
            code = exits.get(step.label)
            if step is not steps[-1] and code is None:
                problems.append(f'step {step.label!r} did not finish')
            elif code:
                problems.append(f'step {step.label!r} exited with {code}')

            try:
                if step.kind == 'ior':
                    self.parsed_step(step.label, ior_parser)
                problems += self.step_problems(step)
            except SanityError as err:
                problems.append(str(err))

        if problems:
            # A launcher that failed before IOR started (srun, PMIx) left
            # its reason on stderr only.
            stderr = self.last_stderr_line()
            if stderr:
                problems.append(f'last line of {self.stderr.evaluate()}: '
                                f'"{stderr}"')
            raise SanityError('; '.join(problems))

        return True

    def last_stderr_line(self):
        path = os.path.join(self.stagedir, self.stderr.evaluate())
        try:
            with open(path) as fp:
                lines = [ln.strip() for ln in fp if ln.strip()]
        except OSError:
            return None

        return lines[-1] if lines else None

    def ior_results(self):
        """Parsed results of every IOR step, in job order."""
        return [self.parsed_step(s.label, ior_parser)
                for s in self.ior_steps() if s.kind == 'ior']

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
