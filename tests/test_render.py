# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench render``: job scripts from the checks' own command builders.

The committed scripts in slurm-templates/ must be exactly what their own
header's command renders today (so they cannot drift from the checks), and a
rendered dd script must run for real through the localhost Slurm cluster.
"""

import contextlib
import io
import shlex
import subprocess
import time

import pytest

from conftest import REPO
from pfsbench.cli import main
from pfsbench.commands import dd, mdtest
from pfsbench.core.shell import shell_join
from pfsbench.parsers import streams
from pfsbench.core.errors import ConfigError
from pfsbench.render import JobSite, render
from pfsbench.site.mounts import declared_or_local_fstype, fstype_of

# Rendered scripts say so in their header; nightly-gate.sbatch is a
# hand-edited template around scripts/nightly.sh.
TEMPLATES = [p for p in sorted((REPO / 'slurm-templates').glob('*.sbatch'))
             if '# Rendered by: pfsbench render ' in p.read_text()]


def test_every_experiment_template_is_rendered():
    names = [p.name for p in TEMPLATES]
    assert len(names) == 8 and 'nightly-gate.sbatch' not in names


def _cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize('path', TEMPLATES, ids=lambda p: p.name)
def test_committed_template_is_current(path, tmp_path):
    text = path.read_text()
    header = next(ln for ln in text.splitlines()
                  if ln.startswith('# Rendered by: pfsbench render '))
    argv = shlex.split(header[len('# Rendered by: pfsbench '):])
    out = tmp_path / 'again.sbatch'
    argv[argv.index('-o') + 1] = str(out)
    code, _, err = _cli(argv)
    assert code == 0, err
    again = out.read_text().replace(str(out), path.name)
    assert again == text, f'{path.name} is stale: render it again'


def test_e6_at_64_nodes_runs_seed001_dd():
    text = render('E6', '/lustre/scratch/$USER/pfsbench', nodes=64)
    assert '#SBATCH --nodes=64\n' in text
    assert '#SBATCH --ntasks-per-node=1\n' in text
    # Seed 001's own dd lines, the read right after the write, 3 runs.
    assert ("'write=dd if=/dev/zero of={stream_dir}/XX1 bs=1024000 "
            "count=50000'") in text
    assert "'read_r3=dd if={stream_dir}/XX1 of=/dev/null" in text
    assert '--cache-defeat none' in text
    # The same command the ReFrame check runs.
    assert shell_join(dd.streams_argv(
        '$RUN_DIR', cache_defeat='none', python='python3',
        mode=dd.MODE_SOURCE, repeats=dd.SEED001_REPEATS)) in text


def test_e6_fdatasync_mode_is_todays_flushed_write():
    text = render('E6', '/lustre/scratch/$USER/pfsbench', dd_mode='fdatasync',
                  repeats=1)
    assert shell_join(dd.streams_argv('$RUN_DIR', cache_defeat='drop_caches',
                                      python='python3')) in text
    assert text.rstrip().endswith('rm -rf "$RUN_DIR"')


def test_e11_reproduces_seed002():
    text = render('E11', '/gluster', tasks_per_node=24)
    assert 'srun ior -a MPIIO -b 4g -t 4m -i 1 -F -o "$RUN_DIR/output"' in text
    assert '#SBATCH --ntasks=72\n#SBATCH --ntasks-per-node=24\n' in text
    assert '#SBATCH --nodes=3\n' in text


@pytest.mark.parametrize('argv,fragment', [
    (['render', 'E6', '--target', '/'], "--target: '/': is the root"),
    (['render', 'E99', '--target', '/x'], "EXPERIMENT: 'E99': unknown"),
    (['render', 'E6', '--target', '/x"y'], "contains '\"'"),
])
def test_bad_input_is_one_line_exit_2(argv, fragment):
    code, out, err = _cli(argv)
    assert code == 2 and out == ''
    assert err.startswith('pfsbench: error: <command line>:')
    assert fragment in err and err.count('\n') == 1


@pytest.mark.slurm
def test_rendered_dd_job_runs_through_slurm(localslurm, tmp_path):
    target = tmp_path / 'scratch'
    target.mkdir()
    script = tmp_path / 'e10.sbatch'
    code, _, err = _cli(['render', 'E10', '--nodes', '2',
                         '--tasks-per-node', '2', '--count', '20',
                         '--target', str(target), '--time', '00:05:00',
                         '--python', __import__('sys').executable,
                         '-o', str(script)])
    assert code == 0, err
    env = dict(__import__('os').environ, **localslurm)
    out = subprocess.run(['sbatch', '--parsable', '--chdir', str(tmp_path),
                          str(script)], env=env, stdout=subprocess.PIPE,
                         universal_newlines=True, check=True).stdout
    jobid = out.strip().split(';')[0]
    deadline = time.time() + 120
    while time.time() < deadline:
        q = subprocess.run(['squeue', '-h', '-j', jobid], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           universal_newlines=True).stdout
        if not q.strip():
            break
        time.sleep(0.5)
    text = (tmp_path / f'pfsbench-E10-{jobid}.out').read_text()
    result = streams.parse(text, 'job')
    assert result.streams == 4 and result.nodes == ('n1', 'n2')
    assert result.write.bytes == 4 * 20 * 1024000
    assert 'pfsbench-job: exit=0' in text
    assert list(target.iterdir()) == []     # the run directory is gone


def test_e17_runs_the_seed004_family_command():
    text = render('E17', '/lustre/scratch/$USER/pfsbench',
                  point={'clients': 'multi', 'np': 16})
    # NP is the run's: 16 tasks, one on each of 16 clients.
    for line in ('#SBATCH --nodes=16', '#SBATCH --ntasks=16',
                 '#SBATCH --ntasks-per-node=1'):
        assert line in text.splitlines()
    # 304000 items among 16 tasks, create, stat and remove in one run:
    # the family's builder, as the ReFrame check runs it
    # (tests/test_checks_mdtest.py).
    whole = mdtest.seed004_argv('E17', '$RUN_DIR/mdtest', 16)
    assert 'srun ' + shell_join(whole) in text
    assert 'srun mdtest -n 19000 -w 1 -y -N 1 -p 1 -i 1 -d ' \
           '"$RUN_DIR/mdtest" -C -T -r\n' in text


def test_e1_files_follow_the_targets_file_system(tmp_path):
    # Seed 000: 500,000 files on Lustre, 3,000,000 on ext4 and XFS.  A
    # cluster path that does not exist here is not this host's root file
    # system (ext4 on many hosts): without a declared type it gets
    # Lustre's count; a directory of this host gets its own type's.
    text = render('E1', '/lustre/scratch/$USER/pfsbench',
                  point={'active_cores': 24})
    assert text.count('mdtest -n 10416 -u -F -i 1 ') == 2
    assert declared_or_local_fstype('xfs', str(tmp_path)) == 'xfs'
    assert declared_or_local_fstype('', '/lustre/scratch/x') == ''
    here = declared_or_local_fstype('', str(tmp_path))
    assert here and here == fstype_of(str(tmp_path))
    text = render('E1', str(tmp_path), point={'active_cores': 24})
    assert text.count(f'mdtest -n {mdtest.seed000_items(here) // 48} ') == 2


def test_an_overcommitted_e1_job_gives_no_tasks_per_node():
    # Issue 37: 96 tasks on seed 000's 48 CPUs: Slurm 22.05 refuses an
    # --ntasks-per-node above the CPUs even with --overcommit; --nodes and
    # --ntasks place them (as E15-E17's NP beyond a client's cores).
    site = JobSite(name='example_seed000:mds', launcher='srun', num_cpus=48)
    for cores, over in ((48, True), (24, False)):
        lines = render('E1', '/lustre/scratch/pfsbench', site=site,
                       point={'active_cores': cores}).splitlines()
        assert f'#SBATCH --ntasks={2 * cores}' in lines
        assert '#SBATCH --nodes=1' in lines
        assert ('#SBATCH --overcommit' in lines) == over
        assert (f'#SBATCH --ntasks-per-node={2 * cores}' in lines) == \
            (not over)


def test_a_capped_seed004_layout_is_said():
    # Issue 36: E17 multi at NP 32 on an 8-node partition runs 4 per node
    # on 8, not one per client; the check warns, render said nothing.
    site = JobSite(name='site:short', max_nodes=8)
    text = render('E17', '/lustre/scratch/pfsbench', site=site,
                  point={'clients': 'multi', 'np': 32})
    assert '#SBATCH --nodes=8' in text.splitlines()
    assert ('# note: site:short has 8 node(s): NP 32 runs 4 per node on 8, '
            'not one per client (seed 004)') in text.splitlines()
    # Not capped: no note.
    text = render('E17', '/lustre/scratch/pfsbench', site=site,
                  point={'clients': 'multi', 'np': 8})
    assert '# note:' not in text


def test_a_multi_task_mpi_job_without_a_launcher_is_refused():
    # Issue 36: the check skips it; render wrote --ntasks=12 and one ior.
    site = JobSite(name='site:one', launcher='local', max_nodes=1)
    with pytest.raises(ConfigError) as err:
        render('E11', '/scratch/pfsbench', nodes=1, tasks_per_node=12,
               site=site)
    assert str(err.value) == (
        "<command line>:--tasks-per-node: 12: site:one runs one process "
        "(local launcher); 1 x 12 ior tasks need srun or mpirun (one task: "
        "--nodes 1 --tasks-per-node 1)")
    text = render('E11', '/scratch/pfsbench', nodes=1, tasks_per_node=1,
                  site=site)
    assert '#SBATCH --ntasks=1' in text.splitlines()
