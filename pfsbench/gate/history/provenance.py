# SPDX-License-Identifier: BSD-3-Clause
"""What differs between the sessions a figure is compared across.

A session's provenance is its session extras (``pfsbench session-extras``:
file-system type, mount and superblock options, kernel, client versions,
Spack lock hash, Slurm nodes...), ReFrame's version and host, and, per test
case, the nodes it ran on and the fields of
:data:`pfsbench.core.fields.TAG_FIELDS` (Spack hashes of the binaries,
target path and file-system type, server-side facts, IO500 validity).  :func:`differences` lists what changed
between the baseline's sessions and the current one, most likely causes of
a performance change first, with mount options compared option by option.
"""

import fnmatch
import re
from collections import defaultdict
from dataclasses import dataclass

from pfsbench.core import fields

#: Provenance keys by how likely their change explains a performance
#: change, most likely first: ``(glob, label)``.  Keys that match none
#: (a site's own ``--extra k=v``) rank after the tools, before the nodes.
RANKS = (
    ('fs_type', 'file-system type'),
    (fields.TARGET_FSTYPE, 'file-system type of the target'),
    ('fs_super_opts', 'superblock options'),
    ('fs_mount_opts', 'mount options'),
    ('fs_version', 'file-system version'),
    (fields.SERVER_PROVENANCE, 'server side (versions, servers, layout)'),
    # An IO500 run whose phases ended before the stonewall scores what a
    # valid one would not: that, not the file system, may be the change.
    (fields.IO500_VALID, 'IO500 validity (io500_invalid says why)'),
    ('*_server', 'server version'),
    ('*_client', 'client version'),
    ('kernel', 'kernel'),
    (fields.TOOL_SPACK_BUILD, 'benchmark build (Spack)'),
    (fields.SPACK_PROVENANCE, 'benchmark build (Spack)'),
    ('spack_*', 'Spack environment'),
    ('*stripe*', 'stripe layout'),
    ('*version*', 'version'),
    (None, None),
    ('job_nodelist', 'nodes'),
    ('slurm_nodelist', 'nodes'),
    ('node', 'node'),
    ('os', 'OS'),
    ('reframe_version', 'ReFrame'),
    ('hostname', 'ReFrame host'),
    ('fs_source', 'file-system source'),
    ('fs_mount', 'mount point'),
    (fields.TARGET_PATH, 'target path'),
)

#: Keys that differ between any two sessions by design and explain
#: nothing (a lock's copy is named by its hash, ``spack_lock`` says it).
IGNORED = frozenset({'slurm_job_id', 'spack_lock_copy'})

#: Keys whose values are option lists (``;``-joined in session extras,
#: since ReFrame splits them on commas).
OPTION_KEYS = frozenset({'fs_super_opts', 'fs_mount_opts'})

#: Keys whose values are Spack builds: the change says which package
#: changed, and its version, variants and hash (:func:`build_change`).
BUILD_KEYS = frozenset({fields.TOOL_SPACK_BUILD, fields.SPACK_PROVENANCE})

#: Keys whose values are ``key=value; ...`` facts (what a partition's
#: ``server_provenance_command`` printed): the change names the facts that
#: differ (:func:`fact_change`).
FACT_KEYS = frozenset({fields.SERVER_PROVENANCE})

_UNKNOWN_RANK = next(i for i, (glob, _) in enumerate(RANKS) if glob is None)


@dataclass(frozen=True)
class Change:
    """One provenance key whose value differs from the baseline's."""

    key: str
    label: str
    #: The baseline's values (one per distinct value over its sessions).
    before: tuple
    after: object
    #: For option lists: ``+added`` and ``-removed`` options.
    detail: str = ''

    def as_dict(self):
        return {'key': self.key, 'label': self.label,
                'before': list(self.before), 'after': self.after,
                'detail': self.detail}

    def describe(self):
        """``"fs_super_opts: +data=journal -data=ordered (superblock
        options)"`` or ``"kernel: '5.4' -> '6.1' (kernel)"``."""
        if self.detail:
            text = f'{self.key}: {self.detail}'
        else:
            before = ' | '.join(repr(v) for v in self.before) or 'None'
            text = f'{self.key}: {before} -> {self.after!r}'

        return f'{text} ({self.label})' if self.label else text


