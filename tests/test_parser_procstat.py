# SPDX-License-Identifier: BSD-3-Clause
"""The CPU-sample parser on this host's own /proc/stat, read through the
command the checks run (pfsbench.commands.procstat)."""

import subprocess

import pytest

from pfsbench.commands.procstat import sample_argv
from pfsbench.core.errors import ParseError
from pfsbench.parsers import procstat


def _sample():
    return subprocess.run(sample_argv(), stdout=subprocess.PIPE, check=True,
                          universal_newlines=True).stdout


def test_utilisation_between_two_samples_of_this_host():
    before = procstat.parse(_sample(), 'before')
    # Keep a CPU busy for a while so the counters advance.
    subprocess.run(['sh', '-c', 'i=0; while [ $i -lt 200000 ]; do '
                                'i=$((i+1)); done'], check=True)
    after = procstat.parse(_sample(), 'after')
    (host,) = [s.host for s in after.samples]
    assert before.sample(host).total_jiffies < after.sample(host).total_jiffies
    (percent,) = procstat.utilisation_pct(before, after).values()
    assert 0 < percent <= 100


def test_tasks_on_one_host_count_once():
    line = _sample().strip()
    result = procstat.parse(f'{line}\nother output\n{line}\n', 'step')
    assert len(result.samples) == 1


def test_a_line_without_counters_is_refused():
    host_line = _sample().split(' cpu ')[0]
    with pytest.raises(ParseError) as err:
        procstat.parse(f'{host_line} cpu\n', 'rfm_job.out')
    assert str(err.value).startswith('rfm_job.out:1: ')
    with pytest.raises(ParseError, match="expected 'pfsbench-cpu' lines"):
        procstat.parse('no samples here\n', 'rfm_job.out')
