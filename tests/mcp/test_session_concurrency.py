"""Many agents at once over HTTP on one real session: optimistic concurrency holds.

Eight agents edit four diagrams (two per diagram), then all eight edit one diagram;
base_rev conflicts happen and are retried after a rebase. Afterwards: no update is lost, the revs each diagram handed out
are exactly 1..N (strictly increasing, none twice), and every reply agrees with the final
state. Also: the stale-base_rev → diff → rebase → apply loop one agent runs by hand.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp.shared.exceptions import MCPError

from tests.mcp.session_kit import Agent, http_session
from tests.mcp.test_mcp_http import http_client

AGENTS = 8
EDITS_PER_AGENT = 6


@pytest.mark.parametrize("diagrams", [4, 1], ids=["two-agents-per-diagram", "all-on-one"])
async def test_eight_agents_editing_shared_diagrams_lose_nothing(
    tmp_path: Path, diagrams: int
) -> None:
    granted: dict[str, list[int]] = defaultdict(list)
    replies: dict[str, list[dict[str, Any]]] = defaultdict(list)
    conflicts = 0
    ready: list[int] = []
    everyone_has_a_base = trio.Event()
    async with http_session(tmp_path / "proj") as (url, _):
        async with http_client(url, "setup") as setup_client:
            setup = Agent(setup_client)
            for d in range(diagrams):
                await setup.ok(
                    "diagram.create_from_mermaid",
                    {"mermaid": "flowchart LR\n  root[Root]\n", "diagram_id": f"d{d}"},
                )

        async def rebasing_editor(index: int) -> None:
            nonlocal conflicts
            diagram_id = f"d{index % diagrams}"
            async with http_client(url, f"agent-{index}") as client:
                agent = Agent(client)
                base = (await agent.ok("diagram.stat", {"diagram_id": diagram_id}))["rev"]
                ready.append(index)
                if len(ready) == AGENTS:
                    everyone_has_a_base.set()
                await everyone_has_a_base.wait()  # so both agents of a diagram start stale-prone
                seen: list[int] = []
                for k in range(EDITS_PER_AGENT):
                    node_id = f"n:a{index}k{k}"
                    ops = [
                        {"type": "flow_add_node", "node_id": node_id, "label": f"A{index} {k}"},
                        {
                            "type": "flow_add_edge",
                            "edge_id": f"e:a{index}k{k}",
                            "from_node_id": "n:root",
                            "to_node_id": node_id,
                        },
                    ]
                    while True:
                        try:
                            result = await client.call_tool(
                                "diagram.apply_ops",
                                {"diagram_id": diagram_id, "base_rev": base, "ops": ops},
                            )
                        except MCPError as error:
                            assert error.error.code == -32600, error.error
                            data = error.error.data
                            assert data["base_rev"] == base and data["current_rev"] > base
                            assert data["digest"]["rev"] == data["current_rev"]
                            conflicts += 1
                            base = data["current_rev"]
                            continue
                        reply = result.structured_content
                        assert reply is not None
                        break
                    assert reply["new_rev"] == base + 1
                    assert reply["delta"]["added"] == [
                        f"d:{diagram_id}/flow/edge/e:a{index}k{k}",
                        f"d:{diagram_id}/flow/node/{node_id}",
                    ]
                    seen.append(reply["new_rev"])
                    granted[diagram_id].append(reply["new_rev"])
                    replies[diagram_id].append(reply)
                    base = reply["new_rev"]
                assert seen == sorted(seen) and len(set(seen)) == len(seen)

        async with trio.open_nursery() as nursery:
            for index in range(AGENTS):
                nursery.start_soon(rebasing_editor, index)

        # Both agents of a diagram started from the same base: one of them conflicted.
        assert conflicts >= diagrams
        async with http_client(url, "checker") as checker_client:
            checker = Agent(checker_client)
            per_diagram = AGENTS // diagrams * EDITS_PER_AGENT
            for d in range(diagrams):
                diagram_id = f"d{d}"
                assert sorted(granted[diagram_id]) == list(range(1, per_diagram + 1))
                stat = await checker.ok("diagram.stat", {"diagram_id": diagram_id})
                assert stat["rev"] == per_diagram
                assert stat["counts"]["nodes"] == 1 + per_diagram
                assert stat["counts"]["edges"] == per_diagram
                ast = await checker.ok("diagram.get_ast", {"diagram_id": diagram_id})
                nodes = {n["node_id"] for n in ast["ast"]["nodes"]}
                for reply in replies[diagram_id]:
                    for ref in reply["delta"]["added"]:
                        if "/flow/node/" in ref:
                            assert ref.rpartition("/")[2] in nodes
                diff = await checker.ok("diagram.diff", {"diagram_id": diagram_id, "since_rev": 0})
                (added,) = diff["changes"]
                assert len(added["refs"]) == 2 * per_diagram


async def test_stale_base_rev_then_diff_rebase_and_apply(tmp_path: Path) -> None:
    async with http_session(tmp_path / "proj") as (url, _):
        async with http_client(url, "alice") as a, http_client(url, "bob") as b:
            alice, bob = Agent(a), Agent(b)
            await alice.ok(
                "diagram.create_from_mermaid",
                {"mermaid": "flowchart TD\n  a[A] --> b[B]\n", "diagram_id": "shared"},
            )
            known = (await bob.ok("diagram.stat", {"diagram_id": "shared"}))["rev"]
            await alice.ok(
                "diagram.apply_ops",
                {
                    "diagram_id": "shared",
                    "base_rev": known,
                    "ops": [{"type": "flow_update_node", "node_id": "n:a", "label": "Alpha"}],
                },
            )
            bob_ops = [{"type": "flow_add_node", "node_id": "n:c", "label": "C"}]
            stale = await bob.err(
                "diagram.apply_ops", {"diagram_id": "shared", "base_rev": known, "ops": bob_ops}
            )
            assert (stale.code, stale.message) == (-32600, "conflict: stale base_rev")
            current = stale.data["current_rev"]
            assert current == known + 1
            diff = await bob.ok("diagram.diff", {"diagram_id": "shared", "since_rev": known})
            assert diff == {
                "from_rev": known,
                "to_rev": current,
                "changes": [{"kind": "updated", "refs": ["d:shared/flow/node/n:a"]}],
            }
            rebased = await bob.ok(
                "diagram.apply_ops", {"diagram_id": "shared", "base_rev": current, "ops": bob_ops}
            )
            assert rebased["new_rev"] == current + 1
            ast = await alice.ok("diagram.get_ast", {"diagram_id": "shared"})
            labels = {n["node_id"]: n["label"] for n in ast["ast"]["nodes"]}
            assert labels == {"n:a": "Alpha", "n:b": "B", "n:c": "C"}
