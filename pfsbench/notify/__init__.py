# SPDX-License-Identifier: BSD-3-Clause
"""The night's verdict where people look: a webhook post of the gate's
one-screen verdict (docs/notify.md)."""

from pfsbench.notify.message import (FORMS, TRIGGERS, compose,  # noqa: F401
                                     pages, parse_triggers, fired)
from pfsbench.notify.webhook import (URL_ENV, PostFailed, post,  # noqa: F401
                                     resolve_url)
