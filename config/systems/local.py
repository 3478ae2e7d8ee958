# SPDX-License-Identifier: BSD-3-Clause
"""``local``: any laptop or workstation, no scheduler, no root.

Matches every host name, so it is the default when no other system matches.
Checks write into their own ReFrame stage directory (fresh each run) unless
``PFSBENCH_SCRATCH`` names a scratch directory to benchmark instead.  Files
are capped at 256 MiB per stream: the sources' 50 GB files are for clusters.
"""

import os

_targets = []
if os.environ.get('PFSBENCH_SCRATCH'):
    _targets = [{'name': 'scratch', 'path': os.environ['PFSBENCH_SCRATCH'],
                 'descr': 'PFSBENCH_SCRATCH'}]

site_configuration = {
    'systems': [
        {
            'name': 'local',
            'descr': 'This host, local launcher (any laptop)',
            'hostnames': ['.*'],
            'modules_system': 'nomod',
            'partitions': [
                {
                    'name': 'default',
                    'descr': 'This host',
                    'scheduler': 'local',
                    'launcher': 'local',
                    'environs': ['builtin'],
                    'features': ['pfs'],
                    'extras': {
                        'targets': _targets,
                        'max_nodes': 1,
                        'max_bytes_per_stream': 256 * 2**20,
                    },
                },
            ],
        },
    ],
}
