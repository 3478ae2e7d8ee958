# SPDX-License-Identifier: BSD-3-Clause
"""Seed 001 at its own scale: dry runs on the 64-client example system
``example_seed001`` (partitions lfs3, lfs4, lfs5, panfs) reproduce the
source's command lines and Lustre layout for E5-E10, and its published
figures are the references of the figures the checks log.

The source's lines are quoted below as it printed them; ``_mapped`` is the
documented mapping to today's tools (docs/checks-dd.md, the bonnie++ table
in pfsbench/commands/bonnie.py, pfsbench/commands/iozone.py).  Every case
prints the reframe command it ran.
"""

import os
import re
import shlex

import pytest

from conftest import CHECKS, REPO, launch_phases, run_reframe
from pfsbench.checks.streams import FIGURE_GROUPS
from pfsbench.cli import main
from pfsbench.parsers import bonnie as bonnie_output
from pfsbench.site import references
from test_systems_doc import job_lines, pfsbench

SYSTEM = 'example_seed001'
PARTITIONS = ('lfs3', 'lfs4', 'lfs5', 'panfs')
#: The source's layout per file system: "Stripesize 1MB; Stripecount 4 on
#: lfs3/lfs5, 12 on lfs4"; Panasas has none.
STRIPE_COUNT = {'lfs3': 4, 'lfs4': 12, 'lfs5': 4, 'panfs': None}

# Seed 001's command lines, verbatim (tests/data/seeds/001).
E6_DD = ('dd if=/dev/zero of=$DIR/XX1 bs=1024000 count=50000',
         'dd of=/dev/zero if=$DIR/XX1 bs=1024000 count=50000')
E10_DD = ('dd if=/dev/zero of=$DIR/XX1 bs=1024000 count=5000',
          'dd of=/dev/zero if=$DIR/XX1 bs=1024000 count=5000')
E7_BONNIE = 'bonnie -d $DIR -s 2000 -v 16 -y'
E10_BONNIE = 'bonnie -d $DIR -s 200 -v 16 -y'
E8_IOZONE = 'iozone -s 25000000 -r 1024 -I -c -o -l XX -u XX -t XX'
E10_IOZONE = 'iozone -s 2500000 -r 1024 -I -c -o -l XX -u XX -t XX'
E19_IOZONE = 'iozone -s 25000000 -r 1024 -I -c -o'
#: "Command used for the Panasas file system (-I option caused Iozone to
#: crash)".
E19_IOZONE_PANFS = 'iozone -s 25000000 -r 1024 -c -o'


def _mapped(line, threads=None):
    """A source line as pfsbench runs it (argv), per the documented
    mapping; ``$DIR`` is the stream's own directory."""
    argv = shlex.split(line.replace('$DIR', '{stream_dir}'))
    if argv[0] == 'dd':
        # The read wrote into /dev/zero (works, reads as a typo): /dev/null,
        # operands in dd's usual order.
        operands = dict(a.split('=', 1) for a in argv[1:])
        if operands['of'] == '/dev/zero':
            operands['of'] = '/dev/null'
        order = ('if', 'of', 'bs', 'count')
        return ['dd'] + [f'{k}={operands[k]}' for k in order]
    if argv[0] == 'bonnie':
        # -s MiB x -v volumes is bonnie++'s total -s; no small-file tests,
        # no RAM check (the source's sizes must run), no -y (the source's
        # instances were not synchronised), CSV on stdout.
        size = int(argv[argv.index('-s') + 1]) * int(argv[argv.index('-v')
                                                        + 1])
        return ['bonnie++', '-d', '{stream_dir}', '-s', str(size), '-n', '0',
                '-r', '0', '-q']
    if threads is None:
        # iozone on one file (E19), in the stream's directory.
        return argv + ['-f', '{stream_dir}/iozone.tmp']
    # iozone: XX threads, each its own file in the stream's directory.
    argv = [str(threads) if a == 'XX' else a for a in argv]
    return argv + ['-F'] + [f'{{stream_dir}}/iozone.{i}'
                            for i in range(1, threads + 1)]


