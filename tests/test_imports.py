"""The import graph of the whole tree, read from the source with ``ast``: no module imports itself back
through others, the packages import one way (sandbox at the bottom, experiments on top), and
``experiments``' layers only import the layers below them (docs/architecture.md §8).

Every import counts, also one inside a function or under ``TYPE_CHECKING``: a lazy import that dodges a
circle at run time is still a circle in the design."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("sandbox", "verification", "planners", "cluster", "experiments", "conf")
MAY_IMPORT = {
    "sandbox": set(),
    "verification": {"sandbox"},
    "planners": {"sandbox"},
    "cluster": {"sandbox", "verification", "planners"},
    "experiments": {"sandbox", "verification", "planners", "cluster", "conf"},
    "conf": set(),
}
LAYERS = ("episodes", "plan", "results", "analysis", "reporting", "execution", "commands", "bench", "cli")
"""``experiments``' layers, lowest first: a module may import its own layer and those before it."""
Graph = dict[str, set[str]]


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the packages (a package by its ``__init__``)."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The tree's module ``name`` stands for: itself, or the module that defines the attribute it names."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> Graph:
    modules = module_files()
    graph: Graph = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the package, up level - 1
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                names = [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            deps |= {found for name in names if (found := _resolve(name, modules))}
        graph[module] = deps - {module}
    return graph


def circles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def layer(module: str) -> str | None:
    """The ``experiments`` layer a module belongs to (None for the package's own ``__init__``)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "experiments" and len(parts) > 1 else None


def test_no_module_imports_itself_back() -> None:
    assert circles(import_graph()) == []


def test_packages_import_one_way() -> None:
    wrong = [
        f"{module} imports {dep}"
        for module, deps in import_graph().items()
        for dep in deps
        if (a := module.split(".")[0]) != (b := dep.split(".")[0]) and b not in MAY_IMPORT[a]
    ]
    assert wrong == []


def test_experiments_layers_import_only_the_layers_below() -> None:
    graph = import_graph()
    found = {layer(m) for m in graph} - {None}
    assert found == set(LAYERS), f"layers on disk {sorted(found)}, declared {LAYERS}"
    rank = {name: i for i, name in enumerate(LAYERS)}
    upward = [
        f"{module} ({layer(module)}) imports {dep} ({layer(dep)})"
        for module, deps in graph.items()
        if layer(module)
        for dep in deps
        if layer(dep) and rank[layer(dep)] > rank[layer(module)]  # type: ignore[index]
    ]
    assert upward == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
