# SPDX-License-Identifier: BSD-3-Clause
"""mdtest command lines (E1-E4 from seed 000, E12, E17 from seed 004, and
IO500's mdtest-easy and mdtest-hard phases).

:func:`mdtest_argv` is the only place that knows mdtest's flags; the IO500
presets call it with the flags of IO500's own builders.  The task count and
tasks per node are not mdtest flags: the launcher (``srun``, ``mpirun``)
sets them.  The refusals mirror what mdtest itself refuses at start-up
(``md_validate_tests`` in hpc/ior ``src/mdtest.c``), so a bad combination
fails when the check is built, not in the queue.
"""

import os

from pfsbench.commands import options, procstat
from pfsbench.commands.ior import IO500_DATA_PACKET_TYPE, IO500_STONEWALL_S
from pfsbench.core.jobsteps import Step

#: What the items are: ``-F`` files only, ``-D`` directories only, or both
#: (mdtest's default: a directory phase, then a file phase).
ITEM_KINDS = ('both', 'files', 'dirs')
#: mdtest's phases, in the order it runs them.
PHASES = ('create', 'stat', 'read', 'remove')
_PHASE_FLAGS = {'create': '-C', 'stat': '-T', 'read': '-E', 'remove': '-r'}

#: Iterations of each phase when a source gives none: enough for a spread.
DEFAULT_ITERATIONS = 3
#: Items per task when a source gives none.
DEFAULT_ITEMS_PER_TASK = 1000

#: E12 (seed 003, tracing overhead): the phases and tasks per node run with
#: the tracer on and off.
E12_PHASES = ('create', 'stat', 'remove')
E12_TASKS_PER_NODE = (1, 16)

#: Seed 000 (E1-E4): files per run on Lustre (3M on ext4 and XFS, its
#: method slide: "500.000 files for Lustre, 3.000.000 files for ext4 and
#: XFS"; other file systems get Lustre's), its phases (create and unlink,
#: the file system unmounted and the caches flushed in between), one
#: create round per run (repeats are separate runs), processes per active
#: core, the sweeps of E1 (active cores), E2 (sockets), E3 (mount points)
#: and E4 (active cores per target), and the mount points E1 and E4 (6)
#: and E2 (12) ran through.
SEED000_ITEMS = 500000
SEED000_ITEMS_BY_FSTYPE = {'lustre': 500000, 'ext4': 3000000,
                           'xfs': 3000000}
SEED000_ITERATIONS = 1
SEED000_PHASES = ('create', 'remove')
SEED000_PROCESSES_PER_CORE = 2
SEED000_ACTIVE_CORES = tuple(range(6, 49, 6))
SEED000_SOCKETS = (1, 2, 3, 4)
SEED000_MOUNTS = (1, 2, 6, 12, 24)
SEED000_E4_ACTIVE_CORES = (12, 24, 36, 48)
SEED000_E2_PROCESSES = 12
SEED000_E3_ACTIVE_CORES = 12
SEED000_MOUNTS_E1 = 6
SEED000_MOUNTS_E2 = 12

#: Seed 004 (E15-E17): files or directories per run, all tasks together;
#: client nodes of its multi-client runs; its ``-N`` and ``-p`` (the source
#: names the flags without values: one node away, one second).
SEED004_ITEMS = 304000
SEED004_CLIENTS = 70
SEED004_STRIDE = 1
SEED004_PRE_DELAY_S = 1
#: Seed 004's metadata phases (create, stat, remove; no read).
SEED004_PHASES = ('create', 'stat', 'remove')
#: One pass of each phase per run (``-i 1``), as the source's one mdtest
#: run: ``-i 3`` created 3 x 304,000 items and reported the best of
#: three; the spread comes from repeated runs (``reframe --repeat``, the
#: nightly's repeats), each a whole create, stat, remove.
SEED004_ITERATIONS = 1
#: E17's bytes written to each file, so that ``-y`` syncs it.  The source
#: ran the LLNL mdtest (1.8.x), whose create path calls ``fsync(fd)`` on
#: every file under ``-y`` whether it writes or not (1.9.3 still does);
#: IOR's mdtest (3.3, 4.0, main) sets only ``fsyncPerWrite`` under
#: ``-y``, which acts inside the ``-w`` write, so without ``-w`` no file is
#: synced.  One byte is the smallest write: each create is then
#: create + 1-byte write + fsync + close, one write more than the source's
#: (docs/experiments.md has both rates measured).
SEED004_SYNC_WRITE_BYTES = 1

