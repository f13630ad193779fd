"""One scripted run through every diagram and walkthrough tool on a fresh seeded session:
each tool's success shape and each of its error classes (code, message, data).

Run over stdio and over HTTP by the transport tests, so both paths are held to the same
contract. The session starts as a seed (`flow` with `n:hello`, active `flow`).
"""

from __future__ import annotations

from typing import Any

from tests.mcp.session_kit import Agent

AUTH = """flowchart TD
  start[Start] --> check{Check token}
  check -->|valid| ok(Allow)
  check -->|invalid| deny[Deny]
"""
LOGIN = """sequenceDiagram
  participant client as Client
  participant api as Api
  participant db as Db
  client->>api: POST /login
  api->>db: select user
  alt user exists
    db-->>api: row
  else no
    db-->>api: nothing
  end
  api-->>client: 200 token
"""
LOOP = "flowchart TD\nA --> B\nB --> A\nC --> C\n"
INVALID_PARAMS, INVALID_REQUEST, NOT_FOUND = -32602, -32600, -32002


def saved(result: dict[str, Any]) -> dict[str, Any]:
    """`result` without the additive save fields, once they are checked: the folder is
    never ahead of memory and never failing here (absent in memory-only mode)."""
    result = dict(result)
    if "diagrams" in result:
        result["diagrams"] = [saved(d) for d in result["diagrams"]]
        return result
    assert "save_error" not in result, result
    saved_rev = result.pop("saved_rev", None)
    rev = result["rev"] if "rev" in result else result["digest"]["rev"]
    assert saved_rev is None or saved_rev <= rev
    return result


async def lifecycle(agent: Agent) -> None:
    """Group A on the seed session, leaving `auth` (flowchart), `seq` (sequence) and
    `flow` (the seed) with `auth` active."""
    listed = saved(await agent.ok("diagram.list"))
    assert listed == {
        "diagrams": [{"diagram_id": "flow", "kind": "Flowchart", "name": "Flow", "rev": 0}],
        "context": {"session_active_diagram_id": "flow"},
    }
    created = await agent.ok(
        "diagram.create_from_mermaid",
        {"mermaid": AUTH, "diagram_id": "auth", "name": "Auth flow", "make_active": False},
    )
    assert created == {
        "diagram": {"diagram_id": "auth", "kind": "Flowchart", "name": "Auth flow", "rev": 0},
        "active_diagram_id": "flow",
    }
    created = await agent.ok("diagram.create_from_mermaid", {"mermaid": LOGIN})
    assert created == {
        "diagram": {"diagram_id": "seq", "kind": "Sequence", "name": "seq", "rev": 0},
        "active_diagram_id": "seq",
    }
    second = await agent.ok("diagram.create_from_mermaid", {"mermaid": AUTH, "name": None})
    assert second["diagram"]["diagram_id"] == "flow-2"
    # Decision 2: cycles and self-loops are accepted and drawn.
    loop = await agent.ok("diagram.create_from_mermaid", {"mermaid": LOOP, "diagram_id": "loop"})
    assert loop["diagram"]["rev"] == 0
    drawn = await agent.ok("diagram.render_text", {"diagram_id": "loop"})
    assert "A" in drawn["text"] and "B" in drawn["text"]

    error = await agent.err("diagram.create_from_mermaid", {"mermaid": "pie\n  title x\n"})
    assert (error.code, error.message) == (
        INVALID_PARAMS,
        "expected 'flowchart'/'graph', 'sequenceDiagram' or 'stateDiagram' as the first "
        "non-empty line",
    )
    error = await agent.err("diagram.create_from_mermaid", {"mermaid": "flowchart TD\n  A -->\n"})
    assert error.code == INVALID_PARAMS
    assert error.message.startswith("cannot parse Mermaid flowchart diagram: ")
    assert error.data["line"] == 2
    error = await agent.err("diagram.create_from_mermaid", {"mermaid": AUTH, "diagram_id": "auth"})
    assert (error.code, error.message, error.data) == (
        INVALID_PARAMS,
        "diagram_id already exists",
        {"diagram_id": "auth"},
    )
    error = await agent.err("diagram.create_from_mermaid", {"mermaid": AUTH, "diagram_id": "a/b"})
    assert (error.code, error.message, error.data) == (
        INVALID_PARAMS,
        "invalid diagram_id: id must not contain '/'",
        {"diagram_id": "a/b"},
    )
    error = await agent.err("diagram.create_from_mermaid", {"diagram_id": "x"})
    assert error.code == INVALID_PARAMS
    assert error.message.startswith("failed to deserialize parameters: ")

    assert await agent.ok("diagram.open", {"diagram_id": "loop"}) == {"active_diagram_id": "loop"}
    current = await agent.ok("diagram.current")
    assert current == {
        "active_diagram_id": "loop",
        "context": {"session_active_diagram_id": "loop"},
    }
    deleted = await agent.ok("diagram.delete", {"diagram_id": "loop"})
    assert deleted == {"deleted_diagram_id": "loop", "active_diagram_id": "auth"}
    deleted = await agent.ok("diagram.delete", {"diagram_id": "flow-2"})
    assert deleted == {"deleted_diagram_id": "flow-2", "active_diagram_id": "auth"}
    for tool in ("diagram.open", "diagram.delete"):
        error = await agent.err(tool, {"diagram_id": "loop"})
        assert (error.code, error.message, error.data) == (
            NOT_FOUND,
            "diagram not found",
            {"diagram_id": "loop"},
        )
        error = await agent.err(tool, {"diagram_id": ""})
        assert (error.code, error.message, error.data) == (
            INVALID_PARAMS,
            "invalid diagram_id: id must not be empty",
            {"diagram_id": ""},
        )
    listed = await agent.ok("diagram.list")
    assert [d["diagram_id"] for d in listed["diagrams"]] == ["auth", "flow", "seq"]
    assert listed["context"] == {"session_active_diagram_id": "auth"}


