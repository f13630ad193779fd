"""Per-message handlers: ``@on(Request)``, ``@on_read(Request)`` and ``@on_cast(Message)``,
checked by mypy.

An actor declares one method per message type instead of one `handle` with a `match`::

    class DiagramActor(Actor[DiagramActorState, DiagramRequest]):
        @on(GetDiagram)
        async def _get(self, message: GetDiagram) -> Diagram: ...

        @on_cast(ResendToPersister)
        async def _resend(self, message: ResendToPersister) -> None: ...

mypy checks the handler against the request it is declared for: its parameter must be
that request type and its return type the request's `ReplyT` (so `await address.call(req)`
is typed end to end, sender and receiver). `Actor.__init_subclass__` collects the table
(by method name, so a subclass may override a handler); `Actor.handle` looks the message
type up in it.

``@on_read(Request)`` declares a *read*: a plain (sync) method that only reads the actor's
state. It is handled like any request, and when the actor is idle (waiting for mail, none
queued) a caller has it answered at once in its own task (`Address.call` /
`send_request`), since handling it in the actor's task then gives the same answer.

``@on_note(Message)`` declares a *note*: a plain (sync) cast handler that changes the
actor's state without waiting (an index entry, a counter). It is handled like any cast,
and when the actor is idle a sender's `cast` applies it at once in the sender's task, for
the same reason: nothing sent before it is still queued and no handler is half-way, so
the actor's task would do the same now; the actor's task is not woken (a scheduler step
saved per message). A note must raise, if at all, before it changes anything: an error
other than a `NereidError` sends the message to the actor's own task, which meets it.

``@on(Request, inline=True)`` declares a request handler a caller may run itself: when
the actor is idle, `Address.call` runs it in the caller's task instead of a mailbox round
trip (two passes of the scheduler: the actor's turn and the caller's resume). The actor
is held meanwhile (what is sent to it waits, as behind any handler), so it is still one
writer at a time and nothing overtakes. The handler runs shielded from the caller's
cancellation, so a cancelled caller never leaves it half-way; a kill or stop of the actor
still cancels it, and a bug in it crashes the actor (`ActorCell.call_now`).

None of these three paths is a checkpoint, except when its task has run a while on them
without yielding (`nereid.runtime._turns.FairTurns`): a loop of them lets other tasks run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from ._messages import Message, Request

__all__ = [
    "HandlerTable",
    "NoteTable",
    "ReadTable",
    "handler_table",
    "inline_table",
    "note_table",
    "on",
    "on_cast",
    "on_note",
    "on_read",
    "read_table",
]

_KIND = "__nereid_handles__"
_READ = "__nereid_reads__"
_NOTE = "__nereid_notes__"
_INLINE = "__nereid_inline__"

A = TypeVar("A")
R = TypeVar("R")
M = TypeVar("M", bound=Message)
M_co = TypeVar("M_co", bound=Message, covariant=True)

HandlerTable = dict[type, Callable[[Any, Any], Awaitable[object]]]
"""Message type → the (unbound) method that handles it."""

ReadTable = dict[type, Callable[[Any, Any], object]]
"""Request type → the (unbound, sync) read method that answers it (``@on_read``)."""

NoteTable = dict[type, Callable[[Any, Any], None]]
"""Message type → the (unbound, sync) method that handles it as a note (``@on_note``)."""


class _On(Generic[M_co]):
    """What `on(kind)` returns: a decorator that takes only a handler of `kind`."""

    __slots__ = ("inline", "kind")

    def __init__(self, kind: type[M_co], inline: bool) -> None:
        self.kind = kind
        self.inline = inline

    def __call__(
        self: _On[Request[R]], fn: Callable[[A, M_co], Awaitable[R]]
    ) -> Callable[[A, M_co], Awaitable[R]]:
        setattr(fn, _KIND, self.kind)
        if self.inline:
            setattr(fn, _INLINE, True)
        return fn


class _OnCast(Generic[M_co]):
    """What `on_cast(kind)` returns: a decorator for a handler that returns nothing."""

    __slots__ = ("kind",)

    def __init__(self, kind: type[M_co]) -> None:
        self.kind = kind

    def __call__(
        self, fn: Callable[[A, M_co], Awaitable[None]]
    ) -> Callable[[A, M_co], Awaitable[None]]:
        setattr(fn, _KIND, self.kind)
        return fn


class _OnRead(Generic[M_co]):
    """What `on_read(kind)` returns: a decorator that takes only a sync read of `kind`."""

    __slots__ = ("kind",)

    def __init__(self, kind: type[M_co]) -> None:
        self.kind = kind

    def __call__(self: _OnRead[Request[R]], fn: Callable[[A, M_co], R]) -> Callable[[A, M_co], R]:
        setattr(fn, _KIND, self.kind)
        setattr(fn, _READ, True)
        return fn


class _OnNote(Generic[M_co]):
    """What `on_note(kind)` returns: a decorator that takes only a sync cast handler."""

    __slots__ = ("kind",)

    def __init__(self, kind: type[M_co]) -> None:
        self.kind = kind

    def __call__(self, fn: Callable[[A, M_co], None]) -> Callable[[A, M_co], None]:
        setattr(fn, _KIND, self.kind)
        setattr(fn, _NOTE, True)
        return fn


def on_note(kind: type[M]) -> _OnNote[M]:
    """Declare the sync method below as the handler of cast `kind`, a note (see the module
    docstring): it may change the actor's state but never waits, and raises (if at all)
    before it changes anything."""
    return _OnNote(kind)


def on_read(kind: type[M]) -> _OnRead[M]:
    """Declare the sync method below as the read that answers request `kind` (see the
    module docstring): it must only read the actor's state, never change it or wait."""
    return _OnRead(kind)


