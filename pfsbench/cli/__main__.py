# SPDX-License-Identifier: BSD-3-Clause
"""``python -m pfsbench.cli``: the ``pfsbench`` command without its entry
point script."""

import sys

from pfsbench.cli import main

sys.exit(main())
