# SPDX-License-Identifier: BSD-3-Clause
"""The nightly's driver partition (pfsbench.plan.driver) through its
public functions: the mutants bench/mutation.py found the planner's tests
letting through (docs/mutation.md).  Pure and fast."""

import pytest

from pfsbench.core.errors import ConfigError
from pfsbench.plan import driver

KEY = 'systems[hawk].partitions[cpu].extras.driver_partition'


def _system(measured=None, login=None):
    cpu = {'name': 'cpu', 'scheduler': 'slurm', 'access': ['-p cpu'],
           'extras': {'driver_partition': 'login'}}
    cpu.update(measured or {})
    log = {'name': 'login', 'scheduler': 'squeue',
           'access': ['--account=x', '--partition=service'],
           'time_limit': '1d'}
    log.update(login or {})
    return {'name': 'hawk', 'partitions': [cpu, log]}, cpu


@pytest.mark.parametrize('access, name', [
    (['--partition=a'], 'a'), (['--partition b '], 'b'), (['-p c'], 'c'),
    (['-pd'], 'd'), (['--partition='], None), (['-p '], None),
    (['--account=x'], None), ([], None)])
def test_the_slurm_partition_an_access_names(access, name):
    assert driver.slurm_partition({'access': access}) == name
    assert driver.slurm_partition({}) is None


def test_the_driver_partition_is_returned():
    system, cpu = _system()
    assert driver.driver_partition(system, cpu, 'f')['name'] == 'login'


@pytest.mark.parametrize('measured, login, field, value, why', [
    ({'extras': {}}, None, KEY, 'None', 'required by render nightly: the '
     'login or service partition whose node runs ReFrame and the gate (the '
     'measured nodes are for the cases; docs/gate.md)'),
    ({'extras': {'driver_partition': 'gpu'}}, None, KEY, "'gpu'",
     'no such partition in hawk; known: cpu, login'),
    ({'extras': {'driver_partition': 'cpu'}}, None, KEY, "'cpu'",
     'is the measured partition: the driver would hold one of the nodes '
     'its cases need'),
    (None, {'scheduler': 'local'}, KEY, "'login'", "its scheduler is "
     "'local': the driver is a Slurm job; give a Slurm partition (a login "
     "node's cron can run scripts/nightly.sh itself)"),
    (None, {'access': ['--account=x']}, 'systems[hawk].partitions[login]'
     '.access', "['--account=x']", "names no --partition: the driver would "
     "go to Slurm's default partition, perhaps the measured one"),
    ({'access': ['--partition=service']}, None, KEY, "'login'",
     "is Slurm partition 'service', as the measured partition: the driver "
     "would hold one of the nodes its cases need"),
])
def test_a_driver_partition_refused_says_why(measured, login, field, value,
                                             why):
    system, cpu = _system(measured, login)
    with pytest.raises(ConfigError) as err:
        driver.driver_partition(system, cpu, 'site.py')
    assert str(err.value) == f'site.py:{field}: {value}: {why}'


def test_the_nightly_must_fit_the_night_and_the_time_limit():
    system, cpu = _system()
    login = system['partitions'][1]
    assert driver.hours(6120) == '1.7 h'
    assert driver.time_limit(system, login, 'f') == (
        86400, 'systems[hawk].partitions[login].time_limit')
    assert driver.check_holds(86400, 'x', system, login, 'f', 3) == 86400
    with pytest.raises(ConfigError) as err:
        driver.check_holds(86401, '9 cases', system, login, 'f', 3)
    assert str(err.value) == (
        '<command line>:--repeat: 3: the nightly (9 cases) is longer than '
        'the 24.0 h between two nights: fewer --repeat or --tags')
    login['time_limit'] = '1:00:00'
    assert driver.check_holds(3600, 'x', system, login, 'f', 3) == 3600
    with pytest.raises(ConfigError) as err:
        driver.check_holds(3601, '9 cases', system, login, 'f', 3)
    assert str(err.value) == (
        "f:systems[hawk].partitions[login].time_limit: '1:00:00': 1.0 h is "
        "less than the nightly (9 cases): fewer --repeat or --tags, or a "
        "longer time_limit")
    del login['time_limit']
    assert driver.time_limit(system, login, 'f')[0] is None
    assert driver.check_holds(80000, 'x', system, login, 'f', 3) is None


def test_hours_and_a_bad_time_limit_named():
    assert driver.hours(1620) == '0.5 h'
    system, _ = _system(login={'time_limit': 'soon'})
    login = system['partitions'][1]
    with pytest.raises(ConfigError) as err:
        driver.check_holds(60, 'x', system, login, 'site.py', 3)
    assert str(err.value).startswith(
        "site.py:systems[hawk].partitions[login].time_limit: 'soon': ")


def test_what_a_partition_or_system_leaves_out_is_refused_by_name():
    with pytest.raises(ConfigError) as err:
        driver.driver_partition({'name': 'hawk'}, {'name': 'cpu'}, 'f')
    assert str(err.value).startswith(f'f:{KEY}: None: required by render')
    with pytest.raises(ConfigError) as err:
        driver.driver_partition({'name': 'hawk'}, {
            'name': 'cpu', 'extras': {'driver_partition': 'login'}}, 'f')
    assert str(err.value) == (f"f:{KEY}: 'login': no such partition in "
                              "hawk; known: ")
    system, cpu = _system()
    del system['partitions'][1]['access']
    with pytest.raises(ConfigError) as err:
        driver.driver_partition(system, cpu, 'f')
    assert str(err.value).startswith(
        'f:systems[hawk].partitions[login].access: []: names no')
