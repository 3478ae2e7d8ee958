# SPDX-License-Identifier: BSD-3-Clause
"""Parse ``lfs getstripe`` output into file layouts.

Understood (the layouts ``lfs getstripe <path>`` prints; see
``tests/data/lfs/SOURCES.md`` for the published samples):

* a plain (RAID-0) file: ``lmm_stripe_count:``, ``lmm_stripe_size:``,
  ``lmm_pattern:``, ``lmm_layout_gen:``, ``lmm_stripe_offset:`` and the
  ``obdidx objid objid group`` object table;
* the object table alone (older ``lfs`` printed no ``lmm_`` lines);
* a composite file (PFL, FLR): ``lcm_*`` header, then one ``lcme_*`` block
  per component, each with its ``lmm_*`` lines and ``lmm_objects:`` list;
* a directory's default layout: ``stripe_count: N stripe_size: S
  stripe_offset: O`` on one line (``(Default)`` prefix and ``1M`` sizes of
  older versions included).

:func:`layout_mismatches` compares a file's layout with the one requested
from ``lfs setstripe``, so that a layout Lustre silently changed (a stripe
count above the number of OSTs, an inherited composite layout) is named.
"""

import re
from dataclasses import dataclass

# Sizes as lfs prints them (1M) are IOR's size syntax, case aside.
from pfsbench.commands.ior import size_bytes
from pfsbench.core.errors import ParseError


@dataclass(frozen=True)
class Component:
    """One RAID-0 layout: the whole file, or one component of it."""

    stripe_count: int | None
    stripe_size_bytes: int | None
    stripe_offset: int | None
    #: ``raid0``, ``mdt``, or the numeric pattern of older ``lfs`` (``1``).
    pattern: str | None
    #: OST index of every allocated object, in stripe order.
    ost_indices: tuple
    #: Extent of a composite layout's component (end None = EOF).
    extent_start: int | None = None
    extent_end: int | None = None
    #: ``init``, ``stale``, ``prefer``... (composite layouts).
    flags: str | None = None


@dataclass(frozen=True)
class Layout:
    """The layout of one path."""

    path: str
    #: ``file``, ``composite`` or ``directory-default``.
    kind: str
    components: tuple

    @property
    def plain(self):
        """The single component of a plain or default layout, else None."""
        if self.kind != 'composite' and len(self.components) == 1:
            return self.components[0]

        return None


@dataclass(frozen=True)
class Result:
    """Every layout ``lfs getstripe`` printed, in output order."""

    layouts: tuple

    def layout(self, path):
        """The :class:`Layout` printed for ``path`` (KeyError if none)."""
        for layout in self.layouts:
            if layout.path.rstrip('/') == path.rstrip('/'):
                return layout

        raise KeyError(path)


_FAILURE = re.compile(r'^(error:|lfs( getstripe)?:)|has no stripe info'
                      r'|No such file or directory|Inappropriate ioctl')
# The value is stripped by the caller: a lazy '(.*?)\s*$' is quadratic in a
# line of blanks.
_KEY = re.compile(r'^\s*(lmm_\w+|lcm_\w+|lcme_[\w.]+):(.*)')
_DEFAULT = re.compile(r'^\s*(?:\(Default\)\s*)?stripe_count:\s*(-?\d+)\s+'
                      r'stripe_size:\s*(\d+[KMGT]?)\s+'
                      r'stripe_offset:\s*(-?\d+)', re.IGNORECASE)
_OBJ_HEADER = re.compile(r'^\s*obdidx\s+objid\s+objid\s+group\s*$')
_OBJ_ROW = re.compile(r'^\s*(\d+)\s+\d+\s+m?0x[0-9a-f]+\s+(?:0x)?[0-9a-f]+'
                      r'\s*$', re.IGNORECASE)
_YAML_OBJ = re.compile(r'^\s*-\s*(?:\d+:\s*\{\s*)?l_ost_idx:\s*(\d+)')


