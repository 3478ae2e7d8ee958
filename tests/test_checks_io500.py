# SPDX-License-Identifier: BSD-3-Clause
"""The real io500 binary as a check (issue 21, item 4):
reframe-checks/io500/io500_list_run.py through the real ``reframe``.

Where an io500 binary is installed (PATH, /opt/io500/bin or
``PFSBENCH_IO500``), one run on ``local`` with a 1 s stonewall (so io500
itself calls the run invalid); elsewhere the check must skip naming it.
"""

import glob
import math
import os
import re
import shutil

import pytest

from conftest import CHECKS, run_reframe
from pfsbench.commands import io500
from test_checks_ior import _perf, _perflog

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
