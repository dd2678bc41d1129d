"""The import graph of src/kbgraph, read from the AST with imports inside functions counted.

It must have no cycle, features must not import interfaces, and the store must not import features:
the layout is the architecture, and a function-level import is still an import. Packages follow one
declared order (PACKAGE_ORDER: base, features, the index run machinery, composition, interfaces), and
no packages form a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "kbgraph"
INTERFACES = ("cli", "api", "mcp", "web")
FOUNDATION = ("model", "errors", "access")  # below the store; anything may import them


def _module_name(path: Path, src: Path = SRC) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules(src: Path = SRC) -> dict[str, Path]:
    return {_module_name(p, src): p for p in sorted((src / PACKAGE).rglob("*.py"))}


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


# The packages of src/kbgraph (a folder, or a module at the top), lowest first: each may import only
# those before it. Base values and files; the features, each above what it uses; the index run
# machinery that runs the features' stages; the one composition module that assembles the default
# pipeline and hands the features their re-read as a port on the workspace; the interfaces.
BASE = ("", "model", "errors", "access", "clock", "locks", "vocabulary", "config", "store", "base")
FEATURES = ("entities", "profile", "pages", "relations", "curation", "resolve", "extract", "graph", "documents", "embed",
            "docgraph", "search", "context", "shapes", "portable", "backup", "migrate")
MACHINERY = ("ingest",)
COMPOSITION = ("workspace",)
PACKAGE_ORDER = BASE + FEATURES + MACHINERY + COMPOSITION + ("web", "api", "mcp", "cli")


def _imports(path: Path, name: str, known: set[str]) -> list[tuple[int, str]]:
    """(line, module) for every import of ours in the file, at module level or inside a function."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            found += [(node.lineno, t) for t in sorted(_imported(name, path, node, known))]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name in known]
    return found


def imports_against_the_order(order: tuple[str, ...] = PACKAGE_ORDER, src: Path = SRC) -> list[str]:
    """'module:line imports target' for each import of a package later in the order (or in none)."""
    modules = _modules(src)
    known = set(modules)
    rank = {package: i for i, package in enumerate(order)}
    wrong = []
    for name, path in modules.items():
        own = rank.get(_area(name))
        for line, target in _imports(path, name, known):
            theirs = rank.get(_area(target))
            if own is None or theirs is None or (theirs > own):
                wrong.append(f"{path.relative_to(src)}:{line} imports {target}")
    return wrong


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        packages.setdefault(_area(module), set()).update(_area(t) for t in targets if _area(t) != _area(module))
    return packages


def test_every_package_is_in_the_declared_order():
    assert sorted({_area(m) for m in _modules()} - set(PACKAGE_ORDER)) == []
    assert sorted(set(PACKAGE_ORDER) - {_area(m) for m in _modules()}) == []


def test_no_import_goes_against_the_package_order():
    """A package imports only those below it, at module level or inside a function: a feature that
    needs the index re-read gets it from the workspace (ws.reread, ws.refresh, ws.reindex)."""
    assert imports_against_the_order() == []


def test_no_packages_form_a_cycle(graph):
    assert cycles(package_graph(graph)) == []


def test_the_order_check_sees_an_import_inside_a_function(tmp_path):
    package = tmp_path / PACKAGE
    (package / "low").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "low" / "__init__.py").write_text("")
    (package / "high.py").write_text("from .low import edit\n")
    (package / "low" / "edit.py").write_text("def write():\n    from ..high import x\n    return x\n")
    assert imports_against_the_order(("", "low", "high"), tmp_path) == ["kbgraph/low/edit.py:2 imports kbgraph.high"]
    assert imports_against_the_order(("", "high", "low"), tmp_path) == [
        "kbgraph/high.py:1 imports kbgraph.low", "kbgraph/high.py:1 imports kbgraph.low.edit"]
    assert imports_against_the_order(("", "low"), tmp_path) == [  # a package outside the order is against it
        "kbgraph/high.py:1 imports kbgraph.low", "kbgraph/high.py:1 imports kbgraph.low.edit",
        "kbgraph/low/edit.py:2 imports kbgraph.high"]


def test_docs_draw_the_features_in_the_declared_order():
    """docs/architecture.md's layer drawing lists the features top down: the reverse of FEATURES."""
    text = (SRC.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawing = text.split("## Layers", 1)[1].split("```", 2)[1]
    features = drawing.split("features", 1)[1].split("─", 1)[0]
    drawn = [next(w for w in line.split() if w.endswith(("/", ".py"))).strip("/").removesuffix(".py")
             for line in features.splitlines() if any(w.endswith(("/", ".py")) for w in line.split())]
    assert drawn[::-1] == list(FEATURES)