#: metabench's process counts (E15); mdsrate's and mdtest's (E16, E17).
#: All are processes of the whole run (the source's tables: NP 1 on 70
#: clients is one client's NP 1); metabench's are its workers at NP 1,
#: 2, 4 .. 64, one rank being its master.
SEED004_METABENCH_NP = (1, 3, 7, 15, 31, 63)
SEED004_MDTEST_NP = (1, 2, 4, 8, 16, 32, 64)


def seed004_split(experiment):
    """Whether seed 004's ``experiment`` runs each phase as its own mdtest
    (``-C``, ``-T``, ``-r``, the clients' CPU sampled around each).

    E15 and E16 (files only): the split runs do what one run does, to the
    same tree.  E17 (directories and files) is one run, as the source's:
    one mdtest creates, stats and removes its directories, then its
    files; split by phase, ``-C`` would make both and the files would be
    created, stat-ed and removed beside 304,000 directories.
    """
    return experiment != 'E17'


def seed000_items(fstype):
    """Seed 000's files per run on a file system of type ``fstype``."""
    return SEED000_ITEMS_BY_FSTYPE.get(fstype, SEED000_ITEMS)


def seed004_layout(clients, np, multi_clients=SEED004_CLIENTS,
                   max_nodes=None):
    """Where seed 004's ``np`` processes run: ``(nodes, tasks per node,
    capped)``.

    ``single``: all ``np`` on one node (the source's 16-core client,
    "saturated at NP 16").  ``multi``: one process per client on
    ``min(np, multi_clients)`` clients.  A partition with fewer nodes
    (``max_nodes``) caps them: the processes go evenly on the most nodes
    that divide ``np`` (Slurm places equal counts per node), and
    ``capped`` says that the source's one process per client was not kept.

    Args:
        clients: ``'single'`` or ``'multi'``.
        np: processes of the whole run.
        multi_clients: the clients of a multi-client run (the source's 70).
        max_nodes: the partition's ``extras.max_nodes``, or None.

    Returns:
        ``(nodes, tasks_per_node, capped)``.
    """
    if clients not in ('single', 'multi'):
        raise ValueError(f'seed 004 clients {clients!r}: expected single '
                         f'or multi')
    if clients == 'single':
        return 1, np, False
    wanted = min(np, multi_clients)
    have = min(wanted, max_nodes or wanted)
    nodes = max(n for n in range(1, have + 1) if np % n == 0)
    return nodes, np // nodes, nodes < wanted

#: IO500 (IO500/io500 src/phase_mdtest_easy.c, phase_mdtest_hard.c): files
#: per task, the bytes each mdtest-hard file holds, how data is generated.
IO500_FILES_PER_PROC = 1000000
IO500_HARD_FILE_BYTES = 3901
#: ``-G``, the offset of the data in the write/read buffer.  IO500 hashes
#: the phase name and the run's timestamp into it (4711 when the hash is 0
#: or -1); any value works while the writing and the verifying phases
#: share it.
IO500_BUFFER_OFFSET = 4711
#: Options of IO500's mdtest command lines that mdtest 3.3.0 and older
#: lack (4.0.0 has them).
IO500_MDTEST_OPTIONS = ('--dataPacketType', '--saveRankPerformanceDetails')
#: IO500 phase -> mdtest phase, per preset.
IO500_EASY_PHASES = {'write': 'create', 'stat': 'stat', 'delete': 'remove'}
IO500_HARD_PHASES = {'write': 'create', 'stat': 'stat', 'read': 'read',
                     'delete': 'remove'}


