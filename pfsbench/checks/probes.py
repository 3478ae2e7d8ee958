# SPDX-License-Identifier: BSD-3-Clause
"""Foreign load around a case, one probe per mixin: the target's block
device (:class:`TargetDeviceProbe`), the client host's CPUs
(:class:`ClientCpuProbe`), other Slurm jobs on the case's nodes
(:class:`ForeignJobsProbe`); the file system's servers are
:class:`pfsbench.checks.fs_probe.ServerCountersProbe`'s.

Each probe has three steps: ``..._before()`` as the job is submitted,
``..._after()`` once it ended (a no-op the second time, or when nothing
was sampled before), and ``..._verdict()``: one sentence on the foreign
load it saw (``''``: none, or it cannot tell), which takes its samples off
the check.  Its samples live on the check, in an attribute of its own
(:class:`Around`), from submission to the verdict; none are left for
ReFrame's dump of the finished test.  In what order the probes run is
:class:`pfsbench.checks.base.FileSystemCheck`'s rule, written there once.

A probe declares in ``needs`` what it uses of the check beyond ReFrame's
own attributes (tests/test_checks_probes.py holds every check base to it).
"""

import dataclasses
import os

import reframe as rfm

from pfsbench.load import contention
from pfsbench.site import exclusive


@dataclasses.dataclass
class Around:
    """One probe's samples around a case's job."""

    #: What the probe saw as the job was submitted.
    before: object = None
    #: What it saw once the job ended (None until then).
    after: object = None
    #: Whether the after sample was taken.
    ended: bool = False


def start(check, name, before):
    """Keep ``before`` as probe ``name``'s samples on ``check``."""
    setattr(check, name, Around(before))


def pending(check, name):
    """Probe ``name``'s samples on ``check`` still waiting for their after
    sample, marked as taken; None where there are none."""
    samples = getattr(check, name, None)
    if samples is None or samples.ended:
        return None

    samples.ended = True
    return samples


def take(check, name):
    """Probe ``name``'s samples, taken off ``check`` (None: not sampled)."""
    return vars(check).pop(name, None)


class TargetDeviceProbe(rfm.RegressionTestPlugin):
    """I/O on the target's block device beyond the case's own."""

    needs = ('target_path', 'target_scope', 'bytes_moved')

    #: :class:`Around` the job: the device's counters.
    device_samples = None

    def target_device(self):
        """The block device of the target as this host sees it; None for
        a node target (the nodes' devices are not this host's)."""
        if self.target_scope == 'node':
            return None

        return contention.target_device(self.target_path)

    def sample_device_before(self):
        device = self.target_device()
        if device is not None:
            # What earlier cases left in the page cache must reach the
            # device now, not during this case as "foreign" writes.
            os.sync()
        start(self, 'device_samples', contention.sample(device))

    def sample_device_after(self):
        samples = pending(self, 'device_samples')
        if samples is not None:
            samples.after = contention.sample(self.target_device())

    def device_verdict(self):
        samples = take(self, 'device_samples') or Around()
        return contention.foreign_io(samples.before, samples.after,
                                     self.bytes_moved())


class ClientCpuProbe(rfm.RegressionTestPlugin):
    """Others' work on the host that runs ReFrame, where the job runs
    there (the ``local`` scheduler)."""

    needs = ('client_cpu', 'client_cpu_share')

    #: :class:`Around` the job: :class:`pfsbench.load.contention.CpuSample`.
    client_cpu_samples = None

    def job_runs_here(self):
        """Whether the job runs on the host that runs ReFrame (the
        ``local`` scheduler), whose CPUs this probe watches."""
        return self.current_partition.scheduler.registered_name == 'local'

    def serving_processes(self):
        """The processes whose CPU is the case's own I/O's
        (:data:`pfsbench.load.contention.SERVING_PROCESSES`)."""
        return contention.serving_names(self.current_partition.extras)

    def sample_client_cpu_before(self):
        if self.job_runs_here():
            start(self, 'client_cpu_samples', contention.sample_cpu(
                serving=self.serving_processes()))

    def sample_client_cpu_after(self):
        samples = pending(self, 'client_cpu_samples')
        if samples is not None:
            samples.after = contention.sample_cpu(
                serving=self.serving_processes())

    def client_cpu_verdict(self):
        """The probe's sentence on foreign load (``''``: none, or no
        verdict), recording its figures in :attr:`client_cpu`."""
        samples = take(self, 'client_cpu_samples')
        if samples is None:
            return ''

        figures = contention.client_cpu(samples.before, samples.after)
        if figures is None:
            self.client_cpu = (f'unavailable: {contention.PROC_STAT} could '
                               f'not be read')
            return ''

        self.client_cpu = contention.describe_client_cpu(figures)
        return contention.foreign_cpu_load(figures, self.client_cpu_share)


class ForeignJobsProbe(rfm.RegressionTestPlugin):
    """Other Slurm jobs on the case's nodes once its job ended (not this
    run's own cases: :func:`pfsbench.site.exclusive.own_job_ids`)."""

    needs = ()

    #: :class:`Around` the job: the sentence naming the foreign jobs.
    foreign_jobs_samples = None

    def sample_foreign_jobs_before(self):
        start(self, 'foreign_jobs_samples', None)

    def sample_foreign_jobs_after(self):
        samples = pending(self, 'foreign_jobs_samples')
        if samples is None:
            return
        samples.after = ''
        if self.current_partition.scheduler.registered_name in ('slurm',
                                                                'squeue'):
            samples.after = contention.foreign_jobs(
                self.job.nodelist, exclusive.own_job_ids())

    def foreign_jobs_verdict(self):
        samples = take(self, 'foreign_jobs_samples')
        if samples is None:
            return ''

        return samples.after or ''
