# SPDX-License-Identifier: BSD-3-Clause
"""A compact summary of one ReFrame run report: a table per check family.

Rows are the performance variables, columns the test cases of the family
(its sweep), so a scaling sweep reads like the sources' tables.  Failed
cases show their failure reason below the table.
"""

import os
import re

from pfsbench.core.errors import shown_path
from pfsbench.core.tools import BUILD_ADVICE
from pfsbench.gate.history import runreport

#: A SKIP line of ReFrame's log: ``... SKIP ... /<hashcode> @<partition>+
#: <environ> [<reason>]`` (the run report keeps no skip reason).
_SKIP_LINE = re.compile(r'SKIP.*? /([0-9a-f]{8}) @\S+ \[(.*)\]\s*$')

#: How every check's skip for a missing tool starts its advice.
_MISSING_TOOL = BUILD_ADVICE


def load_cases(path):
    """(session info, test cases of the last run) of the report at
    ``path``."""
    report = runreport.read(path)
    return report['session_info'], runreport.last_cases(report)


def skip_reasons(path, session_uuid):
    """Skip reasons of a session, from the ReFrame log beside its report.

    Args:
        path: the run report (``<runs>/reports/run-report-*.json``).
        session_uuid: the report's session; a log of another session (the
            log is rewritten by every run) gives no reasons.

    Returns:
        ``{hashcode: reason}`` of the skipped cases, empty when the log is
        absent or of another session.
    """
    log = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
        path))), 'reframe.log')
    try:
        with open(log, errors='replace') as log_file:
            text = log_file.read()
    except OSError:
        return {}
    if session_uuid not in text:
        return {}
    return {match.group(1): match.group(2)
            for match in map(_SKIP_LINE.search, text.splitlines()) if match}


def _fmt(value):
    if value is None:
        return '-'
    if abs(value) >= 100:
        return f'{value:.0f}'
    if abs(value) >= 1:
        return f'{value:.3g}'
    return f'{value:.2g}'


def render_text(path):
    """The summary of the report at ``path`` as text."""
    info, cases = load_cases(path)
    reasons = skip_reasons(path, info['uuid'])
    lines = [f'pfsbench summary of session {info["uuid"][:8]}: '
             f'{info["num_cases"]} case(s), {info["num_failures"]} '
             f'failure(s), {info.get("num_skipped", 0)} skipped '
             f'({shown_path(path)})']
    families = {}
    for case in cases:
        families.setdefault(case['display_name'].split(' ')[0],
                            []).append(case)

    failures = []
    for family, members in families.items():
        lines.append('')
        lines += _family_table(family, members, reasons)
        failures += [(c['display_name'], c['system'], c['partition'],
                      c.get('fail_reason')) for c in members
                     if c['result'] == 'fail']

    for name, system, part, reason in failures:
        lines.append('')
        lines.append(f'FAILED {name} @{system}:{part}: {reason}')

    lines += _skipped_lines(cases, reasons)
    return '\n'.join(lines) + '\n'


def skipped_by_family(cases):
    """Skipped cases per check family, with the partitions they skipped on.

    Args:
        cases: test cases of a run report (:func:`load_cases`).

    Returns:
        ``{family: (count, ['system:partition', ...])}``, where the family
        is the check file's directory under reframe-checks/ (``ior``).
    """
    skipped = {}
    for case in cases:
        if case['result'] != 'skip':
            continue
        family = os.path.basename(os.path.dirname(case.get('filename', '')))
        count, parts = skipped.get(family, (0, set()))
        parts.add(f'{case["system"]}:{case["partition"]}')
        skipped[family] = (count + 1, parts)
    return {family: (count, sorted(parts))
            for family, (count, parts) in sorted(skipped.items())}


def _skipped_lines(cases, reasons):
    """Which families skipped, why, and the command that builds the tools
    of the partitions where a tool was missing."""
    skipped = skipped_by_family(cases)
    if not skipped:
        return []
    lines = ['', 'skipped: ' + ', '.join(
        f'{family} ({count} case(s) on {", ".join(parts)})'
        for family, (count, parts) in skipped.items())]
    why = {}
    missing_tool = set()
    for case in cases:
        if case['result'] != 'skip':
            continue
        reason = reasons.get(case.get('hashcode'))
        if reason is None or _MISSING_TOOL in reason:
            # without the log, a missing tool is the usual cause
            missing_tool.add(f'{case["system"]}:{case["partition"]}')
            reason = reason and reason.split(';')[0] + ' (a tool is missing)'
        why[reason] = why.get(reason, 0) + 1
    for reason, count in why.items():
        lines.append(f'  {count} case(s): {reason or "see the SKIP lines"}')
    for part in sorted(missing_tool):
        env_dir = os.path.join('spack-repo', 'environments',
                               *part.split(':'))
        lines.append(f'  build the tools for {part}: spack -e {env_dir} '
                     'install (docs/spack.md)')
    return lines


def _labels(members):
    """Short labels: only the parameters that differ between the cases."""
    params = [dict(p.lstrip('%').split('=', 1) for p in
                   c['display_name'].split(' ')[1:] if '=' in p)
              for c in members]
    keys = [k for k in params[0] if len({p.get(k) for p in params}) > 1]
    parts = {f'{c["system"]}:{c["partition"]}' for c in members}
    labels = []
    for case, p in zip(members, params):
        label = ' '.join(f'{k}={p[k]}' for k in keys)
        if len(parts) > 1:
            label += f' @{case["system"]}:{case["partition"]}'
        labels.append(label.strip() or 'case')
    return labels, sorted(parts)


def _family_table(family, members, skip_reasons_by_hash):
    labels, parts = _labels(members)
    figures = {}
    for label, case in zip(labels, members):
        for key, pv in (case.get('perfvalues') or {}).items():
            figures.setdefault((key.split(':')[-1], pv[4]), {})[label] = pv[0]

    results = [c['result'] for c in members]
    head = f'{family} on {", ".join(parts)}'
    if not figures:
        # Nothing measured (all skipped or failed): one line per reason.
        reasons = {}
        for case in members:
            why = (case.get('fail_reason') or skip_reasons_by_hash.get(
                case.get('hashcode')) or '').strip().splitlines()
            key = (case['result'], why[0] if why else '')
            reasons[key] = reasons.get(key, 0) + 1
        # (ReFrame's report keeps no skip reason: its log's SKIP lines do;
        # without the log, say where they are.)
        return [head] + [f'  {n} case(s) {result}' + (
            f': {why}' if why else
            ' (reasons: the SKIP lines of the run)' if result == 'skip'
            else '') for (result, why), n in reasons.items()]

    if len(members) <= 6:       # cases as columns: a sweep reads across
        rows = [['figure', 'unit'] + labels, ['', ''] + results]
        rows += [[var, unit] + [_fmt(v.get(lb)) for lb in labels]
                 for (var, unit), v in figures.items()]
    else:                       # long sweeps: cases as rows
        rows = [['case', 'result'] + [f'{var} ({unit})'
                                      for var, unit in figures]]
        rows += [[lb, r] + [_fmt(figures[f].get(lb)) for f in figures]
                 for lb, r in zip(labels, results)]

    # Either way the first two columns are names, the others figures.
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = [head]
    for row in rows:
        out.append('  ' + '  '.join(
            cell.ljust(w) if i < 2 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths))).rstrip())
    return out
