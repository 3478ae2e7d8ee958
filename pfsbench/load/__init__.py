# SPDX-License-Identifier: BSD-3-Clause
"""Foreign load seen during a run: on the clients and the mount
(`contention`), by client or job (`attribution`), and the case's
own share of the file system's counters (`own_share`).
"""
