# SPDX-License-Identifier: BSD-3-Clause
"""The synchronised streams runner, run for real with dd, and its parser.

Several local processes stand in for a launcher's tasks: each gets the
rank, size and node variables Slurm would set (``SLURM_PROCID``,
``SLURM_NTASKS``, ``SLURM_LOCALID``, ``SLURMD_NODENAME``).  Every command is
printed so a case can be rerun by hand.
"""

import ast
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from conftest import REPO, fixture_dir
from pfsbench.checks.streams import summary_figures, untimed
from pfsbench.commands import dd
from pfsbench.commands.streams import repeated, runner
from pfsbench.core.errors import ParseError
from pfsbench.core.shell import shell_join
from pfsbench.parsers import bonnie as bonnie_parser, dd as dd_parser, streams
from pfsbench.runner import tool_error_line
from pfsbench.runner.barrier import (RENDEZVOUS_FILE, Aborted, Coordinator,
                                     Member, encode)

BS = 65536


def _env(rank=0, ntasks=1, node='n1', local=0):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('SLURM_', 'OMPI_', 'PMIX_', 'PMI_'))}
    env.update(SLURM_PROCID=str(rank), SLURM_NTASKS=str(ntasks),
               SLURM_LOCALID=str(local), SLURMD_NODENAME=node)
    return env


def _dd_argv(run_dir, fan_out=1, count=4, cache='none', **kwargs):
    return dd.streams_argv(str(run_dir), block_size=BS, count=count,
                           fan_out=fan_out, cache_defeat=cache,
                           barrier_timeout=kwargs.pop('barrier_timeout', 20),
                           **kwargs)


def start_tasks(argv, ntasks, ranks=None):
    """Start the runner as tasks ``ranks`` (default: all) of ``ntasks``,
    task r on node n<r+1>."""
    print('+', shell_join(argv))
    procs = []
    for rank in range(ntasks) if ranks is None else ranks:
        procs.append(subprocess.Popen(
            argv, env=_env(rank, ntasks, f'n{rank + 1}'),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            universal_newlines=True))
    return procs


def finish(procs, timeout=60):
    """(return codes, the tasks' outputs joined, as srun would)."""
    outs = [p.communicate(timeout=timeout)[0] for p in procs]
    return [p.returncode for p in procs], ''.join(outs)


def run_tasks(argv, ntasks, **kwargs):
    return finish(start_tasks(argv, ntasks, **kwargs))


def test_three_streams_of_one_task(tmp_path):
    codes, out = run_tasks(_dd_argv(tmp_path, fan_out=3), 1)
    assert codes == [0], out
    result = streams.parse(out, 'out')
    assert result.streams == 3 and result.tasks == 1
    assert result.phases == ('write', 'read')
    assert result.write.bytes == 3 * 4 * BS
    assert result.read.streams == 3
    # Every figure comes from dd's own statistics of each stream.
    per_stream = [s.bw_mb_s for s in result.samples if s.phase == 'write']
    assert result.write.sum_of_streams_mb_s == pytest.approx(sum(per_stream))
    assert result.write.conservative_mb_s == pytest.approx(
        min(per_stream) * 3)
    assert 0 <= result.write.start_skew_s < 5
    # One task needs no rendezvous file; the stream directories are gone
    # (the job script removes the run directory itself).
    assert os.listdir(tmp_path) == []


def test_tasks_on_three_nodes_meet_through_the_coordinator(tmp_path):
    # Task 2 starts a second late: nobody may write before it arrived.
    argv = _dd_argv(tmp_path, fan_out=2)
    procs = start_tasks(argv, 3, ranks=[0, 1])
    time.sleep(1)
    late = time.time()
    procs += start_tasks(argv, 3, ranks=[2])
    codes, out = finish(procs)
    assert codes == [0, 0, 0], out
    result = streams.parse(out, 'out')
    assert result.streams == 6 and result.tasks == 3
    assert result.nodes == ('n1', 'n2', 'n3')
    starts = [s.start for s in result.samples if s.phase == 'write']
    assert min(starts) >= late - 0.1
    assert set(result.write.node_mb_s) == {'n1', 'n2', 'n3'}
    assert result.write.slowest_node == min(result.write.node_mb_s,
                                            key=result.write.node_mb_s.get)
    # Messages only: 6 streams x 3 barriers arrivals, 3 releases x 3 tasks.
    assert result.barrier['rounds'] == 3
    assert result.barrier['messages_out'] == 3 + 3 * 3
    # The rendezvous file lived only until every task had connected.
    assert os.listdir(tmp_path) == []


