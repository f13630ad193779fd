"""Small actors and messages shared by the runtime tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import assert_never

import trio

from nereid.errors import ResourceNotFound
from nereid.runtime import Actor, Address, Message, Request

__all__ = [
    "Add",
    "Append",
    "Block",
    "Boom",
    "Bump",
    "Counter",
    "Entries",
    "CounterMessage",
    "Fail",
    "Forward",
    "Get",
    "Knobs",
    "LogNote",
    "Record",
    "Recorder",
    "Recorded",
]


class Add(Request[int], frozen=True):
    """Add and commit; replies with the new total."""

    amount: int


class Bump(Message, frozen=True):
    """Change the live total without committing (lost on restart)."""

    amount: int


class Get(Request[int], frozen=True):
    pass


class Fail(Request[None], frozen=True):
    """Refuse with an expected error."""

    what: str


class Boom(Request[None], frozen=True):
    """An unexpected exception: crashes the actor."""


class Block(Request[str], frozen=True):
    """Wait until the test releases the gate."""


class Forward(Request[int], frozen=True):
    """Call `target` with Add(amount) and reply with its answer."""

    target: str
    amount: int


CounterMessage = Add | Bump | Get | Fail | Boom | Block | Forward


@dataclass
class Knobs:
    """Test controls shared by every instance a factory makes."""

    gate: trio.Event = field(default_factory=trio.Event)
    restart_init_delay: float = 0.0
    inits: list[int] = field(default_factory=list)


class Counter(Actor[int, CounterMessage]):
    def __init__(self, knobs: Knobs) -> None:
        self._knobs = knobs
        self._total = 0

    async def init(self, snapshot: int) -> None:
        self._knobs.inits.append(snapshot)
        if len(self._knobs.inits) > 1 and self._knobs.restart_init_delay:
            await trio.sleep(self._knobs.restart_init_delay)
        self._total = snapshot

    async def handle(self, message: CounterMessage) -> object:
        match message:
            case Add(amount=amount):
                self._total += amount
                self.commit(self._total)
                return self._total
            case Bump(amount=amount):
                self._total += amount
                return None
            case Get():
                return self._total
            case Fail(what=what):
                raise ResourceNotFound(f"{what} not found", data={"what": what})
            case Boom():
                raise RuntimeError("boom")
            case Block():
                await self._knobs.gate.wait()
                return "released"
            case Forward(target=target, amount=amount):
                address: Address = self.runtime.registry.lookup(target)
                return await address.call(Add(amount=amount))
            case _:
                assert_never(message)


class Record(Message, frozen=True):
    sender: int
    seq: int


class Recorded(Request[list[tuple[int, int]]], frozen=True):
    pass


class Recorder(Actor[None, Record | Recorded]):
    """Remembers the order casts arrived in."""

    def __init__(self) -> None:
        self._seen: list[tuple[int, int]] = []

    async def handle(self, message: Record | Recorded) -> object:
        match message:
            case Record(sender=sender, seq=seq):
                self._seen.append((sender, seq))
                return None
            case Recorded():
                return list(self._seen)
            case _:
                assert_never(message)


class Entries(Request[tuple[str, ...]], frozen=True):
    """A log actor's committed entries (a read)."""


class Append(Message, frozen=True):
    """A plain cast to a log actor: append `tag` (handled in the actor's task)."""

    tag: str


class LogNote(Message, frozen=True):
    """A note to a log actor: append `tag` (handled at once while the actor idles)."""

    tag: str