def mdtest_argv(test_dirs, *, items_per_task=None, items_per_dir=None,
                kind='both', unique_dir=False, depth=None, branching=None,
                leaf_only=False, stride=None, sync_file=False,
                sync_phases=False, pre_delay_s=None, write_bytes=None,
                read_bytes=None, verify_read=False, iterations=None,
                stonewall_s=None, stonewall_status_file=None, phases=PHASES,
                time_unique_dir=False, buffer_offset=None,
                rate_and_time=False, rank_statistics=False,
                rank_details_csv=None, data_packet_type=None, api=None,
                verbose=False, executable='mdtest'):
    """argv of one mdtest run.

    Args:
        test_dirs: ``-d``; one directory, or several (mount points of one
            file system, E3), joined with ``@``; each may start with a shell
            variable (``$SCRATCH/md``).
        items_per_task: ``-n``, files and/or directories per task.
        items_per_dir: ``-I``, items in each directory of the tree.
        kind: one of :data:`ITEM_KINDS`.
        unique_dir: ``-u``, a directory per task instead of one shared.
        depth: ``-z``, depth of the directory tree.
        branching: ``-b``, subdirectories of each tree directory.
        leaf_only: ``-L``, items only in the tree's leaves.
        stride: ``-N``, stat/read/remove the items of the task this many
            ranks away (the tasks per node defeats the client cache).
        sync_file: ``-y``, fsync each file after writing it (IOR's
            mdtest syncs only what ``-w`` writes: needs ``write_bytes``).
        sync_phases: ``-Y``, call sync after each phase (timed).
        pre_delay_s: ``-p``, seconds to wait before each iteration.
        write_bytes: ``-w``, bytes written to each file.
        read_bytes: ``-e``, bytes read from each file.
        verify_read: ``-X``, check the data read.
        iterations: ``-i``; None leaves mdtest's default (1).
        stonewall_s: ``-W``, stop creating files after N seconds.
        stonewall_status_file: ``-x``, where the create phase records how
            far the stonewall let it go, for later phases in other runs.
        phases: the phases to run (of :data:`PHASES`); all of them add no
            flag, fewer add ``-C``, ``-T``, ``-E``, ``-r``.
        time_unique_dir: ``-t``, include creating the unique directory in
            the timing.
        buffer_offset: ``-G``, data offset in the buffer (for ``-X``).
        rate_and_time: ``-P``, print the time table after the rate one.
        rank_statistics: ``--showRankStatistics`` (mdtest 4.x).
        rank_details_csv: ``--saveRankPerformanceDetails`` file (4.x).
        data_packet_type: ``--dataPacketType`` (4.x): how written data is
            generated (``timestamp``, ``offset``, ``incompressible``,
            ``random``).
        api: ``-a``, the I/O back-end; None leaves mdtest's (POSIX).
        verbose: ``-v``, per-iteration lines that the parser checks
            against the summary.
        executable: the mdtest binary.

    Returns:
        the argv list.

    Raises:
        ValueError: a combination that mdtest refuses or that measures
            nothing.
    """
    given = dict(locals())
    dirs = [test_dirs] if isinstance(test_dirs, str) else list(test_dirs)
    _validate(dirs, items_per_task, items_per_dir, kind, unique_dir, depth,
              branching, stride, read_bytes, write_bytes, verify_read,
              stonewall_s, phases, sync_file)
    return [executable] + options.words(_OPTIONS, {**given, 'dirs': dirs})


