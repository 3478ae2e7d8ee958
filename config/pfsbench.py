# SPDX-License-Identifier: BSD-3-Clause
"""The ReFrame configuration of pfsbench: ``reframe -C config/pfsbench.py``.

Merges ``config/common.py`` with every ``config/systems/*.py`` (one file per
system, CSCS-style) and validates pfsbench's own keys (partition ``extras``,
``sched_options``) with :mod:`pfsbench.siteconfig`, because ReFrame accepts
unknown keys there silently.  ``local`` matches any host and is placed last,
so a site system whose host names match wins.  ``PFSBENCH_SYSTEMS`` (a
comma-separated list of names) limits which system files are loaded.
"""

import glob
import importlib.util
import os
import sys

CONFIG_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(CONFIG_DIR))

from pfsbench.errors import ConfigError                      # noqa: E402
from pfsbench.siteconfig import validate_site_configuration  # noqa: E402


def _load(path):
    name = 'pfsbench_config_' + os.path.basename(path)[:-3]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _merge():
    common = _load(os.path.join(CONFIG_DIR, 'common.py'))
    config = dict(common.site_configuration)
    wanted = {s for s in os.environ.get('PFSBENCH_SYSTEMS', '').split(',')
              if s}
    systems = []
    for path in sorted(glob.glob(os.path.join(CONFIG_DIR, 'systems',
                                              '*.py'))):
        site = validate_site_configuration(_load(path).site_configuration,
                                           os.path.relpath(path))
        for system in site['systems']:
            if not wanted or system['name'] in wanted:
                system.setdefault('prefix', common.RUNS)
                systems.append(system)

    # 'local' matches every host: it must come last.
    systems.sort(key=lambda s: s['name'] == 'local')
    config['systems'] = systems
    return config


try:
    site_configuration = _merge()
except ConfigError as err:
    # ReFrame prints this as a configuration error without a traceback.
    raise SystemExit(f'pfsbench: error: {err}') from None
