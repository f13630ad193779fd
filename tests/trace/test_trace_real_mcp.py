"""`nereid trace` on the trace of a real MCP session: `python -m nereid --mcp <folder>
--durable-writes --trace FILE` in a subprocess, driven by the `mcp` SDK's stdio client.

The script lists, creates `auth`, applies one op (ok), repeats it on the stale base_rev
(conflict), removes a missing node (not found), adds an xref and updates the selection;
closing the client ends the process, which closes the tracer (the file is complete).

How a call's correlation id is known from the outside: the endpoint opens one
`correlation_scope` per `tools/call` and traces the call itself as a message to the
`mcp` endpoint (`send` from the agent, `receive`, then `reply` or `error`), so every
message of that call carries the same id. Only `-32603` errors put the id in the reply
(`data.correlation_id`); for the other replies it is read from the log: the n-th `send`
to `mcp` of `diagram.apply_ops` is the n-th `diagram.apply_ops` call (`_tool_calls`).
Refusals show twice under `--errors`: where they were raised (here inside the diagram
actor) and on the `mcp` endpoint that answered the agent.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation

from nereid.commands import check
from nereid.commands.trace import run
from nereid.mermaid.sequence import parse_sequence

REPO = Path(__file__).resolve().parents[2]
AUTH = "flowchart TD\n  a[A] --> b[B]\n"
ADD_C = [{"type": "flow_add_node", "node_id": "n:c", "label": "C"}]
REMOVE_MISSING = [{"type": "flow_remove_node", "node_id": "n:zz"}]
INVALID_REQUEST, NOT_FOUND = -32600, -32002


@dataclass(frozen=True)
class Recorded:
    """The trace file, its lines decoded with `json`, and the errors the client saw."""

    path: Path
    folder: Path
    events: list[dict[str, Any]]
    errors: dict[str, tuple[int, str]]


async def _ok(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, (tool, result)
    assert result.structured_content is not None, tool
    return result.structured_content


async def _err(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[int, str]:
    with pytest.raises(MCPError) as caught:
        await client.call_tool(tool, arguments)
    assert "correlation_id" not in (caught.value.error.data or {}), "only -32603 carries it"
    return caught.value.error.code, caught.value.error.message


async def _script(folder: Path, trace: Path) -> dict[str, tuple[int, str]]:
    env = dict(os.environ)
    env.pop("NEREID_TRACE", None)
    args = ["-m", "nereid", "--mcp", str(folder), "--durable-writes", "--trace", str(trace)]
    parameters = StdioServerParameters(command=sys.executable, args=args, cwd=str(REPO), env=env)
    info = Implementation(name="trace-agent", version="1")
    async with Client(parameters, client_info=info) as client:
        listed = await _ok(client, "diagram.list", {})
        assert [d["diagram_id"] for d in listed["diagrams"]] == ["flow"]
        await _ok(client, "diagram.create_from_mermaid", {"mermaid": AUTH, "diagram_id": "auth"})
        applied = await _ok(
            client, "diagram.apply_ops", {"diagram_id": "auth", "base_rev": 0, "ops": ADD_C}
        )
        assert applied["new_rev"] == 1
        stale = {"diagram_id": "auth", "base_rev": 0, "ops": ADD_C}
        missing = {"diagram_id": "auth", "base_rev": 1, "ops": REMOVE_MISSING}
        errors = {
            "conflict": await _err(client, "diagram.apply_ops", stale),
            "not_found": await _err(client, "diagram.apply_ops", missing),
        }
        xref = {
            "xref_id": "x:c",
            "from": "d:auth/flow/node/n:c",
            "to": "d:flow/flow/node/n:hello",
            "kind": "implements",
        }
        assert await _ok(client, "xref.add", xref) == {"xref_id": "x:c", "status": "ok"}
        picked = await _ok(client, "selection.update", {"object_refs": ["d:auth/flow/node/n:c"]})
        assert picked["applied"] == ["d:auth/flow/node/n:c"]
    return errors


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    """The session, recorded once for the module (outside any trio loop)."""
    base = tmp_path_factory.mktemp("real-mcp")
    path, folder = base / "trace.jsonl", base / "proj"
    errors = trio.run(_script, folder, path)
    events = [json.loads(line) for line in path.read_text().splitlines()]
    return Recorded(path, folder, events, errors)


def _tool_calls(events: list[dict[str, Any]], tool: str) -> list[str]:
    """Correlation ids of the calls of `tool`, in log order (the `send`s to `mcp`)."""
    return [
        e["correlation_id"]
        for e in events
        if e["event"] == "send" and e["actor"] == "mcp" and e["msg_type"] == tool
    ]


def _calls(recorded: Recorded) -> dict[str, str]:
    apply_ok, conflict, not_found = _tool_calls(recorded.events, "diagram.apply_ops")
    (create,) = _tool_calls(recorded.events, "diagram.create_from_mermaid")
    (xref,) = _tool_calls(recorded.events, "xref.add")
    (select,) = _tool_calls(recorded.events, "selection.update")
    return {
        "create": create,
        "apply": apply_ok,
        "conflict": conflict,
        "not_found": not_found,
        "xref": xref,
        "select": select,
    }


def _out(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    assert run(list(argv)) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # no skipped lines: the process closed its log cleanly
    return captured.out.splitlines()


def test_the_client_saw_the_conflict_and_the_not_found(recorded: Recorded) -> None:
    assert recorded.errors == {
        "conflict": (INVALID_REQUEST, "conflict: stale base_rev"),
        "not_found": (NOT_FOUND, "object not found"),
    }
    assert "c[C]" in (recorded.folder / "diagrams" / "auth.mmd").read_text()  # written


def test_each_call_has_its_own_id_and_its_persister_writes_carry_it(recorded: Recorded) -> None:
    calls = _calls(recorded)
    assert len(set(calls.values())) == len(calls)
    persisted = {
        e["correlation_id"]
        for e in recorded.events
        if e["event"] == "receive" and e["actor"] == "persister"
    }
    for name in ("create", "apply", "xref", "select"):
        assert calls[name] in persisted, name
    for name in ("conflict", "not_found"):  # refused: nothing written
        assert calls[name] not in persisted, name


def test_the_plain_timeline_of_one_apply(
    recorded: Recorded, capsys: pytest.CaptureFixture[str]
) -> None:
    apply = _calls(recorded)["apply"]
    lines = _out(capsys, str(recorded.path), "--plain", "--corr", apply)
    assert lines and all(line.endswith(f"c={apply}") or f"c={apply} " in line for line in lines)
    steps = [tuple(line.split()[1:4]) for line in lines]
    at = {step: steps.index(step) for step in steps}  # first occurrence of each
    apply_steps = [(event, "diagram:auth", "ApplyDiagramOps") for event in ("send", "receive")]
    write = [(event, "persister", "PersistDiagram") for event in ("send", "receive")]
    flush = [(event, "persister", "Flush") for event in ("send", "receive", "reply")]
    done = ("reply", "diagram:auth", "ApplyDiagramOps")
    # Only the causal order is fixed: the diagram casts the write, then calls Flush
    # (durable); the persister's mailbox is FIFO; the apply replies after Flush has.
    for before, after in [
        (apply_steps[0], apply_steps[1]),
        (apply_steps[1], write[0]),
        (write[0], write[1]),
        (write[0], flush[0]),
        (write[1], flush[1]),
        (flush[0], flush[1]),
        (flush[1], flush[2]),
        (flush[2], done),
    ]:
        assert at[before] < at[after], (before, after)
    assert ("send", "xref", "DiagramObserved") in steps
    assert len(lines) == sum(e.get("correlation_id") == apply for e in recorded.events)


def test_the_request_view_shows_the_whole_path(
    recorded: Recorded, capsys: pytest.CaptureFixture[str]
) -> None:
    apply = _calls(recorded)["apply"]
    texts = [line.split(" ", 1)[1] for line in _out(capsys, str(recorded.path), "--request", apply)]
    assert texts[0] == "→ mcp diagram.apply_ops (call from agent:1)"
    assert "  → diagram:auth ApplyDiagramOps (call from mcp)" in texts
    assert "    → persister PersistDiagram (cast from diagram:auth)" in texts
    assert "    → persister Flush (call from diagram:auth)" in texts
    assert sum(t.startswith("    ← persister Flush ok to diagram:auth in ") for t in texts) == 1
    replies = [t for t in texts if t.startswith("  ← diagram:auth ApplyDiagramOps ok to mcp")]
    assert len(replies) == 1
    assert texts.index(replies[0]) > texts.index("    → persister Flush (call from diagram:auth)")
    assert sum(t.startswith("← mcp diagram.apply_ops ok to agent:1") for t in texts) == 1


def test_errors_shows_the_conflict_and_the_not_found_only(
    recorded: Recorded, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = _calls(recorded)
    lines = _out(capsys, str(recorded.path), "--errors")
    # each refusal shows where it was raised and on the endpoint that answered the agent
    assert len(lines) == 4
    conflict, conflict_mcp, not_found, not_found_mcp = lines
    assert conflict.split()[1:4] == ["error", "diagram:auth", "ApplyDiagramOps"]
    assert f"c={calls['conflict']} Conflict: conflict: stale base_rev" in conflict
    assert conflict_mcp.split()[1:4] == ["error", "mcp", "diagram.apply_ops"]
    assert f"c={calls['conflict']} Conflict: conflict: stale base_rev" in conflict_mcp
    assert not_found.split()[1:4] == ["error", "diagram:auth", "ApplyDiagramOps"]
    assert f"c={calls['not_found']} " in not_found and "object not found" in not_found
    assert not_found_mcp.split()[1:4] == ["error", "mcp", "diagram.apply_ops"]
    assert f"c={calls['not_found']} " in not_found_mcp


def test_the_actor_glob_filter(recorded: Recorded, capsys: pytest.CaptureFixture[str]) -> None:
    lines = _out(capsys, str(recorded.path), "--plain", "--actor", "diagram:*")
    expected = [
        e
        for e in recorded.events
        if fnmatchcase(e["actor"], "diagram:*") or fnmatchcase(e.get("sender", ""), "diagram:*")
    ]
    assert len(lines) == len(expected)
    assert [line.split()[1:3] for line in lines] == [[e["event"], e["actor"]] for e in expected]
    assert {e["actor"] for e in expected} > {"diagram:auth", "diagram:flow"}  # sends to others


def test_stats_match_an_independent_count(
    recorded: Recorded, capsys: pytest.CaptureFixture[str]
) -> None:
    header, *rows = _out(capsys, str(recorded.path), "--stats")
    assert header.split() == ["actor", "messages", "p50", "p99", "errors", "crashes", "restarts"]
    shown = {
        cells[0]: tuple(int(cell) for cell in (cells[1], *cells[4:]))
        for cells in (row.split() for row in rows)
    }
    counted = Counter((e["event"], e["actor"]) for e in recorded.events)
    actors = {
        e["actor"]
        for e in recorded.events
        if e["event"] in ("receive", "reply", "error", "crash", "restart")
    }
    assert shown == {
        actor: tuple(counted[event, actor] for event in ("receive", "error", "crash", "restart"))
        for actor in actors
    }
    # Three applies (two refused) and the final save's HandOverUnsent.
    assert shown["diagram:auth"] == (4, 2, 0, 0)


def test_the_mermaid_export_of_the_apply_is_a_valid_diagram(
    recorded: Recorded, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    apply = _calls(recorded)["apply"]
    assert run([str(recorded.path), "--mermaid", "--corr", apply]) == 0
    text = capsys.readouterr().out
    texts = [message.text for message in parse_sequence(text).messages]
    assert texts[:2] == ["diagram.apply_ops", "ApplyDiagramOps"]
    assert {"PersistDiagram", "Flush", "DiagramObserved"} <= set(texts)
    assert any(t.startswith("ApplyDiagramOps ok") for t in texts)
    (tmp_path / "apply.mmd").write_text(text)
    assert check.run([str(tmp_path / "apply.mmd")]) == 0
