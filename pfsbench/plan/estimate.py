# SPDX-License-Identifier: BSD-3-Clause
"""What a case without history is expected to take: its work (bytes moved,
metadata items) over a conservative rate of its target's file system, or
its stonewall where the case has one (``pfsbench nightly-plan``, ``render
nightly``).  A first night is planned on these; from then on the median of
the case's own runs replaces them (:func:`pfsbench.plan.selection.history`).

Pure arithmetic on what ``reframe --describe`` lists of a case (its sizes,
counts, nodes) and on the partition's config; no ReFrame import.
"""

import math
import os
from dataclasses import dataclass

MIB = 2 ** 20


@dataclass(frozen=True)
class Rates:
    """Conservative rates of one file system: slower than a healthy one of
    its kind, so that a first night fits the time planned for it."""

    #: MiB/s of one stream (one process writing or reading one file).
    stream_mib_s: float
    #: MiB/s of one client node, all its streams together.
    node_mib_s: float
    #: MiB/s of the whole file system, every node together (a node-local
    #: target: per node, so the node's).
    aggregate_mib_s: float
    #: Metadata operations per second (create, stat, remove) of the file
    #: system, every task together.
    metadata_ops_s: float
    #: Where the rates come from, for the plan's table.
    source: str = ''


#: Parallel file systems (Lustre, GPFS, BeeGFS...): a small one, busy.
_PARALLEL = Rates(500, 2000, 10000, 5000)
#: A node's own disk or NVMe (xfs, ext4): one node's device.
_LOCAL = Rates(500, 1000, 1000, 5000)

#: The default rates of each file-system type (``extras.targets[].fstype``,
#: else this host's mount table), before a site's ``expected_*`` keys.
DEFAULT_RATES = {
    'lustre': _PARALLEL, 'gpfs': _PARALLEL, 'beegfs': _PARALLEL,
    'fuse.beegfs': _PARALLEL, 'wekafs': _PARALLEL, 'panfs': _PARALLEL,
    'ceph': Rates(300, 1000, 5000, 2000),
    'nfs': Rates(200, 500, 1000, 1000), 'nfs4': Rates(200, 500, 1000, 1000),
    'xfs': _LOCAL, 'ext4': _LOCAL, 'tmpfs': _LOCAL,
    'fuse.mfs': Rates(100, 200, 400, 500),
}
#: An undeclared or unknown type.
UNKNOWN_RATES = Rates(200, 1000, 2000, 1000)

#: The target keys a site sets to its own expected rates (target.json).
RATE_KEYS = {'expected_stream_mib_s': 'stream_mib_s',
             'expected_node_mib_s': 'node_mib_s',
             'expected_aggregate_mib_s': 'aggregate_mib_s',
             'expected_metadata_ops_s': 'metadata_ops_s'}

#: Seconds every case costs besides its work: the job's start, the run
#: directory, dropping caches, the sanity and performance stages.
CASE_OVERHEAD_S = 60

#: Passes over the bytes of each streams family: dd and fio write then
#: read; bonnie++ writes, rewrites, reads; iozone's throughput mode writes,
#: rewrites, reads and rereads (-i 0 -i 1).
_PASSES = {'dd': 2, 'fio': 2, 'bonnie': 3, 'iozone': 4}
#: mdtest's operations per item (create, stat, read, remove).
_MDTEST_OPS = 4


def rates(target, partition_fstype=''):
    """The :class:`Rates` of a target (an ``extras.targets[]`` dict, or
    None for the stage directory): its type's defaults, with the site's
    ``expected_*`` keys in their place."""
    target = target or {}
    fstype = target.get('fstype') or partition_fstype or ''
    base = DEFAULT_RATES.get(fstype, UNKNOWN_RATES)
    given = {field: float(target[key]) for key, field in RATE_KEYS.items()
             if target.get(key)}
    source = (f'{target.get("name", "stage")}\'s expected_*' if given else
              f'{fstype or "unknown"} default')
    return Rates(**{f: given.get(f, getattr(base, f)) for f in
                    ('stream_mib_s', 'node_mib_s', 'aggregate_mib_s',
                     'metadata_ops_s')}, source=source)


def family(case):
    """The check family of a case: its ``reframe-checks/`` directory."""
    return os.path.basename(os.path.dirname(case.get('@file', ''))) or \
        case['display_name'].split()[0]


def _int(value, default=0):
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def stream_bytes(case):
    """Bytes one stream of a streams case writes, or 0 where unknown."""
    fam = family(case)
    if fam == 'dd':
        return _int(case.get('count')) * _int(case.get('block_size'))
    if fam == 'fio':
        return _int(case.get('size'))
    if fam == 'bonnie':
        return _int(case.get('size_mib')) * MIB
    if fam == 'iozone':
        return _int(case.get('file_size_kib')) * 1024
    return 0


def work_seconds(case, target_rates, scope='shared', extras=None):
    """Seconds of one run of ``case`` from its work, or None where the case
    gives none that pfsbench can count (then an assumed time is used).

    Args:
        case: ``reframe --describe``'s dict of the case.
        target_rates: the :class:`Rates` of its target.
        scope: the target's scope (``node``: each node's own device, the
            aggregate grows with the nodes).
        extras: the partition's ``extras`` (its caps on bytes and items).
    """
    extras = extras or {}
    stonewall = _int(case.get('stonewall_s'))
    if stonewall:
        # IO500's stonewalled writes end at the stonewall; the reads, stats
        # and removals of what they wrote take about one more.
        writes = _int(case.get('stonewalled_writes'), 2) or 2
        return (writes + 1) * stonewall
    fam = family(case)
    nodes = _int(case.get('nodes'), 1) or 1
    r = target_rates
    if fam in _PASSES:
        per_stream = stream_bytes(case)
        cap = _int(extras.get('max_bytes_per_stream'))
        if cap:
            per_stream = min(per_stream, cap)
        if not per_stream:
            return None
        per_node = (_int(case.get('streams_per_node'), 1) or 1) * \
            (_int(case.get('processes'), 1) or 1)
        streams = nodes * per_node
        aggregate = r.aggregate_mib_s * (nodes if scope == 'node' else 1)
        mib = per_stream / MIB
        pass_s = max(mib / r.stream_mib_s,
                     mib * per_node / r.node_mib_s,
                     mib * streams / aggregate)
        repeats = _int(case.get('repeats'), 1) or 1
        return _PASSES[fam] * pass_s * repeats
    if fam == 'mdtest' and case.get('items_per_task'):
        tasks = nodes * (_int(case.get('tasks_per_node'), 1) or 1)
        items = _int(case.get('items_per_task')) * tasks
        cap = _int(extras.get('mdtest_max_items'))
        if cap:
            items = min(items, cap)
        kind = 2 if case.get('kind') == 'both' else 1
        iterations = _int(case.get('iterations'), 1) or 1
        return items * kind * _MDTEST_OPS * iterations / r.metadata_ops_s
    return None


def first_night_seconds(case, target_rates, assume_s, scope='shared',
                        extras=None, limit=None):
    """``(seconds, how)`` of a case without history: its work at
    ``target_rates`` plus :data:`CASE_OVERHEAD_S`, else ``assume_s``; never
    above ``limit`` (its time limit)."""
    work = work_seconds(case, target_rates, scope, extras)
    if work is None:
        seconds, how = assume_s, 'assumed'
    else:
        seconds = CASE_OVERHEAD_S + work
        how = ('stonewall' if _int(case.get('stonewall_s')) else
               f'work at {target_rates.source} rates')
    if limit and math.isfinite(limit):
        seconds = min(seconds, limit)
    return seconds, how
