# SPDX-License-Identifier: BSD-3-Clause
"""Reference files (``config/references/<system>.yaml``) read once.

ReFrame 4.10 reads a ``{'$ref': file}`` reference anew for every test
case: listing 1,000 cases parsed the same YAML 1,000 times (about half of
``reframe -l``).  :func:`for_check` parses each file once per process (again
only when it changes) and gives a check its entry in ReFrame's inline form,
``$index`` and all, which means the same to ReFrame as ``$ref``: the leaves
become ``(value, lower, upper[, unit])`` tuples, ``['$xfail', reason,
[...]]`` an :func:`reframe.core.pipeline.xfail` reference.

A partition's entry may be ``{'$paper': {experiment: E16, <record key>:
<value>..., lower: -0.1, upper: null}}``: the figures a seed published
(:mod:`pfsbench.papers`) that match those keys, at the check's ``$index``
levels, so that a source's figures are read from its data file and never
retyped (:func:`expand_papers`).

The file format is validated when the configuration loads
(:func:`pfsbench.site.config.validate_reference_file`).
"""

import functools
import os

from pfsbench.core import yamlfile


@functools.lru_cache(maxsize=None)
def _load(path, mtime_ns, size):
    with open(path) as fp:
        return expand_papers(yamlfile.safe_load(fp) or {}, path)


#: The keys of a ``$paper`` entry that are not record keys.
PAPER_OPTIONS = ('experiment', 'lower', 'upper')


def expand_papers(data, path):
    """``data`` with every ``$paper`` entry replaced by the published
    figures it selects, at the index levels below it (other entries
    unchanged).

    Raises:
        ConfigError: a ``$paper`` entry that is not a mapping, names an
            experiment without comparison, or selects no figure or two at
            one point (file, dotted key, value).
    """
    if not isinstance(data, dict):
        return data
    out = {}
    for check, body in data.items():
        if not isinstance(body, dict):
            out[check] = body
            continue
        index = body.get('$index') or ['$partition']
        levels = [i for i in index if i != '$partition']
        out[check] = {key: sub if key == '$index' else
                      _expand(path, f'{check}.{key}', sub, levels)
                      for key, sub in body.items()}
    return out


def _expand(path, where, node, levels):
    if not isinstance(node, dict):
        return node
    if '$paper' not in node:
        return {key: _expand(path, f'{where}.{key}', sub, levels[1:])
                for key, sub in node.items()}

    from pfsbench import papers
    from pfsbench.core.errors import ConfigError, MissingData

    spec = node['$paper']
    where = f'{where}.$paper'
    if not isinstance(spec, dict) or len(node) != 1:
        raise ConfigError(path, where, spec, 'expected the only key, a '
                          'mapping with experiment and the record keys to '
                          'match')
    experiment = spec.get('experiment')
    if experiment not in papers.COMPARISONS:
        raise ConfigError(path, f'{where}.experiment', experiment,
                          f'expected one of {", ".join(papers.COMPARISONS)}')
    try:
        ref = papers.reference(
            experiment, {k: v for k, v in spec.items()
                         if k not in PAPER_OPTIONS},
            levels, lower=spec.get('lower', -0.10), upper=spec.get('upper'))
    except KeyError as err:
        raise ConfigError(path, where, spec, f'the published figures have '
                          f'no {err} (an index level)') from None
    except (ValueError, MissingData) as err:
        raise ConfigError(path, where, spec, str(err)) from None
    if not ref:
        raise ConfigError(path, where, spec, 'selects no published figure')
    return ref


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
