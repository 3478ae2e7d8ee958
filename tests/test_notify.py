# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench notify`` (pfsbench.notify): the night's verdict posted to a
webhook, against a receiver on 127.0.0.1 in this process (docs/notify.md).
The records are the gate's own, of synthetic nights."""

import http.server
import json
import socket
import threading

import pytest

from pfsbench import cli
import synth

CASE = 'dd_stream_per_node %nodes=1'
DAY = 86400.0
#: A webhook's path is its key: it must never be shown.
SECRET = 'T0SECRET/B0KEY/XyZsecretToken'


class Receiver(http.server.ThreadingHTTPServer):
    """Takes POSTs, keeps ``(path, JSON body)``; answers ``status``."""

    def __init__(self, status=200):
        self.posts, self.status = [], status

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(handler):
                size = int(handler.headers['Content-Length'])
                self.posts.append((handler.path, json.loads(
                    handler.rfile.read(size))))
                handler.send_response(self.status)
                handler.end_headers()
                handler.wfile.write(b'ok')

            def log_message(handler, *args):
                pass

        super().__init__(('127.0.0.1', 0), Handler)

    @property
    def url(self):
        return f'http://127.0.0.1:{self.server_address[1]}/hooks/{SECRET}'


@pytest.fixture
def receiver():
    server = Receiver()
    # shutdown() waits out serve_forever's poll: 0.05 s, not 0.5 s.
    thread = threading.Thread(target=server.serve_forever, daemon=True,
                              kwargs={'poll_interval': 0.05})
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def gate_record(tmp_path, capsys, scale):
    """The gate's JSON record of a night at ``scale`` of a baseline of
    two nights, as the nightly writes it (``--json``)."""
    tmp_path.mkdir(exist_ok=True)
    db = tmp_path / 'results.db'
    reports = [synth.session({CASE: [s * v for v in (500.0, 505.0, 495.0)]},
                             time_start=n * DAY, extras={'fs_version': '1.8'})
               for n, s in enumerate((1.0, 1.002, scale))]
    synth.write_database(str(db), reports[:2])
    code, _, err = run(['baseline', 'record', 'pre', '--since',
                        '1970-01-01', '--db', str(db)], capsys)
    assert code == 0, err
    synth.write_database(str(db), reports[2:])
    from pfsbench.gate.judge import config as gate_config
    config = tmp_path / 'gate.yaml'
    config.write_text(open(gate_config.DEFAULT_PATH).read().replace(
        'assumed_night_cv: 0.10\n', 'assumed_night_cv: 0\n'))
    record = tmp_path / 'gate.json'
    code, out, err = run(['gate', '-b', 'pre', '--db', str(db), '--config',
                          str(config), '--json', str(record)], capsys)
    assert code == (1 if scale < 0.9 else 0), out + err
    return record


def notify(argv, capsys, monkeypatch, url):
    monkeypatch.setenv('PFSBENCH_NOTIFY_URL', url)
    code, out, err = run(['notify', *argv], capsys)
    assert SECRET not in out + err
    return code, out, err


def test_a_regression_night_posts_once_an_unchanged_one_does_not(
        tmp_path, capsys, monkeypatch, receiver):
    lost = gate_record(tmp_path / 'a', capsys, 0.8)
    code, out, err = notify(['--record', str(lost), '--cluster', 'hawk',
                             '--note', 'triage record of hawk: 1 page(s)'],
                            capsys, monkeypatch, receiver.url)
    assert code == 0, err
    assert 'posted (regression) to the notify URL in $PFSBENCH_NOTIFY_URL' \
        in out
    assert len(receiver.posts) == 1
    path, body = receiver.posts[0]
    assert path == f'/hooks/{SECRET}'
    lines = body['text'].splitlines()
    assert lines[0].startswith('pfsbench gate on hawk: REGRESSION: ')
    assert lines[2:] == ['triage record of hawk: 1 page(s)']
    assert lines[1].startswith(f'regression: {CASE} @local:default+builtin write_bw '
                             '-20.1% [')

    same = gate_record(tmp_path / 'b', capsys, 1.001)
    code, out, err = notify(['--record', str(same)], capsys, monkeypatch,
                            receiver.url)
    assert (code, err) == (0, '')
    assert 'nothing to post' in out
    assert len(receiver.posts) == 1


def test_alertmanager_gets_alerts_labelled_by_their_trigger(
        tmp_path, capsys, monkeypatch, receiver):
    lost = gate_record(tmp_path, capsys, 0.8)
    code, out, err = notify(
        ['--record', str(lost), '--form', 'alertmanager', '--cluster',
         'hawk', '--store-down', 'did not answer', '--link',
         'https://ci.example.org/night/1/gate.html'],
        capsys, monkeypatch, receiver.url)
    assert code == 0, err
    alerts = receiver.posts[0][1]
    assert [a['labels']['reason'] for a in alerts] == ['regression', 'store']
    assert alerts[0]['labels']['cluster'] == 'hawk'
    assert alerts[0]['annotations']['summary'].startswith(
        'pfsbench gate on hawk: REGRESSION')
    assert 'results store: did not answer' in \
        alerts[1]['annotations']['description']
    assert alerts[0]['generatorURL'].endswith('/gate.html')


