# SPDX-License-Identifier: BSD-3-Clause
"""Slurm's time formats, read by one function
(pfsbench.site.validate.time_seconds) for a partition's time_limit, a
--time and the nightly job's ``#SBATCH --time`` (plan.planfile)."""

import pytest

from pfsbench.core.errors import ConfigError
from pfsbench.plan.planfile import job_time_limit
from pfsbench.site import validate

#: Every format sbatch(1) lists, with the seconds it means.
FORMATS = [
    ('90', 90 * 60),                        # MM
    ('45:30', 45 * 60 + 30),                # MM:SS, not HH:MM
    ('02:03:04', 2 * 3600 + 3 * 60 + 4),    # HH:MM:SS
    ('1-12', 86400 + 12 * 3600),            # D-HH
    ('1-02:30', 86400 + 2 * 3600 + 30 * 60),    # D-HH:MM
    ('2-01:02:03', 2 * 86400 + 3600 + 2 * 60 + 3),  # D-HH:MM:SS
]


@pytest.mark.parametrize('text,seconds', FORMATS)
def test_every_slurm_time_format_is_read_as_slurm_reads_it(text, seconds):
    assert validate.time_seconds(text, 'x', 'time', slurm=True) == seconds
    # A partition's time_limit in Slurm's form means the same (a bare
    # number there is ReFrame's seconds).
    if ':' in text or '-' in text:
        assert validate.time_limit(text, 'x', 'time_limit') == seconds


@pytest.mark.parametrize('text,seconds', FORMATS)
def test_the_nightly_jobs_time_is_read_in_every_format(tmp_path, text,
                                                       seconds):
    # The plan's reader took only HH:MM:SS, and no time at all otherwise.
    job = tmp_path / 'nightly.sbatch'
    job.write_text(f'#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --time={text}\n')
    assert job_time_limit(str(job)) == seconds


def test_a_job_without_a_readable_time_has_none(tmp_path):
    job = tmp_path / 'nightly.sbatch'
    assert job_time_limit(str(job)) is None
    job.write_text('#SBATCH --time=1:99:00\n')
    assert job_time_limit(str(job)) is None
    job.write_text('#SBATCH --nodes=1\n')
    assert job_time_limit(str(job)) is None
    with pytest.raises(ConfigError, match='out of range'):
        validate.time_seconds('1:99:00', 'x', '--time', slurm=True)
