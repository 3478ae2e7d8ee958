# SPDX-License-Identifier: BSD-3-Clause
"""The codec of what the store keeps besides its rows: a session's
figures (``pfsbench_sessions.figures``) and the history's series
(``pfsbench_series.body``).

Nothing in it can run code: a store is shared by a site, and what one
writer puts there another loads.  Values are JSON whose objects are
tagged (tuple, dict as pairs, ``array`` as base64, ``Session``,
``CaseKey``, ``CaseColumns``, ``Series``), decoded into those types only;
an object of any other shape is :class:`Damaged`.
"""

import array
import base64
import json

from pfsbench.gate.history.keys import CaseKey, Session
from pfsbench.gate.history.series import CaseColumns, Series


class Damaged(ValueError):
    """An entry that does not decode into the codec's types."""


def _fields(obj, names):
    return _encode({f: getattr(obj, f) for f in names})


def _encode(obj):
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, list):
        return [_encode(v) for v in obj]
    if isinstance(obj, tuple):
        return {'\0t': [_encode(v) for v in obj]}
    if isinstance(obj, dict):
        return {'\0d': [[_encode(k), _encode(v)] for k, v in obj.items()]}
    if isinstance(obj, array.array):
        return {'\0a': [obj.typecode,
                        base64.b64encode(obj.tobytes()).decode('ascii',
                                                              'replace')]}
    if isinstance(obj, CaseKey):
        return {'\0K': [obj.name, obj.system, obj.partition, obj.environ]}
    if isinstance(obj, Session):
        return {'\0S': _fields(obj, Session.__dataclass_fields__)}
    if isinstance(obj, CaseColumns):
        return {'\0C': _fields(obj, CaseColumns.__dataclass_fields__)}
    if isinstance(obj, Series):
        return {'\0Z': _fields(obj, ('uuids', 'sessions', 'cases'))}
    raise TypeError(f'the store does not keep {type(obj).__name__}')


def _series(fields):
    out = Series()
    out.uuids, out.sessions, out.cases = (
        fields['uuids'], fields['sessions'], fields['cases'])
    return out


def _array(value):
    code, data = value
    if code not in ('d', 'i'):
        raise Damaged(f'array of type {code!r}')
    return array.array(code, base64.b64decode(data, validate=True))


_TAGS = {
    '\0t': tuple,
    '\0d': dict,
    '\0a': _array,
    '\0K': lambda v: CaseKey(*v),
    '\0S': lambda v: Session(**v),
    '\0C': lambda v: CaseColumns(**v),
    '\0Z': _series,
}


def _hook(obj):
    if len(obj) != 1:
        raise Damaged('an untagged object')
    (tag, value), = obj.items()
    make = _TAGS.get(tag)
    if make is None:
        raise Damaged(f'unknown tag {tag!r}')
    return make(value)


def dumps(obj):
    """``obj`` as the codec's JSON text.

    Raises:
        TypeError: a value of a type the codec does not keep.
    """
    return json.dumps(_encode(obj), separators=(',', ':'))


def loads(text):
    """Decode :func:`dumps`' text; :class:`Damaged` for anything that
    does not decode into the codec's types."""
    try:
        return json.loads(text, object_hook=_hook)
    except (ValueError, TypeError, KeyError, AttributeError) as err:
        raise Damaged(str(err)) from None
