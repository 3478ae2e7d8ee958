# SPDX-License-Identifier: BSD-3-Clause
"""The synchronised stream runner, run for real with dd, and its parser."""

import os
import subprocess
import sys

import pytest

from pfsbench.commands import dd
from pfsbench.errors import ParseError
from pfsbench.parsers import streams
from pfsbench.streams import BarrierTimeout, FileBarrier


def run_streams(run_dir, fan_out=3, count=4, cache='none', write=None,
                env=None, extra=()):
    argv = dd.streams_argv(str(run_dir), block_size=65536, count=count,
                           fan_out=fan_out, cache_defeat=cache,
                           barrier_timeout=20)
    if write is not None:
        argv[argv.index('--write') + 1] = write
    full_env = {k: v for k, v in os.environ.items()
                if not k.startswith(('SLURM_', 'OMPI_', 'PMIX_', 'PMI_'))}
    full_env.update(env or {})
    print('+', ' '.join(argv))
    return subprocess.run(argv + list(extra), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True,
                          env=full_env, timeout=60)


def test_three_streams_write_and_read(tmp_path):
    proc = run_streams(tmp_path, fan_out=3, count=4)
    assert proc.returncode == 0, proc.stdout
    result = streams.parse(proc.stdout, 'out')
    assert result.streams == 3 and result.tasks == 1
    assert result.write.bytes == 3 * 4 * 65536
    assert result.read.streams == 3
    # Every figure comes from dd's own statistics of each stream.
    per_stream = [s.bw_mb_s for s in result.samples if s.phase == 'write']
    assert result.write.sum_of_streams_mb_s == pytest.approx(sum(per_stream))
    assert result.write.conservative_mb_s == pytest.approx(
        min(per_stream) * 3)
    assert 0 <= result.write.start_skew_s < 5
    # Stream directories are removed; only the barrier markers remain
    # (the job script removes the run directory itself).
    assert sorted(os.listdir(tmp_path)) == ['.barrier']


def test_write_starts_only_after_every_stream_arrived(tmp_path):
    proc = run_streams(tmp_path, fan_out=2, count=2)
    result = streams.parse(proc.stdout, 'out')
    marks = sorted(os.listdir(tmp_path / '.barrier'))
    assert marks == ['defeated', 'defeated.go', 'done', 'done.go', 'ready',
                     'ready.go', 'written', 'written.go']
    ready = (tmp_path / '.barrier' / 'ready.go').stat().st_mtime
    starts = [s.start for s in result.samples if s.phase == 'write']
    assert min(starts) >= ready - 0.05


def test_failing_dd_is_quoted(tmp_path):
    proc = run_streams(tmp_path, fan_out=1,
                       write='dd if=/dev/zero of=/dev/full bs=1M count=1')
    assert proc.returncode == 1
    with pytest.raises(ParseError) as info:
        streams.parse(proc.stdout, 'out')
    assert info.value.line.startswith("dd: error writing '/dev/full'")


def test_missing_stream_times_out_at_the_barrier(tmp_path):
    # Two tasks announced, one started: the barrier must give up, not hang.
    proc = run_streams(tmp_path, fan_out=1,
                       env={'SLURM_NTASKS': '2', 'SLURM_PROCID': '0'},
                       extra=['--barrier-timeout', '0.5'])
    assert proc.returncode == 1
    assert "barrier 'ready': 1 of 2 streams arrived" in proc.stdout
    with pytest.raises(ParseError, match='a stream failed'):
        streams.parse(proc.stdout, 'out')


def test_barrier_object(tmp_path):
    barrier = FileBarrier(str(tmp_path), total=2, timeout=0.2, poll=0.01)
    with pytest.raises(BarrierTimeout):
        barrier.wait('x', 0)
    FileBarrier(str(tmp_path), total=2, timeout=1, poll=0.01).wait('x', 1)
    assert (tmp_path / 'x.go').exists()


def test_output_cut_short_raises(tmp_path):
    proc = run_streams(tmp_path, fan_out=2, count=2)
    lines = proc.stdout.splitlines()
    cut = '\n'.join(ln for ln in lines
                    if not ('phase=read' in ln and 'stream=1' in ln))
    with pytest.raises(ParseError, match='expected 2 read records, found 1'):
        streams.parse(cut, 'cut')


def test_no_header_raises():
    with pytest.raises(ParseError, match="'pfsbench-stream: begin'"):
        streams.parse('hello\n', 'x')


def test_help_runs_without_pfsbench_dependencies():
    # Compute nodes need only the standard library: -S hides site-packages,
    # and -m finds pfsbench in the checkout (the working directory).
    proc = subprocess.run([sys.executable, '-S', '-m', 'pfsbench.streams',
                           '--help'],
                          cwd=os.path.dirname(os.path.dirname(
                              os.path.abspath(__file__))),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    assert proc.returncode == 0, proc.stdout
    assert '--cache-defeat {drop_caches,direct,none}' in proc.stdout
