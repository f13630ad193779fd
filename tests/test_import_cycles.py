"""No import cycles through the runtime, the actors or the command line; layers point down.

The graph is read from the source with `ast`: every import, at module level or inside a
function (a lazy import back up is still a cycle), except those under `TYPE_CHECKING`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nereid

ROOT = Path(nereid.__file__).parent
#: Packages whose modules must not be on any import cycle.
ACYCLIC = ("nereid.runtime", "nereid.actors", "nereid.commands", "nereid.cli")
#: What each package must never import (the layer table of docs/architecture.md).
NEVER = {
    "nereid.runtime": ("nereid.actors", "nereid.mcp", "nereid.ui", "nereid.commands", "nereid.cli"),
    "nereid.actors": ("nereid.mcp", "nereid.ui", "nereid.commands", "nereid.cli"),
    "nereid.commands": ("nereid.cli",),
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []

    class Visitor(ast.NodeVisitor):
        def visit_If(self, node: ast.If) -> None:
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            if name != "TYPE_CHECKING":
                for child in node.body:
                    self.visit(child)
            for child in node.orelse:
                self.visit(child)

        def visit_Import(self, node: ast.Import) -> None:
            found.append(node)

        def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
            found.append(node)

    Visitor().visit(tree)
    return found


def import_graph() -> dict[str, set[str]]:
    """Module → the nereid modules it imports when it is imported."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    for alias in node.names
                ]
            edges |= {t for t in targets if t in modules and t != name}
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
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

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_graph_sees_real_imports() -> None:
    graph = import_graph()
    assert "nereid.runtime._cell" in graph["nereid.runtime"]
    assert "nereid.commands.session_options" in graph["nereid.cli"]
    assert "nereid.actors.revisioned" in graph["nereid.actors.diagram"]


def test_no_cycle_runs_through_the_runtime_actors_or_command_line() -> None:
    bad = [c for c in cycles(import_graph()) if any(_in(m, p) for m in c for p in ACYCLIC)]
    assert bad == []


def test_lower_layers_never_import_higher_ones() -> None:
    graph = import_graph()
    wrong = sorted(
        (module, target)
        for module, targets in graph.items()
        for package, forbidden in NEVER.items()
        if _in(module, package)
        for target in targets
        if any(_in(target, f) for f in forbidden)
    )
    assert wrong == []


def test_a_cycle_is_found() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
