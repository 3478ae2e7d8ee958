# SPDX-License-Identifier: BSD-3-Clause
"""The IOR and mdtest checks, not only their parsers, on every IOR build a
site may have (issue 21, item 2).

IOR 3.3.0 is still the IOR of many production systems; its ``-h`` prints
uninitialised memory, and once made every IOR check fail in setup while
every parser test passed.  So each build that :mod:`tool_builds` finds
(3.3.0, 4.0.0 and main by default; ``PFSBENCH_IOR_BUILDS`` overrides where
they are) runs, through the real ``reframe`` at the smallest sizes:

- on ``local``: ior_bandwidth, ior_io500_phases, mdtest_io500_phases,
  io500_suite_run (all IO500 phases in one job, its mdtest the one beside
  the build's ior), mdtest_metadata_rates and one seed family each (ior_posix_n_to_n_bandwidth,
  seed 003; mdtest_e17_stride_sync, seed 004), in one reframe run;
- through ``localslurm`` (marked ``slurm``): ior_bandwidth and
  mdtest_metadata_rates on 2 nodes x 1 task.

A missing build skips its cases, naming the build and the path looked at.
IO500's current command lines use options IOR 3.3.0 lacks
(``--dataPacketType``, ``saveRankPerformanceDetailsCSV``): with a build
named ``3.*`` the three IO500 checks must skip, saying so; every other check
must pass.
"""

import glob
import math
import re

import pytest

from conftest import CHECKS, run_reframe
from pfsbench.commands import io500
from tool_builds import ior_builds, pfind

BUILDS = ior_builds()

#: check -> (binary variable, tool, its smallest case's -P/-S words), on
#: local (one node).
LOCAL_CASES = {
    'ior_bandwidth': ('ior_binary', 'ior', [
        '-P', 'api=POSIX', '-P', 'access=fpp', '-P', 'transfer_size=1m',
        '-P', 'scale=1x1', '-S', 'block_size=4m', '-S', 'repetitions=1']),
    'ior_posix_n_to_n_bandwidth': ('ior_binary', 'ior', [
        '-P', 'transfer_size=1m', '-P', 'tasks_per_node=1', '-S', 'nodes=1',
        '-S', 'block_size=4m']),
    'ior_io500_phases': ('ior_binary', 'ior', [
        '-P', 'nodes=1', '-P', 'tasks_per_node=1', '-S', 'stonewall_s=1']),
    'mdtest_metadata_rates': ('mdtest_binary', 'mdtest', [
        '-P', 'kind=files', '-P', 'access=unique', '-P', 'nodes=1',
        '-P', 'tasks_per_node=1', '-S', 'items_per_task=50',
        '-S', 'iterations=1']),
    'mdtest_e17_stride_sync': ('mdtest_binary', 'mdtest', [
        '-P', 'clients=single', '-P', 'np=1', '-S', 'total_items=200',
        '-S', 'pre_delay_s=0']),
    'mdtest_io500_phases': ('mdtest_binary', 'mdtest', [
        '-P', 'nodes=1', '-P', 'tasks_per_node=1', '-S', 'stonewall_s=1']),
    # All twelve in one job; its mdtest is the one beside the build's ior.
    'io500_suite_run': ('ior_binary', 'ior', [
        '-P', 'nodes=1', '-P', 'tasks_per_node=1', '-S', 'stonewall_s=1',
        '-S', 'mdtest_files_per_task=2000']),
}
#: Through Slurm: the two checks of the issue, 2 nodes x 1 task.
SLURM_CASES = {
    'ior_bandwidth': ('ior_binary', 'ior', [
        '-P', 'api=POSIX', '-P', 'access=fpp', '-P', 'transfer_size=1m',
        '-P', 'scale=2x1', '-S', 'block_size=4m', '-S', 'repetitions=1']),
    'mdtest_metadata_rates': ('mdtest_binary', 'mdtest', [
        '-P', 'kind=files', '-P', 'access=unique', '-P', 'nodes=2',
        '-P', 'tasks_per_node=1', '-S', 'items_per_task=50',
        '-S', 'iterations=1']),
}


def _scoped(check, words):
    """``-P name=v`` / ``-S name=v`` for ``check`` alone (``check.name``)."""
    return [w if w.startswith('-') else f'{check}.{w}' for w in words]


def _run_matrix_row(build, cases, runs, system, env=None):
    """Run ``cases`` with ``build``'s tools in one reframe; the output."""
    for tool in sorted({tool for _, tool, _ in cases.values()}):
        if build.missing_tool(tool):
            pytest.skip(build.missing_tool(tool))
    args = ['--system', system, '-c', str(CHECKS / 'ior'),
            '-c', str(CHECKS / 'mdtest'), '-c', str(CHECKS / 'io500'),
            '-n', '|'.join(
                f'^{check}\\b' for check in cases)]
    for check, (variable, tool, words) in cases.items():
        args += _scoped(check, words)
        args += ['-S', f'{check}.{variable}={getattr(build, tool)}']
    for check in ('mdtest_io500_phases', 'io500_suite_run'):
        if check in cases:
            # IO500's find phase: pfind, or a skip that names it.
            args += ['-S', f'{check}.pfind_binary='
                           f'{pfind() or "/nonexistent/pfind"}']
    proc = run_reframe(args + ['-r'], runs, env=env)
    return proc.stdout, proc.returncode


