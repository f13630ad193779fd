"""A tiny stand-in for the session actors, a few real tools on it, and client helpers.

`DiagramsActor` is a real actor holding `{diagram_id: DiagramRecord}`; it answers
list/stat/replace requests and publishes `DiagramTextChanged` on the bus. The
tools `diagram.list` / `diagram.stat` translate MCP to its messages the way the
real handlers will; `test.*` tools exercise the error paths.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Literal, assert_never

import msgspec
import trio
from mcp import Client
from mcp.shared.memory import create_client_server_memory_streams
from mcp_types import Implementation

from nereid.errors import Conflict, InvalidParams, ResourceNotFound
from nereid.mcp import (
    ADDITIVE,
    DESTRUCTIVE,
    READ_ONLY,
    U64,
    Agent,
    McpEndpoint,
    ToolCall,
    ToolTable,
    serve_streams,
    tool,
)
from nereid.mcp.diagnostics import diagnostic_tools
from nereid.query.errors import not_found as query_not_found
from nereid.runtime import Actor, Event, Request, ResyncNeeded, Runtime

# -- the stand-in actor ---------------------------------------------------------


class DiagramRecord(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    kind: Literal["Flowchart", "Sequence"]
    rev: int
    text: str


class ListDiagrams(Request[dict[str, DiagramRecord]], frozen=True):
    pass


class GetDiagram(Request[DiagramRecord], frozen=True):
    diagram_id: str


class ReplaceText(Request[int], frozen=True):
    diagram_id: str
    text: str


class DiagramTextChanged(Event, frozen=True):
    diagram_id: str
    rev: int


DiagramsMessage = ListDiagrams | GetDiagram | ReplaceText


class DiagramsActor(Actor[dict[str, DiagramRecord], DiagramsMessage]):
    async def init(self, snapshot: dict[str, DiagramRecord]) -> None:
        self.diagrams = dict(snapshot)

    async def handle(self, message: DiagramsMessage) -> object:
        match message:
            case ListDiagrams():
                return dict(self.diagrams)
            case GetDiagram(diagram_id=diagram_id):
                return self._get(diagram_id)
            case ReplaceText(diagram_id=diagram_id, text=text):
                record = self._get(diagram_id)
                record = msgspec.structs.replace(record, text=text, rev=record.rev + 1)
                self.diagrams[diagram_id] = record
                self.commit(dict(self.diagrams))
                self.runtime.bus.publish(DiagramTextChanged(diagram_id=diagram_id, rev=record.rev))
                return record.rev
            case _:
                assert_never(message)

    def _get(self, diagram_id: str) -> DiagramRecord:
        record = self.diagrams.get(diagram_id)
        if record is None:
            raise ResourceNotFound("diagram not found", data={"diagram_id": diagram_id})
        return record


INITIAL = {
    "auth": DiagramRecord(
        name="Auth flow", kind="Flowchart", rev=2, text="flowchart TD\n    start --> check\n"
    ),
    "login": DiagramRecord(
        name="Login", kind="Sequence", rev=0, text="sequenceDiagram\n    Client->>Api: POST\n"
    ),
}


async def spawn_diagrams(runtime: Runtime) -> None:
    await runtime.root.spawn("diagrams", DiagramsActor, initial=dict(INITIAL))


# -- tools ----------------------------------------------------------------------


class NoParams(msgspec.Struct, frozen=True, kw_only=True):
    pass


class DiagramSummary(msgspec.Struct, frozen=True, kw_only=True):
    diagram_id: str
    kind: str
    name: str
    rev: U64


class DiagramListResult(msgspec.Struct, frozen=True, kw_only=True):
    diagrams: list[DiagramSummary]


class StatParams(msgspec.Struct, frozen=True, kw_only=True):
    diagram_id: str


class StatResult(msgspec.Struct, frozen=True, kw_only=True):
    diagram_id: str
    kind: str
    name: str
    rev: U64
    text_length: U64


@tool(
    "diagram.list",
    "List every diagram with its kind, name and revision.",
    params=NoParams,
    result=DiagramListResult,
    hints=READ_ONLY,
)
async def diagram_list(call: ToolCall, params: NoParams) -> DiagramListResult:
    records = await call.registry.lookup("diagrams").call(ListDiagrams())
    return DiagramListResult(
        diagrams=[
            DiagramSummary(diagram_id=key, kind=r.kind, name=r.name, rev=r.rev)
            for key, r in sorted(records.items())
        ]
    )


@tool(
    "diagram.stat",
    "Kind, name, revision and size of one diagram.",
    params=StatParams,
    result=StatResult,
    hints=READ_ONLY,
)
async def diagram_stat(call: ToolCall, params: StatParams) -> StatResult:
    record = await call.registry.lookup("diagrams").call(GetDiagram(diagram_id=params.diagram_id))
    return StatResult(
        diagram_id=params.diagram_id,
        kind=record.kind,
        name=record.name,
        rev=record.rev,
        text_length=len(record.text),
    )


class ReplaceParams(msgspec.Struct, frozen=True, kw_only=True):
    diagram_id: str
    text: str


class ReplaceResult(msgspec.Struct, frozen=True, kw_only=True):
    new_rev: U64


@tool(
    "test.replace_text",
    "Replace a diagram's text (test only).",
    params=ReplaceParams,
    result=ReplaceResult,
    hints=DESTRUCTIVE,
)
async def replace_text(call: ToolCall, params: ReplaceParams) -> ReplaceResult:
    address = call.registry.lookup("diagrams")
    rev = await address.call(ReplaceText(diagram_id=params.diagram_id, text=params.text))
    return ReplaceResult(new_rev=rev)


class Inner(msgspec.Struct, frozen=True, kw_only=True):
    """A nested value."""

    label: str


class EchoParams(msgspec.Struct, frozen=True, kw_only=True):
    count: U64
    mode: Literal["replace", "add", "remove"] = "replace"
    note: str | None = None
    inner: Inner | None = None


class EchoResult(msgspec.Struct, frozen=True, kw_only=True):
    count: U64
    mode: str
    note: str | None
    inner: Inner | None
    agent_id: str
    correlation_id: str


@tool(
    "test.echo",
    "Echo the decoded parameters (test only).",
    params=EchoParams,
    result=EchoResult,
    hints=ADDITIVE,
)
async def echo(call: ToolCall, params: EchoParams) -> EchoResult:
    return EchoResult(
        count=params.count,
        mode=params.mode,
        note=params.note,
        inner=params.inner,
        agent_id=call.agent.agent_id,
        correlation_id=call.correlation_id,
    )


class FailParams(msgspec.Struct, frozen=True, kw_only=True):
    how: Literal["bug", "conflict", "op_not_found", "op_invalid", "query_not_found", "wrong_type"]


@tool(
    "test.fail",
    "Fail in the requested way (test only).",
    params=FailParams,
    result=NoParams,
    hints=READ_ONLY,
)
async def fail(call: ToolCall, params: FailParams) -> Any:
    match params.how:
        case "bug":
            raise RuntimeError("an unexpected bug")
        case "conflict":
            raise Conflict(
                "conflict: stale base_rev",
                {"base_rev": 1, "current_rev": 3, "digest": {"rev": 3}},
            )
        case "op_not_found":
            raise ResourceNotFound("object not found", {"kind": "FlowNode", "object_id": "n:x"})
        case "op_invalid":
            raise InvalidParams("empty label")
        case "query_not_found":
            raise query_not_found("diagram not found", {"diagram_id": "zz"})
        case "wrong_type":
            return StatParams(diagram_id="not a NoParams")
        case _:
            assert_never(params.how)


def tool_table() -> ToolTable:
    return ToolTable([diagram_list, diagram_stat, replace_text, echo, fail, *diagnostic_tools()])


# -- resources, hooks -------------------------------------------------------------


class ActorDiagramResources:
    """The provider interface over the stand-in actor and the bus."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def list_diagrams(self) -> list[tuple[str, str]]:
        records = await self.runtime.registry.lookup("diagrams").call(ListDiagrams())
        return [(key, record.name) for key, record in records.items()]

    async def read_text(self, diagram_id: str) -> str:
        record = await self.runtime.registry.lookup("diagrams").call(
            GetDiagram(diagram_id=diagram_id)
        )
        return record.text

    def changes(self, wanted: Callable[[str], bool] | None = None) -> AsyncIterator[str | None]:
        subscription = self.runtime.bus.subscribe(DiagramTextChanged)

        async def follow() -> AsyncIterator[str | None]:
            with subscription:
                async for event in subscription:
                    if isinstance(event, ResyncNeeded):
                        yield None
                    elif isinstance(event, DiagramTextChanged):
                        yield event.diagram_id

        return follow()


