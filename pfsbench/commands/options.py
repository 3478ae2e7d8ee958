# SPDX-License-Identifier: BSD-3-Clause
"""A tool's command-line options as a table: each entry turns the argv
builder's keyword arguments (``given``) into the words of one option, or
none; the table's order is the argv's (:func:`words`).  The IOR and mdtest
builders declare theirs so."""


def valued(name, flag):
    """``flag value`` where ``name`` is given (not None)."""
    return lambda given: ([] if given[name] is None else
                          [flag, str(given[name])])


def joined(name, option):
    """``option=value`` as one word where ``name`` is given."""
    return lambda given: ([] if given[name] is None else
                          [f'{option}={given[name]}'])


def setting(name, key, flag='-O'):
    """``-O key=value`` where ``name`` is given."""
    return lambda given: ([] if given[name] is None else
                          [flag, f'{key}={given[name]}'])


def switch(name, *option):
    """The ``option`` words where ``name`` is true."""
    return lambda given: list(option) if given[name] else []


def unless(name, *option):
    """The ``option`` words where ``name`` is false."""
    return lambda given: [] if given[name] else list(option)


def words(table, given):
    """The argv words of every option of ``table`` for ``given``, in the
    table's order."""
    return [word for option in table for word in option(given)]