async def reads(agent: Agent) -> None:
    """Group I on `auth` (active) and `seq`."""
    stat = saved(await agent.ok("diagram.stat"))
    assert stat == {
        "rev": 0,
        "counts": {"participants": 0, "messages": 0, "nodes": 4, "edges": 3},
        "key_names": ["Check token", "Deny", "Allow", "Start"],
        "context": {"session_active_diagram_id": "auth"},
    }
    stat = await agent.ok("diagram.stat", {"diagram_id": "seq"})
    assert stat["counts"] == {"participants": 3, "messages": 5, "nodes": 0, "edges": 0}
    assert stat["key_names"] == ["Api", "Client", "Db"]

    read = await agent.ok("diagram.read", {"diagram_id": "auth"})
    assert read["rev"] == 0 and read["kind"] == "Flowchart"
    assert read["mermaid"].startswith("flowchart TD\n")
    assert "Check token" in read["mermaid"] and "|valid|" in read["mermaid"]
    read = await agent.ok("diagram.read", {"diagram_id": "seq"})
    assert read["kind"] == "Sequence"
    assert (
        "alt user exists" in read["mermaid"] and "participant client as Client" in read["mermaid"]
    )

    ast = await agent.ok("diagram.get_ast")
    assert (ast["diagram_id"], ast["kind"], ast["rev"]) == ("auth", "Flowchart", 0)
    assert ast["ast"]["type"] == "flowchart"
    assert [n["node_id"] for n in ast["ast"]["nodes"]] == ["n:start", "n:check", "n:ok", "n:deny"]
    check = ast["ast"]["nodes"][1]
    assert {k: check[k] for k in ("label", "shape", "mermaid_id", "note")} == {
        "label": "Check token",
        "shape": "diamond",
        "mermaid_id": "check",
        "note": None,
    }
    edge = ast["ast"]["edges"][1]
    assert {k: edge[k] for k in ("edge_id", "from_node_id", "to_node_id", "label")} == {
        "edge_id": "e:0002",
        "from_node_id": "n:check",
        "to_node_id": "n:ok",
        "label": "valid",
    }
    assert edge["connector"] is None and edge["style"] is None
    assert ast["ast"]["direction"] == "TD" and ast["ast"]["subgraphs"] == []
    ast = await agent.ok("diagram.get_ast", {"diagram_id": "seq"})
    seq = ast["ast"]
    assert seq["type"] == "sequence"
    assert [p["participant_id"] for p in seq["participants"]] == ["p:client", "p:api", "p:db"]
    assert seq["participants"][0]["mermaid_name"] == "client"
    assert seq["participants"][0]["alias"] == "Client"
    assert seq["messages"][0] == {
        "message_id": "m:0001",
        "from_participant_id": "p:client",
        "to_participant_id": "p:api",
        "kind": "sync",
        "arrow": None,
        "text": "POST /login",
        "order_key": seq["messages"][0]["order_key"],
        "activation": None,
        "from_central": False,
        "to_central": False,
        "wrap": None,
    }
    (block,) = seq["blocks"]
    assert (block["kind"], block["header"]) == ("alt", "user exists")
    assert [s["kind"] for s in block["sections"]] == ["main", "else"]
    assert block["sections"][0]["message_ids"] == ["m:0003"]

    sliced = await agent.ok("diagram.get_slice", {"center_ref": "d:auth/flow/node/n:start"})
    assert sliced == {
        "objects": ["d:auth/flow/node/n:check", "d:auth/flow/node/n:start"],
        "edges": ["d:auth/flow/edge/e:0001"],
    }
    sliced = await agent.ok(
        "diagram.get_slice", {"center_ref": "d:seq/seq/message/m:0002", "radius": 0}
    )
    assert sliced == {
        "objects": ["d:seq/seq/participant/p:api", "d:seq/seq/participant/p:db"],
        "edges": ["d:seq/seq/message/m:0002"],
    }
    sliced = await agent.ok(
        "diagram.get_slice",
        {
            "center_ref": "d:auth/flow/node/n:check",
            "filters": {"include_categories": ["flow/node"]},
        },
    )
    assert sliced["edges"] == [] and len(sliced["objects"]) == 4
    error = await agent.err("diagram.get_slice", {"center_ref": "auth/n:start"})
    assert (error.code, error.message, error.data) == (
        INVALID_PARAMS,
        "invalid center_ref: object ref must start with 'd:'",
        {"center_ref": "auth/n:start"},
    )
    error = await agent.err(
        "diagram.get_slice", {"center_ref": "d:auth/flow/node/n:start", "diagram_id": "seq"}
    )
    assert (error.code, error.message, error.data) == (
        INVALID_PARAMS,
        "center_ref diagram_id does not match diagram_id",
        {"diagram_id": "seq", "center_ref_diagram_id": "auth"},
    )
    error = await agent.err("diagram.get_slice", {"center_ref": "d:auth/flow/node/n:zz"})
    assert (error.code, error.message, error.data) == (
        NOT_FOUND,
        "flow node not found",
        {"diagram_id": "auth", "node_id": "n:zz"},
    )
    error = await agent.err("diagram.get_slice", {"center_ref": "d:gone/flow/node/n:a"})
    assert (error.code, error.message) == (NOT_FOUND, "diagram not found")

    rendered = await agent.ok("diagram.render_text", {"diagram_id": "auth"})
    assert "Check token" in rendered["text"]
    assert rendered["context"] == {"session_active_diagram_id": "auth"}
    rendered = await agent.ok("diagram.render_text", {"diagram_id": "seq"})
    assert "POST /login" in rendered["text"]

    diff = await agent.ok("diagram.diff", {"since_rev": 0})
    assert diff == {"from_rev": 0, "to_rev": 0, "changes": []}
    error = await agent.err("diagram.diff", {"since_rev": 3})
    assert (error.code, error.message, error.data) == (
        INVALID_PARAMS,
        "since_rev must be <= current rev",
        {"since_rev": 3, "current_rev": 0},
    )
    error = await agent.err("diagram.diff", {"since_rev": -1})
    assert error.code == INVALID_PARAMS
    assert error.message.startswith("failed to deserialize parameters: ")

    for tool in ("diagram.stat", "diagram.read", "diagram.get_ast", "diagram.render_text"):
        error = await agent.err(tool, {"diagram_id": "nope"})
        assert (error.code, error.message, error.data) == (
            NOT_FOUND,
            "diagram not found",
            {"diagram_id": "nope"},
        ), tool
        error = await agent.err(tool, {"diagram_id": "a/b"})
        assert (error.code, error.data) == (INVALID_PARAMS, {"diagram_id": "a/b"}), tool


