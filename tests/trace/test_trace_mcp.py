"""A trace recorded through the real MCP endpoint (in-process client, the stdio code path).

The session actors are not wired yet, so the tool here talks to two small actors of this
test; what is checked is that an MCP call's correlation id reaches the actors, so the
request view and the Mermaid export show the path from the MCP call to the reply,
persister write included.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, assert_never

import msgspec
import pytest
import trio
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.shared.memory import create_client_server_memory_streams
from mcp_types import Implementation

from nereid.commands import check
from nereid.commands.trace import open_trace_sink, run
from nereid.errors import ResourceNotFound
from nereid.mcp import ADDITIVE, McpEndpoint, ToolCall, ToolTable, serve_streams, tool
from nereid.mermaid.sequence import parse_sequence
from nereid.runtime import Actor, Message, Request, Tracer, open_runtime
from nereid.trace.calls import format_step, request_path
from nereid.trace.reader import read_trace_file


class Rename(Request[str], frozen=True):
    name: str


class Persist(Message, frozen=True):
    name: str


class NamedActor(Actor[str, Rename]):
    async def handle(self, message: Rename) -> object:
        match message:
            case Rename(name=name):
                if not name:
                    raise ResourceNotFound("no name given")
                self.commit(name)
                await self.runtime.registry.lookup("persister").cast(Persist(name=name))
                return name
            case _:
                assert_never(message)


class Sink(Actor[None, Persist]):
    async def handle(self, message: Persist) -> object:
        return None


class RenameParams(msgspec.Struct, frozen=True, kw_only=True):
    name: str


class RenameResult(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    correlation_id: str


@tool(
    "demo.rename",
    "Rename the demo diagram.",
    params=RenameParams,
    result=RenameResult,
    hints=ADDITIVE,
)
async def rename(call: ToolCall, params: RenameParams) -> RenameResult:
    named = await call.runtime.registry.lookup("diagram:demo").call(Rename(name=params.name))
    return RenameResult(name=named, correlation_id=call.correlation_id)


@asynccontextmanager
async def connected(endpoint: McpEndpoint) -> AsyncIterator[Any]:
    """An MCP client session served by `serve_streams` over memory streams."""

    class Transport:
        @asynccontextmanager
        async def _connect(self) -> AsyncIterator[Any]:
            async with create_client_server_memory_streams() as (client_side, server_side):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(serve_streams, endpoint, *server_side)
                    yield client_side
                    nursery.cancel_scope.cancel()

        async def __aenter__(self) -> Any:
            self._cm = self._connect()
            return await self._cm.__aenter__()

        async def __aexit__(self, *exc: Any) -> None:
            await self._cm.__aexit__(*exc)

    async with Client(
        Transport(), client_info=Implementation(name="trace-test", version="1.0")
    ) as client:
        yield client


async def test_an_mcp_call_is_one_request_in_the_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mcp.jsonl"
    tracer = Tracer(open_trace_sink(path))
    try:
        async with open_runtime(tracer=tracer) as runtime:
            await runtime.root.spawn("persister", Sink, initial=None)
            await runtime.root.spawn("diagram:demo", NamedActor, initial="")
            endpoint = McpEndpoint(runtime, ToolTable([rename]))
            async with connected(endpoint) as client:
                result = await client.call_tool("demo.rename", {"name": "auth flow"})
                assert result.is_error is False
                correlation_id = result.structured_content["correlation_id"]
                with pytest.raises(MCPError):
                    await client.call_tool("demo.rename", {"name": ""})
                with pytest.raises(MCPError):  # refused before any actor is asked
                    await client.call_tool("demo.rename", {"name": 5})
    finally:
        tracer.close()

    entries, skipped = read_trace_file(path)
    assert skipped.count == 0
    texts = [format_step(step).split(" ", 1)[1] for step in request_path(entries, correlation_id)]
    # the path starts at the tool call on the `mcp` endpoint, then reaches the actors
    assert texts[0] == "→ mcp demo.rename (call from agent:1)"
    assert "  → diagram:demo Rename (call from mcp)" in texts
    assert "    → persister Persist (cast from diagram:demo)" in texts
    # the persister may handle its cast before or after the reply: both orders are right
    assert sum(t.startswith("  ← diagram:demo Rename ok to mcp") for t in texts) == 1
    failed = [e for e in entries if e.event == "error"]
    assert [(e.actor, e.outcome) for e in failed] == [
        ("diagram:demo", "ResourceNotFound"),
        ("mcp", "ResourceNotFound"),
        ("mcp", "MCPError"),
    ]
    assert "failed to deserialize parameters" in (failed[2].detail or "")
    assert failed[0].correlation_id not in (None, correlation_id)
    assert failed[1].correlation_id == failed[0].correlation_id

    assert run([str(path), "--mermaid", "--corr", correlation_id]) == 0
    text = capsys.readouterr().out
    ast = parse_sequence(text)
    assert [m.text for m in ast.messages][:3] == ["demo.rename", "Rename", "Persist"]
    (tmp_path / "mcp.mmd").write_text(text)
    assert check.run([str(tmp_path / "mcp.mmd")]) == 0