def _sleeper_phases(failing, failure):
    # Every stream sleeps, except the one whose directory ends in `failing`.
    script = (f'case {{stream_dir}} in *{failing}) sleep 1; {failure};; '
              f'*) sleep 60;; esac')
    return [('write', ['sh', '-c', script]), ('read', ['true'])]


def test_a_failing_stream_stops_every_other_one(tmp_path):
    argv = runner(str(tmp_path), _sleeper_phases(
        'stream-00003', 'dd if=/dev/zero of=/dev/full bs=1M count=1'),
        fan_out=2, barrier_timeout=3600)
    started = time.monotonic()
    codes, out = run_tasks(argv, 3)
    elapsed = time.monotonic() - started
    print(out)
    # Without the abort the peers would sleep for a minute.
    assert elapsed < 10
    assert codes == [1, 1, 1]
    ends = {int(kv['stream']): kv for kv in
            (dict(re.findall(r'(\w+)=(\S+)', ln)) for ln in
             out.splitlines() if ' status=' in ln and 'end=' in ln)}
    assert sorted(ends) == list(range(6))
    assert ends[3]['status'] == 'failed'
    assert {kv['status'] for s, kv in ends.items() if s != 3} == {'stopped'}
    failed_at = float(ends[3]['end'])
    assert max(float(kv['end']) for kv in ends.values()) < failed_at + 10
    # Each task says why it stopped: stream 3's own dd error.
    aborts = re.findall(r'^pfsbench-stream: abort task=\d .*', out, re.M)
    assert len(aborts) == 3
    assert all("dd: error writing '/dev/full': No space left on device" in a
               for a in aborts)
    with pytest.raises(ParseError) as info:
        streams.parse(out, 'out')
    assert info.value.line == ("dd: error writing '/dev/full': No space left "
                               "on device")
    assert 'stream 3 write exited with 1' in str(info.value)
    assert os.listdir(tmp_path) == []


def test_a_task_that_dies_stops_the_others(tmp_path):
    argv = runner(str(tmp_path), _sleeper_phases('none', 'true'),
                  fan_out=1, barrier_timeout=3600)
    procs = start_tasks(argv, 2)
    deadline = time.monotonic() + 20
    while not os.listdir(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1)
    procs[1].kill()                 # task 1 and its connection vanish
    killed = time.monotonic()
    codes, out = finish(procs)
    assert time.monotonic() - killed < 10
    assert codes[0] == 1
    assert re.search(r'abort task=0 .*: task 1 on n2 lost its connection '
                     r'to the coordinator', out), out
    with pytest.raises(ParseError, match='the streams were stopped'):
        streams.parse(out, 'out')


def _alive(pid):
    try:
        with open(f'/proc/{pid}/stat') as fp:
            return fp.read().split(')')[-1].split()[0] != 'Z'
    except FileNotFoundError:
        return False


def test_a_signalled_task_stops_its_tools_and_the_others(tmp_path):
    # The tools run in sessions of their own: a launcher's SIGTERM reaches
    # only the runner, which must stop them itself.
    pids = tmp_path / 'pids'
    run_dir = tmp_path / 'run'
    run_dir.mkdir()
    argv = runner(str(run_dir), [('write', [
        'sh', '-c', f'echo $$ >> {pids}; exec sleep 60'])], fan_out=2)
    procs = start_tasks(argv, 2)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and (
            not pids.exists() or len(pids.read_text().split()) < 4):
        time.sleep(0.05)
    procs[1].send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    codes, out = finish(procs)
    assert time.monotonic() - signalled < 10
    assert codes == [1, 1]
    assert re.search(r'abort task=0 .*: task 1 on n2 received signal 15',
                     out), out
    sleepers = [int(pid) for pid in pids.read_text().split()]
    assert len(sleepers) == 4
    assert not any(_alive(pid) for pid in sleepers)


