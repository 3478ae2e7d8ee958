# SPDX-License-Identifier: BSD-3-Clause
"""JUnit XML rendering: one test case per (case, variable).

The layout follows the JUnit schema ReFrame ships
(``reframe/schemas/junit.xsd``, Apache Ant's): a regression is a
``<failure>``, missing data an ``<error>``, an inconclusive or ignored
verdict ``<skipped>`` with the reason (CI systems show it without failing
the build; the exit code carries the site's choice); passes and
improvements have no child, and their figures go to the suite's
``<system-out>``.  Contended samples, left out of the verdicts, are
counted in the ``contended_samples`` property and named first in
``<system-out>``; so are the repeats the nights left out as wild (the
``wild_repeats`` property).  Every message ends with what changed in the case's
provenance since the baseline (pfsbench.gate.history.provenance).
"""

import socket
import xml.etree.ElementTree as ET

from pfsbench.gate.judge.rows import case_rows, var_rows
from pfsbench.gate.report.tables import (change_cells, contended_lines,
                                         figure, wild_count, wild_lines)


def _line(r, changes):
    change, interval = change_cells(r)
    text = (f'{r.var}: {change} {interval}; baseline '
            f'{figure(r.base, r.unit)}, now {figure(r.cur, r.unit)}; '
            f'{r.reason}')
    if changes:
        text += f'; changed since the baseline: {changes}'

    return text


def render_junit(record):
    rows = var_rows(record)
    failures = sum(r.verdict == 'regression' for r in rows)
    skipped = sum(r.verdict in ('inconclusive', 'ignored') for r in rows)
    sessions = record['current_sessions']
    hostname = sessions[0].get('hostname') if sessions else None
    suites = ET.Element('testsuites')
    suite = ET.SubElement(suites, 'testsuite', {
        'name': f'pfsbench gate vs baseline {record["baseline"]["name"]}',
        'package': 'pfsbench.gate',
        'id': '0',
        'hostname': hostname or socket.gethostname(),
        'tests': str(len(rows) + len(record['missing'])),
        'failures': str(failures),
        'errors': str(len(record['missing'])),
        'skipped': str(skipped),
        'time': '0',
        'timestamp': record['created'][:19],
    })
    props = ET.SubElement(suite, 'properties')
    for key in ('confidence', 'tolerance', 'method'):
        ET.SubElement(props, 'property', name=key,
                      value=str(record['settings'][key]))

    for s in sessions:
        ET.SubElement(props, 'property', name='session', value=s['uuid'])

    ET.SubElement(props, 'property', name='contended_samples',
                  value=str(len(record.get('contended_samples', []))))
    ET.SubElement(props, 'property', name='wild_repeats',
                  value=str(wild_count(record)))
    system_out = contended_lines(record) + wild_lines(record)
    changes = {c.case: c.changes_text() for c in case_rows(record)}
    for r in rows:
        tc = ET.SubElement(suite, 'testcase', {
            'classname': f'{r.check}.{r.system}:{r.partition}'
                         f'+{r.environ}',
            'name': f'{r.name} {r.var}',
            'time': '0',
        })
        text = _line(r, changes.get(r.case))
        if r.verdict == 'regression':
            ET.SubElement(tc, 'failure', message=text,
                          type='regression').text = text
        elif r.verdict in ('inconclusive', 'ignored'):
            ET.SubElement(tc, 'skipped', message=text)
        else:
            system_out.append(f'{r.verdict}: {r.case} {text}')

    for m in record['missing']:
        tc = ET.SubElement(suite, 'testcase', {
            'classname': 'missing', 'name': m['case'], 'time': '0'})
        ET.SubElement(tc, 'error', message=m['reason'],
                      type='missing-data').text = m['reason']

    ET.SubElement(suite, 'system-out').text = '\n'.join(system_out)
    ET.SubElement(suite, 'system-err').text = ''
    ET.indent(suites)
    return ET.tostring(suites, encoding='unicode',
                       xml_declaration=True) + '\n'
