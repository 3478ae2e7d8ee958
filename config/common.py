# SPDX-License-Identifier: BSD-3-Clause
"""Settings every system shares: environments, logging, storage, reports.

Everything a run writes goes under one directory, ``$PFSBENCH_RUNS``
(default: ``runs/`` beside this config directory): stage and output
directories, the
perflogs, the run reports and ReFrame's results database, which the gate
reads.  A ``--dry-run`` writes its perflogs under ``runs/dry-run/`` instead
and does not touch the results database: ReFrame 4.10 logs dry runs with
``None`` values, which would poison a real history.
"""

import os
import sys

import pfsbench
from pfsbench.site import perflog_http

CONFIG_DIR = os.path.dirname(os.path.abspath(__file__))
#: The pfsbench checkout whose checks run (a site's config may live in a
#: repository of its own, elsewhere).
SUITE = os.path.dirname(os.path.dirname(os.path.abspath(pfsbench.__file__)))
RUNS = os.path.abspath(os.environ.get(
    'PFSBENCH_RUNS', os.path.join(os.path.dirname(CONFIG_DIR), 'runs')))
DRY_RUN = '--dry-run' in sys.argv
LOGS = os.path.join(RUNS, 'dry-run') if DRY_RUN else RUNS
os.makedirs(LOGS, exist_ok=True)   # ReFrame opens its log file here

# References: config/references/<system>.yaml, read by pfsbench.checks.
# (ReFrame 4.10.4's schema rejects its own documented
# general/reference_prefix, so the checks get the directory from here.)
os.environ.setdefault('PFSBENCH_REFERENCES',
                      os.path.join(CONFIG_DIR, 'references'))

#: The perflog format the gate and the reports parse: pinned here, once.
#: One line per test case; fields separated by '|'; every performance
#: variable as 'name=value|unit|ref|lower|upper' (ReFrame drops the
#: separator after the last one, hence the explicit '|'), then every loggable
#: attribute of the check (what explains a figure: sizes, target, nodes).
PERFLOG_FORMAT = (
    '%(check_job_completion_time)s|reframe %(version)s|%(check_name)s|'
    '%(check_system)s:%(check_partition)s|%(check_environ)s|'
    '%(check_jobid)s|%(check_job_nodelist)s|%(check_result)s|'
    '%(check_perfvalues)s|%(check_#ALL)s'
)
PERFLOG_FORMAT_PERFVARS = (
    '%(check_perf_var)s=%(check_perf_value)s|%(check_perf_unit)s|'
    '%(check_perf_ref)s|%(check_perf_lower_thres)s|'
    '%(check_perf_upper_thres)s|'
)

site_configuration = {
    'general': [
        {
            'check_search_path': [os.path.join(SUITE, 'reframe-checks')],
            'check_search_recursive': True,
            'report_file': os.path.join(LOGS, 'reports',
                                        'run-report-{sessionid}.json'),
            'timestamp_dirs': '',
        },
    ],
    'storage': [
        {
            # The gate reads the results database; it needs polars.
            'enable': not DRY_RUN,
            'sqlite_db_file': os.path.join(RUNS, 'results.db'),
        },
    ],
    'logging': [
        {
            'handlers': [
                {
                    'type': 'stream', 'name': 'stdout', 'level': 'info',
                    'format': '%(message)s',
                },
                {
                    'type': 'file',
                    'name': os.path.join(LOGS, 'reframe.log'),
                    'level': 'debug',
                    'format': '[%(asctime)s] %(levelname)s: '
                              '%(check_info)s: %(message)s',
                    'append': False,
                },
            ],
            'handlers_perflog': [
                {
                    'type': 'filelog',
                    'prefix': '%(check_system)s/%(check_partition)s',
                    'basedir': os.path.join(LOGS, 'perflogs'),
                    'level': 'info',
                    'format': PERFLOG_FORMAT,
                    'format_perfvars': PERFLOG_FORMAT_PERFVARS,
                    'append': True,
                },
                # ReFrame's httpjson handler, to a site's Elasticsearch or
                # OpenSearch, when PFSBENCH_PERFLOG_URL names one
                # (pfsbench/site/perflog_http.py; pfsbench check-config
                # says when its server does not answer).
            ] + ([] if DRY_RUN else perflog_http.handlers()),
        },
    ],
}
