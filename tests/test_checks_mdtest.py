# SPDX-License-Identifier: BSD-3-Clause
"""The mdtest families run through the real ``reframe`` command.

Dry runs render the job scripts of the example systems modelled on seed 000
(one 4-socket, 48-core server, 24 Lustre mounts) and seed 004 (70 clients x
16 cores) and compare them with the sources' command lines, bindings, ``-d``
lists and task counts; with a real mdtest (``/opt/ior/bin/mdtest`` or
``mdtest`` on PATH) the quick cases run on ``local`` and, marked ``slurm``,
on 2 nodes of the localhost Slurm cluster.
"""

import contextlib
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile

import pytest

import cappedfs
from conftest import CHECKS, CONFIG, FIXTURES, perflog_dicts, run_reframe
from pfsbench.commands import mdtest, tracers
from pfsbench.core import jobsteps
from pfsbench.parsers import mdtest as mdtest_parser
from test_checks_ior import (_job_scripts, _launched, _perf, _perflog,
                             idle_slurm)
from test_gate_slurm_e2e import _pfsbench
from test_spack_built import HASH_A, HASH_B, _lock
from tool_builds import pfind

MDTEST_CHECKS = str(CHECKS / 'mdtest')
#: pfind for IO500's find phase (tests/tool_builds.py says where).
PFIND = pfind()
MDTEST_BINARY = next((p for p in ('/opt/ior/bin/mdtest',
                                  shutil.which('mdtest'))
                      if p and os.access(p, os.X_OK)), None)
needs_mdtest = pytest.mark.skipif(
    MDTEST_BINARY is None,
    reason='no mdtest binary (/opt/ior/bin/mdtest or mdtest on PATH); build '
           'IOR with Spack, see docs/spack.md')
#: The fixtures' mdtest runs (real outputs, tests/data/fixtures/mdtest).
FOUR_TASK_RUN = FIXTURES / 'mdtest' / 'n100-N4x1-tmpfs.txt'

# idle_slurm is a fixture: imported so that pytest finds it here.
assert idle_slurm


