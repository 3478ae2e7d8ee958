#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""MooseFS beside ext4: the same small cases on both, figures side by side.

On the MooseFS of tests/mfs (``localslurm:mfs``) and on a loop ext4 with
three bind mounts of it (E3's stand-in), through the localslurm cluster:
dd E6 on 2 nodes, IOR 2x2 file-per-process and shared, mdtest 2x2 unique
and shared, E1 with one active core (server CPU per phase: the MooseFS
master's own, ext4's "server" is this host's kernel, so the host's CPU),
E3 through 1, 2 and 4 mounts, and E4 over MooseFS, ext4, XFS and tmpfs in
one run.  Prints one table and the machine's load average before and after.

Needs root, ``tests/localslurm/localslurm.sh up``, ``tests/mfs/mfs.sh up``
and IOR/mdtest in /opt/ior/bin.  Everything it makes (loop file systems,
bind mounts, a config copy, ReFrame's runs) is removed at the end.

Usage: python3 bench/mfs_compare.py [--ior-bin /opt/ior/bin]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, 'tests'))

import cappedfs  # noqa: E402  (loop file systems, as the tests make them)
from conftest import perflog_dicts  # noqa: E402
from test_checks_mdtest import _bind_mounts  # noqa: E402  (E3's stand-in)

MFS_TARGET = os.path.join(os.environ.get('PFSBENCH_MFS_DIR',
                                         '/var/tmp/pfsbench-mfs'),
                          'mnt', 'm1', 'scratch')


def load():
    with open('/proc/loadavg') as fp:
        return ' '.join(fp.read().split()[:3])


def config_copy(work, ext4_target, e4_targets):
    """config/ with a system ``mfscmp``: localslurm's partitions ``mfs``
    (as shipped), ``ext4`` (the loop ext4 and its binds) and ``e4`` (all
    four file systems as targets)."""
    conf = os.path.join(work, 'config')
    os.makedirs(os.path.join(conf, 'systems'))
    for name in ('settings.py', 'common.py'):
        shutil.copy(os.path.join(REPO, 'config', name), conf)
    text = open(os.path.join(REPO, 'config', 'systems',
                             'localslurm.py')).read()
    replacements = (
        (" 'name': 'localslurm',", " 'name': 'mfscmp',"),
        ("os.path.join(os.path.dirname(os.path.abspath(__file__)),\n"
         "                          '..', '..', 'tests', 'mfs', 'mfs.sh')",
         repr(os.path.join(REPO, 'tests', 'mfs', 'mfs.sh'))),
        ("] + ([_mfs_partition()] if _mfs_selected() else []),",
         "_mfs_partition(), _ext4_partition('ext4', [EXT4]), "
         "_ext4_partition('e4', E4)],"),
        ("site_configuration = {",
         f"EXT4 = {ext4_target!r}\nE4 = {e4_targets!r}\n\n\n"
         "def _ext4_partition(name, targets):\n"
         "    part = _partition('srun', 'loop file systems')\n"
         "    part['name'] = name\n"
         "    part['extras']['targets'] = targets\n"
         "    # No server: the kernel of this host is ext4's.\n"
         "    part['extras']['server_cpu_command'] = 'head -n 1 /proc/stat'\n"
         "    return part\n\n\nsite_configuration = {"),
    )
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new)
    with open(os.path.join(conf, 'systems', 'mfscmp.py'), 'w') as fp:
        fp.write(text)
    return os.path.join(conf, 'settings.py')


