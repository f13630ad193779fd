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
  `change_session` is one request to ``session`` that changes it, followed by that notice;
- `forward` declares a tool as a row served by one generic handler: params → request
  (`as_request` fills in the caller) → reply → result (`joined` reads it from the reply,
  with the read context and the caller's agent id); `reply_result` is such a result when it
  is the reply's own fields, so they are written once, in the protocol. An `ObjectRef` is
  its canonical text on the wire (`nereid.model.refs`), so params and results hold refs as
  the protocol does.

The MCP layer keeps no state: everything here is a message to an actor.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Final, Protocol, TypeVar, cast, get_args, get_origin, get_type_hints

import msgspec

from nereid.actors.diagram import diagram_actor_name
from nereid.actors.persister import GetSaveStatus, ItemSaveState
from nereid.actors.protocol import (
    KIND_NAMES,
    ActiveIds,
    AttentionRequest,
    DiagramRequest,
    GetActive,
    GetAttention,
    KindName,
    NoteSessionMutation,
    SessionRequest,
    WalkthroughRequest,
    XrefRequest,
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
from nereid.runtime import Address, PendingReply, Request

from .tools import Hints, Tool, ToolCall

__all__ = [
    "KIND_NAMES",
    "KindName",
    "ReadContext",
    "active_ids",
    "ask_attention",
    "ask_diagram",
    "ask_session",
    "ask_walkthrough",
    "ask_xref",
    "change_session",
    "diagram_id_or_active",
    "ForDiagram",
    "ForWalkthrough",
    "as_request",
    "forward",
    "joined",
    "kind_name",
    "note_mutation",
    "read_context",
    "read_context_soon",
    "read_from",
    "params_of",
    "reply_result",
    "reply_type",
    "resolve_diagram",
    "route_of",
    "save_states",
    "saved_state",
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
    return await read_context_soon(call)()


def read_context_soon(call: ToolCall) -> Callable[[], Awaitable[ReadContext]]:
    """Ask for the read context now; awaiting the returned function gives it.

    What ``session`` answers to `GetReadContext`, with both of its parts asked at once:
    the active diagram from ``session`` and the UI state from ``attention`` (`send_request`),
    so the two actors work in the same pass of the scheduler instead of one after the other.
    """
    active = call.registry.lookup("session").send_request(GetActive())
    attention = call.registry.get("attention")
    ui = None if attention is None else attention.send_request(GetAttention())

    async def reply() -> ReadContext:
        active_id = (await active.reply()).active_diagram_id
        return ReadContext.of(active_id, None if ui is None else (await ui.reply()).ui)

    return reply


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


def ask_diagram_soon(
    call: ToolCall, diagram_id: str, request: Request[ReplyT]
) -> Callable[[], Awaitable[ReplyT]]:
    """Send `request` to ``diagram:<id>`` now; awaiting the returned function gives what
    `ask_diagram` would. Meanwhile the caller asks other actors, which then work at once."""
    address: Address | None = call.registry.get(diagram_actor_name(diagram_id))
    pending: PendingReply[ReplyT] | None = None
    if address is not None:
        try:
            pending = address.send_request(request)
        except MailboxClosed:
            pass

    async def reply() -> ReplyT:
        if pending is None:
            raise _not_found("diagram", "diagram_id", diagram_id)
        try:
            return await pending.reply()
        except (ActorNotFound, MailboxClosed):
            raise _not_found("diagram", "diagram_id", diagram_id) from None

    return reply


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


async def saved_state(call: ToolCall, key: str) -> ItemSaveState:
    """What is on disk for one item (`save_states`; empty when that is not known)."""
    return (await save_states(call, [key]) or {}).get(key, ItemSaveState())


ParamsT = TypeVar("ParamsT", bound=msgspec.Struct)
RequestT = TypeVar("RequestT", bound=Request[Any])
ResultT = TypeVar("ResultT", bound=msgspec.Struct)

Route = Callable[[ToolCall, Any], Awaitable[Any]]
"""Finds the actor a request is for and calls it (e.g. `ask_session`); returns the reply."""


async def ask_attention(call: ToolCall, request: Request[ReplyT]) -> ReplyT:
    """One request to ``attention``."""
    return await call.registry.lookup("attention").call(request)


_CALLER: Final = ("agent_id", "agent_name")
"""Request fields the MCP layer fills in: each MCP session is its own agent (decision 13)."""


def as_request(request: type[RequestT]) -> Callable[[ToolCall, msgspec.Struct], RequestT]:
    """What makes `request` from its params (`params_of`), which do not say who calls: the
    caller's `agent_id` / `agent_name` are filled in where `request` has them."""
    callers = set(_CALLER) & set(request.__struct_fields__)

    def ask(call: ToolCall, params: msgspec.Struct) -> RequestT:
        caller = {"agent_id": call.agent.agent_id, "agent_name": call.agent.client_name}
        given = msgspec.structs.asdict(params)
        return request(**given, **{key: caller[key] for key in callers})

    return ask


def params_of(request: type[Request[Any]]) -> type[msgspec.Struct]:
    """The params of the tool that sends `request`: the request itself, unless it has caller
    fields; then its other fields (`as_request` fills those in). The request's names,
    defaults and `param(...)` docs are the one definition."""
    hints = get_type_hints(request, include_extras=True)
    fields = msgspec.structs.fields(request)
    if not any(f.name in _CALLER for f in fields):
        return request
    return _struct(
        f"{request.__name__}Params",
        [
            (f.name, hints[f.name]) + (() if f.required else (f.default,))
            for f in fields
            if f.name not in _CALLER
        ],
    )


class _Source:
    """What a result is read from, by attribute: `extra`, then each of `parts` in turn (an
    object's attributes, a mapping's keys)."""

    __slots__ = ("_extra", "_parts")

    def __init__(self, extra: Mapping[str, Any], *parts: object) -> None:
        self._extra = extra
        self._parts = parts

    def __getattr__(self, name: str) -> Any:
        if name in self._extra:
            return self._extra[name]
        for part in self._parts:
            if isinstance(part, Mapping):
                if name in part:
                    return part[name]
            elif hasattr(part, name):
                return getattr(part, name)
        raise AttributeError(name)


def read_from(*parts: object) -> object:
    """An object whose attributes are those of the first of `parts` that has them: a result
    entry read from several replies (`joined`)."""
    return _Source({}, *parts)


async def joined(
    call: ToolCall, result: type[ResultT], *parts: object, context: ReadContext | None = None
) -> ResultT:
    """`result` read by attribute from `parts` (the first that has a field wins), after
    `caller_agent_id` and `context` (the read context: the given one, else asked for when
    `result` has that field)."""
    extra: dict[str, Any] = {"caller_agent_id": call.agent.agent_id}
    if "context" in result.__struct_fields__:
        extra["context"] = context if context is not None else await read_context(call)
    return msgspec.convert(_Source(extra, *parts), result, from_attributes=True)


def reply_result(
    source: type[msgspec.Struct],
    *names: str,
    context: bool = True,
    inside: str | None = None,
    typed: Mapping[str, Any] | None = None,
    **renamed: str,
) -> type[msgspec.Struct]:
    """The result that IS a reply: `source`'s attributes `names` (all its fields when none are
    named) and `renamed` (wire name = attribute, a property too), every one required, then
    `typed` (attribute: the annotation it is shown
    as, e.g. never null, or `caller_agent_id`, which `joined` gives), then the read context
    when `context`. `inside`: the result holds them as its one field of that name
    (`forward(..., reply_as=inside)`). `joined` reads it from the reply, so the protocol
    Struct is the one definition."""
    hints = get_type_hints(source)
    typed = typed or {}
    named = bool(names or renamed or typed)
    picked = [(name, name) for name in names or ([] if named else source.__struct_fields__)]
    fields: list[tuple[Any, ...]] = [
        (attr, hints.get(attr) or get_type_hints(getattr(source, attr).fget)["return"])
        + (() if wire == attr else (msgspec.field(name=wire),))
        for wire, attr in [*picked, *renamed.items()]
    ] + list(typed.items())
    name = "_".join([source.__name__, *(wire for wire, _ in picked), *renamed, *typed])
    if inside is not None:
        fields, name = [(inside, _struct(name, fields))], f"{name}_in_{inside}"
    return _struct(name, fields + ([("context", ReadContext)] if context else []))


def _struct(name: str, fields: list[tuple[Any, ...]]) -> type[msgspec.Struct]:
    namespace = {"__doc__": "A reply as a result (`reply_result`).", "__module__": __name__}
    return msgspec.defstruct(name, fields, kw_only=True, frozen=True, namespace=namespace)


def route_of(request: type[Request[Any]]) -> Route:
    """How to reach the actor that answers `request`, from the protocol's per-actor unions
    (`SessionRequest`, `DiagramRequest`, ...): one statement of who answers what."""
    routes: tuple[tuple[Any, Route], ...] = (
        (SessionRequest, ask_session),
        (AttentionRequest, ask_attention),
        (XrefRequest, ask_xref),
        (DiagramRequest, to_diagram),
        (WalkthroughRequest, to_walkthrough),
    )
    for union, route in routes:
        if request in get_args(union):
            return route
    raise TypeError(f"no actor answers {request.__name__}")


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
    request: type[Request[Any]],
    *,
    hints: Hints,
    result: type[msgspec.Struct] | None = None,
    reply_as: str | None = None,
    mutates: bool = False,
    schema_overrides: Mapping[str, dict[str, Any]] | None = None,
    unlisted_output: Iterable[str] = (),
) -> Tool[Any, Any]:
    """A tool as a row: its params are the actor request and its result is the reply.

    The one generic handler: decode the arguments as the request's params (`params_of`: the
    request itself, or its fields without the caller's; the endpoint decodes), make the
    request (`as_request`), send it to the actor that answers it (`route_of`), and return the
    reply — or, given `result`, the result read from it (`joined`: the reply's fields, or the
    reply as the field `reply_as`, joined with the read context, the caller and the params). `mutates`: a change the TUI counts (`note_mutation` after the reply, so a
    refusal bumps nothing).
    """
    params = params_of(request)
    send, make = route_of(request), None if params is request else as_request(request)

    async def handler(call: ToolCall, given: Any) -> Any:
        reply = await send(call, given if make is None else make(call, given))
        if mutates:
            await note_mutation(call)
        if result is None:
            return reply
        context = reply if isinstance(reply, ReadContext) else None  # no need to ask again
        part = reply if reply_as is None else {reply_as: reply}
        return await joined(call, result, part, given, context=context)

    shape = cast(type[Any], result or reply_type(request))
    return Tool(
        name,
        description,
        params,
        shape,
        hints,
        handler,
        dict(schema_overrides or {}),
        frozenset(unlisted_output),
    )
