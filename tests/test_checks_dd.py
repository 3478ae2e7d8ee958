# SPDX-License-Identifier: BSD-3-Clause
"""The dd streaming family run through the real ``reframe`` command.

On ``local`` (no scheduler), as dry runs for the example production system,
with bad input, and on the localhost Slurm cluster with 2 nodes x 2 streams.
Every case prints the reframe command it ran.
"""

import contextlib
import glob
import io
import os
import re
import shutil

import pytest

from conftest import (CHECKS, REPO, job_script, launch_phases, perf_value,
                      perflog,
                      run_reframe, run_streams_on_localslurm)
from pfsbench.cli import main
from pfsbench.parsers import streams

DD = str(CHECKS / 'dd')


@pytest.mark.parametrize('system', ['local', 'localslurm'])
def test_listing_shows_the_three_families(tmp_path, system):
    proc = run_reframe(['--system', system, '-c', DD, '-l'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    for name in ('dd_stream_per_node %nodes=64',
                 'dd_streams_one_node %streams_per_node=12',
                 'dd_streams_per_node %nodes=64 %streams_per_node=12'):
        assert name in proc.stdout
    assert 'Found 26 check(s)' in proc.stdout
    # The stream shapes are plugins of today's kind: ReFrame warns on every
    # listing about a class built on its deprecated RegressionMixin.
    assert 'deprecated' not in proc.stdout


def test_dry_run_at_64_nodes_runs_the_source_dd_three_times(tmp_path):
    proc = run_reframe(['--system', 'example_lustre', '-c', DD,
                        '-n', 'dd_stream_per_node', '-P', 'nodes=64',
                        '--dry-run'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    script = job_script(tmp_path, 'example_lustre', 'compute',
                        'dd_stream_per_node')
    for line in ('#SBATCH --nodes=64', '#SBATCH --ntasks-per-node=1',
                 '#SBATCH --constraint=lustre', '#SBATCH --exclusive'):
        assert line in script.splitlines()
    phases, argv = launch_phases(script)
    # Seed 001's exact lines (its read into /dev/null), read right after
    # the write, averaged over 3 runs.
    write = 'dd if=/dev/zero of={stream_dir}/XX1 bs=1024000 count=50000'
    read = 'dd if={stream_dir}/XX1 of=/dev/null bs=1024000 count=50000'
    assert phases == [('write', write), ('read', read),
                      ('write_r2', write), ('read_r2', read),
                      ('write_r3', write), ('read_r3', read)]
    assert argv[argv.index('--cache-defeat') + 1] == 'none'
    assert '--drop-caches-command' not in argv
    # Seed 001's Lustre layout on the run directory, which every stream's
    # directory inherits, then the layout a new file there gets (compared
    # with the request after the run).
    run_dir = argv[argv.index('--run-dir') + 1]
    lines = script.splitlines()
    setstripe = lines.index(f"lfs setstripe -c 4 -S 1m '{run_dir}'")
    probe = f'{run_dir}/.pfsbench-layout'
    assert lines[setstripe + 3:setstripe + 8] == [
        f"touch '{probe}'", 'echo "pfsbench-step: end layout probe exit=$?"',
        "echo 'pfsbench-step: begin getstripe'",
        f"lfs getstripe '{probe}'",
        'echo "pfsbench-step: end getstripe exit=$?"']
    assert re.search(r"^srun .* --run-dir '/lustre/scratch/[^']+/pfsbench/"
                     r"pfsbench-dd_stream_per_node", script, re.M)
    # A dry run's records (all None) stay out of the real perflogs.
    assert not os.path.exists(tmp_path / 'perflogs')
    assert not os.path.exists(tmp_path / 'results.db')


def test_dry_run_fdatasync_mode_flushes_and_drops_caches(tmp_path):
    proc = run_reframe(['--system', 'example_lustre', '-c', DD,
                        '-n', 'dd_stream_per_node', '-P', 'nodes=64',
                        '-S', 'dd_mode=fdatasync', '-S', 'repeats=1',
                        '--dry-run'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    script = job_script(tmp_path, 'example_lustre', 'compute',
                        'dd_stream_per_node')
    phases, argv = launch_phases(script)
    assert phases == [
        ('write', 'dd if=/dev/zero of={stream_dir}/XX1 bs=1024000 '
                  'count=50000 conv=fdatasync'),
        ('read', 'dd if={stream_dir}/XX1 of=/dev/null bs=1024000 '
                 'count=50000')]
    assert argv[argv.index('--cache-defeat') + 1] == 'drop_caches'
    assert "--drop-caches-command 'sudo -n /usr/local/sbin/drop-caches'" \
        in script


def test_unknown_dd_mode_is_refused(tmp_path):
    proc = run_reframe(['-c', DD, '-n', 'dd_streams_one_node',
                        '-P', 'streams_per_node=1', '-S', 'dd_mode=fast',
                        '-r'], tmp_path)
    assert proc.returncode != 0
    assert "dd_mode: 'fast': expected one of source, fdatasync" in \
        proc.stdout


def test_quick_run_on_local(tmp_path):
    proc = run_reframe(['-c', DD, '-n', 'dd_streams_one_node',
                        '-P', 'streams_per_node=2', '-S', 'dd_mode=fdatasync',
                        '-S', 'repeats=1', '-r'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert 'Ran 1/1 test case(s)' in proc.stdout
    header, records = perflog(tmp_path, 'local', 'default',
                              'dd_streams_one_node')
    assert len(records) == 1
    write_bw = perf_value(records[0], 'write_bw')
    assert write_bw > 0
    assert perf_value(records[0], 'write_bw_conservative') <= perf_value(
        records[0], 'write_bw_sum') * 1.0001
    assert '|cache_defeat|' in header and '|direct|' in records[0]
    # Nothing left behind: ReFrame removed the stage dir of a passed test.
    assert not glob.glob(f'{tmp_path}/stage/**/pfsbench-*', recursive=True)

    # The summary reads the same run's report: one table, the same figure.
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(['summary', '--runs', str(tmp_path)]) == 0
    text = out.getvalue()
    assert 'dd_streams_one_node on local:default' in text
    row = next(ln for ln in text.splitlines()
               if ln.strip().startswith('write_bw '))
    assert float(row.split()[-1]) == pytest.approx(write_bw, rel=0.01)
    assert '1 case(s), 0 failure(s)' in text


def test_source_mode_on_local_averages_three_runs(tmp_path):
    proc = run_reframe(['-c', DD, '-n', 'dd_streams_one_node',
                        '-P', 'streams_per_node=1', '-S', 'count=64', '-r'],
                       tmp_path)
    assert proc.returncode == 0, proc.stdout
    header, (record,) = perflog(tmp_path, 'local', 'default',
                                'dd_streams_one_node')
    columns = dict(zip(header.split('|'), record.split('|')))
    assert columns['dd_mode'] == 'source' and columns['repeats'] == '3'
    assert columns['cache_defeat'] == 'none'
    (out,) = glob.glob(f'{tmp_path}/output/local/default/builtin/'
                       f'dd_streams_one_node_*/rfm_job.out')
    result = streams.parse(open(out).read(), 'rfm_job.out')
    assert result.phases == ('write', 'read', 'write_r2', 'read_r2',
                             'write_r3', 'read_r3')
    assert 'conv=fdatasync' not in open(out).read()
    rates = [s.bw_mb_s for s in result.samples if s.name == 'write']
    assert len(rates) == 3
    assert perf_value(record, 'write_bw_sum') == pytest.approx(
        sum(rates) / 3)
    assert perf_value(record, 'write_repeat_spread') >= 0


def test_failed_dd_still_removes_its_run_directory(tmp_path):
    # A 1 PiB block: a valid value (0 is refused before the run,
    # pfsbench.site.validate) that dd itself fails on.
    proc = run_reframe(['-c', DD, '-n', 'dd_streams_one_node',
                        '-P', 'streams_per_node=1',
                        '-S', f'block_size={2**50}', '-r'], tmp_path)
    assert proc.returncode != 0
    # The sanity message quotes dd's own error line.
    assert re.search(r'Reason: sanity error: rfm_job.out:\d+: stream 0 '
                     r'write exited with 1, got: "dd: memory exhausted by '
                     r'input buffer', proc.stdout)
    stage = glob.glob(f'{tmp_path}/stage/local/default/builtin/'
                      f'dd_streams_one_node_*')
    assert stage, 'the failed test keeps its stage directory'
    assert not glob.glob(f'{stage[0]}/pfsbench-*')


@pytest.mark.parametrize('scratch,why', [
    ('/', "'/': is the root directory"),
    ('~', 'is a home directory'),
    ('/nonexistent/pfsbench-scratch', 'does not exist'),
])
def test_bad_scratch_fails_before_submission(tmp_path, scratch, why):
    proc = run_reframe(['-c', DD, '-n', 'dd_streams_one_node',
                        '-P', 'streams_per_node=1', '-r'], tmp_path,
                       env={'PFSBENCH_SCRATCH': os.path.expanduser(scratch)})
    assert proc.returncode != 0
    assert 'local:default:extras.targets[scratch].path:' in proc.stdout
    assert why in proc.stdout
    assert 'Failing phase: setup' in proc.stdout
    assert 'Traceback' not in proc.stdout
    assert not glob.glob(f'{tmp_path}/stage/**/rfm_job.sh', recursive=True)


def test_malformed_reference_file_is_named(tmp_path):
    refs = tmp_path / 'refs'
    refs.mkdir()
    (refs / 'local.yaml').write_text(
        'dd_streams_one_node:\n  "local:default":\n    write_bw: fast\n')
    proc = run_reframe(['-c', DD, '-n', 'dd_streams_one_node', '-l'],
                       tmp_path / 'runs',
                       env={'PFSBENCH_REFERENCES': str(refs)})
    # Not a warning and a silent skip (ReFrame's own behaviour): an error.
    assert proc.returncode != 0
    assert (f"pfsbench: error: {refs / 'local.yaml'}:dd_streams_one_node."
            f"local:default.write_bw: 'fast': expected [value, lower, upper, "
            f"unit]") in proc.stdout
    assert 'Traceback' not in proc.stdout


def test_unknown_system_is_an_error(tmp_path):
    proc = run_reframe(['--system', 'nosuchsystem', '-c', DD, '-l'],
                       tmp_path)
    assert proc.returncode != 0
    assert 'nosuchsystem' in proc.stdout


@pytest.mark.slurm
def test_two_nodes_two_streams_through_slurm(localslurm, tmp_path):
    # The fdatasync mode: its page cache is dropped between the phases.
    script, text = run_streams_on_localslurm(
        DD, 'dd_streams_per_node', tmp_path, localslurm,
        extra=['-S', 'dd_mode=fdatasync', '-S', 'repeats=1'])
    assert any(ln.startswith('srun ') and '--fan-out 1' in ln
               for ln in script)
    # Four streams, two on each of two emulated nodes, caches dropped on
    # each node once.
    nodes = re.findall(r'^pfsbench-stream: stream=\d node=(n\d) phase=write',
                       text, re.M)
    assert len(nodes) == 4 and len(set(nodes)) == 2
    assert all(nodes.count(n) == 2 for n in set(nodes))
    assert sorted(re.findall(r'drop_caches node=(n\d)', text)) == sorted(
        set(nodes))
    _, records = perflog(tmp_path, 'localslurm', 'srun',
                         'dd_streams_per_node')
    assert perf_value(records[-1], 'write_node_bw_min') > 0
    assert perf_value(records[-1], 'start_skew') < 5


def test_spack_provenance_is_logged_with_every_figure(tmp_path):
    # A copy of the config whose local partition names a Spack environment
    # (a real spack.lock concretized with Spack 1.1, tests/data/spack).
    config = tmp_path / 'config'
    shutil.copytree(REPO / 'config', config)
    local = config / 'systems' / 'local.py'
    env_dir = REPO / 'tests' / 'data' / 'spack' / 'spack-1.1-local'
    local.write_text(local.read_text().replace(
        "'max_nodes': 1,", f"'max_nodes': 1, 'spack_env': '{env_dir}',"))
    proc = run_reframe(['-c', DD, '-n', 'dd_streams_one_node',
                        '-P', 'streams_per_node=1', '-S', 'count=4', '-r'],
                       tmp_path / 'runs', config=config / 'settings.py')
    assert proc.returncode == 0, proc.stdout
    header, records = perflog(tmp_path / 'runs', 'local', 'default',
                              'dd_streams_one_node')
    column = header.split('|').index('spack_provenance')
    logged = records[0].split('|')[column].split()
    assert 'ior@4.0.0/sx6uf2r' in logged
    assert any(t.startswith('openmpi@4.1.4/') for t in logged)


def test_missing_spack_lock_is_a_setup_error(tmp_path):
    config = tmp_path / 'config'
    shutil.copytree(REPO / 'config', config)
    local = config / 'systems' / 'local.py'
    local.write_text(local.read_text().replace(
        "'max_nodes': 1,", f"'max_nodes': 1, 'spack_env': '{tmp_path}',"))
    proc = run_reframe(['-c', DD, '-n', 'dd_streams_one_node',
                        '-P', 'streams_per_node=1', '-r'],
                       tmp_path / 'runs', config=config / 'settings.py')
    assert proc.returncode != 0
    assert (f'local:default: extras.spack_env: {tmp_path}:spack.lock:'
            in proc.stdout)
    assert 'no lock file: concretize the environment' in proc.stdout