def reframe(config, runs, partition, args, env):
    argv = [os.path.join(REPO, '.venv', 'bin', 'reframe'), '-C', config,
            '--system', f'mfscmp:{partition}', '-c',
            os.path.join(REPO, 'reframe-checks'), '-R', *args, '-r']
    print('+', ' '.join(argv), flush=True)
    proc = subprocess.run(argv, cwd=REPO, env=dict(env, PFSBENCH_RUNS=runs),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    if proc.returncode != 0:
        print(proc.stdout[-3000:])


def records(runs, partition, test):
    return perflog_dicts(runs, 'mfscmp', partition, test)


#: (test, what identifies a case, figures) of the table.
ROWS = (
    ('dd_stream_per_node', (), ('write_bw', 'read_bw')),
    ('ior_bandwidth', ('access',), ('write_bw', 'read_bw')),
    ('mdtest_metadata_rates', ('access',),
     ('file_create', 'file_stat', 'file_remove')),
    ('mdtest_e1_core_scaling', (),
     ('file_create', 'file_remove', 'create_server_cpu_util',
      'remove_server_cpu_util')),
    ('mdtest_e3_mount_points', ('mount_points_used',),
     ('file_create', 'file_remove', 'create_server_cpu_util')),
)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--ior-bin', default='/opt/ior/bin')
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit('mfs_compare: needs root (loop file systems, bind mounts)')
    for script in ('localslurm/localslurm.sh', 'mfs/mfs.sh'):
        if subprocess.run(['bash', os.path.join(REPO, 'tests', script),
                           'status'], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0:
            sys.exit(f'mfs_compare: tests/{script} is not up')

    env = dict(os.environ)
    out = subprocess.run(['bash', os.path.join(REPO, 'tests', 'localslurm',
                                               'localslurm.sh'), 'env'],
                         stdout=subprocess.PIPE, universal_newlines=True,
                         check=True).stdout
    for line in out.splitlines():
        key, _, value = line[len('export '):].partition('=')
        env[key] = value
    env['PATH'] = f'{args.ior_bin}:{env["PATH"]}'
    print(f'load before: {load()}', flush=True)
    work = tempfile.mkdtemp(prefix='pfsbench-mfscmp-', dir='/var/tmp')
    try:
        with cappedfs.loop_fs('cmp-ext4', size='2G') as ext4, \
                cappedfs.loop_fs('cmp-xfs', mkfs=('mkfs.xfs', '-q', '-f')) \
                as xfs, \
                _bind_mounts(ext4['mnt'], 3) as binds:
            tmpfs = os.path.join(work, 'tmpfs')
            os.mkdir(tmpfs)
            subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=512m',
                            'tmpfs', tmpfs], check=True)
            try:
                os.chmod(tmpfs, 0o777)
                e4 = [{'name': 'mfs', 'path': MFS_TARGET,
                       'fstype': 'moosefs'},
                      {'name': 'ext4', 'path': ext4['mnt']},
                      {'name': 'xfs', 'path': xfs['mnt']},
                      {'name': 'tmpfs', 'path': tmpfs}]
                config = config_copy(
                    work, {'name': 'ext4', 'path': ext4['mnt'],
                           'mount_points': binds}, e4)
                runs = os.path.join(work, 'runs')
                small = ['-S', 'total_items=2000', '-S', 'iterations=1']
                for part in ('mfs', 'ext4'):
                    reframe(config, runs, part,
                            ['-n', 'dd_stream_per_node', '-P', 'nodes=2',
                             '-n', 'ior_bandwidth', '-P', 'api=POSIX',
                             '-P', 'access=fpp,shared', '-P', 'scale=2x2',
                             '-P', 'transfer_size=1m'], env)
                    reframe(config, runs, part,
                            ['-n', 'mdtest_metadata_rates', '-P', 'nodes=2',
                             '-P', 'tasks_per_node=2', '-P', 'kind=files'],
                            env)
                    reframe(config, runs, part,
                            ['-n', 'mdtest_e1_core_scaling',
                             '-P', 'active_cores=1', *small], env)
                    reframe(config, runs, part,
                            ['-n', 'mdtest_e3_mount_points',
                             '-P', 'mounts=1,2,4', '-S', 'active_cores=2',
                             *small], env)
                reframe(config, runs, 'e4',
                        ['-n', 'mdtest_e4_targets', '-P', 'active_cores=1',
                         *small], env)
                print(f'load after: {load()}\n')
                report(runs)
            finally:
                subprocess.run(['umount', tmpfs])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(runs):
    print('| case | figure | MooseFS | ext4 |')
    print('|---|---|---|---|')
    for test, keys, figures in ROWS:
        by_part = {p: {tuple(r.get(k) for k in keys): r
                       for r in records(runs, p, test)}
                   for p in ('mfs', 'ext4')}
        for case in sorted(set(by_part['mfs']) | set(by_part['ext4']),
                           key=str):
            label = ' '.join([test] + [str(c) for c in case])
            for figure in figures:
                cells = []
                for part in ('mfs', 'ext4'):
                    value = by_part[part].get(case, {}).get(figure)
                    cells.append('-' if value is None else f'{value:.4g}')
                print(f'| {label} | {figure} | {" | ".join(cells)} |')
    print('\nE4 (one run, mdtest -F -u create/remove, 2 processes):')
    for record in records(runs, 'e4', 'mdtest_e4_targets'):
        print(f"  {record['target_name']}: file_create "
              f"{record.get('file_create', 0):.0f}/s, file_remove "
              f"{record.get('file_remove', 0):.0f}/s, contended "
              f"{record['contended']}")


if __name__ == '__main__':
    main()