def parse(text, source='<text>'):
    """Parse the output of ``lfs getstripe PATH...``.

    Args:
        text: the command's output (stdout and stderr).
        source: the name quoted in error messages.

    Returns:
        A :class:`Result`.

    Raises:
        ParseError: ``lfs`` reported an error (quoted), or no layout was
            found.
    """
    lines = text.splitlines()
    for lineno, line in enumerate(lines, 1):
        if _FAILURE.search(line):
            raise ParseError(source, lineno, line.strip(),
                             'expected a file layout, but lfs reported an '
                             'error')

    layouts = []
    entry = None        # [path, kind, components, current component dict]
    in_objects = False
    for lineno, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped:
            in_objects = False
            continue

        if m := _DEFAULT.match(line):
            if entry is None:
                raise ParseError(source, lineno, stripped,
                                 'expected a path before the layout')
            comp = _new_component()
            comp.update(stripe_count=int(m.group(1)),
                        stripe_size_bytes=size_bytes(m.group(2)),
                        stripe_offset=int(m.group(3)))
            if entry[1] == 'composite':
                entry[2].append(comp)     # a directory's PFL template
            else:
                entry[1] = 'directory-default'
                entry[2] = [comp]
            continue

        if _OBJ_HEADER.match(line):
            in_objects = True
            if entry is not None and not entry[2]:
                entry[2].append(_new_component())
            continue

        if in_objects and (m := _OBJ_ROW.match(line)):
            if entry is None:
                raise ParseError(source, lineno, stripped,
                                 'expected a path before the objects')
            entry[2][-1]['ost_indices'].append(int(m.group(1)))
            continue

        if m := _YAML_OBJ.match(line):
            if entry is None or not entry[2]:
                raise ParseError(source, lineno, stripped,
                                 'expected lmm_ lines before the objects')
            entry[2][-1]['ost_indices'].append(int(m.group(1)))
            continue

        if m := _KEY.match(line):
            if entry is None:
                raise ParseError(source, lineno, stripped,
                                 'expected a path before the layout')
            key, value = m.group(1), m.group(2).strip()
            _apply(entry, key, value, source, lineno, stripped)
            continue

        if ' ' not in stripped or stripped.startswith('/'):
            # A path line starts the next entry.
            if entry is not None:
                layouts.append(_finish(entry, source, lineno))
            entry = [stripped, 'file', [], None]
            in_objects = False
            continue

        raise ParseError(source, lineno, stripped,
                         'expected a path, an lmm_/lcm_/lcme_ line or an '
                         'object row')

    if entry is not None:
        layouts.append(_finish(entry, source, len(lines)))

    if not layouts:
        last = next((ln for ln in reversed(lines) if ln.strip()), '')
        raise ParseError(source, len(lines), last.strip(),
                         'expected at least one path with a layout')

    return Result(tuple(layouts))


def _new_component():
    return dict(stripe_count=None, stripe_size_bytes=None,
                stripe_offset=None, pattern=None, ost_indices=[],
                extent_start=None, extent_end=None, flags=None)


def _int_or_none(value):
    return None if value in ('EOF', 'N/A') else int(value, 0)


def _apply(entry, key, value, source, lineno, line):
    if key.startswith('lcm_'):
        entry[1] = 'composite'
        return

    if key == 'lcme_id':
        entry[1] = 'composite'
        entry[2].append(_new_component())
        return

    if not entry[2]:
        entry[2].append(_new_component())

    comp = entry[2][-1]
    try:
        if key == 'lmm_stripe_count':
            comp['stripe_count'] = int(value)
        elif key == 'lmm_stripe_size':
            comp['stripe_size_bytes'] = int(value)
        elif key == 'lmm_stripe_offset':
            comp['stripe_offset'] = int(value)
        elif key == 'lmm_pattern':
            comp['pattern'] = value
        elif key == 'lcme_flags':
            comp['flags'] = value
        elif key == 'lcme_extent.e_start':
            comp['extent_start'] = _int_or_none(value)
        elif key == 'lcme_extent.e_end':
            comp['extent_end'] = _int_or_none(value)
    except ValueError:
        raise ParseError(source, lineno, line,
                         f'expected a number after {key}:') from None


def _finish(entry, source, lineno):
    path, kind, comps, _ = entry
    if not comps:
        raise ParseError(source, lineno, path,
                         f'expected a layout under {path!r}')

    return Layout(path, kind, tuple(
        Component(stripe_count=c['stripe_count'],
                  stripe_size_bytes=c['stripe_size_bytes'],
                  stripe_offset=c['stripe_offset'], pattern=c['pattern'],
                  ost_indices=tuple(c['ost_indices']),
                  extent_start=c['extent_start'],
                  extent_end=c['extent_end'], flags=c['flags'])
        for c in comps))


def layout_mismatches(layout, stripe_count, stripe_size_bytes):
    """How a file's layout differs from the ``lfs setstripe`` request.

    Args:
        layout: the file's :class:`Layout`.
        stripe_count: the requested ``-c``; 0 (file-system default) and -1
            (every OST) are not compared.
        stripe_size_bytes: the requested ``-S`` in bytes; 0 (default) is
            not compared.

    Returns:
        a list of messages, empty when the layout is the one requested.
    """
    comp = layout.plain
    if comp is None:
        return [f'{layout.path}: {layout.kind} layout with '
                f'{len(layout.components)} components, expected a plain '
                f'layout']

    problems = []
    if stripe_count > 0:
        count = comp.stripe_count
        if count is None and comp.ost_indices:
            count = len(comp.ost_indices)
        if count != stripe_count:
            problems.append(f'{layout.path}: stripe count {count}, '
                            f'requested {stripe_count}')
        elif comp.ost_indices and len(comp.ost_indices) != stripe_count:
            problems.append(f'{layout.path}: {len(comp.ost_indices)} OST '
                            f'objects, requested {stripe_count} stripes')

    if stripe_size_bytes > 0 and comp.stripe_size_bytes != stripe_size_bytes:
        problems.append(f'{layout.path}: stripe size '
                        f'{comp.stripe_size_bytes}, requested '
                        f'{stripe_size_bytes}')

    return problems
