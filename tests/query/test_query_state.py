"""The flow.* graph queries on state diagrams (spec decision 24), and slice/object.read."""

from __future__ import annotations

import pytest

from nereid.errors import NereidError
from nereid.mermaid import parse_state
from nereid.model import Diagram
from nereid.query import (
    diagram_get_slice,
    flow_cycles,
    flow_dead_ends,
    flow_degrees,
    flow_paths,
    flow_reachable,
    flow_unreachable,
    object_read,
)
from tests.query.query_builders import scope

TEXT = """stateDiagram-v2
[*] --> Idle
Idle --> Busy : go
Busy --> Idle : stop
state Busy {
  [*] --> Work
  Work --> [*]
}
Busy --> Done
Done --> [*]
Orphan --> Done
"""
ORDER = Diagram(diagram_id="o", name="o", kind="state", ast=parse_state(TEXT))
S = scope(ORDER)


def _ids(refs: list[str]) -> list[str]:
    assert all(ref.startswith("d:o/state/state/") for ref in refs)
    return [ref.rsplit("/", 1)[1] for ref in refs]


def test_unreachable_starts_at_the_initial_state() -> None:
    assert _ids(flow_unreachable(S).nodes) == ["s:Orphan"]


def test_reachable_enters_composites_through_their_start() -> None:
    reached = _ids(flow_reachable(S, from_node_id="start").nodes)
    assert "s:Work" in reached and "end:Busy" in reached and "end" in reached
    assert "s:Orphan" not in reached


def test_cycles_and_dead_ends() -> None:
    cycles = [sorted(_ids(c)) for c in flow_cycles(S).cycles]
    # Idle -> Busy -> (Busy's [*] -> Work -> [*]) -> Idle: the loop runs through the frame.
    assert cycles == [["end:Busy", "s:Busy", "s:Idle", "s:Work", "start:Busy"]]
    assert _ids(flow_dead_ends(S).nodes) == ["end"]


def test_paths_and_degrees() -> None:
    paths = flow_paths(S, from_node_id="s:Idle", to_node_id="end").paths
    assert [_ids(p) for p in paths] == [["s:Idle", "s:Busy", "s:Done", "end"]]
    degrees = {d.node_ref.rsplit("/", 1)[1]: d for d in flow_degrees(S, top=50).nodes}
    assert degrees["s:Done"].in_degree == 2


def test_unknown_state_is_not_found() -> None:
    with pytest.raises(NereidError):
        flow_reachable(S, from_node_id="s:Nope")


def test_slice_and_object_read_take_state_refs() -> None:
    result = diagram_get_slice(S, center_ref="d:o/state/state/s:Idle", depth=1)
    assert "d:o/state/state/s:Busy" in result.objects
    go = next(t for t, v in ORDER.ast.transitions.items() if v.label == "go")  # type: ignore[union-attr]
    assert f"d:o/state/transition/{go}" in result.edges
    read = object_read(S, object_refs=["d:o/state/state/s:Busy", "d:o/state/transition/t:0001"])
    busy, first = (entry.object for entry in read.objects)
    assert busy.composite is True
    assert first.to_state_id in ORDER.ast.states  # type: ignore[union-attr]


def test_floating_notes_are_no_states_to_the_graph_queries() -> None:
    noted = Diagram(
        diagram_id="o",
        name="o",
        kind="state",
        ast=parse_state(TEXT + 'note "Orphans are legacy" as Memo\nMemo --> Orphan\n'),
    )
    assert _ids(flow_unreachable(scope(noted)).nodes) == ["s:Orphan"]
    assert "s:Memo" not in _ids([d.node_ref for d in flow_degrees(scope(noted), top=50).nodes])
    read = object_read(scope(noted), object_refs=["d:o/state/state/s:Memo"])
    assert read.objects[0].object.kind == "note"  # type: ignore[union-attr]
