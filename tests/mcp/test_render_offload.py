"""Renders and exports through MCP: budget refusals, and big work off the event loop.

A real session (the demo) behind a real endpoint, real SDK clients in memory: one agent
renders a 1000-node flowchart (in a worker process; the drawing is then too big to send)
while another keeps reading; the reads are answered while the render is still running,
which could not happen were it drawn on the event loop. A diagram over the budget is refused with -32602 naming the ways in.
"""

from __future__ import annotations

import trio
from session_kit import Agent, memory_client, memory_session

from nereid.mcp.offload import DIAGRAM_PARTS, SMALL_PAYLOAD
from nereid.render.budget import MAX_LAYOUT_ITEMS
from nereid.testing.big_diagrams import dense_flowchart, flowchart


async def _create(agent: Agent, diagram_id: str, mermaid: str) -> None:
    await agent.ok(
        "diagram.create_from_mermaid",
        {"mermaid": mermaid, "diagram_id": diagram_id, "make_active": False},
    )


async def test_too_large_diagram_is_refused_with_the_ways_in() -> None:
    async with memory_session(None, demo=True) as endpoint, memory_client(endpoint) as client:
        agent = Agent(client)
        await _create(agent, "dense", dense_flowchart(200, 7180))
        error = await agent.err("diagram.render_text", {"diagram_id": "dense"})
        assert error.code == -32602
        assert error.message.startswith("too large to render: ")
        assert "diagram.get_slice" in error.message
        assert error.data["diagram_id"] == "dense"
        assert error.data["measure"] == "layout items (nodes, edges, edge waypoints)"
        assert error.data["limit"] == MAX_LAYOUT_ITEMS < error.data["value"]
        assert error.data["read_in_parts"] == list(DIAGRAM_PARTS)
        # The ways in work on the same diagram.
        sliced = await agent.ok(
            "diagram.get_slice", {"center_ref": "d:dense/flow/node/n:n0", "depth": 1}
        )
        assert sliced


async def test_big_render_runs_in_a_worker_while_others_read() -> None:
    async with memory_session(None, demo=True) as endpoint:
        async with memory_client(endpoint) as first, memory_client(endpoint) as second:
            renderer, reader = Agent(first), Agent(second)
            await _create(renderer, "big", flowchart(1000))
            await _create(renderer, "mid", flowchart(300))
            small = await renderer.ok("diagram.render_text", {"diagram_id": "order-flow"})
            assert small["text"]
            # A mid-size drawing comes back from the worker whole (this also warms it).
            mid = await renderer.ok("diagram.render_text", {"diagram_id": "mid"})
            assert mid["text"].count("Node 299") == 1
            renders: list[tuple[float, float]] = []
            reads: list[tuple[float, float]] = []
            done = trio.Event()
            texts: list[str] = []

            async def render() -> None:
                # The 1000-node drawing is drawn in full, then found too big to send (1.3 MB).
                for _ in range(3):
                    started = trio.current_time()
                    error = await renderer.err("diagram.render_text", {"diagram_id": "big"})
                    renders.append((started, trio.current_time()))
                    texts.append(error.message.split(":")[0])
                done.set()

            async def read() -> None:
                while not done.is_set():
                    started = trio.current_time()
                    await reader.ok("diagram.stat", {"diagram_id": "order-flow"})
                    reads.append((started, trio.current_time()))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(render)
                nursery.start_soon(read)
            assert texts == ["result too large"] * 3
            # Reads start and finish while one render call is in flight. Drawn on the event
            # loop (measured: about one per render), none could; in a worker, many do.
            inside = [sum(1 for a, b in reads if start <= a and b <= end) for start, end in renders]
            assert max(inside) >= 5, inside
            read = await renderer.ok("diagram.read", {"diagram_id": "big"})
            assert len(read["mermaid"].encode()) > SMALL_PAYLOAD
            assert "n999" in read["mermaid"]
