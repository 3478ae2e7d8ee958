# SPDX-License-Identifier: BSD-3-Clause
"""Kept for site configuration files written before the move to
:mod:`pfsbench.site.config` (``config/systems/*.py`` copied by sites import
``environment_extras`` from here).  New code imports pfsbench.site.config.
"""

from pfsbench.site.config import environment_extras  # noqa: F401
