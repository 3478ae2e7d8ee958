# SPDX-License-Identifier: BSD-3-Clause
"""The one way pfsbench reads what a tool printed: bytes, decoded with
replacement.

A job's output can carry any bytes: IOR 3.3.0's ``-h`` prints uninitialised
memory, a rank killed mid-write leaves half a UTF-8 sequence, another rank's
text lands inside a line.  Nothing in the suite decodes a tool's output
strictly: a byte that is not UTF-8 becomes U+FFFD, and :func:`bad_bytes`
says where (file:line) for a message that needs it.  Parsers then see only
``str`` and raise :class:`pfsbench.errors.ParseError` on what they cannot
read, never a ``UnicodeDecodeError``.
"""

import subprocess

#: What an undecodable byte becomes.
REPLACEMENT = '\ufffd'


def decode(data):
    """``data`` (bytes or str) as text; undecodable bytes become U+FFFD."""
    if isinstance(data, str):
        return data
    return bytes(data).decode('utf-8', errors='replace')


def read_output(path):
    """The text of the file at ``path`` (a job's stdout, a tool's result
    file), decoded with replacement.  ``OSError`` propagates: the caller
    says which file of which case is missing."""
    with open(path, 'rb') as fp:
        return decode(fp.read())


def bad_bytes(text, source='<text>', most=3):
    """Where ``text`` holds replaced bytes: ``['FILE:LINE', ...]`` (at most
    ``most`` places), for a message such as "undecodable bytes at
    out.txt:12"; ``[]`` when the text decoded cleanly."""
    places = []
    if REPLACEMENT not in text:
        return places
    for lineno, line in enumerate(text.splitlines(), 1):
        if REPLACEMENT in line:
            places.append(f'{source}:{lineno}')
            if len(places) >= most:
                break
    return places


def with_bad_bytes(err, text, source):
    """``err`` (a :class:`pfsbench.errors.ParseError`), saying where
    ``text`` held bytes that are not UTF-8 when the line it quotes shows
    one, or what it expected does (a header read with one): the parser saw
    U+FFFD there, the reader should know why."""
    from pfsbench.errors import ParseError

    places = bad_bytes(text, source)
    if not places or REPLACEMENT not in err.line + err.expected:
        return err
    return ParseError(err.source, err.lineno, err.line,
                      f'{err.expected} (undecodable bytes at '
                      f'{", ".join(places)})')


def probe(argv, timeout=60):
    """Run a tool to ask it something (its help, version, API list) and
    return what it printed on stdout and stderr together, decoded with
    replacement; None when it cannot run here (missing, not executable,
    hangs past ``timeout`` seconds).  Its exit status is not judged: many
    tools exit non-zero after printing their help."""
    try:
        proc = subprocess.run(argv, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return decode(proc.stdout)
