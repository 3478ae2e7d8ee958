# SPDX-License-Identifier: BSD-3-Clause
"""Quoting an argv list for the job script: one quoting for the command
builders, the job steps and the run directory's epilogue.
"""

import re
import shlex


def shell_join(argv):
    """Quote an argv list for a POSIX shell (the job script).

    Words that start with a shell variable (``$DIR/f``) are double-quoted
    so the job script expands them; ``{placeholder}`` words stay bare: bash
    leaves them alone (no comma, no ``..``) and the stream runner fills in.
    """
    return ' '.join(_quote(w) for w in argv)


def _quote(word):
    if word.startswith('$') and _PLAIN.match(word):
        return f'"{word}"'

    return word if _needs_no_quotes(word) else shlex.quote(word)


_PLAIN = re.compile(r'^[A-Za-z0-9_@%+=:,./{}$-]+$')


def _needs_no_quotes(word):
    if not _PLAIN.match(word):
        return False

    if '{' in word and (',' in word or '..' in word):
        return False    # bash would brace-expand it

    return '$' not in word
