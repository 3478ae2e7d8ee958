# SPDX-License-Identifier: BSD-3-Clause
"""Scratch safety (issue 12, item 4): the suite writes only below a marked
run directory of its own under a scratch root, deletes only such
directories, and refuses ``/``, homes, system directories and roots that
hold another user's files before anything runs."""

import os

import pytest

from conftest import CHECKS, run_reframe
from pfsbench.core.errors import ConfigError
from pfsbench.site import rundir, config as siteconfig
from pfsbench.site.config import check_scratch_dir
from test_render import _cli

#: A uid no file of this test's user has (nobody).
OTHER_UID = 65534


def _refused(path, must_exist=True):
    with pytest.raises(ConfigError) as err:
        check_scratch_dir(path, 'p', 'f', must_exist=must_exist)
    return err.value.why


@pytest.mark.parametrize('path,why', [
    ('/', 'is the root directory'),
    ('/etc', 'is the system directory /etc'),
    ('/usr', 'is the system directory /usr'),
    ('/usr/lib', 'is below the system directory /usr'),
    ('/var', 'is the system directory /var'),
    ('/var/log', 'is below the system directory /var'),
    ('/boot', 'is the system directory /boot'),
    ('/proc/self', 'is below the system directory /proc'),
    ('/sys', 'is the system directory /sys'),
    ('/dev', 'is the system directory /dev'),
    ('/tmp', 'is shared by every user'),
    ('/var/tmp', 'is shared by every user'),
    ('/dev/shm', 'is shared by every user'),
    ('/home/pfsbench-no-such-user', 'is a home directory'),
    ('/lustre/scratch/../../etc/x', 'is below the system directory /etc'),
])
@pytest.mark.parametrize('must_exist', [True, False],
                         ids=['here', 'rendered'])
def test_dangerous_roots_refused(path, why, must_exist):
    # Refused whether or not the path exists here (a job script rendered
    # for a cluster is checked too).
    assert why in _refused(path, must_exist)


def test_home_refused():
    assert 'is a home directory' in _refused('~')
    assert 'is a home directory' in _refused(os.path.expanduser('~'))


def test_link_to_a_system_directory_refused(tmp_path):
    (tmp_path / 'scratch').symlink_to('/etc')
    assert 'is the system directory /etc' in _refused(
        str(tmp_path / 'scratch'))


def test_below_temporary_directories_allowed(open_tmp_path):
    # /var/tmp is below /var, but a directory of one's own there is
    # scratch; so is a directory below a home.
    assert check_scratch_dir(str(open_tmp_path), 'p', 'f') == str(
        open_tmp_path)
    assert check_scratch_dir('/home/alice/scratch', 'p', 'f',
                             must_exist=False) == '/home/alice/scratch'


def test_own_files_and_suite_entries_allowed(tmp_path):
    (tmp_path / 'notes.txt').write_text('mine')
    (tmp_path / 'lost+found').mkdir()
    (tmp_path / '.pfsbench-lock').write_text('{}')
    rundir.create(str(tmp_path / 'pfsbench-x-20260101T000000-1'), 'x')
    assert check_scratch_dir(str(tmp_path), 'p', 'f') == str(tmp_path)


@pytest.fixture
def as_root():
    if os.geteuid() != 0:
        pytest.skip('giving a file to another user needs root')


def test_root_with_another_users_file_refused(tmp_path, as_root):
    planted = tmp_path / 'alice'
    planted.mkdir()
    os.chown(planted, OTHER_UID, OTHER_UID)
    why = _refused(str(tmp_path))
    assert why == (f"holds 'alice' of another user (uid {OTHER_UID}); give "
                   f"a directory of your own to pfsbench")


def test_another_users_run_directory_allowed(tmp_path, as_root):
    run = tmp_path / 'pfsbench-x-20260101T000000-1'
    rundir.create(str(run), 'x')
    os.chown(run, OTHER_UID, OTHER_UID)
    assert check_scratch_dir(str(tmp_path), 'p', 'f') == str(tmp_path)
    # ... and cleanup leaves it to its owner.
    assert rundir.leftovers(str(tmp_path)) == []


def test_shared_sticky_root_of_another_user_refused(tmp_path, as_root):
    shared = tmp_path / 'scratch'
    shared.mkdir()
    os.chown(shared, OTHER_UID, OTHER_UID)
    shared.chmod(0o1777)
    assert 'is shared by every user (mode 1777' in _refused(str(shared))
    # A fresh tmpfs mount is 1777 as well, but its mounter's own.
    os.chown(shared, os.geteuid(), os.getegid())
    assert check_scratch_dir(str(shared), 'p', 'f') == str(shared)


def test_crowded_root_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(siteconfig, 'SCAN_LIMIT', 3)
    for i in range(4):
        (tmp_path / f'f{i}').write_text('x')
    assert 'holds more than 3 entries' in _refused(str(tmp_path))


def test_marker_must_be_a_regular_file_in_a_real_directory(tmp_path):
    linked = tmp_path / 'pfsbench-linked-marker'
    linked.mkdir()
    (tmp_path / 'elsewhere').write_text('x')
    (linked / rundir.MARKER).symlink_to(tmp_path / 'elsewhere')
    foreign = tmp_path / 'foreign'
    foreign.mkdir()
    (foreign / rundir.MARKER).write_text('x')
    (tmp_path / 'pfsbench-link').symlink_to(foreign)
    real = tmp_path / 'pfsbench-real'
    rundir.create(str(real), 'x')
    assert rundir.leftovers(str(tmp_path)) == [str(real)]
    for path in (linked, tmp_path / 'pfsbench-link'):
        with pytest.raises(ValueError, match='not a pfsbench run directory'):
            rundir.remove(str(path))
    assert foreign.is_dir() and linked.is_dir()


@pytest.mark.parametrize('directory,why', [
    ('/', 'is the root directory'),
    ('/etc', 'is the system directory /etc'),
    ('~', 'is a home directory'),
])
def test_cleanup_refuses_dangerous_directory(directory, why):
    code, out, err = _cli(['cleanup', os.path.expanduser(directory)])
    assert code == 2 and out == ''
    assert err.startswith('pfsbench: error: <command line>:DIR:')
    assert why in err


def test_check_refuses_root_with_foreign_file_before_running(tmp_path,
                                                             as_root):
    # A real run: the case fails at setup, nothing is written, the planted
    # file survives.
    scratch = tmp_path / 'scratch'
    scratch.mkdir()
    planted = scratch / 'alice-results.h5'
    planted.write_text('precious')
    os.chown(planted, OTHER_UID, OTHER_UID)
    proc = run_reframe(['-c', str(CHECKS / 'dd' / 'dd_streaming.py'), '-n',
                        'dd_streams_one_node', '-P', 'streams_per_node=1',
                        '-S', 'count=1', '-r'], tmp_path / 'runs',
                       env={'PFSBENCH_SCRATCH': str(scratch)})
    assert proc.returncode != 0
    assert ("local:default:extras.targets[scratch].path: "
            f"'{scratch}': holds 'alice-results.h5' of another user "
            f"(uid {OTHER_UID})") in proc.stdout
    assert 'Failing phase: setup' in proc.stdout
    assert sorted(os.listdir(scratch)) == ['alice-results.h5']
    assert planted.read_text() == 'precious'
