# SPDX-License-Identifier: BSD-3-Clause
"""The ReFrame configuration of pfsbench: ``reframe -C config/settings.py``.

Also validates each system's reference file (``config/references/``, or
``$PFSBENCH_REFERENCES``): ReFrame would only skip the tests of a malformed
one, with a warning, and exit 0.

Merges ``config/common.py`` with every ``config/systems/*.py`` (one file per
system, CSCS-style) and validates pfsbench's own keys (partition ``extras``,
``sched_options``) with :mod:`pfsbench.site.config`, because ReFrame accepts
unknown keys there silently.  ``local`` matches any host and is placed last,
so a site system whose host names match wins.  ``PFSBENCH_SYSTEMS`` (a
comma-separated list of names) limits which systems are loaded.
"""

import os

from pfsbench.core.errors import ConfigError
from pfsbench.site import config as siteconfig

CONFIG_DIR = os.path.dirname(os.path.abspath(__file__))


def _merged():
    wanted = [s for s in os.environ.get('PFSBENCH_SYSTEMS', '').split(',')
              if s]
    try:
        config = siteconfig.load_site_configuration(CONFIG_DIR, wanted)[0]
        # ReFrame only warns about a malformed reference file and skips the
        # test, so a run could select nothing and still exit 0: refuse here.
        refs = os.environ['PFSBENCH_REFERENCES']     # set by common.py
        for system in config['systems']:
            path = os.path.join(refs, f'{system["name"]}.yaml')
            if os.path.exists(path):
                siteconfig.validate_reference_file(path)
        return config
    except ConfigError as err:
        # One line, no traceback: the file, the key, the value, the reason.
        raise SystemExit(f'pfsbench: error: {err}') from None


# ReFrame requires a plain top-level assignment to this name.
site_configuration = _merged()
