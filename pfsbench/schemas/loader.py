# SPDX-License-Identifier: BSD-3-Clause
"""The schemas of this package, read once, and their validators: integers
are Python ``int`` (not ``4.0``, not ``True``) and numbers are finite (no
``.nan`` or ``.inf`` from YAML), stricter than the JSON Schema defaults
(see :mod:`pfsbench.schemas`)."""

import functools
import json
import math
import os

#: This package's directory: its schema files are read from there, not
#: through importlib.resources, whose import (zipfile, tempfile, shutil)
#: a gate whose files passed before need not spend
#: (docs/gate-evidence.md, "Speed: a year of nightlies").
DIRECTORY = os.path.dirname(os.path.abspath(__file__))


def _is_integer(checker, value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(checker, value):
    # An int is finite however large (math.isfinite(10**400) would raise).
    if isinstance(value, int):
        return not isinstance(value, bool)

    return isinstance(value, float) and math.isfinite(value)


@functools.lru_cache(maxsize=None)
def _validator_class():
    """Draft 2020-12 with pfsbench's integer and number types (jsonschema
    is imported here, when a document is first checked: a command whose
    files passed before does not spend its import time on it)."""
    import jsonschema

    base = jsonschema.Draft202012Validator
    return jsonschema.validators.extend(
        base, type_checker=base.TYPE_CHECKER.redefine_many({
            'integer': _is_integer, 'number': _is_number}))


@functools.lru_cache(maxsize=None)
def load(name):
    """A schema of this package, decoded.

    Args:
        name: its file name (``'extras.json'``).

    Returns:
        the schema (a dict; do not modify it).
    """
    with open(os.path.join(DIRECTORY, name), encoding='utf-8') as fp:
        return json.load(fp)


def _retrieve(uri):
    # Without its "$schema", a schema is validated by the validator class
    # that reached it (jsonschema picks the class from "$schema", which
    # would drop pfsbench's integer and number types).
    import referencing
    import referencing.jsonschema

    contents = {k: v for k, v in load(uri).items() if k != '$schema'}
    return referencing.Resource.from_contents(
        contents, default_specification=referencing.jsonschema.DRAFT202012)


@functools.lru_cache(maxsize=None)
def validator(ref):
    import referencing

    registry = referencing.Registry(retrieve=_retrieve)
    return _validator_class()({'$ref': ref}, registry=registry)


def default(name, key):
    """The ``default`` a schema gives one of its top-level keys.

    Args:
        name: the schema file (``'extras.json'``).
        key: the key (``'target_lock_timeout'``).

    Returns:
        the default value.
    """
    return load(name)['properties'][key]['default']


def const(name, key):
    """The one value a schema allows for a top-level key
    (``format_version``, ``kind``)."""
    return load(name)['properties'][key]['const']
