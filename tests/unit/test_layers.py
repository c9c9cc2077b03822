"""The project's floors, read from its imports: no arrow running back up, no circle.

Floors, bottom to top: ``protocol`` < ``storage`` < ``raft`` < ``metadata`` < ``replication`` < ``coordinator`` <
``metrics`` < (``web``, ``registry``, ``rest``) < ``broker`` < (``scripts``, ``spark_jobs``, ``bench``, ``kafpy``'s own modules). A module may
import its own floor and the floors below. Every import counts: module-level, inside a
function, under ``if TYPE_CHECKING:``; ``kafpy.X...`` names the folder ``X/`` of the
checkout. The graph is built with ``ast`` from the files, nothing is imported.
"""
from __future__ import annotations

import ast
from pathlib import Path

from tests.support.floors import FLOORS as PROJECT_FLOORS

ROOT = Path(__file__).resolve().parents[2]
# The order, bottom to top; names on one level do not import each other. The floors themselves
# are the symlinks kafpy/<floor> (tests/support/floors.py): the first test checks this order
# names each of them once.
ORDER = (("protocol",), ("storage",), ("raft",), ("metadata",), ("replication",), ("coordinator",), ("metrics",), ("web", "registry", "rest"),
         ("broker",), ("scripts", "spark_jobs", "bench", "kafpy"))
FLOORS = {name: level for level, names in enumerate(ORDER) for name in names}


def _module_name(path: Path) -> str:
    """``broker/handlers/fetch.py`` -> ``kafpy.broker.handlers.fetch``; bench stays ``bench.``."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    if parts[0] == "kafpy":
        return ".".join(parts)
    if parts[0] == "bench":
        return ".".join(parts)
    return ".".join(["kafpy", *parts])


def project_modules() -> dict[str, Path]:
    """Every Python module of the floors, by its importable name."""
    out: dict[str, Path] = {}
    for folder in FLOORS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            out[_module_name(path)] = path
    return out


def floor_of(module: str) -> int:
    parts = module.split(".")
    if parts[0] == "bench":
        return FLOORS["bench"]
    return FLOORS.get(parts[1], FLOORS["kafpy"]) if len(parts) > 1 else FLOORS["kafpy"]


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports, wherever the import statement stands."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if _is_package(path) else name.rpartition(".")[0]
    found: set[str] = set()

    def add(target: str) -> None:
        # the longest project module the dotted name starts with (``from a.b import c``
        # names module ``a.b.c`` when that file exists, else something inside ``a.b``)
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            if not (stem == "kafpy" or stem.startswith(("kafpy.", "bench"))):
                continue
            for alias in node.names:
                add(f"{stem}.{alias.name}")
    return found


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
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
                    out.append(sorted(component))
    return out


def _file(module: str, modules: dict[str, Path]) -> str:
    return str(modules[module].relative_to(ROOT))


def test_the_graph_sees_the_floors() -> None:
    """The reader finds what it should (a broken reader would pass everything)."""
    assert sorted(FLOORS) == sorted((*PROJECT_FLOORS, "bench", "kafpy"))
    graph = import_graph()
    assert "kafpy.broker.handlers.fetch" in graph and "kafpy.storage.log" in graph
    assert "kafpy.protocol.errors" in graph["kafpy.storage.errors"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_runs_back_up() -> None:
    modules = project_modules()
    graph = import_graph()
    bad = sorted(f"{_file(src, modules)} -> {_file(dst, modules)}"
                 for src, targets in graph.items() for dst in targets if floor_of(dst) > floor_of(src))
    assert bad == [], "imports from a lower floor to a higher one:\n" + "\n".join(bad)


def test_no_import_cycle() -> None:
    modules = project_modules()
    found = cycles(import_graph())
    assert found == [], "import cycles:\n" + "\n".join(" <-> ".join(_file(m, modules) for m in c) for c in found)