async def mutations(agent: Agent) -> None:
    """Group J on `auth` (rev 0)."""
    batch = [
        {"type": "flow_add_node", "node_id": "n:audit", "label": "Audit"},
        {
            "type": "flow_add_edge",
            "edge_id": "e:0004",
            "from_node_id": "n:deny",
            "to_node_id": "n:audit",
            "label": "log",
        },
    ]
    expected = {
        "new_rev": 1,
        "applied": 2,
        "delta": {
            "added": ["d:auth/flow/edge/e:0004", "d:auth/flow/node/n:audit"],
            "removed": [],
            "updated": [],
        },
    }
    proposed = await agent.ok("diagram.propose_ops", {"base_rev": 0, "ops": batch})
    assert proposed == expected
    assert (await agent.ok("diagram.stat"))["rev"] == 0  # propose changed nothing
    applied = await agent.ok(
        "diagram.apply_ops", {"diagram_id": "auth", "base_rev": 0, "ops": batch}
    )
    assert applied == expected
    empty = await agent.ok("diagram.apply_ops", {"base_rev": 1, "ops": []})
    assert empty == {
        "new_rev": 1,
        "applied": 0,
        "delta": {"added": [], "removed": [], "updated": []},
    }

    for tool in ("diagram.apply_ops", "diagram.propose_ops"):
        error = await agent.err(tool, {"base_rev": 0, "ops": batch})
        assert (error.code, error.message) == (INVALID_REQUEST, "conflict: stale base_rev"), tool
        assert error.data["base_rev"] == 0 and error.data["current_rev"] == 1
        assert error.data["snapshot_tool"] == "diagram.stat"
        assert error.data["digest"] == {
            "rev": 1,
            "counts": {"participants": 0, "messages": 0, "nodes": 5, "edges": 4},
            "key_names": ["Audit", "Check token", "Deny", "Allow", "Start"],
        }
    error = await agent.err(
        "diagram.apply_ops",
        {"base_rev": 1, "ops": [{"type": "seq_remove_message", "message_id": "m:0001"}]},
    )
    assert (error.code, error.message, error.data) == (
        INVALID_PARAMS,
        "op kind mismatch for diagram kind",
        {"diagram_kind": "Flowchart", "op_kind": "Seq"},
    )
    error = await agent.err(
        "diagram.apply_ops",
        {"base_rev": 1, "ops": [{"type": "flow_remove_node", "node_id": "n:zz"}]},
    )
    assert (error.code, error.message, error.data) == (
        NOT_FOUND,
        "object not found",
        {"kind": "FlowNode", "object_id": "n:zz"},
    )
    # Op ids are checked before base_rev (§14.1 step 3).
    error = await agent.err(
        "diagram.apply_ops",
        {"base_rev": 0, "ops": [{"type": "flow_remove_node", "node_id": "a/b"}]},
    )
    assert (error.code, error.message, error.data) == (
        INVALID_PARAMS,
        "invalid object id: id must not contain '/'",
        {"object_id": "a/b"},
    )
    error = await agent.err("diagram.apply_ops", {"base_rev": 1, "ops": [{"type": "flow_explode"}]})
    assert error.code == INVALID_PARAMS
    assert error.message.startswith("failed to deserialize parameters: ")
    # All-or-nothing: the first op would succeed, the second fails; nothing is kept.
    error = await agent.err(
        "diagram.apply_ops",
        {
            "base_rev": 1,
            "ops": [
                {"type": "flow_add_node", "node_id": "n:x", "label": "X"},
                {"type": "flow_add_node", "node_id": "n:x", "label": "X again"},
            ],
        },
    )
    assert (error.code, error.message) == (INVALID_PARAMS, "object already exists")
    error = await agent.err(
        "diagram.apply_ops",
        {"base_rev": 1, "ops": [{"type": "flow_update_node", "node_id": "n:ok", "label": ""}]},
    )
    assert error.code == INVALID_PARAMS  # decision 9: refused at apply time
    assert (await agent.ok("diagram.stat"))["counts"]["nodes"] == 5
    error = await agent.err("diagram.apply_ops", {"diagram_id": "nope", "base_rev": 0, "ops": []})
    assert (error.code, error.message, error.data) == (
        NOT_FOUND,
        "diagram not found",
        {"diagram_id": "nope"},
    )

    diff = await agent.ok("diagram.diff", {"diagram_id": "auth", "since_rev": 0})
    assert diff == {
        "from_rev": 0,
        "to_rev": 1,
        "changes": [
            {"kind": "added", "refs": ["d:auth/flow/edge/e:0004", "d:auth/flow/node/n:audit"]}
        ],
    }
    # A self-loop is fine (decision 2).
    looped = await agent.ok(
        "diagram.apply_ops",
        {
            "base_rev": 1,
            "ops": [
                {
                    "type": "flow_add_edge",
                    "edge_id": "e:0005",
                    "from_node_id": "n:audit",
                    "to_node_id": "n:audit",
                }
            ],
        },
    )
    assert looped["new_rev"] == 2
    assert "Audit" in (await agent.ok("diagram.render_text"))["text"]


