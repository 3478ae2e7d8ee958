# SPDX-License-Identifier: BSD-3-Clause
"""Jobs made of several commands (steps), and their output split by step.

A check that runs more than one command in a job (IOR write, drop caches,
IOR read, ``lfs getstripe``...) announces each in the job's stdout and
records its exit status, so each command's output is parsed on its own and
a failure names the step::

    echo 'pfsbench-step: begin write 1'
    srun ior -w ...
    echo "pfsbench-step: end write 1 exit=$?"

The last step is the line ReFrame itself launches; its status is the job
epilogue's (:data:`pfsbench.core.jobsteps.JOB_EXIT_PREFIX`).  Pure: no ReFrame.
"""

import re
from dataclasses import dataclass

from pfsbench.core.shell import shell_join
#: The job script's record of the tool's exit status (the ``squeue``
#: scheduler of ReFrame cannot see exit codes).
JOB_EXIT_PREFIX = 'pfsbench-job: exit='

BEGIN = 'pfsbench-step: begin '
END = 'pfsbench-step: end '
_END_RE = re.compile(r'^' + re.escape(END) + r'(.*) exit=(\d+)$')


@dataclass(frozen=True)
class Step:
    """One command of the job script.

    ``kind`` names what reads its output (e.g. ``ior``, ``lfs``, or
    ``shell`` for the exit status only).  ``launched`` steps run under the
    job launcher on every task, the others once, in the batch script.
    """

    label: str
    kind: str
    argv: tuple
    launched: bool = True


@dataclass(frozen=True)
class StepOutputs:
    """A job's stdout split by step."""

    #: label -> (line number of the step's first line - 1, its lines)
    outputs: dict
    #: label -> exit status (the last step's is the job epilogue's)
    exits: dict

    def text(self, label):
        """The step's output, preceded by blank lines so that a parser's
        line numbers are those of the whole file."""
        offset, lines = self.outputs[label]
        return '\n' * offset + '\n'.join(lines)


def script(steps, launcher):
    """The job-script lines of ``steps``.

    Args:
        steps: the :class:`Step` list; the last one must be launched.
        launcher: the launcher prefix (``srun``, ``mpirun -np 4``; empty for
            none).

    Returns:
        (lines to run before the last step, the last step's command line
        without the launcher, which ReFrame adds).
    """
    lines = []
    for step in steps[:-1]:
        cmd = shell_join(step.argv)
        if step.launched and launcher:
            cmd = f'{launcher} {cmd}'

        lines += [f"echo '{BEGIN}{step.label}'", cmd,
                  f'echo "{END}{step.label} exit=$?"']

    lines.append(f"echo '{BEGIN}{steps[-1].label}'")
    return lines, shell_join(steps[-1].argv)


def split(text):
    """Split a job's stdout by the step markers :func:`script` wrote.

    Returns:
        a :class:`StepOutputs`.
    """
    outputs, exits, current = {}, {}, None
    for lineno, line in enumerate(text.splitlines()):
        if line.startswith(BEGIN):
            current = line[len(BEGIN):]
            outputs[current] = (lineno + 1, [])
            continue

        m = _END_RE.match(line)
        if m:
            exits[m.group(1)] = int(m.group(2))
            current = None
        elif line.startswith(JOB_EXIT_PREFIX):
            current = None      # the epilogue: the last step's status
        elif current is not None:
            outputs[current][1].append(line)

    return StepOutputs(outputs, exits)
