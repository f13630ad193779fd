"""Groups F, G, H (object.read, seq.*, flow.*) through the MCP client SDK on the real actors.

Demo diagrams used: `index` (active flowchart), `fulfilment` (two cycles), `payment-seq`,
`checkout-seq`, and the hand-made `g` (x ⇄ y, z → z, x → w).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import msgspec
import pytest
import trio

from nereid.actors.protocol import CreateDiagramFromMermaid
from nereid.mcp.tools_queries import TOOLS
from nereid.query import MAX_PATTERN_LENGTH, SEARCH_TIME_LIMIT
from tests.mcp.mcp_testkit import memory_client
from tests.mcp.tools_testkit import demo_endpoint, error_of, structured


def node(diagram: str, node_id: str) -> str:
    return f"d:{diagram}/flow/node/{node_id}"


def message(diagram: str, message_id: str) -> str:
    return f"d:{diagram}/seq/message/{message_id}"


def pay(message_id: str) -> str:
    return message("payment-seq", message_id)


# -- F: object.read ----------------------------------------------------------------------


async def test_object_read_returns_each_object_in_input_order_with_context() -> None:
    refs = [
        "d:checkout-seq/seq/message/m:0004",
        "d:checkout-seq/seq/block/b:0001",
        "d:checkout-seq/seq/section/sec:0001:01",
        "d:checkout-seq/seq/participant/p:web",
        "d:g/flow/edge/e:0003",
        node("g", "n:x"),
        node("g", "n:x"),
    ]
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        result = await structured(client, "object.read", {"object_refs": refs})
        assert [entry["object_ref"] for entry in result["objects"]] == refs
        objects = [entry["object"] for entry in result["objects"]]
        assert objects[0] == {
            "type": "seq_message",
            "from_participant_id": "p:inventory",
            "to_participant_id": "p:orders",
            "kind": "return",
            "arrow": None,
            "text": "reserved",
            "order_key": 4000,
            "display": "reserved",
            "from_central": False,
            "to_central": False,
            "wrap": None,
        }
        assert objects[1]["type"] == "seq_block" and objects[1]["kind"] == "alt"
        assert objects[1]["section_ids"] == ["sec:0001:00", "sec:0001:01"]
        assert objects[2]["type"] == "seq_section" and objects[2]["kind"] == "else"
        assert objects[3]["type"] == "seq_participant"
        assert objects[4]["type"] == "flow_edge"
        assert (objects[4]["from_node_id"], objects[4]["to_node_id"]) == ("n:z", "n:z")
        assert objects[5] == objects[6]
        assert objects[5]["type"] == "flow_node" and objects[5]["label"] == "X"
        assert result["context"] == {"session_active_diagram_id": "index"}
        single = await structured(client, "object.read", {"object_ref": node("index", "n:pay")})
        assert [entry["object"]["label"] for entry in single["objects"]] == ["Payment and retries"]


@pytest.mark.parametrize(
    ("arguments", "code", "message", "data"),
    [
        (
            {"object_ref": "d:g/flow/node/n:x", "object_refs": ["d:g/flow/node/n:x"]},
            -32602,
            "provide either object_ref or object_refs, not both",
            None,
        ),
        ({}, -32602, "object_ref or object_refs is required", None),
        ({"object_ref": None, "object_refs": []}, -32602, "object_refs must not be empty", None),
        (
            {"object_refs": ["d:g/flow/node/n:x", "d:g/flow//n:x", "d:zz/flow/node/a"]},
            -32602,
            "invalid object_ref: invalid category path: "
            "category path must not contain empty segments",
            {"object_ref": "d:g/flow//n:x"},
        ),
        (
            {"object_refs": ["d:zz/flow/node/a", "bad"]},
            -32002,
            "diagram not found",
            {"diagram_id": "zz", "object_ref": "d:zz/flow/node/a"},
        ),
        (
            {"object_ref": "d:g/seq/message/m:1"},
            -32602,
            "unsupported category for diagram kind",
            {
                "object_ref": "d:g/seq/message/m:1",
                "diagram_kind": "Flowchart",
                "category": ["seq", "message"],
            },
        ),
        (
            {"object_ref": "d:payment-seq/seq/block/b:0000"},
            -32002,
            "seq block not found",
            {"object_ref": "d:payment-seq/seq/block/b:0000"},
        ),
        (
            {"object_ref": "d:g/flow/edge/e:9"},
            -32002,
            "flow edge not found",
            {"object_ref": "d:g/flow/edge/e:9"},
        ),
    ],
)
async def test_object_read_refusals(
    arguments: dict[str, Any], code: int, message: str, data: dict[str, Any] | None
) -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        error = await error_of(client, "object.read", arguments)
        assert (error.code, error.message, error.data) == (code, message, data)


# -- G: seq.* ----------------------------------------------------------------------------


async def test_seq_messages_and_trace() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        from_psp = await structured(
            client, "seq.messages", {"diagram_id": "payment-seq", "from_participant_id": "p:psp"}
        )
        assert from_psp == {
            "messages": [pay("m:0005"), pay("m:0007"), pay("m:0009"), pay("m:0011")]
        }
        both = await structured(
            client,
            "seq.messages",
            {
                "diagram_id": "payment-seq",
                "from_participant_id": "p:payments",
                "to_participant_id": "p:orders",
            },
        )
        assert both == {"messages": [pay("m:0012"), pay("m:0013")]}
        assert await structured(
            client, "seq.messages", {"diagram_id": "payment-seq", "to_participant_id": "p:ghost"}
        ) == {"messages": []}
        everything = await structured(client, "seq.messages", {"diagram_id": "refund-seq"})
        assert len(everything["messages"]) == 8

        def trace(**arguments: Any) -> Any:
            return structured(client, "seq.trace", {"diagram_id": "payment-seq", **arguments})

        assert await trace(from_message_id="m:charge", limit=2) == {
            "messages": [pay("m:0007"), pay("m:0008")]
        }
        assert await trace(from_message_id="m:charge", direction="before", limit=2) == {
            "messages": [pay("m:0004"), pay("m:0005")]
        }
        assert await trace(limit=2) == {"messages": [pay("m:authorize-request"), pay("m:0002")]}
        assert await trace(direction="before", limit=1) == {"messages": [pay("m:0013")]}
        assert await trace(from_message_id="m:charge", limit=0) == {"messages": []}
        assert len((await trace())["messages"]) == 13


async def test_seq_refusals() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        # The active diagram (`index`) is a flowchart.
        kind = await error_of(client, "seq.messages")
        assert (kind.code, kind.message, kind.data) == (
            -32602,
            "diagram is not a sequence diagram",
            {"diagram_id": "index", "diagram_kind": "Flowchart"},
        )
        participant = await error_of(
            client, "seq.messages", {"diagram_id": "payment-seq", "from_participant_id": ""}
        )
        assert (participant.message, participant.data) == (
            "invalid from_participant_id: id must not be empty",
            {"from_participant_id": ""},
        )
        direction = await error_of(
            client, "seq.trace", {"diagram_id": "nope", "direction": "", "from_message_id": "a/b"}
        )
        assert (direction.code, direction.message, direction.data) == (
            -32602,
            "invalid direction (expected before|after)",
            {"direction": ""},
        )
        anchor_id = await error_of(
            client, "seq.trace", {"diagram_id": "nope", "from_message_id": "a/b"}
        )
        assert (anchor_id.message, anchor_id.data) == (
            "invalid object id: id must not contain '/'",
            {"object_id": "a/b"},
        )
        missing = await error_of(client, "seq.trace", {"diagram_id": "nope"})
        assert (missing.code, missing.message, missing.data) == (
            -32002,
            "diagram not found",
            {"diagram_id": "nope"},
        )
        anchor = await error_of(
            client, "seq.trace", {"diagram_id": "payment-seq", "from_message_id": "m:9", "limit": 0}
        )
        assert (anchor.code, anchor.message, anchor.data) == (
            -32002,
            "seq message not found",
            {"diagram_id": "payment-seq", "from_message_id": "m:9"},
        )
        bad_id = await error_of(client, "seq.trace", {"diagram_id": "a/b"})
        assert (bad_id.code, bad_id.message, bad_id.data) == (
            -32602,
            "invalid diagram_id: id must not contain '/'",
            {"diagram_id": "a/b"},
        )


async def test_seq_search_substring_and_regex() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:

        def search(**arguments: Any) -> Any:
            return structured(client, "seq.search", {"diagram_id": "payment-seq", **arguments})

        assert await search(needle="CHARGE") == {
            "messages": [pay("m:charge"), pay("m:0008"), pay("m:retry-charge")]
        }
        assert await search(needle="CHARGE", case_insensitive=False) == {"messages": []}
        assert await search(needle=r"^(charge|status)\(", mode="regex") == {
            "messages": [pay("m:charge"), pay("m:0008"), pay("m:retry-charge")]
        }
        assert await search(needle="^Risk", mode="regex", case_insensitive=False) == {
            "messages": []
        }
        assert await search(needle=r"\d{3}", mode="regex") == {"messages": []}


@pytest.mark.parametrize(
    ("arguments", "message", "data"),
    [
        ({"needle": "", "mode": "bogus"}, "needle must not be empty", {"needle": ""}),
        (
            {"needle": "a", "mode": ""},
            "invalid mode (expected substring|regex)",
            {"mode": ""},
        ),
        (
            {"needle": "(unclosed", "mode": "regex"},
            "invalid regex: missing ) at position 9",
            {"needle": "(unclosed", "mode": "regex", "case_insensitive": True},
        ),
        (
            {"needle": "a" * (MAX_PATTERN_LENGTH + 1), "mode": "regex"},
            "needle too long",
            {"needle_length": MAX_PATTERN_LENGTH + 1, "max_length": MAX_PATTERN_LENGTH},
        ),
    ],
)
async def test_seq_search_refusals(
    arguments: dict[str, Any], message: str, data: dict[str, Any]
) -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        error = await error_of(client, "seq.search", {"diagram_id": "payment-seq", **arguments})
        assert (error.code, error.message, error.data) == (-32602, message, data)


async def test_seq_search_stops_a_runaway_regex_and_stays_responsive() -> None:
    """`a{150000}b` on a 300 KB message (74 s under `re`) is stopped by the time limit, and
    other calls are answered while it runs (matching releases the GIL in its thread)."""
    long_message = "a" * 300_000
    mermaid = f"sequenceDiagram\n  A->>B: {long_message}\n"
    async with demo_endpoint() as (handle, endpoint), memory_client(endpoint) as client:
        await handle.session.call(
            CreateDiagramFromMermaid(
                mermaid=mermaid, diagram_id="long", name="Long", make_active=False
            )
        )
        stats: list[float] = []

        async def search() -> None:
            error = await error_of(
                client,
                "seq.search",
                {"diagram_id": "long", "needle": "a{150000}b", "mode": "regex"},
            )
            assert error.code == -32602
            assert error.message.startswith("regex too expensive: matching took longer than")
            assert error.data["time_limit_s"] == SEARCH_TIME_LIMIT

        async def reads() -> None:
            await trio.sleep(0.1)
            for _ in range(5):
                started = trio.current_time()
                await client.call_tool("seq.trace", {"diagram_id": "payment-seq"})
                stats.append(trio.current_time() - started)

        started = trio.current_time()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(search)
            nursery.start_soon(reads)
        assert trio.current_time() - started < SEARCH_TIME_LIMIT + 5
        # Reads finished while the search was running, not after it.
        assert len(stats) == 5 and max(stats) < SEARCH_TIME_LIMIT / 2


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
async def test_seq_search_time_limit_is_wall_clock_time_on_a_starved_cpu() -> None:
    """The engine's own limit counts CPU time: with this process sharing one CPU with three
    busy processes, a 1 s search used to run for about 4 s. The limit is wall time: the
    refusal comes within the limit plus a margin for the starved event loop."""
    long_message = "a" * 300_000
    mermaid = f"sequenceDiagram\n  A->>B: {long_message}\n"
    cpu = min(os.sched_getaffinity(0))
    before = os.sched_getaffinity(0)
    busy = [
        await trio.lowlevel.open_process(
            [sys.executable, "-c", "while True: pass"],
            preexec_fn=lambda: os.sched_setaffinity(0, {cpu}),
        )
        for _ in range(3)
    ]
    try:
        async with demo_endpoint() as (handle, endpoint), memory_client(endpoint) as client:
            await handle.session.call(
                CreateDiagramFromMermaid(mermaid=mermaid, diagram_id="long", make_active=False)
            )
            os.sched_setaffinity(0, {cpu})
            started = time.monotonic()
            error = await error_of(
                client,
                "seq.search",
                {"diagram_id": "long", "needle": "a{150000}b", "mode": "regex"},
            )
            elapsed = time.monotonic() - started
            os.sched_setaffinity(0, before)
        assert error.code == -32602 and error.message.startswith("regex too expensive")
        assert elapsed < SEARCH_TIME_LIMIT + 1.5, elapsed
    finally:
        os.sched_setaffinity(0, before)
        for process in busy:
            process.kill()
            await process.wait()


# -- H: flow.* ---------------------------------------------------------------------------


async def test_flow_cycles_finds_a_cycle_and_a_self_loop() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        assert await structured(client, "flow.cycles", {"diagram_id": "g"}) == {
            "cycles": [[node("g", "n:x"), node("g", "n:y")], [node("g", "n:z")]]
        }
        assert await structured(client, "flow.cycles", {"diagram_id": "fulfilment"}) == {
            "cycles": [
                [node("fulfilment", "n:pack"), node("fulfilment", "n:qa")],
                [node("fulfilment", "n:pick"), node("fulfilment", "n:restock")],
            ]
        }
        assert await structured(client, "flow.cycles") == {"cycles": []}  # index, acyclic


async def test_flow_reachable_paths_dead_ends() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        out = await structured(client, "flow.reachable", {"from_node_id": "n:ship"})
        assert out == {"nodes": [node("index", "n:refund"), node("index", "n:ship")]}
        backward = await structured(
            client, "flow.reachable", {"from_node_id": "n:browse", "direction": "in"}
        )
        assert backward == {"nodes": [node("index", "n:browse"), node("index", "n:shop")]}
        union = await structured(
            client, "flow.reachable", {"from_node_id": "n:order", "direction": "both"}
        )
        assert len(union["nodes"]) == 7
        paths = await structured(
            client,
            "flow.paths",
            {"diagram_id": "g", "from_node_id": "n:y", "to_node_id": "n:w"},
        )
        assert paths == {"paths": [[node("g", "n:y"), node("g", "n:x"), node("g", "n:w")]]}
        assert await structured(
            client, "flow.paths", {"diagram_id": "g", "from_node_id": "n:w", "to_node_id": "n:x"}
        ) == {"paths": []}
        assert await structured(client, "flow.dead_ends", {"diagram_id": "g"}) == {
            "nodes": [node("g", "n:w")]
        }


async def test_flow_degrees_and_unreachable() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:
        top = await structured(
            client, "flow.degrees", {"diagram_id": "g", "top": 2, "sort_by": "total"}
        )
        assert top == {
            "nodes": [
                {"node_ref": node("g", "n:x"), "label": "X", "in_degree": 1, "out_degree": 2},
                {"node_ref": node("g", "n:y"), "label": "Y", "in_degree": 1, "out_degree": 1},
            ]
        }
        # top 0 answers before sort_by is checked (the contract's order).
        assert await structured(client, "flow.degrees", {"top": 0, "sort_by": "x"}) == {"nodes": []}
        assert await structured(client, "flow.unreachable", {"diagram_id": "g"}) == {"nodes": []}
        unreachable = await structured(client, "flow.unreachable", {"start_node_id": "n:order"})
        assert unreachable == {"nodes": [node("index", "n:browse"), node("index", "n:shop")]}


async def test_flow_refusals() -> None:
    async with demo_endpoint() as (_, endpoint), memory_client(endpoint) as client:

        async def refused(name: str, arguments: dict[str, Any]) -> tuple[int, str, Any]:
            error = await error_of(client, name, arguments)
            return (error.code, error.message, error.data)

        assert await refused("flow.dead_ends", {"diagram_id": "payment-seq"}) == (
            -32602,
            "diagram is not a flowchart",
            {"diagram_id": "payment-seq", "diagram_kind": "Sequence"},
        )
        assert await refused("flow.cycles", {"diagram_id": ""}) == (
            -32602,
            "invalid diagram_id: id must not be empty",
            {"diagram_id": ""},
        )
        assert await refused("flow.reachable", {"from_node_id": "", "direction": "up"}) == (
            -32602,
            "invalid direction (expected out|in|both)",
            {"direction": "up"},
        )
        assert await refused("flow.reachable", {"from_node_id": ""}) == (
            -32602,
            "invalid from_node_id: id must not be empty",
            {"from_node_id": ""},
        )
        assert await refused("flow.paths", {"from_node_id": "n:x", "to_node_id": "n:ship"}) == (
            -32002,
            "from node not found",
            {"diagram_id": "index", "from_node_id": "n:x"},
        )
        assert await refused("flow.paths", {"from_node_id": "n:ship", "to_node_id": "n:x"}) == (
            -32002,
            "to node not found",
            {"diagram_id": "index", "to_node_id": "n:x"},
        )
        assert await refused("flow.degrees", {"sort_by": "fan"}) == (
            -32602,
            "invalid sort_by (expected out|in|total)",
            {"sort_by": "fan"},
        )
        # queries.md D2: an unknown node is -32002 in every flow tool.
        assert await refused("flow.reachable", {"from_node_id": "n:x"}) == (
            -32002,
            "from node not found",
            {"diagram_id": "index", "from_node_id": "n:x"},
        )
        assert await refused("flow.unreachable", {"start_node_id": "n:x"}) == (
            -32002,
            "start node not found",
            {"diagram_id": "index", "start_node_id": "n:x"},
        )
        assert await refused("flow.degrees", {"diagram_id": "gone"}) == (
            -32002,
            "diagram not found",
            {"diagram_id": "gone"},
        )
        code, message, data = await refused("flow.paths", {"from_node_id": "n:x"})
        assert (code, data) == (-32602, None)
        assert message.startswith("failed to deserialize parameters: ")
        assert "to_node_id" in message


async def test_queries_without_an_active_diagram_need_a_diagram_id() -> None:
    async with demo_endpoint(no_active=True) as (_, endpoint), memory_client(endpoint) as client:
        for name in ("flow.cycles", "seq.messages"):
            error = await error_of(client, name)
            assert (error.code, error.message, error.data) == (
                -32602,
                "diagram_id is required (no active diagram)",
                None,
            )
        assert await structured(client, "flow.cycles", {"diagram_id": "g"}) != {"cycles": []}


def test_query_tool_params_are_the_query_keyword_parameters() -> None:
    """One definition: a query tool's params are its query's keyword-only parameters (names,
    defaults and order), without the internal ones (budgets, the injected regex matcher)."""
    tools = {tool.name: tool for tool in TOOLS}
    paths = msgspec.structs.fields(tools["flow.paths"].params)
    assert [f.name for f in paths if f.required] == ["from_node_id", "to_node_id"]
    optional = {f.name: f.default for f in paths if not f.required}
    assert optional == {"limit": 10, "max_extra_hops": 0, "diagram_id": None}
    search = [f.name for f in msgspec.structs.fields(tools["seq.search"].params)]
    assert search == ["needle", "mode", "case_insensitive", "diagram_id"]
    assert (tools["seq.trace"].params.__doc__ or "").startswith("The parameters of `seq.trace`")
