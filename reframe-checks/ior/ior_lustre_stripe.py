# SPDX-License-Identifier: BSD-3-Clause
"""Lustre stripe count x stripe size sweep of seed 001 (E5).

Seed 001 varied the stripe size from 64k to 4M (0: the default, 1 MiB)
and the stripe count from 1 to 32 on one node and found the best count per
file system (4 on lfs3 and lfs5, 12 on lfs4); it used bonnie, a single
process writing 32 GB (that variant, as the source ran it:
``bonnie_lustre_stripe`` in reframe-checks/bonnie/).  Here one IOR task
writes and reads one shared file of that size in the run directory
after::

    lfs setstripe -c COUNT -S SIZE <run dir>

and every write is followed by ``lfs getstripe`` on the file written: a
layout Lustre silently changed (a count above the number of OSTs, an
inherited composite layout) fails the check and says how it differs
(:func:`pfsbench.parsers.lfs.layout_mismatches`).  Partitions need the
``lustre`` feature; without ``lfs`` the check is skipped.

Figures: Max/mean/min/stddev write and read, MiB/s.  References: key
``ior_lustre_stripe_bandwidth``, ``$index: [$partition, stripe_count,
stripe_size]``.
"""

import shutil

import reframe as rfm
from reframe.core.builtins import parameter, run_after, variable

from pfsbench import experiments
from pfsbench.checks.ior import ior_bandwidth_base
from pfsbench.commands import ior, lfs as lfs_commands
from pfsbench.core.jobsteps import Step
from pfsbench.parsers import lfs


@rfm.simple_test
class ior_lustre_stripe_bandwidth(ior_bandwidth_base):
    """E5: IOR bandwidth over Lustre stripe count and stripe size."""

    experiment = 'E5'
    descr = 'E5 (seed 001): Lustre stripe count x stripe size, one node'
    valid_systems = ['+lustre']
    #: ``lfs setstripe -c``: OSTs the file is striped over.
    #:
    #: :type: :class:`int`
    #: :values: ``[1, 2, 3, 4, 8, 12, 16, 32]`` (3: lfs3 peaked at 3 to 4)
    stripe_count = parameter(experiments.E5.values('stripe_count'), type=int,
                             loggable=True)

    #: ``lfs setstripe -S``; ``0`` is the file system's default.
    #:
    #: :type: :class:`str`
    #: :values: ``['64k', '128k', '256k', '512k', '1m', '2m', '4m', '0']``
    stripe_size = parameter(experiments.E5.values('stripe_size'), type=str,
                            loggable=True)
    nodes = variable(int, value=1, loggable=True)
    tasks_per_node = variable(int, value=1, loggable=True)
    api = variable(str, value='POSIX', loggable=True)
    access = variable(str, value='shared', loggable=True)
    transfer_size = variable(str, value='1m', loggable=True)
    block_size = '32g'        # seed 001: bonnie -s 2000 -v 16, 32 GB
    tags = {'E5', 'lustre', 'full'}

    @run_after('setup')
    def need_lfs(self):
        self.skip_if(not self.target_lustre,
                     f'target {self.target_name} is {self.target_fstype}, '
                     f'not Lustre: it takes no stripe layout')
        self.skip_if(not self.renders_only() and shutil.which('lfs') is None,
                     'lfs (the Lustre client utilities) is not on PATH: '
                     'this partition cannot set or verify stripe layouts')

    def split_write_read(self):
        # The layout is checked on the file written, before it is read.
        return True

    def written_file(self):
        if self.access == 'fpp':
            return f'{self.test_file()}.00000000'     # rank 0's file

        return self.test_file()

    def job_steps(self):
        # The first written file inherits the run directory's layout.
        setstripe = tuple(lfs_commands.setstripe(
            self.run_dir, self.stripe_count, self.stripe_size))
        return ([Step('setstripe', 'shell', setstripe,
                      launched=False)] + super().job_steps())

    def after_write_steps(self, repetition):
        return [Step(f'getstripe {repetition}', 'lfs',
                     tuple(lfs_commands.getstripe(
                               self.written_file())),
                     launched=False)]

    def step_problems(self, step):
        if step.kind != 'lfs':
            return super().step_problems(step)

        result = self.parsed(lfs, step=step.label)
        try:
            layout = result.layout(self.written_file())
        except KeyError:
            layout = result.layouts[0]

        return [f'step {step.label!r}: layout did not apply: {problem}'
                for problem in lfs.layout_mismatches(
                    layout, self.stripe_count,
                    ior.size_bytes(self.stripe_size))]