def _tool_argv(command):
    """A phase's argv with the tool's path and bonnie++'s ``-u root`` (the
    dry run ran as root) taken out."""
    argv = shlex.split(command)
    argv[0] = argv[0].rsplit('/', 1)[-1]
    if argv[0] == 'bonnie++' and '-u' in argv:
        i = argv.index('-u')
        assert argv[i + 1] == 'root'
        del argv[i:i + 2]
    return argv


def _scripts(runs, partition, test):
    """The job scripts a dry run wrote for ``test`` on ``partition``."""
    found = [path.read_text() for path in sorted(runs.glob(
        f'stage/{SYSTEM}/{partition}/builtin/{test}_*/rfm_job.sh'))]
    assert found, f'no job script for {test} on {partition} under {runs}'
    return found


def _sbatch(script, option):
    return re.search(rf'^#SBATCH --{option}=(\S+)$', script, re.M).group(1)


def _assert_layout(script, partition, argv):
    run_dir = argv[argv.index('--run-dir') + 1]
    lines = script.splitlines()
    setstripe = [ln for ln in lines if ln.startswith('lfs setstripe')]
    if STRIPE_COUNT[partition] is None:
        assert setstripe == [] and 'lfs getstripe' not in script
        return
    # Set on the run directory, which every stream's directory inherits,
    # then read back from a new file there (compared after the run).
    assert setstripe == [f'lfs setstripe -c {STRIPE_COUNT[partition]} '
                         f'-S 1m {run_dir}']
    assert f'lfs getstripe {run_dir}/.pfsbench-layout' in lines
    assert lines.index(setstripe[0]) < lines.index(
        next(ln for ln in lines if ln.startswith(('srun ', '/opt/'))))


@pytest.fixture(scope='module')
def at_64_nodes(tmp_path_factory):
    """One dry run of the 64-node cases of E6, E7 and E10 on every
    partition."""
    runs = tmp_path_factory.mktemp('seed001')
    proc = run_reframe(['--system', SYSTEM, '-c', str(CHECKS / 'dd'),
                        '-c', str(CHECKS / 'bonnie'),
                        '-c', str(CHECKS / 'iozone'),
                        '-n', 'dd_stream_per_node', '-n',
                        'dd_streams_per_node', '-n', 'bonnie_per_node',
                        '-n', 'bonnie_streams_per_node', '-n',
                        'iozone_per_node', '-n', 'iozone_cluster',
                        '-P', 'nodes=64', '--dry-run'], runs)
    assert proc.returncode == 0, proc.stdout
    # 6 families x 4 partitions.
    assert 'Ran 24/24 test case(s)' in proc.stdout, proc.stdout
    return runs


@pytest.mark.parametrize('partition', PARTITIONS)
@pytest.mark.parametrize('test,per_node,source', [
    ('dd_stream_per_node', 1, E6_DD),
    ('dd_streams_per_node', 12, E10_DD),
], ids=['E6', 'E10'])
def test_dd_is_the_source_dd(at_64_nodes, partition, test, per_node,
                             source):
    (script,) = _scripts(at_64_nodes, partition, test)
    assert (_sbatch(script, 'nodes'), _sbatch(script, 'ntasks-per-node'),
            _sbatch(script, 'ntasks')) == ('64', str(per_node),
                                           str(64 * per_node))
    phases, argv = launch_phases(script)
    write, read = (_mapped(line) for line in source)
    # Write, then read right after it (no flush, no cache dropped), the
    # source's 3 repeats in one job; every stream behind the barrier.
    assert [(name, shlex.split(cmd)) for name, cmd in phases] == [
        ('write', write), ('read', read), ('write_r2', write),
        ('read_r2', read), ('write_r3', write), ('read_r3', read)]
    assert argv[argv.index('--cache-defeat') + 1] == 'none'
    _assert_layout(script, partition, argv)


