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

from nereid.actors.protocol import AddXref, ListXrefs, RemoveXref, XrefNeighbors
from nereid.query import RoutesResult, route_find
from nereid.query.params import check_choice, check_param_ref

from .schema import U64, param
from .session_calls import ask_xref, forward
from .snapshots import all_diagrams
from .tools import ADDITIVE, DESTRUCTIVE, READ_ONLY, Tool, ToolCall, tool

__all__ = ["TOOLS"]

_ORDERINGS = ("fewest_hops", "lexicographic")


class RouteFindParams(msgspec.Struct, frozen=True, kw_only=True):
    """Both ends (object refs), how many routes, how long, in which order."""

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


xref_list_tool = forward(
    "xref.list",
    "Cross-references, filtered by status, kind, endpoints or label; sorted by xref_id.",
    ListXrefs,
    to=ask_xref,
    hints=READ_ONLY,
)
xref_neighbors_tool = forward(
    "xref.neighbors",
    "Objects linked to an object by xrefs (direction out, in or both), in string order.",
    XrefNeighbors,
    to=ask_xref,
    hints=READ_ONLY,
)
xref_add_tool = forward(
    "xref.add",
    "Record a cross-reference between two objects; dangling endpoints are allowed.",
    AddXref,
    to=ask_xref,
    hints=ADDITIVE,
    mutates=True,
)
xref_remove_tool = forward(
    "xref.remove",
    "Delete a cross-reference by id.",
    RemoveXref,
    to=ask_xref,
    hints=DESTRUCTIVE,
    mutates=True,
)


TOOLS: tuple[Tool[Any, Any], ...] = (
    route_find_tool,
    xref_list_tool,
    xref_neighbors_tool,
    xref_add_tool,
    xref_remove_tool,
)
"""Group E."""
