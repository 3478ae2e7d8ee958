# SPDX-License-Identifier: BSD-3-Clause
"""A check's boolean variable set from the command line (``-S
sync_file=false``) is what the word says (issue 37: ReFrame converts a
``variable(bool)`` with ``bool('false')``, which is True; a
``variable(typ.Bool)`` reads true/false, yes/no, y/n, 1/0)."""

import inspect
import re

import pytest
from reframe.core.fields import make_convertible

from conftest import CHECKS, REPO
from pfsbench.checks import base, io500_phases, ior, mdtest, seed004


def _bool_variables():
    """``(class, name)`` of every variable of pfsbench's check classes
    that may hold a bool."""
    found = {}
    for module in (base, io500_phases, ior, mdtest, seed004):
        for _, cls in inspect.getmembers(module, inspect.isclass):
            space = getattr(cls, '_rfm_var_space', None)
            if space is None:
                continue
            for name in space:
                types = getattr(space[name].field, 'valid_types', ())
                if any(issubclass(bool, t) and t not in (object, int)
                       for t in types):
                    found.setdefault(name, cls)
    return sorted(((cls, name) for name, cls in found.items()),
                  key=lambda item: item[1])


BOOL_VARIABLES = _bool_variables()


def test_the_checks_have_boolean_variables():
    names = {name for _, name in BOOL_VARIABLES}
    assert {'sync_file', 'unique_dir', 'split_phases', 'odirect',
            'contended'} <= names


@pytest.mark.parametrize('cls,name', BOOL_VARIABLES,
                         ids=[n for _, n in BOOL_VARIABLES])
@pytest.mark.parametrize('word,value', [
    ('false', False), ('true', True), ('0', False), ('1', True),
    ('no', False), ('yes', True), ('False', False)])
def test_a_word_from_the_command_line_is_its_value(cls, name, word, value):
    # What reframe -S NAME=WORD does to the variable (reframe.core.
    # decorators: the word made convertible, then the variable's field).
    field = cls._rfm_var_space[name].field
    assert field.__set__(None, make_convertible(word)) is value


def test_a_word_that_is_no_boolean_is_refused():
    field = mdtest.mdtest_check_base._rfm_var_space['sync_file'].field
    with pytest.raises(TypeError, match="cannot convert 'maybe' to bool"):
        field.__set__(None, make_convertible('maybe'))


def test_no_check_declares_a_plain_bool_variable():
    # The checks' own files as well (reframe-checks/): variable(bool, ...)
    # reads -S NAME=false as True.
    sources = sorted(CHECKS.rglob('*.py')) + sorted(
        (REPO / 'pfsbench' / 'checks').glob('*.py'))
    plain = [f'{path.relative_to(REPO)}:{no}'
             for path in sources
             for no, line in enumerate(path.read_text().splitlines(), 1)
             if re.search(r'\bvariable\(\s*bool\b', line)]
    assert plain == []
