# SPDX-License-Identifier: BSD-3-Clause
"""Tags that can explain a change, for ``reframe --session-extras``.

:func:`collect` reads, on the current host, what differs between two
nights when a figure moves: the file system holding the target directory
(type, source, mount options from ``/proc/self/mountinfo``), the kernel,
the OS, the host, Lustre/BeeGFS client versions when present, the Slurm
job and nodes when inside a job, and the Spack environment
(:func:`pfsbench.site.spack.environment`) with a hash of its ``spack.lock`` and
where a copy of that lock is kept.

ReFrame splits ``--session-extras`` on ``,`` and then on the first ``=``,
so values cannot hold commas: mount options are joined with ``;``.  Keys
never clash with ReFrame's own ``session_info`` keys (``hostname`` is
reserved, so the host is ``node``).
"""

import os
import platform
import re

from pfsbench.core.errors import ConfigError
from pfsbench.gate.history.results import RESERVED_SESSION_KEYS
from pfsbench.site import spack
from pfsbench.site.mounts import mount_of, parse_mountinfo

_KEY_RE = re.compile(r'[A-Za-z_][A-Za-z0-9_.-]*')


def _read(path):
    try:
        with open(path) as fp:
            return fp.read().strip()
    except OSError:
        return None


def _os_release():
    text = _read('/etc/os-release') or ''
    match = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', text, re.M)
    return match.group(1) if match else None


def _spack_tags(spack_extras, environ, runs_dir):
    """``spack_env``, ``spack_lock`` (the first 12 hex digits of the sha256
    of its ``spack.lock``: one value that changes whenever any concretised
    package does) and ``spack_lock_copy`` (where the run keeps that lock,
    :func:`pfsbench.site.spack.keep_lock`) of the environment
    :func:`pfsbench.site.spack.environment` decides the run uses."""
    env = spack.environment(spack_extras, environ)
    if env is None or not env.env_dir:
        return {}

    tags = {'spack_env': env.env_dir}
    if runs_dir:
        kept = spack.keep_lock(env.env_dir, runs_dir)
        if kept:
            tags['spack_lock'] = kept[0][:12]
            tags['spack_lock_copy'] = kept[1]
    else:
        digest = spack.lock_digest(env.env_dir)
        tags['spack_lock'] = digest and digest[:12]
    return tags


def _clean(value):
    return str(value).replace(',', ';').replace('\n', ' ').strip()


def collect(target, mountinfo_path='/proc/self/mountinfo', environ=None,
            spack_extras=None, runs_dir=None):
    """Tags of the current host and the file system holding ``target``.

    Args:
        target: a directory on the file system under test.
        mountinfo_path: where to read the mount table.
        environ: the environment (default ``os.environ``).
        spack_extras: the partition's ``extras`` (its ``spack_env`` and
            ``spack_view``), where the run names one.
        runs_dir: where the results go: a copy of the Spack environment's
            ``spack.lock`` is kept under it (None: none is kept).

    Returns:
        An ordered dict of ``key: value`` strings, without commas.

    Raises:
        ConfigError: ``target`` does not exist or no mount holds it.
    """
    env = os.environ if environ is None else environ
    if not os.path.exists(target):
        raise ConfigError('<command line>', 'target', target,
                          'no such file or directory')

    text = _read(mountinfo_path)
    if text is None:
        raise ConfigError(mountinfo_path, '<file>', mountinfo_path,
                          'cannot read the mount table')

    mount = mount_of(target, parse_mountinfo(text))
    if mount is None:
        raise ConfigError(mountinfo_path, 'mount_point', target,
                          'no mount holds this path')

    tags = {
        'fs_type': mount['fs_type'],
        'fs_source': mount['source'],
        'fs_mount': mount['mount_point'],
        'fs_mount_opts': mount['mount_opts'],
        'fs_super_opts': mount['super_opts'],
        'kernel': platform.release(),
        'os': _os_release(),
        'node': platform.node(),
        'lustre_client': (_read('/sys/fs/lustre/version') or
                          _read('/proc/fs/lustre/version')),
        'beegfs_client': _read('/proc/fs/beegfs/version'),
        'slurm_job_id': env.get('SLURM_JOB_ID'),
        'slurm_nodelist': env.get('SLURM_JOB_NODELIST'),
        **_spack_tags(spack_extras, env, runs_dir),
    }
    return {k: _clean(v) for k, v in tags.items() if v}


def parse_pairs(pairs, where='--extra'):
    """``['k=v', ...]`` into a dict, checking keys.

    Raises:
        ConfigError: no ``=``, a bad key, a reserved key or a comma.
    """
    out = {}
    for pair in pairs or ():
        key, sep, value = pair.partition('=')
        if not sep or not _KEY_RE.fullmatch(key):
            raise ConfigError('<command line>', where, pair,
                              'expected KEY=VALUE with a letter, digit, _, '
                              '. or - key')

        if key in RESERVED_SESSION_KEYS:
            raise ConfigError('<command line>', where, key,
                              'reserved by ReFrame\'s session_info')

        if ',' in value:
            raise ConfigError('<command line>', where, pair,
                              'ReFrame splits session extras on commas; '
                              'use ; instead')

        out[key] = value

    return out


def format_extras(tags):
    """``k=v,k=v`` for ``reframe --session-extras``."""
    return ','.join(f'{k}={v}' for k, v in tags.items())