def test_missing_task_times_out_at_the_barrier(tmp_path):
    # Two tasks announced, one started: the barrier gives up, not hangs.
    argv = _dd_argv(tmp_path, barrier_timeout=0.5)
    procs = [subprocess.Popen(argv, env=_env(0, 2), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT,
                              universal_newlines=True)]
    codes, out = finish(procs)
    assert codes == [1]
    assert "barrier 'start': 1 of 2 streams arrived within 0.5 s" in out
    with pytest.raises(ParseError, match='the streams were stopped'):
        streams.parse(out, 'out')


def test_task_without_a_coordinator_gives_up(tmp_path):
    argv = _dd_argv(tmp_path) + ['--start-timeout', '0.3']
    proc = subprocess.run(argv, env=_env(1, 2), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True,
                          timeout=30)
    assert proc.returncode == 1
    assert (f'{tmp_path / RENDEZVOUS_FILE}: task 0 published no '
            f'coordinator address within 0.3 s') in proc.stdout


def test_caches_dropped_once_per_node_between_phases(tmp_path):
    argv = _dd_argv(tmp_path, fan_out=2, cache='drop_caches',
                    drop_caches_command='echo dropped on $SLURMD_NODENAME')
    codes, out = run_tasks(argv, 2)
    assert codes == [0, 0], out
    result = streams.parse(out, 'out')
    assert sorted(result.drop_caches) == ['n1', 'n2']
    assert 'drop_caches output: dropped on n2' in out
    # The drops sit between the write records and the read records.
    first_read = min(s.start for s in result.samples if s.phase == 'read')
    last_write = max(s.end for s in result.samples if s.phase == 'write')
    assert first_read >= last_write
    assert result.barrier['rounds'] == 4      # start, write, ready, read


def test_failing_drop_caches_is_reported(tmp_path):
    argv = _dd_argv(tmp_path, cache='drop_caches',
                    drop_caches_command='echo not permitted; exit 3')
    codes, out = run_tasks(argv, 1)
    assert codes == [1]
    with pytest.raises(ParseError, match='dropping the page cache failed'):
        streams.parse(out, 'out')


def test_any_number_of_named_phases(tmp_path):
    path = '{stream_dir}/f'
    argv = runner(str(tmp_path), [
        ('write', dd.dd_write(path, BS, 2)),
        ('rewrite', dd.dd_write(path, BS, 3)),
        ('read', dd.dd_read(path, BS, 3))], fan_out=2)
    codes, out = run_tasks(argv, 1)
    assert codes == [0], out
    result = streams.parse(out, 'out', tool=dd_parser)
    assert result.phases == ('write', 'rewrite', 'read')
    assert list(result.summaries) == ['write', 'rewrite', 'read']
    assert result.rewrite.bytes == 2 * 3 * BS
    assert re.search(r'^s0001/n1/rewrite: \d+\+0 records out$', out, re.M)


