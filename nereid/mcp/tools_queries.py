"""Groups F, G, H: `object.read`, the `seq.*` and the `flow.*` queries (§10-12).

Each handler fetches the snapshots its query needs (the one diagram it names or the
active one; for `object.read` the diagrams of the refs) and runs the pure query on them
(`nereid.query`), which validates the parameters in the contract's order and raises its
errors. The searches that can take a while on big inputs (`flow.paths`, regex
`seq.search`; both bounded) run off the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import msgspec
import trio

from nereid.actors.protocol import ReadContext
from nereid.model import ObjectRefError, parse_ref
from nereid.query import (
    CyclesResult,
    DegreesResult,
    MessagesResult,
    NodesResult,
    ObjectEntry,
    PathsResult,
    QueryScope,
    flow_cycles,
    flow_dead_ends,
    flow_degrees,
    flow_paths,
    flow_reachable,
    flow_unreachable,
    object_read,
    seq_messages,
    seq_search,
    seq_trace,
)

from .schema import U64
from .session_calls import read_context
from .snapshots import scope_of_diagram, scope_of_diagrams
from .tools import READ_ONLY, Tool, ToolCall, tool

__all__ = [
    "TOOLS",
    "DiagramParams",
    "FlowDegreesParams",
    "FlowPathsParams",
    "FlowReachableParams",
    "FlowUnreachableParams",
    "ObjectReadParams",
    "ObjectReadToolResult",
    "SeqMessagesParams",
    "SeqSearchParams",
    "SeqTraceParams",
]

ResultT = TypeVar("ResultT")


async def _on_diagram(
    call: ToolCall,
    diagram_id: str | None,
    query: Callable[[QueryScope], ResultT],
    *,
    offload: bool = False,
) -> ResultT:
    """Run `query` on a scope holding the diagram named by `diagram_id` (or the active one).

    `offload`: run it in a worker thread (the snapshot is immutable, so that is safe).
    """
    scope = await scope_of_diagram(call, diagram_id)
    if offload:
        return await trio.to_thread.run_sync(query, scope)
    return query(scope)


# -- F: object.read ----------------------------------------------------------------------


class ObjectReadParams(msgspec.Struct, frozen=True, kw_only=True):
    """Exactly one of the two."""

    object_ref: str | None = None
    object_refs: list[str] | None = None


class ObjectReadToolResult(msgspec.Struct, frozen=True, kw_only=True):
    """The objects in input order (duplicates kept) and the read context."""

    objects: list[ObjectEntry]
    context: ReadContext


def _diagrams_named(texts: list[str]) -> list[str]:
    """The diagram ids of the refs up to the first unparsable one (which the query reports)."""
    ids: list[str] = []
    for text in texts:
        try:
            ids.append(parse_ref(text).diagram_id)
        except ObjectRefError:
            break
    return ids


@tool(
    "object.read",
    "The fields of one object (object_ref) or several (object_refs), by ObjectRef.",
    params=ObjectReadParams,
    result=ObjectReadToolResult,
    hints=READ_ONLY,
)
async def object_read_tool(call: ToolCall, params: ObjectReadParams) -> ObjectReadToolResult:
    texts = [params.object_ref] if params.object_ref is not None else (params.object_refs or [])
    scope = await scope_of_diagrams(call, _diagrams_named(texts))
    found = object_read(scope, object_ref=params.object_ref, object_refs=params.object_refs)
    return ObjectReadToolResult(objects=found.objects, context=await read_context(call))


# -- G: seq.* ----------------------------------------------------------------------------


class DiagramParams(msgspec.Struct, frozen=True, kw_only=True):
    """Only the diagram (default: the active one)."""

    diagram_id: str | None = None


class SeqMessagesParams(msgspec.Struct, frozen=True, kw_only=True):
    diagram_id: str | None = None
    from_participant_id: str | None = None
    to_participant_id: str | None = None


class SeqTraceParams(msgspec.Struct, frozen=True, kw_only=True):
    diagram_id: str | None = None
    from_message_id: str | None = None
    direction: str = "after"
    limit: U64 = 25


class SeqSearchParams(msgspec.Struct, frozen=True, kw_only=True):
    needle: str
    diagram_id: str | None = None
    mode: str = "substring"
    case_insensitive: bool = True


@tool(
    "seq.messages",
    "Messages of a sequence diagram in time order, optionally by sender and/or receiver.",
    params=SeqMessagesParams,
    result=MessagesResult,
    hints=READ_ONLY,
)
async def seq_messages_tool(call: ToolCall, params: SeqMessagesParams) -> MessagesResult:
    return await _on_diagram(
        call,
        params.diagram_id,
        lambda scope: seq_messages(
            scope,
            from_participant_id=params.from_participant_id,
            to_participant_id=params.to_participant_id,
            diagram_id=params.diagram_id,
        ),
    )


@tool(
    "seq.trace",
    "Up to `limit` messages before or after an anchor message (or the first/last ones).",
    params=SeqTraceParams,
    result=MessagesResult,
    hints=READ_ONLY,
)
async def seq_trace_tool(call: ToolCall, params: SeqTraceParams) -> MessagesResult:
    return await _on_diagram(
        call,
        params.diagram_id,
        lambda scope: seq_trace(
            scope,
            from_message_id=params.from_message_id,
            direction=params.direction,
            limit=params.limit,
            diagram_id=params.diagram_id,
        ),
    )


@tool(
    "seq.search",
    "Messages whose text contains `needle` (substring) or matches it (Python regex, "
    "guarded against runaway patterns).",
    params=SeqSearchParams,
    result=MessagesResult,
    hints=READ_ONLY,
)
async def seq_search_tool(call: ToolCall, params: SeqSearchParams) -> MessagesResult:
    return await _on_diagram(
        call,
        params.diagram_id,
        lambda scope: seq_search(
            scope,
            needle=params.needle,
            mode=params.mode,
            case_insensitive=params.case_insensitive,
            diagram_id=params.diagram_id,
        ),
        offload=params.mode == "regex",
    )


# -- H: flow.* ---------------------------------------------------------------------------


class FlowReachableParams(msgspec.Struct, frozen=True, kw_only=True):
    from_node_id: str
    diagram_id: str | None = None
    direction: str = "out"


class FlowPathsParams(msgspec.Struct, frozen=True, kw_only=True):
    from_node_id: str
    to_node_id: str
    diagram_id: str | None = None
    limit: U64 = 10
    max_extra_hops: U64 = 0


class FlowDegreesParams(msgspec.Struct, frozen=True, kw_only=True):
    diagram_id: str | None = None
    top: U64 = 10
    sort_by: str | None = None


class FlowUnreachableParams(msgspec.Struct, frozen=True, kw_only=True):
    diagram_id: str | None = None
    start_node_id: str | None = None


@tool(
    "flow.reachable",
    "Nodes reachable from a node (following edges out, in, or the union of both).",
    params=FlowReachableParams,
    result=NodesResult,
    hints=READ_ONLY,
)
async def flow_reachable_tool(call: ToolCall, params: FlowReachableParams) -> NodesResult:
    return await _on_diagram(
        call,
        params.diagram_id,
        lambda scope: flow_reachable(
            scope,
            from_node_id=params.from_node_id,
            direction=params.direction,
            diagram_id=params.diagram_id,
        ),
    )


@tool(
    "flow.unreachable",
    "Nodes that cannot be reached from the start node (default: every node without inputs).",
    params=FlowUnreachableParams,
    result=NodesResult,
    hints=READ_ONLY,
)
async def flow_unreachable_tool(call: ToolCall, params: FlowUnreachableParams) -> NodesResult:
    return await _on_diagram(
        call,
        params.diagram_id,
        lambda scope: flow_unreachable(
            scope, start_node_id=params.start_node_id, diagram_id=params.diagram_id
        ),
    )


@tool(
    "flow.paths",
    "Simple paths between two nodes, shortest first, up to `max_extra_hops` longer.",
    params=FlowPathsParams,
    result=PathsResult,
    hints=READ_ONLY,
)
async def flow_paths_tool(call: ToolCall, params: FlowPathsParams) -> PathsResult:
    return await _on_diagram(
        call,
        params.diagram_id,
        lambda scope: flow_paths(
            scope,
            from_node_id=params.from_node_id,
            to_node_id=params.to_node_id,
            limit=params.limit,
            max_extra_hops=params.max_extra_hops,
            diagram_id=params.diagram_id,
        ),
        offload=True,
    )


@tool(
    "flow.cycles",
    "Cyclic regions (strongly connected components and self-loops) of a flowchart.",
    params=DiagramParams,
    result=CyclesResult,
    hints=READ_ONLY,
)
async def flow_cycles_tool(call: ToolCall, params: DiagramParams) -> CyclesResult:
    return await _on_diagram(
        call, params.diagram_id, lambda scope: flow_cycles(scope, diagram_id=params.diagram_id)
    )


@tool(
    "flow.dead_ends",
    "Nodes without an outgoing edge.",
    params=DiagramParams,
    result=NodesResult,
    hints=READ_ONLY,
)
async def flow_dead_ends_tool(call: ToolCall, params: DiagramParams) -> NodesResult:
    return await _on_diagram(
        call,
        params.diagram_id,
        lambda scope: flow_dead_ends(scope, diagram_id=params.diagram_id),
    )


@tool(
    "flow.degrees",
    "Fan-in and fan-out per node, ranked by out, in or total degree; the first `top`.",
    params=FlowDegreesParams,
    result=DegreesResult,
    hints=READ_ONLY,
)
async def flow_degrees_tool(call: ToolCall, params: FlowDegreesParams) -> DegreesResult:
    return await _on_diagram(
        call,
        params.diagram_id,
        lambda scope: flow_degrees(
            scope, top=params.top, sort_by=params.sort_by, diagram_id=params.diagram_id
        ),
    )


TOOLS: tuple[Tool[Any, Any], ...] = (
    object_read_tool,
    seq_messages_tool,
    seq_trace_tool,
    seq_search_tool,
    flow_reachable_tool,
    flow_unreachable_tool,
    flow_paths_tool,
    flow_cycles_tool,
    flow_dead_ends_tool,
    flow_degrees_tool,
)
"""Groups F, G and H."""
