"""What the query tools read, fetched from the actors: diagram snapshots and the xrefs.

The pure queries (`nereid.query`) run on a `QueryScope`; these helpers fill one from actor
replies, asking only the actors a tool needs (one `diagram:<id>`, or all of them for
`route.find`). A diagram deleted while we ask is simply absent from the scope, so the query
reports it the way the contract says (`diagram not found`), never as a runtime failure.
"""

from __future__ import annotations

import trio

from nereid.actors.diagram import diagram_actor_name
from nereid.actors.protocol import (
    GetActive,
    GetDiagram,
    ListDiagrams,
    ListXrefs,
)
from nereid.errors import ActorNotFound, MailboxClosed, NereidError
from nereid.model import Diagram, XRef
from nereid.query import QueryScope

from .tools import ToolCall

__all__ = [
    "all_diagrams",
    "diagram_snapshot",
    "scope_of_diagram",
    "scope_of_diagrams",
    "session_xrefs",
]


async def diagram_snapshot(call: ToolCall, diagram_id: str) -> Diagram | None:
    """The current snapshot of `diagram_id`, or None if no such diagram (any more)."""
    address = call.registry.get(diagram_actor_name(diagram_id))
    if address is None:
        return None
    try:
        return await address.call(GetDiagram())
    except (ActorNotFound, MailboxClosed):  # deleted between the lookup and the call
        return None


async def scope_of_diagram(call: ToolCall, diagram_id: str | None) -> QueryScope:
    """A scope holding the one diagram a query with an optional `diagram_id` works on.

    The id is the given one, else the session's active diagram (§3.5). The query itself
    validates the id and reports a missing one, so an invalid or unknown id yields a scope
    without diagrams (and with the active id, for the query's own resolution).
    """
    active: str | None = None
    target = diagram_id
    if diagram_id is None:
        ids = await call.registry.lookup("session").call(GetActive())
        active = target = ids.active_diagram_id
    diagrams: dict[str, Diagram] = {}
    if target is not None:
        diagram = await diagram_snapshot(call, target)
        if diagram is not None:
            diagrams[target] = diagram
    return QueryScope(diagrams=diagrams, active_diagram_id=active)


async def scope_of_diagrams(call: ToolCall, diagram_ids: list[str]) -> QueryScope:
    """A scope with the snapshots of `diagram_ids` that exist (fetched in parallel)."""
    found: dict[str, Diagram] = {}
    failures: list[NereidError] = []

    async def fetch(diagram_id: str) -> None:
        try:
            diagram = await diagram_snapshot(call, diagram_id)
        except NereidError as err:  # e.g. a timeout: reported as itself, not as a group
            failures.append(err)
            return
        if diagram is not None:
            found[diagram_id] = diagram

    async with trio.open_nursery() as nursery:
        for diagram_id in dict.fromkeys(diagram_ids):
            nursery.start_soon(fetch, diagram_id)
    if failures:
        raise failures[0]
    return QueryScope(diagrams=found)


async def all_diagrams(call: ToolCall) -> QueryScope:
    """Every diagram of the session, the xrefs and the active id (for `route.find`)."""
    listing = await call.registry.lookup("session").call(ListDiagrams())
    scope = await scope_of_diagrams(call, [summary.diagram_id for summary in listing.diagrams])
    return QueryScope(
        diagrams=scope.diagrams,
        xrefs=await session_xrefs(call),
        active_diagram_id=listing.active_diagram_id,
    )


async def session_xrefs(call: ToolCall) -> dict[str, XRef]:
    """Every xref by id, rebuilt from ``xref``'s unfiltered listing."""
    listing = await call.registry.lookup("xref").call(ListXrefs())
    return {
        summary.xref_id: XRef(
            from_ref=summary.from_ref,
            to_ref=summary.to_ref,
            kind=summary.kind,
            label=summary.label,
        )
        for summary in listing.xrefs
    }
