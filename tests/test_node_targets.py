# SPDX-License-Identifier: BSD-3-Clause
"""Node targets (``extras.targets[].scope: node``, docs/targets.md): the
run directory is made and removed on every node of the job, checked per
node on the localhost Slurm cluster, where each emulated node's "own disk"
is a directory named after it (``PFSBENCH_NODE_SCRATCH/<node>``)."""

import os
import re
import socket

import pytest

from conftest import REPO, job_script, run_reframe
from pfsbench.cli import main
from pfsbench.core.errors import ConfigError
from pfsbench.render import JobSite, render
from test_check_config import _check, _config

DD = REPO / 'reframe-checks' / 'dd' / 'dd_streaming.py'
NODES = ('n1', 'n2', 'n3', 'n4')
REMOVED = re.compile(r'^pfsbench-node: removed (n\d):(\S+)$', re.M)


def _node_dirs(tmp_path, nodes=NODES):
    """One directory per emulated node, as a node's local disk would be."""
    root = tmp_path / 'nodelocal'
    for node in nodes:
        (root / node).mkdir(parents=True)
    return root


def _left_on(root):
    """What is left in each node's directory: ``{node: [entries]}``."""
    return {node: sorted(os.listdir(root / node)) for node in NODES
            if (root / node).is_dir() and os.listdir(root / node)}


def _run_dd(tmp_path, localslurm, root, extra=()):
    env = dict(localslurm, PFSBENCH_NODE_SCRATCH=str(root))
    proc = run_reframe(['--system', 'localslurm:srun', '-c', str(DD),
                        '-n', 'dd_streams_per_node', '-P', 'nodes=2',
                        '-P', 'streams_per_node=2', '-S', 'target=node',
                        '-S', 'repeats=1', *extra, '-r'],
                       tmp_path / 'runs', env=env)
    # A failed case keeps its output in its stage directory.
    out = [p for where in ('output', 'stage') for p in
           (tmp_path / 'runs' / where).glob(
               'localslurm/srun/builtin/dd_streams_per_node_*/rfm_job.out')]
    text = ''.join(p.read_text() for p in out)
    return proc, text


@pytest.mark.slurm
def test_two_node_case_leaves_no_file_on_any_node(tmp_path, localslurm):
    root = _node_dirs(tmp_path)
    proc, text = _run_dd(tmp_path, localslurm, root)
    assert proc.returncode == 0, proc.stdout
    script = job_script(tmp_path / 'runs', 'localslurm', 'srun',
                        'dd_streams_per_node')
    # Made on each node by one step per node; the streams runner gets the
    # path unexpanded and names the node itself.
    assert re.search(r"^srun .*--ntasks-per-node=1 --mpi=none sh -c "
                     r"'mkdir \"[^\"]*/\$SLURMD_NODENAME/pfsbench-", script,
                     re.M), script
    assert re.search(r"--run-dir '[^']*/\$SLURMD_NODENAME/pfsbench-",
                     script), script
    # The streams wrote on two nodes, and each node removed its own
    # directory (it held the marker, so it had been made there).
    writers = set(re.findall(r'stream=\d node=(n\d) phase=write', text))
    removed = REMOVED.findall(text)
    assert len(writers) == 2
    assert sorted(n for n, _ in removed) == sorted(writers)
    assert all(path.startswith(f'{root}/{node}/pfsbench-')
               for node, path in removed)
    assert _left_on(root) == {}


@pytest.mark.slurm
def test_failing_case_cleans_every_node(tmp_path, localslurm):
    # A 1 PiB block: dd itself fails (as test_checks_dd's failing case).
    root = _node_dirs(tmp_path)
    proc, text = _run_dd(tmp_path, localslurm, root,
                         extra=['-S', f'block_size={2**50}'])
    assert proc.returncode != 0
    assert 'dd: memory exhausted by input buffer' in proc.stdout
    assert len({n for n, _ in REMOVED.findall(text)}) == 2, text
    assert _left_on(root) == {}


@pytest.mark.slurm
def test_a_node_without_its_directory_stops_the_job_and_cleans_the_other(
        tmp_path, localslurm):
    # The job is placed on n1 and n2; only n1 has its directory: the
    # per-node creation fails on n2, before the tool, and n1's run
    # directory goes too.
    root = _node_dirs(tmp_path, nodes=('n1',))
    proc, text = _run_dd(tmp_path, localslurm, root,
                         extra=['-J', 'nodelist=n1,n2'])
    assert proc.returncode != 0
    assert 'got: "pfsbench-node: a node could not make its run directory' \
        in proc.stdout
    assert 'pfsbench-job: exit=1' in text
    assert 'pfsbench-stream:' not in text, 'the tool must not run'
    assert [n for n, _ in REMOVED.findall(text)] == ['n1'], text
    assert os.listdir(root / 'n1') == []


