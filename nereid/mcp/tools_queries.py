"""Groups F, G, H: `object.read`, the `seq.*` and the `flow.*` queries (§10-12).

Each tool is a row, `query_tool(name, description, query, result=...)`: its params are the
query's keyword parameters (`query_params`: the signature is the one definition of names,
types, defaults and descriptions). The handler fetches the snapshots the query needs (the
one diagram it names or the active one; for `object.read` the diagrams of the refs) and
runs the pure query on them (`nereid.query`), which validates the parameters in the
contract's order and raises its errors. The searches that can take a while on big inputs
(`flow.paths`, regex `seq.search`; both bounded) run off the event loop.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, get_type_hints

import msgspec
import trio

from nereid.model import ObjectRefError, parse_ref
from nereid.offload.dispatch import bounded_regex_matcher
from nereid.query import (
    CyclesResult,
    DegreesResult,
    MessagesResult,
    NodesResult,
    ObjectReadResult,
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

from .session_calls import read_context, reply_result
from .snapshots import scope_of_diagram, scope_of_diagrams
from .tools import READ_ONLY, Tool, ToolCall

__all__ = ["TOOLS", "query_params", "query_tool"]

Scope = Callable[[ToolCall, Any], Awaitable[QueryScope]]
"""Fetches the snapshots a query reads, given the tool's params."""


def query_params(query: Callable[..., Any], internal: Iterable[str] = ()) -> type[msgspec.Struct]:
    """The params of the tool for `query`: its keyword-only parameters (names, annotated types,
    defaults, in signature order) except the `internal` ones (budgets, injected helpers).

    Named after the query (`seq_trace` → `SeqTraceParams`), documented by its summary line.
    """
    hints, left_out = get_type_hints(query, include_extras=True), set(internal)
    fields: list[tuple[Any, ...]] = [
        (p.name, hints[p.name]) if p.default is p.empty else (p.name, hints[p.name], p.default)
        for p in inspect.signature(query).parameters.values()
        if p.kind is p.KEYWORD_ONLY and p.name not in left_out
    ]
    name = "".join(word.title() for word in query.__name__.split("_")) + "Params"
    summary = (query.__doc__ or "").strip().split("\n\n")[0]
    namespace = {"__doc__": f"The parameters of {summary}", "__module__": query.__module__}
    return msgspec.defstruct(name, fields, kw_only=True, frozen=True, namespace=namespace)


async def _named_diagram(call: ToolCall, params: Any) -> QueryScope:
    return await scope_of_diagram(call, params.diagram_id)


def query_tool(
    name: str,
    description: str,
    query: Callable[..., Any],
    *,
    result: type[msgspec.Struct],
    scope: Scope = _named_diagram,
    internal: Iterable[str] = (),
    bind: Mapping[str, Any] | None = None,
    offload: Callable[[Any], bool] = lambda params: False,
) -> Tool[Any, Any]:
    """A read-only tool that runs `query` on the snapshots `scope` fetches (default: the
    diagram its params name, or the active one), its params passed by name.

    `internal`: query parameters that are not the tool's (left at their defaults); `bind`:
    values for others. `offload(params)`: run the query in a worker thread (the snapshots
    are immutable, so that is safe) — for the searches that can take a while. A `result`
    other than the query's is its reply joined with the read context.
    """
    extra = dict(bind or {})
    params = query_params(query, {*internal, *extra})
    returns = get_type_hints(query)["return"]

    async def handler(call: ToolCall, given: Any) -> Any:
        run = functools.partial(
            query, await scope(call, given), **msgspec.structs.asdict(given), **extra
        )
        found = await trio.to_thread.run_sync(run) if offload(given) else run()
        if result is returns:
            return found
        return result(**msgspec.structs.asdict(found), context=await read_context(call))

    return Tool(name, description, params, result, READ_ONLY, handler)


# -- F: object.read ----------------------------------------------------------------------


async def _diagrams_of_refs(call: ToolCall, params: Any) -> QueryScope:
    """The diagrams of the refs up to the first unparsable one (which the query reports)."""
    texts = [params.object_ref] if params.object_ref is not None else (params.object_refs or [])
    ids: list[str] = []
    for text in texts:
        try:
            ids.append(parse_ref(text).diagram_id)
        except ObjectRefError:
            break
    return await scope_of_diagrams(call, ids)


TOOLS: tuple[Tool[Any, Any], ...] = (
    query_tool(
        "object.read",
        "The fields of one object (object_ref) or several (object_refs), by ObjectRef.",
        object_read,
        result=reply_result(ObjectReadResult),
        scope=_diagrams_of_refs,
    ),
    query_tool(
        "seq.messages",
        "Messages of a sequence diagram in time order, optionally by sender and/or receiver.",
        seq_messages,
        result=MessagesResult,
    ),
    query_tool(
        "seq.trace",
        "Up to `limit` messages before or after an anchor message (or the first/last ones).",
        seq_trace,
        result=MessagesResult,
    ),
    query_tool(
        "seq.search",
        "Messages whose text contains `needle` (substring) or matches it (Python regex, "
        "guarded against runaway patterns).",
        seq_search,
        result=MessagesResult,
        internal=("time_limit",),
        bind={"matcher": bounded_regex_matcher},
        offload=lambda params: params.mode == "regex",
    ),
    query_tool(
        "flow.reachable",
        "Nodes (or states) reachable from a node (following edges out, in, or both).",
        flow_reachable,
        result=NodesResult,
    ),
    query_tool(
        "flow.unreachable",
        "Nodes that cannot be reached from the start node (default: every node without "
        "inputs; a state diagram's [*]).",
        flow_unreachable,
        result=NodesResult,
    ),
    query_tool(
        "flow.paths",
        "Simple paths between two nodes, shortest first, up to `max_extra_hops` longer.",
        flow_paths,
        result=PathsResult,
        internal=("step_budget",),
        offload=lambda params: True,
    ),
    query_tool(
        "flow.cycles",
        "Cyclic regions (strongly connected components and self-loops) of a flowchart or "
        "state diagram.",
        flow_cycles,
        result=CyclesResult,
    ),
    query_tool(
        "flow.dead_ends", "Nodes without an outgoing edge.", flow_dead_ends, result=NodesResult
    ),
    query_tool(
        "flow.degrees",
        "Fan-in and fan-out per node, ranked by out, in or total degree; the first `top`.",
        flow_degrees,
        result=DegreesResult,
    ),
)
"""Groups F, G and H."""