class RecordingHooks:
    def __init__(self) -> None:
        self.events: list[tuple[str, Agent]] = []
        self.changed = trio.Event()

    async def session_started(self, agent: Agent) -> None:
        self.events.append(("started", agent))
        self._bump()

    async def session_ended(self, agent: Agent) -> None:
        self.events.append(("ended", agent))
        self._bump()

    async def session_presence(self, agent: Agent, presence: str) -> None:
        self.events.append((presence, agent))
        self._bump()

    def _bump(self) -> None:
        self.changed.set()
        self.changed = trio.Event()


def make_endpoint(runtime: Runtime, hooks: RecordingHooks | None = None) -> McpEndpoint:
    return McpEndpoint(runtime, tool_table(), resources=ActorDiagramResources(runtime), hooks=hooks)


# -- clients --------------------------------------------------------------------


class MemoryTransport:
    """A client transport wired to `serve_streams` in-process (the stdio code path)."""

    def __init__(self, endpoint: McpEndpoint) -> None:
        self.endpoint = endpoint
        self._cm: Any = None

    @asynccontextmanager
    async def _connect(self) -> AsyncIterator[Any]:
        async with create_client_server_memory_streams() as (client_streams, server_streams):
            async with trio.open_nursery() as nursery:
                done = trio.Event()

                async def run_server() -> None:
                    try:
                        await serve_streams(self.endpoint, *server_streams)
                    finally:
                        done.set()

                nursery.start_soon(run_server)
                yield client_streams
                await client_streams[1].aclose()
                with trio.move_on_after(5):
                    await done.wait()
                nursery.cancel_scope.cancel()

    async def __aenter__(self) -> Any:
        self._cm = self._connect()
        return await self._cm.__aenter__()

    async def __aexit__(self, *exc: Any) -> None:
        await self._cm.__aexit__(*exc)


def memory_client(endpoint: McpEndpoint, name: str = "pytest-client", **kwargs: Any) -> Client:
    return Client(
        MemoryTransport(endpoint),
        client_info=Implementation(name=name, version="1.0"),
        **kwargs,
    )
