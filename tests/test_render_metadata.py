# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench render`` of the metadata experiments (E1-E4, E12, E13,
E15-E17):
one script per point of a check's sweep, line by line the job of
ReFrame's dry run of that case on the example systems modelled on seed
000 (4 sockets, 48 cores, 24 Lustre mounts) and seed 004 (70 clients x 16
cores), as tests/test_systems_doc.py does for E6."""

import glob
import os
import shutil

import pytest

from conftest import REPO, run_reframe
from test_systems_doc import NO_LMOD, job_lines, pfsbench

#: A tracer for E12 (seed 003) and the server's CPU sampled from the
#: client (E1-E4): the example systems declare neither.
TRACER = ("'tracers': [{'name': 'lustre_debug', "
          "'on': 'lctl set_param debug=-1', "
          "'off': 'lctl set_param debug=0'}], "
          "'server_cpu_command': 'ssh mds1 head -n 1 /proc/stat',\n")

#: E16's mdsrate on seed 004's clients (a site's own build).
SITE_MDSRATE = "'mdsrate': '/opt/lustre/tests/mdsrate',\n"


@pytest.fixture(scope='module')
def configured(tmp_path_factory):
    """(config dir, environment): config/ with a tracer and a server CPU
    command on seed 000's MDS, mdsrate on seed 004's clients."""
    tmp = tmp_path_factory.mktemp('cfg')
    config = tmp / 'config'
    shutil.copytree(REPO / 'config', config)
    path = config / 'systems' / 'example_seed000.py'
    text = path.read_text()
    anchor = "                        'spack_view': '/opt/pfsbench/view',\n"
    assert anchor in text
    path.write_text(text.replace(anchor, anchor + ' ' * 24 + TRACER))
    # Seed 004's clients with Lustre's mdsrate (E16's own tool).
    path = config / 'systems' / 'example_seed004.py'
    text = path.read_text()
    assert anchor in text
    path.write_text(text.replace(anchor, anchor + ' ' * 24 + SITE_MDSRATE))
    env = dict(os.environ, PFSBENCH_RUNS=str(tmp / 'runs'), **NO_LMOD)
    for name in ('PFSBENCH_SCRATCH', 'PFSBENCH_SPACK_ENV'):
        env.pop(name, None)
    return config, env


def _lines(script):
    """:func:`job_lines` with the run directory's name as ``$RUN_NAME``
    (E1-E3 see the run directory through other mounts by its name), and
    the ``#SBATCH`` directives as sbatch reads them: a set, the last of a
    repeated option winning (ReFrame writes --nodes=<tasks> before an
    overcommitting check's own --nodes, except where the check writes its
    layout alone)."""
    run_dir, lines = job_lines(script)
    name = os.path.basename(run_dir)
    last = {}
    for ln in lines:
        if ln.startswith('#SBATCH '):
            last[ln.split('=', 1)[0]] = ln
    body = [ln for ln in lines if not ln.startswith('#SBATCH ')]
    lines = sorted(last.values()) + body
    return [ln.replace(name, '$RUN_NAME') if name != '$RUN_DIR' else ln
            for ln in lines if not ln.startswith('RUN_NAME=')]


SEED000, SEED004 = 'example_seed000:mds', 'example_seed004:clients'
#: One job per experiment and per way of placing it (the sweeps themselves,
#: every point, are compared in tests/test_experiments.py without ReFrame).
CASES = [
    # 96 processes on 48 CPUs: --overcommit.
    (SEED000, 'mdtest_e1_core_scaling', {'active_cores': 48}, 'E1', []),
    (SEED000, 'mdtest_e2_socket_binding', {'sockets': 3}, 'E2', []),
    (SEED000, 'mdtest_e3_mount_points', {'mounts': 24}, 'E3', []),
    (SEED000, 'mdtest_e12_tracing_overhead',
     {'tracer_index': 0, 'tasks_per_node': 16}, 'E12', []),
    (SEED004, 'mdtest_e15_metabench_standin',
     {'clients': 'single', 'np': 63, 'directory': 'different'}, 'E15', []),
    # --nodes and --tasks-per-node override the point's layout.  The real
    # mdsrate where the partition declares it (seed 004's tool; mdtest's
    # stand-in renders as E15's and E17's jobs do).
    (SEED004, 'mdsrate_e16', {'clients': 'multi', 'np': 16},
     'E16', ['--point', 'clients=single', '--point', 'np=1', '--nodes',
             '16', '--tasks-per-node', '1']),
    # Seed 004's NP is the run's: 16 tasks, one on each of 16 clients.
    (SEED004, 'mdtest_e17_stride_sync', {'clients': 'multi', 'np': 16},
     'E17', []),
    # An ext4 target: seed 000's 3M files, its remount between phases.
    (SEED000, 'mdtest_e4_targets', {'target_index': 2, 'active_cores': 12},
     'E4', []),
    (SEED000, 'mds_survey_rates', {}, 'E13', []),
]


@pytest.mark.parametrize(
    'system,test,point,experiment,more', CASES,
    ids=[f'{c[3]}-' + '-'.join(f'{k}={v}' for k, v in c[2].items()) +
         ('-options' if c[4] else '') for c in CASES])
def test_rendered_point_is_the_dry_run_job(configured, tmp_path, system,
                                           test, point, experiment, more):
    config, env = configured
    params = [w for k, v in point.items() for w in ('-P', f'{k}={v}')]
    proc = run_reframe(['--system', system, '-c', 'reframe-checks/mdtest',
                        '-n', test, *params, '--dry-run'], tmp_path,
                       env=NO_LMOD, config=config / 'settings.py')
    assert proc.returncode == 0, proc.stdout
    assert 'Ran 1/1 test case(s)' in proc.stdout, proc.stdout
    name, partition = system.split(':')
    # An unparameterised check's stage directory has no hash suffix.
    (path,) = glob.glob(f'{tmp_path}/stage/{name}/{partition}/builtin/'
                        f'{test}*/rfm_job.sh')
    dry = open(path).read()
    chosen = [] if more else [f'--point={k}={v}' for k, v in point.items()]
    code, rendered, err = pfsbench(['render', experiment, *chosen, *more,
                                    '--system', system, '--config-dir',
                                    str(config)], env)
    assert code == 0, err
    assert _lines(rendered) == _lines(dry)
    if experiment in ('E1', 'E2', 'E3', 'E4'):
        assert "sh -c 'echo \"pfsbench-cpu server $(ssh mds1 head -n 1 " \
               "/proc/stat)\"'" in _lines(rendered)


def test_output_dir_writes_every_point_the_partition_runs(configured,
                                                          tmp_path):
    config, env = configured
    out = tmp_path / 'e3'
    code, listed, err = pfsbench(['render', 'E3', '--system', SEED000,
                                  '--config-dir', str(config),
                                  '--output-dir', str(out)], env)
    assert code == 0, err
    names = sorted(os.listdir(out))
    assert names == sorted(f'E3-mounts-{m}.sbatch'
                           for m in (1, 2, 6, 12, 24))
    assert listed.split() == [str(out / f'E3-mounts-{m}.sbatch')
                              for m in (1, 2, 6, 12, 24)]
    # Each header renders its own script alone, the same again.
    text = (out / 'E3-mounts-6.sbatch').read_text()
    header = next(ln for ln in text.splitlines()
                  if ln.startswith('# Rendered by: '))
    assert '--point=mounts=6 -o E3-mounts-6.sbatch' in header
    assert '--output-dir' not in header
    code, again, err = pfsbench(
        ['render', 'E3', '--system', SEED000, '--config-dir', str(config),
         '--point', 'mounts=6'], env)
    assert code == 0, err
    assert _lines(again) == _lines(text)


def test_points_a_partition_cannot_run_are_named(configured, tmp_path):
    config, env = configured
    # Without a system: one mount point, no tracer.
    code, listed, err = pfsbench(['render', 'E3', '--target',
                                  '/lustre/scratch/pfsbench',
                                  '--output-dir', str(tmp_path)], env)
    assert code == 0, err
    assert os.listdir(tmp_path) == ['E3-mounts-1.sbatch']
    assert "skipped E3-mounts-24.sbatch: <command line>:--point: " \
           "'mounts=24': the target has 1 mount point(s)" in err
    code, _, err = pfsbench(['render', 'E12', '--target', '/lustre/x',
                             '--point', 'tracer_index=0',
                             '--point', 'tasks_per_node=1'], env)
    assert code == 2 and 'use --system' in err


@pytest.mark.parametrize('argv,fragment', [
    (['render', 'E1', '--system', SEED000],
     'E1 sweeps active_cores: give --point NAME=VALUE for active_cores'),
    (['render', 'E1', '--system', SEED000, '--point', 'active_cores=7'],
     "'active_cores=7': expected one of 6, 12, 18, 24, 30, 36, 42, 48"),
    (['render', 'E1', '--system', SEED000, '--point', 'sockets=2'],
     "--point: 'sockets': E1 sweeps active_cores"),
    (['render', 'E6', '--target', '/x/y', '--point', 'nodes=2'],
     "--point: 'nodes': E6 sweeps nothing"),
    (['render', 'E2', '--system', SEED000, '--point', 'active_cores'],
     "--point: 'active_cores': expected NAME=VALUE"),
    (['render', 'E13', '--system', SEED004],
     'E13 runs mds-survey on a Lustre MDS: the partition needs the '
     'lustre_mds feature'),
], ids=['missing', 'value', 'name', 'no-sweep', 'no-value', 'not-an-mds'])
def test_bad_points_are_one_line_exit_2(configured, argv, fragment):
    config, env = configured
    code, out, err = pfsbench(argv + ['--config-dir', str(config)], env)
    assert code == 2 and out == ''
    assert fragment in err and 'Traceback' not in err, err
