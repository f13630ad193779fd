"""Diagrams as MCP resources: `nereid://diagram/<id>`, Mermaid text, with change notifications.

The endpoint reads through a `DiagramResources` provider (the real one asks the
diagram actors and listens on the EventBus; tests use a stand-in). Sessions may
subscribe to a diagram's URI; `ResourceHub.run` follows the provider's change
stream and sends `notifications/resources/updated` to every session subscribed
to a changed diagram, and `notifications/resources/list_changed` to every session when a
diagram is created or deleted. A session's subscriptions end with the session.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Final, Protocol, final

import trio
from mcp.server.connection import Connection

from nereid.errors import InvalidParams

__all__ = [
    "DIAGRAM_URI_PREFIX",
    "DIAGRAM_URI_TEMPLATE",
    "DiagramChange",
    "ListChanged",
    "MERMAID_MIME_TYPE",
    "DiagramResources",
    "ResourceHub",
    "diagram_id_of",
    "diagram_uri",
]

log = logging.getLogger(__name__)

DIAGRAM_URI_PREFIX: Final = "nereid://diagram/"
DIAGRAM_URI_TEMPLATE: Final = "nereid://diagram/{diagram_id}"
"""The RFC 6570 template `resources/templates/list` answers."""
MERMAID_MIME_TYPE: Final = "text/plain"
_NOTIFY_TIMEOUT: Final = 5.0
"""Seconds one session may take to accept a notification before it is skipped."""


def diagram_uri(diagram_id: str) -> str:
    """The resource URI of a diagram (ids never contain `/`, so no escaping is needed)."""
    return f"{DIAGRAM_URI_PREFIX}{diagram_id}"


def diagram_id_of(uri: str) -> str:
    """The diagram id in a `nereid://diagram/<id>` URI; InvalidParams (-32602) otherwise."""
    if not uri.startswith(DIAGRAM_URI_PREFIX):
        raise InvalidParams(
            f"unknown resource uri: expected {DIAGRAM_URI_PREFIX}<diagram_id>", data={"uri": uri}
        )
    diagram_id = uri[len(DIAGRAM_URI_PREFIX) :]
    if not diagram_id or "/" in diagram_id:
        raise InvalidParams("invalid diagram_id in resource uri", data={"uri": uri})
    return diagram_id


@final
@dataclass(frozen=True, slots=True)
class ListChanged:
    """A diagram was created or deleted: every session's resource list changed."""

    diagram_id: str


DiagramChange = str | ListChanged | None
"""What `DiagramResources.changes()` yields: a diagram id (a new rev, or gone), a
`ListChanged` (created or deleted), or None (changes may have been missed)."""


class DiagramResources(Protocol):
    """Where diagram resources come from.

    `read_text` raises `nereid.errors.ResourceNotFound` for an unknown id.
    `changes()` yields the id of a diagram each time it gets a new rev or is deleted, a
    `ListChanged` when one is created or deleted (or None when changes may have been
    missed and every subscriber should re-read, and every list be re-listed); it
    is called once, by one task, for the endpoint's life, and must start
    listening when called (not lazily on the first iteration) so no change made
    after the endpoint started is missed.
    """

    async def list_diagrams(self) -> list[tuple[str, str]]:
        """`(diagram_id, name)` of every diagram, in any order."""
        ...

    async def read_text(self, diagram_id: str) -> str:
        """The diagram's canonical Mermaid text."""
        ...

    def changes(self, wanted: Callable[[str], bool] | None = None) -> AsyncIterator[DiagramChange]:
        """The change stream (see the class docstring). `wanted` (optional): whether a new
        rev of that diagram matters now; the provider may skip those it does not (so
        nobody is woken for a change no session watches). Creates and deletes always
        come."""
        ...


@final
class ResourceHub:
    """Which session is subscribed to which diagram URI, and the notifier that serves them."""

    def __init__(self, provider: DiagramResources) -> None:
        self.provider = provider
        self._subscribers: dict[str, set[Connection]] = {}
        self._sessions: set[Connection] = set()

    def open(self, connection: Connection) -> None:
        """A session started: it hears `resources/list_changed` from now on."""
        self._sessions.add(connection)

    def subscribe(self, connection: Connection, uri: str) -> None:
        diagram_id_of(uri)
        self._subscribers.setdefault(uri, set()).add(connection)

    def unsubscribe(self, connection: Connection, uri: str) -> None:
        subscribers = self._subscribers.get(uri)
        if subscribers is not None:
            subscribers.discard(connection)
            if not subscribers:
                del self._subscribers[uri]

    def forget(self, connection: Connection) -> None:
        """Drop every subscription of a session that ended."""
        self._sessions.discard(connection)
        for uri in list(self._subscribers):
            self.unsubscribe(connection, uri)

    def subscribed(self, connection: Connection) -> list[str]:
        """The URIs `connection` is subscribed to, sorted."""
        return sorted(uri for uri, conns in self._subscribers.items() if connection in conns)

    def watched(self, diagram_id: str) -> bool:
        """Whether a session is subscribed to the diagram (its new revs are notified)."""
        return diagram_uri(diagram_id) in self._subscribers

    async def notify(self, diagram_id: str | None) -> None:
        """Send `resources/updated` for `diagram_id` (every subscribed URI if None).

        Best effort: a session that does not take the notification within a few
        seconds is skipped; a closed session is skipped silently.
        """
        uris = list(self._subscribers) if diagram_id is None else [diagram_uri(diagram_id)]
        for uri in uris:
            for connection in list(self._subscribers.get(uri, ())):
                with trio.move_on_after(_NOTIFY_TIMEOUT) as scope:
                    await connection.send_resource_updated(uri)
                if scope.cancelled_caught:
                    log.warning("resource update for %s not delivered in time; skipped", uri)

    async def notify_list_changed(self) -> None:
        """Send `resources/list_changed` to every session (best effort, as `notify`)."""
        for connection in list(self._sessions):
            with trio.move_on_after(_NOTIFY_TIMEOUT) as scope:
                await connection.send_resource_list_changed()
            if scope.cancelled_caught:
                log.warning("resource list change not delivered in time; skipped")

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Follow the provider's changes until cancelled, notifying sessions."""
        changes = self.provider.changes(self.watched)
        task_status.started()
        async for change in changes:
            if isinstance(change, ListChanged):
                await self.notify_list_changed()
                continue
            await self.notify(change)
            if change is None:
                await self.notify_list_changed()
