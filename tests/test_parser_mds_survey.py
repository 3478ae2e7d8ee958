# SPDX-License-Identifier: BSD-3-Clause
"""pfsbench.parsers.mds_survey against the samples Lustre publishes
(``tests/data/mds-survey/``, see SOURCES.md there).

No test writes mds-survey output: truncation cases cut a published sample
short, and :func:`percent_change` is checked on results built from
figures, not on text.
"""

from pathlib import Path

import pytest

from pfsbench.core.errors import ParseError
from pfsbench.parsers import mds_survey

DATA = Path(__file__).parent / 'data' / 'mds-survey'
SAMPLES = sorted(p.name for p in DATA.glob('*.txt'))


def _text(name):
    return (DATA / name).read_text()


def test_samples_present():
    assert SAMPLES == ['manual-script-output.txt', 'readme-mds-survey.txt']


@pytest.mark.parametrize('name', SAMPLES)
def test_published_sample(name):
    result = mds_survey.parse(_text(name), source=name)
    (row,) = result.rows
    # 'file' is the total the script splits over the threads.
    assert (row.mdts, row.files, row.dirs, row.threads) == (1, 100000, 4, 4)
    assert result.tests == ('create', 'destroy')
    create = result.rate('create', 4)
    # The prose beside both samples says 565.05; the line says 5652.05.
    assert (create.ops_per_s, create.min_ops_per_s,
            create.max_ops_per_s) == (5652.05, 999.01, 46940.48)
    destroy = row.rate('destroy')
    assert (destroy.ops_per_s, destroy.min_ops_per_s,
            destroy.max_ops_per_s) == (5797.79, 0.0, 52951.55)
    assert result.failed == ()
    assert result.rate('create', 8) is None and row.rate('lookup') is None


def test_both_samples_agree():
    readme, manual = (mds_survey.parse(_text(n)) for n in
                      ('readme-mds-survey.txt', 'manual-script-output.txt'))
    assert readme == manual


@pytest.mark.parametrize('name', SAMPLES)
def test_truncated_row_raises(name):
    line = _text(name).rstrip()
    for cut in range(1, len(line)):
        with pytest.raises(ParseError) as err:
            mds_survey.parse(line[:cut] + '\n', source=name)
        assert err.value.line == line[:cut].strip(), cut


def test_no_row_raises():
    with pytest.raises(ParseError, match="expected an 'mdt N file"):
        mds_survey.parse('Can not reach the MDS\n', 'x')


def _survey(rates, threads=4, files=100000):
    return mds_survey.Result(rows=(mds_survey.Row(
        1, files, 4, threads,
        tuple(mds_survey.SurveyRate(test, rate, None, None)
              for test, rate in rates.items())),))


def test_percent_change_as_seed_003():
    # Seed 003, hdd to nvme: create +19.57 %, setxattr +287.45 %,
    # md_getattr -0.12 %.
    hdd = _survey({'create': 1000.0, 'md_getattr': 1000.0,
                   'setxattr': 1000.0, 'destroy': 1000.0})
    nvme = _survey({'create': 1195.7, 'md_getattr': 998.8,
                    'setxattr': 3874.5, 'destroy': None})
    changes = {c.test: round(c.percent, 2)
               for c in mds_survey.percent_change(hdd, nvme)}
    assert changes == {'create': 19.57, 'md_getattr': -0.12,
                       'setxattr': 287.45}


def test_percent_change_pairs_rows_by_shape():
    sample = mds_survey.parse(_text('readme-mds-survey.txt'))
    same = mds_survey.percent_change(sample, sample)
    assert [(c.test, c.threads, c.percent) for c in same] == [
        ('create', 4, 0.0), ('destroy', 4, 0.0)]
    other = _survey({'create': 1.0, 'destroy': 1.0}, files=200000)
    assert mds_survey.percent_change(sample, other) == ()
