"""How tool handlers reach the session actors: addressing, defaults and the read context.

Shared by the tool modules so every tool resolves ids and reports "not found" the same way
(spec README: unknown diagram / walkthrough → -32002, malformed id → -32602):

- `diagram_id_or_active` applies mcp-tools.md §3.5 (given → checked; omitted → active;
  none → `diagram_id is required (no active diagram)`);
- `ask_diagram` / `ask_walkthrough` send one request to ``diagram:<id>`` /
  ``walkthrough:<id>``; an actor that is not (or no longer) there is `diagram not found` /
  `walkthrough not found` with data naming the id — one rule for every tool;
- `read_context` is the contract's `context` object (keys omitted when unset);
- `save_states` is what is on disk per item (`saved_rev`, `save_error` in `*.stat` and
  `diagram.list`), from ``persister.status``, which answers even while a save runs;
- `note_mutation` tells ``attention`` a mutating tool succeeded (bumps `ui_session_rev`);
  `change_session` is one request to ``session`` that changes it, followed by that notice.

The MCP layer keeps no state: everything here is a message to an actor.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, Protocol, TypeVar, cast, get_args, get_origin

import msgspec

from nereid.actors.diagram import diagram_actor_name
from nereid.actors.persister import GetSaveStatus, ItemSaveState
from nereid.actors.protocol import (
    KIND_NAMES,
    ActiveIds,
    GetActive,
    GetReadContext,
    KindName,
    NoteSessionMutation,
)
from nereid.actors.protocol import ReadContext as ReadContext
from nereid.actors.refusals import check_id_param
from nereid.actors.walkthrough import walkthrough_actor_name
from nereid.errors import (
    ActorError,
    ActorNotFound,
    InvalidParams,
    MailboxClosed,
    ResourceNotFound,
)
from nereid.model import DiagramKind
from nereid.runtime import Address, Request

from .tools import Hints, Tool, ToolCall

__all__ = [
    "KIND_NAMES",
    "KindName",
    "ReadContext",
    "active_ids",
    "ask_diagram",
    "ask_session",
    "ask_walkthrough",
    "ask_xref",
    "change_session",
    "diagram_id_or_active",
    "ForDiagram",
    "ForWalkthrough",
    "forward",
    "kind_name",
    "note_mutation",
    "read_context",
    "reply_type",
    "resolve_diagram",
    "save_states",
    "to_diagram",
    "to_walkthrough",
]

log = logging.getLogger(__name__)

ReplyT = TypeVar("ReplyT")

STATUS_ACTOR: Final = "persister.status"
"""Where the per-item save status lives (`nereid.actors.persister.spawn_persister`)."""

_NOTE_TIMEOUT: Final = 1.0
"""Seconds a mutation notice may wait for room in ``attention``'s mailbox."""


def kind_name(kind: DiagramKind) -> KindName:
    """`"Flowchart"` / `"Sequence"` for a model kind."""
    return KIND_NAMES[kind]


async def ask_session(call: ToolCall, request: Request[ReplyT]) -> ReplyT:
    """One request to ``session``."""
    return await call.registry.lookup("session").call(request)


async def ask_xref(call: ToolCall, request: Request[ReplyT]) -> ReplyT:
    """One request to ``xref``."""
    return await call.registry.lookup("xref").call(request)


async def read_context(call: ToolCall) -> ReadContext:
    """The `context` object of read tools (mcp-tools.md §3.4)."""
    return await ask_session(call, GetReadContext())


async def active_ids(call: ToolCall) -> ActiveIds:
    """The active diagram and walkthrough ids."""
    return await ask_session(call, GetActive())


def diagram_id_or_active(diagram_id: str | None, active: str | None) -> str:
    """The diagram a tool works on: the checked `diagram_id`, else the active one (§3.5)."""
    if diagram_id is not None:
        return check_id_param("diagram_id", diagram_id)
    if active is None:
        raise InvalidParams("diagram_id is required (no active diagram)")
    return active


async def resolve_diagram(call: ToolCall, diagram_id: str | None) -> str:
    """The checked `diagram_id`, else the active diagram's (one actor call), §3.5."""
    if diagram_id is not None:
        return check_id_param("diagram_id", diagram_id)
    return diagram_id_or_active(None, (await active_ids(call)).active_diagram_id)


class ForDiagram(Protocol):
    """A request that names its diagram (absent: the active one)."""

    @property
    def diagram_id(self) -> str | None: ...


class ForWalkthrough(Protocol):
    """A request that names its walkthrough."""

    @property
    def walkthrough_id(self) -> str: ...


async def to_diagram(call: ToolCall, request: ForDiagram) -> Any:
    """Route a request to the diagram it names (or the active one)."""
    chosen = await resolve_diagram(call, request.diagram_id)
    return await ask_diagram(call, chosen, cast(Request[Any], request))


