# SPDX-License-Identifier: BSD-3-Clause
"""A time as the suite names a night: its UTC day."""

import datetime


def utc_day(seconds):
    """``'2026-11-29'``: the UTC date of ``seconds`` since the epoch
    (``None`` for ``None``). A night is named by UTC, never the local
    zone, so two sites' and two hosts' nights agree."""
    if seconds is None:
        return None

    return datetime.datetime.fromtimestamp(
        seconds, datetime.timezone.utc).date().isoformat()