def test_a_misspelt_scope_is_one_line_naming_file_key_and_value(
        tmp_path, capsys):
    config, site = _config(
        tmp_path, extra="'max_nodes': 4")
    text = site.read_text().replace(
        "'path': '/lustre/scratch'}]",
        "'path': '/lustre/scratch'}, {'name': 'nvme', 'scope': 'nodes', "
        "'path': '/local/nvme'}]")
    site.write_text(text)
    code, _, lines = _check(capsys, config)
    assert code == 2
    assert lines == [f"pfsbench: error: {site}:systems[site].partitions"
                     f"[compute].extras.targets[nvme].scope: 'nodes': "
                     f"expected shared or node"]


def test_a_node_target_need_not_exist_on_the_login_node(tmp_path, capsys):
    # On a host of the system (its hostnames match): a shared target must
    # exist here, a node target's directory is each node's.
    config, site = _config(tmp_path, path=str(tmp_path),
                           hostname=f'^{socket.gethostname()}$')
    site.write_text(site.read_text().replace(
        f"'path': {str(tmp_path)!r}}}]",
        f"'path': {str(tmp_path)!r}}}, {{'name': 'nvme', 'scope': 'node', "
        f"'path': '/local/nvme/$SLURMD_NODENAME'}}]"))
    code, lines, err = _check(capsys, config, '--system', 'site:compute',
                              '--tags', 'E6')
    assert code == 0, err
    # An unset variable other than the node's name is still refused.
    site.write_text(site.read_text().replace(
        '/local/nvme/$SLURMD_NODENAME', '$PFSBENCH_NO_SUCH_VAR/nvme'))
    code, _, err = _check(capsys, config, '--system', 'site:compute',
                          '--tags', 'E6')
    assert code == 2
    assert err == [f"pfsbench: error: {site}:systems[site].partitions"
                   f"[compute].extras.targets[nvme].path: "
                   f"'$PFSBENCH_NO_SUCH_VAR/nvme': has an undefined "
                   f"environment variable"]


def _plan(capsys, monkeypatch, tmp_path, *args, node=True):
    monkeypatch.setenv('PFSBENCH_SCRATCH', str(tmp_path))
    if node:
        monkeypatch.setenv('PFSBENCH_NODE_SCRATCH', str(tmp_path))
    else:
        monkeypatch.delenv('PFSBENCH_NODE_SCRATCH', raising=False)
    code = main(['nightly-plan', '--system', 'localslurm:srun', '--runs',
                 str(tmp_path / 'runs'), *args])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out.splitlines()


def test_the_nightly_covers_every_target_of_the_partition(
        tmp_path, capsys, monkeypatch):
    # What nightly.sh passes to reframe: each case on each target; with
    # one target nothing (the cases keep their names and history).
    assert _plan(capsys, monkeypatch, tmp_path, '--reframe-targets') == [
        'target=scratch,node']
    assert _plan(capsys, monkeypatch, tmp_path, '--reframe-targets',
                 node=False) == ['']
    lines = _plan(capsys, monkeypatch, tmp_path, '--tags', 'E6',
                  '--repeat', '1', '--no-budget')
    assert lines[2] == ('targets: every case on each of scratch, node '
                        '(reframe -P target=scratch,node)')
    names = [ln.split('  ')[0] for ln in lines
             if ln.startswith('dd_stream_per_node')]
    for nodes in (1, 2, 4):
        assert (f'dd_stream_per_node %nodes={nodes} %.target=scratch'
                in names)
        assert f'dd_stream_per_node %nodes={nodes} %.target=node' in names
    # A plan with such names (as --budget writes them) is accepted by the
    # check nightly.sh runs before the first job.
    plan = tmp_path / 'two-targets.plan'
    plan.write_text('system localslurm:srun\nrepeat 1\ntag E6\n'
                    'case dd_stream_per_node %nodes=1 %.target=node\n')
    args = _plan(capsys, monkeypatch, tmp_path, '--check-plan', str(plan))
    assert args[:2] == ['--repeat', '1'], args


