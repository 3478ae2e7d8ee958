# SPDX-License-Identifier: BSD-3-Clause
"""JSON Schemas of pfsbench's own files, and the one function that checks
a document against them.

The schemas (JSON Schema draft 2020-12, beside this module) are the
definition of each file's keys, types and ranges; the modules that read
the files keep only the rules a schema cannot state (duplicate target
names, the depth of a reference file's ``$index``, indexes into a
baseline's sessions):

``extras.json``
    a partition's ``extras`` (pfsbench.site.config, docs/systems.md);
``target.json``
    one entry of ``extras.targets``;
``references.json``
    ``config/references/<system>.yaml``;
``gate.json``
    the gate's settings, ``config/gate.yaml`` (pfsbench.gate.judge.config);
``baseline.json``
    a baseline file (pfsbench.gate.judge.baseline, docs/gate-method.md).

Beside the standard keywords the schemas use two that only shape
messages: ``title`` names a mapping in an unknown-key message (``unknown
target key; known: ...``), and ``x-why`` is the reason given when a value
fails its subschema (``the lower threshold must be a number <= 0 or
null``) instead of one derived from the failing keyword.

Integers are Python ``int`` (not ``4.0``, not ``True``) and numbers are
finite (no ``.nan`` or ``.inf`` from YAML): stricter than the JSON Schema
defaults, because these values become command-line arguments and bounds.
"""

from pfsbench.schemas.loader import const, default, load
from pfsbench.schemas.validation import (NAMED_LISTS, check, check_foreign,
                                         check_once, named_steps)

__all__ = ['NAMED_LISTS', 'check', 'check_foreign', 'check_once', 'const',
           'default', 'load', 'named_steps']
