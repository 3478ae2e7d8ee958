# SPDX-License-Identifier: BSD-3-Clause
"""pfsbench's floors: every import runs downward (docs/architecture.md).

A module may import its own floor and the floors below it, never one above:
a low floor that reached up would make the whole house one room again.
Every import counts, also one inside a function.  Pure: reads the source.
"""

import ast
import functools
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = REPO / 'pfsbench'

#: Room (dotted prefix) -> floor, lowest first.  The longest prefix wins; a
#: module no prefix names fails the test until it is given a floor.
FLOORS = {
    'pfsbench': 0,                      # __init__ only: the version
    'pfsbench.core': 0,                 # errors, fields, shell, job steps
    'pfsbench.schemas': 0,              # JSON Schemas and their loader
    'pfsbench.runner': 1,               # runs on compute nodes: stdlib only
    'pfsbench.commands': 2,             # one argv builder per tool
    'pfsbench.parsers': 3,              # one pure parser per tool output
    'pfsbench.gate.statistics': 4,      # moments, intervals, change points
    'pfsbench.gate.history': 5,         # run reports, series, provenance
    'pfsbench.papers': 6,               # the source papers' figures
    'pfsbench.store': 6,                # the results store (SQL)
    'pfsbench.site': 7,                 # site config, targets, binaries
    'pfsbench.siteconfig': 7,           # old path kept for site configs
    'pfsbench.load': 8,                 # foreign load seen during a run
    'pfsbench.plan': 9,                 # a nightly's plan
    'pfsbench.gate': 9,                 # the gate package itself
    'pfsbench.gate.judge': 9,           # samples, rule, verdict, record
    'pfsbench.gate.report': 10,         # text, JUnit, HTML of a record
    'pfsbench.experiments': 11,         # one definition per experiment
    'pfsbench.notify': 11,              # the verdict to a webhook
    'pfsbench.checks': 12,              # ReFrame check bases
    'pfsbench.render': 13,              # Slurm job scripts of experiments
    'pfsbench.cli': 14,                 # the pfsbench command
}

#: Modules allowed loose at the package root (besides __init__).
ROOT_LOOSE = {'render', 'siteconfig'}


def floor_of(module):
    parts = module.split('.')
    # 'pfsbench' names the package's __init__, not a default for the rest
    for n in range(len(parts), 1 if len(parts) > 1 else 0, -1):
        floor = FLOORS.get('.'.join(parts[:n]))
        if floor is not None:
            return floor
    return None


def module_name(path, package=PACKAGE):
    parts = list(path.relative_to(package.parent).with_suffix('').parts)
    if parts[-1] == '__init__':
        parts = parts[:-1]
    return '.'.join(parts)


def imports_of(path, modules, package=PACKAGE):
    """(line, imported module) of every pfsbench import in path; ``from
    X import y`` counts as X.y when that is a module."""
    name = module_name(path, package)
    is_pkg = path.name == '__init__.py'
    out = []
    for line, level, module, names in import_statements(path.read_text(),
                                                        str(path)):
        if level is None:
            out += [(line, n) for n in names]
            continue
        base = module
        if level:
            here = name.split('.') if is_pkg else name.split('.')[:-1]
            here = here[:len(here) - (level - 1)]
            base = '.'.join(here + ([base] if base else []))
        for alias in names:
            full = f'{base}.{alias}'
            out.append((line, full if full in modules else base))
    return [(line, m) for line, m in out
            if m == 'pfsbench' or m.startswith('pfsbench.')]


@functools.lru_cache(maxsize=None)
def import_statements(source, filename):
    """(line, level, module, names) of every import statement in
    ``source``, level None for ``import x``: parsed once per source text
    (this module's tests and test_import_loops' each read the package)."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            found.append((node.lineno, None, None,
                          tuple(a.name for a in node.names)))
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, node.level, node.module or '',
                          tuple(a.name for a in node.names)))
    return tuple(found)


def package_files(package=PACKAGE):
    return sorted(p for p in package.rglob('*.py')
                  if '__pycache__' not in p.parts)


def upward_imports(package=PACKAGE):
    """Every import from a lower floor to a higher one, and every module
    without a floor, as one line each."""
    files = package_files(package)
    modules = {module_name(p, package) for p in files}
    problems = []
    for path in files:
        here = module_name(path, package)
        own = floor_of(here)
        rel = path.relative_to(package.parent)
        if own is None:
            problems.append(f'{rel}: {here} has no floor in FLOORS')
            continue
        for line, target in imports_of(path, modules, package):
            floor = floor_of(target)
            if floor is not None and floor > own:
                problems.append(f'{rel}:{line}: {here} (floor {own}) '
                                f'imports {target} (floor {floor})')
    return problems


def loose_modules(package=PACKAGE):
    return sorted(p.stem for p in package.glob('*.py')
                  if p.name != '__init__.py' and p.stem not in ROOT_LOOSE)


def test_every_import_runs_downward():
    assert upward_imports() == []


def test_the_check_sees_the_package():
    # An empty walk would pass the test above whatever the code does.
    files = package_files()
    modules = {module_name(p) for p in files}
    edges = sum(len(imports_of(p, modules)) for p in files)
    assert len(files) > 100 and edges > 300


def test_no_new_loose_module_at_the_package_root():
    assert len(ROOT_LOOSE) <= 2
    assert loose_modules() == [], (
        'give the module a room (a folder that says what it is) and a '
        'floor in FLOORS')


def test_gate_has_rooms_only():
    flat = sorted(p.name for p in (PACKAGE / 'gate').glob('*.py')
                  if p.name != '__init__.py')
    assert flat == []


@pytest.mark.parametrize('source, found', [
    ('from pfsbench.gate.history import results\n', 1),
    ('import pfsbench.cli\n', 1),
    ('def f():\n    from pfsbench.site import config\n', 1),
    ('from .. import site\n', 1),
    ('from pfsbench.core import errors\n', 0),
])
def test_an_upward_import_is_found(tmp_path, source, found):
    package = tmp_path / 'pfsbench'
    for room in ('core', 'site', 'cli', 'gate/history'):
        (package / room).mkdir(parents=True)
        (package / room / '__init__.py').write_text('')
    (package / 'gate' / '__init__.py').write_text('')
    (package / '__init__.py').write_text('')
    (package / 'core' / 'errors.py').write_text('')
    (package / 'gate' / 'history' / 'results.py').write_text('')
    (package / 'site' / 'config.py').write_text('')
    (package / 'core' / 'values.py').write_text(source)
    problems = upward_imports(package)
    assert len(problems) == found, problems
    if found:
        assert problems[0].startswith('pfsbench/core/values.py:')


def test_a_module_without_floor_is_named(tmp_path):
    package = tmp_path / 'pfsbench'
    (package / 'attic').mkdir(parents=True)
    (package / '__init__.py').write_text('')
    (package / 'attic' / '__init__.py').write_text('')
    assert upward_imports(package) == [
        'pfsbench/attic/__init__.py: pfsbench.attic has no floor in FLOORS']


def test_a_loose_module_is_named(tmp_path):
    package = tmp_path / 'pfsbench'
    package.mkdir()
    (package / '__init__.py').write_text('')
    (package / 'render.py').write_text('')
    (package / 'helpers.py').write_text('')
    assert loose_modules(package) == ['helpers']
