"""Three-way merge of diagram edits: the person's net change on the current revision."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.actors.diagram import parse_mermaid_text
from nereid.mermaid import export_flowchart, export_sequence, export_state, reconcile_parse
from nereid.model import Ast, FlowchartAst, FlowEdge, FlowNode, SequenceAst, StateAst
from nereid.ops.merge3 import merge_asts, merge_file_edit

SETTINGS = settings(max_examples=60, deadline=None)


def _edit(base: Ast, text: str) -> Ast:
    """The text parsed and given the base's ids, as the TUI does with the person's edit."""
    return reconcile_parse(parse_mermaid_text(text), base)


BASE = "flowchart TD\n  a[A] --> b[B]\n  b --> c[C]\n"


def test_both_sides_changes_to_different_objects_are_all_kept() -> None:
    base = parse_mermaid_text(BASE)
    current = _edit(base, "flowchart TD\n  a[A agent] --> b[B]\n  b --> c[C]\n  c --> d[D]\n")
    yours = _edit(base, "flowchart TD\n  a[A] --> b[B mine]\n  b --> c[C]\n  a --> x[X]\n")
    result = merge_asts(base, current, yours)
    assert result.conflicts == ()
    assert isinstance(result.ast, FlowchartAst)
    labels = {n.label for n in result.ast.nodes.values()}
    assert labels == {"A agent", "B mine", "C", "D", "X"}
    pairs = {(e.from_node_id, e.to_node_id) for e in result.ast.edges.values()}
    assert pairs == {("n:a", "n:b"), ("n:b", "n:c"), ("n:c", "n:d"), ("n:a", "n:x")}
    assert len(result.ast.edges) == 4  # both new edges kept, under different ids
    reread = parse_mermaid_text(export_flowchart(result.ast))
    assert {n.label for n in reread.nodes.values()} == labels  # type: ignore[union-attr]


def test_the_same_object_changed_differently_is_a_conflict_holding_yours() -> None:
    base = parse_mermaid_text(BASE)
    current = _edit(base, BASE.replace("[A]", "[A agent]"))
    yours = _edit(base, BASE.replace("[A]", "[A mine]"))
    result = merge_asts(base, current, yours)
    (conflict,) = result.conflicts
    assert conflict.what == "node n:a"
    assert "A agent" in conflict.current and "A mine" in conflict.yours and "'A'" in conflict.base
    assert result.ast.nodes["n:a"].label == "A mine"


def test_deleting_what_the_other_side_changed_is_a_conflict() -> None:
    base = parse_mermaid_text(BASE)
    current = _edit(base, BASE.replace("[C]", "[C agent]"))
    yours = _edit(base, "flowchart TD\n  a[A] --> b[B]\n")
    result = merge_asts(base, current, yours)
    assert [c.what for c in result.conflicts] == ["node n:c"]
    assert "deleted" in result.conflicts[0].reason


def test_an_edge_to_a_node_the_other_side_deleted_is_a_conflict() -> None:
    base = parse_mermaid_text(BASE)
    current = _edit(base, BASE + "  c --> a\n")
    yours = _edit(base, "flowchart TD\n  a[A] --> b[B]\n")
    result = merge_asts(base, current, yours)
    assert any("refers to n:c" in c.reason for c in result.conflicts)


def test_sequence_additions_on_both_sides_keep_their_places() -> None:
    base = parse_mermaid_text("sequenceDiagram\n  A->>B: one\n  B->>A: two\n")
    current = _edit(base, "sequenceDiagram\n  A->>B: zero\n  A->>B: one\n  B->>A: two\n")
    yours = _edit(base, "sequenceDiagram\n  A->>B: one\n  B->>A: two\n  A->>B: three\n")
    result = merge_asts(base, current, yours)
    assert result.conflicts == ()
    assert isinstance(result.ast, SequenceAst)
    assert [m.text for m in result.ast.messages] == ["zero", "one", "two", "three"]
    assert "A->>B: three" in export_sequence(result.ast)


_label = st.text(alphabet="abcdefgh XYZ", min_size=1, max_size=6).map(str.strip).filter(bool)
_ids = st.sampled_from([f"n:{c}" for c in "pqrstu"])


@st.composite
def _flowcharts(draw: st.DrawFn) -> FlowchartAst:
    ids = draw(st.lists(_ids, unique=True, max_size=5))
    nodes = {i: FlowNode(label=draw(_label)) for i in ids}
    edges: dict[str, FlowEdge] = {}
    if ids:
        for k in range(draw(st.integers(0, 4))):
            edges[f"e:{k:04d}"] = FlowEdge(
                from_node_id=draw(st.sampled_from(ids)), to_node_id=draw(st.sampled_from(ids))
            )
    return FlowchartAst(
        direction=draw(st.sampled_from([None, "TD", "LR"])), nodes=nodes, edges=edges
    )


@SETTINGS
@given(_flowcharts(), _flowcharts())
def test_an_untouched_side_gives_the_other_side_exactly(
    base: FlowchartAst, other: FlowchartAst
) -> None:
    assert merge_asts(base, other, base).ast == other  # the person changed nothing
    assert merge_asts(base, other, base).conflicts == ()
    assert merge_asts(base, base, other).ast == other  # nobody else changed anything
    assert merge_asts(base, other, other).conflicts == ()  # both made the same change
    assert merge_asts(base, other, other).ast == other


@SETTINGS
@given(_flowcharts(), _flowcharts(), _flowcharts())
def test_a_merge_without_conflicts_keeps_every_change_of_both(
    base: FlowchartAst, current: FlowchartAst, yours: FlowchartAst
) -> None:
    result = merge_asts(base, current, yours)
    if result.conflicts:
        return
    merged = result.ast
    for side, other in ((current, yours), (yours, current)):
        for node_id, node in side.nodes.items():
            if base.nodes.get(node_id) != node:  # this side changed or added it
                assert merged.nodes.get(node_id) == node
        for node_id in base.nodes:
            if node_id not in side.nodes and other.nodes.get(node_id) == base.nodes[node_id]:
                assert node_id not in merged.nodes  # deleted on one side, untouched on the other


# -- merge_file_edit: the folder watcher's merge (the person's file is already saved) ----


@SETTINGS
@given(_flowcharts(), _flowcharts(), _flowcharts())
def test_a_file_edit_keeps_what_only_the_other_side_changed_and_dangles_nothing(
    base: FlowchartAst, current: FlowchartAst, yours: FlowchartAst
) -> None:
    merged = merge_file_edit(base, current, yours).ast
    assert isinstance(merged, FlowchartAst)
    for edge in merged.edges.values():  # no edge to a node that is gone
        assert {edge.from_node_id, edge.to_node_id} <= set(merged.nodes)
    for field in ("nodes", "edges"):
        b, c, y, m = (getattr(a, field) for a in (base, current, yours, merged))
        for key, value in c.items():
            if b.get(key) != value and y.get(key) == b.get(key):  # only current changed it
                assert m.get(key) == value
        for key, value in y.items():
            if b.get(key) != value:  # the person's change (the file wins; a new edge whose
                assert value in m.values()  # generated id the other side took gets a fresh one)


def test_a_file_edit_keeps_a_node_the_agents_new_edge_uses() -> None:
    base = parse_mermaid_text(BASE)
    current = _edit(base, BASE + "  c --> a\n")
    yours = _edit(base, "flowchart TD\n  a[A] --> b[B]\n")
    merged = merge_file_edit(base, current, yours).ast
    assert isinstance(merged, FlowchartAst)
    assert merged.nodes["n:c"].label == "C" and ("n:c", "n:a") in {
        (e.from_node_id, e.to_node_id) for e in merged.edges.values()
    }
    assert ("n:b", "n:c") not in {(e.from_node_id, e.to_node_id) for e in merged.edges.values()}


def test_a_file_edit_keeps_participants_and_parent_states_still_in_use() -> None:
    seq = parse_mermaid_text("sequenceDiagram\n  participant A\n  participant B\n  A->>B: one\n")
    current = _edit(
        seq, "sequenceDiagram\n  participant A\n  participant B\n  A->>B: one\n  B->>A: agent\n"
    )
    yours = _edit(seq, "sequenceDiagram\n  participant A\n")
    merged = merge_file_edit(seq, current, yours).ast
    assert isinstance(merged, SequenceAst)
    assert [m.text for m in merged.messages] == ["agent"] and len(merged.participants) == 2
    state_text = "stateDiagram-v2\n  state Outer {\n    a --> b\n  }\n"
    base = parse_mermaid_text(state_text)
    current = _edit(base, "stateDiagram-v2\n  state Outer {\n    a --> b\n    b --> c\n  }\n")
    yours = _edit(base, "stateDiagram-v2\n  x --> y\n")
    merged = merge_file_edit(base, current, yours).ast
    assert isinstance(merged, StateAst)
    for state in merged.states.values():
        assert state.parent is None or state.parent in merged.states
    for transition in merged.transitions.values():
        assert {transition.from_state_id, transition.to_state_id} <= set(merged.states)
    export_state(merged)  # it renders