def on(kind: type[M], *, inline: bool = False) -> _On[M]:
    """Declare the method below as the handler of request `kind` (returns its reply).

    `inline`: an idle actor's caller may run it in its own task (see the module docstring).
    """
    return _On(kind, inline)


def on_cast(kind: type[M]) -> _OnCast[M]:
    """Declare the method below as the handler of message `kind` (cast: no reply)."""
    return _OnCast(kind)


def handler_table(cls: type) -> HandlerTable:
    """The handlers `cls` and its bases declare; a subclass's method of the same name wins.
    Reads (``@on_read``) and notes (``@on_note``) are in it too, as coroutines.

    Raises TypeError if two methods of one class declare the same message type.
    """
    table: HandlerTable = {}
    for kind, method in _declared(cls).items():
        sync = getattr(method, _READ, False) or getattr(method, _NOTE, False)
        table[kind] = _as_coroutine(method) if sync else method
    return table


def read_table(cls: type) -> ReadTable:
    """The reads (``@on_read``) among `cls`'s handlers, as they are (sync)."""
    return {kind: fn for kind, fn in _declared(cls).items() if getattr(fn, _READ, False)}


def note_table(cls: type) -> NoteTable:
    """The notes (``@on_note``) among `cls`'s handlers, as they are (sync)."""
    return {kind: fn for kind, fn in _declared(cls).items() if getattr(fn, _NOTE, False)}


def inline_table(cls: type) -> HandlerTable:
    """The request handlers declared ``@on(..., inline=True)`` among `cls`'s handlers."""
    return {kind: fn for kind, fn in _declared(cls).items() if getattr(fn, _INLINE, False)}


def _as_coroutine(read: Callable[[Any, Any], object]) -> Callable[[Any, Any], Awaitable[object]]:
    async def handle(actor: Any, message: Any) -> object:
        return read(actor, message)

    return handle


def _declared(cls: type) -> dict[type, Callable[..., Any]]:
    names: dict[type[Message], str] = {}
    for klass in reversed(cls.__mro__):
        declared: dict[type[Message], str] = {}
        for name, value in vars(klass).items():
            kind = getattr(value, _KIND, None)
            if kind is None:
                continue
            if kind in declared:
                raise TypeError(
                    f"{klass.__qualname__}: {declared[kind]} and {name} both handle {kind.__name__}"
                )
            declared[kind] = name
        for kind, name in declared.items():
            for other, other_name in list(names.items()):
                if other_name == name and other is not kind:
                    del names[other]  # the override handles another message now
            names[kind] = name
    return {kind: getattr(cls, name) for kind, name in names.items()}
