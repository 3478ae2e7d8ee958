# SPDX-License-Identifier: BSD-3-Clause
"""ReFrame's own path to a site's Elasticsearch or OpenSearch: its
``httpjson`` perflog handler (one JSON document per test case and
performance record, POSTed to a URL).

``PFSBENCH_PERFLOG_URL=http://HOST:PORT/INDEX/_doc`` adds the handler to
config/common.py's perflog handlers (none without it; never on a
``--dry-run``, whose records hold ``None`` values).  Each record holds the
case key (``check_name``, ``check_system``, ``check_partition``,
``check_environ``), every figure as ``check_perf_<var>_value`` and
``..._unit``, the case's loggable variables, and ``facility: pfsbench``.

ReFrame tries the server once, when it starts: if it does not answer,
ReFrame drops the handler with one warning among its output and the
night's records go nowhere.  ``pfsbench check-config`` tries it too
(:func:`unanswered`), before a night loses them.
"""

import os
import socket
import urllib.parse

#: The environment variable that names the receiver.
URL_VARIABLE = 'PFSBENCH_PERFLOG_URL'


def handlers(environ=None):
    """The ``httpjson`` handlers for ``handlers_perflog`` (a list, empty
    when :data:`URL_VARIABLE` is unset)."""
    url = (environ if environ is not None else os.environ).get(
        URL_VARIABLE, '')
    if not url:
        return []
    return [{
        'type': 'httpjson',
        'url': url,
        'level': 'info',
        'extras': {'facility': 'pfsbench', 'data_version': '1.0'},
        # Not the case's: ReFrame's formatting fields of the file handler.
        'ignore_keys': ['check_perf_lower_thres', 'check_perf_upper_thres'],
    }]


def unanswered(handler, timeout=1.0):
    """Why ReFrame would drop ``handler`` at start (its server does not
    accept a connection, as ReFrame tries it), or ``''``."""
    url = handler.get('url', '')
    parts = urllib.parse.urlparse(url)
    if parts.scheme not in ('http', 'https') or not parts.hostname:
        return f'{url!r}: not an http(s) URL with a host'
    try:
        port = parts.port or (443 if parts.scheme == 'https' else 80)
    except ValueError:
        return f'{url!r}: bad port'
    try:
        with socket.create_connection((parts.hostname, port),
                                      timeout=timeout):
            return ''
    except OSError as err:
        return f'{parts.hostname}:{port} does not answer ({err})'
