# SPDX-License-Identifier: BSD-3-Clause
"""The history store: perflogs and run reports read into sessions, series
and an index; case provenance; the history of a case.
"""
