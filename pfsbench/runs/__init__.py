# SPDX-License-Identifier: BSD-3-Clause
"""What a ReFrame run selects and reports: the cases a run selects, foreign
load seen during a run, and the summary of a run.
"""
