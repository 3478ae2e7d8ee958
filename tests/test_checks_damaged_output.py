# SPDX-License-Identifier: BSD-3-Clause
"""A check whose tool output is damaged fails with the parser's reason, in
ReFrame's report and the gate's, and the run goes on (issue 27, item 4).

The real mdtest runs on the localhost Slurm cluster through a wrapper (the
check's ``mdtest_binary``) that appends another rank's warning to its first
summary row (with a byte that is not UTF-8): the row that made the old
summary pattern backtrack for hours.
"""

import os
import shutil
import time

import pytest

from conftest import CHECKS, run_reframe
from test_checks_ior import idle_slurm
from test_gate_slurm_e2e import _pfsbench

#: Any real mdtest build, the newest first (any one will do).
MDTEST_BINARY = next((p for p in ('/opt/ior/bin/mdtest',
                                  '/opt/ior-4.0.0/bin/mdtest',
                                  '/opt/ior-3.3.0/bin/mdtest',
                                  shutil.which('mdtest'))
                      if p and os.access(p, os.X_OK)), None)
#: What lands on the summary row (as another rank's stderr would), with a
#: byte that is not UTF-8 (octal escape for the wrapper's printf).
APPENDED = r' WARNING: rank 3: unable to stat \377file'
#: Seconds the two damaged cases may take end to end: generous on a shared
#: machine (they take ~1 min here); the hang this guards against is hours.
LIMIT_S = 600

# idle_slurm is a fixture: imported so that pytest finds it here.
assert idle_slurm


@pytest.mark.skipif(MDTEST_BINARY is None,
                    reason='no mdtest binary (/opt/ior*/bin/mdtest or mdtest '
                           'on PATH); build IOR with Spack, see docs/spack.md')
@pytest.mark.slurm
def test_warning_appended_to_a_summary_row_fails_the_case(idle_slurm,
                                                          tmp_path):
    wrapper = tmp_path / 'mdtest'
    wrapper.write_text(
        '#!/bin/bash\n'
        '# The real mdtest; its first summary row gets a warning appended.\n'
        'set -o pipefail\n'
        f"tail=$(printf '{APPENDED}')\n"
        f'{MDTEST_BINARY} "$@" | awk -v tail="$tail" '
        "'!done && /^ +File creation/ { $0 = $0 tail; done = 1 } "
        "{ print; fflush() }'\n")
    wrapper.chmod(0o755)
    runs = tmp_path / 'runs'
    start = time.monotonic()
    proc = run_reframe(['--system', 'localslurm:srun',
                        '-c', str(CHECKS / 'mdtest'),
                        '-n', 'mdtest_metadata_rates', '-P', 'kind=files',
                        '-P', 'access=unique,shared', '-P', 'nodes=1',
                        '-P', 'tasks_per_node=1', '-S', 'items_per_task=50',
                        '-S', 'iterations=1', '-S', f'mdtest_binary={wrapper}',
                        '-r'], runs, env=idle_slurm, timeout=LIMIT_S)
    took = time.monotonic() - start
    print(proc.stdout[-3000:])
    print(f'reframe took {took:.0f} s')
    assert proc.returncode != 0
    # Both cases ran: the first one's failure did not stop the session.
    assert 'Ran 2/2 test case(s)' in proc.stdout, proc.stdout
    # The parser's reason, and where the byte that is not UTF-8 is.
    reason = ("expected 4 figures (Max, Min, Mean, Std Dev) after 'File "
              "creation' (undecodable bytes at rfm_job.out:")
    assert proc.stdout.count(reason) >= 2, proc.stdout
    assert 'WARNING: rank 3: unable to stat \ufffdfile' in proc.stdout
    assert 'Traceback' not in proc.stdout

    # The gate refuses the session as a baseline, quoting the same reason.
    code, _, err = _pfsbench(['baseline', 'record', 'damaged',
                              '--db', str(runs / 'results.db')])
    assert code == 3, err
    assert 'failed in sanity' in err and reason in err, err
