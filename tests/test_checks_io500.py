# SPDX-License-Identifier: BSD-3-Clause
"""The IO500 checks through the real ``reframe``.

The real io500 binary as a check (issue 21, item 4,
reframe-checks/io500/io500_list_run.py): where an io500 binary is
installed (PATH, /opt/io500/bin or ``PFSBENCH_IO500``), one run on
``local`` with a 1 s stonewall (so io500 itself calls the run invalid);
elsewhere the check must skip naming it.

The suite's own phases in one job (issue 21, item 3,
reframe-checks/io500/io500_suite_run.py): its job script against the
recorded real ``io500 --dry-run`` (order, and every phase flag for flag);
one run on ``local`` with IOR main (tool_builds) whose logged score is
IO500's score of its logged phases, invalid by IO500's rules but passed;
the gate on those logged figures; and one run through ``localslurm`` on
2 nodes.
"""

import glob
import json
import math
import os
import re
import shlex
import shutil

import pytest

import synth
from conftest import (CHECKS, job_script, perflog, perflog_dicts,
                      run_reframe)
from pfsbench import cli
from pfsbench.commands import io500
from pfsbench.parsers import text
from test_checks_ior import _perf, _perflog
from test_commands_io500 import RECORDED, _phases, _words
from tool_builds import ior_builds, pfind

IO500_CHECKS = str(CHECKS / 'io500')
IO500 = next((p for p in (os.environ.get('PFSBENCH_IO500'),
                          shutil.which('io500'), '/opt/io500/bin/io500')
              if p and os.access(p, os.X_OK)), None)
needs_io500 = pytest.mark.skipif(
    IO500 is None, reason='no io500 binary (PFSBENCH_IO500, PATH or '
                          '/opt/io500/bin); spack install io500')


