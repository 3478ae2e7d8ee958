# SPDX-License-Identifier: BSD-3-Clause
"""The file system's server-side counters around a case: who else was on
it.

A mixin of :class:`pfsbench.checks.base.FileSystemCheck`.  Two methods, the
better one judging where the partition declares both:

- **attribution** (:mod:`pfsbench.load.attribution`): per-job or per-client
  counters (``extras.fs_job_stats_command``, Lustre job_stats;
  ``extras.fs_clients_command``, one line per client: MooseFS sessions,
  GPFS mmpmon, BeeGFS clientstats).  The case's own clients or job are
  known (its job id, its nodes, its target's mount); everybody else's work
  beyond a slack of a tenth of the case's own marks it, naming them.
- **whole-file-system counters** (``extras.fs_counters_command``,
  :mod:`pfsbench.load.own_share`): the case's own share, learned from its
  own quiet runs in its perflog (bytes and operations per byte moved, item
  and phase, or task), is subtracted from the total; a fixed bound until it
  has :data:`pfsbench.load.own_share.MIN_QUIET_RUNS`.  It judges only where
  no attribution command is declared, or where that command failed.

Every case logs which method judged, with its own share and slack
(``foreign_load_method``).

Like the probes of :mod:`pfsbench.checks.probes`, it samples as the job
is submitted (:meth:`sample_server_counters_before`) and once it ended
(:meth:`sample_server_counters_after`); the verdict comes from
:meth:`server_counters_verdict`.
"""

import os

import reframe as rfm
from reframe.core.builtins import run_after, variable
from reframe.core.exceptions import ReframeBaseError
from reframe.core.logging import getlogger
from reframe.core.runtime import runtime

from pfsbench.checks.probes import pending, start, take
from pfsbench.load import attribution, contention, own_share
from pfsbench.site.mounts import mount_of, read_mounts

#: Partitions whose foreign-load commands a dry run has shown.
_SHOWN = set()


