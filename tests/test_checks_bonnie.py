# SPDX-License-Identifier: BSD-3-Clause
"""The bonnie++ families (E7, E9, E10) through the real ``reframe``
command: a dry run of seed 001's scale, a quick run on ``local``, and one
bonnie++ per stream on 2 nodes of the localhost Slurm cluster.  Every case
prints the reframe command it ran.
"""

import shlex
import shutil

import pytest

from conftest import (CHECKS, job_script, launch_phases, perf_value, perflog,
                      run_reframe, run_streams_on_localslurm)
from pfsbench.parsers import bonnie as bonnie_output
from pfsbench.parsers import streams

BONNIE = str(CHECKS / 'bonnie')
needs_bonnie = pytest.mark.skipif(
    shutil.which('bonnie++') is None,
    reason='bonnie++ not on PATH (Debian: apt-get install -y bonnie++)')
#: Small runs: 64 MiB of bulk I/O, 4 MiB per-char (bonnie++ writes the
#: per-char file one write(2) per byte).  bonnie++ prints ``+++++`` for a
#: test over in under 0.5 s: 64 MiB of block I/O into the page cache always
#: is, so the per-char tests are what gets timed.  They ran at 2.8 MB/s
#: (write) and 3.5 MB/s (read) here (one bonnie++ on an idle 2-core
#: Debian 12 VM): 1 MiB takes 0.3-0.37 s, under the 0.5 s, so a quick
#: local case printed every figure as ``+++++``; 4 MiB takes 1.2-1.5 s,
#: still timed on a machine over twice as fast.
SMALL = ['-S', 'size_mib=64', '-S', 'char_io_mib=4']


def test_listing_and_quick_tag(tmp_path):
    proc = run_reframe(['-c', BONNIE, '-l', '-t', 'quick'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert 'bonnie_per_node %nodes=1' in proc.stdout
    assert 'bonnie_streams_one_node %streams_per_node=2' in proc.stdout
    assert 'Found 3 check(s)' in proc.stdout


@pytest.mark.parametrize('test, streams_per_node, size', [
    ('bonnie_per_node', 1, '32000'),
    ('bonnie_streams_per_node', 12, '3200'),
])
def test_dry_run_at_64_nodes_maps_the_seed_command(tmp_path, test,
                                                   streams_per_node, size):
    proc = run_reframe(['--system', 'example_lustre', '-c', BONNIE,
                        '-n', test, '-P', 'nodes=64', '--dry-run'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    script = job_script(tmp_path, 'example_lustre', 'compute', test)
    assert '#SBATCH --nodes=64' in script.splitlines()
    assert (f'#SBATCH --ntasks-per-node={streams_per_node}'
            in script.splitlines())
    phases, argv = launch_phases(script)
    # E10 (full) averages the source's 3 runs; E7's nightly case runs once.
    assert [name for name, _ in phases] == (
        ['bonnie'] if test == 'bonnie_per_node' else
        ['bonnie', 'bonnie_r2', 'bonnie_r3'])
    bonnie = shlex.split(phases[0][1])
    assert bonnie[0].endswith('bonnie++')
    # bonnie -d $DIR -s 2000 -v 16 -y (E10: -s 200): see commands/bonnie.
    assert bonnie[1:9] == ['-d', '{stream_dir}', '-s', size, '-n', '0',
                           '-r', '0']
    assert bonnie[-1] == '-q'
    assert argv[argv.index('--cache-defeat') + 1] == 'none'
    run_dir = argv[argv.index('--run-dir') + 1]
    assert f"lfs setstripe -c 4 -S 1m '{run_dir}'" in script.splitlines()


def _check_figures(header, record, result):
    """Every bonnie++ test's sum and per-node figures are in the perflog
    when every instance measured it, and absent (never 0) otherwise, then
    named in ``untimed_figures`` (the gate reads them as too fast to time,
    not as missing)."""
    untimed = record.split('|')[header.split('|').index(
        'untimed_figures')].split()
    logged = 0
    for _, name in bonnie_output.STREAM_MEASURES:
        summary = result.summaries.get(name)
        if summary is None:
            continue
        if summary.sum_of_streams_mb_s is None:
            assert f'|{name}_bw_sum=' not in record
            assert f'|{name}_node_bw_min=' not in record
            assert {f'{name}_bw_sum', f'{name}_node_bw_min'} <= set(
                untimed), (name, untimed)
            continue
        assert not [f for f in untimed if f.startswith(f'{name}_')], untimed
        logged += 1
        assert perf_value(record, f'{name}_bw_sum') == pytest.approx(
            sum(summary.node_mb_s.values()))
        assert perf_value(record, f'{name}_node_bw_min') == pytest.approx(
            min(summary.node_mb_s.values()))
        assert perf_value(record, f'{name}_node_bw_max') == pytest.approx(
            max(summary.node_mb_s.values()))
        assert perf_value(record, f'{name}_bw_conservative') <= \
            perf_value(record, f'{name}_bw_sum') * 1.0001
    # Something measured; which tests bonnie++ can time depends on the
    # machine: on an idle one it prints the 1 MiB per-char tests as +++++
    # (over before its clock could time them; seen in CI), and the test
    # above has checked that such a test is absent, never 0.
    assert logged >= 1
    assert perf_value(record, 'start_skew') == pytest.approx(
        result.summaries['char_write'].start_skew_s)


@needs_bonnie
def test_quick_run_on_local(tmp_path):
    proc = run_reframe(['-c', BONNIE, '-n', 'bonnie_streams_one_node',
                        '-P', 'streams_per_node=2', *SMALL, '-r'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    header, (record,) = perflog(tmp_path, 'local', 'default',
                                'bonnie_streams_one_node')
    (out,) = (tmp_path / 'output').glob('local/default/builtin/'
                                        'bonnie_streams_one_node_*/'
                                        'rfm_job.out')
    result = streams.parse(out.read_text(), 'rfm_job.out',
                           tool=bonnie_output)
    assert result.streams == 2 and result.phases == ('bonnie',)
    _check_figures(header, record, result)
    assert '|tool_path|' in header and 'bonnie++|' in record


@needs_bonnie
@pytest.mark.slurm
def test_one_bonnie_per_stream_on_two_slurm_nodes(localslurm, tmp_path):
    # One run (E10's 3 are tested in the dry run): the figures below are
    # one run's.
    _, text = run_streams_on_localslurm(BONNIE, 'bonnie_streams_per_node',
                                        tmp_path, localslurm,
                                        extra=SMALL + ['-S', 'repeats=1'])
    result = streams.parse(text, 'rfm_job.out', tool=bonnie_output)
    assert result.streams == 4 and len(result.nodes) == 2
    assert set(result.nodes) <= {'n1', 'n2', 'n3', 'n4'}
    header, records = perflog(tmp_path, 'localslurm', 'srun',
                              'bonnie_streams_per_node')
    record = records[-1]
    _check_figures(header, record, result)
    assert set(result.char_write.node_mb_s) == set(result.nodes)
    column = header.split('|').index('slowest_nodes')
    assert (f'char_write={result.char_write.slowest_node}'
            in record.split('|')[column])
    print(f'bonnie++ on 2 localslurm nodes x 2 instances: {record}')