def rank_of(key):
    """``(rank, label)`` of a provenance key (smaller: likelier cause)."""
    for i, (glob, label) in enumerate(RANKS):
        if glob is not None and fnmatch.fnmatchcase(key, glob):
            return i, label

    return _UNKNOWN_RANK, ''


def named_cause(key):
    """Whether a changed ``key`` names a cause (the file system, its
    options and versions, the servers, the kernel, the benchmark build),
    not the nodes or a key the ranks do not know."""
    return rank_of(key)[0] < _UNKNOWN_RANK


def _options(value):
    return set(str(value).replace(',', ';').split(';')) - {''}


def option_change(before, after):
    """``'+data=journal +nodelalloc -data=ordered'``: options of
    ``after`` missing from every baseline value, then options of the
    baseline missing from ``after``."""
    now = _options(after or '')
    was = [_options(v or '') for v in before] or [set()]
    added = sorted(now - set.union(*was))
    removed = sorted(set.intersection(*was) - now)
    return ' '.join([f'+{o}' for o in added] + [f'-{o}' for o in removed])


def _facts(value):
    return dict(item.strip().split('=', 1)
                for item in str(value or '').split(';') if '=' in item)


def fact_change(before, after):
    """``'copies 1 -> 2; chunkservers 3 -> 2'``: the facts of ``after``
    that differ from the last baseline value (a fact that appeared or
    went is ``None`` on the other side)."""
    was = _facts(next((v for v in reversed(before) if v), ''))
    now = _facts(after)
    keys = list(was) + [key for key in now if key not in was]
    return '; '.join(f'{key} {was.get(key)} -> {now.get(key)}'
                     for key in keys if was.get(key) != now.get(key))


def _builds(value):
    """``{package: (version, variants, other parameters, hash)}`` of a
    :data:`BUILD_KEYS` value: ``'ior@4.0.0~hdf5+lustre build_system=autotools
    /<hash>'`` (``tool_spack_build``) or ``'fio@3.33/t5vb6ty
    ior@4.0.0/zrvssz4'`` (``spack_provenance``)."""
    builds = {}
    if not value:
        return builds

    name = None
    for token in str(value).split():
        match = re.fullmatch(r'([\w.-]+)@([^/+~\s]+)((?:[+~][\w.-]+)*)'
                             r'(?:/(\w+))?', token)
        if match:
            name, version, variants, dag_hash = match.groups()
            builds[name] = [version, variants, [], dag_hash or '']
        elif name and token.startswith('/'):
            builds[name][3] = token[1:]
        elif name:
            builds[name][2].append(token)
    return {n: (v, var, ' '.join(p), h) for n, (v, var, p, h)
            in builds.items()}


def _changed_only(old, new):
    """The variants (``~hdf5+lustre``) or parameters (``a=1 b=2``) of two
    builds that differ, each side's own spelling."""
    def split(text):
        return set(re.findall(r'[+~][\w.-]+', text) if text[:1] in '+~'
                   else text.split())
    was, now = split(old), split(new)
    return (' '.join(sorted(was - now)), ' '.join(sorted(now - was)))


def build_change(before, after):
    """What changed in a Spack build: ``'ior: version 3.3.0 -> 4.0.0;
    variants ~lustre -> +lustre; hash zrvssz4 -> k2j3h4g'``, one clause
    per package that differs from the last baseline value (a package that
    appeared or went is ``+ior@4.0.0`` / ``-ior@4.0.0``)."""
    was = _builds(next((v for v in reversed(before) if v), ''))
    now = _builds(after)
    said = []
    for name in sorted(set(was) | set(now)):
        if name not in was:
            said.append(f'+{name}@{now[name][0]}')
            continue
        if name not in now:
            said.append(f'-{name}@{was[name][0]}')
            continue
        parts = []
        for label, old, new in zip(('version', 'variants', 'parameters',
                                    'hash'), was[name], now[name]):
            if old == new:
                continue
            if label == 'hash':
                old, new = old[:7], new[:7]
            elif label in ('variants', 'parameters'):
                old, new = _changed_only(old, new)
            parts.append(f'{label} {old or "none"} -> {new or "none"}')
        if parts:
            said.append(f'{name}: ' + ', '.join(parts))
    return '; '.join(said)