def test_the_site_chooses_what_posts(tmp_path, capsys, monkeypatch,
                                     receiver):
    lost = gate_record(tmp_path, capsys, 0.8)
    # A store that did not take the night, and no record at all.
    code, out, err = notify(['--record', str(tmp_path / 'none.json'),
                             '--store-down', 'waits in the spool', '--on',
                             'regression'], capsys, monkeypatch,
                            receiver.url)
    assert code == 0 and 'nothing to post' in out
    code, out, err = notify(['--record', str(tmp_path / 'none.json'),
                             '--store-down', 'waits in the spool', '--on',
                             'store'], capsys, monkeypatch, receiver.url)
    assert code == 0, err
    assert receiver.posts[-1][1]['text'].splitlines() == [
        'pfsbench nightly: the gate wrote no record',
        'results store: waits in the spool']
    # A loss held back as inconclusive (as the false-alarm budget holds
    # one): posts on hold, not on regression.
    record = json.loads(lost.read_text())
    for row in record['results']:
        row['verdict'] = 'inconclusive'
        row['reason'] = 'held by the night\'s false-alarm budget; ' + \
            row['reason']
    record['summary'] = dict(record['summary'], regression=0,
                             inconclusive=len(record['results']))
    held = tmp_path / 'held.json'
    held.write_text(json.dumps(record))
    code, out, err = notify(['--record', str(held), '--on', 'regression'],
                            capsys, monkeypatch, receiver.url)
    assert 'nothing to post' in out and len(receiver.posts) == 1
    code, out, err = notify(['--record', str(held), '--on', 'hold'],
                            capsys, monkeypatch, receiver.url)
    assert 'posted (hold)' in out
    assert receiver.posts[-1][1]['text'].splitlines()[1].startswith(
        f'held (not paged): {CASE} @local:default+builtin write_bw')


def _closed_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize('down', ['refused', 'http500'])
def test_a_receiver_that_is_down_is_a_warning_naming_no_url(
        tmp_path, capsys, monkeypatch, down):
    lost = gate_record(tmp_path, capsys, 0.8)
    url_file = tmp_path / 'webhook'
    if down == 'refused':
        url_file.write_text(f'http://127.0.0.1:{_closed_port()}/{SECRET}\n')
    else:
        server = Receiver(status=500)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url_file.write_text(server.url)
    code, out, err = notify(['--record', str(lost), '--url-file',
                             str(url_file)], capsys, monkeypatch, '')
    if down != 'refused':
        server.shutdown()
        server.server_close()
    assert code == 0 and out == ''
    assert err.startswith(f'pfsbench notify: warning: the notify URL in '
                          f'{url_file} did not take the verdict: ')
    assert ('HTTP 500' if down == 'http500' else 'refused') in err
    assert len(err.splitlines()) == 1


def test_a_bad_url_or_trigger_is_one_line_naming_no_url(tmp_path, capsys,
                                                        monkeypatch):
    code, out, err = notify(['--on', 'regression,pages'], capsys,
                            monkeypatch, 'http://x')
    assert code == 2
    assert err == ("pfsbench: error: <command line>:--on: 'pages': expected "
                   'a comma-separated list of regression, hold, store\n')
    code, out, err = notify([], capsys, monkeypatch, f'ftp://h/{SECRET}')
    assert code == 2 and '$PFSBENCH_NOTIFY_URL:notify URL' in err
    assert len(err.splitlines()) == 1
    code, out, err = notify(['--url-file', str(tmp_path / 'nope')], capsys,
                            monkeypatch, '')
    assert code == 2 and 'cannot read the notify URL' in err
    code, out, err = notify([], capsys, monkeypatch, '')
    assert code == 3 and 'no notify URL' in err


def test_a_receiver_that_answers_nonsense_is_a_warning(tmp_path, capsys,
                                                       monkeypatch):
    """Not HTTP at all (http.client's BadStatusLine), or silent past the
    timeout: one warning line, exit 0."""
    lost = gate_record(tmp_path, capsys, 0.8)
    for answer, why in ((b'nonsense\r\n\r\n', 'BadStatusLine'),
                        (None, 'timed out')):
        with socket.socket() as sock:
            sock.bind(('127.0.0.1', 0))
            sock.listen(1)
            # The silent receiver holds the connection until notify has
            # returned (past its 0.5 s timeout), 2 s at most.
            returned = threading.Event()

            def reply():
                conn, _ = sock.accept()
                conn.recv(65536)
                if answer:
                    conn.sendall(answer)
                    conn.close()
                else:
                    returned.wait(2)
                    conn.close()
            thread = threading.Thread(target=reply, daemon=True)
            thread.start()
            url = f'http://127.0.0.1:{sock.getsockname()[1]}/{SECRET}'
            code, out, err = notify(['--record', str(lost), '--timeout',
                                     '0.5'], capsys, monkeypatch, url)
            returned.set()
            thread.join()
        assert code == 0 and out == ''
        assert err.startswith('pfsbench notify: warning: the notify URL in '
                              '$PFSBENCH_NOTIFY_URL did not take the '
                              f'verdict: {why}'), err
