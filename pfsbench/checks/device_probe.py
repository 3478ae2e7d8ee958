# SPDX-License-Identifier: BSD-3-Clause
"""The target's block-device utilisation during each mdtest phase (seed
000 collected "block device utilization" beside CPU utilisation, E1-E4).

A mixin of the split-phase mdtest checks: next to each phase's CPU
samples, the job prints the block-device counters once in the batch
script before and after the phase (:mod:`pfsbench.commands.diskstats`),
and the case logs, per phase, as performance figures without references
(the source gives no values):

- ``<phase>_device_util`` (%): share of the phase's wall time the target's
  device had I/O in flight (iostat's ``%util``);
- ``<phase>_device_read_mib_s``, ``<phase>_device_write_mib_s`` (MiB/s),
  ``<phase>_device_iops`` (reads + writes completed per second),
  ``<phase>_device_await`` (ms per completed I/O, queue included; absent
  when none completed);
- the same as ``<phase>_server_device_...`` from the server hook, where
  the target is on a parallel file system: the busiest server device's
  utilisation, the devices' MiB/s and IOPS together, their mean await.

Where the figures come from (:meth:`PhaseDeviceFigures.device_sources`):

- **the client's ``/proc/diskstats``**, for a target on a local block
  device: the device of the target's directory as the job's first node
  sees it (``stat -c %d``);
- **the target's or partition's ``device_stats_command``**, for a target
  on a network or parallel file system (``fstype`` lustre, gpfs, nfs,
  fuse.*, ...; its client has no block device): the server devices'
  ``/proc/diskstats`` lines it prints; a target's own command is used
  whatever its file system.

A figure that cannot be told is absent, and :attr:`device_stats` says
why: no block device and no command, a device that vanished or was reset
between the samples, a command that failed.  A failed sample never fails
the case.
"""

import reframe as rfm
import reframe.utility.typecheck as typ
from reframe.core.builtins import performance_function, run_after, \
    run_before, variable
from reframe.core.exceptions import SanityError

from pfsbench.commands import diskstats as diskstats_steps
from pfsbench.parsers import diskstats
from pfsbench.site.mounts import declared_or_local_fstype

#: The figures of one side and phase: suffix -> (Usage field, unit).
FIGURES = {
    'util': ('util_pct', '%'),
    'read_mib_s': ('read_mib_s', 'MiB/s'),
    'write_mib_s': ('write_mib_s', 'MiB/s'),
    'iops': ('iops', 'IOPS'),
    'await': ('await_ms', 'ms'),
}
#: Label prefix of each side's sample steps.
SIDES = {'device': 'disk', 'server_device': 'server disk'}


def device_figure(phase, side, suffix):
    """The performance function ``<phase>_<side>_<suffix>``."""
    field, unit = FIGURES[suffix]

    @performance_function(unit, perf_key=f'{phase}_{side}_{suffix}')
    def figure(self):
        return getattr(self.device_usage(phase, side), field)

    figure.__name__ = f'{phase}_{side}_{suffix}'
    return figure


