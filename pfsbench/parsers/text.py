# SPDX-License-Identifier: BSD-3-Clause
"""The one way pfsbench reads what a tool printed: bytes, decoded with
replacement.

A job's output can carry any bytes: IOR 3.3.0's ``-h`` prints uninitialised
memory, a rank killed mid-write leaves half a UTF-8 sequence, another rank's
text lands inside a line.  Nothing in the suite decodes a tool's output
strictly: a byte that is not UTF-8 becomes U+FFFD, and :func:`bad_bytes`
says where (file:line) for a message that needs it.  Parsers then see only
``str`` and raise :class:`pfsbench.core.errors.ParseError` on what they cannot
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


def run(argv, *, timeout=None, env=None, shell=False, merge_stderr=False):
    """Run a tool and return its :class:`subprocess.CompletedProcess` with
    ``stdout`` and ``stderr`` decoded with replacement (``stderr`` is ''
    when ``merge_stderr`` sends it to ``stdout``).  The one place the suite
    runs a tool to read what it says (``squeue``, ``scontrol``, ``spack
    python``, ``reframe --describe``): its exit status is the caller's to
    judge; ``OSError`` and ``subprocess.TimeoutExpired`` propagate."""
    proc = subprocess.run(
        argv, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
        stdin=subprocess.DEVNULL, timeout=timeout, env=env, shell=shell)
    return subprocess.CompletedProcess(
        argv, proc.returncode, decode(proc.stdout or b''),
        decode(proc.stderr or b''))


def with_bad_bytes(err, text, source):
    """``err`` (a :class:`pfsbench.core.errors.ParseError`), saying where
    ``text`` held bytes that are not UTF-8 when the line it quotes shows
    one, or what it expected does (a header read with one): the parser saw
    U+FFFD there, the reader should know why."""
    from pfsbench.core.errors import ParseError

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
        return run(argv, timeout=timeout, merge_stderr=True).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
