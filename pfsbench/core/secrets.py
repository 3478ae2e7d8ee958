# SPDX-License-Identifier: BSD-3-Clause
"""A store URL's password, kept out of every message: the one place that
reads a ``postgresql://`` URL and gives its redacted form.

A password has no business in a URL (docs/results-store.md: it goes in
``PGPASSFILE`` or a service file), but where one is, it is shown as
``***`` in every message, log and report.  The URL is read as a person
writes it, not as RFC 3986 would: a password may hold ``/``, ``@``,
``?``, ``%`` or any character, so the user part ends at the first ``@``
after which a host, a database and known ``key=value`` options follow;
a percent-encoded password (libpq's own rule) is decoded.  Every
password read is remembered, so that :func:`scrub` also takes it out of
a text that quotes it on its own (a driver's message, a traceback).
"""

import dataclasses
import re
import urllib.parse

#: What a message shows in place of a password.
HIDDEN = '***'

_SCHEME = re.compile(r'postgres(?:ql)?://')
# After the user part: hosts (names, addresses, [IPv6], ports, commas),
# an optional /database and optional ?key=value&... options.
_REST = re.compile(r'(?P<hosts>[A-Za-z0-9._~%:,\[\]-]*)'
                   r'(?:/(?P<dbname>[^/?#@]*))?'
                   r'(?:\?(?P<query>[A-Za-z_]+=[^&#]*'
                   r'(?:&[A-Za-z_]+=[^&#]*)*))?'
                   r'(?P<fragment>#[^@]*)?$')
# A URL in a text ends at white space or a quote.
_IN_TEXT = re.compile(r'postgres(?:ql)?://[^\s\'"`<>]*')
# libpq's key=value form (a driver may echo it).
_KEYWORD = re.compile(r"(\b\w*password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)")
# Passwords shorter than this are not scrubbed from free text (each
# such letter of every message would go), only from the URLs they are in.
_SCRUB_SHORTEST = 3

#: libpq's connection keywords (``PQconndefaults``), the options a URL
#: may carry after ``?``; those that hold a secret.
OPTIONS = frozenset((
    'application_name channel_binding client_encoding connect_timeout '
    'dbname fallback_application_name gssdelegation gssencmode gsslib host '
    'hostaddr keepalives keepalives_count keepalives_idle '
    'keepalives_interval krbsrvname load_balance_hosts max_protocol_version '
    'min_protocol_version oauth_client_id oauth_client_secret oauth_issuer '
    'oauth_scope options passfile password port replication require_auth '
    'requirepeer scram_client_key scram_server_key service '
    'ssl_max_protocol_version ssl_min_protocol_version sslcert sslcertmode '
    'sslcompression sslcrl sslcrldir sslkey sslkeylogfile sslmode '
    'sslnegotiation sslpassword sslrootcert sslsni target_session_attrs '
    'tcp_user_timeout user').split())
SECRET_OPTIONS = frozenset(('password', 'sslpassword', 'oauth_client_secret',
                            'scram_client_key', 'scram_server_key'))

_known = set()


@dataclasses.dataclass
class StoreURL:
    """A ``postgresql://`` URL read apart: the user part decoded (None
    where absent), ``hosts`` as ``[(host, port)]`` (port '' where not
    given), the database (None where absent), ``params`` the ``[(key,
    value)]`` options after ``?``."""

    scheme: str
    user: str
    password: str
    hosts: list
    dbname: str
    params: list
    fragment: str = ''

    def secrets(self):
        """The passwords this URL holds (user part and options)."""
        found = [self.password] if self.password is not None else []
        return found + [v for k, v in self.params if _is_secret(k)]

    def conninfo_args(self):
        """Keyword arguments for libpq's connection string (psycopg's
        ``conninfo.make_conninfo``): never a URL formatted by hand."""
        args = {}
        if self.user:
            args['user'] = self.user
        if self.password is not None:
            args['password'] = self.password
        if any(h for h, _ in self.hosts):
            args['host'] = ','.join(h.strip('[]') for h, _ in self.hosts)
        if any(p for _, p in self.hosts):
            args['port'] = ','.join(p for _, p in self.hosts)
        if self.dbname:
            args['dbname'] = self.dbname
        args.update(self.params)
        return args

    def redacted(self):
        user = _quote(self.user or '')
        if self.password is not None:
            user += ':' + HIDDEN
        netloc = ','.join(_quote(h, safe='[]:') + (f':{p}' if p else '')
                          for h, p in self.hosts)
        text = f'{self.scheme}{user}{"@" if user else ""}{netloc}'
        if self.dbname is not None:
            text += '/' + _quote(self.dbname)
        if self.params:
            text += '?' + '&'.join(
                f'{k}={HIDDEN if _is_secret(k) else _quote(v)}'
                for k, v in self.params)
        return text + self.fragment


