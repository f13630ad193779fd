"""No import cycles through the runtime, the actors or the command line; layers point down.

The graph is read from the source (`tests/import_graph.py`): every import, at module level or
inside a function (a lazy import back up is still a cycle), except those under `TYPE_CHECKING`.
"""

from __future__ import annotations

from tests.import_graph import cycles, import_graph, within

#: Packages whose modules must not be on any import cycle.
ACYCLIC = ("nereid.runtime", "nereid.actors", "nereid.commands", "nereid.cli")
#: What each package must never import (the layer table of docs/architecture.md).
NEVER = {
    "nereid.runtime": ("nereid.actors", "nereid.mcp", "nereid.ui", "nereid.commands", "nereid.cli"),
    "nereid.actors": ("nereid.mcp", "nereid.ui", "nereid.commands", "nereid.cli"),
    "nereid.commands": ("nereid.cli",),
}


def test_the_graph_sees_real_imports() -> None:
    graph = import_graph()
    assert "nereid.runtime._cell" in graph["nereid.runtime"]
    assert "nereid.commands.session_options" in graph["nereid.cli"]
    assert "nereid.actors.revisioned" in graph["nereid.actors.diagram"]


def test_no_cycle_runs_through_the_runtime_actors_or_command_line() -> None:
    bad = [c for c in cycles(import_graph()) if any(within(m, ACYCLIC) for m in c)]
    assert bad == []


def test_lower_layers_never_import_higher_ones() -> None:
    graph = import_graph()
    wrong = sorted(
        (module, target)
        for module, targets in graph.items()
        for package, forbidden in NEVER.items()
        if within(module, (package,))
        for target in targets
        if within(target, forbidden)
    )
    assert wrong == []


def test_a_cycle_is_found() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