def _dry_run(tmp_path, system, test, *options, scripts=True):
    """Job scripts of a dry run of ``test`` on ``system`` (a
    ``system:partition``), and reframe's output."""
    proc = run_reframe(['--system', system, '-c', MDTEST_CHECKS, '-n', test,
                        *options, '--dry-run'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    if not scripts:
        return [], proc.stdout

    name, partition = system.split(':')
    return _job_scripts(tmp_path, name, partition, test), proc.stdout


def _sbatch(script, option):
    m = re.search(rf'^#SBATCH --{option}=(\S+)$', script, re.M)
    return m and m.group(1)


def _mdtest_argv(line):
    """The mdtest words of a launched line (after ``srun [options]``)."""
    words = shlex.split(line)
    start = next(i for i, w in enumerate(words)
                 if os.path.basename(w) == 'mdtest')
    return words[:start], words[start:]


def _flag(argv, flag):
    return argv[argv.index(flag) + 1]


def test_listing(tmp_path):
    proc = run_reframe(['-c', MDTEST_CHECKS, '-l'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    for name in ('mdtest_metadata_rates %kind=dirs %access=shared %nodes=4 '
                 '%tasks_per_node=16',
                 'mdtest_e1_core_scaling %active_cores=48',
                 'mdtest_e2_socket_binding %sockets=3',
                 'mdtest_e3_mount_points %mounts=24',
                 'mdtest_e4_targets %target_index=0 %active_cores=12',
                 'mdtest_e15_metabench_standin %clients=multi %np=63 '
                 '%directory=same',
                 'mdtest_e16_mdsrate_standin %clients=single %np=64',
                 'mdtest_e17_stride_sync %clients=multi %np=16',
                 'mdtest_io500_phases %nodes=8 %tasks_per_node=12'):
        assert name in proc.stdout, name


# Seed 000 (E1-E4) -----------------------------------------------------------

#: The drop-caches helper example_seed000 declares (a user cannot write
#: /proc/sys/vm/drop_caches).
SEED000_DROP = 'sudo -n /usr/local/sbin/drop-caches'


def _create_remove(script, remount=None,
                   drop_command='sync && echo 3 > /proc/sys/vm/drop_caches',
                   disk=None):
    """The create and remove mdtest lines of a split-phase job, checking
    the remount (where ``remount`` is the target's command) and the cache
    drop (``drop_command``, the partition's) between them, the CPU
    samples around each and, inside them, the block-device samples
    (``disk``: ``'disk'`` the client's, ``'server disk'`` the site
    command's; None: not checked)."""
    steps = re.findall(r"^echo 'pfsbench-step: begin (.+)'$", script, re.M)
    if disk is not None:
        assert [s for s in steps if 'disk ' in s] == [
            f'{disk} {when} {phase}' for phase in ('create', 'remove')
            for when in ('before', 'after')]
        for phase in ('create', 'remove'):
            at = steps.index(phase)
            assert steps[at - 1:at + 2] == [f'{disk} before {phase}', phase,
                                            f'{disk} after {phase}']
    steps = [s for s in steps if 'disk ' not in s]
    assert steps == ['cpu before create', 'create', 'cpu after create'] + \
        (['remount before remove'] if remount else []) + \
        ['drop caches before remove', 'cpu before remove', 'remove',
         'cpu after remove']
    if remount:
        # Once, in the batch script (not on every task), after the create.
        lines = script.splitlines()
        at = lines.index("echo 'pfsbench-step: begin remount before remove'")
        assert shlex.split(lines[at + 1]) == ['sh', '-c', remount]
        assert at > lines.index("echo 'pfsbench-step: begin create'")
    launched = _launched(script)
    assert all('pfsbench-cpu $(hostname) $(head -n 1 /proc/stat)' in line
               for line in launched[0::4] + launched[2::4])
    create, drop, remove = launched[1], launched[3], launched[5]
    assert drop_command in drop
    return create, remove


def test_seed000_e1_binds_two_processes_per_active_core(tmp_path):
    scripts, _ = _dry_run(tmp_path, 'example_seed000:mds',
                          'mdtest_e1_core_scaling', '-P',
                          'active_cores=6,48')
    seen = set()
    for script in scripts:
        tasks = int(_sbatch(script, 'ntasks'))
        cores = tasks // 2
        seen.add(cores)
        # The last --nodes is the one sbatch keeps: E1 overcommits the MDS
        # node by its own hook, which leaves ReFrame's --nodes=<tasks>
        # before it (only seed 004's clients write theirs alone).
        assert re.findall(r'^#SBATCH --nodes=(\d+)$', script, re.M)[-1] == '1'
        assert len(re.findall(r'^#SBATCH --ntasks=', script, re.M)) == 1
        # 96 tasks on 48 CPUs need --overcommit; 12 on 48 do not.
        assert ('#SBATCH --overcommit' in script) == (cores == 48)
        # Slurm 22.05 refuses --ntasks-per-node above the CPUs even with
        # --overcommit: --nodes and --ntasks say it, as E15-E17.
        assert (_sbatch(script, 'ntasks-per-node') is None) == (cores == 48)
        create, remove = _create_remove(
            script, remount='sudo -n /usr/local/sbin/pfs-remount lustre',
            drop_command=SEED000_DROP, disk='server disk')
        launcher, argv = _mdtest_argv(create)
        cpus = ','.join(str(c) for c in range(cores))
        assert launcher == ['srun', f'--cpu-bind=map_cpu:{cpus}']
        # 500,000 files among all tasks, private directories, files only,
        # one create round, through 6 of the 24 mounts.
        dirs = _flag(argv, '-d').split('@')
        assert len(dirs) == 6
        run = os.path.basename(os.path.dirname(dirs[0]))
        assert dirs == [f'/mnt/lustre_{i + 1}/pfsbench/{run}/mdtest.{i}'
                        for i in range(6)]
        assert argv == mdtest.mdtest_argv(
            dirs, items_per_task=500000 // tasks, kind='files',
            unique_dir=True, iterations=1, phases=('create',),
            executable='/opt/pfsbench/view/bin/mdtest')
        assert _mdtest_argv(remove)[1] == argv[:-1] + ['-r']
        assert script.splitlines()[-1] == f'rm -rf /mnt/lustre_1/pfsbench/' \
                                          f'{run}'
    assert seen == {6, 48}


def test_seed000_e2_groups_twelve_processes_per_socket(tmp_path):
    scripts, _ = _dry_run(tmp_path, 'example_seed000:mds',
                          'mdtest_e2_socket_binding')
    per_socket = set()
    for script in scripts:
        assert _sbatch(script, 'ntasks') == '12'
        n = _sbatch(script, 'ntasks-per-socket')
        per_socket.add(int(n))
        create, _ = _create_remove(
            script, remount='sudo -n /usr/local/sbin/pfs-remount lustre',
            drop_command=SEED000_DROP)
        launcher, argv = _mdtest_argv(create)
        assert launcher == ['srun', f'--ntasks-per-socket={n}',
                            '--distribution=block:block',
                            '--cpu-bind=sockets']
        assert len(_flag(argv, '-d').split('@')) == 12
    # 1, 2, 3, 4 sockets of 12 cores.
    assert per_socket == {12, 6, 4, 3}


def test_seed000_e3_spreads_over_the_mount_points(tmp_path):
    scripts, _ = _dry_run(tmp_path, 'example_seed000:mds',
                          'mdtest_e3_mount_points')
    counts = set()
    for script in scripts:
        assert _sbatch(script, 'ntasks') == '24'
        create, _ = _create_remove(
            script, remount='sudo -n /usr/local/sbin/pfs-remount lustre',
            drop_command=SEED000_DROP)
        launcher, argv = _mdtest_argv(create)
        assert launcher == ['srun', '--cpu-bind=map_cpu:' +
                            ','.join(str(c) for c in range(12))]
        dirs = _flag(argv, '-d').split('@')
        counts.add(len(dirs))
        assert [d.split('/')[2] for d in dirs] == [
            f'lustre_{i + 1}' for i in range(len(dirs))]
    assert counts == {1, 2, 6, 12, 24}


def test_seed000_e4_runs_every_target(tmp_path):
    scripts, out = _dry_run(tmp_path, 'example_seed000:mds',
                            'mdtest_e4_targets', '-P', 'active_cores=12')
    assert 'Ran 4/8 test case(s)' in out
    assert 'example_seed000:mds has 4 target(s)' in out
    files = {}
    for script in scripts:
        launched = _launched(script)
        argv = _mdtest_argv(launched[1])[1]
        dirs = _flag(argv, '-d').split('@')
        target = re.match(r'/mnt/(\w+)_1/', dirs[0]).group(1)
        create, remove = _create_remove(
            script, remount=f'sudo -n /usr/local/sbin/pfs-remount {target}',
            drop_command=SEED000_DROP,
            disk='server disk' if target.startswith('lustre') else 'disk')
        assert _mdtest_argv(create)[1] == argv
        _device_samples(script, target)
        # Through six mounts of every target, as the source's figures say.
        assert [d.split('/')[2] for d in dirs] == [
            f'{target}_{i + 1}' for i in range(6)]
        # One create round; 24 tasks share the file system's files.
        assert _flag(argv, '-i') == '1'
        assert _flag(_mdtest_argv(remove)[1], '-n') == _flag(argv, '-n')
        files[target] = int(_flag(argv, '-n'))
    # 500k on Lustre, 3M on ext4 and XFS (the source's method slide).
    assert files == {'lustre': 500000 // 24, 'lustre_ramdisk': 500000 // 24,
                     'ext4': 3000000 // 24, 'xfs': 3000000 // 24}


def _device_samples(script, target):
    """Checks that each device sample of ``script`` (E1's workload on
    example_seed000's ``target``) runs once in the batch script, on the
    MDT's device for a Lustre target (its device_stats_command), on the
    target's own directory for ext4 and XFS."""
    lines = script.splitlines()
    begins = [i for i, ln in enumerate(lines)
              if re.match(r"echo 'pfsbench-step: begin (server )?disk ", ln)]
    assert len(begins) == 4
    for at in begins:
        argv = shlex.split(lines[at + 1])
        assert argv[:2] == ['sh', '-c']     # not launched: once, not by srun
        if target.startswith('lustre'):
            mdt = {'lustre': 'sdb', 'lustre_ramdisk': 'ram0'}[target]
            assert argv[2] == (
                'echo "pfsbench-disk server $(cut -d \' \' -f 1 /proc/uptime)'
                f' -"; sh -c \'grep -w {mdt} /proc/diskstats\'; echo '
                '"pfsbench-disk-exit $?"')
        else:
            assert argv[2] == (
                'echo "pfsbench-disk $(hostname) $(cut -d \' \' -f 1 '
                '/proc/uptime) $(stat -L -c %d -- '
                f'/mnt/{target}_1/pfsbench 2>/dev/null || echo -)"; '
                'cat /proc/diskstats')


def test_mount_points_beyond_the_target_are_skipped(tmp_path):
    _, out = _dry_run(tmp_path, 'localslurm:srun', 'mdtest_e3_mount_points',
                      '-P', 'mounts=2', scripts=False)
    assert '1 skipped' in out
    assert 'has 1 mount point(s)' in out


# Seed 004 (E15-E17) ---------------------------------------------------------

def _seed004_mdtest_lines(script):
    """The create, stat and remove mdtest lines of a seed-004 job, checking
    that each phase runs back to back (nothing dropped) with the nodes'
    CPU sampled around it."""
    steps = re.findall(r"^echo 'pfsbench-step: begin (.+)'$", script, re.M)
    assert steps == [f'{when} {phase}' if when else phase
                     for phase in ('create', 'stat', 'remove')
                     for when in ('cpu before', '', 'cpu after')]
    launched = _launched(script)
    assert all('pfsbench-cpu $(hostname) $(head -n 1 /proc/stat)' in line
               for line in launched[0::3] + launched[2::3])
    return launched[1::3]


def _seed004_one_run(script):
    """E17's one mdtest line (create, stat and remove in one run, as the
    source's), with nothing sampled around it."""
    steps = re.findall(r"^echo 'pfsbench-step: begin (.+)'$", script, re.M)
    assert steps == ['mdtest']
    (line,) = _launched(script)
    return line


def test_seed004_multi_client_layout(tmp_path):
    scripts, _ = _dry_run(tmp_path, 'example_seed004:clients',
                          'mdtest_e15_metabench_standin',
                          '-P', 'clients=multi', '-P', 'np=15')
    by_dir = {}
    for script in scripts:
        # NP is the run's: 15 processes, one on each of 15 clients;
        # 304,000 files shared.
        assert (_sbatch(script, 'nodes'), _sbatch(script, 'ntasks'),
                _sbatch(script, 'ntasks-per-node')) == ('15', '15', '1')
        lines = _seed004_mdtest_lines(script)
        whole = mdtest.seed004_argv(
            'E15', _flag(_mdtest_argv(lines[0])[1], '-d'), 15,
            unique_dir='-u' in lines[0],
            executable='/opt/pfsbench/view/bin/mdtest')
        for line, flag in zip(lines, ('-C', '-T', '-r')):
            _, argv = _mdtest_argv(line)
            by_dir['-u' in argv] = argv
            assert _flag(argv, '-n') == str(304000 // 15)
            assert argv == whole[:-3] + [flag] and '-F' in argv
    assert set(by_dir) == {True, False}


def test_seed004_e17_np_is_the_runs_processes(tmp_path):
    # The example: NP 16 on 70 clients is 16 tasks on 16 nodes,
    # 19,000 items each; NP 1 is one task, as on one client.
    scripts, _ = _dry_run(tmp_path, 'example_seed004:clients',
                          'mdtest_e17_stride_sync', '-P', 'clients=multi',
                          '-P', 'np=1,16,64')
    shapes = set()
    for script in scripts:
        shape = (_sbatch(script, 'nodes'), _sbatch(script, 'ntasks'),
                 _sbatch(script, 'ntasks-per-node'))
        shapes.add(shape)
        line = _seed004_one_run(script)
        assert _flag(_mdtest_argv(line)[1], '-n') == \
            str(304000 // int(shape[1]))
    assert shapes == {('1', '1', '1'), ('16', '16', '1'), ('64', '64', '1')}


def test_seed004_e17_stride_pause_sync(tmp_path):
    scripts, _ = _dry_run(tmp_path, 'example_seed004:clients',
                          'mdtest_e17_stride_sync', '-P', 'clients=single',
                          '-P', 'np=16')
    (script,) = scripts
    assert (_sbatch(script, 'nodes'), _sbatch(script, 'ntasks')) == \
        ('1', '16')
    launcher, argv = _mdtest_argv(_seed004_one_run(script))
    assert launcher == ['srun']
    # The builder pfsbench render uses too: 304000 items over 16 tasks,
    # create, stat and remove in one run (directories, then files, as the
    # source's mdtest: never both in the tree), one pass.
    whole = mdtest.seed004_argv('E17', _flag(argv, '-d'), 16,
                                executable='/opt/pfsbench/view/bin/mdtest')
    assert argv == whole and argv[-3:] == ['-C', '-T', '-r']
    assert _flag(argv, '-n') == '19000' and _flag(argv, '-i') == '1'
    # -w 1: IOR's mdtest syncs (-y) only what it writes.
    assert ['-w', '1', '-y', '-N', '1', '-p', '1'] == argv[3:10]


def test_seed004_np_beyond_the_clients_cores_overcommits(tmp_path):
    # Seed 004's single client had 16 cores and ran NP 32 and 64 on it:
    # Slurm refuses more tasks than a node's CPUs without --overcommit.
    scripts, _ = _dry_run(tmp_path, 'example_seed004:clients',
                          'mdtest_e1[5-7]', '-P', 'clients=single')
    assert len(scripts) == 6 * 2 + 7 + 7
    over = set()
    for script in scripts:
        tasks = int(_sbatch(script, 'ntasks'))
        # One --nodes and one --ntasks: no line of ReFrame's for a later
        # one to override.
        assert re.findall(r'^#SBATCH --nodes=(\d+)$', script, re.M) == ['1']
        assert len(re.findall(r'^#SBATCH --ntasks=', script, re.M)) == 1
        assert ('#SBATCH --overcommit' in script) == (tasks > 16), tasks
        # Slurm 22.05 refuses --ntasks-per-node above the CPUs even with
        # --overcommit (localslurm): --nodes and --ntasks say it.
        assert (_sbatch(script, 'ntasks-per-node') is None) == (tasks > 16)
        over.add(tasks > 16)
    assert over == {True, False}


def test_seed004_e17_np64_on_one_client_says_its_nodes_once(tmp_path):
    # NP 64 on one 16-core client: ReFrame's use_nodes_option would write
    # --nodes=64 (no tasks per node) before the job's --nodes=1.
    report = tmp_path / 'report.json'
    (script,), _ = _dry_run(tmp_path, 'example_seed004:clients',
                            'mdtest_e17_stride_sync', '-P', 'clients=single',
                            '-P', 'np=64', '--report-file', str(report))
    assert re.findall(r'^#SBATCH --nodes=(\S+)$', script, re.M) == ['1']
    assert re.findall(r'^#SBATCH --ntasks=(\S+)$', script, re.M) == ['64']
    assert '#SBATCH --overcommit' in script
    assert _sbatch(script, 'ntasks-per-node') is None
    # The case's task count is the run's again once the job is written:
    # sanity, the figures and the perflog read it.
    (case,) = json.loads(report.read_text())['runs'][0]['testcases']
    assert (case['num_tasks'], case['nodes'], case['tasks_per_node']) == \
        (64, 1, 64)


def test_seed004_overcommit_keeps_the_count_a_launcher_spells(tmp_path):
    # NP 8 on one 4-CPU localslurm node: srun takes the count from the job
    # (one --nodes, one --ntasks); mpirun -np N needs ReFrame's num_tasks,
    # so there ReFrame's --nodes=8 stays and the job's later one overrides.
    config = _localslurm_with_targets(tmp_path / 'config', [])
    proc = run_reframe(['--system', 'e4slurm', '-c', MDTEST_CHECKS, '-n',
                        'mdtest_e17_stride_sync', '-P', 'clients=single',
                        '-P', 'np=8', '--dry-run'],
                       tmp_path / 'runs', config=config)
    assert proc.returncode == 0, proc.stdout
    (srun_job,) = _job_scripts(tmp_path / 'runs', 'e4slurm', 'srun',
                               'mdtest_e17_stride_sync')
    (mpirun_job,) = _job_scripts(tmp_path / 'runs', 'e4slurm', 'mpirun',
                                 'mdtest_e17_stride_sync')
    for script in (srun_job, mpirun_job):
        assert '#SBATCH --overcommit' in script.splitlines()
        assert re.findall(r'^#SBATCH --ntasks=(\S+)$', script, re.M) == ['8']
    assert re.findall(r'^#SBATCH --nodes=(\S+)$', srun_job, re.M) == ['1']
    assert re.findall(r'^#SBATCH --nodes=(\S+)$', mpirun_job, re.M) == \
        ['8', '1']
    assert _launched(srun_job)[0].startswith('srun mdtest ')
    assert _launched(mpirun_job, 'mpirun')[0].startswith('mpirun -np 8 ')


def test_seed004_is_capped_on_a_small_partition(tmp_path):
    scripts, out = _dry_run(tmp_path, 'localslurm:srun',
                            'mdtest_e16_mdsrate_standin', '-P',
                            'clients=multi', '-P', 'np=4,64')
    shapes = {}
    for script in scripts:
        shape = (_sbatch(script, 'nodes'), _sbatch(script, 'ntasks'),
                 _sbatch(script, 'ntasks-per-node'))
        create = _seed004_mdtest_lines(script)[0]
        shapes[shape] = int(_flag(_mdtest_argv(create)[1], '-n'))
    # NP 4: one per client; NP 64: 16 on each of the 4 nodes (max_nodes),
    # said; mdtest_max_items caps the items at 20000.
    assert shapes == {('4', '4', '1'): 5000, ('4', '64', '16'): 20000 // 64}
    assert 'localslurm:srun has 4 node(s): NP 64 runs 16 per node on 4, ' \
           'not one per client (seed 004)' in out
    assert 'NP 4 runs' not in out


def test_seed004_layout_keeps_np_exact():
    # A capped NP that the nodes do not divide goes evenly on fewer nodes:
    # Slurm places equal counts per node.
    assert mdtest.seed004_layout('multi', 63, max_nodes=4) == (3, 21, True)
    assert mdtest.seed004_layout('multi', 7, max_nodes=4) == (1, 7, True)
    assert mdtest.seed004_layout('multi', 63) == (63, 1, False)
    assert mdtest.seed004_layout('multi', 64, max_nodes=70) == (64, 1, False)
    # Fewer clients asked for (-S multi_clients=32): not the partition's cap.
    assert mdtest.seed004_layout('multi', 64, multi_clients=32) == \
        (32, 2, False)
    assert mdtest.seed004_layout('single', 64, max_nodes=4) == (1, 64, False)
    with pytest.raises(ValueError, match="clients 'both'"):
        mdtest.seed004_layout('both', 4)


# Real runs ------------------------------------------------------------------

@needs_mdtest
def test_metadata_rates_on_local(tmp_path):
    proc = run_reframe(['-c', MDTEST_CHECKS, '-n', 'mdtest_metadata_rates',
                        '-P', 'nodes=1', '-P', 'tasks_per_node=1',
                        '-S', 'items_per_task=100', '-S', 'iterations=2',
                        '-S', f'mdtest_binary={MDTEST_BINARY}', '-r'],
                       tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert 'Ran 6/6 test case(s)' in proc.stdout
    header, records = _perflog(tmp_path, 'local', 'default',
                               'mdtest_metadata_rates')
    assert '|iterations|' in header and '|items_run_per_task|' in header
    for record in records:
        kind = re.search(r'%kind=(\w+)', record).group(1)
        phases = {'files': ['file_create', 'file_stat', 'file_read',
                            'file_remove'],
                  'dirs': ['dir_create', 'dir_stat', 'dir_remove']}
        phases['both'] = phases['dirs'] + phases['files']
        for phase in phases[kind]:
            top = _perf(record, phase)[0]
            mean = _perf(record, f'{phase}_mean')[0]
            low = _perf(record, f'{phase}_min')[0]
            assert 0 < low <= mean <= top
            assert _perf(record, f'{phase}_stddev')[0] >= 0
        absent = set(phases['both']) - set(phases[kind])
        assert not any(f'|{p}=' in record for p in absent)
        print(f'{kind}: ' + ' '.join(f'{p}={_perf(record, p)[0]}'
                                     for p in phases[kind]))
    # Each job removed the tree it made.
    assert not glob.glob(f'{tmp_path}/stage/**/pfsbench-*', recursive=True)


@needs_mdtest
def test_split_phases_on_local(tmp_path):
    proc = run_reframe(['-c', MDTEST_CHECKS, '-n',
                        'mdtest_e17_stride_sync', '-P', 'clients=single',
                        '-P', 'np=1', '-S', 'total_items=200',
                        '-S', 'pre_delay_s=0', '-S', 'split_phases=true',
                        '-S', f'mdtest_binary={MDTEST_BINARY}', '-r'],
                       tmp_path)
    assert proc.returncode == 0, proc.stdout
    (script,) = _job_scripts(tmp_path, 'local', 'default',
                             'mdtest_e17_stride_sync')
    order = re.findall(r"^echo 'pfsbench-step: begin (.+)'", script, re.M)
    assert order == ['cpu before create', 'create', 'cpu after create',
                     'cpu before stat', 'stat', 'cpu after stat',
                     'cpu before remove', 'remove', 'cpu after remove']
    _, (record,) = _perflog(tmp_path, 'local', 'default',
                            'mdtest_e17_stride_sync')
    for phase in ('dir_create', 'dir_stat', 'dir_remove', 'file_create',
                  'file_stat', 'file_remove'):
        assert _perf(record, phase)[0] > 0
    # The client's CPU utilisation during each phase, beside its rates.
    for phase in ('create', 'stat', 'remove'):
        assert 0 <= _perf(record, f'{phase}_cpu_util')[0] <= 100
    assert '|read_cpu_util=' not in record


@needs_mdtest
@pytest.mark.slurm
def test_e17_syncs_every_file_with_np_beyond_the_nodes_cpus(idle_slurm,
                                                           tmp_path):
    # Seed 004's E17 ran mdtest -y: every created file synced.  strace
    # counts each task's fsync calls: one per file created (IOR's mdtest
    # syncs only what -w writes; the old -y alone made 0).  NP 8 on one
    # localslurm node of 4 CPUs: Slurm refuses it without --overcommit.
    if shutil.which('strace') is None:
        pytest.skip('strace not found (Debian: apt-get install strace)')
    traces = tmp_path / 'traces'
    traces.mkdir()
    wrapper = tmp_path / 'mdtest'
    wrapper.write_text(f'#!/bin/sh\nexec strace -f -qq -c -e trace=fsync '
                       f'-o {traces}/fsync.$$ {MDTEST_BINARY} "$@"\n')
    wrapper.chmod(0o755)
    # localslurm with its nodes described as slurm.conf has them (4 CPUs).
    config = _localslurm_with_targets(tmp_path / 'config', [])
    proc = run_reframe(['--system', 'e4slurm:srun', '-c', MDTEST_CHECKS,
                        '-n', 'mdtest_e17_stride_sync', '-P',
                        'clients=single', '-P', 'np=8',
                        '-S', 'total_items=80', '-S', 'pre_delay_s=0',
                        '-S', f'mdtest_binary={wrapper}', '-r'],
                       tmp_path / 'runs', env=idle_slurm, config=config)
    assert proc.returncode == 0, proc.stdout
    (script,) = _job_scripts(tmp_path / 'runs', 'e4slurm', 'srun',
                             'mdtest_e17_stride_sync')
    assert '#SBATCH --overcommit' in script.splitlines()
    assert _sbatch(script, 'ntasks') == '8'
    assert re.findall(r'^#SBATCH --nodes=(\d+)$', script, re.M) == ['1']
    counts = []
    for path in traces.iterdir():
        found = re.search(r'^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?'
                          r'fsync$', path.read_text(), re.M)
        counts.append(int(found.group(1)) if found else 0)
    # 80 items over 8 tasks: 10 files each, each synced once.
    assert sorted(counts) == [10] * 8, counts
    _, (record,) = _perflog(tmp_path / 'runs', 'e4slurm', 'srun',
                            'mdtest_e17_stride_sync')
    assert _perf(record, 'file_create')[0] > 0


def _local_system(config, name, extras):
    """A copy of config/ in ``config`` with ``name``: this host as one
    local-launcher partition with ``extras`` (and the small mdtest cap).

    Returns:
        the copy's settings.py.
    """
    (config / 'systems').mkdir(parents=True)
    shutil.copy(CONFIG, config / 'settings.py')
    shutil.copy(CONFIG.parent / 'common.py', config / 'common.py')
    system = {'name': name, 'descr': 'this host', 'hostnames': ['^never$'],
              'modules_system': 'nomod',
              'partitions': [{'name': 'default', 'descr': 'this host',
                              'scheduler': 'local', 'launcher': 'local',
                              'environs': ['builtin'], 'features': ['pfs'],
                              'extras': {'max_nodes': 1,
                                         'mdtest_max_items': 2000,
                                         **extras}}]}
    (config / 'systems' / f'{name}.py').write_text(
        f'site_configuration = {{"systems": [{system!r}]}}\n')
    return config / 'settings.py'


@needs_mdtest
def test_server_cpu_from_the_partitions_command(tmp_path):
    # This host stands in for the metadata server: the site command prints
    # its /proc/stat line, once per sample, not on every node.
    config = _local_system(tmp_path / 'config', 'serverlocal', {
        'server_cpu_command': 'head -n 1 /proc/stat'})
    proc = run_reframe(['--system', 'serverlocal', '-c', MDTEST_CHECKS,
                        '-n', 'mdtest_metadata_rates', '-P', 'kind=files',
                        '-P', 'access=unique', '-P', 'nodes=1',
                        '-P', 'tasks_per_node=1', '-S', 'items_per_task=500',
                        '-S', 'iterations=2', '-S', 'split_phases=true',
                        '-S', 'md_phases=create,remove',
                        '-S', f'mdtest_binary={MDTEST_BINARY}', '-r'],
                       tmp_path / 'runs', config=config)
    assert proc.returncode == 0, proc.stdout
    (script,) = _job_scripts(tmp_path / 'runs', 'serverlocal', 'default',
                             'mdtest_metadata_rates')
    order = re.findall(r"^echo 'pfsbench-step: begin (.+)'", script, re.M)
    assert order == ['cpu before create', 'server cpu before create',
                     'create', 'server cpu after create', 'cpu after create',
                     'cpu before remove', 'server cpu before remove',
                     'remove', 'server cpu after remove', 'cpu after remove']
    assert 'sh -c \'echo "pfsbench-cpu server $(head -n 1 /proc/stat)"\'' \
        in script.splitlines()
    _, (record,) = _perflog(tmp_path / 'runs', 'serverlocal', 'default',
                            'mdtest_metadata_rates')
    for phase in ('create', 'remove'):
        assert 0 < _perf(record, f'{phase}_server_cpu_util')[0] <= 100
        assert 0 < _perf(record, f'{phase}_cpu_util')[0] <= 100
    assert '|stat_server_cpu_util=' not in record


def _io500_phases_1x1(runs, stonewall_s, items_per_task):
    """One 1 x 1 mdtest_io500_phases on local (or skip without pfind):
    its perflog record; the case must pass."""
    if PFIND is None:
        pytest.skip('no pfind (PFSBENCH_PFIND, PATH, /opt/io500/bin): '
                    "IO500's find phase needs it; spack install io500")
    proc = run_reframe(['-c', MDTEST_CHECKS, '-n', 'mdtest_io500_phases',
                        '-P', 'nodes=1', '-P', 'tasks_per_node=1',
                        '-S', f'stonewall_s={stonewall_s}',
                        '-S', f'items_per_task={items_per_task}',
                        '-S', f'mdtest_binary={MDTEST_BINARY}',
                        '-S', f'pfind_binary={PFIND}', '-r'],
                       runs)
    assert proc.returncode == 0, proc.stdout
    (record,) = perflog_dicts(runs, 'local', 'default',
                              'mdtest_io500_phases')
    return record


@needs_mdtest
def test_io500_write_shorter_than_the_stonewall_is_invalid(tmp_path):
    # 2000 files per task end before a 30 s stonewall: IO500's rule (the
    # one io500_suite_run follows) makes the phases invalid, and the case
    # passes, scored, saying why, as io500 does.
    record = _io500_phases_1x1(tmp_path, 30, 2000)
    assert record['io500_valid'] == 'false', record
    invalid = record['io500_invalid'].split('; ')
    assert invalid[0] == "stonewall_s: 30 s, not the list's 300 s", invalid
    for phase in ('mdtest-easy-write', 'mdtest-hard-write'):
        assert any(re.fullmatch(rf'{phase}: ran [\d.]+ s, below the '
                                rf'stonewall of 30 s', why)
                   for why in invalid), invalid
    assert len(invalid) == 3, invalid
    assert record['io500_md'] > 0, record
    (script,) = _job_scripts(tmp_path, 'local', 'default',
                             'mdtest_io500_phases')
    order = re.findall(r"^echo 'pfsbench-step: begin (\S+)'", script, re.M)
    # IO500's order (src/phase-definitions.h): timestamp after
    # mdtest-easy-write, find after mdtest-hard-write.
    assert order == ['mkdir', 'mdtest-easy-write', 'timestamp',
                     'mdtest-hard-write', 'find', 'mdtest-easy-stat',
                     'mdtest-hard-stat', 'mdtest-easy-delete',
                     'mdtest-hard-read', 'mdtest-hard-delete']
    assert any(ln.startswith(f'{PFIND} ') and ln.endswith(' -D rates')
               for ln in script.splitlines()), script
    assert not glob.glob(f'{tmp_path}/stage/**/pfsbench-*', recursive=True)


@needs_mdtest
def test_io500_find_that_finds_nothing_is_invalid_not_failed(tmp_path):
    # Nine files per task: no mdtest-hard file is named *01*, so find finds
    # none.  io500 (src/phase_find.c: "Find didn't find anything, this is
    # likely invalid") marks the phase invalid and goes on, as
    # io500_suite_run does: the case passes, scored, saying why.
    record = _io500_phases_1x1(tmp_path, 1, 9)
    assert record['io500_valid'] == 'false', record
    invalid = record['io500_invalid'].split('; ')
    assert 'find: it found no file' in invalid, invalid
    assert record['find'] > 0 and record['io500_md'] > 0, record


@needs_mdtest
def test_io500_phases_without_pfind_skip_naming_it(tmp_path):
    proc = run_reframe(['-c', MDTEST_CHECKS, '-n', 'mdtest_io500_phases',
                        '-P', 'nodes=1', '-P', 'tasks_per_node=1',
                        '-S', f'mdtest_binary={MDTEST_BINARY}',
                        '-S', 'pfind_binary=/nonexistent/pfind', '-r'],
                       tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert '1 skipped' in proc.stdout
    assert ("no pfind binary (/nonexistent/pfind: no such file or "
            "directory): IO500's find phase runs it" in proc.stdout)


@needs_mdtest
def test_io500_phases_refuse_a_pfind_of_another_build_than_the_lock(
        tmp_path):
    # pfind comes from the view, out of an io500 prefix other than the one
    # spack.lock names: the view is older than the lock, and the results
    # would name a build that did not run.  The case stops before its job
    # is written, as for the check's own tool (mdtest here explicit).
    prefix = tmp_path / 'opt' / f'io500-2025.10-{HASH_A}' / 'bin'
    prefix.mkdir(parents=True)
    (prefix / 'pfind').write_text('#!/bin/sh\nexit 1\n')
    (prefix / 'pfind').chmod(0o755)
    view_bin = tmp_path / 'view' / 'bin'
    view_bin.mkdir(parents=True)
    (view_bin / 'pfind').symlink_to(prefix / 'pfind')
    _lock(tmp_path / 'env', {'ior': HASH_A, 'io500': HASH_B})
    proc = run_reframe(['-c', MDTEST_CHECKS, '-n', 'mdtest_io500_phases',
                        '-P', 'nodes=1', '-P', 'tasks_per_node=1',
                        '-S', 'stonewall_s=5', '-S', 'items_per_task=100',
                        '-S', f'mdtest_binary={MDTEST_BINARY}', '-r'],
                       tmp_path / 'runs',
                       env={'PFSBENCH_SPACK_ENV': str(tmp_path / 'env'),
                            'PFSBENCH_SPACK_VIEW': str(tmp_path / 'view')})
    assert proc.returncode != 0, proc.stdout
    assert (f'local:default: extras.spack_view: {view_bin / "pfind"}'
            in proc.stdout), proc.stdout
    assert (f'not the locked io500@4.0.0/{HASH_B[:7]}: the view is older '
            f'than spack.lock' in proc.stdout), proc.stdout
    assert not glob.glob(f'{tmp_path}/runs/stage/**/rfm_job.sh',
                         recursive=True)



def test_task_count_mdtest_saw_must_be_the_jobs(tmp_path):
    # A stand-in binary replays a real 4-task mdtest output (a launcher
    # that started a job of the wrong size) into a 1-task job.
    fake = tmp_path / 'mdtest'
    fake.write_text(f'#!/bin/sh\ncat {FOUR_TASK_RUN}\n')
    fake.chmod(0o755)
    proc = run_reframe(['-c', MDTEST_CHECKS, '-n', 'mdtest_metadata_rates',
                        '-P', 'kind=both', '-P', 'access=unique',
                        '-P', 'nodes=1', '-P', 'tasks_per_node=1',
                        '-S', f'mdtest_binary={fake}', '-r'],
                       tmp_path / 'runs')
    assert proc.returncode != 0
    assert "Reason: sanity error: step 'mdtest': mdtest ran with 4 " \
           "task(s), the job started 1: the local launcher did not start " \
           "one MPI job (SLURM_MPI_TYPE=unset" in proc.stdout, proc.stdout


@needs_mdtest
@pytest.mark.slurm
def test_two_nodes_one_two_four_tasks_through_slurm(idle_slurm, tmp_path):
    # Each phase its own mdtest with the nodes' CPU sampled around it, on
    # a loop ext4 (this VM's root disk swings 30x within minutes).
    with cappedfs.loop_fs('sweep-ext4') as ext4:
        proc = run_reframe(['--system', 'localslurm:srun',
                            '-c', MDTEST_CHECKS,
                            '-n', 'mdtest_metadata_rates', '-P', 'kind=both',
                            '-P', 'access=unique,shared', '-P', 'nodes=2',
                            '-P', 'tasks_per_node=1,2,4',
                            '-S', 'items_per_task=100', '-S', 'iterations=2',
                            '-S', 'split_phases=true',
                            '-S', f'mdtest_binary={MDTEST_BINARY}', '-r'],
                           tmp_path,
                           env=dict(idle_slurm, PFSBENCH_SCRATCH=ext4['mnt']))
        assert os.listdir(ext4['mnt']) in ([], ['lost+found'])
    assert proc.returncode == 0, proc.stdout
    assert 'Ran 6/6 test case(s)' in proc.stdout
    for out in glob.glob(f'{tmp_path}/output/localslurm/srun/builtin/'
                         f'mdtest_metadata_rates_*/rfm_job.out'):
        text = open(out).read()
        tasks = int(re.search(r'launched with (\d+) total task\(s\) on 2 '
                              r'node\(s\)', text).group(1))
        assert f'{tasks} tasks, {tasks * 100} files/directories' in text
    _, records = _perflog(tmp_path, 'localslurm', 'srun',
                          'mdtest_metadata_rates')
    assert len(records) == 6
    for record in records:
        case = re.search(r'%access=\w+ %nodes=2 %tasks_per_node=\d', record)
        figures = {p: _perf(record, p)[0] for p in
                   ('dir_create', 'dir_stat', 'dir_remove', 'file_create',
                    'file_stat', 'file_read', 'file_remove',
                    'create_cpu_util', 'stat_cpu_util', 'read_cpu_util',
                    'remove_cpu_util')}
        assert all(v > 0 for v in figures.values()), record
        print(case.group(0), ' '.join(f'{p}={v:.6g}' for p, v in
                                      figures.items()))

    # The session's sweeps (2, 4, 8 tasks) in the gate's report.
    db = str(tmp_path / 'results.db')
    code, _, err = _pfsbench(['baseline', 'record', 'sweep', '--db', db])
    assert code == 0, err
    code, out, err = _pfsbench(['gate', '-b', 'sweep', '--db', db,
                                '--json', str(tmp_path / 'gate.json')])
    assert 'error' not in err, err
    record = json.loads((tmp_path / 'gate.json').read_text())
    contended = record['contended_samples'] + \
        record['baseline']['contended_samples']
    if contended:
        # Contended cases are left out of sweeps as of verdicts.
        pytest.skip(f'foreign load during the run ({len(contended)} '
                    f'contended sample(s)): run this test alone')
    print(out[out.index('scaling sweeps'):])
    sweeps = [s for s in record['sweeps']
              if s['check'] == 'mdtest_metadata_rates']
    # 2 layouts x 7 phases, each over tasks_per_node at 2 nodes.
    assert len(sweeps) == 14
    for sweep in sweeps:
        assert sweep['swept'] == 'tasks_per_node'
        assert sweep['fixed']['nodes'] == '2'
        assert [s['processes'] for s in sweep['steps']] == [2, 4, 8]
        assert sweep['saturation']['processes'] in (2, 4, 8)
        assert all(s['cpu_util_pct'] > 0 for s in sweep['steps'])
    code, page, err = _pfsbench(['report', str(tmp_path / 'gate.json'),
                                 '--format', 'html'])
    assert page.count('class="saturation"') == 14, err


# E12 (seed 003): a tracer from the partition's config ----------------------

def _has_tracefs():
    with open('/proc/filesystems') as fp:
        return any(line.split()[-1:] == ['tracefs'] for line in fp)


@needs_mdtest
@pytest.mark.slurm
@pytest.mark.skipif(os.geteuid() != 0 or not _has_tracefs(),
                    reason='localslurm declares its ftrace tracer as root '
                           'on a kernel with tracefs only')
def test_e12_with_ftrace_on_localslurm(idle_slurm, tmp_path):
    # localslurm declares seed 003's ftrace tracer (syscall events of
    # create, open, link, unlink, readdir, getattr, setattr: this kernel
    # refuses the function tracer): E12 runs out of the box.
    with cappedfs.loop_fs('e12-ext4') as ext4:
        proc = run_reframe(['--system', 'localslurm:srun',
                            '-c', MDTEST_CHECKS,
                            '-n', 'mdtest_e12_tracing_overhead',
                            '-P', 'tasks_per_node=1',
                            '-S', 'items_per_task=500',
                            '-S', 'iterations=2',
                            '-S', f'mdtest_binary={MDTEST_BINARY}', '-r'],
                           tmp_path,
                           env=dict(idle_slurm, PFSBENCH_SCRATCH=ext4['mnt']))
        assert os.listdir(ext4['mnt']) in ([], ['lost+found'])
    assert proc.returncode == 0, proc.stdout
    # One tracer declared: tracers 1..3 skip.
    assert 'Ran 1/4 test case(s)' in proc.stdout, proc.stdout
    (script,) = _job_scripts(tmp_path, 'localslurm', 'srun',
                             'mdtest_e12_tracing_overhead')
    tracer = tracers.ftrace_syscalls()
    assert shlex.join(['sh', '-c', tracer['on']]) in script
    (out,) = glob.glob(f'{tmp_path}/output/localslurm/srun/builtin/'
                       f'mdtest_e12_*/rfm_job.out')
    steps = jobsteps.split(open(out).read())
    # The tracer recorded the calls while on, and its instance is gone.
    events = re.search(r'pfsbench-tracer: (\d+) events',
                       steps.text('tracer off'))
    assert events and int(events.group(1)) > 0, steps.text('tracer off')
    assert not glob.glob(f'{tracers.TRACEFS}/instances/pfsbench-e12-*')
    _, (record,) = _perflog(tmp_path, 'localslurm', 'srun',
                            'mdtest_e12_tracing_overhead')
    assert '|ftrace_syscalls|' in record
    for phase in ('file_create', 'file_stat', 'file_remove'):
        # Below 100 %: the traced run's rate was there and positive (how
        # much below is this loaded host's noise plus the tracer's cost).
        overhead = _perf(record, f'{phase}_overhead_pct')[0]
        assert overhead is not None and overhead < 100
        print(phase, f'overhead {overhead:.1f} %')


@needs_mdtest
def test_tracing_overhead_with_the_partitions_tracer(tmp_path):
    log = tmp_path / 'tracer.log'
    config = _local_system(tmp_path / 'config', 'tracerlocal', {
        'tracers': [{'name': 'marker', 'on': f'echo on >> {log}',
                     'off': f'echo off >> {log}'}]})
    proc = run_reframe(['--system', 'tracerlocal', '-c', MDTEST_CHECKS,
                        '-n', 'mdtest_e12_tracing_overhead',
                        '-P', 'tasks_per_node=1', '-S', 'items_per_task=200',
                        '-S', 'iterations=2',
                        '-S', f'mdtest_binary={MDTEST_BINARY}', '-r'],
                       tmp_path / 'runs', config=config)
    assert proc.returncode == 0, proc.stdout
    # Tracers 1..3 do not exist on this partition.
    assert 'Ran 1/4 test case(s)' in proc.stdout
    assert 'tracerlocal:default has 1 tracer(s)' in proc.stdout
    # On before the traced run, off before the untraced one and at the end.
    assert log.read_text().split() == ['on', 'off']
    (script,) = _job_scripts(tmp_path / 'runs', 'tracerlocal', 'default',
                             'mdtest_e12_tracing_overhead')
    order = re.findall(r"^echo 'pfsbench-step: begin (.+)'$", script, re.M)
    assert order == ['tracer on', 'traced', 'tracer off', 'untraced']
    _, (record,) = _perflog(tmp_path / 'runs', 'tracerlocal', 'default',
                            'mdtest_e12_tracing_overhead')
    assert '|marker|' in record
    (out,) = glob.glob(f'{tmp_path}/runs/output/tracerlocal/default/'
                       f'builtin/mdtest_e12_*/rfm_job.out')
    steps = jobsteps.split(open(out).read())
    traced, untraced = (mdtest_parser.parse(steps.text(label), label)
                        for label in ('traced', 'untraced'))
    for phase in ('dir_create', 'dir_stat', 'dir_remove', 'file_create',
                  'file_stat', 'file_remove'):
        # The case's rates are the untraced run's; the overhead compares
        # the two runs' means.
        untraced_mean = untraced.summary(phase).mean_ops_per_s
        traced_mean = traced.summary(phase).mean_ops_per_s
        assert _perf(record, f'{phase}_mean')[0] == untraced_mean
        assert _perf(record, f'{phase}_overhead_pct')[0] == pytest.approx(
            (untraced_mean - traced_mean) / untraced_mean * 100)
    assert '|file_read' not in record


# E13 (seed 003): mds-survey on a metadata server ---------------------------

MDS_SYSTEM = '''
site_configuration = {'systems': [{
    'name': 'fakemds', 'descr': 'local host posing as a Lustre MDS',
    'hostnames': ['^never$'], 'modules_system': 'nomod',
    'partitions': [{'name': 'default', 'descr': 'this host',
                    'scheduler': 'local', 'launcher': 'local',
                    'environs': ['builtin'],
                    'features': ['pfs', 'lustre_mds'],
                    'extras': {'max_nodes': 1}}]}]}
'''
#: lustre-iokit's README.mds-survey sample (tests/data/mds-survey/
#: SOURCES.md): create and destroy at 4 threads.
README_SURVEY = CONFIG.parents[1] / 'tests' / 'data' / 'mds-survey' / \
    'readme-mds-survey.txt'


def test_mds_survey_dry_run_on_the_mds(tmp_path):
    _dry_run(tmp_path, 'example_seed000:mds', 'mds_survey_rates',
             '-S', 'threads_high=32', scripts=False)
    (path,) = glob.glob(f'{tmp_path}/stage/example_seed000/mds/builtin/'
                        f'mds_survey_rates/rfm_job.sh')
    script = open(path).read()
    lines = script.splitlines()
    for line in ('export thrlo=1', 'export thrhi=32',
                 'export file_count=100000', 'export dir_count=4',
                 'export tests_str="create lookup md_getattr setxattr '
                 'destroy"', 'srun /opt/pfsbench/view/bin/mds-survey'):
        assert line in lines, script
    # Only MDS partitions run it.
    proc = run_reframe(['-c', MDTEST_CHECKS, '-n', 'mds_survey_rates',
                        '-l'], tmp_path / 'local')
    assert 'Found 0 check(s)' in proc.stdout


def test_mds_survey_figures_are_the_best_of_the_sweep(tmp_path):
    # A stand-in replays the sample Lustre publishes (a create and destroy
    # survey at 4 threads): the figures are its rates.
    config = tmp_path / 'config'
    (config / 'systems').mkdir(parents=True)
    shutil.copy(CONFIG, config / 'settings.py')
    shutil.copy(CONFIG.parent / 'common.py', config / 'common.py')
    (config / 'systems' / 'fakemds.py').write_text(MDS_SYSTEM)
    fake = tmp_path / 'mds-survey'
    fake.write_text(f'#!/bin/sh\ncat {README_SURVEY}\n')
    fake.chmod(0o755)
    proc = run_reframe(['--system', 'fakemds', '-c', MDTEST_CHECKS,
                        '-n', 'mds_survey_rates',
                        '-S', 'survey_tests=create,destroy',
                        '-S', f'tool_binary={fake}', '-r'],
                       tmp_path / 'runs', config=config / 'settings.py')
    assert proc.returncode == 0, proc.stdout
    _, (record,) = _perflog(tmp_path / 'runs', 'fakemds', 'default',
                            'mds_survey_rates')
    assert _perf(record, 'create')[0] == 5652.05
    assert _perf(record, 'destroy')[0] == 5797.79
    assert '|lookup=' not in record


# E4 (seed 000) on the localhost Slurm cluster: ext4, XFS and tmpfs ---------

@contextlib.contextmanager
def _tmpfs(size='256m'):
    work = tempfile.mkdtemp(prefix='pfsbench-tmpfs-', dir='/var/tmp')
    os.chmod(work, 0o755)
    proc = subprocess.run(['mount', '-t', 'tmpfs', '-o', f'size={size}',
                           'tmpfs', work], stderr=subprocess.PIPE,
                          universal_newlines=True)
    if proc.returncode != 0:
        os.rmdir(work)
        pytest.skip(f'cannot mount a tmpfs: {proc.stderr.strip()}')
    try:
        os.chmod(work, 0o777)
        yield work
    finally:
        subprocess.run(['umount', work])
        os.rmdir(work)


def _localslurm_with_targets(config_dir, targets, processor=None):
    """A copy of config/ whose ``e4slurm`` system is localslurm with
    ``targets`` and a described node (E4 binds to cores; default 4 CPUs)."""
    systems = config_dir / 'systems'
    systems.mkdir(parents=True)
    shutil.copy(CONFIG, config_dir / 'settings.py')
    shutil.copy(CONFIG.parent / 'common.py', config_dir / 'common.py')
    text = (CONFIG.parent / 'systems' / 'localslurm.py').read_text()
    for old, new in ((" 'name': 'localslurm',", " 'name': 'e4slurm',"),
                     ('    **environment_extras(),\n',
                      f'    "targets": {targets!r},\n'),
                     ("        'max_jobs': 1,\n",
                      "        'max_jobs': 1,\n"
                      "        'processor': "
                      f"{processor or {'num_cpus': 4}!r},\n")):
        assert old in text, old
        text = text.replace(old, new)
    (systems / 'e4slurm.py').write_text(text)
    return config_dir / 'settings.py'


@needs_mdtest
@pytest.mark.slurm
def test_e4_compares_ext4_xfs_and_tmpfs_in_one_run(idle_slurm, tmp_path):
    if shutil.which('mkfs.xfs') is None:
        pytest.skip('mkfs.xfs not found (Debian: apt-get install xfsprogs)')
    with cappedfs.loop_fs('e4-ext4') as ext4, \
            cappedfs.loop_fs('e4-xfs', mkfs=('mkfs.xfs', '-q', '-f')) as xfs, \
            _tmpfs() as tmpfs:
        targets = [{'name': 'ext4', 'path': ext4['mnt']},
                   {'name': 'xfs', 'path': xfs['mnt']},
                   {'name': 'tmpfs', 'path': tmpfs}]
        config = _localslurm_with_targets(tmp_path / 'config', targets)
        # One active core, two processes (the source's 2 per core).
        proc = run_reframe(['--system', 'e4slurm:srun', '-c', MDTEST_CHECKS,
                            '-n', 'mdtest_e4_targets',
                            '-P', 'active_cores=1', '-S', 'total_items=2000',
                            '-S', 'iterations=2',
                            '-S', f'mdtest_binary={MDTEST_BINARY}', '-r'],
                           tmp_path / 'runs', env=idle_slurm, config=config)
        assert proc.returncode == 0, proc.stdout
        assert 'Ran 3/8 test case(s)' in proc.stdout
        _, records = _perflog(tmp_path / 'runs', 'e4slurm', 'srun',
                              'mdtest_e4_targets')
        rates = {}
        for record in records:
            fstype = re.search(r'\|(ext4|xfs|tmpfs)\|', record).group(1)
            rates[fstype] = (_perf(record, 'file_create')[0],
                             _perf(record, 'file_remove')[0],
                             _perf(record, 'create_cpu_util')[0])
            assert all(v > 0 for v in rates[fstype]), record
        assert set(rates) == {'ext4', 'xfs', 'tmpfs'}
        # A tmpfs has no block device and no command names one: no
        # device figure, and the reason beside the rates.
        for record in records:
            on_tmpfs = '|tmpfs|' in record
            assert ('create_device_util=' in record) != on_tmpfs, record
            assert ('|absent: the target (tmpfs) has no block device on '
                    'the client' in record) == on_tmpfs, record
        for fstype, (create, remove, cpu) in sorted(rates.items()):
            print(f'{fstype}: file_create={create} file_remove={remove} '
                  f'ops/s, create_cpu_util={cpu:.0f} %')
        for root in (ext4['mnt'], xfs['mnt'], tmpfs):
            assert os.listdir(root) in ([], ['lost+found']), root


def _host_sockets():
    """Sockets of this host (its CPUs' physical package ids)."""
    ids = {open(p).read().strip() for p in glob.glob(
        '/sys/devices/system/cpu/cpu[0-9]*/topology/physical_package_id')}
    return len(ids) or 1


@contextlib.contextmanager
def _bind_mounts(source, count):
    """``count`` bind mounts of ``source``: one file system through several
    mount points (E3's stand-in)."""
    work = tempfile.mkdtemp(prefix='pfsbench-binds-', dir='/var/tmp')
    os.chmod(work, 0o755)
    mounts = []
    try:
        for i in range(count):
            path = os.path.join(work, f'mp{i}')
            os.mkdir(path)
            proc = subprocess.run(['mount', '--bind', source, path],
                                  stderr=subprocess.PIPE,
                                  universal_newlines=True)
            if proc.returncode != 0:
                pytest.skip(f'cannot bind-mount: {proc.stderr.strip()}')
            mounts.append(path)
        yield mounts
    finally:
        for path in mounts:
            subprocess.run(['umount', path])
        shutil.rmtree(work)


@needs_mdtest
@pytest.mark.slurm
def test_seed000_e1_to_e3_at_this_hosts_scale(idle_slurm, tmp_path):
    # E1 and E3 as far as one node of this host goes: processes = 2 x
    # active cores on 1..all cores, the binding per socket over the
    # sockets there are, 4 processes through 1, 2 and 4 bind mounts of
    # one ext4.
    cores, sockets = os.cpu_count(), _host_sockets()
    with cappedfs.loop_fs('e3-ext4') as ext4, \
            _bind_mounts(ext4['mnt'], 3) as binds:
        targets = [{'name': 'ext4', 'path': ext4['mnt'],
                    'mount_points': binds}]
        config = _localslurm_with_targets(
            tmp_path / 'config', targets,
            {'num_cpus': cores, 'num_sockets': sockets,
             'num_cpus_per_socket': cores // sockets})
        common = ['--system', 'e4slurm:srun', '-c', MDTEST_CHECKS,
                  '-S', 'total_items=2000', '-S', 'iterations=2',
                  '-S', f'mdtest_binary={MDTEST_BINARY}', '-r']
        # -P makes E3's active_cores a parameter too: E3 runs apart.
        proc = run_reframe(common + ['-n', 'mdtest_e1_core_scaling',
                                     '-n', 'mdtest_e2_socket_binding',
                                     '-P', f'active_cores=1,{min(cores, 2)}'],
                           tmp_path / 'runs', env=idle_slurm, config=config)
        assert proc.returncode == 0, proc.stdout
        e3 = run_reframe(common + ['-n', 'mdtest_e3_mount_points',
                                   '-P', 'mounts=1,2,4',
                                   '-S', 'active_cores=2'],
                         tmp_path / 'runs', env=idle_slurm, config=config)
        assert e3.returncode == 0, e3.stdout
        assert 'Ran 3/3 test case(s)' in e3.stdout, e3.stdout
        for root in [ext4['mnt']] + binds:
            assert os.listdir(root) in ([], ['lost+found']), root
    if sockets == 1:
        assert 'e4slurm:srun has 1 socket: E2 compares the same processes ' \
               'grouped on 1..S sockets, which needs 2 or more' in proc.stdout
        assert 'Ran 2/6 test case(s)' in proc.stdout, proc.stdout
    runs = tmp_path / 'runs'
    counts = set()
    for script in _job_scripts(runs, 'e4slurm', 'srun',
                               'mdtest_e3_mount_points'):
        create, _ = _create_remove(script, disk='disk')
        _, argv = _mdtest_argv(create)
        dirs = _flag(argv, '-d').split('@')
        assert _sbatch(script, 'ntasks') == '4'
        counts.add(len(dirs))
        if len(dirs) > 1:
            # Each task's directory through its own mount point.
            assert [os.path.dirname(os.path.dirname(d)) for d in dirs] == \
                [ext4['mnt']] + binds[:len(dirs) - 1]
    assert counts == {1, 2, 4}
    for test in ('mdtest_e1_core_scaling', 'mdtest_e3_mount_points'):
        _, records = _perflog(runs, 'e4slurm', 'srun', test)
        assert len(records) == {'mdtest_e1_core_scaling': 2,
                                'mdtest_e3_mount_points': 3}[test]
        for record in records:
            case = re.search(r'%(active_cores|mounts)=\d+', record).group(0)
            figures = {p: _perf(record, p)[0] for p in
                       ('file_create', 'file_remove', 'create_cpu_util',
                        'remove_cpu_util')}
            assert all(v > 0 for v in figures.values()), record
            print(test, case, ' '.join(f'{p}={v:.6g}' for p, v in
                                       figures.items()))


@needs_mdtest
@pytest.mark.slurm
def test_seed000_e1_remounts_between_create_and_unlink(idle_slurm, tmp_path):
    # Seed 000 unmounted the file system after each operation: an ext4
    # image on a loop device, its target's remount command run by the job
    # between the create and the unlink, which must find every file.
    with cappedfs.loop_fs('e1-remount') as ext4:
        log = os.path.join(ext4['work'], 'remounts')
        remount = (f'umount {ext4["mnt"]} && mount {ext4["loop"]} '
                   f'{ext4["mnt"]} && grep -c " {ext4["mnt"]} " '
                   f'/proc/self/mountinfo >> {log}')
        targets = [{'name': 'ext4', 'path': ext4['mnt'], 'fstype': 'ext4',
                    'remount': remount}]
        config = _localslurm_with_targets(tmp_path / 'config', targets)
        proc = run_reframe(['--system', 'e4slurm:srun', '-c', MDTEST_CHECKS,
                            '-n', 'mdtest_e1_core_scaling',
                            '-P', 'active_cores=1', '-S', 'total_items=2000',
                            '-S', f'mdtest_binary={MDTEST_BINARY}', '-r'],
                           tmp_path / 'runs', env=idle_slurm, config=config)
        assert proc.returncode == 0, proc.stdout
        # Once, and the file system was mounted once afterwards.
        with open(log) as fp:
            assert fp.read() == '1\n'
        assert os.listdir(ext4['mnt']) == ['lost+found']
    runs = tmp_path / 'runs'
    (script,) = _job_scripts(runs, 'e4slurm', 'srun', 'mdtest_e1_core_scaling')
    create, remove = _create_remove(script, remount=remount, disk='disk')
    # One create round of 1000 files per task, the unlink of the same.
    for line in (create, remove):
        argv = _mdtest_argv(line)[1]
        assert (_flag(argv, '-i'), _flag(argv, '-n')) == ('1', '1000')
    (out,) = glob.glob(f'{runs}/output/e4slurm/srun/builtin/'
                       f'mdtest_e1_core_scaling*/rfm_job.out')
    exits = jobsteps.split(open(out).read()).exits
    assert exits['remount before remove'] == 0
    removed = mdtest_parser.parse(jobsteps.split(open(out).read())
                                  .text('remove'))
    assert removed.summary('file_remove').max_ops_per_s > 0
    _, (record,) = _perflog(runs, 'e4slurm', 'srun', 'mdtest_e1_core_scaling')
    assert '|remounted, cache dropped|' in record or \
        '|remounted, cache not dropped|' in record
    print(record)


@needs_mdtest
@pytest.mark.slurm
def test_seed000_e1_device_utilisation_on_a_loop_ext4(idle_slurm, tmp_path):
    # Seed 000's "block device utilization" beside each rate: E1 at one
    # active core on an ext4 image on a loop device, every created file
    # written and fsynced (-w 1 -y) so that the create phase reaches the
    # device; the figures are iostat's, from the job's own samples.
    with cappedfs.loop_fs('e1-device') as ext4:
        loop = os.path.basename(ext4['loop'])
        # The server hook too, as a site's command for its MDT would print
        # (this host stands in for the server: the same device).
        server = f"grep -w {loop} /proc/diskstats | sed 's/^/srv1: /'"
        targets = [{'name': 'ext4', 'path': ext4['mnt'], 'fstype': 'ext4',
                    'device_stats_command': server}]
        config = _localslurm_with_targets(tmp_path / 'config', targets)
        proc = run_reframe(['--system', 'e4slurm:srun', '-c', MDTEST_CHECKS,
                            '-n', 'mdtest_e1_core_scaling',
                            '-P', 'active_cores=1', '-S', 'total_items=400',
                            '-S', 'sync_file=true', '-S', 'write_bytes=1',
                            '-S', f'mdtest_binary={MDTEST_BINARY}', '-r'],
                           tmp_path / 'runs', env=idle_slurm, config=config)
        assert proc.returncode == 0, proc.stdout
    runs = tmp_path / 'runs'
    (script,) = _job_scripts(runs, 'e4slurm', 'srun', 'mdtest_e1_core_scaling')
    _create_remove(script)
    _, (record,) = _perflog(runs, 'e4slurm', 'srun', 'mdtest_e1_core_scaling')
    figures = {name: _perf(record, name)[0] for name in (
        'create_device_util', 'create_device_write_mib_s',
        'create_device_iops', 'create_device_await', 'remove_device_util',
        'create_device_read_mib_s', 'create_server_device_util',
        'create_server_device_write_mib_s', 'file_create')}
    print(' '.join(f'{n}={v:.4g}' for n, v in figures.items()))
    # 400 files, each fsynced: the device had I/O in flight, not always.
    assert 0 < figures['create_device_util'] <= 100
    assert figures['create_device_write_mib_s'] > 0
    assert figures['create_device_iops'] > 0
    assert figures['create_device_await'] > 0
    assert 0 <= figures['remove_device_util'] <= 100
    # The server hook's samples, a few ms from the client's, of the same
    # device: the same figures within the samples' granularity.
    assert 0 < figures['create_server_device_util'] <= 100
    assert abs(figures['create_server_device_util'] -
               figures['create_device_util']) < 5
    assert figures['create_server_device_write_mib_s'] > 0
    # What was measured, on the loop device of the target.
    stats = re.search(r'\|(create device: [^|]*)\|', record).group(1)
    print(stats)
    assert stats.startswith(f'create device: {loop} util=')
    assert f'; create server_device: {loop} util=' in stats
    assert f'; remove device: {loop} util=' in stats


@needs_mdtest
@pytest.mark.slurm
def test_seed004_client_cpu_per_phase_through_slurm(idle_slurm, tmp_path):
    # NP 2 on one client and spread over two: the clients' CPU during each
    # phase beside its rates, the busiest node's too.
    proc = run_reframe(['--system', 'localslurm:srun', '-c', MDTEST_CHECKS,
                        '-n', 'mdtest_e16_mdsrate_standin', '-P', 'np=2',
                        '-S', 'total_items=400', '-S', 'iterations=1',
                        '-S', f'mdtest_binary={MDTEST_BINARY}', '-r'],
                       tmp_path, env=idle_slurm)
    assert proc.returncode == 0, proc.stdout
    assert 'Ran 2/2 test case(s)' in proc.stdout, proc.stdout
    shapes = set()
    for script in _job_scripts(tmp_path, 'localslurm', 'srun',
                               'mdtest_e16_mdsrate_standin'):
        shapes.add((_sbatch(script, 'nodes'), _sbatch(script, 'ntasks')))
        _seed004_mdtest_lines(script)
    assert shapes == {('1', '2'), ('2', '2')}
    _, records = _perflog(tmp_path, 'localslurm', 'srun',
                          'mdtest_e16_mdsrate_standin')
    assert len(records) == 2
    for record in records:
        for phase in ('create', 'stat', 'remove'):
            mean = _perf(record, f'{phase}_cpu_util')[0]
            busiest = _perf(record, f'{phase}_cpu_util_max')[0]
            assert 0 <= mean <= busiest <= 100, record
            assert _perf(record, f'file_{phase}')[0] > 0
        assert '|read_cpu_util' not in record
        assert '|nothing: not remounted, cache not dropped|' in record
        print(record)