@pytest.mark.parametrize('partition', PARTITIONS)
@pytest.mark.parametrize('test,per_node,source', [
    ('bonnie_per_node', 1, E7_BONNIE),
    ('bonnie_streams_per_node', 12, E10_BONNIE),
], ids=['E7', 'E10'])
def test_bonnie_is_the_source_bonnie(at_64_nodes, partition, test, per_node,
                                     source):
    (script,) = _scripts(at_64_nodes, partition, test)
    assert (_sbatch(script, 'nodes'), _sbatch(script, 'ntasks-per-node')) \
        == ('64', str(per_node))
    phases, argv = launch_phases(script)
    # E10 (full) is the source's 3 runs averaged; E7's nightly case runs
    # once (bonnie_averaged_per_node is E7's 3).
    assert [name for name, _ in phases] == (
        ['bonnie'] if test == 'bonnie_per_node' else
        ['bonnie', 'bonnie_r2', 'bonnie_r3'])
    for _, command in phases:
        assert command.startswith('/opt/pfsbench/view/bin/bonnie++ ')
        assert _tool_argv(command) == _mapped(source)
    _assert_layout(script, partition, argv)


@pytest.mark.parametrize('partition', PARTITIONS)
def test_e10_iozone_is_one_source_group_per_node(at_64_nodes, partition):
    (script,) = _scripts(at_64_nodes, partition, 'iozone_per_node')
    # One throughput group of 12 per node (iozone's thread limit stopped
    # the source at 16 nodes): 64 groups behind the barrier, summed.
    assert (_sbatch(script, 'nodes'), _sbatch(script, 'ntasks-per-node')) \
        == ('64', '1')
    phases, argv = launch_phases(script)
    # The source's 3 measurements, averaged.
    assert [name for name, _ in phases] == ['iozone', 'iozone_r2',
                                            'iozone_r3']
    for _, command in phases:
        assert _tool_argv(command) == _mapped(E10_IOZONE, threads=12)
    _assert_layout(script, partition, argv)


@pytest.mark.parametrize('partition', PARTITIONS)
def test_e10_iozone_cluster_mode_runs_the_source_iozone(at_64_nodes,
                                                        partition):
    (script,) = _scripts(at_64_nodes, partition, 'iozone_cluster')
    lines = script.splitlines()
    assert (_sbatch(script, 'nodes'), _sbatch(script, 'ntasks-per-node')) \
        == ('64', '1')
    assert 'export RSH=ssh' in lines
    # The client file of the job's nodes (12 each), then one iozone, not
    # launched by srun: its 768 clients start through $RSH.
    clients = shlex.split(next(ln for ln in lines if 'iozone_clients' in ln))
    run_dir = clients[clients.index('--run-dir') + 1]
    client_file = f'{run_dir}/iozone.clients'
    assert clients[clients.index('--per-host'):] == [
        '--per-host', '12', '--iozone', '/opt/pfsbench/view/bin/iozone',
        '--output', client_file]
    (master,) = [ln for ln in lines
                 if ln.startswith('/opt/pfsbench/view/bin/iozone ')]
    argv = _tool_argv(master)
    assert argv[:14] == _mapped(E10_IOZONE, threads=768)[:14]
    assert argv[14:] == ['-C', '-+m', client_file]
    assert not any(ln.startswith('srun ') for ln in lines)
    _assert_layout(script, partition, ['--run-dir', run_dir])


