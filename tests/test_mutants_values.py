# SPDX-License-Identifier: BSD-3-Clause
"""Which logged values the gate computes with
(pfsbench.gate.statistics.values) through its public functions, one test
per mutant that bench/mutation.py found the rest of the fast lane letting
through (docs/mutation.md)."""

import math

import pytest

from pfsbench.gate.statistics import values


def test_number_or_none_reads_numbers_and_refuses_words():
    assert values.number_or_none('4') == 4.0
    assert values.number_or_none(2) == 2.0
    assert values.number_or_none('1m') is None
    assert values.number_or_none(None) is None
    assert values.number_or_none([1]) is None


def test_value_problem_accepts_measurements_and_signed_zero():
    for fine in (1, 1.5, -3, 0, 0.0, -0.0, 1e-100, 1e100, -1e100,
                 10 ** 100, 10 ** 30):
        assert values.value_problem(fine) == '', fine


def test_value_problem_names_no_number():
    assert values.value_problem(True) == 'True: not a number'
    assert values.value_problem(False) == 'False: not a number'
    assert values.value_problem('3') == "'3': not a number"
    assert values.value_problem(None) == 'None: not a number'


def test_value_problem_names_nan_and_infinity():
    assert values.value_problem(math.nan) == 'nan: not a finite number'
    assert values.value_problem(math.inf) == 'inf: not a finite number'
    assert values.value_problem(-math.inf) == '-inf: not a finite number'


def test_value_problem_names_the_magnitude_at_its_bounds():
    tail = ': beyond the magnitude of a measurement (1e-100 to 1e+100, or 0)'
    assert values.value_problem(1.01e100) == '1.01e+100' + tail
    assert values.value_problem(-1.01e100) == '-1.01e+100' + tail
    assert values.value_problem(9.9e-101) == '9.9e-101' + tail
    assert values.value_problem(-5e-324) == '-5e-324' + tail
    assert values.value_problem(10 ** 100 + 10 ** 85) == \
        'an integer of 101 digits' + tail


def test_value_problem_names_an_int_beyond_any_float():
    tail = ': beyond the magnitude of a measurement (1e-100 to 1e+100, or 0)'
    assert values.value_problem(10 ** 400) == 'an integer of 401 digits' + tail
    assert values.value_problem(-10 ** 400) == 'an integer of 401 digits' + tail


def test_iterations_problem_at_its_bounds():
    tail = ': not an iteration count (1 to 1,000,000,000)'
    assert values.iterations_problem(1) == ''
    assert values.iterations_problem(10 ** 9) == ''
    assert values.iterations_problem(0) == '0' + tail
    assert values.iterations_problem(10 ** 9 + 1) == '1000000001' + tail
    assert values.iterations_problem(True) == 'True' + tail
    assert values.iterations_problem(2.0) == '2.0' + tail
    assert values.iterations_problem(10 ** 400) == \
        'an integer of 401 digits' + tail


def test_short_counts_digits_from_ten_to_the_thirty():
    tail = ': not an iteration count (1 to 1,000,000,000)'
    assert values.iterations_problem(10 ** 30 - 1) == \
        str(10 ** 30 - 1) + tail
    assert values.iterations_problem(10 ** 30) == \
        'an integer of 31 digits' + tail
    assert values.iterations_problem(-10 ** 30) == \
        'an integer of 31 digits' + tail


def test_expm1_is_infinite_where_the_float_range_ends():
    assert values.expm1(0.5) == math.expm1(0.5)
    assert values.expm1(708.9) == math.expm1(708.9)
    assert values.expm1(709.0) == math.inf
    assert values.expm1(1e6) == math.inf
    assert values.expm1(-1e6) == -1.0


@pytest.mark.parametrize('stamp', [-62135596800.0, 253402300799.0, 0, 1.7e9])
def test_time_problem_accepts_a_date(stamp):
    assert values.time_problem(stamp) == ''


@pytest.mark.parametrize('stamp', [-62135596800.5, 253402300799.5, True,
                                   '1700000000', None])
def test_time_problem_refuses_what_no_date_shows(stamp):
    assert values.time_problem(stamp) == \
        'not a time (seconds since 1970, years 1 to 9999)'