#: mdtest's options as :func:`mdtest_argv` writes them, in its argv's order.
_OPTIONS = (
    options.joined('data_packet_type', '--dataPacketType'),  # written data
    options.valued('items_per_task', '-n'),     # items per task
    options.valued('items_per_dir', '-I'),      # items per tree directory
    options.valued('depth', '-z'),              # tree depth
    options.valued('branching', '-b'),          # subdirectories per level
    options.switch('unique_dir', '-u'),         # own directory per task
    options.switch('leaf_only', '-L'),          # items in the leaves only
    options.switch('time_unique_dir', '-t'),    # time the unique dir too
    options.valued('write_bytes', '-w'),        # bytes written per file
    options.valued('read_bytes', '-e'),         # bytes read per file
    # files only (-F) or directories only (-D)
    lambda given: {'files': ['-F'], 'dirs': ['-D']}.get(given['kind'], []),
    options.switch('sync_file', '-y'),          # fsync each file written
    options.switch('rate_and_time', '-P'),      # rate and time tables
    options.valued('buffer_offset', '-G'),      # data offset, for -X
    options.valued('stride', '-N'),             # neighbour's items: no cache
    options.valued('pre_delay_s', '-p'),        # pause before iterations
    options.valued('iterations', '-i'),         # repetitions: the spread
    lambda given: ['-d', '@'.join(given['dirs'])],  # test directory(ies)
    options.valued('stonewall_status_file', '-x'),  # stonewall state file
    # a subset of the phases: a flag for each that runs
    lambda given: ([] if tuple(given['phases']) == PHASES else
                   [_PHASE_FLAGS[p] for p in PHASES if p in given['phases']]),
    options.switch('verify_read', '-X'),        # check the data read
    options.switch('sync_phases', '-Y'),        # sync after each phase
    options.valued('stonewall_s', '-W'),        # stop creating after N s
    options.joined('rank_details_csv', '--saveRankPerformanceDetails'),
    options.switch('rank_statistics', '--showRankStatistics'),  # spread too
    options.switch('verbose', '-v'),            # per-iteration lines
    options.valued('api', '-a'),                # I/O back-end
)


def _validate(dirs, items_per_task, items_per_dir, kind, unique_dir, depth,
              branching, stride, read_bytes, write_bytes, verify_read,
              stonewall_s, phases, sync_file=False):
    if kind not in ITEM_KINDS:
        raise ValueError(f'mdtest kind {kind!r}: expected one of '
                         f'{ITEM_KINDS}')
    unknown = set(phases) - set(PHASES)
    if unknown or not phases:
        raise ValueError(f'mdtest phases {tuple(phases)!r}: expected some '
                         f'of {PHASES}')
    if not (items_per_task or items_per_dir):
        # Without -n or -I mdtest runs only the tree phases and exits 0.
        raise ValueError('mdtest needs items_per_task (-n) or items_per_dir '
                         '(-I) of at least 1')
    if items_per_task and items_per_dir:
        if unique_dir:
            raise ValueError('mdtest -u takes -n or -I, not both')
        if items_per_task % items_per_dir:
            raise ValueError(f'mdtest -n {items_per_task} is not a multiple '
                             f'of -I {items_per_dir}')
    if branching is not None and not depth:
        raise ValueError('mdtest branching (-b) needs a tree depth (-z)')
    if depth and branching is not None and branching < 1:
        raise ValueError(f'mdtest branching {branching}: expected >= 1')
    if len(dirs) > 1 and not unique_dir:
        raise ValueError('several mdtest directories (-d a@b) need a '
                         'directory per task (-u)')
    if len(dirs) > 1 and stride:
        raise ValueError('mdtest cannot stride (-N) across several '
                         'directories')
    if sync_file and not write_bytes:
        # IOR's mdtest (3.3-4.x) fsyncs inside its -w write only: -y alone
        # syncs nothing and the run would pass for a synced one.
        raise ValueError('mdtest -y syncs only what -w writes: sync_file '
                         'needs write_bytes >= 1 (IOR\'s mdtest ignores -y '
                         'without -w)')
    if verify_read and ('read' not in phases or not read_bytes):
        raise ValueError('mdtest -X verifies reads: it needs the read phase '
                         'and read_bytes (-e)')
    if ('create' in phases and 'read' in phases
            and (read_bytes or 0) > (write_bytes or 0)):
        raise ValueError(f'mdtest reads {read_bytes} bytes of files it '
                         f'writes {write_bytes or 0} bytes to')
    if stonewall_s is not None:
        if 'create' not in phases or kind == 'dirs':
            raise ValueError('mdtest stonewall (-W) only stops the file '
                             'create phase')
        if (branching or 1) > 1:
            raise ValueError('mdtest stonewall (-W) needs branching <= 1')


