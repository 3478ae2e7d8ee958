# SPDX-License-Identifier: BSD-3-Clause
"""The webhook a verdict is posted to (stdlib urllib only).

The URL is a secret (a Slack or Mattermost webhook's path is its key):
it is never printed, logged or put in a message; messages name where it
came from (``--url-file FILE``, ``$VAR``, ``--url``) instead."""

import http.client
import json
import os
import socket
import urllib.error
import urllib.request

from pfsbench.core.errors import ConfigError

#: The environment variable read when no other source names the URL.
URL_ENV = 'PFSBENCH_NOTIFY_URL'


class PostFailed(Exception):
    """The receiver did not take the post (the message names the URL's
    source, never the URL)."""


def _read_file(path):
    try:
        with open(path) as fp:
            return fp.read().strip()
    except OSError as err:
        raise ConfigError(path, '--url-file', None,
                          f'cannot read the notify URL: '
                          f'{err.strerror or err}') from None


def resolve_url(url=None, url_file=None, url_env=None):
    """``(url, source)``: the URL from the command line, a file, or the
    environment variable ``url_env`` (default :data:`URL_ENV`), in that
    order, or ``(None, None)`` where none names one.  ``source`` says
    where it came from, for messages.

    Raises:
        ConfigError: the file cannot be read, or its text is not an
            http(s) URL (the message does not show it).
    """
    if url:
        found, where, field = url, '<command line>', '--url'
        source = 'the notify URL from --url'
    elif url_file:
        found, where, field = _read_file(url_file), url_file, 'notify URL'
        source = f'the notify URL in {url_file}'
    else:
        name = url_env or URL_ENV
        found = os.environ.get(name, '').strip()
        where, field = f'${name}', 'notify URL'
        source = f'the notify URL in ${name}'
        if not found:
            return None, None
    if not found.startswith(('http://', 'https://')) or any(
            c.isspace() for c in found):
        raise ConfigError(where, field, '***',
                          'expected one http:// or https:// URL (not '
                          'shown: it is a secret)')
    return found, source


def _why(err, url):
    """What went wrong, in words that cannot hold the URL."""
    if isinstance(err, urllib.error.HTTPError):
        why = f'the receiver answered HTTP {err.code}'
    elif isinstance(err, urllib.error.URLError):
        reason = err.reason
        if isinstance(reason, str):
            why = reason
        else:
            why = getattr(reason, 'strerror', None) or \
                type(reason).__name__
    elif isinstance(err, (socket.timeout, TimeoutError)):
        why = 'timed out'
    else:
        why = type(err).__name__
    return str(why).replace(url, '***')


def post(url, source, payload, timeout=10.0):
    """POST ``payload`` as JSON to ``url``.

    Raises:
        PostFailed: the receiver is down, refused it or timed out; the
            message names ``source``, never the URL.
    """
    body = json.dumps(payload).encode()
    request = urllib.request.Request(
        url, data=body, method='POST',
        headers={'Content-Type': 'application/json',
                 'User-Agent': 'pfsbench-notify'})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            answer.read()
    except (urllib.error.URLError, http.client.HTTPException, OSError,
            ValueError) as err:
        raise PostFailed(f'{source} did not take the verdict: '
                         f'{_why(err, url)}') from None
