"""The import graph of src/kbgraph, read from the AST with imports inside functions counted.

It must have no cycle, features must not import interfaces, and the store must not import features:
the layout is the architecture, and a function-level import is still an import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "kbgraph"
INTERFACES = ("cli", "api", "mcp", "web")
FOUNDATION = ("model", "errors", "access")  # below the store; anything may import them


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted((SRC / PACKAGE).rglob("*.py"))}


def _imported(name: str, path: Path, node: ast.ImportFrom, known: set[str]) -> set[str]:
    if node.level:
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    found = {target} if target in known else set()
    found |= {f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in known}
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                edges |= _imported(name, path, node, known)
            elif isinstance(node, ast.Import):
                edges |= {alias.name for alias in node.names if alias.name in known}
        # Importing a.b.c runs a/__init__ and a/b/__init__ first (those outside the importer's own packages).
        for target in list(edges):
            parts = target.split(".")
            edges |= {".".join(parts[:i]) for i in range(2, len(parts)) if not name.startswith(".".join(parts[:i]))}
        graph[name] = edges - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
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


def _area(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """The import graph, read once for the module's tests (parsing every module costs ~0.4 s)."""
    return import_graph()


def test_the_import_graph_has_no_cycle(graph):
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle_made_by_function_level_imports():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    source = "def f():\n    from .b import x\n"
    tree = ast.parse(source)
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom))
    assert _imported("kbgraph.a", SRC / "kbgraph" / "a.py", node, {"kbgraph.b"}) == {"kbgraph.b"}


def test_features_never_import_interfaces(graph):
    wrong = [(m, t) for m, targets in graph.items() for t in targets
             if _area(m) not in INTERFACES and _area(t) in INTERFACES]
    assert wrong == []


def test_the_store_imports_no_feature(graph):
    wrong = [(m, t) for m, targets in graph.items() for t in targets
             if _area(m) == "store" and _area(t) not in ("store", *FOUNDATION)]
    assert wrong == []


def test_the_domain_values_import_nothing_of_ours(graph):
    assert {m: graph[m] for m in ("kbgraph.model", "kbgraph.errors") if graph.get(m)} == {}


def test_every_feature_folder_named_in_the_layout_exists():
    for folder in ("ingest", "pages", "entities", "relations", "resolve", "extract", "docgraph", "embed",
                   "search", "graph", "context", "store/sqlite", "cli"):
        assert (SRC / PACKAGE / folder / "__init__.py").is_file(), folder


def test_interfaces_never_import_each_other_but_the_cli_launches_them(graph):
    """api/ and mcp/ call the library, never another interface; only cli/ may import them (kbg serve, kbg mcp)."""
    wrong = [(m, t) for m, targets in graph.items() for t in targets
             if _area(m) in INTERFACES and _area(t) in INTERFACES and _area(m) != _area(t) and _area(m) != "cli"]
    assert wrong == []
