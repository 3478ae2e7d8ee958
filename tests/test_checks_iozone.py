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
import subprocess

import pytest

from conftest import (CHECKS, REPO, job_script, launch_phases, perf_value,
                      perflog, run_reframe)
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
    phases, _ = launch_phases(script)
    # The source's 3 measurements, averaged, in one job.
    assert [name for name, _ in phases] == ['iozone', 'iozone_r2',
                                            'iozone_r3']
    iozone = shlex.split(phases[0][1])
    assert iozone[0].endswith('iozone')
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
                        '-P', 'processes=2', *SMALL, '-S', 'repeats=1',
                        '-r'], tmp_path,
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


def _ssh_to_localhost_fails():
    """Why iozone could not start a client on localhost through ssh (a
    prompt, a refused key, no server), or '' when it can."""
    if shutil.which('ssh') is None:
        return 'no ssh client on PATH'
    try:
        proc = subprocess.run(['ssh', '-o', 'BatchMode=yes', '-o',
                               'ConnectTimeout=5', 'localhost', 'true'],
                              stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=30)
    except subprocess.TimeoutExpired:
        return 'ssh localhost true timed out'
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines() or ['']
        return (f'ssh -o BatchMode=yes localhost true exited with '
                f'{proc.returncode}: {lines[-1]}')
    return ''


def _config_with_remote_shell(tmp_path):
    """A copy of the config whose local partition allows iozone's cluster
    mode through ssh."""
    config = tmp_path / 'config'
    shutil.copytree(REPO / 'config', config)
    local = config / 'systems' / 'local.py'
    text = local.read_text()
    assert "'max_nodes': 1," in text
    local.write_text(text.replace("'max_nodes': 1,",
                                  "'max_nodes': 1, 'iozone_rsh': 'ssh',"))
    return config / 'settings.py'


def test_cluster_mode_skips_without_a_remote_shell(tmp_path):
    proc = run_reframe(['-c', IOZONE_DIR, '-n', 'iozone_cluster',
                        '-P', 'nodes=1', '-S', 'tool_binary=/bin/true',
                        '-r'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert ("local:default has no extras.iozone_rsh: iozone's cluster mode "
            "starts its clients through a remote shell") in proc.stdout


@needs_iozone
def test_cluster_mode_through_ssh_on_local(tmp_path):
    why = _ssh_to_localhost_fails()
    if why:
        pytest.skip(f'iozone cluster mode needs passwordless ssh to '
                    f'localhost: {why}')
    proc = run_reframe(['-c', IOZONE_DIR, '-n', 'iozone_cluster',
                        '-P', 'nodes=1', '-S', 'processes=3', *SMALL, '-r'],
                       tmp_path / 'runs',
                       config=_config_with_remote_shell(tmp_path))
    assert proc.returncode == 0, proc.stdout
    (out,) = glob.glob(f'{tmp_path}/runs/output/local/default/builtin/'
                       f'iozone_cluster_*/rfm_job.out')
    text = open(out).read()
    # Three clients, each in its own directory, started by iozone itself.
    clients = [ln.split() for ln in text.splitlines()
               if ln.startswith('localhost ')]
    assert [c[1].rsplit('/', 1)[-1] for c in clients] == [
        'localhost.1', 'localhost.2', 'localhost.3']
    assert all(c[2] == IOZONE for c in clients)
    result = iozone_output.parse(
        text[text.index('pfsbench-step: begin iozone'):], 'rfm_job.out')
    assert [b.test for b in result.throughput] == [
        'initial writers', 'rewriters', 'readers', 're-readers']
    header, (record,) = perflog(tmp_path / 'runs', 'local', 'default',
                                'iozone_cluster')
    for block in result.throughput:
        name = iozone_output.measure_name(block.test)
        rates = [kib_s * 1024 / 1e6 for _, kib_s in block.kib_s.per_process]
        assert len(rates) == 3
        # The clients' own rates summed: iozone's "Children see".
        assert perf_value(record, f'{name}_bw_sum') == pytest.approx(
            block.kib_s.children * 1024 / 1e6, rel=1e-3)
        assert perf_value(record, f'{name}_bw_conservative') == \
            pytest.approx(min(rates) * 3)
    assert '|start_skew=' not in record
    column = header.split('|').index('slowest_nodes')
    assert 'initial_writers=localhost' in record.split('|')[column]
    print(f'iozone cluster mode, 3 clients on localhost via ssh: {record}')
