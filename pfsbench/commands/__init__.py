# SPDX-License-Identifier: BSD-3-Clause
"""Command-line builders: the one place that knows every tool's flags.

Each tool has a module (``dd``, ``ior``, ``mdtest``, ...) whose functions take
the experiment's parameters and return an argv list.  The ReFrame checks and
``pfsbench render`` (Slurm templates) both call these builders, so a ReFrame
run and a hand-submitted job script cannot drift apart.  Every flag carries a
short trailing comment saying why it is there, as IO500's argv builder does.
"""

import re
import shlex


def shell_join(argv):
    """Quote an argv list for a POSIX shell (the job script).

    Words that are shell variable references (``$DIR/f``) stay unquoted so
    the job script expands them, and so do ``{placeholder}`` words, which
    bash leaves alone (no comma, no ``..``) and the stream runner fills in.
    """
    return ' '.join(w if _needs_no_quotes(w) else shlex.quote(w)
                    for w in argv)


_PLAIN = re.compile(r'^[A-Za-z0-9_@%+=:,./{}$-]+$')


def _needs_no_quotes(word):
    if not _PLAIN.match(word):
        return False

    if '{' in word and (',' in word or '..' in word):
        return False    # bash would brace-expand it

    return '$' not in word or word.startswith('$')
