# SPDX-License-Identifier: BSD-3-Clause
"""Two rules that only ReFrame dry runs (the slow lanes) caught when they
broke (issue 38), as pure tests: ``nightly-plan``'s selection caps each
case's time limit to its partition's, and an mdtest job split into phases
remounts the target between them (seed 000) once, on the job's first node,
before the cache drop."""

import pytest

from pfsbench.commands import mdtest
from pfsbench.plan import selection


# select(): a case's time limit as its job will ask it ----------------------

def _select(monkeypatch, tmp_path, part, limits):
    described = [{'display_name': name, 'time_limit': limit}
                 for name, limit in limits.items()]
    # The listing and the dry run are ReFrame's: here, what they found.
    monkeypatch.setattr(selection.cases, 'describe',
                        lambda *args, **kwargs: described)
    monkeypatch.setattr(selection.cases, 'dry_run_skips',
                        lambda *args, **kwargs: {'skipped %x=1': 'no tool'})
    monkeypatch.setattr(selection.cases, 'every_target', lambda p: [])
    monkeypatch.setattr(selection, 'runs_here', lambda system: False)
    return selection.select(str(tmp_path), 'site:part', {'name': 'site'},
                            dict(part, name='part'), ['nightly'],
                            str(tmp_path / 'runs'))


def test_a_case_asks_at_most_its_partitions_time_limit(monkeypatch,
                                                       tmp_path):
    sel = _select(monkeypatch, tmp_path, {'time_limit': '10m'},
                  {'long %x=1': 3600.0, 'short %x=1': 120.0,
                   'unlimited %x=1': None, 'skipped %x=1': 7200.0})
    assert sel.limits == {'long %x=1': 600.0, 'short %x=1': 120.0,
                          'unlimited %x=1': 0}
    assert [c['display_name'] for c in sel.runs] == [
        'long %x=1', 'short %x=1', 'unlimited %x=1']
    assert sel.skips == {'skipped %x=1': 'no tool'}
    # With no history, a case costs its capped limit.
    assert sel.at_most_s == sel.estimate_s == 720.0


def test_a_partition_without_a_time_limit_caps_nothing(monkeypatch,
                                                       tmp_path):
    sel = _select(monkeypatch, tmp_path, {},
                  {'long %x=1': 3600.0, 'short %x=1': 120.0})
    assert sel.limits == {'long %x=1': 3600.0, 'short %x=1': 120.0}


# job_steps(remount_command=...): seed 000's remount between phases --------

OPTIONS = {'items_per_task': 10, 'phases': ('create', 'stat', 'remove')}


def _steps(**kwargs):
    return mdtest.job_steps(['/scratch/run/mdtest'], dict(OPTIONS),
                            split_phases=True, **kwargs)


def test_the_remount_runs_between_phases_before_the_cache_drop():
    steps = _steps(cpu_sampling=False, remount_command='sudo remount /pfs',
                   drop_caches_command='sync; echo 3 > drop')
    assert [s.label for s in steps] == [
        'create',
        'remount before stat', 'drop caches before stat', 'stat',
        'remount before remove', 'drop caches before remove', 'remove']
    remounts = [s for s in steps if s.label.startswith('remount')]
    # Once per job, in the batch script (the node that runs it), not once
    # per task: a mount is the node's, and a second umount would fail.
    assert all(s.launched is False and s.argv == ('sh', '-c',
                                                  'sudo remount /pfs')
               for s in remounts)
    drops = [s for s in steps if s.label.startswith('drop')]
    assert all(s.launched is not False for s in drops)


def test_no_remount_without_its_command_or_in_one_run():
    assert not [s for s in _steps(cpu_sampling=False)
                if s.label.startswith('remount')]
    one = mdtest.job_steps(['/scratch/run/mdtest'], dict(OPTIONS),
                           remount_command='sudo remount /pfs')
    assert [s.label for s in one] == ['mdtest']


@pytest.mark.parametrize('cpu_sampling', [True, False])
def test_the_remount_comes_before_the_cpu_sample_of_its_phase(cpu_sampling):
    names = [s.label for s in _steps(cpu_sampling=cpu_sampling,
                                    remount_command='remount')]
    for phase in ('stat', 'remove'):
        at = names.index(f'remount before {phase}')
        assert names.index(phase) > at
        if cpu_sampling:
            before = {'stat': 'create', 'remove': 'stat'}[phase]
            assert names.index(f'cpu before {phase}') == at + 1
            assert names.index(f'cpu after {before}') == at - 1
