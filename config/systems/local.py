# SPDX-License-Identifier: BSD-3-Clause
"""``local``: any laptop or workstation, no scheduler, no root.

Matches every host name, so it is the default when no other system matches.
Checks write into their own ReFrame stage directory (fresh each run) unless
``PFSBENCH_SCRATCH`` names a scratch directory to benchmark instead, and run
the tools on ``PATH`` unless ``PFSBENCH_SPACK_ENV`` names an installed Spack
environment (:func:`pfsbench.site.config.environment_extras`).  Files are
capped at 256 MiB per stream: the sources' 50 GB files are for clusters.
"""

from pfsbench.site.config import environment_extras

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
                        'max_nodes': 1,
                        'max_bytes_per_stream': 256 * 2**20,
                        # mdtest: the sources' 304000 to 3M files are for
                        # clusters.
                        'mdtest_max_items': 20000,
                        # tests/mfs runs the MooseFS servers on this host:
                        # a case on its mount drives them with its own I/O
                        # (where they do not run, the names match nothing).
                        'client_serving_processes': ['mfsmaster',
                                                     'mfschunkserver'],
                        **environment_extras(),
                    },
                },
            ],
        },
    ],
}
