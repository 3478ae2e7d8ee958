# SPDX-License-Identifier: BSD-3-Clause
"""A document checked against a schema of this package: the first problem
in the document's order, worded as one line that names the file, the
dotted key, the value and the reason (see :mod:`pfsbench.schemas`)."""

import functools
import hashlib
import math
import os

from pfsbench.core.errors import ConfigError
from pfsbench.schemas.loader import DIRECTORY, validator

#: How a message names each JSON type.
_TYPE_WORDS = {
    'integer': 'an integer', 'number': 'a number', 'string': 'a string',
    'boolean': 'true or false', 'array': 'a list', 'object': 'a mapping',
    'null': 'null',
}
_LOWER = ('minimum', 'exclusiveMinimum')
_UPPER = ('maximum', 'exclusiveMaximum')


def check(document, ref, file, where='', whole=False):
    """Validate a document against a schema; raise on the first problem.

    The first problem is the one that comes first in the document; its
    message names the file, the dotted key, the value and the reason.

    Args:
        document: the decoded document (or a part of it).
        ref: the schema file, optionally with a JSON pointer
            (``'references.json#/$defs/reference'``).
        file: the file the document came from, for the message.
        where: the dotted key of ``document`` inside its file (``''``
            for the whole file).
        whole: report any problem on ``document`` itself, with the whole
            of it as the value (for a short list such as ``[value, lower,
            upper, unit]``, whose positions have no names).

    Raises:
        ConfigError: the first problem.
    """
    _raise_first(document, validator(ref).iter_errors(document), file,
                 lambda path: ([where] if where else []) +
                 named_steps(document, path), whole)


def check_once(document, ref, file, content, mark):
    """:func:`check` a whole file, unless ``mark`` records that these very
    bytes passed this schema before: the mark holds the sha256 of the
    file's ``content`` (bytes), ``ref`` and :func:`fingerprint`, written
    after a pass. A changed file, schema or validator has another digest
    and is checked again; a mark that cannot be written is no error (the
    file is checked each time)."""
    digest = hashlib.sha256(fingerprint().encode() + ref.encode() + b'\0'
                            + content).hexdigest()
    try:
        with open(mark) as fp:
            if fp.read().strip() == digest:
                return
    except (OSError, UnicodeDecodeError):
        pass

    check(document, ref, file)
    # A temporary of this process's own, removed if the mark cannot be
    # put in place: nothing of it stays beside the file.
    temporary = f'{mark}.{os.getpid()}.tmp'
    try:
        with open(temporary, 'w') as fp:
            fp.write(digest + '\n')
        os.replace(temporary, mark)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass


@functools.lru_cache(maxsize=None)
def fingerprint():
    """The sha256 of this package's files (the schemas and the code that
    validates with them), in name order."""
    sha = hashlib.sha256()
    with os.scandir(DIRECTORY) as entries:
        files = sorted((e for e in entries if e.is_file() and
                        e.name.endswith(('.json', '.py'))),
                       key=lambda e: e.name)
    for entry in files:
        with open(entry.path, 'rb') as fp:
            sha.update(entry.name.encode() + b'\0' + fp.read())
    return sha.hexdigest()


#: Lists whose entries messages name by their ``name`` key.
NAMED_LISTS = ('targets',)


def named_steps(document, path):
    """The steps of ``path`` into ``document`` as a message names them: a
    named entry of a list of :data:`NAMED_LISTS` by its name
    (``targets[scratch]``, as the site configuration's systems and
    partitions are named), any other entry by its index (``access.0``)."""
    steps, node = [], document
    for step in path:
        entry = (node[step] if isinstance(node, (list, dict)) and
                 _has(node, step) else None)
        name = entry.get('name') if isinstance(entry, dict) else None
        if isinstance(node, list) and isinstance(name, str) and name \
                and steps and steps[-1] in NAMED_LISTS:
            steps[-1] += f'[{name}]'
        else:
            steps.append(str(step))
        node = entry
    return steps


def _has(node, step):
    if isinstance(node, list):
        return isinstance(step, int) and 0 <= step < len(node)
    return step in node


