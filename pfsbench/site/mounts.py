# SPDX-License-Identifier: BSD-3-Clause
"""The mount table: which file system holds a path, with its options.

Read from ``/proc/<pid>/mountinfo`` (not ``/proc/mounts``: mountinfo also
has the device number and the superblock options).  Used by the checks (a
target's file-system type and device), the contention probe (the device
whose I/O counters to watch) and the gate's session extras (mount options
that explain a change).
"""

import os
import re

MOUNTINFO = '/proc/self/mountinfo'


def _unescape(field):
    """Undo the octal escapes of mountinfo (``\\040`` is a space)."""
    return re.sub(r'\\([0-7]{3})', lambda m: chr(int(m.group(1), 8)), field)


def parse_mountinfo(text):
    """Parse ``/proc/<pid>/mountinfo``.

    Args:
        text: the file's contents.

    Returns:
        A list of dicts with ``mount_point``, ``device`` (``major:minor``),
        ``fs_type``, ``source``, ``mount_opts`` (per mount) and
        ``super_opts`` (per superblock), in file order.
    """
    mounts = []
    for line in text.splitlines():
        left, sep, right = line.partition(' - ')
        if not sep:
            continue

        lf, rf = left.split(), right.split()
        if len(lf) < 6 or len(rf) < 2:
            continue

        mounts.append({
            'mount_point': _unescape(lf[4]),
            'device': lf[2],
            'mount_opts': lf[5],
            'fs_type': rf[0],
            'source': _unescape(rf[1]),
            'super_opts': rf[2] if len(rf) > 2 else '',
        })

    return mounts


def read_mounts(mountinfo_path=MOUNTINFO):
    """This process's mount table (empty where it cannot be read)."""
    try:
        with open(mountinfo_path) as fp:
            return parse_mountinfo(fp.read())
    except OSError:
        return []


def mount_of(path, mounts):
    """The mount that holds ``path`` (longest mount-point prefix; the last
    one wins when mounts are stacked), or None."""
    path = os.path.realpath(path)
    best = None
    for m in mounts:
        mp = m['mount_point']
        inside = path == mp or path.startswith(mp.rstrip('/') + '/')
        if inside and (best is None or len(mp) >= len(best['mount_point'])):
            best = m

    return best


def fstype_of(path):
    """File-system type of the mount holding ``path`` ('' if unknown)."""
    mount = mount_of(path, read_mounts())
    return mount['fs_type'] if mount else ''


def declared_or_local_fstype(declared, path):
    """A target's file-system type: the one its config declares, else the
    type of the mount holding ``path`` where ``path`` exists on this host;
    '' for a path of another machine (a dry run's), which the mount table
    here would wrongly place on this host's root."""
    if declared:
        return declared
    return fstype_of(path) if os.path.isdir(path) else ''


def target_is_lustre(entry, features):
    """Whether a target of a partition with ``features`` takes Lustre
    layouts (``lfs setstripe``): the partition has the ``lustre`` feature
    (``lfs`` is there) and the target declares ``fstype: lustre`` or none
    (features are per partition, file systems per target)."""
    return ('lustre' in features and
            entry.get('fstype', 'lustre') in ('', 'lustre'))
