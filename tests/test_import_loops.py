# SPDX-License-Identifier: BSD-3-Clause
"""No import loop anywhere in pfsbench/: no module imports, directly or
through others, a module that imports it (issue 33, item 6).

Every import counts, also one inside a function (a lazy import hides a
loop from Python, not from a reader).  ``from X import y`` counts as
``X.y`` when that is a module, else as ``X`` (tests/test_layers.py reads
imports the same way).  A module's import of its own package's
``__init__`` is implied by Python, not written, so it is not an edge.
Pure: reads the source.
"""

from test_layers import PACKAGE, imports_of, module_name, package_files


def import_graph(package=PACKAGE):
    """``{module: {imported module, ...}}`` of every pfsbench module."""
    files = package_files(package)
    modules = {module_name(p, package) for p in files}
    graph = {m: set() for m in modules}
    for path in files:
        here = module_name(path, package)
        for _, target in imports_of(path, modules, package):
            if target != here and target in modules:
                graph[here].add(target)
    return graph


def loops(graph):
    """Every strongly connected set of more than one module (Tarjan),
    each sorted, the list sorted."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]

    def visit(start):
        # Iterative: the package's import chains are deep enough to make
        # a recursive walk fragile.
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == node:
                            break
                    if len(members) > 1:
                        found.append(sorted(members))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def test_no_import_loop_in_pfsbench():
    assert loops(import_graph()) == []


def test_the_graph_sees_the_package():
    # An empty graph would pass the test above whatever the code does.
    graph = import_graph()
    assert len(graph) > 100
    assert sum(map(len, graph.values())) > 250
    assert 'pfsbench.gate.history.keys' in graph['pfsbench.store.codec']


def _package(tmp_path, sources):
    package = tmp_path / 'pfsbench'
    for rel, text in sources.items():
        path = package / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in [path.parent, *path.parent.parents]:
            if parent == package.parent:
                break
            init = parent / '__init__.py'
            if not init.exists():
                init.write_text('')
        path.write_text(text)
    return package


def test_a_loop_through_a_lazy_import_is_found(tmp_path):
    # The loop the gate's history had: results imports index at the top,
    # index imports results inside a function.
    package = _package(tmp_path, {
        'gate/history/results.py': 'from pfsbench.gate.history import index\n',
        'gate/history/index.py':
            'def f():\n    from pfsbench.gate.history.results import K\n',
        'core/errors.py': '',
    })
    assert loops(import_graph(package)) == [
        ['pfsbench.gate.history.index', 'pfsbench.gate.history.results']]


def test_a_longer_loop_is_found(tmp_path):
    package = _package(tmp_path, {
        'a.py': 'import pfsbench.b\n',
        'b.py': 'from pfsbench import c\n',
        'c.py': 'from . import a\n',
        'd.py': 'import pfsbench.a\n',
    })
    assert loops(import_graph(package)) == [
        ['pfsbench.a', 'pfsbench.b', 'pfsbench.c']]


def test_one_way_imports_are_no_loop(tmp_path):
    package = _package(tmp_path, {
        'a.py': 'import pfsbench.b\nimport pfsbench.c\n',
        'b.py': 'import pfsbench.c\n',
        'c.py': '',
    })
    assert loops(import_graph(package)) == []
