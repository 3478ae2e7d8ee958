# SPDX-License-Identifier: BSD-3-Clause
"""The ReFrame configuration of pfsbench: ``reframe -C config/pfsbench.py``.

Also validates each system's reference file (``config/references/``, or
``$PFSBENCH_REFERENCES``): ReFrame would only skip the tests of a malformed
one, with a warning, and exit 0.

Merges ``config/common.py`` with every ``config/systems/*.py`` (one file per
system, CSCS-style) and validates pfsbench's own keys (partition ``extras``,
``sched_options``) with :mod:`pfsbench.siteconfig`, because ReFrame accepts
unknown keys there silently.  ``local`` matches any host and is placed last,
so a site system whose host names match wins.  ``PFSBENCH_SYSTEMS`` (a
comma-separated list of names) limits which systems are loaded.
"""

import os
import sys

CONFIG_DIR = os.path.dirname(os.path.abspath(__file__))


def _import_pfsbench():
    """Import the pfsbench package although this file is called pfsbench.py.

    ReFrame puts this directory on sys.path while it loads this file, and
    when the file lies outside the working directory (a site's own config
    repository) it registers it as module 'pfsbench' too: both hide the
    package.  Hide this directory and this module for the import only, and
    leave sys.path exactly as found (ReFrame removes its entry by position).
    """
    saved_path = sys.path[:]
    shadow = sys.modules.get('pfsbench')
    if shadow is not None and not hasattr(shadow, '__path__'):
        del sys.modules['pfsbench']
    sys.path[:] = [p for p in sys.path
                   if os.path.realpath(p or os.curdir) != CONFIG_DIR]
    checkout = os.path.dirname(CONFIG_DIR)
    if os.path.isfile(os.path.join(checkout, 'pfsbench', '__init__.py')):
        sys.path.insert(0, checkout)    # this checkout's package first
    try:
        import pfsbench.errors
        import pfsbench.siteconfig
    finally:
        sys.path[:] = saved_path

    return pfsbench.errors.ConfigError, pfsbench.siteconfig


ConfigError, siteconfig = _import_pfsbench()


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