def test_missing_io500_skips_naming_it(tmp_path):
    proc = run_reframe(['-c', IO500_CHECKS, '-n', 'io500_list_run',
                        '-P', 'nodes=1', '-P', 'tasks_per_node=1',
                        '-S', 'tool_binary=/nonexistent/io500', '-r'],
                       tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert '1 skipped' in proc.stdout
    assert 'no io500 binary (/nonexistent/io500: no such file or ' \
           'directory)' in proc.stdout


@needs_io500
def test_io500_on_local_reports_its_phases_and_score(tmp_path):
    proc = run_reframe(['-c', IO500_CHECKS, '-n', 'io500_list_run',
                        '-P', 'nodes=1', '-P', 'tasks_per_node=1',
                        '-S', 'stonewall_s=1', '-S', f'tool_binary={IO500}',
                        '-r'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    header, (record,) = _perflog(tmp_path, 'local', 'default',
                                 'io500_list_run')
    figures = {p.name: _perf(record, p.name.replace('-', '_'))[0]
               for p in io500.PHASES}
    assert all(v > 0 for v in figures.values()), record
    # The logged scores are io500's own; they are the geometric means of
    # its phase figures (as logged, six decimals), as IO500 defines them.
    bw = math.prod(v for p, v in figures.items()
                   if io500.PHASES[[q.name for q in io500.PHASES].index(p)]
                   .group == 'bw') ** (1 / 4)
    md = math.prod(v for p, v in figures.items()
                   if p not in ('ior-easy-write', 'ior-hard-write',
                                'ior-easy-read', 'ior-hard-read')) ** (1 / 8)
    assert _perf(record, 'io500_bw')[0] == pytest.approx(bw, abs=2e-6)
    assert _perf(record, 'io500_md')[0] == pytest.approx(md, rel=1e-6)
    assert _perf(record, 'io500_score')[0] == pytest.approx(
        math.sqrt(bw * md), rel=1e-6)
    # A 1 s stonewall is not a list entry: io500 says so, and so does the
    # record.
    # (The loggable attributes end the line: count from the end.)
    names, values = header.split('|'), record.split('|')
    position = names.index('io500_valid') - len(names)
    assert values[position] == 'false', record
    (out,) = glob.glob(f'{tmp_path}/output/local/default/builtin/'
                       f'io500_list_run_*')
    ini = open(f'{out}/io500.ini').read()
    assert re.search(r'^\[debug\]\nstonewall-time = 1$', ini, re.M), ini
    assert os.path.isfile(f'{out}/result_summary.txt')
    # The data went with the run directory.
    assert not glob.glob(f'{tmp_path}/stage/**/pfsbench-*', recursive=True)


# io500_suite_run: the suite's own phases in one job --------------------------

SUITE = 'io500_suite_run'
#: The job's steps: io500's scored phases and its timestamp, in the order
#: of the recorded real ``io500 --dry-run``'s sections (but its run and
#: score, and its unscored ior-rnd4K-easy-read, which the suite does not
#: run).
DRY_RUN_ORDER = [s for s in re.findall(r'^\[(\S+)\]$', text.read_output(
    RECORDED / 'result.txt'), re.M)
    if s not in ('run', 'SCORE', 'ior-rnd4K-easy-read')]


def _steps(script):
    """``{label: argv}`` of a job script's steps, in order (the launcher's
    own words dropped)."""
    steps = {}
    lines = script.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^echo 'pfsbench-step: begin (\S+)'$", line)
        if m:
            argv = shlex.split(lines[i + 1])
            steps[m.group(1)] = argv[1:] if argv[0] == 'srun' else argv
    return steps


def test_suite_run_job_is_io500s_twelve_phases_in_its_order(tmp_path):
    # As a list site would run it: no cap, IO500's sizes and stonewall.
    proc = run_reframe(['--system', 'example_lustre:compute',
                        '-c', IO500_CHECKS, '-n', SUITE, '-P', 'nodes=2',
                        '-P', 'tasks_per_node=1', '--dry-run'], tmp_path)
    assert proc.returncode == 0, proc.stdout
    steps = _steps(job_script(tmp_path, 'example_lustre', 'compute', SUITE))
    assert list(steps) == ['mkdir'] + DRY_RUN_ORDER
    assert len(DRY_RUN_ORDER) == 13 and 'timestamp' in DRY_RUN_ORDER
    run_dir = steps['mkdir'][-1].rsplit('/results', 1)[0]
    phases, datadir, resultdir, _ = _phases(RECORDED / 'result.txt')
    for phase in io500.PHASES:
        ours = [w.replace(f'{run_dir}/data', datadir)
                .replace(f'{run_dir}/results', resultdir)
                for w in steps[phase.name]]
        # Flag for flag, but the binary, -G's value and find's -D rates.
        assert _words(ours) == _words(phases[phase.name]), phase.name


def _main_build():
    """IOR main (:mod:`tool_builds`) with its mdtest, and pfind; or skip
    naming what is missing."""
    main = {b.name: b for b in ior_builds()}.get('main')
    if main is None:
        pytest.skip('no IOR build named main (PFSBENCH_IOR_BUILDS)')
    missing = main.missing_tool('ior') or main.missing_tool('mdtest')
    if missing:
        pytest.skip(missing)
    if pfind() is None:
        pytest.skip('no pfind (PFSBENCH_PFIND, PATH, /opt/io500/bin): '
                    "IO500's find phase runs it; spack install io500")
    return main


@pytest.fixture(scope='module')
def suite_run_on_local(tmp_path_factory):
    """One io500_suite_run on local with IOR main and pfind, a 1 s
    stonewall: (runs dir, reframe's output)."""
    main = _main_build()
    runs = tmp_path_factory.mktemp('suite')
    proc = run_reframe(['-c', IO500_CHECKS, '-n', SUITE, '-P', 'nodes=1',
                        '-P', 'tasks_per_node=1', '-S', 'stonewall_s=1',
                        '-S', 'mdtest_files_per_task=2000',
                        '-S', f'ior_binary={main.ior}',
                        '-S', f'pfind_binary={pfind()}', '-r'], runs)
    return runs, proc


def test_suite_run_on_local_logs_io500s_score_of_its_phases(
        suite_run_on_local):
    runs, proc = suite_run_on_local
    # The writes ran below IO500's 300 s (a 1 s stonewall; local's caps
    # may end them sooner still): invalid, reported, not failed.
    assert proc.returncode == 0, proc.stdout
    assert 'Ran 1/1 test case(s)' in proc.stdout, proc.stdout
    (record,) = perflog_dicts(runs, 'local', 'default', SUITE)
    figures = {p.name: record[p.name.replace('-', '_')]
               for p in io500.PHASES}
    assert all(v > 0 for v in figures.values()), record
    score = io500.score(figures)
    assert record['io500_bw'] == pytest.approx(score.bw, rel=1e-9)
    assert record['io500_md'] == pytest.approx(score.md, rel=1e-9)
    assert record['io500_score'] == pytest.approx(score.total, rel=1e-9)
    assert record['io500_score'] == pytest.approx(
        math.sqrt(record['io500_bw'] * record['io500_md']), rel=1e-9)
    # IO500's rules, as io500_list_run reports io500's: not valid, and why.
    assert record['io500_valid'] == 'false', record
    invalid = record['io500_invalid']
    assert "stonewall_s: 1 s, not the list's 300 s" in invalid, invalid
    for phase in io500.PHASES:
        assert (f'{phase.name}: ran ' in invalid) == phase.stonewalled, \
            invalid
    # The mdtest beside the IOR ran, and nothing was left behind.
    assert record['mdtest_path'] == record['ior_path'][:-3] + 'mdtest'
    assert not glob.glob(f'{runs}/stage/**/pfsbench-*', recursive=True)


def _night(case, figures, t, scale=None, repeats=3):
    """A session of ``repeats`` of the logged case, its figures scaled per
    repeat (a baseline's or tonight's noise) and per figure (``scale``)."""
    uuid = f'night-{t}'
    cases = [synth.make_testcase(
        uuid, 0, i, case,
        {var: (value * noise * (scale or {}).get(var, 1.0), unit)
         for var, (value, unit) in figures.items()},
        repeat=i, time=t + i) for i, noise in
        enumerate((1.0, 1.01, 0.99)[:repeats])]
    return synth.make_report(cases, time_start=t, session_uuid=uuid)


def test_the_gate_gates_the_suite_runs_score(suite_run_on_local, tmp_path,
                                             capsys):
    # The logged figures and units of the real run, as a baseline of two
    # nights; then a night whose metadata phases ran at half speed.
    runs, _ = suite_run_on_local
    header, (line,) = perflog(runs, 'local', 'default', SUITE)
    case = line.split('|')[header.split('|').index('name')]
    figures = {var: (float(value), unit) for var, value, unit in re.findall(
        r'\|(\w+)=([0-9.e+-]+)\|([^|]+)\|', line)}
    assert {figures[v][1] for v in ('io500_bw', 'io500_md', 'io500_score')
            } == {'GiB/s', 'kIOPS', 'score'}
    db = tmp_path / 'results.db'
    day = 86400.0
    synth.write_database(str(db), [_night(case, figures, 0.0),
                                   _night(case, figures, day)])
    assert cli.main(['baseline', 'record', 'pre', '--since', '1970-01-01',
                     '--db', str(db)]) == 0
    slower = {p.name.replace('-', '_'): 0.5 for p in io500.PHASES
              if p.group == 'md'}
    slower['io500_md'] = 0.5
    slower['io500_score'] = math.sqrt(0.5)
    synth.write_database(str(db), [_night(case, figures, 2 * day, slower)])
    capsys.readouterr()
    code = cli.main(['gate', '-b', 'pre', '--db', str(db), '--format',
                     'json'])
    report = json.loads(capsys.readouterr().out)
    assert code == 1, report
    verdicts = {r['var']: r['verdict'] for r in report['results']}
    assert verdicts['io500_score'] == 'regression', verdicts
    assert verdicts['io500_md'] == 'regression', verdicts
    assert verdicts['io500_bw'] != 'regression', verdicts


@pytest.mark.slurm
def test_suite_run_through_localslurm_on_two_nodes(localslurm, tmp_path):
    main = _main_build()
    proc = run_reframe(['--system', 'localslurm:srun', '-c', IO500_CHECKS,
                        '-n', SUITE, '-P', 'nodes=2', '-P', 'tasks_per_node=1',
                        '-S', 'stonewall_s=1',
                        '-S', 'mdtest_files_per_task=2000',
                        '-S', f'ior_binary={main.ior}',
                        '-S', f'pfind_binary={pfind()}', '-r'], tmp_path,
                       env=localslurm)
    assert proc.returncode == 0, proc.stdout
    (record,) = perflog_dicts(tmp_path, 'localslurm', 'srun', SUITE)
    # One MPI job of 2 tasks per phase (the steps' task counts are
    # checked), on two nodes.
    assert record['num_tasks'] == '2', record
    assert len(record['job_nodelist'].split(',')) == 2, record
    figures = {p.name: record[p.name.replace('-', '_')]
               for p in io500.PHASES}
    assert record['io500_score'] == pytest.approx(
        io500.score(figures).total, rel=1e-9)
    assert record['mdtest_files_per_task'] == '2000'
    assert not glob.glob(f'{tmp_path}/stage/**/pfsbench-*', recursive=True)


def test_suite_run_with_a_damaged_mdtest_step_fails_naming_it(tmp_path):
    # mdtest-easy-write's summary lost (a wrapper drops its rate rows, as
    # a crashed rank would): sanity names the step; the run goes on to
    # the others and no traceback hides the reason.
    main = _main_build()
    wrapper = tmp_path / 'mdtest'
    count = tmp_path / 'calls'
    wrapper.write_text(
        '#!/bin/sh\n'
        'case "$*" in *--help*|*-h) exec ' + main.mdtest + ' "$@" ;; esac\n'
        f'echo x >> {count}\n'
        f'if [ "$(wc -l < {count})" -eq 1 ]; then\n'
        '  ' + main.mdtest + ' "$@" | grep -v -e "File creation" '
        '-e "Directory creation" -e "Tree creation"\n'
        '  exit 0\n'
        'fi\n'
        'exec ' + main.mdtest + ' "$@"\n')
    wrapper.chmod(0o755)
    proc = run_reframe(['-c', IO500_CHECKS, '-n', SUITE, '-P', 'nodes=1',
                        '-P', 'tasks_per_node=1', '-S', 'stonewall_s=1',
                        '-S', 'mdtest_files_per_task=2000',
                        '-S', f'ior_binary={main.ior}',
                        '-S', f'mdtest_binary={wrapper}',
                        '-S', f'pfind_binary={pfind()}', '-r'],
                       tmp_path / 'runs')
    assert proc.returncode != 0, proc.stdout
    assert "step 'mdtest-easy-write': mdtest reported no rate" in \
        proc.stdout, proc.stdout
    assert 'Traceback' not in proc.stdout and \
        'AttributeError' not in proc.stdout, proc.stdout