async def to_walkthrough(call: ToolCall, request: ForWalkthrough) -> Any:
    """Route a request to the walkthrough it names."""
    return await ask_walkthrough(call, request.walkthrough_id, cast(Request[Any], request))


def _not_found(what: str, param: str, item_id: str) -> ResourceNotFound:
    return ResourceNotFound(f"{what} not found", data={param: item_id})


async def _ask(
    call: ToolCall, name: str, request: Request[ReplyT], missing: ResourceNotFound
) -> ReplyT:
    address: Address | None = call.registry.get(name)
    if address is None:
        raise missing
    try:
        return await address.call(request)
    except (ActorNotFound, MailboxClosed):
        # Deleted between the lookup and the reply: the item is gone.
        raise missing from None


async def ask_diagram(call: ToolCall, diagram_id: str, request: Request[ReplyT]) -> ReplyT:
    """One request to ``diagram:<id>``; `diagram not found` (data `{diagram_id}`) if absent.

    `diagram_id` must already be checked (`diagram_id_or_active` / `check_id_param`).
    """
    missing = _not_found("diagram", "diagram_id", diagram_id)
    return await _ask(call, diagram_actor_name(diagram_id), request, missing)


async def ask_walkthrough(call: ToolCall, walkthrough_id: str, request: Request[ReplyT]) -> ReplyT:
    """One request to ``walkthrough:<id>`` after checking the id (`invalid walkthrough_id: …`);
    `walkthrough not found` (data `{walkthrough_id}`) if absent."""
    check_id_param("walkthrough_id", walkthrough_id)
    missing = _not_found("walkthrough", "walkthrough_id", walkthrough_id)
    return await _ask(call, walkthrough_actor_name(walkthrough_id), request, missing)


async def note_mutation(call: ToolCall) -> None:
    """Tell ``attention`` a mutating tool succeeded (the TUI's `ui_session_rev`).

    Best effort: the change is already committed, so a full mailbox only costs the bump.
    """
    attention = call.registry.get("attention")
    if attention is None:
        return
    try:
        await attention.cast(NoteSessionMutation(), timeout=_NOTE_TIMEOUT)
    except ActorError as err:
        log.warning("attention did not take a session-mutation notice: %s", err)


async def change_session(call: ToolCall, request: Request[ReplyT]) -> ReplyT:
    """One request to ``session`` that changes it (create, open, delete), then the notice.

    The notice goes only after the reply, so a refused request bumps nothing.
    """
    reply = await ask_session(call, request)
    await note_mutation(call)
    return reply


_STATUS_TIMEOUT: Final = 1.0
"""Seconds a read waits for the save status (its holder never waits for the disk)."""


async def save_states(call: ToolCall, keys: list[str]) -> dict[str, ItemSaveState] | None:
    """What is on disk for these items (``diagram:<id>``...); None when nothing is saved
    (memory-only mode) or the status is not available right now."""
    address = call.registry.get(STATUS_ACTOR)
    if address is None:
        return None
    try:
        status = await address.call(GetSaveStatus(), timeout=_STATUS_TIMEOUT)
    except ActorError as err:
        log.warning("save status not available: %s", err)
        return None
    return {key: status.item(key) for key in keys}


RequestT = TypeVar("RequestT", bound=Request[Any])

Route = Callable[[ToolCall, RequestT], Awaitable[Any]]
"""Finds the actor a request is for and calls it (e.g. `ask_session`); returns the reply."""


def reply_type(request: type[Request[Any]]) -> type[msgspec.Struct]:
    """The reply Struct a request class names (`class OpenDiagram(Request[OpenDiagramReply])`)."""
    for base in getattr(request, "__orig_bases__", ()):
        if get_origin(base) is Request:
            (reply,) = get_args(base)
            if isinstance(reply, type) and issubclass(reply, msgspec.Struct):
                return reply
    raise TypeError(f"{request.__name__} does not name a Struct reply type")


def forward(
    name: str,
    description: str,
    request: type[RequestT],
    *,
    to: Route[RequestT],
    hints: Hints,
    mutates: bool = False,
    schema_overrides: Mapping[str, dict[str, Any]] | None = None,
) -> Tool[RequestT, Any]:
    """A tool whose params are the actor request `request` and whose result is its reply.

    The one generic handler: decode the arguments as `request` (the endpoint does that),
    send it with `to`, and return the reply as the result. `mutates`: a change the TUI
    counts (`note_mutation` after the reply, so a refusal bumps nothing).
    """

    async def handler(call: ToolCall, params: RequestT) -> Any:
        reply = await to(call, params)
        if mutates:
            await note_mutation(call)
        return reply

    result = cast(type[Any], reply_type(request))
    return Tool(name, description, request, result, hints, handler, dict(schema_overrides or {}))
