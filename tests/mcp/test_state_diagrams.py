"""State diagrams (spec decision 24) through a real MCP client on the real actors and folder:
create from Mermaid, ops, reads, queries, xrefs and spotlights take `state/*` refs, and the
folder holds `diagrams/<id>.mmd` that loads back equal."""

from __future__ import annotations

from pathlib import Path

from nereid.store import FolderFiles, load_session
from tests.mcp.session_kit import Agent, memory_client, memory_session

TEXT = """stateDiagram-v2
[*] --> Placed
Placed --> Paid : pay
Paid --> Shipped
state Shipped {
  [*] --> Packed
  Packed --> OnTheWay
}
Shipped --> [*]
Lost --> Shipped
"""


async def test_state_diagram_end_to_end(tmp_path: Path) -> None:
    async with memory_session(tmp_path) as endpoint, memory_client(endpoint) as client:
        agent = Agent(client)
        await agent.ok("diagram.create_from_mermaid", {"diagram_id": "order", "mermaid": TEXT})
        listed = await agent.ok("diagram.list")
        assert {"diagram_id": "order", "kind": "State"}.items() <= next(
            d for d in listed["diagrams"] if d["diagram_id"] == "order"
        ).items()
        ast = (await agent.ok("diagram.get_ast", {"diagram_id": "order"}))["ast"]
        assert ast["type"] == "state"
        assert {s["state_id"] for s in ast["states"]} >= {"s:Placed", "s:Packed", "start:Shipped"}
        unreachable = await agent.ok("flow.unreachable", {"diagram_id": "order"})
        assert unreachable["nodes"] == ["d:order/state/state/s:Lost"]
        applied = await agent.ok(
            "diagram.apply_ops",
            {
                "diagram_id": "order",
                "base_rev": 0,
                "ops": [
                    {"type": "state_set_state", "state_id": "s:Refunded", "label": "Refunded"},
                    {"type": "state_set_transition", "transition_id": "t:refund",
                     "from_node_id": "s:Paid", "to_node_id": "s:Refunded", "label": "refund"},
                    {"type": "state_set_state", "state_id": "s:Lost", "parent_id": "s:Shipped"},
                ],
            },
        )  # fmt: skip
        assert "d:order/state/transition/t:refund" in applied["delta"]["added"]
        read = await agent.ok("object.read", {"object_ref": "d:order/state/transition/t:refund"})
        assert read["objects"][0]["object"]["to_state_id"] == "s:Refunded"
        refused = await agent.err(
            "diagram.apply_ops",
            {"diagram_id": "order", "base_rev": 1,
             "ops": [{"type": "state_set_state", "state_id": "s:a b"}]},
        )  # fmt: skip
        assert refused.code == -32602
        await agent.ok(
            "xref.add",
            {"xref_id": "x:refund", "from": "d:order/state/state/s:Paid",
             "to": "d:order/state/transition/t:refund",
             "kind": "relates_to"},
        )  # fmt: skip
        await agent.ok("attention.agent.set", {"object_ref": "d:order/state/state/s:Paid"})
        await agent.ok("selection.update", {"object_refs": ["d:order/state/state/s:Paid"]})
        sliced = await agent.ok(
            "diagram.get_slice", {"center_ref": "d:order/state/state/s:Paid", "depth": 1}
        )
        assert "d:order/state/state/s:Refunded" in sliced["objects"]
        rendered = await agent.ok("diagram.render_text", {"diagram_id": "order"})
        assert "Refunded" in str(rendered)
        diff = await agent.ok("diagram.diff", {"diagram_id": "order", "since_rev": 0})
        assert "d:order/state/state/s:Refunded" in str(diff)
        stale = await agent.err(
            "diagram.apply_ops",
            {"diagram_id": "order", "base_rev": 0,
             "ops": [{"type": "state_remove", "transition_id": "t:refund"}]},
        )  # fmt: skip
        assert "stale" in stale.message or "conflict" in stale.message, stale
        await agent.ok("walkthrough.create", {"title": "Order tour", "walkthrough_id": "wt:o"})
        await agent.ok(
            "walkthrough.apply_ops",
            {"walkthrough_id": "wt:o", "base_rev": 0,
             "ops": [{"type": "add_node", "node_id": "wn:1", "title": "Paid",
                      "refs": ["d:order/state/state/s:Paid"]}]},
        )  # fmt: skip
        xrefs = await agent.ok("xref.list", {})
        assert [x["status"] for x in xrefs["xrefs"] if x["xref_id"] == "x:refund"] == ["ok"]
    loaded = load_session(FolderFiles(tmp_path))
    assert not loaded.issues
    order = loaded.session.diagrams["order"]
    assert order.kind == "state" and order.rev == 1
    assert "t:refund" in order.ast.transitions  # type: ignore[union-attr]
    assert (tmp_path / "diagrams" / "order.mmd").read_text().startswith("stateDiagram-v2\n")
