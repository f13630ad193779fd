"""Groups F, G, H: `object.read`, the `seq.*` and the `flow.*` queries (§10-12).

Each handler fetches the snapshots its query needs (the one diagram it names or the
active one; for `object.read` the diagrams of the refs) and runs the pure query on them
(`nereid.query`), which validates the parameters in the contract's order and raises its
errors. The searches that can take a while on big inputs (`flow.paths`, regex
`seq.search`; both bounded) run off the event loop.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import msgspec
import trio

from nereid.actors.protocol import GetDiagram, ReadContext
from nereid.model import ObjectRefError, parse_ref
from nereid.offload.dispatch import bounded_regex_matcher
from nereid.query import (
    CyclesResult,
    DegreesResult,
    MessagesResult,
    NodesResult,
    ObjectEntry,
    PathsResult,
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

from .schema import U64, param
from .session_calls import read_context
from .snapshots import scope_of_diagram, scope_of_diagrams
from .tools import READ_ONLY, Tool, ToolCall, tool

__all__ = ["TOOLS"]

ParamsT = TypeVar("ParamsT", bound=msgspec.Struct)
ResultT = TypeVar("ResultT", bound=msgspec.Struct)


def _never(params: msgspec.Struct) -> bool:
    return False


def _diagram_query(
    name: str,
    description: str,
    *,
    params: type[ParamsT],
    result: type[ResultT],
    query: Callable[..., ResultT],
    offload: Callable[[ParamsT], bool] = _never,
) -> Tool[ParamsT, ResultT]:
    """A read-only tool that runs `query` on the diagram its params name (or the active one).

    Every field of `params` (`diagram_id` included) is passed to `query` by name, so a
    params Struct declares exactly the query's keyword parameters; the query validates
    them in the contract's order. `offload(params)`: run the query in a worker thread
    (the snapshot is immutable, so that is safe) — for the searches that can take a while.
    Raises TypeError at declaration if the params fields are not the query's parameters.
    """
    names = [f.name for f in msgspec.structs.fields(params)]
    try:
        inspect.signature(query).bind(None, **dict.fromkeys(names))
    except TypeError as err:
        fit = f"{params.__name__} does not fit {getattr(query, '__name__', query)}"
        raise TypeError(f"tool {name!r}: {fit}: {err}") from err

    async def handler(call: ToolCall, given: ParamsT) -> ResultT:
        fields = msgspec.structs.asdict(given)
        scope = await scope_of_diagram(call, fields["diagram_id"])
        run = functools.partial(query, scope, **fields)
        if offload(given):
            return await trio.to_thread.run_sync(run)
        return run()

    return Tool(name, description, params, result, READ_ONLY, handler)


# -- F: object.read ----------------------------------------------------------------------


class ObjectReadParams(msgspec.Struct, frozen=True, kw_only=True):
    """Exactly one of the two."""

    object_ref: Annotated[str | None, param("One object ref (give this or object_refs).")] = None
    object_refs: Annotated[
        list[str] | None, param("Several object refs, answered in this order.")
    ] = None


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


class SeqMessagesParams(msgspec.Struct, frozen=True, kw_only=True):
    """Optional sender and receiver filters (participant ids)."""

    diagram_id: str | None = None
    from_participant_id: Annotated[
        str | None, param("Only messages sent by this participant id.")
    ] = None
    to_participant_id: Annotated[
        str | None, param("Only messages received by this participant id.")
    ] = None


class SeqTraceParams(msgspec.Struct, frozen=True, kw_only=True):
    """The anchor message id (absent: the start or end), the direction and how many."""

    diagram_id: str | None = None
    from_message_id: Annotated[
        str | None,
        param("Anchor message id (not a ref), never included; absent: from the start or end."),
    ] = None
    direction: Annotated[
        str,
        param(
            "after: messages following the anchor; before: preceding it.",
            choices=("after", "before"),
        ),
    ] = "after"
    limit: Annotated[U64, param("Most messages to return.")] = 25


class SeqSearchParams(msgspec.Struct, frozen=True, kw_only=True):
    """What to find in message texts, and how it matches."""

    needle: Annotated[
        str, param("Text (substring mode) or Python regex (regex mode) to find in message texts.")
    ]
    diagram_id: str | None = None
    mode: Annotated[str, param("How needle matches.", choices=("substring", "regex"))] = "substring"
    case_insensitive: Annotated[bool, param("Ignore case (default true).")] = True


seq_messages_tool = _diagram_query(
    "seq.messages",
    "Messages of a sequence diagram in time order, optionally by sender and/or receiver.",
    params=SeqMessagesParams,
    result=MessagesResult,
    query=seq_messages,
)
seq_trace_tool = _diagram_query(
    "seq.trace",
    "Up to `limit` messages before or after an anchor message (or the first/last ones).",
    params=SeqTraceParams,
    result=MessagesResult,
    query=seq_trace,
)
seq_search_tool = _diagram_query(
    "seq.search",
    "Messages whose text contains `needle` (substring) or matches it (Python regex, "
    "guarded against runaway patterns).",
    params=SeqSearchParams,
    result=MessagesResult,
    query=functools.partial(seq_search, matcher=bounded_regex_matcher),
    offload=lambda params: params.mode == "regex",
)


# -- H: flow.* ---------------------------------------------------------------------------


class FlowReachableParams(msgspec.Struct, frozen=True, kw_only=True):
    """The start node id and which way edges are followed."""

    from_node_id: Annotated[str, param("Node id to start from (not a ref).")]
    diagram_id: str | None = None
    direction: Annotated[
        str,
        param(
            "out follows edges forward, in backward, both either way.",
            choices=("out", "in", "both"),
        ),
    ] = "out"


class FlowPathsParams(msgspec.Struct, frozen=True, kw_only=True):
    """Both ends (node ids), how many paths and how much longer than the shortest."""

    from_node_id: str
    to_node_id: str
    diagram_id: str | None = None
    limit: Annotated[U64, param("Most paths to return (shortest first).")] = 10
    max_extra_hops: Annotated[
        U64, param("Also return paths up to this many hops longer than the shortest.")
    ] = 0


class FlowDegreesParams(msgspec.Struct, frozen=True, kw_only=True):
    """How many nodes to rank and by which degree."""

    diagram_id: str | None = None
    top: Annotated[U64, param("How many nodes to return, highest score first.")] = 10
    sort_by: Annotated[
        str | None,
        param(
            "Score: out-degree (default), in-degree or their total.", choices=("out", "in", "total")
        ),
    ] = None


class FlowUnreachableParams(msgspec.Struct, frozen=True, kw_only=True):
    """The start node id (absent: every node without incoming edges)."""

    diagram_id: str | None = None
    start_node_id: Annotated[
        str | None,
        param("Node id the search starts from; absent: every node without incoming edges."),
    ] = None


flow_reachable_tool = _diagram_query(
    "flow.reachable",
    "Nodes (or states) reachable from a node (following edges out, in, or both).",
    params=FlowReachableParams,
    result=NodesResult,
    query=flow_reachable,
)
flow_unreachable_tool = _diagram_query(
    "flow.unreachable",
    "Nodes that cannot be reached from the start node (default: every node without inputs; "
    "a state diagram's [*]).",
    params=FlowUnreachableParams,
    result=NodesResult,
    query=flow_unreachable,
)
flow_paths_tool = _diagram_query(
    "flow.paths",
    "Simple paths between two nodes, shortest first, up to `max_extra_hops` longer.",
    params=FlowPathsParams,
    result=PathsResult,
    query=flow_paths,
    offload=lambda _: True,
)
flow_cycles_tool = _diagram_query(
    "flow.cycles",
    "Cyclic regions (strongly connected components and self-loops) of a flowchart or "
    "state diagram.",
    params=GetDiagram,
    result=CyclesResult,
    query=flow_cycles,
)
flow_dead_ends_tool = _diagram_query(
    "flow.dead_ends",
    "Nodes without an outgoing edge.",
    params=GetDiagram,
    result=NodesResult,
    query=flow_dead_ends,
)
flow_degrees_tool = _diagram_query(
    "flow.degrees",
    "Fan-in and fan-out per node, ranked by out, in or total degree; the first `top`.",
    params=FlowDegreesParams,
    result=DegreesResult,
    query=flow_degrees,
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
