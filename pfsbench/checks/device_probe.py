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
#: The phases whose device figures a case may log.
PHASES = ('create', 'remove')


def figure_names():
    """``{'<phase>_<side>_<suffix>': (phase, side, suffix)}`` of every
    device figure, side by side, then phase by phase (their perflog
    order)."""
    return {f'{phase}_{side}_{suffix}': (phase, side, suffix)
            for side in SIDES for phase in PHASES for suffix in FIGURES}


#: Every device figure's name -> (phase, side, suffix).
DEVICE_FIGURES = figure_names()


def device_figure(phase, side, suffix):
    """The performance function ``<phase>_<side>_<suffix>``."""
    field, unit = FIGURES[suffix]

    @performance_function(unit, perf_key=f'{phase}_{side}_{suffix}')
    def figure(self):
        return getattr(self.device_usage(phase, side), field)

    figure.__name__ = f'{phase}_{side}_{suffix}'
    return figure


def declare_device_figures(namespace):
    """Declare every device figure's performance function in a class body's
    ``namespace`` (its ``locals()``): ReFrame takes them from there, in the
    order they are declared, which is the perflog's."""
    for name, key in DEVICE_FIGURES.items():
        namespace[name] = device_figure(*key)


class DeviceFigures(rfm.RegressionTestPlugin):
    """The performance function of every device figure (a class body of
    its own: one that calls ``super()`` has no plain ``locals()``)."""

    declare_device_figures(locals())


class PhaseDeviceFigures(DeviceFigures):
    """Block-device figures of each sampled mdtest phase (see the
    module); mixed into an mdtest check before its base, whose job
    steps it frames."""

    needs = ('split_phases', 'cpu_sampling', 'md_phases', 'target_entry',
             'target_path', 'target_lustre', 'target_fstype', 'parsed',
             'job_steps')

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
        return [p for p in self.md_phases if p in PHASES]

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
        for name, (phase, side, _) in DEVICE_FIGURES.items():
            if side not in sides or phase not in phases:
                self.perf_variables.pop(name, None)

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
