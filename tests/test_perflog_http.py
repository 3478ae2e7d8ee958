# SPDX-License-Identifier: BSD-3-Clause
"""ReFrame's httpjson perflog handler (pfsbench/site/perflog_http.py,
config/common.py) against a real HTTP receiver on 127.0.0.1
(pytest-httpserver), and ``pfsbench check-config`` saying when the
handler's server does not answer (ReFrame then drops the handler with one
warning among its output)."""

import json
import socket

import pytest

from conftest import run_reframe
from pfsbench import cli
from pfsbench.site import perflog_http

pytest.importorskip('pytest_httpserver')


def closed_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]     # closed once the block ends


def test_no_url_no_handler():
    assert perflog_http.handlers({}) == []
    (handler,) = perflog_http.handlers(
        {perflog_http.URL_VARIABLE: 'http://es:9200/pfsbench/_doc'})
    assert handler['type'] == 'httpjson' and handler['level'] == 'info'


def test_check_config_says_when_the_server_does_not_answer(
        monkeypatch, capsys, httpserver):
    url = f'http://127.0.0.1:{closed_port()}/pfsbench/_doc'
    monkeypatch.setenv(perflog_http.URL_VARIABLE, url)
    code = cli.main(['check-config'])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert 'httpjson perflog handler: 127.0.0.1:' in err
    assert 'does not answer' in err and 'ReFrame drops the handler' in err

    monkeypatch.setenv(perflog_http.URL_VARIABLE,
                       httpserver.url_for('/pfsbench/_doc'))
    code = cli.main(['check-config'])
    out, err = capsys.readouterr()
    assert code == 0 and 'does not answer' not in err
    assert '/pfsbench/_doc answers: ok' in out


def test_each_record_arrives_with_its_figure_and_case_key(tmp_path,
                                                          httpserver):
    httpserver.expect_request('/pfsbench/_doc', method='POST') \
        .respond_with_data('{"result": "created"}', status=201)
    proc = run_reframe(
        ['-c', 'reframe-checks/dd', '-n', 'dd_streams_one_node',
         '-P', 'streams_per_node=1', '-S', 'dd_mode=fdatasync',
         '-S', 'repeats=1', '-r'], tmp_path,
        env={perflog_http.URL_VARIABLE: httpserver.url_for('/pfsbench/_doc')})
    assert proc.returncode == 0, proc.stdout
    assert 'could not initialize the httpjson handler' not in proc.stdout
    records = [json.loads(req.get_data()) for req, _ in httpserver.log]
    assert records, 'no perflog record arrived'
    for record in records:
        assert record['facility'] == 'pfsbench'
        assert record['check_name'].startswith('dd_streams_one_node')
        assert (record['check_system'], record['check_partition']) == \
            ('local', 'default')
        assert record['check_environ']
    figures = {k for r in records for k in r
               if k.startswith('check_perf_') and k.endswith('_value')}
    assert figures, records[0].keys()
    values = {k: r[k] for r in records for k in figures if k in r}
    # The figure the gate judges first, as a number; a figure the case
    # cannot measure (a spread of one stream) arrives as null.
    assert isinstance(values['check_perf_write_bw_value'], float), values
    assert all(v is None or isinstance(v, (int, float))
               for v in values.values()), values
