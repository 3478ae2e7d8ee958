# SPDX-License-Identifier: BSD-3-Clause
"""The gate's serial start made cheaper reads and decides the same: the
sessions read without their kept figures, the kept figures still used
only where this pfsbench kept them (docs/gate-evidence.md, "Speed: a year
of nightlies")."""

from pfsbench import store
from pfsbench.store import ingest, records, series
import synth

DAY = 86400.0


def _night(day, value):
    uuid = f'{day:08d}-0000-4000-8000-000000000000'
    cases = [synth.make_testcase(
        uuid, 0, r, 'dd_a', {'write_bw': (value + r, 'MB/s')}, repeat=r,
        time=day * DAY + r) for r in range(3)]
    return synth.make_report(cases, time_start=day * DAY, session_uuid=uuid)


def _store(tmp_path, nights):
    url = str(tmp_path / 'pfsbench-store.sqlite')
    with store.open_store(url) as conn:
        for day, value in enumerate(nights):
            store.ingest_report(conn, _night(day, value), f'r{day}.json')
    return url


def test_the_sessions_are_read_without_their_kept_figures(tmp_path):
    url = _store(tmp_path, [400.0, 410.0])
    statements = []
    with store.open_store(url) as conn:
        conn.conn.set_trace_callback(statements.append)
        got = records.sessions_of(conn, 'local')
    assert [s.time_start for s in got.values()] == [0.0, DAY]
    reads = [s for s in statements if 'pfsbench_sessions' in s]
    assert reads
    assert not any('figures' in s for s in reads), reads


def test_kept_figures_of_another_stamp_are_computed_from_the_rows(
        tmp_path):
    url = _store(tmp_path, [400.0, 410.0, 420.0])
    with store.open_store(url) as conn:
        # Night 1 kept night 0's figures under this pfsbench's stamp,
        # night 2 night 0's under another one: only night 1's are used.
        kept = dict(conn.execute('SELECT uuid, figures FROM '
                                 'pfsbench_sessions'))
        uuids = sorted(kept)
        for uuid, stamp in ((uuids[1], ingest.FIGURES_STAMP),
                            (uuids[2], 'another pfsbench')):
            conn.execute('UPDATE pfsbench_sessions SET figures = ?, '
                         'figures_stamp = ? WHERE uuid = ?',
                         (kept[uuids[0]], stamp, uuid))
        conn.commit()
        got = series.synced_series(conn, 'local', None,
                                   records.sessions_of(conn, 'local'),
                                   100, False)
    (columns,) = got.cases.values()
    assert list(columns.columns['write_bw'][0]) == [401.0, 401.0, 421.0]
