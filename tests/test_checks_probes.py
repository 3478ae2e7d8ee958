# SPDX-License-Identifier: BSD-3-Clause
"""The foreign-load probes of the check bases: each keeps its samples on
the check, samples once after the job, gives them up at the verdict, and
finds what it declares it needs on the bases it is mixed into; the device
figures of the mdtest phases are built from one table."""

import os
from types import SimpleNamespace

from pfsbench.checks import device_probe, fs_probe, probes
from pfsbench.checks.base import FileSystemCheck
from pfsbench.checks.mdtest import mdtest_rates_base


def test_every_probe_finds_what_it_needs_on_its_base():
    mixins = [m for m in FileSystemCheck.__mro__ if 'needs' in vars(m)]
    assert {m.__name__ for m in mixins} >= {
        'TargetDeviceProbe', 'ClientCpuProbe', 'ForeignJobsProbe',
        'ServerCountersProbe'}
    for mixin in mixins:
        missing = [n for n in mixin.needs if not hasattr(FileSystemCheck, n)]
        assert not missing, (mixin.__name__, missing)
    needs = device_probe.PhaseDeviceFigures.needs
    assert 'job_steps' in needs
    assert [n for n in needs if not hasattr(mdtest_rates_base, n)] == []


class _Device:
    """A check as the device probe sees it."""
    target_scope, target_path = 'shared', '/scratch'
    device_samples = None
    target_device = probes.TargetDeviceProbe.target_device
    sample_device_before = probes.TargetDeviceProbe.sample_device_before
    sample_device_after = probes.TargetDeviceProbe.sample_device_after
    device_verdict = probes.TargetDeviceProbe.device_verdict

    def bytes_moved(self):
        return 2**30


def test_the_device_probe_samples_once_after_and_gives_its_samples_up(
        monkeypatch):
    sampled = []
    monkeypatch.setattr(probes.contention, 'target_device',
                        lambda path: 'loop3')
    monkeypatch.setattr(os, 'sync', lambda: None)

    def sample(device):
        sampled.append(device)
        return probes.contention.DeviceCounters(device, 0,
                                                len(sampled) * 2**30)

    monkeypatch.setattr(probes.contention, 'sample', sample)
    case = _Device()
    case.sample_device_before()
    case.sample_device_after()
    case.sample_device_after()          # the pipeline's, after exclusive's
    assert len(sampled) == 2
    assert case.device_verdict() == ''      # 1 GiB, all of it the case's?
    assert 'device_samples' not in vars(case)
    case.sample_device_after()          # after the verdict: nothing
    assert len(sampled) == 2
    assert case.device_verdict() == ''


def test_the_device_probe_names_the_foreign_bytes(monkeypatch):
    monkeypatch.setattr(probes.contention, 'target_device',
                        lambda path: 'loop3')
    monkeypatch.setattr(os, 'sync', lambda: None)
    counters = iter([0, 2**30])
    monkeypatch.setattr(
        probes.contention, 'sample',
        lambda device: probes.contention.DeviceCounters(device, 0,
                                                        next(counters)))
    case = _Device()
    case.bytes_moved = lambda: 0
    case.sample_device_before()
    case.sample_device_after()
    said = case.device_verdict()
    assert said.startswith('loop3: 1024 MiB of I/O beyond this'), said


class _Servers:
    """A check as the server-counters probe sees it."""
    fs_counters_samples = clients_samples = None
    current_partition = SimpleNamespace(
        fullname='sys:part', extras={'fs_counters_command': 'counters'})
    sample_server_counters = fs_probe.ServerCountersProbe.\
        sample_server_counters
    sample_server_counters_before = fs_probe.ServerCountersProbe.\
        sample_server_counters_before
    sample_server_counters_after = fs_probe.ServerCountersProbe.\
        sample_server_counters_after


def test_the_servers_are_asked_once_before_and_once_after(monkeypatch):
    asked = []
    monkeypatch.setattr(os, 'sync', lambda: None)
    monkeypatch.setattr(fs_probe.contention, 'sample_fs_counters',
                        lambda command: asked.append(command) or
                        (len(asked), ''))
    case = _Servers()
    case.sample_server_counters_after()     # nothing sampled before
    assert asked == []
    case.sample_server_counters_before()
    case.sample_server_counters_after()
    case.sample_server_counters_after()
    assert asked == ['counters', 'counters']
    assert (case.fs_counters_samples.before,
            case.fs_counters_samples.after) == ((1, ''), (2, ''))
    assert case.clients_samples is None


def test_the_device_figures_are_every_phase_side_and_figure_in_order():
    names = list(device_probe.DEVICE_FIGURES)
    assert len(names) == (len(device_probe.PHASES) *
                          len(device_probe.SIDES) *
                          len(device_probe.FIGURES)) == 20
    assert names[:2] == ['create_device_util', 'create_device_read_mib_s']
    assert names[-1] == 'remove_server_device_await'
    assert list(device_probe.PhaseDeviceFigures._rfm_perf_fns) == names
    for name, (phase, side, suffix) in device_probe.DEVICE_FIGURES.items():
        assert name == f'{phase}_{side}_{suffix}'


def test_only_the_sampled_sides_and_phases_keep_their_figures():
    probe = device_probe.PhaseDeviceFigures
    case = SimpleNamespace(
        device_sampling=True, split_phases=True, cpu_sampling=True,
        device_stats='', perf_variables={
            **{name: None for name in device_probe.DEVICE_FIGURES},
            'create_rate': None},
        sampled_sides=lambda: ['device'], device_phases=lambda: ['create'])
    probe.keep_the_device_figures_sampled(case)
    assert sorted(case.perf_variables) == sorted(
        ['create_rate'] + [f'create_device_{s}'
                           for s in device_probe.FIGURES])
    assert case.device_stats == ''


def test_the_device_figures_frame_the_job_steps_of_the_checks_they_are_in():
    # PhaseDeviceFigures.job_steps wraps its base's (super()): it must come
    # before the mdtest base in every check that mixes it in.
    from reframe.utility import import_module_from_file

    from conftest import CHECKS
    from pfsbench.checks.mdtest import mdtest_check_base

    module = import_module_from_file(str(CHECKS / 'mdtest' /
                                         'mdtest_seed000.py'))
    mixed = [cls for cls in getattr(module, '_rfm_test_registry', ())
             if issubclass(cls, device_probe.PhaseDeviceFigures)]
    assert mixed
    for cls in mixed:
        mro = cls.__mro__
        assert (mro.index(device_probe.PhaseDeviceFigures) <
                mro.index(mdtest_check_base)), cls.__name__