def is_postgres(url):
    return isinstance(url, str) and _SCHEME.match(url) is not None


def parse(url):
    """The :class:`StoreURL` of ``url``, or None where it is no
    PostgreSQL URL or cannot be read (no host, database and libpq
    options follow any ``@`` of it).  Its passwords are remembered for
    :func:`scrub`."""
    if not is_postgres(url):
        return None
    scheme = _SCHEME.match(url).group(0)
    rest = url[len(scheme):]
    # The first '@' after which the rest reads as hosts, database and
    # options: a password's own '@', '/' or '?' cannot spill into the host.
    starts = [0] + [i + 1 for i, c in enumerate(rest) if c == '@']
    for start in starts:
        match = _REST.match(rest, start)
        if match is None or not _known_options(match.group('query')):
            continue
        parsed = _assemble(scheme, rest[:max(0, start - 1)] if start else
                           None, match)
        if parsed is not None:
            for secret in parsed.secrets():
                remember(secret)
            return parsed
    return None


def _assemble(scheme, userinfo, match):
    user = password = None
    if userinfo is not None:
        user, colon, password = userinfo.partition(':')
        user = _unquote(user)
        password = _unquote(password) if colon else None
    hosts = []
    for item in (match.group('hosts') or '').split(','):
        host, port = item, ''
        if item.startswith('['):
            host, _, after = item.partition(']')
            host += ']'
            port = after[1:] if after.startswith(':') else ''
        elif ':' in item:
            host, _, port = item.rpartition(':')
        if port and not port.isdigit():
            return None
        hosts.append((_unquote(host), port))
    dbname = match.group('dbname')
    params = []
    for pair in (match.group('query') or '').split('&') if \
            match.group('query') else ():
        key, _, value = pair.partition('=')
        params.append((key, _unquote(value)))
    return StoreURL(scheme, user, password, hosts,
                    None if dbname is None else _unquote(dbname), params,
                    match.group('fragment') or '')


def redact(url):
    """``url`` as messages show it: its passwords ``***``; an unreadable
    PostgreSQL URL that may hold one as ``postgresql://***``.  Anything
    else (a file path, a URL without a password) unchanged."""
    if not is_postgres(url):
        return url
    parsed = parse(url)
    if parsed is None:
        # Unreadable: hidden whole where a password may be in it.
        rest = url[_SCHEME.match(url).end():]
        if re.search(r':[^@]*@', rest) or 'password' in rest.lower():
            return _SCHEME.match(url).group(0) + HIDDEN
        return url
    if all(secret == HIDDEN for secret in parsed.secrets()):
        return url                      # none, or redacted already
    return parsed.redacted()


def holds_password(url):
    """Whether ``url`` is a PostgreSQL URL with a password in it."""
    parsed = parse(url)
    return parsed is not None and bool(parsed.secrets())


def unreadable(url):
    """Whether ``url`` is a PostgreSQL URL :func:`parse` cannot read."""
    return is_postgres(url) and parse(url) is None


def remember(secret):
    """Take ``secret`` (and its percent-encoded forms) out of every text
    :func:`scrub` sees from now on."""
    if not secret or len(secret) < _SCRUB_SHORTEST:
        return
    _known.update({secret, _quote(secret), urllib.parse.quote_plus(secret),
                   _quote(secret).lower()})


def scrub(text):
    """``text`` with every PostgreSQL URL redacted, libpq's
    ``password=...`` hidden and every remembered password ``***``."""
    if not isinstance(text, str):
        text = str(text)
    text = _IN_TEXT.sub(lambda m: _redact_in_text(m.group(0)), text)
    text = _KEYWORD.sub(lambda m: m.group(1) + HIDDEN, text)
    for secret in sorted(_known, key=len, reverse=True):
        text = text.replace(secret, HIDDEN)
    return text


def _redact_in_text(token):
    """A URL a text quotes, redacted; punctuation that ends a sentence
    after it is kept."""
    bare = token.rstrip('.,;:!)]}')
    if bare != token and parse(bare) is not None:
        return redact(bare) + token[len(bare):]
    return redact(token)


def _is_secret(key):
    return key in SECRET_OPTIONS


def _known_options(query):
    return not query or all(pair.partition('=')[0] in OPTIONS
                            for pair in query.split('&'))


def _quote(text, safe=''):
    return urllib.parse.quote(text, safe=safe)


def _unquote(text):
    """libpq's percent-decoding where the text is so encoded; a ``%``
    that begins no escape is taken as written."""
    if re.search(r'%(?![0-9A-Fa-f]{2})', text):
        return text
    try:
        return urllib.parse.unquote(text, errors='strict')
    except UnicodeDecodeError:
        return text
