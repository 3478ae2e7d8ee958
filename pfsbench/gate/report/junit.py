# SPDX-License-Identifier: BSD-3-Clause
"""JUnit XML rendering: one test case per (case, variable).

A regression is a ``<failure>``, missing data an ``<error>``, an
inconclusive verdict a ``<skipped>`` with the reason (CI systems show it
without failing the build; the exit code carries the site's choice).
"""

import xml.etree.ElementTree as ET

from pfsbench.gate.report.tables import figure, interval, pct


def render_junit(record):
    rows = record['results']
    failures = sum(r['verdict'] == 'regression' for r in rows)
    skipped = sum(r['verdict'] in ('inconclusive', 'ignored') for r in rows)
    suites = ET.Element('testsuites', name='pfsbench gate')
    suite = ET.SubElement(suites, 'testsuite', {
        'name': f'pfsbench gate vs baseline {record["baseline"]["name"]}',
        'tests': str(len(rows) + len(record['missing'])),
        'failures': str(failures),
        'errors': str(len(record['missing'])),
        'skipped': str(skipped),
        'timestamp': record['created'][:19],
    })
    props = ET.SubElement(suite, 'properties')
    for key in ('confidence', 'tolerance', 'method'):
        ET.SubElement(props, 'property', name=key,
                      value=str(record['settings'][key]))

    for s in record['current_sessions']:
        ET.SubElement(props, 'property', name='session', value=s['uuid'])

    for r in rows:
        tc = ET.SubElement(suite, 'testcase', {
            'classname': f'{r["check"]}.{r["system"]}:{r["partition"]}'
                         f'+{r["environ"]}',
            'name': f'{r["name"]} {r["var"]}',
            'time': '0',
        })
        text = (f'{r["var"]}: {pct(r["change"])} {interval(r)}; baseline '
                f'{figure(r["base"], r["unit"])}, now '
                f'{figure(r["cur"], r["unit"])}; {r["reason"]}')
        if r['verdict'] == 'regression':
            ET.SubElement(tc, 'failure', message=text,
                          type='regression').text = text
        elif r['verdict'] in ('inconclusive', 'ignored'):
            ET.SubElement(tc, 'skipped', message=text)
        else:
            ET.SubElement(tc, 'system-out').text = f'{r["verdict"]}: {text}'

    for m in record['missing']:
        tc = ET.SubElement(suite, 'testcase', {
            'classname': 'missing', 'name': m['case'], 'time': '0'})
        ET.SubElement(tc, 'error', message=m['reason'],
                      type='missing-data').text = m['reason']

    ET.indent(suites)
    return ET.tostring(suites, encoding='unicode',
                       xml_declaration=True) + '\n'