#: The checks that run IO500's command lines.
IO500_CHECKS = ('ior_io500_phases', 'mdtest_io500_phases', 'io500_suite_run')
#: The checks that run IO500's find phase.
FIND_CHECKS = ('mdtest_io500_phases', 'io500_suite_run')
#: The sanity reason of an IO500 write phase that ended before its
#: stonewall (pfsbench.commands.io500's validity rule).
_TOO_FAST = re.compile(r'Reason: sanity error: mdtest-(?:easy|hard)-write '
                       r'is invalid \(IO500\): it ran [0-9.]+ s, shorter '
                       r'than its stonewall')


def _expected_skips(build, cases):
    if build.name.startswith('3.'):
        return [check for check in IO500_CHECKS if check in cases]
    if pfind() is None:
        return [check for check in FIND_CHECKS if check in cases]
    return []


def _assert_io500_score_is_the_geometric_mean(record):
    # IO500's group score (src/main.c calc_score) of the phases the record
    # holds: io500_bw of ior_io500_phases, io500_md of mdtest_io500_phases.
    for score, group in (('io500_bw', 'bw'), ('io500_md', 'md')):
        m = re.search(rf'\|{score}=([0-9.e+-]+)\|', record)
        if not m:
            continue
        values = [float(re.search(rf'\|{p.name.replace("-", "_")}='
                                  rf'([0-9.e+-]+)\|', record).group(1))
                  for p in io500.PHASES if p.group == group]
        assert float(m.group(1)) == pytest.approx(
            math.prod(values) ** (1 / len(values)), rel=1e-9), record


def _assert_every_check_passed_with(build, cases, runs, system, partition,
                                    out, code):
    ran = len(cases)
    skipped = _expected_skips(build, cases)
    # IO500's validity rule fails a write phase shorter than its stonewall.
    # At this scale (local caps mdtest at 20000 files per task, the
    # stonewall is 1 s) an idle machine can create them all first (seen in
    # CI): the build ran and was read; only this machine was fast.
    too_fast = int(bool(_TOO_FAST.search(out)))
    if too_fast:
        assert re.search(
            r'FAIL.*\] \(\d/\d\) mdtest_io500_phases ', out), out
    assert code == (1 if too_fast else 0), out
    assert (f'Ran {ran - len(skipped)}/{ran} test case(s) from {ran} '
            f'check(s) ({too_fast} failure(s), 0 expected failure(s), '
            f'{len(skipped)} skipped') in out, out
    for check in skipped:
        tool = {'ior_io500_phases': build.ior,
                'mdtest_io500_phases': build.mdtest,
                'io500_suite_run': build.ior}[check]
        assert re.search(rf"{re.escape(tool)} lacks IO500's options "
                         rf'--dataPacketType, (--)?saveRankPerformanceDetails',
                         out) or 'no pfind binary (' in out, (check, out)
    for check, (_, tool, _) in cases.items():
        if check in skipped or (too_fast and check == 'mdtest_io500_phases'):
            continue
        path = f'{runs}/perflogs/{system}/{partition}/{check}.log'
        with open(path) as fp:
            header, *records = fp.read().splitlines()
        assert len(records) == 1, (check, records)
        # The build under test ran (its path is logged), and every figure
        # it gave is a positive number.
        assert f'|{getattr(build, tool)}|' in records[0], records[0]
        figures = [float(v) for v in re.findall(
            r'\|[a-z_0-9]+=([0-9.e+-]+)\|', records[0])]
        assert figures and all(v >= 0 for v in figures), records[0]
        assert any(v > 0 for v in figures), records[0]
        _assert_io500_score_is_the_geometric_mean(records[0])
    assert not glob.glob(f'{runs}/stage/**/pfsbench-*', recursive=True)


@pytest.mark.parametrize('build', BUILDS, ids=lambda b: b.name)
def test_checks_pass_on_local_with_each_build(tmp_path, build):
    out, code = _run_matrix_row(build, LOCAL_CASES, tmp_path, 'local')
    _assert_every_check_passed_with(build, LOCAL_CASES, tmp_path, 'local',
                                    'default', out, code)


@pytest.mark.slurm
@pytest.mark.parametrize('build', BUILDS, ids=lambda b: b.name)
def test_checks_pass_through_slurm_with_each_build(localslurm, tmp_path,
                                                   build):
    out, code = _run_matrix_row(build, SLURM_CASES, tmp_path,
                                'localslurm:srun', env=localslurm)
    _assert_every_check_passed_with(build, SLURM_CASES, tmp_path,
                                    'localslurm', 'srun', out, code)
