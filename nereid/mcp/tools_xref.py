"""Group E: routes across the session and cross-references between objects (§9).

`xref.*` are answered by ``xref`` (which owns the xrefs and derives their status from the
objects that exist now). `route.find` runs the pure query on a snapshot of every diagram
and xref, off the event loop: it is bounded (decision 15) but may take a moment on a large
session, and other agents and the TUI must not wait for it.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
import trio

from nereid.actors.protocol import (
    AddXref,
    AddXrefReply,
    ListXrefs,
    RemoveXref,
    XrefNeighbors,
)
from nereid.query import NeighborsResult, RoutesResult, XRefListResult, route_find
from nereid.query.params import check_choice, check_param_ref
from nereid.query.xrefs import STATUS_FILTERS

from .schema import U64, param
from .session_calls import note_mutation
from .snapshots import all_diagrams
from .tools import ADDITIVE, DESTRUCTIVE, READ_ONLY, Tool, ToolCall, tool

__all__ = [
    "TOOLS",
    "RouteFindParams",
    "XrefAddParams",
    "XrefIdParams",
    "XrefListParams",
    "XrefNeighborsParams",
    "XrefRemoveResult",
]

_ORDERINGS = ("fewest_hops", "lexicographic")


class RouteFindParams(msgspec.Struct, frozen=True, kw_only=True):
    from_ref: Annotated[str, param("Object ref the route starts at.")]
    to_ref: Annotated[str, param("Object ref the route ends at.")]
    limit: Annotated[U64, param("Most routes to return.")] = 1
    max_hops: Annotated[
        U64 | None, param("Longest route, in hops (absent: the default bound).")
    ] = None
    ordering: Annotated[
        str | None,
        param("Route order (default fewest_hops).", choices=("fewest_hops", "lexicographic")),
    ] = None


class XrefListParams(msgspec.Struct, frozen=True, kw_only=True):
    dangling_only: Annotated[bool, param("Only xrefs with a missing endpoint.")] = False
    status: Annotated[
        str | None,
        param("Only this status (dangling_* = any but ok).", choices=STATUS_FILTERS),
    ] = None
    kind: Annotated[str | None, param("Only this xref kind.")] = None
    from_ref: Annotated[str | None, param("Only xrefs from this object ref.")] = None
    to_ref: Annotated[str | None, param("Only xrefs to this object ref.")] = None
    involves_ref: Annotated[str | None, param("Only xrefs from or to this object ref.")] = None
    label_contains: Annotated[
        str | None, param("Only xrefs whose label contains this (case-sensitive).")
    ] = None
    limit: Annotated[U64 | None, param("Most xrefs to return (absent: all).")] = None


class XrefNeighborsParams(msgspec.Struct, frozen=True, kw_only=True):
    object_ref: str
    direction: Annotated[
        str,
        param("out: xrefs from the object, in: to it, both.", choices=("out", "in", "both")),
    ] = "both"


class XrefAddParams(msgspec.Struct, frozen=True, kw_only=True):
    """`from` / `to` are ObjectRefs (Python keywords, hence the field names)."""

    xref_id: str
    from_ref: Annotated[str, param("Object ref the xref starts at.")] = msgspec.field(name="from")
    to_ref: Annotated[str, param("Object ref the xref points to.")] = msgspec.field(name="to")
    kind: Annotated[str, param("What the link means, a free word (e.g. implements).")]
    label: Annotated[str | None, param("Optional label text.")] = None


class XrefIdParams(msgspec.Struct, frozen=True, kw_only=True):
    xref_id: str


class XrefRemoveResult(msgspec.Struct, frozen=True, kw_only=True):
    removed: bool


@tool(
    "route.find",
    "Paths between two objects across all diagrams (structure plus xrefs), fewest hops first.",
    params=RouteFindParams,
    result=RoutesResult,
    hints=READ_ONLY,
)
async def route_find_tool(call: ToolCall, params: RouteFindParams) -> RoutesResult:
    # The contract's validation order, before any actor is asked (mcp-tools.md §9.1).
    check_param_ref("from_ref", params.from_ref)
    check_param_ref("to_ref", params.to_ref)
    if params.limit == 0:
        return RoutesResult(routes=[])
    if params.ordering not in (None, ""):
        check_choice("ordering", params.ordering, _ORDERINGS)
    scope = await all_diagrams(call)

    def search() -> RoutesResult:
        return route_find(
            scope,
            from_ref=params.from_ref,
            to_ref=params.to_ref,
            limit=params.limit,
            max_hops=params.max_hops,
            ordering=params.ordering,
        )

    return await trio.to_thread.run_sync(search)


@tool(
    "xref.list",
    "Cross-references, filtered by status, kind, endpoints or label; sorted by xref_id.",
    params=XrefListParams,
    result=XRefListResult,
    hints=READ_ONLY,
)
async def xref_list_tool(call: ToolCall, params: XrefListParams) -> XRefListResult:
    return await call.registry.lookup("xref").call(
        ListXrefs(
            dangling_only=params.dangling_only,
            status=params.status,
            kind=params.kind,
            from_ref=params.from_ref,
            to_ref=params.to_ref,
            involves_ref=params.involves_ref,
            label_contains=params.label_contains,
            limit=params.limit,
        )
    )


@tool(
    "xref.neighbors",
    "Objects linked to an object by xrefs (direction out, in or both), in string order.",
    params=XrefNeighborsParams,
    result=NeighborsResult,
    hints=READ_ONLY,
)
async def xref_neighbors_tool(call: ToolCall, params: XrefNeighborsParams) -> NeighborsResult:
    return await call.registry.lookup("xref").call(
        XrefNeighbors(object_ref=params.object_ref, direction=params.direction)
    )


@tool(
    "xref.add",
    "Record a cross-reference between two objects; dangling endpoints are allowed.",
    params=XrefAddParams,
    result=AddXrefReply,
    hints=ADDITIVE,
)
async def xref_add_tool(call: ToolCall, params: XrefAddParams) -> AddXrefReply:
    reply = await call.registry.lookup("xref").call(
        AddXref(
            xref_id=params.xref_id,
            from_ref=params.from_ref,
            to_ref=params.to_ref,
            kind=params.kind,
            label=params.label,
        )
    )
    await note_mutation(call)
    return reply


@tool(
    "xref.remove",
    "Delete a cross-reference by id.",
    params=XrefIdParams,
    result=XrefRemoveResult,
    hints=DESTRUCTIVE,
)
async def xref_remove_tool(call: ToolCall, params: XrefIdParams) -> XrefRemoveResult:
    reply = await call.registry.lookup("xref").call(RemoveXref(xref_id=params.xref_id))
    await note_mutation(call)
    return XrefRemoveResult(removed=reply.removed)


TOOLS: tuple[Tool[Any, Any], ...] = (
    route_find_tool,
    xref_list_tool,
    xref_neighbors_tool,
    xref_add_tool,
    xref_remove_tool,
)
"""Group E."""
