"""The editor round trip: replacing a diagram with its own exported text changes nothing."""

from __future__ import annotations

import pytest

from nereid.actors.protocol import ApplyDiagramOps, GetDiagram, ReplaceFromMermaid
from nereid.mermaid import export_ast
from nereid.model import Diagram
from nereid.ops import convert_diagram_ops
from nereid.store.demo import load_demo_session
from tests.actors.session_testkit import SEQ, create, memory_session

DEMO = load_demo_session()


async def _replace_with_own_text(handle: object, diagram_id: str) -> tuple[Diagram, Diagram]:
    diagram = handle.diagram(diagram_id)  # type: ignore[attr-defined]
    before = await diagram.call(GetDiagram())
    reply = await diagram.call(ReplaceFromMermaid(mermaid=export_ast(before.ast)))
    after = await diagram.call(GetDiagram())
    assert (reply.changed, reply.new_rev) == (False, before.rev)
    return before, after


@pytest.mark.parametrize("diagram_id", sorted(DEMO.diagrams))
async def test_a_demo_diagram_replaced_by_its_export_is_unchanged(diagram_id: str) -> None:
    async with memory_session(session=DEMO) as handle:
        before, after = await _replace_with_own_text(handle, diagram_id)
        assert after == before


async def test_ops_chosen_order_keys_and_block_ids_survive_the_round_trip() -> None:
    async with memory_session() as handle:
        await create(handle, SEQ, diagram_id="s")
        ops = convert_diagram_ops(
            [
                {"type": "seq_add_message", "message_id": "m:late", "from_participant_id": "p:A",
                 "to_participant_id": "p:B", "kind": "async", "text": "later", "order_key": 5},
                {"type": "seq_add_note", "note_id": "note:x", "placement": "over",
                 "participant_ids": ["p:A"], "text": "n", "order_key": 7},
                {"type": "seq_add_block", "block_id": "b:mine", "kind": "loop",
                 "sections": [{"section_id": "s:mine", "message_ids": ["m:late"]}]},
            ]
        )  # fmt: skip
        current = await handle.diagram("s").call(GetDiagram())
        await handle.diagram("s").call(ApplyDiagramOps(base_rev=current.rev, ops=ops))
        before, after = await _replace_with_own_text(handle, "s")
        assert after == before


async def test_an_ops_built_flowchart_survives_the_round_trip() -> None:
    async with memory_session() as handle:
        await create(handle, diagram_id="f")
        ops = convert_diagram_ops(
            [
                {"type": "flow_add_node", "node_id": "n:a1x1", "label": "Added", "shape": "round"},
                {"type": "flow_set_node_note", "node_id": "n:a1x1", "note": "side-car only"},
                {"type": "flow_add_edge", "edge_id": "e:mine", "from_node_id": "n:a1x1",
                 "to_node_id": "n:A", "style": "stroke:#f00", "connector": "-.->"},
                {"type": "flow_add_subgraph", "subgraph_id": "sg:mine", "mermaid_id": "grp",
                 "title": "Group", "node_ids": ["n:a1x1"]},
            ]
        )  # fmt: skip
        await handle.diagram("f").call(ApplyDiagramOps(base_rev=0, ops=ops))
        before, after = await _replace_with_own_text(handle, "f")
        assert after == before
        assert before.ast.nodes["n:a1x1"].mermaid_id == "a1x1"  # type: ignore[union-attr]