class ServerCountersProbe(rfm.RegressionTestPlugin):
    """Foreign load from the file system's servers (see the module)."""

    needs = ('target_path', 'bytes_moved')

    #: :class:`pfsbench.checks.probes.Around` the job: the whole file
    #: system's counters (``extras.fs_counters_command``), and the
    #: per-client or per-job ones (the attribution command), each
    #: ``(counters, why not)``; None where the partition declares none.
    fs_counters_samples = None
    clients_samples = None

    #: What the whole file system did during the case, from the
    #: partition's ``extras.fs_counters_command`` sampled before and after
    #: it (``read_bytes=N write_bytes=N metadata_ops=N``; empty without the
    #: command; ``unavailable: why`` when it failed or a counter reset).
    fs_counters = variable(str, value='', loggable=True)

    #: What the case's own clients and every other source did, from the
    #: partition's attribution command (``own bytes=N metadata_ops=N; 4
    #: (/mnt/m2) bytes=N metadata_ops=N``; empty without one,
    #: ``unavailable: why`` when it failed or a counter went backwards).
    fs_clients = variable(str, value='', loggable=True)

    #: The case's work in the units its own share of the whole file
    #: system's counters is learned per (``bytes=N items=N tasks=N``;
    #: :class:`pfsbench.load.own_share.OwnWork`), logged where the
    #: partition declares ``fs_counters_command``.
    own_work = variable(str, value='', loggable=True)

    #: Which method judged foreign load on the servers, with the case's own
    #: share and the slack (``per-client counters (slack 51 MiB and 500
    #: operations)``, ``whole-fs counters, own share from 7 quiet runs
    #: (...)``); empty where none could.
    foreign_load_method = variable(str, value='', loggable=True)

    #: The foreign sources that marked this case contended, biggest first,
    #: comma-separated (``4 (/mnt/m2)``; a job id on Lustre): the night's
    #: summary counts contended repeats per source.
    foreign_sources = variable(str, value='', loggable=True)

    @run_after('setup')
    def show_server_counters_commands(self):
        # A dry run shows, once per partition, what a real run would ask
        # the servers (the site's command as its config builds it).
        part = self.current_partition
        if not self.is_dry_run() or part.fullname in _SHOWN:
            return
        _SHOWN.add(part.fullname)
        key = attribution.method_of(part.extras)
        for name, method in ((key, attribution.METHODS[key][0]
                              if key else ''),
                             ('fs_counters_command',
                              'whole-fs counters')):
            if name and part.extras.get(name):
                getlogger().info(f'{part.fullname}: foreign load: {method}'
                                 f' before and after each case: '
                                 f'{part.extras[name]}')
                return

    def metadata_ops_done(self):
        """Metadata operations this case does on the target, an upper
        estimate (the fixed bound, until the case has quiet history);
        None: a few (files opened and closed), within
        :data:`pfsbench.load.contention.OPS_SLACK`."""
        return None

    def metadata_items(self):
        """Metadata items times phases (times iterations) this case does,
        the unit its own operations are learned per; None: it counts
        none (then they are learned per task)."""
        return None

    def work_units(self):
        """This case's :class:`pfsbench.load.own_share.OwnWork`."""
        return own_share.OwnWork(bytes=self.bytes_moved(),
                                 items=self.metadata_items(),
                                 tasks=self.num_tasks or 1)

    def quiet_history(self):
        """This case's earlier uncontended runs on this partition, newest
        first, from its perflog (:func:`pfsbench.load.own_share.
        quiet_history`); [] where the site logs no perflog file."""
        try:
            site = runtime().site_config
            handlers = site.get('logging/0/handlers_perflog')
            system_prefix = site.get('systems/0/prefix')
        except (ReframeBaseError, KeyError, ValueError):
            # No runtime (a unit test), or no such option: no history.
            return []
        part = self.current_partition
        fields = {'check_system': part.fullname.split(':')[0],
                  'check_partition': part.name,
                  'check_environ': self.current_environ.name
                  if self.current_environ else '',
                  'check_name': self.name}
        paths = own_share.perflog_paths(handlers, system_prefix, fields,
                                        type(self).variant_name())
        tags = own_share.case_tags(
            {f: getattr(self, f) for f in own_share.CASE_TAG_FIELDS
             if hasattr(self, f)})
        return own_share.quiet_history(paths, self.display_name, tags)

    def sample_server_counters_before(self):
        self.sample_server_counters(start)

    def sample_server_counters_after(self):
        waiting = {name: pending(self, name)
                   for name in ('fs_counters_samples', 'clients_samples')}
        if not any(waiting.values()):
            return

        def after(check, name, sample):
            if waiting[name] is not None:
                waiting[name].after = sample

        self.sample_server_counters(after)

    def sample_server_counters(self, keep):
        """Sample the partition's server-side counters, each kind kept by
        ``keep(check, name, sample)``."""
        extras = self.current_partition.extras
        if extras.get('fs_counters_command') or \
                attribution.method_of(extras):
            # A network file system's client caches too: flushed now,
            # earlier cases' writes do not count as this one's (before),
            # this one's are counted as its own (after).
            os.sync()
        if extras.get('fs_counters_command'):
            keep(self, 'fs_counters_samples', contention.sample_fs_counters(
                extras['fs_counters_command']))
        if attribution.method_of(extras):
            keep(self, 'clients_samples', attribution.sample(extras))

    def own_clients(self):
        """What identifies this case's clients in per-client or per-job
        counters: its job id, its nodes, its target's mount."""
        jobs, hosts = set(), set()
        if self.job is not None:
            if self.job.jobid is not None:
                jobs.add(str(self.job.jobid))
            hosts.update(self.job.nodelist or [])
        if self.current_partition.scheduler.registered_name == 'local':
            hosts.add(os.uname().nodename)
        mounts = {self.target_path}
        mount = mount_of(self.target_path, read_mounts())
        if mount is not None:
            mounts.add(mount['mount_point'])
        return attribution.Own(jobs=frozenset(jobs), mounts=frozenset(mounts),
                               hosts=frozenset(hosts))

    def counters_delta(self, samples, delta_of, field, key, what):
        """``delta_of(before, after)`` of a counter kind's ``samples``
        (each ``(counters, why not)``), or None: then why is recorded in
        :attr:`field <fs_counters>` and said as the partition's ``key``
        giving no ``what`` verdict."""
        (before, why_before), (after, why_after) = (
            samples.before, samples.after or (None, 'not sampled'))
        delta = delta_of(before, after)
        if delta is None:
            why = (why_before or why_after or
                   'a counter went backwards (a server restart or reset)')
            setattr(self, field, f'unavailable: {why}')
            getlogger().warning(f'{self.current_partition.fullname}: '
                                f'extras.{key}: no {what} verdict: {why}')
        return delta

    def clients_verdict(self):
        """``(sentence, judged)``: the attribution's sentence on foreign
        load (``''``: none) and whether it could judge at all."""
        samples = take(self, 'clients_samples')
        if samples is None:
            return '', False

        key = attribution.method_of(self.current_partition.extras)
        method = attribution.METHODS[key][0]
        own = self.own_clients()
        att = self.counters_delta(
            samples, lambda before, after: attribution.attribute(
                before, after, own), 'fs_clients', key, method)
        if att is None:
            return '', False

        self.fs_clients = attribution.describe(att)
        slack_bytes = attribution.slack(att.own_bytes,
                                        floor=attribution.SLACK_MIN_BYTES)
        slack_ops = attribution.slack(att.own_ops,
                                      floor=attribution.SLACK_MIN_OPS)
        self.foreign_load_method = (f'{method} (slack '
                                    f'{slack_bytes / 2**20:.0f} MiB and '
                                    f'{slack_ops:.0f} operations)')
        found = attribution.verdict(att, method)
        self.foreign_sources = ', '.join(
            name + (f' ({att.foreign[name][2].mount})'
                    if att.foreign[name][2].mount else '')
            for name in attribution.marking_sources(att))
        return found, True

    def fs_counters_verdict(self):
        """``(sentence, how)``: the whole file system's counters' sentence
        on foreign load (``''``: none, or no verdict) and how they judged
        (``''``: they could not), recording what they saw in
        :attr:`fs_counters` and the case's work in :attr:`own_work`."""
        samples = take(self, 'fs_counters_samples')
        if samples is None:
            return '', ''

        delta = self.counters_delta(
            samples, contention.fs_counters_delta, 'fs_counters',
            'fs_counters_command', 'contention')
        if delta is None:
            return '', ''

        self.fs_counters = contention.describe_delta(delta)
        work = self.work_units()
        self.own_work = work.describe()
        learned = own_share.learn(self.quiet_history(), work)
        return own_share.judge(delta, work, learned, self.bytes_moved(),
                               self.metadata_ops_done())

    def server_counters_verdict(self):
        """The server-side counters' sentence on foreign load: the
        attribution's where it could judge, else the whole file system's
        (both logged)."""
        by_client, judged = self.clients_verdict()
        whole, how = self.fs_counters_verdict()
        if judged:
            return by_client
        self.foreign_load_method = how
        return whole