def seed004_argv(experiment, test_dir, tasks, *, unique_dir=False,
                 items=SEED004_ITEMS, iterations=SEED004_ITERATIONS,
                 executable='mdtest'):
    """Seed 004's mdtest runs: ``E15`` (metabench's file create/stat/delete;
    ``unique_dir`` for its different-directories case), ``E16`` (mdsrate's,
    one directory), ``E17`` (directories and files, ``-y -N -p``, every
    file synced: ``-w 1``, :data:`SEED004_SYNC_WRITE_BYTES`).

    Args:
        experiment: ``'E15'``, ``'E16'`` or ``'E17'``.
        test_dir: ``-d``.
        tasks: all tasks of the run: they share ``items``.
        unique_dir: ``-u`` (E15 only).
        items: items of all tasks (the source's 304000, or a cap).
        iterations: ``-i``.
        executable: the mdtest binary.

    Returns:
        the argv list.
    """
    return mdtest_argv(test_dir, **_seed004_options(
        experiment, tasks, unique_dir, items, iterations, executable))


def seed004_steps(experiment, test_dir, tasks, *, unique_dir=False,
                  items=SEED004_ITEMS, iterations=SEED004_ITERATIONS,
                  server_cpu_command=None, executable='mdtest'):
    """The job steps of seed 004's checks: :func:`seed004_argv`'s run,
    for E15 and E16 split into one mdtest per phase, back to back (nothing
    dropped), with every node's ``/proc/stat`` sampled around each (the
    source watched its clients' CPU saturate at NP 16); E17's as one run
    (:func:`seed004_split`).  Arguments as :func:`seed004_argv`'s;
    ``server_cpu_command`` as :func:`job_steps`'s."""
    return job_steps([test_dir], _seed004_options(
        experiment, tasks, unique_dir, items, iterations, executable),
        split_phases=seed004_split(experiment),
        server_cpu_command=server_cpu_command)


