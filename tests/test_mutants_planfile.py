# SPDX-License-Identifier: BSD-3-Clause
"""A nightly's plan file and a job's time limit (pfsbench.plan.planfile)
through its public functions: the mutants bench/mutation.py found the
planner's tests letting through (docs/mutation.md).  Pure and fast."""

import os

import pytest

from pfsbench.core.errors import ConfigError
from pfsbench.plan import planfile

CASES = [{'display_name': 'ior %nodes=2 %api=posix'},
         {'display_name': 'dd'}]


def test_a_case_is_selected_alone_by_its_name():
    assert planfile.selection_name(CASES[0]) == 'ior%nodes=2%api=posix'


def test_a_plan_written_reads_back(tmp_path):
    path = tmp_path / 'plan'
    planfile.write_plan_file(str(path), 'hawk:cpu', ['nightly', 'io'], 5,
                             CASES, 'made by me')
    assert path.read_text() == (
        '# made by me\n'
        '# scripts/nightly.sh --plan FILE runs it (docs/nightly.md)\n'
        'system hawk:cpu\nrepeat 5\ntag nightly\ntag io\n'
        'case ior %nodes=2 %api=posix\ncase dd\n')
    assert planfile.read_plan(str(path)) == (
        'hawk:cpu', 5, ['nightly', 'io'], ['ior %nodes=2 %api=posix', 'dd'])
    assert os.listdir(tmp_path) == ['plan']
    path.write_text('system s\nrepeat 1\n\n   \ncase c\n')
    assert planfile.read_plan(str(path)) == ('s', 1, ['nightly'], ['c'])


def test_a_plan_that_cannot_be_written_is_named_and_left(tmp_path):
    where = tmp_path / 'ro'
    where.mkdir()
    (where / 'plan').mkdir()          # a directory: replace fails
    with pytest.raises(ConfigError) as err:
        planfile.write_plan_file(str(where / 'plan'), 's', [], 1, CASES, 'x')
    assert str(err.value) == (f"<command line>:--write-plan: "
                              f"'{where / 'plan'}': cannot write it: "
                              f"Is a directory")
    assert os.listdir(where) == ['plan']


@pytest.mark.parametrize('text, field, value, why', [
    ('system s\nrepeat 1\nbogus x\ncase c\n', 'line 3', "'bogus x'",
     'expected system, repeat, tag or case and a value'),
    ('system s\nrepeat 1\ncase \n', 'line 3', "'case '",
     'expected system, repeat, tag or case and a value'),
    ('repeat 1\ncase c\n', 'system', '[]', 'expected one system line'),
    ('system a\nsystem b\nrepeat 1\ncase c\n', 'system', "['a', 'b']",
     'expected one system line'),
    ('system s\ncase c\n', 'repeat', '[]', 'expected one repeat line'),
    ('system s\nrepeat 0\ncase c\n', 'repeat', "'0'",
     'expected a whole number of at least 1'),
    ('system s\nrepeat -1\ncase c\n', 'repeat', "'-1'",
     'expected a whole number of at least 1'),
    ('system s\nrepeat 2\n', 'case', "''", 'expected at least one case'),
])
def test_a_bad_plan_is_named_by_file_field_and_value(tmp_path, text, field,
                                                     value, why):
    path = tmp_path / 'plan'
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        planfile.read_plan(str(path))
    assert str(err.value) == f'{path}:{field}: {value}: {why}'


def test_a_plan_that_cannot_be_read_is_named(tmp_path):
    with pytest.raises(ConfigError) as err:
        planfile.read_plan(str(tmp_path / 'none'))
    assert str(err.value) == (f"<command line>:--plan: "
                              f"'{tmp_path / 'none'}': cannot read it: "
                              f"No such file or directory")
    binary = tmp_path / 'bin'
    binary.write_bytes(b'system s\n\xff')
    with pytest.raises(ConfigError) as err:
        planfile.read_plan(str(binary))
    assert str(err.value) == (f"<command line>:--plan: '{binary}': not "
                              f"UTF-8 text (byte 0xff at offset 9): not a "
                              f"plan --write-plan wrote")


def test_a_job_scripts_time_limit(tmp_path):
    job = tmp_path / 'job.sh'
    job.write_text('#!/bin/bash\n# SBATCH --time=9\n#SBATCH --time=1-02:03:04'
                   '\n#SBATCH --time=5\n')
    assert planfile.job_time_limit(str(job)) == 93784
    job.write_text('#SBATCH --time= 90 \n')
    assert planfile.job_time_limit(str(job)) == 5400
    job.write_text('#SBATCH --time=soon\n')
    assert planfile.job_time_limit(str(job)) is None
    job.write_text('#SBATCH --nodes=1\n')
    assert planfile.job_time_limit(str(job)) is None
    assert planfile.job_time_limit(str(tmp_path / 'none')) is None
