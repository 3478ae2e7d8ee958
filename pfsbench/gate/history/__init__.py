# SPDX-License-Identifier: BSD-3-Clause
"""The gate's model of history: run reports read into sessions and
records, every case's nights as series; case provenance; a variable's
past (`past`).  It reads no database: the results store is pfsbench.store.
"""
