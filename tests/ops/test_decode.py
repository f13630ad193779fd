"""Decoding ops: tags, strictness, absent vs null, and the op tables."""

from __future__ import annotations

import pytest

from nereid.errors import NereidError
from nereid.ops import (
    FLOW_OPS,
    SEQ_OPS,
    UNSET,
    FlowSetNodeNote,
    FlowUpdateEdge,
    WalkthroughUpdateNode,
    convert_diagram_ops,
    decode_diagram_ops,
    decode_walkthrough_ops,
)


def test_absent_and_null_are_told_apart() -> None:
    absent, null = decode_diagram_ops(
        b'[{"type":"flow_update_edge","edge_id":"e"},'
        b'{"type":"flow_update_edge","edge_id":"e","label":null}]'
    )
    assert isinstance(absent, FlowUpdateEdge) and isinstance(null, FlowUpdateEdge)
    assert absent.label is UNSET and null.label is None
    (node,) = decode_walkthrough_ops(b'[{"type":"update_node","node_id":"n","status":null}]')
    assert isinstance(node, WalkthroughUpdateNode)
    assert node.status is None and node.body_md is UNSET


@pytest.mark.parametrize(
    "payload",
    [
        b'[{"type":"flow_nope","node_id":"n"}]',
        b'[{"type":"flow_add_node","node_id":"n"}]',
        b'[{"type":"seq_add_message","message_id":"m","from_participant_id":"a",'
        b'"to_participant_id":"b","kind":"sync","text":"x","order_key":true}]',
        b'[{"type":"seq_add_message","message_id":"m","from_participant_id":"a",'
        b'"to_participant_id":"b","kind":"shout","text":"x","order_key":1}]',
        b'[{"type":"flow_add_node","node_id":null,"label":"x"}]',
        b"not json",
    ],
)
def test_malformed_ops_are_invalid_params(payload: bytes) -> None:
    with pytest.raises(NereidError) as caught:
        decode_diagram_ops(payload)
    assert caught.value.category == "invalid_params"
    assert caught.value.message.startswith("failed to deserialize parameters: ")


def test_convert_matches_decode() -> None:
    ops = [{"type": "flow_set_node_note", "node_id": "n:a"}]
    assert convert_diagram_ops(ops) == [FlowSetNodeNote(node_id="n:a")]
    with pytest.raises(NereidError):
        convert_diagram_ops([{"type": "flow_set_node_note"}])


def test_op_tables_cover_the_contract() -> None:
    tags = {cls.__struct_config__.tag for cls in (*FLOW_OPS, *SEQ_OPS)}
    contract = {
        "seq_add_participant", "seq_update_participant", "seq_set_participant_note",
        "seq_remove_participant", "seq_add_message", "seq_update_message", "seq_remove_message",
        "flow_add_node", "flow_update_node", "flow_set_node_mermaid_id", "flow_set_node_note",
        "flow_remove_node", "flow_add_edge", "flow_update_edge", "flow_remove_edge",
    }  # fmt: skip
    assert contract <= tags
    assert all(str(t).startswith("flow_") for t in (c.__struct_config__.tag for c in FLOW_OPS))
    assert all(str(t).startswith("seq_") for t in (c.__struct_config__.tag for c in SEQ_OPS))
