# SPDX-License-Identifier: BSD-3-Clause
"""Each experiment is defined once (pfsbench.experiments): every check
that encodes one sweeps exactly its definition's values, every check that
names an experiment is listed in it, and ``pfsbench render`` walks the
same points.  The check classes are loaded, never run."""

import dataclasses
import itertools

import pytest

from conftest import CHECKS
from pfsbench import experiments, render
from pfsbench.core import tools
from pfsbench.experiments import EXPERIMENTS
from pfsbench.site import validate


@pytest.fixture(scope='module')
def check_classes():
    """``{class name: class}`` of every test ``reframe-checks/`` defines
    (the classes its ``@rfm.simple_test`` registers)."""
    from reframe.utility import import_module_from_file

    found = {}
    for path in sorted(CHECKS.glob('*/*.py')):
        module = import_module_from_file(str(path))
        found.update((cls.__name__, cls)
                     for cls in getattr(module, '_rfm_test_registry', ()))
    assert len(found) > 25, found
    return found


def space(cls):
    """``{parameter: [values]}`` of a check class."""
    return {p: list(cls.param_space[p]) for p in cls.param_space.params}


def drift(exp, classes):
    """What differs between ``exp``'s definition and the checks it names:
    one line per parameter that is missing, extra, or has other values."""
    problems = []
    for check in exp.checks:
        wanted = exp.check_space(check)
        if check not in classes:
            problems.append(f'{exp.id}: no check {check}')
            continue
        have = space(classes[check])
        for param in sorted(set(wanted) | set(have)):
            if param not in have:
                problems.append(f'{exp.id}: {check} sweeps no {param}')
            elif param not in wanted:
                problems.append(f'{exp.id}: {check} sweeps {param} '
                                f'{have[param]}, not in the definition')
            elif have[param] != wanted[param]:
                problems.append(f'{exp.id}: {check}.{param} sweeps '
                                f'{have[param]}, the definition '
                                f'{wanted[param]}')
    return problems


def declared(cls, name):
    """The value a check class gives its variable ``name``."""
    return cls.var_space[name].default_value


def experiment_of(cls):
    """The experiment a check class says it encodes (its ``experiment``),
    which must be the ``E<n>`` tag of its class body where it has one."""
    ids = [t for t in getattr(cls, 'tags', ()) if t in EXPERIMENTS]
    assert ids in ([], [declared(cls, 'experiment')]), (cls.__name__, ids)
    return declared(cls, 'experiment')


def test_the_catalogue_is_e1_to_e19():
    assert list(EXPERIMENTS) == [f'E{n}' for n in range(1, 20)]
    for exp in EXPERIMENTS.values():
        assert exp.source in ('000', '001', '002', '003', '004'), exp.id


@pytest.mark.parametrize('experiment', list(EXPERIMENTS))
def test_every_check_sweeps_its_definition(check_classes, experiment):
    assert drift(EXPERIMENTS[experiment], check_classes) == []


def test_every_check_that_names_an_experiment_is_in_its_definition(
        check_classes):
    named = {name: experiment_of(cls) for name, cls in check_classes.items()}
    unlisted = [f'{name} ({exp})' for name, exp in named.items()
                if exp and name not in EXPERIMENTS[exp].checks]
    assert unlisted == []
    # Every experiment but E18 (two stored result sets) has a check.
    assert sorted({e for e in named.values() if e},
                  key=lambda e: int(e[1:])) == \
        [e for e in EXPERIMENTS if e != 'E18']


def test_every_check_has_its_experiments_time_limit(check_classes):
    of_experiments = [(name, cls, experiment_of(cls))
                      for name, cls in check_classes.items()
                      if experiment_of(cls)]
    # No check of an experiment found would check nothing below.
    assert len(of_experiments) >= 10, check_classes.keys()
    for name, cls, exp in of_experiments:
        assert declared(cls, 'time_limit') == validate.time_seconds(
            EXPERIMENTS[exp].time, exp, 'time'), name


def test_every_check_runs_a_declared_tool(check_classes):
    assert len(check_classes) >= 10, check_classes.keys()
    for name, cls in check_classes.items():
        tool = declared(cls, 'tool')
        assert tool in tools.TOOLS, name
        exp = experiment_of(cls)
        if exp and name != 'mdtest_e16_mdsrate_standin':
            # The stand-in runs mdtest for E16's mdsrate; E5, E9 and E10
            # run several tools.
            assert tool == EXPERIMENTS[exp].tool or exp in (
                'E5', 'E9', 'E10'), name


def test_drift_is_found(check_classes):
    # Drifts put back: E12's tracers as [0, 1] in the
    # definition, E4's targets over a check parameter the definition does
    # not know, and E16's real mdsrate left out of its sweep.
    e12 = EXPERIMENTS['E12']
    narrowed = dataclasses.replace(e12, sweeps=(
        experiments.Sweep('tracer_index', (0, 1)),) + e12.sweeps[1:])
    assert drift(narrowed, check_classes) == [
        'E12: mdtest_e12_tracing_overhead.tracer_index sweeps [0, 1, 2, 3], '
        'the definition [0, 1]']
    e4 = EXPERIMENTS['E4']
    unknown = dataclasses.replace(e4, checks={'mdtest_e4_targets': {
        'active_cores': 'active_cores'}})
    assert drift(unknown, check_classes) == [
        'E4: mdtest_e4_targets sweeps target_index [0, 1, 2, 3, 4, 5, 6, 7],'
        ' not in the definition']
    e16 = EXPERIMENTS['E16']
    more = dataclasses.replace(e16, checks=dict(e16.checks, mdsrate_e16={
        'clients': 'clients', 'np': 'np', 'files': (304000,)}))
    assert drift(more, check_classes) == ['E16: mdsrate_e16 sweeps no files']


def _site(exp):
    # A partition with every target and tracer a check sweeps.
    return render.JobSite(
        name='big:part', targets=tuple(
            (f't{i}', f'/scratch/t{i}', ()) for i in range(8)),
        tracers=tuple((f'tr{i}', 'on', 'off') for i in range(4)))


@pytest.mark.parametrize('experiment', list(render.EXPERIMENTS))
def test_render_walks_the_checks_points(check_classes, experiment):
    exp = EXPERIMENTS[experiment]
    swept = [s.name for s in exp.points_sweeps()]
    assert exp.checks, f'{experiment} names no check'
    for check in exp.checks:
        have = space(check_classes[check])
        # The point sweeps by the check's names (E10's iozone: processes).
        names = {p: source for p, source in exp.check_params(check).items()
                 if source in swept}
        wanted = [dict(zip(names.values(), combo)) for combo in
                  itertools.product(*(have[p] for p in names))]
        assert render.points(experiment, None, _site(exp)) == wanted, check
    # What render takes as an option (--nodes...) is no point.
    for sweep in exp.sweeps:
        assert (sweep.option is None) == (sweep.name in swept)


def test_render_walks_only_the_partitions_targets_and_tracers():
    site = render.JobSite(name='s:p', targets=(('a', '/a', ()),
                                               ('b', '/b', ())),
                          tracers=(('ftrace', 'on', 'off'),))
    assert {p['target_index'] for p in render.points('E4', None, site)} == \
        {0, 1}
    assert {p['tracer_index'] for p in render.points('E12', None, site)} == \
        {0}