def test_one_phase_with_several_measures_some_unmeasured(tmp_path):
    # Each node's "bonnie++" prints a real bonnie++ output (its block read
    # and seeks too fast to measure: +++++).
    runs = fixture_dir('bonnie++')
    (tmp_path / 'n1.txt').write_text(
        (runs / 's1024-r512-n4-q-csv-only.txt').read_text())
    (tmp_path / 'n2.txt').write_text(
        (runs / 's1024-r512-n4.txt').read_text())
    argv = runner(str(tmp_path / 'run'), [
        ('bonnie', ['sh', '-c', f'cat {tmp_path}/$SLURMD_NODENAME.txt'])])
    os.mkdir(tmp_path / 'run')
    codes, out = run_tasks(argv, 2)
    assert codes == [0, 0], out
    result = streams.parse(out, 'out', tool=bonnie_parser)
    assert result.phases == ('bonnie',)
    assert list(result.summaries) == [
        'char_write', 'block_write', 'rewrite', 'char_read', 'block_read',
        'seeks']
    block_write = result.block_write
    assert block_write.node_mb_s == {'n1': 931972 * 1024 / 1e6,
                                     'n2': 1017219 * 1024 / 1e6}
    assert block_write.slowest_node == 'n1'
    assert block_write.sum_of_streams_mb_s == pytest.approx(
        (931972 + 1017219) * 1024 / 1e6)
    assert block_write.aggregate_mb_s is None     # no byte counts
    # +++++ on every node: no figure, never 0, and no slowest node.
    block_read = result.block_read
    assert block_read.sum_of_streams_mb_s is None
    assert block_read.conservative_mb_s is None
    assert block_read.node_min_mb_s is None
    assert block_read.slowest_node == ''
    assert result.seeks.unit == '/s' and result.char_read.unit == 'MB/s'
    # The check names every figure it leaves out for that (the gate reads
    # them as too fast to time, not as missing), and only those: not the
    # aggregate over wall time that no bonnie++ run gives.
    logged = set(summary_figures(result.summaries))
    left_out = untimed(result.summaries)
    assert left_out == [f'{m}{suffix}' for group in (
        ('_bw_sum',), ('_bw_conservative',),
        ('_node_bw_min', '_node_bw_mean', '_node_bw_max'),
        ('_stream_spread',), ('_bw_trimmed',))
        for m in ('block_read', 'seeks') for suffix in group]
    assert not logged & set(left_out)
    assert {f'{m}{suffix}' for m in ('block_write', 'seeks')
            for suffix in ('_bw_sum', '_stream_spread')} - logged == {
        'seeks_bw_sum', 'seeks_stream_spread'}


def test_repeats_are_averaged_figure_by_figure(tmp_path):
    argv = runner(str(tmp_path), repeated(dd.stream_phases(BS, 2), 3),
                  fan_out=2)
    names = [argv[i + 1].split('=', 1)[0] for i, w in enumerate(argv)
             if w == '--phase']
    assert names == ['write', 'read', 'write_r2', 'read_r2', 'write_r3',
                     'read_r3']
    codes, out = run_tasks(argv, 1)
    assert codes == [0], out
    result = streams.parse(out, 'out')
    assert list(result.summaries) == ['write', 'read']
    write = result.write
    assert write.repeats == 3 and write.streams == 2
    runs = {}
    for s in result.samples:
        if s.name == 'write':
            runs.setdefault(s.repeat, []).append(s.bw_mb_s)
    assert sorted(runs) == [1, 2, 3]
    sums = [sum(r) for r in runs.values()]
    assert write.sum_of_streams_mb_s == pytest.approx(sum(sums) / 3)
    # Seed 001: the lowest stream of each repeat, averaged, x streams.
    assert write.conservative_mb_s == pytest.approx(
        sum(min(r) for r in runs.values()) / 3 * 2)
    assert write.repeat_spread_pct == pytest.approx(
        (max(sums) - min(sums)) / (sum(sums) / 3) * 100)
    assert write.bytes == 2 * 2 * BS     # one repeat's, not three


def test_repeats_below_one_are_refused():
    with pytest.raises(ValueError, match='repeats: 0'):
        repeated(dd.stream_phases(BS, 2), 0)


def test_bad_phase_is_a_usage_error(tmp_path):
    proc = subprocess.run([sys.executable, '-m', 'pfsbench.runner',
                           '--run-dir', str(tmp_path), '--phase', 'Write=x'],
                          cwd=str(REPO), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)
    assert proc.returncode == 2
    assert "'Write=x': expected NAME=COMMAND" in proc.stdout


