"""Groups C, E-H over the real transports: `python -m nereid --mcp --demo` (stdio) and
Streamable HTTP, with the full tool catalog on the demo session.

`SCRIPT` is one session's worth of calls, each with its exact expected result or JSON-RPC
error (every tool succeeds at least once and fails in each way it can); both transports
run it from a fresh demo and must give the same answers. Then two agents over HTTP: each
has its own spotlight, `attention.agents.read` shows both, and an ended session's goes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp import Client

from tests.mcp.session_kit import http_session, stdio_client
from tests.mcp.test_mcp_http import http_client
from tests.mcp.tools_testkit import CYCLES_MERMAID, error_of, structured

CONTEXT = {"session_active_diagram_id": "index"}
PAY = "d:index/flow/node/n:pay"
SHIP = "d:index/flow/node/n:ship"
PSP = "d:payment-seq/seq/participant/p:psp"
MISSING = "d:index/flow/node/n:nope"
LOOP = "d:g/flow/node/n:z"


def node(diagram: str, node_id: str) -> str:
    return f"d:{diagram}/flow/node/{node_id}"


def pay(message_id: str) -> str:
    return f"d:payment-seq/seq/message/{message_id}"


@dataclass(frozen=True)
class Err:
    """An expected JSON-RPC error; `message` None: a decoding failure (prefix only)."""

    code: int
    message: str | None
    data: Any = None


class Anything:
    """Any successful result (for the setup calls of other tool groups)."""


DESERIALIZE = Err(-32602, None)

SCRIPT: list[tuple[str, dict[str, Any], Any]] = [
    # setup: a flowchart with a cycle and a self-loop
    (
        "diagram.create_from_mermaid",
        {"mermaid": CYCLES_MERMAID, "diagram_id": "g", "make_active": False},
        Anything(),
    ),
    # C: attention, follow-AI, selection, view
    (
        "attention.human.read",
        {},
        {"object_ref": None, "diagram_id": None, "context": CONTEXT},
    ),
    ("attention.agent.set", {"object_ref": PAY}, {"object_ref": PAY, "diagram_id": "index"}),
    (
        "attention.agent.set",
        {"object_ref": "n:pay"},
        Err(-32602, "invalid object_ref: object ref must start with 'd:'", {"object_ref": "n:pay"}),
    ),
    (
        "attention.agent.set",
        {"object_ref": MISSING},
        Err(-32002, "object not found", {"object_ref": MISSING}),
    ),
    ("attention.agent.set", {}, DESERIALIZE),
    (
        "attention.agent.read",
        {},
        {"object_ref": PAY, "diagram_id": "index", "context": CONTEXT},
    ),
    (
        "attention.agents.read",
        {},
        {
            "caller_agent_id": "agent:1",
            "spotlights": [
                {
                    "agent_id": "agent:1",
                    "agent_name": "script-agent",
                    "object_ref": PAY,
                    "diagram_id": "index",
                    "seq": 1,
                    "idle": False,
                }
            ],
            "context": CONTEXT,
        },
    ),
    ("attention.agent.clear", {}, {"cleared": 1}),
    ("attention.agent.clear", {"ignored": True}, {"cleared": 0}),
    ("follow_ai.set", {"enabled": False}, {"enabled": False}),
    ("follow_ai.set", {"enabled": "no"}, DESERIALIZE),
    ("follow_ai.read", {}, {"enabled": True, "context": CONTEXT}),
    (
        "selection.update",
        {"object_refs": [SHIP, MISSING, PAY], "mode": "add"},
        {"applied": [PAY, SHIP], "ignored": [MISSING]},
    ),
    ("selection.update", {"object_refs": [SHIP], "mode": "toggle"}, DESERIALIZE),
    (
        "selection.update",
        {"object_refs": ["d:index/flow"]},
        Err(
            -32602,
            "invalid object_ref: object ref is missing object id",
            {"object_ref": "d:index/flow"},
        ),
    ),
    ("selection.read", {}, {"object_refs": [PAY, SHIP], "context": CONTEXT}),
    (
        "view.read_state",
        {},
        {
            "active_diagram_id": "index",
            "scroll": {"x": 0.0, "y": 0.0},
            "panes": {},
            "tui": None,
            "context": CONTEXT,
        },
    ),
    # F: object.read
    (
        "object.read",
        {"object_ref": PAY},
        {
            "objects": [
                {
                    "object_ref": PAY,
                    "object": {
                        "type": "flow_node",
                        "label": "Payment and retries",
                        "shape": "rect",
                        "mermaid_id": "pay",
                        "display": "Payment and retries",
                    },
                }
            ],
            "context": CONTEXT,
        },
    ),
    ("object.read", {}, Err(-32602, "object_ref or object_refs is required")),
    (
        "object.read",
        {"object_refs": [MISSING]},
        Err(-32002, "flow node not found", {"object_ref": MISSING}),
    ),
    # H: flow.*
    (
        "flow.cycles",
        {"diagram_id": "g"},
        {"cycles": [[node("g", "n:x"), node("g", "n:y")], [node("g", "n:z")]]},
    ),
    (
        "flow.cycles",
        {"diagram_id": "fulfilment"},
        {
            "cycles": [
                [node("fulfilment", "n:pack"), node("fulfilment", "n:qa")],
                [node("fulfilment", "n:pick"), node("fulfilment", "n:restock")],
            ]
        },
    ),
    (
        "flow.cycles",
        {"diagram_id": "nope"},
        Err(-32002, "diagram not found", {"diagram_id": "nope"}),
    ),
    (
        "flow.reachable",
        {"from_node_id": "n:ship"},
        {"nodes": [node("index", "n:refund"), node("index", "n:ship")]},
    ),
    (
        "flow.reachable",
        {"from_node_id": "n:ship", "direction": "sideways"},
        Err(-32602, "invalid direction (expected out|in|both)", {"direction": "sideways"}),
    ),
    (
        "flow.reachable",
        {"from_node_id": "n:gone"},
        Err(-32002, "from node not found", {"diagram_id": "index", "from_node_id": "n:gone"}),
    ),
    (
        "flow.unreachable",
        {"start_node_id": "n:order"},
        {"nodes": [node("index", "n:browse"), node("index", "n:shop")]},
    ),
    (
        "flow.unreachable",
        {"start_node_id": "a/b"},
        Err(-32602, "invalid start_node_id: id must not contain '/'", {"start_node_id": "a/b"}),
    ),
    (
        "flow.paths",
        {"diagram_id": "g", "from_node_id": "n:y", "to_node_id": "n:w"},
        {"paths": [[node("g", "n:y"), node("g", "n:x"), node("g", "n:w")]]},
    ),
    ("flow.paths", {"from_node_id": "n:shop"}, DESERIALIZE),
    (
        "flow.dead_ends",
        {},
        {"nodes": [node("index", "n:checkout"), node("index", "n:pay"), node("index", "n:refund")]},
    ),
    (
        "flow.dead_ends",
        {"diagram_id": "payment-seq"},
        Err(
            -32602,
            "diagram is not a flowchart",
            {"diagram_id": "payment-seq", "diagram_kind": "Sequence"},
        ),
    ),
    (
        "flow.degrees",
        {"top": 1, "sort_by": "total"},
        {
            "nodes": [
                {
                    "node_ref": node("index", "n:order"),
                    "label": "Order life cycle",
                    "in_degree": 1,
                    "out_degree": 3,
                }
            ]
        },
    ),
    (
        "flow.degrees",
        {"sort_by": "fan"},
        Err(-32602, "invalid sort_by (expected out|in|total)", {"sort_by": "fan"}),
    ),
    ("flow.degrees", {"top": -1}, DESERIALIZE),
    # G: seq.*
    (
        "seq.messages",
        {"diagram_id": "payment-seq", "from_participant_id": "p:psp"},
        {"messages": [pay("m:0005"), pay("m:0007"), pay("m:0009"), pay("m:0011")]},
    ),
    (
        "seq.messages",
        {},
        Err(
            -32602,
            "diagram is not a sequence diagram",
            {"diagram_id": "index", "diagram_kind": "Flowchart"},
        ),
    ),
    (
        "seq.trace",
        {
            "diagram_id": "payment-seq",
            "from_message_id": "m:charge",
            "direction": "before",
            "limit": 2,
        },
        {"messages": [pay("m:0004"), pay("m:0005")]},
    ),
    (
        "seq.trace",
        {"diagram_id": "payment-seq", "from_message_id": "m:zz"},
        Err(
            -32002,
            "seq message not found",
            {"diagram_id": "payment-seq", "from_message_id": "m:zz"},
        ),
    ),
    (
        "seq.search",
        {"diagram_id": "payment-seq", "needle": r"^charge\(", "mode": "regex"},
        {"messages": [pay("m:charge"), pay("m:retry-charge")]},
    ),
    (
        "seq.search",
        {"diagram_id": "payment-seq", "needle": "(x+x+", "mode": "regex"},
        Err(
            -32602,
            "invalid regex: missing ) at position 5",
            {"needle": "(x+x+", "mode": "regex", "case_insensitive": True},
        ),
    ),
    ("seq.search", {"diagram_id": "payment-seq"}, DESERIALIZE),
    # E: route.find, xref.*
    (
        "route.find",
        {"from_ref": PAY, "to_ref": PSP},
        {
            "routes": [
                [
                    PAY,
                    node("payment-retry", "n:start"),
                    node("payment-retry", "n:attempt"),
                    pay("m:charge"),
                    PSP,
                ]
            ]
        },
    ),
    (
        "route.find",
        {"from_ref": PAY, "to_ref": PSP, "ordering": "random"},
        Err(
            -32602, "invalid ordering (expected fewest_hops|lexicographic)", {"ordering": "random"}
        ),
    ),
    (
        "xref.list",
        {"dangling_only": True},
        {
            "xrefs": [
                {
                    "xref_id": "x:giftwrap",
                    "from": "d:order-flow/flow/node/n:giftwrap",
                    "to": "d:fulfilment/flow/node/n:pack",
                    "kind": "relates_to",
                    "label": "gift wrapping (planned, not drawn yet)",
                    "status": "dangling_from",
                }
            ]
        },
    ),
    (
        "xref.list",
        {"status": "dangling"},
        Err(
            -32602,
            "invalid status (expected ok|dangling_from|dangling_to|dangling_both|dangling_*)",
            {"status": "dangling"},
        ),
    ),
    (
        "xref.neighbors",
        {"object_ref": PAY, "direction": "out"},
        {
            "neighbors": [
                node("payment-retry", "n:start"),
                pay("m:authorize-request"),
            ]
        },
    ),
    (
        "xref.neighbors",
        {"object_ref": "d:"},
        Err(
            -32602, "invalid object_ref: object ref is missing category path", {"object_ref": "d:"}
        ),
    ),
    (
        "xref.add",
        {"xref_id": "x:loop", "from": LOOP, "to": PSP, "kind": "implements", "label": None},
        {"xref_id": "x:loop", "status": "ok"},
    ),
    (
        "xref.add",
        {"xref_id": "x:loop", "from": LOOP, "to": PSP, "kind": "again"},
        Err(-32602, "xref_id already exists", {"xref_id": "x:loop"}),
    ),
    ("xref.add", {"xref_id": "x:2", "to": PSP, "kind": ""}, DESERIALIZE),
    # deleting `g` leaves the xref dangling
    ("diagram.delete", {"diagram_id": "g"}, Anything()),
    (
        "xref.list",
        {"involves_ref": LOOP},
        {
            "xrefs": [
                {
                    "xref_id": "x:loop",
                    "from": LOOP,
                    "to": PSP,
                    "kind": "implements",
                    "label": None,
                    "status": "dangling_from",
                }
            ]
        },
    ),
    ("xref.remove", {"xref_id": "x:loop"}, {"removed": True}),
    ("xref.remove", {"xref_id": "x:loop"}, Err(-32002, "xref not found", {"xref_id": "x:loop"})),
    (
        "xref.remove",
        {"xref_id": ""},
        Err(-32602, "invalid xref_id: id must not be empty", {"xref_id": ""}),
    ),
]

MY_TOOLS = {
    "attention.human.read", "attention.agent.read", "attention.agent.set",
    "attention.agent.clear", "attention.agents.read", "follow_ai.read", "follow_ai.set",
    "selection.read", "selection.update", "view.read_state", "route.find", "xref.list",
    "xref.neighbors", "xref.add", "xref.remove", "object.read", "seq.messages", "seq.trace",
    "seq.search", "flow.reachable", "flow.unreachable", "flow.paths", "flow.cycles",
    "flow.dead_ends", "flow.degrees",
}  # fmt: skip


def test_the_script_covers_every_tool_with_a_success_and_a_failure() -> None:
    succeeding = {name for name, _, expected in SCRIPT if not isinstance(expected, Err)}
    failing = {name for name, _, expected in SCRIPT if isinstance(expected, Err)}
    always_succeed = {"attention.agent.clear", "attention.human.read", "attention.agent.read"}
    always_succeed |= {"attention.agents.read", "follow_ai.read", "selection.read"}
    always_succeed |= {"view.read_state"}
    assert MY_TOOLS <= succeeding
    assert MY_TOOLS - always_succeed <= failing


async def run_script(client: Client) -> list[Any]:
    """Run SCRIPT, returning what each step gave (results or (code, message, data))."""
    seen: list[Any] = []
    for name, arguments, expected in SCRIPT:
        if isinstance(expected, Err):
            error = await error_of(client, name, arguments)
            if expected.message is None:
                assert error.code == -32602, (name, error)
                assert error.message.startswith("failed to deserialize parameters: "), name
                assert error.data is None
            else:
                got = (error.code, error.message, error.data)
                assert got == (expected.code, expected.message, expected.data), name
            seen.append((error.code, error.message, error.data))
        else:
            result = await structured(client, name, arguments)
            if not isinstance(expected, Anything):
                assert result == expected, name
            seen.append(result)
    return seen


async def test_every_tool_over_stdio_and_http_gives_the_same_answers() -> None:
    async with stdio_client("--mcp", "--demo", name="script-agent") as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert listed >= MY_TOOLS
        over_stdio = await run_script(client)
    async with (
        http_session(None, demo=True) as (url, _),
        http_client(url, "script-agent") as client,
    ):
        over_http = await run_script(client)
    assert over_http == over_stdio


async def test_two_http_agents_have_their_own_spotlights() -> None:
    async with http_session(None, demo=True) as (url, _):
        async with http_client(url, "alpha") as alpha:
            async with http_client(url, "beta") as beta:
                await structured(alpha, "attention.agent.set", {"object_ref": PAY})
                await structured(beta, "attention.agent.set", {"object_ref": PSP})
                mine = await structured(alpha, "attention.agent.read")
                assert (mine["object_ref"], mine["diagram_id"]) == (PAY, "index")
                theirs = await structured(beta, "attention.agent.read")
                assert (theirs["object_ref"], theirs["diagram_id"]) == (PSP, "payment-seq")
                listing = await structured(alpha, "attention.agents.read")
                assert listing["caller_agent_id"] == "agent:1"
                assert listing["spotlights"] == [
                    {
                        "agent_id": "agent:1",
                        "agent_name": "alpha",
                        "object_ref": PAY,
                        "diagram_id": "index",
                        "seq": 1,
                        "idle": False,
                    },
                    {
                        "agent_id": "agent:2",
                        "agent_name": "beta",
                        "object_ref": PSP,
                        "diagram_id": "payment-seq",
                        "seq": 2,
                        "idle": False,
                    },
                ]
                assert (await structured(beta, "attention.agents.read"))["caller_agent_id"] == (
                    "agent:2"
                )
            # beta's HTTP session ended (DELETE): its spotlight went with it.
            after = await structured(alpha, "attention.agents.read")
            assert after["spotlights"] == [
                {
                    "agent_id": "agent:1",
                    "agent_name": "alpha",
                    "object_ref": PAY,
                    "diagram_id": "index",
                    "seq": 1,
                    "idle": False,
                }
            ]
            assert await structured(alpha, "attention.agent.clear") == {"cleared": 1}
            assert (await structured(alpha, "attention.agents.read"))["spotlights"] == []
