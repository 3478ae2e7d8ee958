# SPDX-License-Identifier: BSD-3-Clause
"""What every pfsbench ReFrame check shares: targets, run directory,
references, cleanup, and sanity through the pure parsers.

A check family subclasses :class:`FileSystemCheck`, declares its tool
(``tool = 'ior'``) and its sweep as ``parameter``\\ s, sets its command line
from :mod:`pfsbench.commands` in a ``run_before('run')`` hook, and exposes
the parsed result's fields through ``@performance_function``\\ s.  Where the
data comes from:

- the file-system target: the partition's ``extras['targets']`` (validated by
  :mod:`pfsbench.site.config`), else the test's own stage directory;
- references: ``config/references/<system>.yaml`` (ReFrame 4.10 ``$ref``),
  one top-level key per check class, ``$index`` on the sweep parameters;
- the tool: the check variable ``tool_binary`` (an explicit choice), else
  the partition's Spack view (``extras['spack_view']``), else ``PATH``
  (:mod:`pfsbench.site.binaries`); a missing tool skips the case, saying where
  it looked and how to build it;
- the run directory: a fresh ``pfsbench-<test>-<time>-<pid>`` directory
  under the target, created by the check and removed by the job script itself
  even when the tool fails (nothing else is ever deleted).
"""

import functools
import os
import re

import reframe as rfm
import reframe.utility.typecheck as typ
from reframe.core.builtins import run_after, run_before, variable
from reframe.core.exceptions import ConfigError as RfmConfigError
from reframe.core.logging import getlogger
from reframe.core.runtime import runtime

from pfsbench.checks import rfm_speed
from pfsbench.checks.fs_probe import ServerCountersProbe
from pfsbench.checks.job_output import JobOutput
from pfsbench.checks.probes import (ClientCpuProbe, ForeignJobsProbe,
                                    TargetDeviceProbe)
from pfsbench.core import tools
from pfsbench.core.errors import ConfigError
from pfsbench.gate.history.results import default_runs_dir
from pfsbench.load import contention
from pfsbench.runner import DEFAULT_DROP_CACHES
# (By name: in the class body below, ``contention`` is a variable.)
from pfsbench.load.contention import FOREIGN_CPU_SHARE
from pfsbench.site import (binaries, exclusive, references, rundir, spack,
                           validate)
from pfsbench.site.config import (check_scratch_dir, extras_value,
                                  node_scratch_dir)
from pfsbench.site.mounts import fstype_of, target_is_lustre

#: ReFrame's own variables: pfsbench.site.validate checks the task count and
#: time limit among them, ReFrame the rest.
_FRAMEWORK_VARIABLES = frozenset(rfm.RunOnlyRegressionTest.var_space.vars)
#: (partition, target path) whose unset variables a dry run warned about.
_WARNED_UNSET = set()


# Listing a large catalogue: ReFrame's deprecation path, made fast before
# any check class is created (docs/checks-machinery.md, the bases).
rfm_speed.install()


@functools.cache
def _server_provenance(partition, command):
    """What ``partition``'s ``extras.server_provenance_command`` printed
    (``key=value; ...``), run once per ReFrame run; ``unavailable: why``
    when it failed (warned once)."""
    try:
        facts = contention.parse_provenance(
            contention.run_site_command(command), command)
        return '; '.join(f'{k}={v}' for k, v in facts.items())
    except contention.CommandFailed as err:
        getlogger().warning(f'{partition}: extras.'
                            f'server_provenance_command: {err}')
        return f'unavailable: {err}'


def tag_nightly_point(test, **point):
    """Tag a case of a sweep the nightly samples: ``nightly`` at the sweep's
    one representative point (``point``: parameter=value), ``weekly`` at
    every other point.  The nightly is one case per family and regime, so
    that it fits a site's window (docs/nightly.md); the rest of the sweep
    is the weekly tier."""
    at_point = all(getattr(test, name) == value
                   for name, value in point.items())
    test.tags |= {'nightly' if at_point else 'weekly'}


def _maintainers():
    """Who answers for the checks: ``PFSBENCH_MAINTAINERS`` (the site's
    storage team, comma-separated), else the suite's ``MAINTAINERS``."""
    site = os.environ.get('PFSBENCH_MAINTAINERS', '')
    if site.strip():
        return [m.strip() for m in site.split(',') if m.strip()]

    path = os.path.join(os.path.dirname(__file__), '..', '..', 'MAINTAINERS')
    try:
        with open(path) as fp:
            return [ln.strip() for ln in fp
                    if ln.strip() and not ln.startswith('#')]
    except OSError:
        return []


