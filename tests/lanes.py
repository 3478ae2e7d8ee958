# SPDX-License-Identifier: BSD-3-Clause
"""Test lanes: each test is marked from what it uses, not by hand.

A test's lanes come from the code it reaches: its own function, the module
functions and module constants it names (followed transitively), and the
fixtures it requests (module or conftest ones, followed the same way).
What counts is what that code *uses*: the names it calls or reads, the
fixtures and markers it has, a command it runs (a verb of ``pfsbench``
that starts reframe, a path under ``/opt`` of a real build).  Words in its
text do not: a test of ``spack.environment()`` that passes
``{'SPACK_ENV': ...}`` is pure, though ``SPACK_ENV`` looks like a constant
that names a Spack install.

========  ===============================================================
marker    the test (or what it reaches) ...
========  ===============================================================
reframe   starts the ``reframe`` command (``run_reframe``, the verbs and
          scripts that run it: check-config, nightly-plan, quickstart.sh,
          nightly.sh)
slurm     needs the localhost Slurm cluster (the ``localslurm`` fixture,
          ``slurm_env``, ``LOCALSLURM``)
root      asks whether it runs as root (``os.geteuid``), or skips unless
          root; or starts the throw-away PostgreSQL (tests/pgcluster.py,
          or a fixture of :data:`SERVER_FIXTURES` with no server given)
tool      needs a real benchmark build or Spack found on this machine
          (a ``/opt/...`` build's path, ``shutil.which`` of a benchmark,
          a skip reason naming IOR, mdtest, bonnie++, fio, iozone, io500
          or Spack)
========  ===============================================================

A test with none of these is *pure*: ``scripts/test.sh --fast`` runs only
those (``-m "not reframe and not slurm and not root and not tool"``), less
the few marked ``rates`` by hand (pure, but each simulates hundreds of
nights to measure a false-alarm rate or a power: the full suite runs them).
A test that starts reframe behind ``main([...])`` where this module cannot
see it (``render nightly`` lists its plan's cases with ``reframe
--describe`` once the options pass) carries ``@pytest.mark.reframe`` by
hand.  Over-marking is safe (the fast lane merely skips a test the full run still
runs); under-marking shows as a slow fast lane, which ``--durations`` names.
"""

import ast
import functools
import os
import re
from pathlib import Path

LANES = {
    'reframe': 'starts the reframe command',
    'slurm': 'needs the localhost Slurm test cluster (tests/localslurm)',
    'root': 'needs root (or checks for it)',
    'tool': 'needs a real benchmark build or Spack on this machine',
}

#: Names (identifiers: functions, fixtures, constants) whose use puts a
#: test in a lane.
_NAMES = {
    # cases.describe and cases.dry_run_skips run ``reframe --describe``
    # and ``--dry-run`` (nightly-plan's and render nightly's selection).
    'reframe': {'run_reframe', 'start_reframe', 'reframe_bin',
                'run_streams_on_localslurm', 'reframe_command',
                'cases.describe', 'cases.dry_run_skips'},
    'slurm': {'localslurm', 'slurm_env', 'LOCALSLURM',
              'run_streams_on_localslurm'},
    'root': {'geteuid', 'getuid'},
}
#: Fixtures that give a test a PostgreSQL server: the running one their
#: variable names, else the throw-away cluster (tests/pgcluster.py) that
#: the root lane's store tests start.  With the variable set the test
#: starts nothing and stays pure: a mutation run of the fast lane gives
#: it its server so (docs/mutation.md, "store/db.py").
SERVER_FIXTURES = {'mutation_pg': 'PFSBENCH_MUTATION_PG'}
#: Strings a test passes as a command that starts reframe: check-config
#: and nightly-plan list their cases through ``reframe --describe``; the
#: scripts run whole ReFrame sessions.
_REFRAME_COMMANDS = {'check-config', 'nightly-plan', 'quickstart.sh',
                     'nightly.sh'}
#: A path of a real build (``/opt/ior/bin/ior``, ``/opt/spack-*``): code
#: that reaches one looks for the build (a constant such as
#: ``IOR_BINARY = next(p for p in ('/opt/ior/bin/ior', ...))`` is followed
#: into its value, so its users land here too).
_TOOL_STRING = re.compile(r'^/opt/(?:ior|io500|spack)')
#: The programs whose lookup on PATH (``shutil.which('fio')``) is a real
#: build's.
_TOOL_PROGRAMS = {'ior', 'mdtest', 'bonnie++', 'fio', 'iozone', 'io500',
                  'mdsrate', 'pfind', 'spack', 'dbench'}
_TOOL_REASON = re.compile(r'\b(?:IOR|ior|mdtest|bonnie\+\+|fio|iozone|'
                          r'io500|IO500|[Ss]pack)\b')
_ROOT_REASON = re.compile(r'\broot\b')


