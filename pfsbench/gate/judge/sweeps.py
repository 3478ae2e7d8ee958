# SPDX-License-Identifier: BSD-3-Clause
"""The scaling sweeps of the current session, for the report record
(docs/gate-method.md).

A sweep is a set of cases of one check, on one partition and
environment, that differ only in one count parameter (:data:`COUNT_PARAMS`:
nodes, tasks per node, NP, active cores...): ``mdtest_metadata_rates
%kind=both %access=unique %nodes=2 %tasks_per_node=1|2|4``.  A family
that sweeps two counts (nodes and tasks per node) gives one sweep per
count, each at one value of the other.  Every rate variable of the cases
(a unit per second) becomes one sweep: its mean over the case's repeats at
each process count, the scaling efficiency of each step and the step where
it collapses (:mod:`pfsbench.gate.statistics.scaling`), and, where the case
logs one, the client CPU utilisation during that phase (``<op>_cpu_util``
beside ``file_<op>``, seed 000).

Only the current session counts (the latest one holding each case, as the
verdicts): a sweep mixes no nights.  Baseline or not, every case of the
session is read, so a sweep no baseline knows is still drawn.
"""

from collections import defaultdict

from pfsbench.core.fields import MEAN_SUFFIX, STDDEV_SUFFIX
from pfsbench.gate.statistics.scaling import saturation_point, scaling_steps
from pfsbench.gate.statistics.values import number_or_none

#: Parameters that count processes, tasks or nodes: a sweep varies one.
COUNT_PARAMS = ('nodes', 'num_nodes', 'tasks_per_node', 'np',
                'active_cores', 'num_procs', 'procs', 'processes',
                'num_tasks', 'tasks', 'streams_per_node', 'procs_per_node',
                'threads', 'clients_per_node')

#: Suffixes of the statistics logged beside a figure (its spread): the
#: figure itself is the sweep's, its siblings are not.
SIBLING_SUFFIXES = (MEAN_SUFFIX, STDDEV_SUFFIX, '_min', '_max')

#: Suffix of a CPU utilisation variable (``create_cpu_util``, in %).
CPU_SUFFIX = '_cpu_util'

#: What names a block-device figure logged beside a rate
#: (``create_device_write_mib_s``, ``remove_server_device_iops``: seed
#: 000): where the phase's time went, in MiB/s or IOPS, not the case's
#: rate; never a sweep of its own.
DEVICE_MARK = '_device_'


def _is_rate(unit):
    return isinstance(unit, str) and unit.endswith('/s')


def _primary_vars(units):
    """The rate variables of a case that are figures, not a figure's
    statistics (``file_create``, not ``file_create_mean`` beside it)."""
    out = []
    for var, unit in units.items():
        if not _is_rate(unit) or DEVICE_MARK in var:
            continue

        stem = next((var[:-len(s)] for s in SIBLING_SUFFIXES
                     if var.endswith(s)), None)
        if stem is None or stem not in units:
            out.append(var)

    return sorted(out)


def cpu_var_for(var, names):
    """The CPU utilisation variable logged for ``var``'s phase, or None.

    Args:
        var: a rate variable (``file_create``).
        names: the case's variable names.

    Returns:
        ``create_cpu_util`` for ``file_create`` or ``create``, if logged.
    """
    for name in sorted(names):
        if not name.endswith(CPU_SUFFIX):
            continue

        op = name[:-len(CPU_SUFFIX)]
        if var == op or var.endswith('_' + op):
            return name

    return None


def _latest_cases(results, session_uuids, name_filter):
    """``{CaseKey: (session, config, {var: (mean, values)})}`` of the
    latest current session holding each case (usable, uncontended
    repeats; :meth:`pfsbench.gate.history.results.Results.figures`)."""
    start = {u: results.sessions[u].time_start for u in set(session_uuids)}
    latest = {}
    for uuid in sorted(start, key=start.get):
        for key, groups in results.figures(uuid).items():
            if name_filter is not None and not name_filter.search(key.name):
                continue
            # One configuration per case in a session; a second one (-S
            # changed between reruns) is not the same point.
            config, values = groups[0][:2]
            latest[key] = (uuid, config, values)

    return latest


def _units(results, uuid, key):
    return {var: unit for rec in results.case_records(uuid).get(key, [])
            for var, (_, unit) in rec.perf.items()}


def _processes(config, params, swept):
    """The case's process count: ReFrame's ``num_tasks`` where the case
    logged it, else the swept parameter's value."""
    tasks = config.get('num_tasks')
    if isinstance(tasks, int) and not isinstance(tasks, bool) and tasks > 0:
        return tasks

    return int(params[swept])


