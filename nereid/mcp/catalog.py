"""The whole MCP surface of a session: every tool, the diagram resources, the session hooks.

`session_endpoint_parts(handle)` is what the session layer hands the MCP endpoint
(`EndpointParts`): the `ToolTable` of all tool modules, `SessionDiagramResources` (diagrams
as `nereid://diagram/<id>` resources, following the EventBus) and `AgentSessionHooks`
(an agent's spotlight goes when its MCP session ends).

Tool modules each expose `TOOLS`. Modules written in parallel by other work
(`tools_collab`, `tools_xref`, `tools_queries`) are imported only if present: a missing
one is skipped with a logged warning — never replaced by stand-ins.

The actors' protocol and the pure layers are imported where they are used: `nereid --mcp`
answers the handshake and `tools/list` (from a kept listing, `session_tools`) before the
session's modules are loaded.
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, final

import trio

from nereid.errors import ActorNotFound, MailboxClosed, ResourceNotFound
from nereid.runtime import Event, ResyncNeeded, Runtime, Subscription

from .agents import Agent
from .endpoint import EndpointParts
from .presence import Presence
from .resources import DiagramChange, ListChanged
from .tools import Listing, Tool, ToolTable

if TYPE_CHECKING:
    from nereid.actors.tree import SessionHandle

__all__ = [
    "OPTIONAL_TOOL_MODULES",
    "TOOL_MODULES",
    "AgentSessionHooks",
    "SessionDiagramResources",
    "all_tools",
    "session_tools",
    "session_endpoint_parts",
]

log = logging.getLogger(__name__)

TOOL_MODULES: Final = (
    "nereid.mcp.tools_diagrams",
    "nereid.mcp.tools_diagram_reads",
    "nereid.mcp.tools_walkthroughs",
)
"""Tool modules that are part of this package for sure."""

OPTIONAL_TOOL_MODULES: Final = (
    "nereid.mcp.tools_collab",
    "nereid.mcp.tools_xref",
    "nereid.mcp.tools_queries",
)
"""Tool modules that may not exist yet in a build; skipped (with a warning) when missing."""


def _import_optional(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise  # the module exists but something it imports is missing: a real bug
        log.warning("MCP tool module %s is not in this build; its tools are not served", name)
        return None


def _modules() -> Iterator[ModuleType]:
    for name in TOOL_MODULES:
        yield importlib.import_module(name)
    for name in OPTIONAL_TOOL_MODULES:
        module = _import_optional(name)
        if module is not None:
            yield module


def _tools() -> Iterator[Tool[Any, Any]]:
    for module in _modules():
        tools: tuple[Tool[Any, Any], ...] = module.TOOLS
        yield from tools


def all_tools() -> ToolTable:
    """Every tool of every present tool module (duplicate names are a ValueError)."""
    return ToolTable(_tools())


def session_tools(kept: Listing | None) -> ToolTable:
    """`all_tools`, listed from `kept` (the listing this very code gave before) when given:
    the tool modules, and the layers they use, are then imported on first use."""
    return all_tools() if kept is None else ToolTable.listed(_tools, kept)


@final
class SessionDiagramResources:
    """Diagrams as MCP resources, read from the diagram actors (`DiagramResources`).

    Built from the session's runtime alone, it can serve before the tree is spawned
    (`nereid --mcp` answers while the folder loads; its endpoint gates the reads)."""

    def __init__(self, handle: SessionHandle | Runtime) -> None:
        self._handle = handle

    async def list_diagrams(self) -> list[tuple[str, str]]:
        from nereid.actors.protocol import ListDiagrams

        reply = await self._handle.registry.lookup("session").call(ListDiagrams())
        return [(d.diagram_id, d.name) for d in reply.diagrams]

    async def read_text(self, diagram_id: str) -> str:
        from nereid.actors.protocol import GetDiagram
        from nereid.offload.dispatch import export_mermaid_text

        address = self._handle.registry.get(f"diagram:{diagram_id}")
        missing = ResourceNotFound("diagram not found", data={"diagram_id": diagram_id})
        if address is None:
            raise missing
        try:
            diagram = await address.call(GetDiagram())
        except (ActorNotFound, MailboxClosed):
            raise missing from None  # deleted meanwhile
        return await export_mermaid_text(diagram)

    def changes(self, wanted: Callable[[str], bool] | None = None) -> AsyncIterator[DiagramChange]:
        """Subscribes now (not on the first iteration), so no later change is missed; a
        new rev of a diagram not `wanted` is not even queued (nobody is woken for it).

        Before the actors' protocol is imported no session actor runs, so no diagram event
        can come yet: the subscription then takes every event and narrows to the diagram
        events at the first one. `nereid --mcp` thus answers the handshake without
        importing the protocol (and the layers it names) first.
        """
        bus = self._handle.bus

        def accept(event: Event) -> bool:
            protocol = sys.modules.get("nereid.actors.protocol")
            if wanted is None or protocol is None:
                return True
            return not isinstance(event, protocol.DiagramChanged) or wanted(event.diagram_id)

        narrowed = _protocol_loaded()
        subscription = (
            bus.subscribe(*_diagram_events(), accept=accept)
            if narrowed
            else bus.subscribe(accept=accept)
        )

        async def follow() -> AsyncIterator[DiagramChange]:
            nonlocal subscription, narrowed
            try:
                while True:
                    try:
                        events = [await subscription.receive()]
                    except trio.EndOfChannel:
                        return
                    if not narrowed:  # the first event: narrow, keeping what is queued
                        broad = subscription
                        subscription = bus.subscribe(*_diagram_events(), accept=accept)
                        events.extend(_queued(broad))
                        broad.close()
                        narrowed = True
                    for event in events:
                        for change in _changes_of(event):
                            yield change
            finally:
                subscription.close()

        return follow()


def _protocol_loaded() -> bool:
    return "nereid.actors.protocol" in sys.modules


def _diagram_events() -> tuple[type[Event], ...]:
    from nereid.actors.protocol import DiagramChanged, DiagramCreated, DiagramDeleted

    return (DiagramChanged, DiagramCreated, DiagramDeleted)


def _queued(subscription: Subscription) -> Iterator[Event | ResyncNeeded]:
    while True:
        try:
            yield subscription.receive_nowait()
        except (trio.WouldBlock, trio.EndOfChannel):
            return


def _changes_of(event: Event | ResyncNeeded) -> Iterator[DiagramChange]:
    """What a bus event means for the diagram resources (nothing for other events)."""
    from nereid.actors.protocol import DiagramChanged, DiagramCreated, DiagramDeleted

    if isinstance(event, ResyncNeeded):
        yield None
    elif isinstance(event, DiagramChanged):
        yield event.diagram_id
    elif isinstance(event, DiagramDeleted):
        yield event.diagram_id
        yield ListChanged(event.diagram_id)
    elif isinstance(event, DiagramCreated):
        yield ListChanged(event.diagram.diagram_id)


@final
class AgentSessionHooks:
    """Tells ``attention`` when an agent's MCP session ends (its spotlight is dropped) and
    when its presence changes (idle: greyed; gone: dropped)."""

    def __init__(self, handle: SessionHandle | Runtime) -> None:
        self._handle = handle

    async def session_started(self, agent: Agent) -> None:
        return None

    async def session_ended(self, agent: Agent) -> None:
        from nereid.actors.protocol import AgentSessionEnded

        attention = self._handle.registry.get("attention")
        if attention is not None:
            await attention.cast(AgentSessionEnded(agent_id=agent.agent_id), timeout=1.0)

    async def session_presence(self, agent: Agent, presence: Presence) -> None:
        from nereid.actors.protocol import AgentPresence

        attention = self._handle.registry.get("attention")
        if attention is not None:
            message = AgentPresence(agent_id=agent.agent_id, presence=presence)
            await attention.cast(message, timeout=1.0)


def session_endpoint_parts(handle: SessionHandle) -> EndpointParts:
    """Everything the MCP endpoint of this session serves."""
    return EndpointParts(
        runtime=handle.runtime,
        tools=all_tools(),
        resources=SessionDiagramResources(handle),
        hooks=AgentSessionHooks(handle),
    )
