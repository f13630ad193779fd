"""Group E: routes across the session and cross-references between objects (§9).

`xref.*` are answered by ``xref`` (which owns the xrefs and derives their status from the
objects that exist now). `route.find` runs the pure query on a snapshot of every diagram
and xref, off the event loop: it is bounded (decision 15) but may take a moment on a large
session, and other agents and the TUI must not wait for it.
"""

from __future__ import annotations

from typing import Any

import msgspec

from nereid.actors.protocol import AddXref, ListXrefs, RemoveXref, XrefNeighbors
from nereid.query import QueryScope, RoutesResult, route_find

from .session_calls import forward
from .snapshots import all_diagrams
from .tools import ADDITIVE, DESTRUCTIVE, READ_ONLY, Tool, ToolCall
from .tools_queries import query_tool

__all__ = ["TOOLS"]


async def _all_once_checked(call: ToolCall, params: Any) -> QueryScope:
    """Every diagram and xref, asked for only after the contract's checks (mcp-tools.md §9.1):
    on the empty scope the query refuses bad params as it would on any other."""
    route_find(QueryScope(), **msgspec.structs.asdict(params))
    return QueryScope() if params.limit == 0 else await all_diagrams(call)


TOOLS: tuple[Tool[Any, Any], ...] = (
    query_tool(
        "route.find",
        "Paths between two objects across all diagrams (structure plus xrefs), fewest hops first.",
        route_find,
        result=RoutesResult,
        scope=_all_once_checked,
        internal=("graph", "expansion_budget"),
        offload=lambda params: params.limit > 0,
    ),
    forward(
        "xref.list",
        "Cross-references, filtered by status, kind, endpoints or label; sorted by xref_id.",
        ListXrefs,
        hints=READ_ONLY,
    ),
    forward(
        "xref.neighbors",
        "Objects linked to an object by xrefs (direction out, in or both), in string order.",
        XrefNeighbors,
        hints=READ_ONLY,
    ),
    forward(
        "xref.add",
        "Record a cross-reference between two objects; dangling endpoints are allowed.",
        AddXref,
        hints=ADDITIVE,
        mutates=True,
    ),
    forward(
        "xref.remove",
        "Delete a cross-reference by id.",
        RemoveXref,
        hints=DESTRUCTIVE,
        mutates=True,
    ),
)
"""Group E."""