class FileSystemCheck(rfm.RunOnlyRegressionTest, TargetDeviceProbe,
                      ClientCpuProbe, ForeignJobsProbe, ServerCountersProbe,
                      JobOutput):
    """Base of every pfsbench check (not a test by itself).

    A family declares ``nodes`` (the node count of the job: a ``parameter``
    where the experiment sweeps it, a ``variable`` otherwise).
    """

    #: Name of the partition target to benchmark (``extras['targets']``).
    #: Empty: the first target, or the stage directory where none is set.
    #:
    #: :type: :class:`str`
    #: :default: ``''``
    target = variable(str, value='')

    #: Name of the target this run wrote to (``stage``: the stage
    #: directory; set at setup).
    target_name = variable(str, value='', loggable=True)

    #: Path of the target this run wrote to (set at setup).
    target_path = variable(str, value='', loggable=True)

    #: File-system type of the target, from its config entry or the mount.
    target_fstype = variable(str, value='', loggable=True)
    #: Whether the target takes Lustre layouts: the partition has the
    #: ``lustre`` feature and the target declares no other ``fstype``
    #: (a node-local XFS beside a Lustre scratch gets no ``lfs``).
    target_lustre = variable(typ.Bool, value=False)

    #: The target's scope (``extras.targets[].scope``): ``shared`` (one
    #: directory every node sees) or ``node`` (a directory on each node of
    #: the job, made and removed there; docs/targets.md).
    target_scope = variable(str, value='shared', loggable=True)

    #: The run directory this test created under the target.
    run_dir = variable(str, value='', loggable=True)

    #: What the benchmark binaries were built from: ``name@version/hash``
    #: of every benchmark package in the run's Spack environment
    #: (:func:`pfsbench.site.spack.environment`, its ``spack.lock``),
    #: space-separated.  Empty where no Spack environment is named.
    spack_provenance = variable(str, value='', loggable=True)

    #: The exact build of the tool this case ran: its package's spec and
    #: full hash from ``spack.lock`` (``ior@4.0.0~hdf5~lustre~ncmpi
    #: build_system=autotools /<32 characters>``); empty without a Spack
    #: environment, or when the tool is not one of its packages.
    tool_spack_build = variable(str, value='', loggable=True)

    #: The Spack environment the binaries came from, and the sha256 of
    #: the ``spack.lock`` it was measured with (a copy is kept as
    #: ``<runs>/spack-locks/<sha256>.spack.lock``).
    spack_env = variable(str, value='', loggable=True)
    spack_lock = variable(str, value='', loggable=True)

    #: The benchmark executable the check runs (``'ior'``, ``'mdsrate'``),
    #: a name of :data:`pfsbench.core.tools.TOOLS`, where its Spack package and
    #: how it is found are declared (dd is the system's, run by name).  A
    #: variable, so that ``reframe --describe`` and ``pfsbench
    #: check-config`` report the check's own tool.
    #:
    #: :type: :class:`str`
    tool = variable(str, value='')

    #: The experiment of the catalogue the check encodes (``'E16'``, a key
    #: of :data:`pfsbench.experiments.EXPERIMENTS`); empty for none.
    #:
    #: :type: :class:`str`
    experiment = variable(str, value='')

    #: How messages name the tool (default: :attr:`tool`).
    tool_label = ''

    #: Whether the family's tool expands ``$SLURMD_NODENAME`` in the run
    #: directory on each node (the streams runner does); the other
    #: families skip a node target whose path names the node.
    expands_node_name = False

    #: Whether a task reads files another node's tasks wrote (IO500's
    #: ``-C``/``-N 1`` reads, its shared file, find over the tree); such a
    #: job cannot span nodes on a node target, whose directories each node
    #: sees alone.
    reads_other_nodes_files = False

    #: The tool's executable; empty: the partition's Spack view, then
    #: ``PATH``.
    #:
    #: :type: :class:`str`
    #: :default: ``''``
    tool_binary = variable(str, value='')

    #: The executable this run used (set at setup).
    tool_path = variable(str, value='', loggable=True)

    #: Whether foreign load was seen while this case measured (set after
    #: the run; :mod:`pfsbench.load.contention`): the gate leaves such results
    #: out of baselines and verdicts.
    contended = variable(typ.Bool, value=False, loggable=True)

    #: What foreign load was seen (empty when none).
    contention = variable(str, value='', loggable=True)

    #: Others' work on the host that runs ReFrame during a ``local`` case
    #: (:func:`pfsbench.load.contention.client_cpu`: ``foreign_cpus=N
    #: cpus=N seconds=N pressure=N``; empty for a scheduler's nodes;
    #: ``unavailable: why`` when /proc/stat could not be read).
    client_cpu = variable(str, value='', loggable=True)

    #: Others' work on the ReFrame host above this share of its CPUs marks
    #: a ``local`` case contended (``-S client_cpu_share=1``: never, the
    #: figures still logged; for a test of something else on a shared
    #: machine).
    client_cpu_share = variable(float, value=FOREIGN_CPU_SHARE)

    #: Server-side facts from the partition's
    #: ``extras.server_provenance_command`` (``key=value; ...``: versions,
    #: servers, layout), so that the gate can name a server-side change.
    server_provenance = variable(str, value='', loggable=True)

    valid_prog_environs = ['builtin']
    maintainers = _maintainers()

    @run_after('setup')
    def refuse_hostile_values(self):
        # First of the setup hooks: a -S/-P value with shell syntax, or a
        # count below 1, fails the case before anything uses it
        # (pfsbench.site.validate; docs/hostile-values.md).
        try:
            validate.check_variables(self, _FRAMEWORK_VARIABLES)
        except ConfigError as err:
            raise RfmConfigError(str(err)) from None

    @run_before('run')
    def refuse_flexible_allocation(self):
        # Before ReFrame writes the job script: 0 tasks would take every
        # idle node of the partition, a time limit of 0 none at all.
        try:
            validate.check_job_shape(self)
        except ConfigError as err:
            raise RfmConfigError(str(err)) from None

    @run_after('setup')
    def use_reference_file(self):
        # One reference file per system; a system without one is measured
        # and logged but never gated.  Set at setup, not init: listing a
        # catalogue never reads it, and ReFrame validates no reference for
        # cases that do not run.  (config/common.py publishes the
        # directory; pfsbench.site.references reads each file once, where a
        # {'$ref': path} would have ReFrame parse it again for every case.)
        prefix = os.environ.get('PFSBENCH_REFERENCES', '')
        path = os.path.join(prefix, f'{self.current_system.name}.yaml')
        if prefix and os.path.exists(path):
            reference = references.for_check(path, type(self).__name__)
            if reference is not None:
                self.reference = reference

    @run_after('setup')
    def fit_partition_time_limit(self):
        # A partition's time_limit is the most its jobs may ask (Slurm
        # rejects a job asking more); ReFrame applies it only to a test
        # that sets no time_limit of its own, and every check sets one.
        limit = self.current_partition.time_limit
        if limit is None or self.time_limit is None:
            return
        try:
            allowed = validate.time_seconds(
                limit, self.current_partition.fullname, 'time_limit')
        except ConfigError as err:
            raise RfmConfigError(str(err)) from None
        if self.time_limit > allowed:
            getlogger().verbose(
                f'{self.unique_name}: time limit {self.time_limit:.0f} s '
                f'capped to the partition\'s time_limit ({limit})')
            self.time_limit = allowed

    @run_after('setup')
    def resolve_target(self):
        part = self.current_partition
        max_nodes = part.extras.get('max_nodes',
                                    1 if self.local_launcher() else None)
        self.skip_if(max_nodes is not None and self.nodes > max_nodes,
                     f'{part.fullname} has {max_nodes} node(s); this case '
                     f'needs {self.nodes}')
        targets = part.extras.get('targets', [])
        if self.target:
            chosen = [t for t in targets if t['name'] == self.target]
            if not chosen:
                raise RfmConfigError(
                    f'{part.fullname}: extras.targets: no target named '
                    f'{self.target!r}; known: '
                    f'{[t["name"] for t in targets]}')
            entry = chosen[0]
        elif targets:
            entry = targets[0]
        else:
            entry = {'name': 'stage', 'path': self.stagedir}

        field = f'extras.targets[{entry["name"]}].path'
        # A node target lives on the job's nodes, not on this host (on a
        # one-node local partition it is this host's directory).
        per_node = (entry.get('scope', 'shared') == 'node' and
                    not self.local_launcher())
        expanded = os.path.expandvars(os.path.expanduser(entry['path']))
        if not os.path.isabs(expanded):
            # '$PROJ_SCRATCH/pfsbench' with PROJ_SCRATCH unset here: the
            # job would write under the current directory (the clone).
            missing = sorted(set(re.findall(r'\$\{?(\w+)', expanded)))
            raise RfmConfigError(
                f'{part.fullname}: {field}: {entry["path"]!r}: '
                f'{", ".join("$" + v for v in missing)} not set here, and '
                f'the path would be relative to the current directory: set '
                f'it ({" ".join(f"export {v}=/path" for v in missing)}) '
                f'to what it is on the cluster')
        try:
            # Dry runs render job scripts for other systems: their paths
            # need not exist here, but '/' or a home is always refused.
            path = node_scratch_dir(
                entry['path'], part.fullname, field,
                must_exist=not self.is_dry_run()) if per_node else \
                check_scratch_dir(entry['path'], part.fullname, field,
                                  must_exist=not self.is_dry_run())
        except ConfigError as err:
            raise RfmConfigError(str(err)) from None

        self.skip_if(
            per_node and f'${rundir.NODE_NAME_VAR}' in path and
            not self.expands_node_name,
            f'{field}: {entry["path"]!r} names the node '
            f'(${rundir.NODE_NAME_VAR}): only the streams families (dd, '
            f'bonnie++, iozone, fio) expand it on each node; '
            f'{self.tool_label or self.tool or "this family"} would get it '
            f'literally')

        unset = sorted(set(re.findall(r'\$\{?(\w+)', path)) -
                       ({rundir.NODE_NAME_VAR} if per_node else set()))
        if unset and (part.fullname, path) not in _WARNED_UNSET:
            # A real run refuses such a path; a dry run would silently
            # write it, quoted, into the job script.
            _WARNED_UNSET.add((part.fullname, path))
            getlogger().warning(
                f'{part.fullname}: {field}: {entry["path"]!r}: '
                f'{", ".join("$" + v for v in unset)} not set here: the '
                f'dry-run job script writes under {path!r} literally; set '
                f'it ({" ".join(f"export {v}=..." for v in unset)}) for '
                f'the job the cluster would run')

        self.target_name = entry['name']
        self.target_lustre = target_is_lustre(entry, part.features)
        self.target_path = path
        self.target_scope = 'node' if per_node else 'shared'
        # This host's mount table says nothing about a node's directory.
        self.target_fstype = entry.get('fstype', '') or (
            '' if per_node else fstype_of(path))
        # The partition is in the name: two partitions may mount the same
        # target in one session (E11 compares them), and each job removes
        # its own run directory.
        self.run_dir = os.path.join(path, rundir.run_dir_name(
            f'{self.unique_name}-{part.name}'))

    @run_after('setup')
    def find_tool(self):
        if not self.tool or tools.get(self.tool).found_by != tools.SPACK:
            return

        self.tool_path = self.lookup_tool(self.tool, self.tool_binary,
                                          label=self.tool_label)
        if self.renders_only():
            return
        unusable = self.tool_unusable(self.tool_path)
        self.skip_if(bool(unusable), unusable)

    def lookup_tool(self, tool, explicit='', *, label='', why='',
                    beside=''):
        """The path of ``tool`` for this case: the ``explicit`` path, else
        the one ``beside`` another binary of the case (IOR's build installs
        mdtest next to ior), else the partition's Spack view, else
        ``PATH``.  The case skips, saying where it looked and ``why`` it
        needs the tool (default: how to build it), when none is
        executable; a binary from the view that is not the build its
        ``spack.lock`` names stops the run (:meth:`check_view_binary`).  A
        dry run, which renders the job script of another system, takes
        the first candidate: the binary that system would run.
        """
        env = spack.environment(self.current_partition.extras)
        tried = binaries.candidates(tool, explicit, env.view if env else '')
        if beside and not explicit:
            tried.insert(0, os.path.join(os.path.dirname(beside), tool))
        found = binaries.first_executable(tried)
        if self.renders_only():
            return found or (tried[0] if tried else tool)

        where = binaries.describe(tried) or 'no spack_view, nothing on PATH'
        self.skip_if(found is None,
                     f'no {label or tool} binary ({where})' +
                     (f': {why}' if why else
                      f'; {binaries.build_hint(tool)}'))
        self.check_view_binary(found, binaries.package_of(tool))
        return found

    def tool_unusable(self, path):
        """Why the tool found at ``path`` cannot run this case (a missing
        compiled-in feature), or an empty string.  Families override it."""
        return ''

    @run_after('setup')
    def record_spack_provenance(self):
        env = spack.environment(self.current_partition.extras)
        if env is None or not env.env_dir:
            return

        self.spack_env = env.env_dir
        try:
            tools = spack.provenance(env.env_dir)
            if self.tool and binaries.package_of(self.tool):
                self.tool_spack_build = spack.tool_build(
                    env.env_dir, binaries.package_of(self.tool))
            if not self.is_dry_run():
                self.spack_lock = spack.keep_lock(
                    env.env_dir, default_runs_dir())[0]
        except ConfigError as err:
            if self.is_dry_run():
                return      # the environment lives on another machine
            raise RfmConfigError(
                f'{self.current_partition.fullname}: {env.source}: '
                f'{err}') from None

        self.spack_provenance = ' '.join(
            f'{name}@{tool["version"]}/{tool["hash"][:7]}'
            for name, tool in sorted(tools.items()))

    def check_view_binary(self, binary, package):
        """Refuse a binary from the partition's Spack view that is not the
        build its ``spack.lock`` names: the provenance recorded with every
        result would describe another build (see
        :func:`pfsbench.site.spack.check_view_binary`).

        Args:
            binary: the path the check found the tool at.
            package: the Spack package that installs the tool.
        """
        env = spack.environment(self.current_partition.extras)
        if env is None or not env.env_dir or self.is_dry_run():
            return

        view = os.path.abspath(env.view)
        if os.path.commonpath([os.path.abspath(binary), view]) != view:
            return      # an explicit path, not the view's

        try:
            spack.check_view_binary(binary, env.env_dir, package)
        except ConfigError as err:
            where = ('extras.spack_view' if env.source.startswith('extras')
                     else env.source)
            raise RfmConfigError(
                f'{self.current_partition.fullname}: {where}: '
                f'{err}') from None

    def scratch_root(self):
        """The root this case's measurement claims
        (:mod:`pfsbench.site.exclusive`): the target's path, or for the stage
        directory the stage prefix that every case of this run shares."""
        if self.target_name == 'stage':
            return runtime().stage_prefix

        if self.target_scope == 'node':
            # Which nodes a job gets is known only once it runs: one case
            # at a time on the whole node target (so never two on one
            # node), its lock kept here, where the runs are recorded.
            root = os.path.join(
                default_runs_dir(), 'node-targets',
                f'{self.current_system.name}-{self.current_partition.name}'
                f'-{self.target_name}')
            os.makedirs(root, exist_ok=True)
            return root

        return self.target_path

    @run_before('run')
    def claim_target(self):
        if self.is_dry_run():
            return

        extras = self.current_partition.extras
        try:
            exclusive.claim(
                self.scratch_root(), self,
                independent=extras_value(extras, 'independent_targets'),
                timeout=extras_value(extras, 'target_lock_timeout'),
                say=getlogger().info)
        except exclusive.TargetBusy as err:
            raise RfmConfigError(str(err)) from None

    @run_before('run')
    def sample_target_device(self):
        # Every probe as the job is submitted, in this order: the device
        # (its sync flushes what earlier cases left in the page cache), the
        # servers' counters, last the client's CPUs (the syncs and commands
        # above are not the case's).
        if self.is_dry_run():
            return

        self.sample_device_before()
        self.sample_server_counters_before()
        self.sample_foreign_jobs_before()
        self.sample_client_cpu_before()

    @run_after('setup')
    def record_server_provenance(self):
        part = self.current_partition
        command = part.extras.get('server_provenance_command')
        if command and not self.is_dry_run():
            self.server_provenance = _server_provenance(part.fullname,
                                                        command)

    def measurement_ended(self):
        """Look for foreign load as the job left things: every probe's
        after sample (once; :func:`pfsbench.site.exclusive.claim` calls it
        before the next case on the target is submitted, ReFrame may read
        this one's results later).  First the client's CPUs: what follows
        is this process's bookkeeping."""
        self.sample_client_cpu_after()
        self.sample_device_after()
        self.sample_server_counters_after()
        self.sample_foreign_jobs_after()

    def bytes_moved(self):
        """Bytes this case writes plus reads on the target, for telling its
        own I/O from foreign I/O; None where the family cannot say."""
        return None

    @run_before('performance')
    def look_for_foreign_load(self):
        if self.is_dry_run():
            return

        self.measurement_ended()
        found = [self.device_verdict(), self.foreign_jobs_verdict(),
                 self.server_counters_verdict(), self.client_cpu_verdict()]
        found = [s for s in found if s]
        self.contended = bool(found)
        self.contention = '; '.join(found)

    @run_before('run', always_last=True)
    def refuse_more_tasks_than_cpus(self):
        # Once every hook has set the layout (--overcommit where allowed).
        try:
            validate.check_tasks_fit(self)
        except ConfigError as err:
            raise RfmConfigError(str(err)) from None

    @run_before('run', always_last=True)
    def own_run_dir(self):
        if self.target_scope == 'node':
            # Made and removed by the job itself, one step per node
            # (docs/targets.md): this host cannot reach the nodes' disks.
            self.prerun_cmds = (
                rundir.job_prologue(self.run_dir, on_every_node=True) +
                rundir.node_job_create(self.run_dir, self.unique_name) +
                list(self.prerun_cmds))
            self.postrun_cmds = rundir.job_epilogue(self.run_dir,
                                                    on_every_node=True)
            return

        if not self.is_dry_run():
            rundir.create(self.run_dir, self.unique_name)

        # The job script runs these whatever the tool's exit status: the
        # first records that status (the squeue scheduler cannot), the second
        # removes exactly the directory this test created.  Last of the
        # stage's hooks: the trap that removes it when the job is stopped by
        # a signal must precede the families' own commands.
        self.prerun_cmds = (rundir.job_prologue(self.run_dir) +
                            list(self.prerun_cmds))
        self.postrun_cmds = rundir.job_epilogue(self.run_dir)

    @run_before('sanity')
    def remove_run_dir_left_by_job(self):
        # A job killed with SIGKILL, or on a lost node, did not remove it
        # (a node target's are on the nodes: docs/targets.md).
        if not self.is_dry_run() and self.target_scope != 'node':
            rundir.remove_after_job(self.run_dir, say=getlogger().info)

    def renders_only(self):
        """Whether this run only renders jobs and so looks for no tool: a
        dry run, which may be for another system, unless
        ``PFSBENCH_DRY_RUN_TOOLS=check`` (``pfsbench nightly-plan`` on the
        system itself: the dry run then skips what the run would skip for
        a missing or unusable tool, by the same hooks)."""
        return (self.is_dry_run() and
                os.environ.get('PFSBENCH_DRY_RUN_TOOLS') != 'check')

    def local_launcher(self):
        """Whether the partition starts one process per job (ReFrame's
        ``local`` launcher): one node, and the family fans out itself."""
        return self.current_partition.launcher_type.registered_name == 'local'

    @run_before('run')
    def refuse_other_nodes_files_on_a_node_target(self):
        if not (self.reads_other_nodes_files and
                self.target_scope == 'node'):
            return

        nodes = -(-(self.num_tasks or 1) //
                  max(self.num_tasks_per_node or 1, 1))
        self.skip_if(
            nodes > 1,
            f'{self.target_name}: a node target (scope: node): the '
            f'{nodes} nodes of this job would each see only their own '
            f'files, and {self.tool_label or self.tool} reads files other '
            f'nodes wrote (docs/targets.md); run it on a shared target or '
            f'on one node')

    def place_mpi_tasks(self, nodes, tasks_per_node):
        """Set the job's task layout for an MPI tool: ``nodes`` x
        ``tasks_per_node`` tasks; one task on the local launcher, which
        runs the tool as an MPI singleton (larger cases are skipped).

        Args:
            nodes: nodes of the job.
            tasks_per_node: the tool's tasks on each node.
        """
        if self.local_launcher():
            self.skip_if(nodes * tasks_per_node > 1,
                         f'{self.current_partition.fullname} runs one '
                         f'process (local launcher); {nodes} x '
                         f'{tasks_per_node} {self.tool_label or self.tool} '
                         f'tasks need srun or mpirun')
            self.num_tasks = 1
        else:
            self.num_tasks = nodes * tasks_per_node
            self.num_tasks_per_node = tasks_per_node

    def size_cap(self, *keys):
        """The partition's cap on what one task or stream writes: the first
        of the ``extras`` ``keys`` it sets (a family-specific one, then
        ``max_bytes_per_stream``), or None."""
        extras = self.current_partition.extras
        for key in keys + ('max_bytes_per_stream',):
            if key in extras:
                return extras[key]

        return None

    def cache_defeat_mode(self):
        """``drop_caches`` where the partition has the feature, else
        ``direct`` (O_DIRECT reads)."""
        if 'drop_caches' in self.current_partition.features:
            return 'drop_caches'

        return 'direct'

    def drop_caches_command(self):
        return self.current_partition.extras.get('drop_caches_command',
                                                 DEFAULT_DROP_CACHES)
