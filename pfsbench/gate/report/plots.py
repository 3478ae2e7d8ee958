# SPDX-License-Identifier: BSD-3-Clause
"""Plots of the HTML report (matplotlib, Agg), returned as PNG bytes."""

import datetime
import io
from collections import defaultdict

from pfsbench.gate.rows import var_rows

#: Parameters tried, in order, as the x axis of a scaling curve.
SCALING_PARAMS = ('nodes', 'num_nodes', 'num_procs', 'procs', 'processes',
                  'np', 'num_tasks', 'tasks', 'streams_per_node',
                  'procs_per_node', 'threads', 'clients_per_node')


#: Series drawn in one scaling plot; more would hide each other.
MAX_LINES = 8


def _pyplot():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    return plt


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format='png', dpi=80)
    _pyplot().close(fig)
    return buf.getvalue()


def _numeric(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def scaling_axis(rows):
    """The parameter to put on the x axis for these rows, or ``None``."""
    params = defaultdict(set)
    for r in rows:
        for k, v in r.params.items():
            params[k].add(v)

    numeric = [k for k, vals in params.items()
               if len(vals) > 1 and all(_numeric(v) is not None
                                        for v in vals)]
    for name in SCALING_PARAMS:
        if name in numeric:
            return name

    return numeric[0] if numeric else None


def scaling_groups(record, shown=None):
    """``[(title, xparam, {label: [row, ...]})]`` for every check/variable
    whose cases differ in a numeric parameter.

    Args:
        record: the gate report record.
        shown: ``{(case, var)}`` to plot (the figures a report shows), or
            ``None`` for every variable.
    """
    by_var = defaultdict(list)
    for r in var_rows(record):
        if r.cur['mean'] is None or \
                (shown is not None and (r.case, r.var) not in shown):
            continue

        by_var[(r.check, r.var, r.system, r.partition,
                r.environ)].append(r)

    out = []
    for (check, var, system, part, env), rows in sorted(by_var.items()):
        xparam = scaling_axis(rows)
        if xparam is None:
            continue

        lines = defaultdict(list)
        for r in rows:
            rest = ' '.join(f'{k}={v}' for k, v in r.params.items()
                            if k != xparam)
            lines[rest or var].append(r)

        out.append((f'{check} {var} @{system}:{part}+{env}', xparam,
                    dict(lines)))

    return out


def scaling_plot(title, xparam, lines):
    """Figure vs parameter: current mean (with the min..max of its samples
    as error bars) and the baseline mean (dashed)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.4), layout='constrained')
    unit = ''
    if len(lines) > MAX_LINES:
        title += f' (first {MAX_LINES} of {len(lines)} series)'

    for i, (label, rows) in enumerate(sorted(lines.items())[:MAX_LINES]):
        rows = sorted(rows, key=lambda r: _numeric(r.params[xparam]))
        xs = [_numeric(r.params[xparam]) for r in rows]
        cur = [r.cur['mean'] for r in rows]
        base = [r.base['mean'] for r in rows]
        lo = [m - min(r.cur['values']) for m, r in zip(cur, rows)]
        hi = [max(r.cur['values']) - m for m, r in zip(cur, rows)]
        color = f'C{i % 10}'
        ax.errorbar(xs, cur, yerr=[lo, hi], marker='o', color=color,
                    capsize=3, label=f'{label} now')
        ax.plot(xs, base, linestyle='--', marker='x', color=color,
                alpha=0.7, label=f'{label} baseline')
        unit = rows[0].unit

    ax.set_xlabel(xparam)
    ax.set_ylabel(unit)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return _png(fig)


def history_plot(hist, row=None):
    """A variable's per-session means, the baseline band (min..max of the
    baseline samples, mean dashed) and the change points (vertical
    lines); ``row`` (a :class:`~pfsbench.gate.rows.VarRow`) marks the
    current mean with its verdict."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.0), layout='constrained')
    pts = hist['points']
    times = [datetime.datetime.fromtimestamp(p['time'], datetime.timezone.utc)
             for p in pts]
    band = hist['baseline']
    ax.axhspan(band['min'], band['max'], color='C2', alpha=0.2,
               label='baseline min..max')
    ax.axhline(band['mean'], color='C2', linestyle='--', linewidth=1,
               label='baseline mean')
    ax.plot(times, [p['mean'] for p in pts], marker='.', color='C0',
            linewidth=1, label='session mean')
    for c in hist['changepoints']:
        t = datetime.datetime.fromtimestamp(c['time'], datetime.timezone.utc)
        ax.axvline(t, color='C3', linestyle=':', linewidth=1.5)
        ax.annotate(f'{c["change"]:+.0%}', (t, c['after']), color='C3',
                    fontsize=8, xytext=(3, 3), textcoords='offset points')

    if row is not None and row.cur['mean'] is not None and times:
        ax.plot([times[-1]], [row.cur['mean']], marker='o', color='C1',
                linestyle='none', label=f'now: {row.verdict}')

    ax.set_ylabel(hist['unit'])
    ax.set_title(f'{hist["case"]}  {hist["var"]}', fontsize=8)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.autofmt_xdate()
    return _png(fig)
