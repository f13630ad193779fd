"""The layer rules of docs/architecture.md, read from the `ast` import graph of `nereid/`.

Every `import` counts (`tests/import_graph.py`), wherever it stands (module top, inside a function, under
`TYPE_CHECKING`): a rule that only holds at run time is a rule someone breaks unseen.
"""

from __future__ import annotations

import ast
from typing import Final

import pytest

from tests.import_graph import ROOT, imports, module_name, modules, within

#: Pure layers and the nereid packages each may import (itself included); `nereid.errors` is
#: the one error tree every layer raises from.
PURE_LAYERS: Final = {
    "model": {"model"},
    "mermaid": {"mermaid", "model"},
    "ops": {"ops", "model"},
    "query": {"query", "model", "render"},
    "render": {"render", "model"},
}
#: What a pure layer may import from outside nereid: the standard library's pure modules and
#: the pure libraries (msgspec, lark, regex, wcwidth). `time` is for work budgets (a monotonic
#: clock), `gc` for the renderer's collection pause, `importlib.resources` for the grammar
#: files shipped inside the package (read once, like code). No trio, no files, no sockets.
PURE_OUTSIDE: Final = frozenset(
    {
        "__future__", "array", "bisect", "codecs", "collections", "contextlib", "dataclasses", "enum",
        "functools", "gc", "hashlib", "heapq", "html", "importlib.resources", "itertools",
        "json", "math", "operator", "re", "string", "time", "typing", "unicodedata",
        "lark", "msgspec", "regex", "wcwidth",
    }
)  # fmt: skip
#: Builtins that read or write outside the program.
IO_BUILTINS: Final = frozenset({"open", "input", "print", "breakpoint"})

#: The persister's side of the actors: the persister, its worker export, the folder watcher
#: (it reads the folder and shares the persister's record of what Nereid wrote) and the tree
#: (it hands the persister its folder and what was loaded from it). Nothing else in the
#: clients of the actors or in the actors knows the folder.
PERSISTER_SIDE: Final = frozenset(
    {
        "nereid.actors.persister",
        "nereid.actors.persist_export",
        "nereid.actors.folder_watch",
        "nereid.actors.tree",
    }
)


@pytest.mark.parametrize("layer", sorted(PURE_LAYERS))
def test_pure_layers_import_no_io_or_trio(layer: str) -> None:
    nereid_allowed = {f"nereid.{p}" for p in PURE_LAYERS[layer]} | {"nereid.errors"}
    found: list[str] = []
    for path in modules(layer):
        for line, module in imports(path):
            if module.startswith("nereid"):
                ok = module == "nereid" or within(module, nereid_allowed)
            else:
                # `from importlib import resources` yields both names: judge the precise one.
                ok = (
                    within(module, PURE_OUTSIDE)
                    or module == "importlib"
                    or any(a.startswith(module + ".") for a in PURE_OUTSIDE)
                )
            if not ok:
                found.append(f"{path.relative_to(ROOT.parent)}:{line}: {module}")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in IO_BUILTINS
            ):
                found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}: {node.func.id}()")
    assert found == []


def test_errors_module_is_pure() -> None:
    found = [
        module
        for _, module in imports(ROOT / "errors.py")
        if not (
            within(module, PURE_OUTSIDE)
            or module == "nereid.model"
            or within(module, {"nereid.model"})
        )
    ]
    assert found == []


@pytest.mark.parametrize("package", ["actors", "mcp", "ui"])
def test_only_the_persister_side_imports_the_store(package: str) -> None:
    found = [
        f"{path.relative_to(ROOT.parent)}:{line}: {module}"
        for path in modules(package)
        if module_name(path) not in PERSISTER_SIDE
        for line, module in imports(path)
        if within(module, {"nereid.store"})
    ]
    assert found == []


def test_the_rules_see_imports() -> None:
    """The walker finds imports in every position (a rule over nothing proves nothing)."""
    persister = ROOT / "actors" / "persister.py"
    assert any(within(m, {"nereid.store"}) for _, m in imports(persister))
    for package in ("actors", "mcp", "ui", *PURE_LAYERS):
        assert modules(package), package