def _seed004_options(experiment, tasks, unique_dir, items, iterations,
                     executable):
    if experiment not in ('E15', 'E16', 'E17'):
        raise ValueError(f'seed 004 experiment {experiment!r}: expected E15, '
                         f'E16 or E17')
    if unique_dir and experiment != 'E15':
        raise ValueError(f'{experiment} runs in one directory')
    extra = {}
    if experiment == 'E17':
        extra = dict(kind='both', stride=SEED004_STRIDE, sync_file=True,
                     write_bytes=SEED004_SYNC_WRITE_BYTES,
                     pre_delay_s=SEED004_PRE_DELAY_S)
    return dict(items_per_task=max(1, items // tasks),
                kind=extra.pop('kind', 'files'), unique_dir=unique_dir,
                iterations=iterations, phases=SEED004_PHASES,
                executable=executable, **extra)


def _io500(preset, phases, datadir, resultdir, phase, files_per_proc,
           stonewall_s, **flags):
    """What every IO500 mdtest phase shares: files only, the neighbour's
    items (-N 1), both tables (-P), the stonewall state file, the per-rank
    CSV; the write alone syncs (-Y) and is stonewalled (-W)."""
    if phase not in phases:
        raise ValueError(f'IO500 phase {phase!r}: expected one of '
                         f'{tuple(phases)}')
    step = phases[phase]
    write = step == 'create'
    return mdtest_argv(
        f'{datadir}/mdtest-{preset}', items_per_task=files_per_proc,
        kind='files', rate_and_time=True, stride=1,
        stonewall_status_file=f'{resultdir}/mdtest-{preset}.stonewall',
        phases=(step,), sync_phases=write,
        stonewall_s=stonewall_s if write else None,
        rank_details_csv=f'{resultdir}/mdtest-{preset}-{phase}.csv', **flags)


def io500_mdtest_easy_argv(datadir, resultdir, phase, *,
                           files_per_proc=IO500_FILES_PER_PROC,
                           stonewall_s=IO500_STONEWALL_S, api='POSIX',
                           buffer_offset=IO500_BUFFER_OFFSET,
                           data_packet_type=IO500_DATA_PACKET_TYPE,
                           executable='mdtest'):
    """IO500 ``mdtest-easy-write``, ``-stat``, ``-delete`` (phase
    ``'write'``, ``'stat'``, ``'delete'``).

    Empty files in a directory per task, created only at the leaves,
    stat and delete done by the neighbouring rank (``-N 1``); the write is
    stonewalled and records in ``-x`` how far it got, which the later
    phases follow.  Each phase saves its per-rank figures beside the
    results, as IO500 does.
    """
    return _io500('easy', IO500_EASY_PHASES, datadir, resultdir, phase,
                  files_per_proc, stonewall_s, unique_dir=True,
                  leaf_only=True, buffer_offset=buffer_offset,
                  data_packet_type=data_packet_type, api=api,
                  executable=executable)


def io500_mdtest_hard_argv(datadir, resultdir, phase, *,
                           files_per_proc=IO500_FILES_PER_PROC,
                           stonewall_s=IO500_STONEWALL_S, api='POSIX',
                           buffer_offset=IO500_BUFFER_OFFSET,
                           data_packet_type=IO500_DATA_PACKET_TYPE,
                           executable='mdtest'):
    """IO500 ``mdtest-hard-write``, ``-stat``, ``-read``, ``-delete``.

    3901-byte files, all tasks in one shared directory, neighbour-rank
    access (``-N 1``); the write is stonewalled (``-x`` records how far),
    the read verifies the data (``-X``).
    """
    return _io500('hard', IO500_HARD_PHASES, datadir, resultdir, phase,
                  files_per_proc, stonewall_s, time_unique_dir=True,
                  write_bytes=IO500_HARD_FILE_BYTES,
                  read_bytes=IO500_HARD_FILE_BYTES,
                  verify_read=phase == 'read', buffer_offset=buffer_offset,
                  data_packet_type=data_packet_type, api=api,
                  executable=executable)


def items_per_task(tasks, per_task, total_items=0, cap=None):
    """Items each of ``tasks`` tasks handles (``-n``).

    Args:
        tasks: all tasks of the run.
        per_task: items per task when ``total_items`` is 0.
        total_items: items of all tasks together (the sources' 304000, 500k,
            3M), shared among them; 0: ``per_task``.
        cap: the most items of all tasks together (a partition's
            ``mdtest_max_items``), or None.

    Returns:
        ``(items per task, whether the cap lowered them)``.
    """
    if total_items:
        per_task = max(1, total_items // tasks)
    if cap is not None and per_task * tasks > cap:
        return max(1, cap // tasks), True
    return per_task, False


def test_dirs(run_dir, run_name, mounts, count):
    """mdtest's ``-d`` directories: one under the run directory, or, through
    ``count`` mount points of one file system (seed 000, E3), the run
    directory seen through each mount (task i in the i-th).

    Args:
        run_dir: the run directory (through the first mount).
        run_name: its name, the same under every mount.
        mounts: the target's directory through each of its mounts, the
            first one the run directory's parent.
        count: mount points to use (1: the run directory itself).

    Returns:
        the directory list.
    """
    if count <= 1:
        return [os.path.join(run_dir, 'mdtest')]

    return [os.path.join(run_dir, 'mdtest.0')] + [
        os.path.join(mount, run_name, f'mdtest.{i}')
        for i, mount in enumerate(mounts[1:count], start=1)]


def job_steps(dirs, options, *, split_phases=False, cpu_sampling=True,
              drop_caches_command=None, server_cpu_command=None,
              remount_command=None):
    """The job steps of an mdtest check: one run, or one per phase
    (seed 000 flushed the caches after each operation), each with the
    nodes' ``/proc/stat`` sampled before and after it.

    Args:
        dirs: ``-d`` directories (:func:`test_dirs`).
        options: keyword arguments of :func:`mdtest_argv` (``phases`` and
            ``stonewall_s`` among them).
        split_phases: one mdtest run per phase.
        cpu_sampling: with ``split_phases``, the CPU samples around each.
        drop_caches_command: with ``split_phases``, the command dropping
            a node's page cache between phases (None: no drop).
        server_cpu_command: with ``split_phases`` and ``cpu_sampling``, a
            site command printing the metadata server's ``/proc/stat``
            line, sampled around each phase too (None: the clients only).
        remount_command: with ``split_phases``, the site's command that
            unmounts the target and mounts it again between phases (seed
            000), run once in the batch script before the cache drop
            (None: no remount).

    Returns:
        the :class:`pfsbench.core.jobsteps.Step` list.
    """
    if not split_phases:
        return [Step('mdtest', 'mdtest', tuple(mdtest_argv(dirs, **options)))]

    opts = dict(options)
    stonewall = opts.pop('stonewall_s', None)
    sample = tuple(procstat.sample_argv())
    server = None
    if server_cpu_command:
        server = tuple(procstat.server_sample_argv(server_cpu_command))
    steps = []
    for phase in opts.pop('phases', PHASES):
        if steps and remount_command:
            steps.append(Step(f'remount before {phase}', 'shell',
                              ('sh', '-c', remount_command), launched=False))
        if steps and drop_caches_command:
            steps.append(Step(f'drop caches before {phase}', 'shell',
                              ('sh', '-c', drop_caches_command)))
        if cpu_sampling:
            steps.append(Step(f'cpu before {phase}', 'cpu', sample))
            if server:
                steps.append(Step(f'server cpu before {phase}', 'cpu',
                                  server, launched=False))
        argv = mdtest_argv(
            dirs, phases=(phase,),
            stonewall_s=stonewall if phase == 'create' else None, **opts)
        steps.append(Step(phase, 'mdtest', tuple(argv)))
        if cpu_sampling:
            if server:
                steps.append(Step(f'server cpu after {phase}', 'cpu',
                                  server, launched=False))
            steps.append(Step(f'cpu after {phase}', 'cpu', sample))
    return steps


def between_phases(split_phases, remount_command, drop_caches_command):
    """What a job does to the client's caches between its mdtest phases, as
    its result says it (seed 000 unmounted the file system and flushed the
    caches after each operation)."""
    if not split_phases:
        return 'one mdtest run: nothing between phases'
    if remount_command:
        return ('remounted, cache dropped' if drop_caches_command else
                'remounted, cache not dropped')
    if drop_caches_command:
        return 'cache dropped, not remounted'
    return 'nothing: not remounted, cache not dropped'


def tracing_steps(run_dir, tracer_on, tracer_off, options):
    """E12's job: the tracer-on command, mdtest (``traced``), the
    tracer-off command, the same mdtest again (``untraced``), so the
    tracer is off when the job ends whatever mdtest did.

    Args:
        run_dir: the run directory (each run in its own directory).
        tracer_on, tracer_off: the site's shell commands (run once, on
            the job's first node, not launched).
        options: keyword arguments of :func:`mdtest_argv`.

    Returns:
        the :class:`pfsbench.core.jobsteps.Step` list.
    """
    def run(label):
        argv = mdtest_argv(os.path.join(run_dir, label), **options)
        return Step(label, 'mdtest', tuple(argv))

    return [Step('tracer on', 'shell', ('sh', '-c', tracer_on),
                 launched=False),
            run('traced'),
            Step('tracer off', 'shell', ('sh', '-c', tracer_off),
                 launched=False),
            run('untraced')]
