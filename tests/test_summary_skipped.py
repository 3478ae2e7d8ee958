# SPDX-License-Identifier: BSD-3-Clause
"""The summary's closing lines: which check families skipped, and the
command that builds their tools (scripts/quickstart.sh ends with them)."""

import json

from pfsbench.gate.report.summary import render_text, skipped_by_family


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


def _report(tmp_path, cases=CASES):
    reports = tmp_path / 'reports'
    reports.mkdir()
    report = reports / 'run-report-0123.json'
    report.write_text(json.dumps({
        'session_info': {'uuid': '0123456789', 'num_cases': 5,
                         'num_failures': 0, 'num_skipped': 4},
        'runs': [{'testcases': cases}]}))
    return str(report)


def test_summary_ends_with_the_build_commands(tmp_path):
    # no reframe.log beside the report: no reasons, so every partition
    # that skipped gets the build command
    lines = render_text(_report(tmp_path)).splitlines()
    assert lines[-4:] == [
        'skipped: ior (3 case(s) on local:default, site:compute), '
        'mdtest (1 case(s) on local:default)',
        '  4 case(s): see the SKIP lines',
        '  build the tools for local:default: spack -e '
        'spack-repo/environments/local/default install (docs/spack.md)',
        '  build the tools for site:compute: spack -e '
        'spack-repo/environments/site/compute install (docs/spack.md)']


def test_skip_reasons_from_the_log_of_the_same_session(tmp_path):
    cases = [dict(case, hashcode=f'{number:08x}')
             for number, case in enumerate(CASES)]
    report = _report(tmp_path, cases)
    log = tmp_path / 'reframe.log'
    # ReFrame's SKIP lines, as config/common.py formats its log
    skip = ('[2026-11-23T16:40:46] info: reframe: [     SKIP ] ({n}/5) '
            '{display_name} /{hashcode} @{system}:{partition}+builtin '
            '[{why}]')
    why = {'00000001': "no IOR binary (no spack_view, nothing on PATH); "
                       "build it with the suite's Spack environment (spack "
                       "-e spack-repo/environments/<system>/<partition> "
                       "install; see docs/spack.md)",
           '00000002': 'local:default has 1 node(s); this case needs 2',
           '00000003': 'site:compute has 1 node(s); this case needs 2',
           '00000004': 'local:default has 1 node(s); this case needs 2'}
    text = [skip.format(n=n, why=why[case['hashcode']], **case)
            for n, case in enumerate(cases) if case['hashcode'] in why]
    log.write_text('\n'.join(text + ['another session: 999']) + '\n')
    # a log of another session says nothing about this report
    assert 'see the SKIP lines' in render_text(report)

    log.write_text('\n'.join(text + ['session 0123456789']) + '\n')
    lines = render_text(report).splitlines()
    assert lines[-5:] == [
        'skipped: ior (3 case(s) on local:default, site:compute), '
        'mdtest (1 case(s) on local:default)',
        '  1 case(s): no IOR binary (no spack_view, nothing on PATH) (a tool '
        'is missing)',
        '  2 case(s): local:default has 1 node(s); this case needs 2',
        '  1 case(s): site:compute has 1 node(s); this case needs 2',
        # only where a tool was missing
        '  build the tools for local:default: spack -e '
        'spack-repo/environments/local/default install (docs/spack.md)']


def test_summary_exits_1_when_a_case_failed(tmp_path, capsys):
    from pfsbench.cli import main
    failed = dict(_case('dd_streams_one_node %streams_per_node=2', 'fail',
                        'dd'), fail_reason='sanity error: no summary')
    assert main(['summary', '--report',
                 _report(tmp_path, CASES + [failed])]) == 1
    assert '1 of 6 case(s) failed' in capsys.readouterr().err


def test_summary_exits_0_when_cases_passed_or_skipped(tmp_path):
    from pfsbench.cli import main
    assert main(['summary', '--report', _report(tmp_path)]) == 0
