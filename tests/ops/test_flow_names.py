"""The explicit-Mermaid-id index that keeps a flowchart batch's cost to what it touched:
after any batch it equals a fresh scan, and every batch is accepted or refused exactly as
with a fresh scan (the index is a cache, never a source of truth)."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.errors import NereidError
from nereid.mermaid import parse_flowchart
from nereid.ops import (
    DiagramState,
    FlowAddEdge,
    FlowAddNode,
    FlowRemoveEdge,
    FlowRemoveNode,
    FlowSetNodeMermaidId,
    flow_names,
)
from nereid.ops.flow_names import explicit_names

START = "flowchart TD\n  A[a] e1@--> B[b]\n  C[c] e2@--> A\n  B --> C\n"
NAMES = st.sampled_from(["A", "B", "C", "D", "e1", "e2", "x"])
NODES = st.sampled_from(["n:A", "n:B", "n:C", "n:D", "n:x", "n:y"])

OPS = st.one_of(
    st.builds(FlowAddNode, node_id=NODES, label=st.just("L")),
    st.builds(FlowSetNodeMermaidId, node_id=NODES, mermaid_id=st.one_of(st.none(), NAMES)),
    st.builds(FlowRemoveNode, node_id=NODES),
    st.builds(
        FlowAddEdge,
        edge_id=st.sampled_from(["e:1", "e:2"]),
        from_node_id=NODES,
        to_node_id=NODES,
    ),
    st.builds(FlowRemoveEdge, edge_id=st.sampled_from(["e1", "e2", "e:1"])),
)


def _outcome(state: DiagramState, batch: list[object]) -> DiagramState | str:
    try:
        return state.apply(state.rev, batch)[0]  # type: ignore[arg-type]
    except NereidError as err:
        return f"{err.category}: {err.message}"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(OPS, min_size=1, max_size=4), min_size=1, max_size=8))
def test_index_equals_a_fresh_scan_and_decides_like_one(batches: list[list[object]]) -> None:
    state = DiagramState(diagram_id="d", ast=parse_flowchart(START), rev=0)
    for batch in batches:
        # The same batch on an equal AST object that has no index yet: a full scan.
        fresh = _outcome(
            msgspec.structs.replace(state, ast=msgspec.structs.replace(state.ast)), batch
        )
        with_index = _outcome(state, batch)  # the index carried over from the last batch
        if isinstance(with_index, str) or isinstance(fresh, str):
            assert with_index == fresh
            continue
        assert with_index.ast == fresh.ast
        assert id(with_index.ast) in flow_names._cache  # moved, not rebuilt
        remembered = explicit_names(with_index.ast)
        assert all(len(set(owners)) == len(owners) for owners in remembered.values())
        fresh_index = flow_names._build(with_index.ast)
        assert {k: set(v) for k, v in remembered.items()} == {
            k: set(v) for k, v in fresh_index.items()
        }
        state = with_index
