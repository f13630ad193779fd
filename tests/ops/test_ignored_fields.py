"""Unknown keys inside ops: ignored as the contract says, and named (decision 22)."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.ops import (
    DiagramOp,
    FlowAddNode,
    WalkthroughOp,
    convert_diagram_ops,
    convert_walkthrough_ops,
    ignored_fields,
)

BLOCK = {
    "type": "seq_add_block",
    "block_id": "b",
    "kind": "alt",
    "sections": [{"section_id": "s", "message_ids": ["m"], "hedaer": "x"}],
    "colour": 1,
}


def test_extras_decode_as_if_absent_and_are_listed_by_path() -> None:
    raw = [
        {"type": "flow_add_node", "node_id": "n", "label": "x", "colour": "red"},
        {"type": "flow_remove_node", "node_id": "n"},
        BLOCK,
    ]
    ops = convert_diagram_ops(raw)
    assert ops[0] == FlowAddNode(node_id="n", label="x")
    assert ignored_fields(raw, DiagramOp) == [
        "ops[0].colour",
        "ops[2].sections[0].hedaer",
        "ops[2].colour",
    ]
    walk = [{"type": "add_node", "node_id": "a", "title": "A", "priority": 1}]
    assert convert_walkthrough_ops(walk)
    assert ignored_fields(walk, WalkthroughOp) == ["ops[0].priority"]


def test_nothing_is_listed_for_what_does_not_decode_or_for_clean_ops() -> None:
    assert ignored_fields(None, DiagramOp) == []
    assert ignored_fields("ops", DiagramOp) == []
    assert ignored_fields([{"type": "nope", "x": 1}, 3], DiagramOp) == []
    assert ignored_fields([{"type": "flow_remove_node", "node_id": "n"}], DiagramOp) == []


names = st.text(min_size=1, max_size=12)
values = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8))


@settings(max_examples=60, deadline=None)
@given(extras=st.dictionaries(names, values, max_size=4))
def test_any_extra_keys_change_nothing_and_are_each_named(extras: dict[str, object]) -> None:
    base = {"type": "flow_add_node", "node_id": "n", "label": "x", "shape": "round"}
    extra = {k: v for k, v in extras.items() if k not in base}
    ops = convert_diagram_ops([{**base, **extra}])
    assert ops == convert_diagram_ops([base])
    assert ignored_fields([{**base, **extra}], DiagramOp) == [f"ops[0].{k}" for k in extra]
    assert msgspec.to_builtins(ops[0])["label"] == "x"