def test_rendered_job_on_a_node_target_makes_and_removes_on_every_node(
        tmp_path):
    site = JobSite(name='site:compute', target='/local/nvme/$USER',
                   node_targets=('/local/nvme/$USER',))
    lines = render('E6', site=site, nodes=2).splitlines()
    at = lines.index('export RUN_DIR="/local/nvme/$USER/pfsbench-E6-'
                     '$(date +%Y%m%dT%H%M%S)-$SLURM_JOB_ID"')
    assert lines[at + 1] == ('export PFSBENCH_RENDEZVOUS_DIR='
                             '"$SLURM_SUBMIT_DIR"')
    make, tool, status, remove = lines[at + 6:at + 10]
    every_node = ('srun --nodes="$SLURM_JOB_NUM_NODES" '
                  '--ntasks="$SLURM_JOB_NUM_NODES" --ntasks-per-node=1 '
                  '--mpi=none sh -c ')
    assert make.startswith(every_node + '\'mkdir "$RUN_DIR" && ')
    assert tool.startswith('srun ')
    assert status == 'echo "pfsbench-job: exit=$?"'
    assert remove.startswith(every_node + '\'if [ -f "$RUN_DIR/.pfsbench-run" '
                             ']; then rm -rf "$RUN_DIR"')
    assert not [ln for ln in lines if ln.startswith(('mkdir', 'rm -rf'))]
    # A path that names the node would be expanded by the batch script.
    site = JobSite(name='site:compute', target='/local/$SLURMD_NODENAME',
                   node_targets=('/local/$SLURMD_NODENAME',))
    with pytest.raises(ConfigError, match=r"--target: '/local/"
                       r"\$SLURMD_NODENAME': a node target that names the "
                       r"node"):
        render('E6', site=site, nodes=2)


class _Case:
    """What the node-target hook reads of a case (it is a plain function:
    no ReFrame pipeline is needed to decide a skip)."""

    def __init__(self, reads, scope, tasks, per_node):
        self.reads_other_nodes_files = reads
        self.target_scope = scope
        self.target_name = 'nvme'
        self.num_tasks, self.num_tasks_per_node = tasks, per_node
        self.tool_label, self.tool = 'IOR', 'ior'
        self.skipped = None

    def skip_if(self, cond, msg):
        if cond:
            self.skipped = msg


@pytest.mark.parametrize('reads, scope, tasks, per_node, skipped', [
    (True, 'node', 24, 12, True),      # IO500 at 2 x 12 on a node target
    (True, 'node', 12, 12, False),     # one node sees all its files
    (True, 'shared', 24, 12, False),   # a shared target: every node sees
    (False, 'node', 24, 12, False),    # dd, mdtest -u: each its own files
])
def test_a_job_reading_other_nodes_files_skips_on_a_node_target(
        reads, scope, tasks, per_node, skipped):
    from pfsbench.checks.base import FileSystemCheck
    from pfsbench.checks.io500_phases import IO500Run
    case = _Case(reads, scope, tasks, per_node)
    FileSystemCheck.refuse_other_nodes_files_on_a_node_target(case)
    assert bool(case.skipped) == skipped, case.skipped
    if skipped:
        assert case.skipped.startswith('nvme: a node target (scope: node): '
                                       'the 2 nodes of this job')
    # The IO500 checks declare it; the base (dd, bonnie++, ...) does not.
    assert IO500Run.reads_other_nodes_files
    assert not FileSystemCheck.reads_other_nodes_files


def test_the_runner_refuses_a_node_path_outside_a_slurm_step(
        tmp_path, monkeypatch, capsys):
    # Unset, $SLURMD_NODENAME would become '' and every node's streams
    # would share /x//pfsbench-...: refused before anything is written.
    from pfsbench.runner.__main__ import main as runner_main
    monkeypatch.delenv('SLURMD_NODENAME', raising=False)
    run_dir = f'{tmp_path}/$SLURMD_NODENAME/run'
    code = runner_main(['--run-dir', run_dir, '--phase', 'write=true'])
    assert code == 2
    assert capsys.readouterr().err.endswith(
        "names the node ($SLURMD_NODENAME), which is not set here (not a "
        "Slurm step)\n")
    assert os.listdir(tmp_path) == []
    monkeypatch.setenv('SLURMD_NODENAME', 'n7')
    from pfsbench.runner.__main__ import node_run_dir
    assert node_run_dir(run_dir, 'n7') == f'{tmp_path}/n7/run'
