# SPDX-License-Identifier: BSD-3-Clause
"""The fio streams family through the real ``reframe`` command: a dry run
for the example production system, a quick run on ``local``, and one fio
per stream on 2 nodes of the localhost Slurm cluster.  Every case prints the
reframe command it ran.
"""

import re
import shlex
import shutil

import pytest

from conftest import (CHECKS, job_script, perf_value, perflog, run_reframe,
                      run_streams_on_localslurm)
from pfsbench.parsers import fio as fio_output
from pfsbench.parsers import streams

FIO = str(CHECKS / 'fio')
needs_fio = pytest.mark.skipif(
    shutil.which('fio') is None,
    reason='fio not on PATH (Debian: apt-get install -y fio)')
PER_PHASE = ('bw', 'bw_sum', 'bw_conservative', 'node_bw_min',
             'node_bw_mean', 'node_bw_max', 'stream_spread')


def test_listing_and_quick_tag(tmp_path):
    proc = run_reframe(['-c', FIO, '-l', '-t', 'quick'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert 'fio_streams %nodes=1 %streams_per_node=1' in proc.stdout
    assert 'Found 1 check(s)' in proc.stdout


def test_dry_run_at_64_nodes_runs_one_fio_per_stream(tmp_path):
    proc = run_reframe(['--system', 'example_lustre', '-c', FIO,
                        '-n', 'fio_streams', '-P', 'nodes=64',
                        '-P', 'streams_per_node=4', '--dry-run'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    script = job_script(tmp_path, 'example_lustre', 'compute',
                        'fio_streams')
    lines = script.splitlines()
    assert '#SBATCH --nodes=64' in lines
    assert '#SBATCH --ntasks-per-node=4' in lines
    (launch,) = [ln for ln in lines if ln.startswith('srun ')]
    argv = shlex.split(launch)
    phases = [argv[i + 1] for i, w in enumerate(argv) if w == '--phase']
    assert [p.split('=', 1)[0] for p in phases] == ['write', 'read']
    write = shlex.split(phases[0].split('=', 1)[1])
    assert write[0].endswith('fio') and '--rw=write' in write
    assert '--output-format=json' in write and '--end_fsync=1' in write
    assert '--filename={stream_dir}/fio.dat' in write
    assert argv[argv.index('--fan-out') + 1] == '1'


@needs_fio
def test_quick_run_on_local(tmp_path):
    proc = run_reframe(['-c', FIO, '-n', 'fio_streams', '-P', 'nodes=1',
                        '-P', 'streams_per_node=2', '-S', f'size={2**24}',
                        '-r'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    header, (record,) = perflog(tmp_path, 'local', 'default', 'fio_streams')
    for phase in ('write', 'read'):
        for figure in PER_PHASE:
            assert perf_value(record, f'{phase}_{figure}') >= 0
    assert perf_value(record, 'write_bw_conservative') <= perf_value(
        record, 'write_bw_sum') * 1.0001
    assert '|tool_path|' in header and '|/usr/bin/fio|' in record


@needs_fio
@pytest.mark.slurm
def test_one_fio_per_stream_on_two_slurm_nodes(localslurm, tmp_path):
    _, text = run_streams_on_localslurm(FIO, 'fio_streams', tmp_path,
                                        localslurm)
    result = streams.parse(text, 'rfm_job.out', tool=fio_output)
    assert result.streams == 4 and len(result.nodes) == 2
    assert set(result.nodes) <= {'n1', 'n2', 'n3', 'n4'}
    # Every stream's own fio wrote its 128 MiB (localslurm's cap).
    assert {s.bytes for s in result.samples} == {2**27}
    assert len(re.findall(r'^s\d{4}/n[1-4]/write: {$', text, re.M)) == 4
    header, records = perflog(tmp_path, 'localslurm', 'srun', 'fio_streams')
    record = records[-1]
    for phase in ('write', 'read'):
        summary = result.summaries[phase]
        assert set(summary.node_mb_s) == set(result.nodes)
        assert perf_value(record, f'{phase}_bw') == pytest.approx(
            summary.aggregate_mb_s)
        assert perf_value(record, f'{phase}_node_bw_min') == pytest.approx(
            min(summary.node_mb_s.values()))
        assert perf_value(record, f'{phase}_node_bw_max') == pytest.approx(
            max(summary.node_mb_s.values()))
        assert perf_value(record, f'{phase}_bw_sum') == pytest.approx(
            sum(summary.node_mb_s.values()))
    column = header.split('|').index('slowest_read_node')
    assert record.split('|')[column] == result.read.slowest_node
    print(f'fio on 2 localslurm nodes x 2 streams: {record}')
