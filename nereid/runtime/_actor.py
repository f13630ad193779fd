"""The `Actor` base class: what a concrete actor implements.

An actor is a `gen_server`: it owns its state, handles one message at a
time (so it needs no locks), and answers calls by returning a reply. The
runtime makes a fresh instance for every (re)start, so everything an
instance holds is rebuilt from the committed snapshot in `init`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Generic, TypeVar

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

    - `init(snapshot)` rebuilds the in-memory state from the last committed
      snapshot (the spawn-time `initial` the first time).
    - `handle(message)` handles one message and returns the reply (ignored
      for casts). Dispatch with `match message:` ending in `assert_never`.
      Raise a `nereid.errors.NereidError` to refuse a request: the caller
      gets it, this actor keeps running. Any other exception is a bug: the
      actor crashes and restarts from its last commit.
    - Call `self.commit(state)` before replying to make a change survive a
      crash. Commit immutable values (frozen Structs, tuples) or copies.
    - Never call your own address from `handle`: the call would wait for
      itself until its deadline.
    """

    _cell: ActorCell[StateT]

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

    def commit(self, state: StateT) -> None:
        """Make `state` the snapshot a restart begins from. Sync, never blocks."""
        self._cell.snapshot = state

    def send_after(self, delay: float, message: Message) -> Timer:
        """Have the runtime deliver `message` to this actor in `delay` seconds (a timer;
        `cancel()` it to stop it). Sync: the handler keeps going, nobody sleeps."""
        return self._cell.runtime.send_after(delay, self._cell.address, message)

    async def init(self, snapshot: StateT) -> None:  # noqa: B027 - optional hook
        """Rebuild in-memory state from `snapshot`. Raising here counts as a crash."""

    @abstractmethod
    async def handle(self, message: MessageT) -> object:
        """Handle one message; return the reply (None for casts)."""