class PhaseDeviceFigures(rfm.RegressionTestPlugin):
    """Block-device figures of each sampled mdtest phase (see the
    module); mixed into an mdtest check before its base."""

    #: Sample the target's block device around each phase (with
    #: ``split_phases`` and ``cpu_sampling``, inside the CPU samples).
    #:
    #: :type: :class:`bool`
    #: :default: ``True``
    device_sampling = variable(typ.Bool, value=True, loggable=True)

    #: What the device figures are of, per phase and side (``create
    #: device: loop3 util=41.0% r=0.0 w=3.2 MiB/s iops=812 await=0.48 ms
    #: over 1.9 s``), or why a figure is absent (``remove server_device:
    #: absent: ...``); ``; `` between them.
    device_stats = variable(str, value='', loggable=True)

    create_device_util = device_figure('create', 'device', 'util')
    create_device_read_mib_s = device_figure('create', 'device',
                                             'read_mib_s')
    create_device_write_mib_s = device_figure('create', 'device',
                                              'write_mib_s')
    create_device_iops = device_figure('create', 'device', 'iops')
    create_device_await = device_figure('create', 'device', 'await')
    remove_device_util = device_figure('remove', 'device', 'util')
    remove_device_read_mib_s = device_figure('remove', 'device',
                                             'read_mib_s')
    remove_device_write_mib_s = device_figure('remove', 'device',
                                              'write_mib_s')
    remove_device_iops = device_figure('remove', 'device', 'iops')
    remove_device_await = device_figure('remove', 'device', 'await')
    create_server_device_util = device_figure('create', 'server_device',
                                              'util')
    create_server_device_read_mib_s = device_figure(
        'create', 'server_device', 'read_mib_s')
    create_server_device_write_mib_s = device_figure(
        'create', 'server_device', 'write_mib_s')
    create_server_device_iops = device_figure('create', 'server_device',
                                              'iops')
    create_server_device_await = device_figure('create', 'server_device',
                                               'await')
    remove_server_device_util = device_figure('remove', 'server_device',
                                              'util')
    remove_server_device_read_mib_s = device_figure(
        'remove', 'server_device', 'read_mib_s')
    remove_server_device_write_mib_s = device_figure(
        'remove', 'server_device', 'write_mib_s')
    remove_server_device_iops = device_figure('remove', 'server_device',
                                              'iops')
    remove_server_device_await = device_figure('remove', 'server_device',
                                               'await')

    def device_sources(self):
        """``(client path or None, server command or None)``: where this
        case's device figures come from (see the module)."""
        if not (self.device_sampling and self.split_phases and
                self.cpu_sampling):
            return None, None
        entry = self.target_entry()
        return diskstats_steps.sample_sources(
            self.target_path,
            declared_or_local_fstype(entry.get('fstype'), self.target_path),
            self.target_lustre, entry.get('device_stats_command'),
            self.current_partition.extras.get('device_stats_command'))

    def device_phases(self):
        """The phases framed by device samples (those with figures)."""
        return [p for p in self.md_phases if p in ('create', 'remove')]

    def job_steps(self):
        path, command = self.device_sources()
        return diskstats_steps.around_phases(
            super().job_steps(), self.device_phases(), path, command)

    def sampled_sides(self):
        """The sides (``device``, ``server_device``) whose samples frame
        the phases of this case's job."""
        labels = {s.label for s in self.job_steps()}
        return [side for side, prefix in SIDES.items()
                if any(f'{prefix} before {p}' in labels
                       for p in self.device_phases())]

    @run_after('setup')
    def keep_the_device_figures_sampled(self):
        sides = self.sampled_sides()
        phases = self.device_phases()
        if (not sides and self.device_sampling and self.split_phases and
                self.cpu_sampling):
            # Nothing to sample: say why beside the rates.
            self.device_stats = (
                f'absent: the target ({self.target_fstype or "lustre"}) has '
                f'no block device on the client and neither it nor '
                f'{self.current_partition.fullname} declares '
                f'device_stats_command')
        for name in list(self.perf_variables):
            phase, _, rest = name.partition('_')
            side = next((s for s in sorted(SIDES, key=len, reverse=True)
                         if rest.startswith(s + '_')), None)
            if side is None or rest[len(side) + 1:] not in FIGURES:
                continue
            if side not in sides or phase not in phases:
                del self.perf_variables[name]

    def device_usage(self, phase, side):
        """:class:`pfsbench.parsers.diskstats.Usage` of ``side`` during
        ``phase``.

        Raises:
            SanityError: it cannot be told (the message says why).
        """
        prefix = SIDES[side]
        try:
            before = self.parsed(diskstats, step=f'{prefix} before {phase}')
            after = self.parsed(diskstats, step=f'{prefix} after {phase}')
            return diskstats.usage(before, after)
        except diskstats.NoUsage as err:
            raise SanityError(str(err)) from None

    @run_before('performance')
    def leave_out_what_cannot_be_told(self):
        # A figure that cannot be told is absent, not a made-up value, and
        # not a failed case (the rates are still the case's).
        if self.is_dry_run() or not self.sampled_sides():
            return
        said = []
        for side in self.sampled_sides():
            for phase in self.device_phases():
                try:
                    found = self.device_usage(phase, side)
                    said.append(f'{phase} {side}: '
                                f'{diskstats.describe(found)}')
                    missing = ['await'] if found.await_ms is None else []
                except SanityError as err:
                    said.append(f'{phase} {side}: absent: {err}')
                    missing = list(FIGURES)
                for suffix in missing:
                    self.perf_variables.pop(f'{phase}_{side}_{suffix}', None)
        self.device_stats = '; '.join(said)
