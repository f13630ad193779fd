"""Nereid's own import graph, read from the source with `ast`: one walker for every rule.

The layer rules, the cycle rules and the TUI's shape rule all read imports the same way;
they differ only in whether imports under `TYPE_CHECKING` count (a rule about what may be
*named* counts them; a cycle is about what runs, so it does not).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Final

import nereid
from nereid.query.graph import strongly_connected_components

ROOT: Final = Path(nereid.__file__).parent


def module_name(path: Path) -> str:
    """`nereid/ui/app.py` → `nereid.ui.app`; a package's `__init__.py` is the package."""
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(package: str = "") -> list[Path]:
    """The source files of `nereid` or of one of its packages (`"ui"`, `"render/flowchart"`)."""
    return sorted((ROOT / package).rglob("*.py"))


def _statements(
    nodes: Iterable[ast.AST], *, type_checking: bool
) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement among `nodes` and inside them; the body of `if TYPE_CHECKING:`
    only when `type_checking` (its `else:` always)."""
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
            continue
        children: Iterable[ast.AST] = ast.iter_child_nodes(node)
        if isinstance(node, ast.If) and not type_checking:
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            children = node.orelse if name == "TYPE_CHECKING" else [*node.body, *node.orelse]
        yield from _statements(children, type_checking=type_checking)


@functools.cache
def _resolved(path: Path, *, type_checking: bool) -> tuple[tuple[int, str, tuple[str, ...]], ...]:
    """`(line, module, names)` of each import statement, relative modules made absolute;
    `names` are a `from` import's names (`()` for `import a.b`). Read once per file and
    rule kind in a run: every rule test walks the same files."""
    return tuple(_walk_resolved(path, type_checking=type_checking))


def _walk_resolved(
    path: Path, *, type_checking: bool
) -> Iterator[tuple[int, str, tuple[str, ...]]]:
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in _statements([tree], type_checking=type_checking):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, ()
        else:
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            yield node.lineno, module, tuple(alias.name for alias in node.names)


def imports(path: Path, *, type_checking: bool = True) -> Iterator[tuple[int, str]]:
    """`(line, module)` of every import in the file; `from a import b` gives `a` and `a.b`
    (so a submodule imported by name is seen)."""
    for line, module, names in _resolved(path, type_checking=type_checking):
        yield line, module
        for name in names:
            yield line, f"{module}.{name}"


def import_graph(package: str = "", *, type_checking: bool = False) -> dict[str, set[str]]:
    """Module → the modules of `nereid` (or of `package`) it imports when it runs (and, with
    `type_checking`, those it names for the type checker).

    `from a import b` is an edge to `a.b` when that is a module, else to `a`: importing a
    submodule while its package's `__init__` runs is no cycle."""
    paths = {module_name(path): path for path in modules(package)}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        edges: set[str] = set()
        for _, module, names in _resolved(path, type_checking=type_checking):
            targets = [f"{module}.{n}" for n in names if f"{module}.{n}" in paths]
            if len(targets) < len(names) or not names:
                targets.append(module)
            edges |= {t for t in targets if t in paths and t != name}
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module, each sorted (the
    query layer's Tarjan, `nereid.query.graph`)."""
    successors = {node: sorted(targets) for node, targets in graph.items()}
    components = strongly_connected_components(sorted(graph), successors)
    return [sorted(c) for c in components if len(c) > 1]


def within(module: str, packages: frozenset[str] | set[str] | tuple[str, ...]) -> bool:
    """`module` is one of `packages` or inside one."""
    return any(module == p or module.startswith(p + ".") for p in packages)
