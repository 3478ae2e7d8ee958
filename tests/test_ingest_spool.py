# SPDX-License-Identifier: BSD-3-Clause
"""``pfsbench ingest`` with the store down: every report it was given, and
every session of ``--from-runs``, waits in the spool; the next ingest
loads them all (docs/results-store.md)."""

import json
import os

from pfsbench import cli
import synth

CASE = 'IOR_write %num_nodes=1'


def _night(t):
    return synth.session({CASE: [500.0, 505.0, 495.0]}, time_start=t,
                         extras={'fs_version': '1.8'}, system='alpha')


def test_given_reports_and_the_runs_directory_both_wait(tmp_path, capsys):
    (tmp_path / 'not-a-dir').write_text('')
    down = str(tmp_path / 'not-a-dir' / 'store.sqlite')
    spool = tmp_path / 'spool'
    runs = tmp_path / 'runs'
    runs.mkdir()
    synth.write_database(str(runs / 'results.db'),
                         [_night(86400.0), _night(2 * 86400.0)])
    given = tmp_path / 'given.json'
    given.write_text(json.dumps(_night(3 * 86400.0)))
    code = cli.main(['ingest', str(given), '--from-runs', str(runs),
                     '--store', down, '--spool', str(spool)])
    err = capsys.readouterr().err
    assert code == 3, err
    assert '3 report(s) wait in' in err
    assert len(os.listdir(spool)) == 3

    up = str(tmp_path / 'store.sqlite')
    code = cli.main(['ingest', '--store', up, '--spool', str(spool)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert '3 session(s) stored, 0 already there' in out
    assert os.listdir(spool) == []
