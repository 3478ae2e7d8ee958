# SPDX-License-Identifier: BSD-3-Clause
"""The ground floor: errors, test-case field names, shell quoting, job steps,
per-stream aggregates and the tool records.  Imports nothing else of pfsbench.
"""