def test_e8_iozone_is_the_source_iozone(tmp_path):
    proc = run_reframe(['--system', f'{SYSTEM}:lfs5', '-c',
                        str(CHECKS / 'iozone'), '-n', 'iozone_one_node',
                        '--dry-run'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    scripts = _scripts(tmp_path, 'lfs5', 'iozone_one_node')
    assert len(scripts) == 12
    seen = set()
    for script in scripts:
        assert (_sbatch(script, 'nodes'), _sbatch(script, 'ntasks')) == \
            ('1', '1')
        ((_, command),), argv = launch_phases(script)
        threads = int(shlex.split(command)[shlex.split(command).index('-t')
                                           + 1])
        seen.add(threads)
        assert _tool_argv(command) == _mapped(E8_IOZONE, threads=threads)
        _assert_layout(script, 'lfs5', argv)
    assert seen == set(range(1, 13))


@pytest.fixture(scope='module')
def e19_and_averaged(tmp_path_factory):
    """One dry run of E19 at 64 nodes and of the averaged (full) E7 and
    E8 cases on every partition."""
    runs = tmp_path_factory.mktemp('seed001-e19')
    proc = run_reframe(['--system', SYSTEM, '-c', str(CHECKS / 'bonnie'),
                        '-c', str(CHECKS / 'iozone'),
                        '-n', 'iozone_single_per_node', '-n',
                        'bonnie_averaged_per_node', '-n',
                        'iozone_averaged_one_node', '-P', 'nodes=64',
                        '-P', 'processes=4', '--dry-run'], runs)
    assert proc.returncode == 0, proc.stdout
    assert 'Ran 12/12 test case(s)' in proc.stdout, proc.stdout
    return runs


@pytest.mark.parametrize('partition', PARTITIONS)
def test_e19_is_the_source_iozone_once_per_node(e19_and_averaged,
                                                partition):
    (script,) = _scripts(e19_and_averaged, partition,
                         'iozone_single_per_node')
    assert (_sbatch(script, 'nodes'), _sbatch(script, 'ntasks-per-node')) \
        == ('64', '1')
    # One iozone per node behind the barrier, every sub-test (no -i), one
    # measurement; Panasas without -I, as the source.
    ((name, command),), argv = launch_phases(script)
    source = E19_IOZONE_PANFS if partition == 'panfs' else E19_IOZONE
    assert name == 'iozone' and _tool_argv(command) == _mapped(source)
    _assert_layout(script, partition, argv)


@pytest.mark.parametrize('partition', PARTITIONS)
@pytest.mark.parametrize('test,source,threads', [
    ('bonnie_averaged_per_node', E7_BONNIE, None),
    ('iozone_averaged_one_node', E8_IOZONE, 4),
], ids=['E7', 'E8'])
def test_e7_e8_full_cases_average_3_runs(e19_and_averaged, partition,
                                         test, source, threads):
    (script,) = _scripts(e19_and_averaged, partition, test)
    phases, argv = launch_phases(script)
    tool = 'bonnie' if test.startswith('bonnie') else 'iozone'
    assert [name for name, _ in phases] == [tool, f'{tool}_r2',
                                            f'{tool}_r3']
    for _, command in phases:
        assert _tool_argv(command) == _mapped(source, threads=threads)
    _assert_layout(script, partition, argv)


def test_averaged_cases_are_full_only(tmp_path):
    listed = {}
    # -t is a regular expression: the quick and nightly suites in one go.
    for tag in ('quick|nightly', 'full'):
        proc = run_reframe(['--system', f'{SYSTEM}:lfs3', '-c',
                            str(CHECKS / 'bonnie'), '-c',
                            str(CHECKS / 'iozone'), '-t', tag, '-l'],
                           tmp_path)
        assert proc.returncode == 0, proc.stdout
        listed[tag] = proc.stdout
    for name in ('bonnie_averaged_per_node', 'iozone_averaged_one_node',
                 'iozone_single_per_node'):
        assert name not in listed['quick|nightly']
        assert f'- {name} ' in listed['full']
    # The nightly keeps its one run.
    assert '- bonnie_per_node %nodes=1 ' in listed['quick|nightly']
    assert '- iozone_one_node %processes=12 ' in listed['quick|nightly']


def test_e5_sweeps_count_3_with_bonnie_beside_ior(tmp_path):
    proc = run_reframe(['--system', f'{SYSTEM}:lfs3', '-c',
                        str(CHECKS / 'bonnie'), '-c', str(CHECKS / 'ior'),
                        '-n', 'bonnie_lustre_stripe|ior_lustre_stripe',
                        '-l'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    # 8 counts x 8 sizes, for each tool.
    assert 'Found 128 check(s)' in proc.stdout
    assert '- bonnie_lustre_stripe %layout=3x1m' in proc.stdout
    assert '- ior_lustre_stripe_bandwidth %stripe_count=3 %stripe_size=1m' \
        in proc.stdout
    proc = run_reframe(['--system', f'{SYSTEM}:lfs3', '-c',
                        str(CHECKS / 'bonnie'), '-n', 'bonnie_lustre_stripe',
                        '-P', 'layout=3x1m', '--dry-run'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    (script,) = _scripts(tmp_path, 'lfs3', 'bonnie_lustre_stripe')
    # One bonnie, as the source ran it, on one node, in a directory of
    # stripe count 3, 1 MiB stripes.
    assert (_sbatch(script, 'nodes'), _sbatch(script, 'ntasks')) == \
        ('1', '1')
    ((_, command),), argv = launch_phases(script)
    assert _tool_argv(command) == _mapped(E7_BONNIE)
    run_dir = argv[argv.index('--run-dir') + 1]
    assert f'lfs setstripe -c 3 -S 1m {run_dir}' in script.splitlines()


def test_e5_is_not_offered_without_lustre(tmp_path):
    proc = run_reframe(['--system', f'{SYSTEM}:panfs', '-c',
                        str(CHECKS / 'bonnie'), '-l'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert 'bonnie_lustre_stripe' not in proc.stdout
    assert 'bonnie_per_node %nodes=64' in proc.stdout


def _figure_names():
    """Every figure name the bonnie++ and dd/iozone streams checks log."""
    suffixes = [suffix for group in FIGURE_GROUPS for suffix, _, _ in group]
    measures = [name for _, name in bonnie_output.STREAM_MEASURES] + [
        'write', 'read', 'readers', 'initial_writers']
    return {m + s for m in measures for s in suffixes}


@pytest.mark.parametrize('check,partition,index,figures', [
    ('dd_stream_per_node', 'lfs3', (64,), {'write_bw_sum': 5700,
                                           'read_bw_sum': 3600}),
    ('dd_stream_per_node', 'lfs4', (64,), {'write_bw_sum': 4600,
                                           'read_bw_sum': 5000}),
    ('dd_stream_per_node', 'lfs5', (64,), {'write_bw_sum': 13300,
                                           'read_bw_sum': 17700}),
    ('dd_stream_per_node', 'panfs', (64,), {'write_bw_sum': 2800,
                                            'read_bw_sum': 2800}),
    # E7: on the check that averages 3 runs, as the source did.
    ('bonnie_averaged_per_node', 'lfs3', (64,),
     {'block_write_bw_trimmed': 6700, 'block_read_bw_trimmed': 4000}),
    ('bonnie_averaged_per_node', 'lfs5', (64,),
     {'block_write_bw_trimmed': 11500, 'block_read_bw_trimmed': 21800}),
    ('dd_streams_one_node', 'lfs5', (4,), {'write_bw_sum': 3000,
                                           'read_bw_sum': 1700}),
    ('iozone_one_node', 'lfs5', (4,), {'readers_bw_sum': 3200}),
])
def test_published_figures_are_references(check, partition, index,
                                          figures):
    path = str(REPO / 'config' / 'references' / f'{SYSTEM}.yaml')
    reference = references.for_check(path, check)
    entry = reference[f'{SYSTEM}:{partition}']
    for key in index:
        entry = entry[key]
    assert {name: ref[0] for name, ref in entry.items()} == figures
    # Figures the checks really log (a misspelt one would gate nothing),
    # -15 %, no upper bound, MB/s.
    assert set(entry) <= _figure_names()
    assert {ref[1:] for ref in entry.values()} == {(-0.15, None, 'MB/s')}


def test_e7_reference_is_on_the_averaged_check_only():
    path = str(REPO / 'config' / 'references' / f'{SYSTEM}.yaml')
    # The one-run nightly check is measured and logged, not judged
    # against the source's 3-run averages.
    assert references.for_check(path, 'bonnie_per_node') is None
    assert references.for_check(path, 'bonnie_averaged_per_node')


@pytest.mark.parametrize('partition', PARTITIONS)
def test_check_config_accepts_every_partition(partition, capsys):
    assert main(['check-config', '--system', f'{SYSTEM}:{partition}']) == 0
    out = capsys.readouterr().out
    assert out.startswith(f'{SYSTEM}:{partition}: ok (')
    assert f'config/references/{SYSTEM}.yaml: 21 reference(s): ok' in out


@pytest.mark.parametrize('partition,checks,reframe_args,test,render_args', [
    ('lfs4', 'dd', ['-n', 'dd_stream_per_node', '-P', 'nodes=64'],
     'dd_stream_per_node', ['E6', '--nodes', '64']),
    ('lfs4', 'bonnie', ['-n', 'bonnie_per_node', '-P', 'nodes=64'],
     'bonnie_per_node', ['E7', '--nodes', '64']),
    ('panfs', 'bonnie', ['-n', 'bonnie_per_node', '-P', 'nodes=8'],
     'bonnie_per_node', ['E7', '--nodes', '8']),
    ('lfs5', 'iozone', ['-n', 'iozone_one_node', '-P', 'processes=4'],
     'iozone_one_node', ['E8']),
    ('lfs3', 'iozone', ['-n', 'iozone_one_node', '-P', 'processes=12'],
     'iozone_one_node', ['E8', '--processes', '12']),
], ids=['E6-lfs4', 'E7-lfs4', 'E7-panfs', 'E8-4', 'E8-12'])
def test_rendered_job_is_the_dry_run_job(tmp_path, partition, checks,
                                         reframe_args, test, render_args):
    proc = run_reframe(['--system', f'{SYSTEM}:{partition}', '-c',
                        str(CHECKS / checks), *reframe_args, '--dry-run'],
                       tmp_path)
    assert proc.returncode == 0, proc.stdout
    (dry,) = _scripts(tmp_path, partition, test)
    # As a user runs it (the console script's Python is ReFrame's).
    code, rendered, err = pfsbench(['render', *render_args, '--system',
                                    f'{SYSTEM}:{partition}'], os.environ)
    assert code == 0, err
    _, dry_lines = job_lines(dry)
    _, rendered_lines = job_lines(rendered)
    # The same job, line by line: layout (lfs4's count 12; none on
    # panfs), the same command builders, the same runner options.
    assert rendered_lines == dry_lines
    assert any(ln.startswith('srun ') for ln in rendered_lines)
    assert ('lfs setstripe -c 12 -S 1m $RUN_DIR' in rendered_lines) == \
        (partition == 'lfs4')


def test_partition_stripe_count_is_for_the_seed_families_only(tmp_path):
    # lfs4's extras.lustre_stripe_count (12) replaces seed 001's 4 in its
    # families; fio, which sets no layout of its own, still sets none.
    proc = run_reframe(['--system', f'{SYSTEM}:lfs4', '-c',
                        str(CHECKS / 'fio'), '-c', str(CHECKS / 'dd'),
                        '-n', 'fio_streams', '-n', 'dd_streams_one_node',
                        '-P', 'nodes=1', '-P', 'streams_per_node=1',
                        '--dry-run'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    (dd_script,) = _scripts(tmp_path, 'lfs4', 'dd_streams_one_node')
    (fio_script,) = _scripts(tmp_path, 'lfs4', 'fio_streams')
    assert 'lfs setstripe -c 12 -S 1m ' in dd_script
    assert 'lfs setstripe' not in fio_script
