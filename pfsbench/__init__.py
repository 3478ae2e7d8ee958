# SPDX-License-Identifier: BSD-3-Clause
"""pfsbench: parallel-file-system benchmarks as ReFrame checks.

The package holds what the checks, the Slurm templates and the CLI share:
command-line builders (:mod:`pfsbench.commands`), pure output parsers
(:mod:`pfsbench.parsers`), site-configuration validation, statistics, the
nightly gate and its reports.  ReFrame checks stay thin and import from here.
"""

__version__ = '0.1.0'