@pytest.mark.parametrize('write,quoted', [
    (['dd', 'if=/dev/zero', 'of=/dev/full', 'bs=1M', 'count=1'],
     "dd: error writing '/dev/full'"),
    (['no-such-tool-pfsbench'], 'no-such-tool-pfsbench: [Errno 2]'),
])
def test_failing_tool_is_quoted(tmp_path, write, quoted):
    codes, out = run_tasks(runner(str(tmp_path), [('write', write)]), 1)
    assert codes == [1]
    with pytest.raises(ParseError) as info:
        streams.parse(out, 'out')
    assert info.value.line.startswith(quoted)
    # The line number is the labelled line's in the job's output.
    assert out.splitlines()[info.value.lineno - 1] == (
        f's0000/n1/write: {info.value.line}')


def test_output_cut_short_raises(tmp_path):
    codes, out = run_tasks(_dd_argv(tmp_path, fan_out=2, count=2), 1)
    cut = '\n'.join(ln for ln in out.splitlines()
                    if not ('phase=read' in ln and 'stream=1' in ln))
    with pytest.raises(ParseError, match='expected 2 read records, found 1'):
        streams.parse(cut, 'cut')


def test_no_header_raises():
    with pytest.raises(ParseError, match="'pfsbench-stream: begin'"):
        streams.parse('hello\n', 'x')


def test_unknown_tool_needs_a_parser(tmp_path):
    codes, out = run_tasks(runner(str(tmp_path), [('write', ['true'])]), 1)
    assert codes == [0]
    with pytest.raises(ParseError, match=r'no parser for the phase '
                                         r'commands \(true\); pass tool='):
        streams.parse(out, 'x')


def test_tool_error_line():
    lines = ['4+0 records in', 'sh: 1: cannot open', 'dd: error writing',
             'last']
    assert tool_error_line('dd', lines) == 'dd: error writing'
    assert tool_error_line('sh', lines) == 'sh: 1: cannot open'
    assert tool_error_line('fio', lines[:1] + lines[3:]) == 'last'


def test_coordinator_ignores_strangers_and_releases_members():
    coordinator = Coordinator(streams=2, tasks=1, token='t0k', timeout=5)
    serving = threading.Thread(target=coordinator.serve, daemon=True)
    serving.start()
    address = ('127.0.0.1', coordinator.port)
    stranger = socket.create_connection(address)
    stranger.sendall(encode('hello', 'wrong', 7, 'nX'))
    assert stranger.recv(100) == b''        # dropped without a word
    stops = []
    member = Member('t0k', [('127.0.0.2', 1), address], 0, 'n1', 5,
                    stops.append)
    member.connect()
    assert member.address == address
    both = [threading.Thread(target=member.wait, args=('b',))
            for _ in range(2)]
    for t in both:
        t.start()
    for t in both:
        t.join(5)
    assert 'b' in member.released and stops == []
    member.abort('stream 1 on n1 failed')
    with pytest.raises(Aborted, match='stream 1 on n1 failed'):
        member.wait('c')
    member.close()
    serving.join(15)
    assert not serving.is_alive()
    assert coordinator.abort_reason == 'stream 1 on n1 failed'
    assert coordinator.rounds == 1


def test_help_runs_without_pfsbench_dependencies():
    # Compute nodes need only the standard library: -S hides site-packages,
    # and -m finds pfsbench in the checkout (the working directory).
    proc = subprocess.run([sys.executable, '-S', '-m', 'pfsbench.runner',
                           '--help'], cwd=str(REPO), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)
    assert proc.returncode == 0, proc.stdout
    assert '--cache-defeat {drop_caches,direct,none}' in proc.stdout


def test_runner_parses_as_python36():
    # Rendered job scripts run `python3 -m pfsbench.runner` on compute
    # nodes, whose system Python may be as old as 3.6 (RHEL 8).
    sources = [REPO / 'pfsbench' / '__init__.py'] + sorted(
        (REPO / 'pfsbench' / 'runner').glob('*.py'))
    assert len(sources) == 6
    for path in sources:
        text = path.read_text()
        ast.parse(text, filename=str(path), feature_version=(3, 6))
        assert 'dataclass' not in text and 'import statistics' not in text
