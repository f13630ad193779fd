"""Per-message handlers (`@on` / `@on_cast`): dispatch, overrides, and what is refused."""

from __future__ import annotations

import pytest

from nereid.errors import ActorRestarted
from nereid.runtime import Actor, Message, Request, on, on_cast, open_runtime


class Add(Request[int], frozen=True):
    amount: int


class Total(Request[int], frozen=True):
    pass


class Reset(Message, frozen=True):
    pass


class Unhandled(Request[None], frozen=True):
    pass


class Adder(Actor[int, Add | Total | Reset]):
    """Its state is the committed total: no attribute of its own."""

    @on(Add)
    async def _add(self, message: Add) -> int:
        self.commit(self.state + message.amount)
        return self.state

    @on(Total)
    async def _total(self, message: Total) -> int:
        return self.state

    @on_cast(Reset)
    async def _reset(self, message: Reset) -> None:
        self.commit(0)


class Doubler(Adder):
    """Overrides one handler by name; inherits the others."""

    async def _add(self, message: Add) -> int:
        self.commit(self.state + 2 * message.amount)
        return self.state


async def test_each_message_goes_to_its_handler_and_state_is_the_commit() -> None:
    async with open_runtime() as runtime:
        adder = await runtime.root.spawn("adder", Adder, initial=10)
        assert await adder.call(Add(amount=5)) == 15
        await adder.cast(Reset())
        assert await adder.call(Total()) == 0
        runtime.registry.crash("adder")
        assert await adder.call(Add(amount=1)) == 1  # restarted from the commit (0)


async def test_a_subclass_overrides_a_handler_by_name() -> None:
    assert set(Doubler._handlers) == {Add, Total, Reset}
    async with open_runtime() as runtime:
        doubler = await runtime.root.spawn("doubler", Doubler, initial=0)
        assert await doubler.call(Add(amount=5)) == 10
        assert await doubler.call(Total()) == 10


async def test_a_message_without_a_handler_is_a_bug_that_restarts_the_actor() -> None:
    async with open_runtime() as runtime:
        adder = await runtime.root.spawn("adder", Adder, initial=3)
        with pytest.raises(ActorRestarted):
            await adder.call(Unhandled())
        assert await adder.call(Total()) == 3


def test_two_handlers_for_one_message_are_refused_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="both handle Total"):

        class Twice(Actor[int, Total]):
            @on(Total)
            async def one(self, message: Total) -> int:
                return 1

            @on(Total)
            async def two(self, message: Total) -> int:
                return 2
