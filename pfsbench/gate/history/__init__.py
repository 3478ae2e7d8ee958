# SPDX-License-Identifier: BSD-3-Clause
"""The gate's model of history: run reports read into sessions and
records, every case's nights as series; case provenance; the history of
a case.
"""
