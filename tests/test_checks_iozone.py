# SPDX-License-Identifier: BSD-3-Clause
"""The iozone throughput families (E8, E10) through the real ``reframe``
command: a dry run of seed 001's scale, the skip without iozone, a quick
run on ``local`` and one throughput group per node on 2 nodes of the
localhost Slurm cluster (with /opt/iozone/bin/iozone, or iozone on PATH).
Every case prints the reframe command it ran.
"""

import glob
import os
import shlex
import shutil

import pytest

from conftest import (CHECKS, job_script, launch_phases, perf_value, perflog,
                      run_reframe)
from pfsbench.parsers import iozone as iozone_output
from pfsbench.parsers import streams

IOZONE_DIR = str(CHECKS / 'iozone')
BUILT = '/opt/iozone/bin/iozone'
IOZONE = BUILT if os.access(BUILT, os.X_OK) else shutil.which('iozone')
needs_iozone = pytest.mark.skipif(
    IOZONE is None,
    reason=f'no iozone at {BUILT} or on PATH (not in Debian main: build it '
           f'with Spack, see docs/checks-iozone.md)')
#: Small runs: 8 MiB per process, the write and read sub-tests only.
SMALL = ['-S', 'file_size_kib=8192', '-S', 'iozone_tests=write,read',
         '-S', f'tool_binary={IOZONE}']


def test_listing_and_quick_tag(tmp_path):
    proc = run_reframe(['-c', IOZONE_DIR, '-l', '-t', 'quick'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert 'iozone_one_node %processes=2' in proc.stdout
    assert 'Found 2 check(s)' in proc.stdout


def test_dry_run_at_64_nodes_runs_one_group_per_node(tmp_path):
    proc = run_reframe(['--system', 'example_lustre', '-c', IOZONE_DIR,
                        '-n', 'iozone_per_node', '-P', 'nodes=64',
                        '--dry-run'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    script = job_script(tmp_path, 'example_lustre', 'compute',
                        'iozone_per_node')
    assert '#SBATCH --nodes=64' in script.splitlines()
    assert '#SBATCH --ntasks-per-node=1' in script.splitlines()
    ((name, command),), _ = launch_phases(script)
    iozone = shlex.split(command)
    assert name == 'iozone' and iozone[0].endswith('iozone')
    # Seed 001, E10: iozone -s 2500000 -r 1024 -I -c -o -l 12 -u 12 -t 12
    assert iozone[1:15] == ['-s', '2500000', '-r', '1024', '-I', '-c', '-o',
                            '-l', '12', '-u', '12', '-t', '12', '-F']
    assert iozone[15:] == [f'{{stream_dir}}/iozone.{i}'
                           for i in range(1, 13)]


def test_missing_iozone_skips_saying_how_to_get_it(tmp_path):
    proc = run_reframe(['-c', IOZONE_DIR, '-n', 'iozone_one_node',
                        '-P', 'processes=1', '-S',
                        f'tool_binary={tmp_path}/no/iozone', '-r'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert 'SKIP' in proc.stdout
    assert (f'no iozone binary ({tmp_path}/no/iozone: no such file or '
            f'directory)') in proc.stdout
    assert '-S tool_binary=/path/to/iozone' in proc.stdout


def _check_sums(record, result):
    assert list(result.summaries) == ['initial_writers', 'rewriters',
                                      'readers', 're_readers']
    for name, summary in result.summaries.items():
        assert perf_value(record, f'{name}_bw_sum') == pytest.approx(
            sum(summary.node_mb_s.values()))
        assert perf_value(record, f'{name}_node_bw_min') == pytest.approx(
            min(summary.node_mb_s.values()))
    assert perf_value(record, 'start_skew') == pytest.approx(
        result.initial_writers.start_skew_s)


@needs_iozone
def test_quick_run_on_local(tmp_path):
    proc = run_reframe(['-c', IOZONE_DIR, '-n', 'iozone_one_node',
                        '-P', 'processes=2', *SMALL, '-r'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    _, (record,) = perflog(tmp_path, 'local', 'default', 'iozone_one_node')
    (out,) = glob.glob(f'{tmp_path}/output/local/default/builtin/'
                       f'iozone_one_node_*/rfm_job.out')
    text = open(out).read()
    result = streams.parse(text, 'rfm_job.out', tool=iozone_output)
    assert result.streams == 1
    # One group of 2 processes: iozone's own sum is the figure.
    assert 'Children see throughput for  2 initial writers' in text
    _check_sums(record, result)


@needs_iozone
@pytest.mark.slurm
def test_one_group_per_node_on_two_slurm_nodes(localslurm, tmp_path):
    proc = run_reframe(['--system', 'localslurm:srun', '-c', IOZONE_DIR,
                        '-n', 'iozone_per_node', '-P', 'nodes=2',
                        '-P', 'processes=2', *SMALL, '-r'], tmp_path,
                       env=localslurm)
    assert proc.returncode == 0, proc.stdout
    (out,) = glob.glob(f'{tmp_path}/output/localslurm/srun/builtin/'
                       f'iozone_per_node_*/rfm_job.out')
    result = streams.parse(open(out).read(), 'rfm_job.out',
                           tool=iozone_output)
    assert result.streams == 2 and len(result.nodes) == 2
    assert set(result.nodes) <= {'n1', 'n2', 'n3', 'n4'}
    assert set(result.readers.node_mb_s) == set(result.nodes)
    _, records = perflog(tmp_path, 'localslurm', 'srun', 'iozone_per_node')
    _check_sums(records[-1], result)
    print(f'iozone on 2 localslurm nodes x 2 processes: {records[-1]}')
