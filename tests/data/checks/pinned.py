# SPDX-License-Identifier: BSD-3-Clause
"""Test-only check: :mod:`stamped`'s job on one named Slurm node, for the
fault matrix (tests/test_fault_matrix.py), whose other checks of the same
run must stay free to run on the other nodes.  Never in the suite's search
path."""

import os

import reframe as rfm
from reframe.core.builtins import run_before, variable
from reframe.utility import import_module_from_file

stamped = import_module_from_file(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), 'stamped.py'))


@rfm.simple_test
class pinned_write(stamped.stamped_write):
    """:class:`stamped.stamped_write` on the node ``node`` (Slurm)."""

    #: The node the job must run on (``--nodelist``); empty: any.
    node = variable(str, value='')

    @run_before('run')
    def pin_to_the_node(self):
        if self.node:
            self.job.options += [f'--nodelist={self.node}']
