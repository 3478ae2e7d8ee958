# SPDX-License-Identifier: BSD-3-Clause
"""The summary's closing lines: which check families skipped, and the
command that builds their tools (scripts/quickstart.sh ends with them)."""

import json

from pfsbench.summary import render_text, skipped_by_family


def _case(name, result, family, part='local:default'):
    system, partition = part.split(':')
    return {'display_name': name, 'result': result, 'system': system,
            'partition': partition, 'environ': 'builtin',
            'filename': f'/src/reframe-checks/{family}/{family}_x.py',
            'perfvalues': {}, 'fail_reason': None}


CASES = [
    _case('dd_streams_one_node %streams_per_node=1', 'pass', 'dd'),
    _case('ior_bandwidth %scale=1x1', 'skip', 'ior'),
    _case('ior_bandwidth %scale=2x2', 'skip', 'ior'),
    _case('ior_io500_phases %nodes=1', 'skip', 'ior', 'site:compute'),
    _case('mdtest_rates %items=10', 'skip', 'mdtest'),
]


def test_skipped_by_family():
    assert skipped_by_family(CASES) == {
        'ior': (3, ['local:default', 'site:compute']),
        'mdtest': (1, ['local:default']),
    }
    assert skipped_by_family(CASES[:1]) == {}


def test_summary_ends_with_the_build_commands(tmp_path):
    report = tmp_path / 'run-report.json'
    report.write_text(json.dumps({
        'session_info': {'uuid': '0123456789', 'num_cases': 5,
                         'num_failures': 0, 'num_skipped': 4},
        'runs': [{'testcases': CASES}]}))
    lines = render_text(str(report)).splitlines()
    assert lines[-3].startswith(
        'skipped: ior (3 case(s) on local:default, site:compute), '
        'mdtest (1 case(s) on local:default)')
    assert lines[-2:] == [
        '  build the tools for local:default: spack -e '
        'spack-repo/environments/local/default install (docs/spack.md)',
        '  build the tools for site:compute: spack -e '
        'spack-repo/environments/site/compute install (docs/spack.md)']
