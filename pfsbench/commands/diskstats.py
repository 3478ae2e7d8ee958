# SPDX-License-Identifier: BSD-3-Clause
"""The target's block-device counters, printed from a job step (seed 000
collected "block device utilization" beside CPU utilisation, E1-E4).

A sample is one header line and the counters under it::

    pfsbench-disk <host> <uptime s> <st_dev of the target, or ->
    <the /proc/diskstats lines>

On the client (:func:`sample_argv`) the job's first node prints its own
``/proc/uptime`` (the time base), the device number of the target's
directory (``stat -L -c %d``: the device the kernel files its I/O under)
and its whole ``/proc/diskstats``.  For a parallel file system, whose
client has no block device, :func:`server_sample_argv` prints the same
header with host ``server`` and no device, then what the partition's
``extras.device_stats_command`` prints: the ``/proc/diskstats`` lines of
the server devices holding the target (its MDT, its OSTs), each may be
prefixed with the server's name and a colon (``mds1: 253 3 dm-3 ...``).
:mod:`pfsbench.parsers.diskstats` reads both back.
"""

import shlex

from pfsbench.core.jobsteps import Step
from pfsbench.core.shell import shell_join

#: What each sample's header line starts with.
SAMPLE_PREFIX = 'pfsbench-disk'
#: The host name a server sample is filed under.
SERVER_HOST = 'server'
#: What the server sample's last line starts with: its command's exit
#: status (the step itself exits 0: a failed monitoring command fails no
#: case; its figures are absent, saying why).
EXIT_PREFIX = f'{SAMPLE_PREFIX}-exit'
#: The step kind the job steps are given (the parser's key).
STEP_KIND = 'disk'

#: File systems whose client sees no block device of the target (the
#: server hook's), by the target's ``fstype``; ``fuse.*`` too.
NO_CLIENT_DEVICE = frozenset((
    'lustre', 'gpfs', 'beegfs', 'nfs', 'nfs4', 'cifs', 'smb3', 'ceph',
    'glusterfs', 'orangefs', 'pvfs2', 'moosefs', 'mfs', 'lizardfs',
    'tmpfs', 'ramfs', '9p', 'virtiofs'))


def has_no_client_device(fstype):
    """Whether a target of ``fstype`` has no block device on its client."""
    return bool(fstype) and (fstype in NO_CLIENT_DEVICE or
                             fstype.startswith('fuse'))


def sample_sources(path, fstype, lustre, target_command=None,
                   partition_command=None):
    """``(client path or None, server command or None)``: where a
    target's device figures come from (the checks and ``pfsbench render``
    decide alike).

    Args:
        path: the target's directory.
        fstype: its file-system type (declared, else its mount's; '' when
            unknown: sampled, and the job finds out).
        lustre: whether it is a Lustre target (a ``lustre`` partition's
            target without another ``fstype``).
        target_command: the target's own ``device_stats_command``: used
            whatever its file system.
        partition_command: the partition's, used for a target with no
            block device on its client.
    """
    remote = lustre or has_no_client_device(fstype)
    command = target_command or (partition_command if remote else None)
    return (None if remote else path), command


_UPTIME = "$(cut -d ' ' -f 1 /proc/uptime)"


def sample_argv(path):
    """argv printing the client's sample for the target directory
    ``path`` (its device number, ``-`` when ``stat`` fails)."""
    dev = f'$(stat -L -c %d -- {shell_join([path])} 2>/dev/null || echo -)'
    return ['sh', '-c',
            f'echo "{SAMPLE_PREFIX} $(hostname) {_UPTIME} {dev}"; '
            f'cat /proc/diskstats']


def server_sample_argv(command):
    """argv printing a server sample: the client's uptime, then the site's
    ``command`` (a partition's or target's ``device_stats_command``) in a
    shell of its own, then its exit status (:data:`EXIT_PREFIX`)."""
    return ['sh', '-c',
            f'echo "{SAMPLE_PREFIX} {SERVER_HOST} {_UPTIME} -"; '
            f'sh -c {shlex.quote(command)}; echo "{EXIT_PREFIX} $?"']


def around_phases(steps, phases, path=None, command=None):
    """``steps`` with the device samples around each mdtest phase step
    (labels ``disk before create``, ``server disk after create``...),
    inside the phase's CPU samples, next to the tool: run once in the
    batch script, not launched.

    Args:
        steps: an mdtest check's :class:`pfsbench.core.jobsteps.Step`
            list, one mdtest step per phase (labels are the phases).
        phases: the phases to frame.
        path: the target directory for the client's sample (None: none).
        command: the site's server command (None: none).

    Returns:
        the new list; ``steps`` itself where a sample would end the job
        (the job's last step must be launched: without the CPU samples
        after it, the last phase is not framed).
    """
    samples = []
    if path:
        samples.append(('disk', tuple(sample_argv(path))))
    if command:
        samples.append(('server disk', tuple(server_sample_argv(command))))
    if not samples:
        return list(steps)

    out = []
    for step in steps:
        framed = step.kind == 'mdtest' and step.label in phases
        if framed:
            out += [Step(f'{name} before {step.label}', STEP_KIND, argv,
                         launched=False) for name, argv in samples]
        out.append(step)
        if framed:
            out += [Step(f'{name} after {step.label}', STEP_KIND, argv,
                         launched=False) for name, argv in reversed(samples)]
    if not out[-1].launched:
        return list(steps)
    return out
