# SPDX-License-Identifier: BSD-3-Clause
"""Reference files (``config/references/<system>.yaml``) read once.

ReFrame 4.10 reads a ``{'$ref': file}`` reference anew for every test
case: listing 1,000 cases parsed the same YAML 1,000 times (about half of
``reframe -l``).  :func:`for_check` parses each file once per process (again
only when it changes) and gives a check its entry in ReFrame's inline form,
``$index`` and all, which means the same to ReFrame as ``$ref``: the leaves
become ``(value, lower, upper[, unit])`` tuples, ``['$xfail', reason,
[...]]`` an :func:`reframe.core.pipeline.xfail` reference.

The file format is validated when the configuration loads
(:func:`pfsbench.siteconfig.validate_reference_file`).
"""

import functools
import os

import yaml


@functools.lru_cache(maxsize=None)
def _load(path, mtime_ns, size):
    with open(path) as fp:
        return yaml.safe_load(fp) or {}


def load(path):
    """The parsed file (cached while its mtime and size stay the same)."""
    st = os.stat(path)
    return _load(path, st.st_mtime_ns, st.st_size)


def _leaf(value):
    from reframe.core.pipeline import xfail

    if value and value[0] == '$xfail':
        return xfail(*value[1:-1], tuple(value[-1]))

    return tuple(value)


def _convert(node, depth):
    if depth == 0:
        return {var: _leaf(ref) for var, ref in node.items()}

    return {key: _convert(sub, depth - 1) for key, sub in node.items()}


def for_check(path, check_name):
    """The reference of the check class ``check_name`` in ``path``, as a
    ReFrame ``reference`` value, or None where the file has none."""
    entry = load(path).get(check_name)
    if not isinstance(entry, dict):
        return None

    index = entry.get('$index')
    reference = _convert({k: v for k, v in entry.items() if k != '$index'},
                         len(index) if index else 1)
    if index:
        reference['$index'] = tuple(index)

    return reference
