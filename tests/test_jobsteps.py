# SPDX-License-Identifier: BSD-3-Clause
"""pfsbench.core.jobsteps: job scripts of several steps, output split by step.

The script is run for real by bash; its output is what split() reads.
"""

import subprocess

from pfsbench.core.jobsteps import Step, script, split
from pfsbench.site.rundir import job_epilogue


def _run(lines, last):
    text = '\n'.join(lines + [last] + job_epilogue('/nonexistent-run-dir'))
    return subprocess.run(['bash', '-c', text], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT,
                          universal_newlines=True).stdout


def test_steps_are_announced_launched_and_split():
    steps = [Step('make', 'shell', ('echo', 'made'), launched=False),
             Step('first', 'tool', ('echo', 'one two')),
             Step('fails', 'shell', ('sh', '-c', 'echo oops; exit 3'),
                  launched=False),
             Step('last', 'tool', ('echo', 'the end'))]
    lines, last = script(steps, 'env')
    # Launched steps get the launcher, batch steps do not.
    assert 'env echo \'one two\'' in lines
    assert 'echo made' in lines
    assert last == "echo 'the end'"
    out = split(_run(lines, 'env ' + last))
    assert out.exits == {'make': 0, 'first': 0, 'fails': 3}
    assert out.outputs['first'][1] == ['one two']
    assert out.outputs['last'][1] == ['the end']
    # A parser of one step sees the file's own line numbers.
    text = out.text('fails')
    assert text.splitlines()[out.outputs['fails'][0]] == 'oops'


def test_a_step_cut_short_has_output_but_no_exit():
    # The job was killed during step b: step c never started.
    out = split('pfsbench-step: begin a\nx\npfsbench-step: end a exit=0\n'
                'pfsbench-step: begin b\ny\n')
    assert list(out.outputs) == ['a', 'b']
    assert out.outputs['b'][1] == ['y']
    assert out.exits == {'a': 0}
