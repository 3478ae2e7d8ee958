# SPDX-License-Identifier: BSD-3-Clause
"""Reports waiting for the store: a night whose store did not answer
keeps its run reports here, one file per session (``<uuid>.json``), and
the next ingest loads them first.  Nothing is lost: a file is removed only
after its session is committed (or found already stored).

A file is written to a temporary name and renamed, so a reader never sees
half a report; a session spooled twice is one file.
"""

import datetime
import glob
import json
import os
import re
import tempfile
import time

from pfsbench.core.errors import ResultsError

#: The spool's directory name under the runs directory.
SPOOL_DIR = 'store-spool'

_SAFE = re.compile(r'[^A-Za-z0-9._-]')


def default_dir(runs_dir):
    return os.path.join(runs_dir, SPOOL_DIR)


#: The key of a spooled file that names the cluster it is kept for.
SYSTEM_KEY = 'pfsbench_spooled_for'


def put(directory, report, system=None):
    """Keep ``report`` (a decoded run report) in the spool, for the
    cluster ``system`` (None: the ingest's default); return its file."""
    if system is not None:
        report = dict(report, **{SYSTEM_KEY: system})
    uuid = str((report.get('session_info') or {}).get('uuid') or 'unknown')
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, _SAFE.sub('_', uuid) + '.json')
    fd, tmp = tempfile.mkstemp(dir=directory, prefix='.spool-')
    try:
        with os.fdopen(fd, 'w', encoding='utf-8') as fp:
            json.dump(report, fp, ensure_ascii=False)
            fp.flush()
            os.fsync(fp.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def waiting(directory):
    """The spooled files, oldest first."""
    files = glob.glob(os.path.join(directory, '*.json'))
    return sorted(files, key=lambda p: (os.path.getmtime(p), p))


#: A report older than this in the spool is said in the gate's output: the
#: store has missed more than a night (one that does not answer for a
#: night spools one night; two nights are no more a blip).
OVERDUE_HOURS = 36


def overdue(directory, now=None):
    """One line saying how long the oldest report has waited in the
    spool, when that is more than :data:`OVERDUE_HOURS`; else None."""
    files = waiting(directory)
    if not files:
        return None
    now = time.time() if now is None else now
    oldest = os.path.getmtime(files[0])
    hours = (now - oldest) / 3600
    if hours <= OVERDUE_HOURS:
        return None
    since = datetime.datetime.fromtimestamp(
        oldest, datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')
    return (f'{len(files)} report(s) have waited in {directory} since '
            f'{since} ({hours / 24:.1f} days): the results store has not '
            'taken them and its history misses those nights; pfsbench '
            'ingest loads them once it answers')


def read(path):
    """A spooled report.

    Raises:
        ResultsError: the file is not JSON (named; left in place).
    """
    try:
        with open(path, encoding='utf-8') as fp:
            return json.load(fp)
    except (OSError, ValueError) as err:
        raise ResultsError(f'{path}: spooled report unreadable: {err}') \
            from None


def read_for(path):
    """``(report, cluster)`` of a spooled file: the cluster it was kept
    for (None when the night named none), so that a later ingest under
    another ``--system`` does not take it as its own.

    Raises:
        ResultsError: the file is not JSON (named; left in place).
    """
    report = read(path)
    if isinstance(report, dict) and SYSTEM_KEY in report:
        report = dict(report)
        return report, report.pop(SYSTEM_KEY)
    return report, None
