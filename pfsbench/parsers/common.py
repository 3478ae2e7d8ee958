# SPDX-License-Identifier: BSD-3-Clause
"""What the parsers of the MPI tools share.

IOR and mdtest come from one source tree (hpc/ior) and fail the same ways:
their own ``ERROR`` line, a failed assertion, an MPI abort, a launcher that
reports a dead task.  :func:`raise_on_failure` quotes the most telling of
those lines; :func:`last_line` is what a parser quotes when the output
stops early.
"""

import re

from pfsbench.core.errors import ParseError


def failure_markers(tool, own=()):
    """The lines that mean an MPI tool's run failed, most telling first.

    Args:
        tool: the tool's name as messages show it (``'IOR'``, ``'mdtest'``).
        own: further ``(pattern, why)`` pairs for the tool's own failure
            lines, ranked right after its ``ERROR`` lines.

    Returns:
        a tuple of ``(compiled pattern, why)`` pairs.
    """
    return (
        # 'ERROR: ...' (4.x), 'ior ERROR: ...' (3.3, mdtest 3.3 too),
        # 'ERROR in f (line n)' (IOR 2.10).
        (re.compile(r'^(?:ior )?ERROR\b'), f'{tool} reported an error'),
        *own,
        (re.compile(r"Assertion `.*' failed"),
         f'{tool} aborted on a failed assertion'),
        (re.compile(r'MPI_ABORT was invoked'), 'the run was aborted by MPI'),
        # Open MPI's default error handler (MPI_ERRORS_ARE_FATAL).
        (re.compile(r'\*\*\* An error occurred in MPI_'),
         'an MPI call failed'),
        (re.compile(r'\*\*\* Process received signal \*\*\*'),
         'a task was killed by a signal'),
        (re.compile(r'^(prterun|mpirun|mpiexec) (noticed|has exited|'
                    r'detected)'),
         'the MPI launcher reported a failed process'),
        (re.compile(r'^srun: error:'), 'srun reported a failed task'),
        (re.compile(r'^slurmstepd\S*: error:'), 'Slurm cancelled the step'),
    )


def raise_on_failure(lines, source, tool, markers, cause=None):
    """Raise quoting the first line of the most telling failure kind.

    Args:
        lines: the output, as a list of lines.
        source: the name quoted in the error.
        tool: the tool's name, as in :func:`failure_markers`.
        markers: the pairs :func:`failure_markers` returned.
        cause: a function of the lines before the failure line that returns
            an earlier line explaining it (quoted after it), or None.

    Raises:
        ParseError: one of the markers matched.
    """
    for pattern, why in markers:
        for lineno, line in enumerate(lines, 1):
            if pattern.search(line):
                found = cause(lines[:lineno - 1]) if cause else None
                detail = f' (after "{found}")' if found else ''
                raise ParseError(source, lineno, line.strip(),
                                 f'expected a completed {tool} run, but '
                                 f'{why}{detail}')


def last_line(lines):
    """The last non-blank line and its 1-based number ((0, '') if none)."""
    for lineno in range(len(lines), 0, -1):
        if lines[lineno - 1].strip():
            return lineno, lines[lineno - 1].strip()
    return 0, ''