def detail_of(key, before, after):
    """What changed inside a value whose key says it is a list of options,
    Spack builds or facts; ``''`` for any other key (its values say it)."""
    for keys, change in ((OPTION_KEYS, option_change),
                         (BUILD_KEYS, build_change),
                         (FACT_KEYS, fact_change)):
        if key in keys:
            return change(before, after)

    return ''


def session_level(session):
    """Provenance shared by every case of a session: its extras, ReFrame's
    version and host, as ``{key: str}``.

    Args:
        session: a :class:`pfsbench.gate.history.results.Session` or its
            :meth:`~pfsbench.gate.history.results.Session.as_dict` (as a
            baseline file keeps it).
    """
    if isinstance(session, dict):
        extras = session.get('extras') or {}
        version, host = (session.get('reframe_version'),
                         session.get('hostname'))
    else:
        extras = session.extras
        version, host = session.reframe_version, session.hostname

    tags = {str(k): str(v) for k, v in extras.items()}
    if version is not None:
        tags['reframe_version'] = str(version)

    if host is not None:
        tags['hostname'] = str(host)

    return tags


def case_level(nodelist=(), case_tags=()):
    """Provenance of one case in one session as ``{key: str}``.

    Args:
        nodelist: the nodes the case ran on (every repeat).
        case_tags: ``((field, value), ...)`` of the case's records
            (:attr:`pfsbench.gate.history.results.Record.tags`); several values
            of one field are joined with `` | ``.
    """
    values = defaultdict(set)
    for field, value in case_tags:
        values[field].add(value)

    tags = {field: ' | '.join(sorted(vals))
            for field, vals in values.items()}
    # A job that never ran on a node reports none ('None' once logged).
    nodes = {str(n) for n in nodelist if n not in (None, '', 'None')}
    if nodes:
        tags['job_nodelist'] = ','.join(sorted(nodes))

    return tags


def session_tags(session, nodelist=(), case_tags=()):
    """:func:`session_level` and :func:`case_level` in one dict."""
    return {**session_level(session), **case_level(nodelist, case_tags)}


def baseline_tags(baseline, case):
    """Provenance of a baseline case, one dict per baseline session that
    holds it (session-level only for a baseline recorded before cases
    kept theirs).

    Returns:
        ``([{key: str}, ...], whether the case-level keys are known)``.
    """
    sessions = baseline['sessions']
    kept = case.get('provenance')
    if not kept:
        used = sorted({i for pv in case['perfvars'].values()
                       for i in pv['session_index']})
        return [session_level(sessions[i]) for i in used], False

    return [{**session_level(sessions[p['session_index']]), **p['tags']}
            for p in kept], True


def case_tags_of(records):
    """``(nodes, tags)`` of a case's records, for :func:`session_tags`."""
    nodes, tags = set(), set()
    for rec in records:
        nodes.update(rec.nodelist)
        tags.update(rec.tags)

    return nodes, tags


def differences(before, after):
    """What changed from the baseline's provenance to the current one.

    Args:
        before: ``[{key: value}, ...]``, one dict per baseline session.
        after: ``{key: value}`` of the current session.

    Returns:
        :class:`Change` list, likeliest cause first; a key absent on one
        side is ``None`` there; :data:`IGNORED` keys are left out.
    """
    before = before or [{}]
    out = []
    for key in set(after).union(*before) - IGNORED:
        was = []
        for tags in before:
            value = tags.get(key)
            if value not in was:
                was.append(value)

        now = after.get(key)
        if now in was:
            continue

        rank, label = rank_of(key)
        out.append((rank, key, Change(key, label, tuple(was), now,
                                      detail_of(key, was, now))))

    return [c for _, _, c in sorted(out, key=lambda t: t[:2])]
