"""The shape of `nereid.ui`: no import cycle, and no module writes another object's state.

Read from the source (`ast`), so a cycle hidden under `TYPE_CHECKING` or inside a function,
or a `vm.focus = ...` from the key dispatch, fails here before it confuses anyone.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nereid.ui
from tests.import_graph import cycles, import_graph

UI = Path(nereid.ui.__file__).parent

#: Container methods that change the container (a call through another object's attribute
#: changes that object's state).
MUTATORS = frozenset(
    {"add", "append", "clear", "discard", "extend", "insert", "pop", "remove", "setdefault"}
    | {"update", "popitem", "sort", "reverse"}
)

#: Writes into urwid's objects, which have no other way to be told (module, code).
URWID_WRITES = {
    ("app", "self.loop.handle_mouse"),  # urwid.MainLoop: what `screen.paused()` restores
    ("widgets", "combined.cursor"),  # urwid.CompositeCanvas: where the terminal cursor shows
}


def _modules() -> dict[str, ast.Module]:
    return {path.stem: ast.parse(path.read_text(), str(path)) for path in sorted(UI.glob("*.py"))}


def test_no_import_cycle_inside_nereid_ui() -> None:
    graph = import_graph("ui", type_checking=True)
    assert "nereid.ui.viewmodel" in graph["nereid.ui.dispatch"]  # the graph is read, not empty
    assert cycles(graph) == []


def _chain(node: ast.expr) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"] (through subscripts: `a.b[k]` → ["a", "b"]), else None."""
    names: list[str] = []
    while True:
        if isinstance(node, ast.Attribute):
            names.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Name):
            return [node.id, *reversed(names)]
        else:
            return None


def _foreign_writes(module: str, tree: ast.Module) -> list[str]:
    """Writes to state that is not the writing object's own: any attribute assignment
    except `self.x = ...`, and container mutation through an attribute except `self.x`."""
    found: list[str] = []

    def check(target: ast.expr, line: int, what: str) -> None:
        if isinstance(target, ast.Name | ast.Starred):
            return
        if isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                check(element, line, what)
            return
        chain = _chain(target)
        if chain is None:
            found.append(f"{module}.py:{line}: {what} {ast.unparse(target)}")
            return
        owned = chain[0] == "self" and len(chain) <= 2
        if isinstance(target, ast.Subscript) and len(chain) == 1:
            owned = True  # a local container
        if not owned and (module, ".".join(chain)) not in URWID_WRITES:
            found.append(f"{module}.py:{line}: {what} {ast.unparse(target)}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                check(target, node.lineno, "assigns")
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            check(node.target, node.lineno, "assigns")
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                check(target, node.lineno, "deletes")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in MUTATORS
            and isinstance(node.func.value, ast.Attribute)
        ):
            check(node.func.value, node.lineno, f"calls .{node.func.attr}() on")
    return found


def test_the_write_checker_sees_foreign_writes() -> None:
    source = "vm.focus = 1\nvm.walk.nodes[k] = 2\nvm.visible.add(3)\nself.x = 4\nself.y[k] = 5\n"
    assert _foreign_writes("m", ast.parse(source)) == [
        "m.py:1: assigns vm.focus",
        "m.py:2: assigns vm.walk.nodes[k]",
        "m.py:3: calls .add() on vm.visible",
    ]


def test_no_module_writes_another_objects_state() -> None:
    found = [line for name, tree in _modules().items() for line in _foreign_writes(name, tree)]
    assert found == []