async def walkthroughs(agent: Agent) -> None:
    """Groups B and D, plus walkthrough.create / walkthrough.delete (decision 8)."""
    listed = await agent.ok("walkthrough.list")
    assert listed == {"walkthroughs": [], "context": {"session_active_diagram_id": "auth"}}
    current = await agent.ok("walkthrough.current")
    assert current == {
        "active_walkthrough_id": None,
        "context": {"session_active_diagram_id": "auth"},
    }
    created = await agent.ok(
        "walkthrough.create", {"title": "Login tour", "walkthrough_id": "wt:tour"}
    )
    assert created == {
        "walkthrough": {
            "walkthrough_id": "wt:tour",
            "title": "Login tour",
            "rev": 0,
            "nodes": 0,
            "edges": 0,
        },
        "active_walkthrough_id": None,
    }
    error = await agent.err("walkthrough.create", {"title": "again", "walkthrough_id": "wt:tour"})
    assert (error.code, error.message) == (INVALID_PARAMS, "walkthrough_id already exists")
    assert (await agent.ok("walkthrough.render_text", {"walkthrough_id": "wt:tour"}))["text"] == ""

    applied = await agent.ok(
        "walkthrough.apply_ops",
        {
            "walkthrough_id": "wt:tour",
            "base_rev": 0,
            "ops": [
                {"type": "set_title", "title": "Login tour (v2)"},
                {
                    "type": "add_node",
                    "node_id": "wn:1",
                    "title": "Entry",
                    "refs": ["d:seq/seq/message/m:0001"],
                    "body_md": "Client posts.",
                },
                {
                    "type": "add_node",
                    "node_id": "wn:2",
                    "title": "Token check",
                    "refs": ["d:auth/flow/node/n:check"],
                    "tags": ["happy-path"],
                },
                {"type": "add_edge", "from_node_id": "wn:1", "to_node_id": "wn:2", "kind": "next"},
            ],
        },
    )
    assert applied == {
        "new_rev": 1,
        "applied": 4,
        "delta": {
            "added": [
                "w:wt:tour/edge/wn:1/wn:2/next",
                "w:wt:tour/node/wn:1",
                "w:wt:tour/node/wn:2",
            ],
            "removed": [],
            "updated": ["w:wt:tour/meta"],
        },
    }
    read = await agent.ok("walkthrough.read", {"walkthrough_id": "wt:tour"})
    assert read["walkthrough"]["title"] == "Login tour (v2)"
    assert read["walkthrough"]["rev"] == 1
    assert read["walkthrough"]["nodes"][1] == {
        "node_id": "wn:2",
        "title": "Token check",
        "body_md": None,
        "refs": ["d:auth/flow/node/n:check"],
        "tags": ["happy-path"],
        "status": None,
    }
    assert read["walkthrough"]["edges"] == [
        {"from_node_id": "wn:1", "to_node_id": "wn:2", "kind": "next", "label": None}
    ]
    assert read["context"] == {"session_active_diagram_id": "auth"}
    node = await agent.ok("walkthrough.get_node", {"walkthrough_id": "wt:tour", "node_id": "wn:1"})
    assert node["node"]["body_md"] == "Client posts."
    stat = await agent.ok("walkthrough.stat", {"walkthrough_id": "wt:tour"})
    assert stat["digest"] == {"rev": 1, "counts": {"nodes": 2, "edges": 1}}
    text = (await agent.ok("walkthrough.render_text", {"walkthrough_id": "wt:tour"}))["text"]
    assert "Entry" in text and "Token check" in text

    # Decision 8: an explicit null clears, an absent key keeps.
    cleared = await agent.ok(
        "walkthrough.apply_ops",
        {
            "walkthrough_id": "wt:tour",
            "base_rev": 1,
            "ops": [{"type": "update_node", "node_id": "wn:1", "body_md": None}],
        },
    )
    assert cleared["delta"]["updated"] == ["w:wt:tour/node/wn:1"]
    node = await agent.ok("walkthrough.get_node", {"walkthrough_id": "wt:tour", "node_id": "wn:1"})
    assert node["node"]["body_md"] is None and node["node"]["title"] == "Entry"
    diff = await agent.ok("walkthrough.diff", {"walkthrough_id": "wt:tour", "since_rev": 0})
    assert diff["from_rev"] == 0 and diff["to_rev"] == 2
    assert {c["kind"] for c in diff["changes"]} == {"added", "updated"}
    empty = await agent.ok(
        "walkthrough.apply_ops", {"walkthrough_id": "wt:tour", "base_rev": 2, "ops": []}
    )
    assert empty["new_rev"] == 2 and empty["applied"] == 0

    error = await agent.err(
        "walkthrough.apply_ops", {"walkthrough_id": "wt:tour", "base_rev": 0, "ops": []}
    )
    assert (error.code, error.message) == (INVALID_REQUEST, "conflict: stale base_rev")
    assert error.data["current_rev"] == 2 and error.data["snapshot_tool"] == "walkthrough.stat"
    assert error.data["digest"] == {"rev": 2, "counts": {"nodes": 2, "edges": 1}}
    error = await agent.err(
        "walkthrough.apply_ops",
        {
            "walkthrough_id": "wt:tour",
            "base_rev": 2,
            "ops": [{"type": "add_node", "node_id": "wn:1", "title": "dup"}],
        },
    )
    assert (error.code, error.message) == (INVALID_PARAMS, "node_id already exists")
    error = await agent.err(
        "walkthrough.apply_ops",
        {
            "walkthrough_id": "wt:tour",
            "base_rev": 2,
            "ops": [
                {"type": "add_edge", "from_node_id": "wn:1", "to_node_id": "wn:9", "kind": "x"}
            ],
        },
    )
    assert (error.code, error.message) == (NOT_FOUND, "walkthrough node not found")
    error = await agent.err(
        "walkthrough.get_node", {"walkthrough_id": "wt:tour", "node_id": "wn:9"}
    )
    assert (error.code, error.message, error.data) == (
        NOT_FOUND,
        "walkthrough node not found",
        {"walkthrough_id": "wt:tour", "node_id": "wn:9"},
    )
    error = await agent.err("walkthrough.get_node", {"walkthrough_id": "wt:tour", "node_id": ""})
    assert (error.code, error.message, error.data) == (
        INVALID_PARAMS,
        "invalid node_id: id must not be empty",
        {"node_id": ""},
    )
    error = await agent.err("walkthrough.diff", {"walkthrough_id": "wt:tour", "since_rev": 9})
    assert (error.code, error.message) == (INVALID_PARAMS, "since_rev must be <= current rev")
    for tool in (
        "walkthrough.read",
        "walkthrough.stat",
        "walkthrough.render_text",
        "walkthrough.open",
        "walkthrough.delete",
    ):
        error = await agent.err(tool, {"walkthrough_id": "wt:none"})
        assert (error.code, error.message, error.data) == (
            NOT_FOUND,
            "walkthrough not found",
            {"walkthrough_id": "wt:none"},
        ), tool
        error = await agent.err(tool, {"walkthrough_id": "a/b"})
        assert (error.code, error.message, error.data) == (
            INVALID_PARAMS,
            "invalid walkthrough_id: id must not contain '/'",
            {"walkthrough_id": "a/b"},
        ), tool

    opened = await agent.ok("walkthrough.open", {"walkthrough_id": "wt:tour"})
    assert opened == {"active_walkthrough_id": "wt:tour"}
    assert (await agent.ok("walkthrough.current"))["active_walkthrough_id"] == "wt:tour"
    other = await agent.ok("walkthrough.create", {"title": "Scratch", "make_active": True})
    assert other["walkthrough"]["walkthrough_id"] == "wt"
    assert other["active_walkthrough_id"] == "wt"
    deleted = await agent.ok("walkthrough.delete", {"walkthrough_id": "wt"})
    assert deleted == {"deleted_walkthrough_id": "wt", "active_walkthrough_id": "wt:tour"}
    listed = await agent.ok("walkthrough.list")
    assert listed["walkthroughs"] == [
        {"walkthrough_id": "wt:tour", "title": "Login tour (v2)", "rev": 2, "nodes": 2, "edges": 1}
    ]


async def no_active_diagram(agent: Agent) -> None:
    """Delete every diagram: defaults then have nothing to fall back on (§3.5)."""
    for diagram_id in ("auth", "flow", "seq"):
        await agent.ok("diagram.delete", {"diagram_id": diagram_id})
    assert (await agent.ok("diagram.current"))["active_diagram_id"] is None
    for tool, arguments in (
        ("diagram.stat", {}),
        ("diagram.read", {}),
        ("diagram.get_ast", {}),
        ("diagram.render_text", {}),
        ("diagram.diff", {"since_rev": 0}),
        ("diagram.apply_ops", {"base_rev": 0, "ops": []}),
        ("diagram.propose_ops", {"base_rev": 0, "ops": []}),
    ):
        error = await agent.err(tool, arguments)
        assert (error.code, error.message, error.data) == (
            INVALID_PARAMS,
            "diagram_id is required (no active diagram)",
            None,
        ), tool


async def run_all(agent: Agent) -> None:
    """Every scripted step, in order (each relies on the state the previous left)."""
    await lifecycle(agent)
    await reads(agent)
    await mutations(agent)
    await walkthroughs(agent)
    await no_active_diagram(agent)