def sweeps(results, session_uuids, name_filter=None):
    """Every scaling sweep of the current sessions.

    Args:
        results: the loaded :class:`~pfsbench.gate.history.results.Results`.
        session_uuids: the sessions that make up "the current run".
        name_filter: optional compiled regex on the case name.

    Returns:
        a list of JSON-serialisable dicts, one per sweep and rate
        variable: ``check``, ``system``, ``partition``, ``environ``,
        ``fixed`` (the other parameters), ``swept`` (the count parameter),
        ``var``, ``unit``, ``session``, ``steps`` (per process count:
        ``processes``, ``value`` of the swept parameter, ``case``,
        ``rate`` (mean), ``n``, ``min``, ``max``, ``speedup``,
        ``efficiency``, ``cpu_util_pct``), ``saturation`` (the step where
        scaling stops: ``processes``, ``rate``, ``efficiency``),
        ``saturated`` (it stops before the largest count) and ``peak``
        (the highest mean rate and where: ``processes``, ``value`` of the
        swept parameter, ``case``, ``rate``, ``n``; what seed 001's
        published aggregates are: the peak of a 1..64-node curve).
    """
    cases = _latest_cases(results, session_uuids, name_filter)
    groups = defaultdict(dict)
    for key, (uuid, config, values) in cases.items():
        params = key.params
        for swept in COUNT_PARAMS:
            if number_or_none(params.get(swept)) is None:
                continue

            fixed = tuple((k, v) for k, v in params.items() if k != swept)
            ident = (key.check, key.system, key.partition, key.environ,
                     fixed, swept)
            groups[ident][key] = (uuid, config, values,
                                  _processes(config, params, swept))

    out = []
    for ident in sorted(groups):
        members = groups[ident]
        counts = {p for *_, p in members.values()}
        if len(counts) < 2 or len(counts) != len(members):
            # One point is no sweep; two cases at one count are not one
            # sweep (the count is not what differs).
            continue

        out += _sweeps_of(ident, members, results)

    return out


def _sweeps_of(ident, members, results):
    check, system, partition, environ, fixed, swept = ident
    units = {}
    for key, (uuid, *_) in members.items():
        units.update(_units(results, uuid, key))

    out = []
    for var in _primary_vars(units):
        points = []
        for key, (uuid, config, values, procs) in members.items():
            mean, samples = values.get(var, (None, ()))
            if mean is None or mean <= 0:
                break
            cpu = values.get(cpu_var_for(var, units))
            points.append((procs, key, mean, samples,
                           cpu[0] if cpu else None))
        else:
            out.append(_sweep(ident, var, units[var], sorted(points),
                              members))

    return out


def _sweep(ident, var, unit, points, members):
    check, system, partition, environ, fixed, swept = ident
    steps = scaling_steps((p, rate) for p, _, rate, _, _ in points)
    sat = saturation_point((p, rate) for p, _, rate, _, _ in points)
    return {
        'check': check, 'system': system, 'partition': partition,
        'environ': environ, 'fixed': dict(fixed), 'swept': swept,
        'var': var, 'unit': unit,
        'session': members[points[0][1]][0],
        'steps': [{'processes': p, 'value': key.params[swept],
                   'case': key.name, 'rate': rate, 'n': len(samples),
                   'min': min(samples), 'max': max(samples),
                   'speedup': step.speedup, 'efficiency': step.efficiency,
                   'cpu_util_pct': cpu}
                  for (p, key, rate, samples, cpu), step
                  in zip(points, steps)],
        'saturation': {'processes': sat.processes, 'rate': sat.rate,
                       'efficiency': sat.efficiency},
        'saturated': sat.processes < steps[-1].processes,
        'peak': _peak(points, swept),
    }


def _peak(points, swept):
    """The highest mean rate of a sweep (the smallest count on a tie)."""
    procs, key, rate, samples, _ = max(points,
                                       key=lambda p: (p[2], -p[0]))
    return {'processes': procs, 'value': key.params[swept],
            'case': key.name, 'rate': rate, 'n': len(samples)}


def title(sweep):
    """``'mdtest_metadata_rates kind=both nodes=2 @sys:part+env, over
    tasks_per_node'``: which sweep, in one line."""
    fixed = ' '.join(f'{k}={v}' for k, v in sweep['fixed'].items())
    return (f'{sweep["check"]}{" " + fixed if fixed else ""} '
            f'@{sweep["system"]}:{sweep["partition"]}+{sweep["environ"]}, '
            f'over {sweep["swept"]}')