def check_foreign(document, schema, file, key_of):
    """Validate a document against another program's schema (ReFrame's
    ``config.json``, JSON Schema draft 7); raise on the first problem.

    Args:
        document: the decoded document.
        schema: the schema (a dict).
        file: the file the document came from, for the message.
        key_of: ``path -> [step, ...]``: how the message names the keys
            of a path into ``document`` (a system by its name, not its
            index).

    Raises:
        ConfigError: the first problem, as :func:`check` words it.
    """
    import jsonschema

    validator = jsonschema.Draft7Validator(schema)
    _raise_first(document, validator.iter_errors(document), file, key_of)


def _raise_first(document, errors, file, key_of, whole=False):
    """Raise the problem of ``errors`` that comes first in ``document``."""
    problems = [_problem(err) for err in errors]
    if not problems:
        return

    path, value, why = min(problems,
                           key=lambda p: _document_order(document, p[0]))
    if whole:
        path, value = [], document

    raise ConfigError(file, '.'.join(key_of(path)) or '<top>', value, why)


def _problem(error):
    """``(path, value, why)`` of one jsonschema error."""
    schema, value = error.schema, error.instance
    path = list(error.absolute_path)
    if error.validator == 'additionalProperties':
        known = sorted(schema.get('properties', {}))
        key = next(k for k in value if k not in known)
        what = f'unknown {schema["title"]} key' if 'title' in schema \
            else 'unknown key'
        return path + [key], value[key], f'{what}; known: {", ".join(known)}'

    if error.validator == 'required':
        key = next(k for k in schema['required'] if k not in value)
        return path + [key], None, 'required'

    return path, value, schema.get('x-why') or _why(error.validator, schema,
                                                    value, error.message)


def _why(keyword, schema, value, message):
    """The reason for a failed keyword, in pfsbench's words."""
    bounded = any(k in schema for k in _LOWER) and \
        any(k in schema for k in _UPPER)
    if keyword == 'type' or (bounded and keyword in _LOWER + _UPPER):
        if bounded:
            return f'expected {_TYPE_WORDS[schema["type"]]} in ' \
                   f'{_interval(schema)}'

        if isinstance(value, float) and not math.isfinite(value):
            return 'expected a finite number'

        types = schema['type']
        types = [types] if isinstance(types, str) else types
        return 'expected ' + _either([_TYPE_WORDS[t] for t in types])

    if keyword in _LOWER + _UPPER:
        verb = {'minimum': 'at least', 'exclusiveMinimum': 'greater than',
                'maximum': 'at most', 'exclusiveMaximum': 'less than'}
        return f'must be {verb[keyword]} {schema[keyword]}'

    if keyword == 'enum':
        return 'expected ' + _either([str(v) for v in schema['enum']])

    if keyword == 'const':
        return f'expected {schema["const"]!r}'

    if keyword in ('minItems', 'minLength') and schema[keyword] == 1:
        return 'must not be empty'

    if keyword == 'minItems':
        return f'expected at least {schema["minItems"]} items'

    if keyword == 'maxItems':
        return f'expected at most {schema["maxItems"]} items'

    return message


def _interval(schema):
    """``[lo, hi]``, ``(lo, hi]``, ... of a schema's bounds."""
    if 'exclusiveMinimum' in schema:
        left = f'({schema["exclusiveMinimum"]}'
    else:
        left = f'[{schema["minimum"]}'

    if 'exclusiveMaximum' in schema:
        return f'{left}, {schema["exclusiveMaximum"]})'

    return f'{left}, {schema["maximum"]}]'


def _either(words):
    """``'a'``, ``'a or b'``, ``'a, b or c'``."""
    if len(words) == 1:
        return words[0]

    return ', '.join(words[:-1]) + ' or ' + words[-1]


def _document_order(document, path):
    """Where ``path`` sits in ``document``: a key for sorting problems in
    the order a reader meets them (a missing key sorts after its
    siblings)."""
    order, node = [], document
    for step in path:
        if isinstance(node, dict):
            keys = list(node)
            order.append(keys.index(step) if step in node else len(keys))
        elif isinstance(node, list) and isinstance(step, int):
            order.append(step)
        else:
            order.append(0)

        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            node = None

    return order
