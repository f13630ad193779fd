"""The `Actor` base class: what a concrete actor implements.

An actor is a `gen_server`: it owns its state, handles one message at a
time (so it needs no locks), and answers calls by returning a reply. The
runtime makes a fresh instance for every (re)start, so everything an
instance holds is rebuilt from the committed snapshot in `init`.
"""

from __future__ import annotations

from abc import ABC
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from ._handlers import (
    HandlerTable,
    NoteTable,
    ReadTable,
    handler_table,
    inline_table,
    note_table,
    read_table,
)

if TYPE_CHECKING:
    from ._cell import ActorCell, Address
    from ._messages import Message
    from ._runtime import Runtime
    from ._timers import Timer

__all__ = ["Actor", "InjectedCrash", "MessageT", "StateT"]

StateT = TypeVar("StateT")
MessageT = TypeVar("MessageT")


class InjectedCrash(Exception):
    """Raised in place of a real bug when a test kills an actor from outside."""


class Actor(ABC, Generic[StateT, MessageT]):
    """Base of every actor. `StateT`: the committed snapshot; `MessageT`: its message union.

    Contract for subclasses:

    - `state` is the committed snapshot: the spawn-time `initial` the first time, the
      last `commit(state)` after that (a restart begins from it). Commit immutable
      values (frozen Structs, tuples) or copies; `commit` before replying makes a change
      survive a crash. Keep nothing else that a restart could not rebuild.
    - `init(snapshot)` rebuilds what is derived from the snapshot (optional).
    - Declare one handler per message type with ``@on(Request)`` / ``@on_cast(Message)``
      (`nereid.runtime._handlers`): mypy checks each returns its request's reply type.
      A request answered from the state alone, without waiting or changing anything, can
      be a sync ``@on_read(Request)``: callers then get it at once while the actor idles.
      Likewise a cast handled without waiting can be a sync ``@on_note(Message)``: while
      the actor idles, the sender's `cast` handles it at once. A request handler declared
      ``@on(Request, inline=True)`` is run by the caller's own `call` while the actor
      idles (the actor is held meanwhile), saving the mailbox round trip.
      (Overriding `handle` with a `match` still works, for small test actors.)
      Raise a `nereid.errors.NereidError` to refuse a request: the caller gets it, this
      actor keeps running. Any other exception is a bug: the actor crashes and restarts
      from its last commit. A message with no handler is such a bug.
    - Never call your own address from a handler: the call would wait for itself until
      its deadline. Use `send_after` for anything that should happen later.
    """

    _cell: ActorCell[StateT]
    _handlers: ClassVar[HandlerTable] = {}
    _reads: ClassVar[ReadTable] = {}
    _notes: ClassVar[NoteTable] = {}
    _inline: ClassVar[HandlerTable] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._handlers = handler_table(cls)
        cls._reads = read_table(cls)
        cls._notes = note_table(cls)
        cls._inline = inline_table(cls)

    @property
    def name(self) -> str:
        """This actor's registry name, e.g. ``diagram:auth``."""
        return self._cell.name

    @property
    def address(self) -> Address:
        """This actor's own address (stable across restarts)."""
        return self._cell.address

    @property
    def runtime(self) -> Runtime:
        """The runtime: `registry` to find other actors, `bus` to publish events."""
        return self._cell.runtime

    @property
    def state(self) -> StateT:
        """The committed snapshot (see the class docstring)."""
        return self._cell.snapshot

    def commit(self, state: StateT) -> None:
        """Make `state` the snapshot a restart begins from (and `self.state`). Sync."""
        self._cell.snapshot = state

    def send_after(self, delay: float, message: Message) -> Timer:
        """Have the runtime deliver `message` to this actor in `delay` seconds (a timer;
        `cancel()` it to stop it). Sync: the handler keeps going, nobody sleeps."""
        return self._cell.runtime.send_after(delay, self._cell.address, message)

    async def init(self, snapshot: StateT) -> None:  # noqa: B027 - optional hook
        """Rebuild in-memory state from `snapshot`. Raising here counts as a crash."""

    def reads_now(self) -> bool:
        """Whether a read (``@on_read``) may be answered from the state as it is, and a
        note (``@on_note``) or an inline request (``@on(..., inline=True)``) handled, outside
        this actor's task, while it idles. Override with False while `handle` has work to
        do before any message (a load to finish, a store to retry)."""
        return True

    async def handle(self, message: MessageT) -> object:
        """Handle one message with its declared handler; return the reply (None for casts)."""
        handler = self._handlers.get(type(message))
        if handler is None:
            raise TypeError(f"{type(self).__name__} has no handler for {type(message).__name__}")
        return await handler(self, message)