class _Module:
    """One test module's (or conftest's) names: for every top-level
    function, method and module constant, the names and strings its code
    mentions."""

    def __init__(self, path):
        tree = ast.parse(Path(path).read_text(), str(path))
        self.directory = Path(path).parent
        self.uses = {}
        # Names taken from sibling test modules (``from test_x import f``,
        # ``import test_x as x``): followed into that module.  Not into
        # this one: its tables name every lane's names and commands, which
        # a test of the lanes uses as data, not as code.
        self.imported = {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and \
                    node.module != __name__ and \
                    (self.directory / f'{node.module}.py').exists():
                for alias in node.names:
                    self.imported[alias.asname or alias.name] = (
                        node.module, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name != __name__ and \
                            (self.directory / f'{alias.name}.py').exists():
                        self.imported[alias.asname or alias.name] = (
                            alias.name, None)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.uses.setdefault(node.name, set()).update(
                    _mentions(node))
        for node in tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = (node.targets if isinstance(node, ast.Assign)
                           else [node.target])
                for target in targets:
                    if isinstance(target, ast.Name):
                        self.uses.setdefault(target.id, set()).update(
                            _mentions(node.value) if node.value else ())

    @functools.lru_cache(maxsize=None)
    def reach(self, name):
        """Everything ``name`` mentions, following this module's own
        functions and constants."""
        seen, todo, found = {name}, [name], set()
        while todo:
            for mention in self.uses.get(todo.pop(), ()):
                found.add(mention)
                if not isinstance(mention, str) or mention in seen:
                    continue
                seen.add(mention)
                if mention in self.uses:
                    todo.append(mention)
                else:
                    found |= self._reach_imported(mention)
        return frozenset(found)

    def _reach_imported(self, mention):
        """What ``f`` (from ``from test_x import f``) or ``x.f`` (from
        ``import test_x as x``) reaches in its own module."""
        base, _, attr = mention.partition('.')
        module, name = self.imported.get(base, (None, None))
        if module is None:
            return frozenset()
        name = name or attr
        if not name:
            return frozenset()
        return _module(str(self.directory / f'{module}.py')).reach(name)


class Skip(tuple):
    """A ``pytest.skip(reason)`` the code calls (``Skip((reason,))``): its
    reason decides a lane as a skip marker's does."""

    __slots__ = ()


class Text(tuple):
    """A string constant the code holds (``Text(('SPACK_ENV',))``), kept
    apart from the names it uses: a string is never followed as a name,
    and only a command (:data:`_REFRAME_COMMANDS`) or a build's path
    (:data:`_TOOL_STRING`) in one decides a lane."""

    __slots__ = ()

    @property
    def value(self):
        return self[0]


def text(value):
    """The mention of the string constant ``value``."""
    return Text((value,))


def _mentions(node):
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr)
            if isinstance(sub.value, ast.Name):
                found.add(f'{sub.value.id}.{sub.attr}')
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            found.add(text(sub.value))
        if isinstance(sub, ast.Call) and sub.args and getattr(
                sub.func, 'attr', getattr(sub.func, 'id', '')) == 'skip':
            found.add(Skip((''.join(
                s.value for s in ast.walk(sub.args[0])
                if isinstance(s, ast.Constant) and isinstance(s.value, str)),
            )))
    return found


@functools.lru_cache(maxsize=None)
def _module(path):
    return _Module(path)


def lanes_of(mentions, skip_reasons=()):
    """The lanes of code that mentions ``mentions`` (names, and
    :class:`Text` for its string constants) and may skip for
    ``skip_reasons``."""
    names = {m for m in mentions if isinstance(m, str)}
    texts = {m.value for m in mentions if isinstance(m, Text)}
    lanes = {lane for lane, used in _NAMES.items() if names & used}
    if any(name in names and not os.environ.get(variable)
           for name, variable in SERVER_FIXTURES.items()):
        lanes.add('root')
    if texts & _REFRAME_COMMANDS:
        lanes.add('reframe')
    if any(_TOOL_STRING.match(t) for t in texts) or \
            ('which' in names and texts & _TOOL_PROGRAMS):
        lanes.add('tool')
    skip_reasons = list(skip_reasons) + [m[0] for m in mentions
                                         if isinstance(m, Skip)]
    for reason in skip_reasons:
        if _TOOL_REASON.search(reason):
            lanes.add('tool')
        if _ROOT_REASON.search(reason):
            lanes.add('root')
    return lanes


def _item_mentions(item):
    """What a collected test reaches: its function, and every fixture it
    requests, each followed through its own module."""
    found = set(item.fixturenames)
    module = _module(str(item.path))
    found |= module.reach(item.function.__name__)
    infos = getattr(item, '_fixtureinfo', None)
    for name in item.fixturenames:
        for fixturedef in (infos.name2fixturedefs.get(name, ())
                           if infos else ()):
            func = getattr(fixturedef, 'func', None)
            code = getattr(func, '__code__', None)
            if code is None or not code.co_filename.endswith('.py'):
                continue
            if 'site-packages' in code.co_filename:
                continue
            found |= _module(code.co_filename).reach(func.__name__)
    return found


def _skip_reasons(item):
    reasons = []
    for mark in item.iter_markers():
        if mark.name in ('skipif', 'skip'):
            reason = mark.kwargs.get('reason', '')
            if isinstance(reason, str):
                reasons.append(reason)
    return reasons


def mark(items, pytest):
    """Add the lane markers to collected ``items`` (a test's own markers
    stay)."""
    for item in items:
        present = {m.name for m in item.iter_markers()}
        for lane in sorted(lanes_of(_item_mentions(item),
                                    _skip_reasons(item)) - present):
            item.add_marker(getattr(pytest.mark, lane))
